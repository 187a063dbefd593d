#include "ctld/rpc/private_data.h"

#include <algorithm>
#include <vector>

namespace skiff::ctld {
namespace {

// Keeps the entries of `user`'s own keys: an account's (or a QOS's) own
// entry sums every user's, so it goes too.
template <typename Entries, typename UserOf>
void KeepOwnEntries(const std::string& user, Entries* entries, UserOf user_of) {
  entries->erase(std::remove_if(entries->begin(), entries->end(),
                                [&](const auto& entry) { return user_of(entry) != user; }),
                 entries->end());
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
    // NormShares goes with the users (it names their associations), every
    // other figure with the usage.
    for (v1::AssocUsage& usage : *reply->mutable_assoc_usage()) {
      if (usage.key().user() != user) usage.clear_norm_shares();
    }
  }
  if (what.usage) {
    KeepOwnEntries(user, reply->mutable_assoc_usage(),
                   [](const v1::AssocUsage& usage) { return usage.key().user(); });
    KeepOwnEntries(user, reply->mutable_qos_usage(),
                   [](const v1::QosUsage& usage) { return usage.user(); });
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
