// PrivateData (skiff.conf) applied to what ctld answers a caller who is not an
// operator, as Slurm 22.05 applies it:
//   reservations: only the reservations the caller may use (listed by user,
//                 by a group's member or by an account they hold an
//                 association in; Slurm's show_resv with _validate_user_access);
//   users:        only the caller's own user record and associations (Slurm's
//                 get_users and get_assocs add "user = the caller");
//   accounts:     no account definitions (Slurm shows a non-operator only the
//                 accounts they coordinate; Skiff has no coordinators);
//   usage:        only the caller's own usage (their AssocKey): no other
//                 user's, and no account's or QOS's totals, which hold others'
//                 (Slurm's get_usage and assoc_mgr_get_shares).
// "jobs" is applied where jobs are listed (services.cc, services_accounting.cc);
// the other values are refused when skiff.conf is loaded
// (common/config/skiff_conf_globals.cc).
//
// Pure functions over replies already built; thread-safe.
#ifndef SKIFF_CTLD_RPC_PRIVATE_DATA_H_
#define SKIFF_CTLD_RPC_PRIVATE_DATA_H_

#include <set>
#include <string>

#include "ctld/core/reservations/reservation.h"
#include "proto/ctld.pb.h"

namespace skiff::ctld {

// Which of the values a GetAccounts reply is narrowed by.
struct PrivateAccountsData {
  bool users = false;
  bool accounts = false;
  bool usage = false;
};

// The accounts `user` holds an association in, from a GetAccounts reply
// (taken before it is narrowed).
std::set<std::string> AccountsOfUser(const v1::GetAccountsReply& reply, const std::string& user);

// Narrows `reply` to what `user` (not an operator) may see under `what`.
void HidePrivateAccounts(const PrivateAccountsData& what, const std::string& user,
                         v1::GetAccountsReply* reply);

// PrivateData=usage on sreport's rows: only `user`'s own.
void HidePrivateUsageRows(const std::string& user, v1::GetUsageReportReply* reply);

// PrivateData=reservations: whether `user`, holding associations in
// `accounts`, may see `resv`.
bool ReservationVisibleTo(const AdvanceReservation& resv, const std::string& user,
                          const std::set<std::string>& accounts);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_PRIVATE_DATA_H_
