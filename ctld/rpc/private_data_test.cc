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
  for (const char* key : {"lab", "lab|alice", "other", "other|bob"}) {
    (*reply.mutable_raw_usage())[key] = 1;
    (*reply.mutable_used_billing_mins())[key] = 1;
    (*reply.mutable_held_billing_mins())[key] = 1;
    (*reply.mutable_assoc_in_use())[key].set_submitted_jobs(1);
    (*reply.mutable_used_tres_mins())[key];
    (*reply.mutable_used_budget_mins())[key];
    (*reply.mutable_held_budget_mins())[key];
  }
  for (const char* key : {"lab||", "lab|alice|", "other|bob|"})
    (*reply.mutable_norm_shares())[key] = 1;
  for (const char* key : {"normal", "normal|alice", "normal|bob"}) {
    (*reply.mutable_qos_in_use())[key].set_submitted_jobs(1);
  }
  return reply;
}

template <typename Map>
std::vector<std::string> Keys(const Map& map) {
  std::vector<std::string> out;
  for (const auto& [key, value] : map) out.push_back(key);
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
  EXPECT_EQ(Keys(reply.norm_shares()), Strings{"other|bob|"});
  EXPECT_EQ(reply.accounts_size(), 3);            // accounts not private
  EXPECT_EQ(Keys(reply.raw_usage()).size(), 4u);  // usage not private
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
  const Strings own = {"lab|alice"};
  EXPECT_EQ(Keys(reply.raw_usage()), own);
  EXPECT_EQ(Keys(reply.used_billing_mins()), own);
  EXPECT_EQ(Keys(reply.held_billing_mins()), own);
  EXPECT_EQ(Keys(reply.assoc_in_use()), own);
  EXPECT_EQ(Keys(reply.used_tres_mins()), own);
  EXPECT_EQ(Keys(reply.used_budget_mins()), own);
  EXPECT_EQ(Keys(reply.held_budget_mins()), own);
  EXPECT_EQ(Keys(reply.qos_in_use()), Strings{"normal|alice"});
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
