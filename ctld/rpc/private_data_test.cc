#include "ctld/rpc/private_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace skiff::ctld {
namespace {

// Accounts lab (alice) and other (bob), with usage for both users and the
// accounts' and QOS's totals.
v1::GetAccountsReply TwoUsers() {
  v1::GetAccountsReply reply;
  for (const char* name : {"lab", "other", "root"}) reply.add_accounts()->set_name(name);
  for (const char* name : {"alice", "bob", "root"}) reply.add_users()->set_name(name);
  auto assoc = [&](const std::string& account, const std::string& user) {
    v1::AssocInfo* a = reply.add_assocs();
    a->set_account(account);
    a->set_user(user);
  };
  assoc("root", "");
  assoc("lab", "");
  assoc("lab", "alice");
  assoc("other", "");
  assoc("other", "bob");
  for (const auto& [account, user] : std::vector<std::pair<std::string, std::string>>{
           {"lab", ""}, {"lab", "alice"}, {"other", ""}, {"other", "bob"}}) {
    v1::AssocUsage* usage = reply.add_assoc_usage();
    usage->mutable_key()->set_account(account);
    usage->mutable_key()->set_user(user);
    usage->set_raw_usage(1);
    usage->mutable_used_budget_mins()->set_billing(1);
    usage->mutable_held_budget_mins()->set_billing(1);
    usage->mutable_in_use()->set_submitted_jobs(1);
    if (account == "lab" || !user.empty()) usage->set_norm_shares(1);
  }
  for (const char* user : {"", "alice", "bob"}) {
    v1::QosUsage* usage = reply.add_qos_usage();
    usage->set_qos("normal");
    usage->set_user(user);
    usage->mutable_in_use()->set_submitted_jobs(1);
  }
  return reply;
}

// "account|user" of each figure (a test's own spelling), with what `has` says.
template <typename Has>
std::vector<std::string> Keys(const v1::GetAccountsReply& reply, Has has) {
  std::vector<std::string> out;
  for (const v1::AssocUsage& usage : reply.assoc_usage()) {
    if (has(usage)) out.push_back(usage.key().account() + "/" + usage.key().user());
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Strings = std::vector<std::string>;

TEST(PrivateDataTest, UsersShowsOnlyTheCallersOwnRecordAndAssociations) {
  v1::GetAccountsReply reply = TwoUsers();
  HidePrivateAccounts({/*users=*/true, /*accounts=*/false, /*usage=*/false}, "bob", &reply);
  ASSERT_EQ(reply.users_size(), 1);
  EXPECT_EQ(reply.users(0).name(), "bob");
  ASSERT_EQ(reply.assocs_size(), 1);
  EXPECT_EQ(reply.assocs(0).account(), "other");
  EXPECT_EQ(Keys(reply, [](const v1::AssocUsage& u) { return u.norm_shares() > 0; }),
            Strings{"other/bob"});
  EXPECT_EQ(reply.accounts_size(), 3);  // accounts not private
  EXPECT_EQ(Keys(reply, [](const v1::AssocUsage& u) { return u.raw_usage() > 0; }).size(),
            4u);  // usage not private
}

TEST(PrivateDataTest, AccountsHidesEveryAccountDefinition) {
  v1::GetAccountsReply reply = TwoUsers();
  HidePrivateAccounts({false, true, false}, "bob", &reply);
  EXPECT_EQ(reply.accounts_size(), 0);
  EXPECT_EQ(reply.users_size(), 3);
  EXPECT_EQ(reply.assocs_size(), 5);
}

TEST(PrivateDataTest, UsageKeepsOnlyTheCallersOwnFiguresAndNoTotals) {
  v1::GetAccountsReply reply = TwoUsers();
  HidePrivateAccounts({false, false, true}, "alice", &reply);
  EXPECT_EQ(Keys(reply, [](const v1::AssocUsage&) { return true; }), Strings{"lab/alice"});
  ASSERT_EQ(reply.qos_usage_size(), 1);
  EXPECT_EQ(reply.qos_usage(0).user(), "alice");
  EXPECT_EQ(reply.assocs_size(), 5);  // users not private
}

TEST(PrivateDataTest, AccountsOfUserAreThoseOfItsAssociations) {
  const v1::GetAccountsReply reply = TwoUsers();
  EXPECT_EQ(AccountsOfUser(reply, "alice"), std::set<std::string>{"lab"});
  EXPECT_TRUE(AccountsOfUser(reply, "carol").empty());
  EXPECT_TRUE(AccountsOfUser(reply, "").empty());  // never the accounts' own rows
}

TEST(PrivateDataTest, UsageRowsKeepOnlyTheCallersOwn) {
  v1::GetUsageReportReply reply;
  for (const auto& [account, user] : std::vector<std::pair<std::string, std::string>>{
           {"lab", ""}, {"lab", "alice"}, {"other", "bob"}}) {
    v1::UsageRow* row = reply.add_rows();
    row->set_account(account);
    row->set_user(user);
  }
  HidePrivateUsageRows("alice", &reply);
  ASSERT_EQ(reply.rows_size(), 1);
  EXPECT_EQ(reply.rows(0).user(), "alice");
}

TEST(PrivateDataTest, AReservationIsVisibleToTheUsersItLists) {
  AdvanceReservation by_user;
  by_user.users = {"alice"};
  EXPECT_TRUE(ReservationVisibleTo(by_user, "alice", {}));
  EXPECT_FALSE(ReservationVisibleTo(by_user, "bob", {"lab"}));
  AdvanceReservation by_group;
  by_group.groups = {"physics"};
  by_group.group_members = {"bob"};
  EXPECT_TRUE(ReservationVisibleTo(by_group, "bob", {}));
  EXPECT_FALSE(ReservationVisibleTo(by_group, "alice", {}));
  AdvanceReservation by_account;
  by_account.accounts = {"lab"};
  EXPECT_TRUE(ReservationVisibleTo(by_account, "alice", {"lab", "x"}));
  EXPECT_FALSE(ReservationVisibleTo(by_account, "bob", {"other"}));
}

}  // namespace
}  // namespace skiff::ctld
