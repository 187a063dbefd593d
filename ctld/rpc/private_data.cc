#include "ctld/rpc/private_data.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_split.h"

namespace skiff::ctld {
namespace {

// The user part of a usage key: "account|user" -> "user"; "" for an account's
// (or a QOS's) own key, which sums every user's.
std::string UserOfKey(const std::string& key) {
  const std::vector<std::string> parts = absl::StrSplit(key, '|');
  return parts.size() >= 2 ? parts[1] : "";
}

template <typename Map>
void KeepOwnKeys(const std::string& user, Map* map) {
  for (auto it = map->begin(); it != map->end();) {
    if (UserOfKey(it->first) == user) {
      ++it;
    } else {
      it = map->erase(it);
    }
  }
}

}  // namespace

std::set<std::string> AccountsOfUser(const v1::GetAccountsReply& reply, const std::string& user) {
  std::set<std::string> out;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    if (!user.empty() && assoc.user() == user) out.insert(assoc.account());
  }
  return out;
}

void HidePrivateAccounts(const PrivateAccountsData& what, const std::string& user,
                         v1::GetAccountsReply* reply) {
  if (what.accounts) reply->clear_accounts();
  if (what.users) {
    auto* users = reply->mutable_users();
    users->erase(std::remove_if(users->begin(), users->end(),
                                [&](const v1::UserInfo& u) { return u.name() != user; }),
                 users->end());
    auto* assocs = reply->mutable_assocs();
    assocs->erase(std::remove_if(assocs->begin(), assocs->end(),
                                 [&](const v1::AssocInfo& a) { return a.user() != user; }),
                  assocs->end());
    KeepOwnKeys(user, reply->mutable_norm_shares());
  }
  if (what.usage) {
    KeepOwnKeys(user, reply->mutable_used_billing_mins());
    KeepOwnKeys(user, reply->mutable_held_billing_mins());
    KeepOwnKeys(user, reply->mutable_raw_usage());
    KeepOwnKeys(user, reply->mutable_assoc_in_use());
    KeepOwnKeys(user, reply->mutable_qos_in_use());
    KeepOwnKeys(user, reply->mutable_used_tres_mins());
    KeepOwnKeys(user, reply->mutable_used_budget_mins());
    KeepOwnKeys(user, reply->mutable_held_budget_mins());
  }
}

void HidePrivateUsageRows(const std::string& user, v1::GetUsageReportReply* reply) {
  auto* rows = reply->mutable_rows();
  rows->erase(std::remove_if(rows->begin(), rows->end(),
                             [&](const v1::UsageRow& row) { return row.user() != user; }),
              rows->end());
}

bool ReservationVisibleTo(const AdvanceReservation& resv, const std::string& user,
                          const std::set<std::string>& accounts) {
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  if (listed(resv.users, user) || listed(resv.group_members, user)) return true;
  return std::any_of(resv.accounts.begin(), resv.accounts.end(),
                     [&](const std::string& account) { return accounts.count(account) > 0; });
}

}  // namespace skiff::ctld
