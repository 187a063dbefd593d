#include "ctld/accounts/accounts_table.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

AccountsContext Context() {
  AccountsContext context;
  context.qos_names = {"normal", "low", "high"};
  context.uids = {{"alice", 1000}, {"bob", 1001}};
  return context;
}

v1::UpdateAccountsRequest Request(v1::UpdateAccountsRequest::Op op,
                                  std::vector<std::string> names) {
  v1::UpdateAccountsRequest request;
  request.set_op(op);
  for (const std::string& name : names) request.add_names(name);
  return request;
}

AccountsState Apply(const AccountsState& state, const v1::UpdateAccountsRequest& request) {
  absl::StatusOr<AccountsUpdate> update = ApplyAccountsUpdate(state, request, Context(), "lab");
  EXPECT_TRUE(update.ok()) << update.status();
  return update.ok() ? update->state : state;
}

// The reference scenario: account research under root with alice and root.
AccountsState Lab() {
  AccountsState state = InitialAccounts();
  state = Apply(state, Request(v1::UpdateAccountsRequest::ADD_ACCOUNT, {"Research"}));
  v1::UpdateAccountsRequest users = Request(v1::UpdateAccountsRequest::ADD_USER, {"alice", "root"});
  users.add_accounts("research");
  users.add_qos("normal");
  users.add_qos("low");
  users.set_qos_op("=");
  users.set_default_qos("normal");
  return Apply(state, users);
}

TEST(AccountsTable, AssociationsListDepthFirstAsSacctmgrShowsThem) {
  v1::GetAccountsReply reply = ToAccountsReply(Lab(), "lab");
  std::vector<std::string> rows;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    rows.push_back(assoc.account() + "/" + assoc.user());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"root/", "root/root", "research/", "research/alice",
                                            "research/root"}));
  EXPECT_EQ(reply.accounts(0).name(), "research");
  EXPECT_EQ(reply.accounts(0).organization(), "research");
  EXPECT_EQ(reply.accounts(0).parent(), "root");
}

TEST(AccountsTable, AddingWhatExistsChangesNothingAndRowsFollowTheDiff) {
  AccountsState lab = Lab();
  absl::StatusOr<AccountsUpdate> again = ApplyAccountsUpdate(
      lab, Request(v1::UpdateAccountsRequest::ADD_ACCOUNT, {"research"}), Context(), "lab");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->affected.empty());
  EXPECT_TRUE(ChangedRows(lab, again->state).empty());
  std::vector<RecordRow> rows = ChangedRows(InitialAccounts(), lab);
  // research (account), alice (user), and three associations.
  EXPECT_EQ(rows.size(), 5u);
}

TEST(AccountsTable, RefusesUnknownParentAccountQosAndAdminLevel) {
  AccountsState lab = Lab();
  v1::UpdateAccountsRequest orphan = Request(v1::UpdateAccountsRequest::ADD_ACCOUNT, {"x"});
  orphan.set_parent("nope");
  EXPECT_EQ(ApplyAccountsUpdate(lab, orphan, Context(), "lab").status().message(),
            "Parent account 'nope' doesn't exist on cluster lab");
  v1::UpdateAccountsRequest user = Request(v1::UpdateAccountsRequest::ADD_USER, {"bob"});
  user.add_accounts("physics");
  EXPECT_EQ(ApplyAccountsUpdate(lab, user, Context(), "lab").status().message(),
            "The account 'physics' doesn't exist");
  user.set_accounts(0, "research");
  user.add_qos("gold");
  user.set_qos_op("=");
  EXPECT_EQ(ApplyAccountsUpdate(lab, user, Context(), "lab").status().message(),
            "Invalid qos 'gold'");
  user.clear_qos();
  user.set_admin_level("King");
  EXPECT_FALSE(ApplyAccountsUpdate(lab, user, Context(), "lab").ok());
}

TEST(AccountsTable, LimitsInheritFromTheAccountUpToRoot) {
  AccountsState lab = Lab();
  v1::UpdateAccountsRequest account =
      Request(v1::UpdateAccountsRequest::MODIFY_ACCOUNT, {"research"});
  account.mutable_limits()->set_max_jobs(4);
  account.mutable_limits()->set_grp_jobs(10);
  account.mutable_limits()->mutable_max_tres_per_job()->set_gpu(2);
  lab = Apply(lab, account);
  v1::UpdateAccountsRequest user = Request(v1::UpdateAccountsRequest::MODIFY_USER, {"alice"});
  user.mutable_limits()->set_max_jobs(1);
  lab = Apply(lab, user);

  AccountPolicy policy = ToAccountPolicy(lab, Enforcement{true, true, true, false});
  const UserAssoc* alice = policy.Find("alice", "research", "");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->max_jobs, 1);               // its own
  EXPECT_EQ(alice->max_tres_per_job.gpus, 2);  // the account's
  EXPECT_EQ(alice->qos, (std::vector<std::string>{"low", "normal"}));
  EXPECT_EQ(alice->default_qos, "normal");
  const UserAssoc* root = policy.Find("root", "research", "");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->max_jobs, 4);
  EXPECT_EQ(policy.accounts.at("research").grp_jobs, 10);
  EXPECT_EQ(policy.default_account.at("alice"), "research");

  user.mutable_limits()->set_max_jobs(-1);  // cleared: the account's again
  lab = Apply(lab, user);
  policy = ToAccountPolicy(lab, Enforcement{});
  EXPECT_EQ(policy.Find("alice", "research", "")->max_jobs, 4);
}

