// sacctmgr's accounts, users and associations as ctld keeps them: v1 protos
// (also the stored rows, kinds "account", "acct_user", "assoc" in the job
// store's records table), and pure functions that apply an UpdateAccounts
// request to a copy, list the rows that changed, and derive the core's
// AccountPolicy (limits resolved through inheritance).
//
// Threads: none; the Controller owns its AccountsState under its mutex and
// serializes updates.
#ifndef SKIFF_CTLD_ACCOUNTS_ACCOUNTS_TABLE_H_
#define SKIFF_CTLD_ACCOUNTS_ACCOUNTS_TABLE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctld/core/account_policy.h"
#include "ctld/core/lifecycle/effects.h"
#include "proto/ctld.pb.h"

namespace skiff {

inline constexpr char kAccountKind[] = "account";
inline constexpr char kAcctUserKind[] = "acct_user";
inline constexpr char kAssocKind[] = "assoc";

struct AccountsState {
  std::map<std::string, v1::AccountInfo> accounts;  // by name
  std::map<std::string, v1::UserInfo> users;        // by name
  std::map<std::string, v1::AssocInfo> assocs;      // by AssocKey
};

// "account|user|partition": the association's stored key.
std::string AssocKey(const std::string& account, const std::string& user,
                     const std::string& partition);

// A new database: Slurm's initial tables (account root, user root as
// Administrator, associations root and root/root with QOS normal).
AccountsState InitialAccounts();

// Rebuilds the state from stored rows. DataLoss names a row that does not parse.
absl::StatusOr<AccountsState> AccountsFromRecords(
    const std::map<std::string, std::string>& accounts,
    const std::map<std::string, std::string>& users,
    const std::map<std::string, std::string>& assocs);

// The rows that make `before` into `after` (changed rows in full, removed ones
// with an empty blob), for JobStore::Save's records.
std::vector<RecordRow> ChangedRows(const AccountsState& before, const AccountsState& after);

// What an update needs to know besides the tables.
struct AccountsContext {
  std::vector<std::string> qos_names;   // QOS that exist
  std::map<std::string, int64_t> uids;  // user name -> uid (-1 = no such user)
  std::set<std::string> active_assocs;  // "account|user" of jobs not yet final
};

struct AccountsUpdate {
  AccountsState state;
  std::vector<std::string> affected;      // see UpdateAccountsReply
  std::vector<std::string> associations;  // "  A = research   C = lab       " lines
};

// Applies one sacctmgr add/modify/delete. Names are lower-cased (accounts) as
// Slurm's database keeps them. Errors (InvalidArgument unless noted), Slurm's
// texts: an unknown parent ("Parent account 'x' doesn't exist on cluster lab"),
// an unknown account for a user ("The account 'x' doesn't exist"), an unknown
// QOS ("Invalid qos 'x'"), a DefaultQOS not in the QOS list, a DefaultAccount the
// user has no association with, a bad AdminLevel, removing root ("You are not
// allowed to remove the root account."), a user's default account
// (FailedPrecondition "You can not remove the default account of a user"),
// associations with active jobs (FailedPrecondition "Job(s) active, cancel
// job(s) before remove"), a parent that would make a cycle ("Invalid parent
// account specified"). Nothing matching a modify or delete: NotFound.
absl::StatusOr<AccountsUpdate> ApplyAccountsUpdate(const AccountsState& state,
                                                   const v1::UpdateAccountsRequest& request,
                                                   const AccountsContext& context,
                                                   const std::string& cluster);

// The reply for sacctmgr show ... and scontrol show assoc: associations depth
// first from root (an account's own, its users by name, its sub-accounts by name).
v1::GetAccountsReply ToAccountsReply(const AccountsState& state, const std::string& cluster);

// The core's view, with every limit and QOS list resolved through inheritance.
AccountPolicy ToAccountPolicy(const AccountsState& state, const Enforcement& enforce);

// Each association's normalized shares (Slurm's NormShares): root 1, and an
// association's Fairshare (default 1) over the sum of its siblings', times its
// parent's. By AssocKey.
std::map<std::string, double> NormalizedShares(const AccountsState& state);

// Users whose AdminLevel is Operator or Administrator, by uid (known uids only).
std::set<uid_t> AdminUids(const AccountsState& state);

}  // namespace skiff

#endif  // SKIFF_CTLD_ACCOUNTS_ACCOUNTS_TABLE_H_