TEST(AccountsTable, QosListsAddAndRemove) {
  AccountsState lab = Lab();
  v1::UpdateAccountsRequest user = Request(v1::UpdateAccountsRequest::MODIFY_USER, {"alice"});
  user.add_qos("high");
  user.set_qos_op("+=");
  lab = Apply(lab, user);
  EXPECT_EQ(lab.assocs.at(AssocKey("research", "alice", "")).qos_size(), 3);
  user.set_qos_op("-=");
  lab = Apply(lab, user);
  EXPECT_EQ(lab.assocs.at(AssocKey("research", "alice", "")).qos_size(), 2);
}

TEST(AccountsTable, DeletesRespectDefaultsActiveJobsAndRoot) {
  AccountsState lab = Lab();
  EXPECT_FALSE(ApplyAccountsUpdate(lab,
                                   Request(v1::UpdateAccountsRequest::DELETE_ACCOUNT, {"root"}),
                                   Context(), "lab")
                   .ok());
  // research is alice's default account.
  absl::StatusOr<AccountsUpdate> research = ApplyAccountsUpdate(
      lab, Request(v1::UpdateAccountsRequest::DELETE_ACCOUNT, {"research"}), Context(), "lab");
  EXPECT_EQ(research.status().code(), absl::StatusCode::kFailedPrecondition);

  AccountsContext busy = Context();
  busy.active_assocs = {"research|alice"};
  absl::StatusOr<AccountsUpdate> active = ApplyAccountsUpdate(
      lab, Request(v1::UpdateAccountsRequest::DELETE_USER, {"alice"}), busy, "lab");
  EXPECT_EQ(active.status().message(), "Job(s) active, cancel job(s) before remove");

  absl::StatusOr<AccountsUpdate> gone = ApplyAccountsUpdate(
      lab, Request(v1::UpdateAccountsRequest::DELETE_USER, {"alice"}), Context(), "lab");
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_EQ(gone->state.users.count("alice"), 0u);
  EXPECT_EQ(gone->state.assocs.count(AssocKey("research", "alice", "")), 0u);
  EXPECT_EQ(gone->affected, std::vector<std::string>{"alice"});
}

TEST(AccountsTable, ReparentingRefusesCycles) {
  AccountsState lab = Lab();
  v1::UpdateAccountsRequest child = Request(v1::UpdateAccountsRequest::ADD_ACCOUNT, {"ml"});
  child.set_parent("research");
  lab = Apply(lab, child);
  v1::UpdateAccountsRequest cycle =
      Request(v1::UpdateAccountsRequest::MODIFY_ACCOUNT, {"research"});
  cycle.set_parent("ml");
  EXPECT_EQ(ApplyAccountsUpdate(lab, cycle, Context(), "lab").status().message(),
            "Invalid parent account specified");
  EXPECT_EQ(ToAccountPolicy(lab, {}).Lineage("ml"),
            (std::vector<std::string>{"ml", "research", "root"}));
}

TEST(AccountsTable, NormalizedSharesSplitEachLevelBySiblingsShares) {
  AccountsState lab = Lab();  // root: {root user, research: {alice, root}}
  v1::UpdateAccountsRequest heavy = Request(v1::UpdateAccountsRequest::MODIFY_USER, {"alice"});
  heavy.mutable_limits()->set_fairshare(3);
  lab = Apply(lab, heavy);
  std::map<std::string, double> norm = NormalizedShares(lab);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey("root", "", "")), 1.0);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey("root", "root", "")), 0.5);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey("research", "", "")), 0.5);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey("research", "alice", "")), 0.375);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey("research", "root", "")), 0.125);
  AccountPolicy policy = ToAccountPolicy(lab, {});
  EXPECT_DOUBLE_EQ(policy.user_shares.at("alice"), 0.375);
  EXPECT_DOUBLE_EQ(policy.user_shares.at("root"), 0.625);  // both of its associations
}

TEST(AccountsTable, AdminLevelsGiveAdminUids) {
  AccountsState lab = Lab();
  v1::UpdateAccountsRequest op = Request(v1::UpdateAccountsRequest::MODIFY_USER, {"alice"});
  op.set_admin_level("Operator");
  lab = Apply(lab, op);
  EXPECT_EQ(AdminUids(lab), (std::set<uid_t>{0, 1000}));
}

}  // namespace
}  // namespace skiff
