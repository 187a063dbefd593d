#include "ctld/core/accounting/accounts.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

AccountsContext Context() {
  AccountsContext context;
  context.qos_names = {"normal", "low", "high"};
  context.uids = {{"alice", 1000}, {"bob", 1001}};
  return context;
}

AccountsUpdate Request(AccountsOp op, std::vector<std::string> names) {
  AccountsUpdate request;
  request.op = op;
  request.names = std::move(names);
  return request;
}

AccountsTable Apply(const AccountsTable& table, const AccountsUpdate& request) {
  absl::StatusOr<AccountsUpdateResult> update =
      ApplyAccountsUpdate(table, request, Context(), "lab");
  EXPECT_TRUE(update.ok()) << update.status();
  return update.ok() ? update->table : table;
}

// The reference scenario: account research under root with alice and root.
AccountsTable Lab() {
  AccountsTable table = InitialAccounts();
  table = Apply(table, Request(AccountsOp::kAddAccount, {"Research"}));
  AccountsUpdate users = Request(AccountsOp::kAddUser, {"alice", "root"});
  users.accounts.push_back("research");
  users.qos = {"normal", "low"};
  users.qos_op = "=";
  users.default_qos = "normal";
  return Apply(table, users);
}

TEST(AccountsTable, AssociationsListDepthFirstAsSacctmgrShowsThem) {
  const AccountsTable lab = Lab();
  std::vector<std::string> rows;
  for (const Association& assoc : AssocsDepthFirst(lab)) {
    rows.push_back(assoc.account + "/" + assoc.user);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"root/", "root/root", "research/", "research/alice",
                                            "research/root"}));
  const Account& research = lab.accounts.begin()->second;  // accounts by name
  EXPECT_EQ(research.name, "research");
  EXPECT_EQ(research.organization, "research");
  EXPECT_EQ(research.parent, "root");
}

TEST(AccountsTable, AddingWhatExistsChangesNothingAndRowsFollowTheDiff) {
  AccountsTable lab = Lab();
  absl::StatusOr<AccountsUpdateResult> again =
      ApplyAccountsUpdate(lab, Request(AccountsOp::kAddAccount, {"research"}), Context(), "lab");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->affected.names.empty());
  EXPECT_TRUE(DiffAccounts(lab, again->table).empty());
  AccountsDiff diff = DiffAccounts(InitialAccounts(), lab);
  // research (account), alice (user), and three associations.
  EXPECT_EQ(diff.size(), 5u);
  EXPECT_EQ(diff.accounts.count("research"), 1u);
  EXPECT_EQ(diff.users.count("alice"), 1u);
  EXPECT_EQ(diff.assocs.size(), 3u);
  // Removed rows are named by key.
  AccountsDiff back = DiffAccounts(lab, InitialAccounts());
  EXPECT_EQ(back.removed_accounts, std::vector<std::string>{"research"});
  EXPECT_EQ(back.removed_users, std::vector<std::string>{"alice"});
  EXPECT_EQ(back.removed_assocs.size(), 3u);
  EXPECT_EQ(back.size(), 5u);
}

TEST(AccountsTable, RefusesUnknownParentAccountQosAndAdminLevel) {
  AccountsTable lab = Lab();
  AccountsUpdate orphan = Request(AccountsOp::kAddAccount, {"x"});
  orphan.parent = "nope";
  EXPECT_EQ(ApplyAccountsUpdate(lab, orphan, Context(), "lab").status().message(),
            "Parent account 'nope' doesn't exist on cluster lab");
  AccountsUpdate user = Request(AccountsOp::kAddUser, {"bob"});
  user.accounts.push_back("physics");
  EXPECT_EQ(ApplyAccountsUpdate(lab, user, Context(), "lab").status().message(),
            "The account 'physics' doesn't exist");
  user.accounts[0] = "research";
  user.qos.push_back("gold");
  user.qos_op = "=";
  EXPECT_EQ(ApplyAccountsUpdate(lab, user, Context(), "lab").status().message(),
            "Invalid qos 'gold'");
  user.qos.clear();
  user.admin_level = "King";
  EXPECT_FALSE(ApplyAccountsUpdate(lab, user, Context(), "lab").ok());
}

TEST(AccountsTable, LimitsInheritFromTheAccountUpToRoot) {
  AccountsTable lab = Lab();
  AccountsUpdate account = Request(AccountsOp::kModifyAccount, {"research"});
  account.limits.max_jobs = 4;
  account.limits.grp_jobs = 10;
  account.limits.max_tres_per_job.emplace().gpu = 2;
  lab = Apply(lab, account);
  AccountsUpdate user = Request(AccountsOp::kModifyUser, {"alice"});
  user.limits.max_jobs = 1;
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

  user.limits.max_jobs = -1;  // cleared: the account's again
  lab = Apply(lab, user);
  policy = ToAccountPolicy(lab, Enforcement{});
  EXPECT_EQ(policy.Find("alice", "research", "")->max_jobs, 4);
}

TEST(AccountsTable, QosListsAddAndRemove) {
  AccountsTable lab = Lab();
  AccountsUpdate user = Request(AccountsOp::kModifyUser, {"alice"});
  user.qos.push_back("high");
  user.qos_op = "+=";
  lab = Apply(lab, user);
  EXPECT_EQ(lab.assocs.at(AssocKey::User("research", "alice")).qos.size(), 3u);
  user.qos_op = "-=";
  lab = Apply(lab, user);
  EXPECT_EQ(lab.assocs.at(AssocKey::User("research", "alice")).qos.size(), 2u);
}

TEST(AccountsTable, DeletesRespectDefaultsActiveJobsAndRoot) {
  AccountsTable lab = Lab();
  EXPECT_FALSE(
      ApplyAccountsUpdate(lab, Request(AccountsOp::kDeleteAccount, {"root"}), Context(), "lab")
          .ok());
  // research is alice's default account.
  absl::StatusOr<AccountsUpdateResult> research =
      ApplyAccountsUpdate(lab, Request(AccountsOp::kDeleteAccount, {"research"}), Context(), "lab");
  EXPECT_EQ(research.status().code(), absl::StatusCode::kFailedPrecondition);

  AccountsContext busy = Context();
  busy.active_assocs = {AssocKey::User("research", "alice")};
  absl::StatusOr<AccountsUpdateResult> active =
      ApplyAccountsUpdate(lab, Request(AccountsOp::kDeleteUser, {"alice"}), busy, "lab");
  EXPECT_EQ(active.status().message(), "Job(s) active, cancel job(s) before remove");

  absl::StatusOr<AccountsUpdateResult> gone =
      ApplyAccountsUpdate(lab, Request(AccountsOp::kDeleteUser, {"alice"}), Context(), "lab");
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_EQ(gone->table.users.count("alice"), 0u);
  EXPECT_EQ(gone->table.assocs.count(AssocKey::User("research", "alice")), 0u);
  EXPECT_EQ(gone->affected.names, std::vector<std::string>{"alice"});
}

// sacctmgr modify/delete user ... where Partition=p: only that partition's
// association, as Slurm's (ctld once changed every one of the user's).
TEST(AccountsTable, APartitionInTheWhereSelectsOnlyThatAssociation) {
  AccountsTable lab = Lab();
  AccountsUpdate on_gpu = Request(AccountsOp::kAddUser, {"alice"});
  on_gpu.accounts = {"research"};
  on_gpu.partitions = {"gpu"};
  lab = Apply(lab, on_gpu);
  const AssocKey gpu{"research", "alice", "gpu"};
  ASSERT_EQ(lab.assocs.count(gpu), 1u);

  AccountsUpdate limit = Request(AccountsOp::kModifyUser, {"alice"});
  limit.partitions = {"gpu"};
  limit.limits.max_jobs = 2;
  lab = Apply(lab, limit);
  ASSERT_TRUE(lab.assocs.at(gpu).limits.has_value());
  EXPECT_EQ(lab.assocs.at(gpu).limits->max_jobs, 2);
  const Association& plain = lab.assocs.at(AssocKey::User("research", "alice"));
  EXPECT_FALSE(plain.limits && plain.limits->max_jobs) << "the partition-less one is untouched";

  AccountsUpdate remove = Request(AccountsOp::kDeleteUser, {"alice"});
  remove.partitions = {"gpu"};
  lab = Apply(lab, remove);
  EXPECT_EQ(lab.assocs.count(gpu), 0u);
  EXPECT_EQ(lab.assocs.count(AssocKey::User("research", "alice")), 1u);
  EXPECT_EQ(lab.users.count("alice"), 1u);
}

TEST(AccountsTable, ReparentingRefusesCycles) {
  AccountsTable lab = Lab();
  AccountsUpdate child = Request(AccountsOp::kAddAccount, {"ml"});
  child.parent = "research";
  lab = Apply(lab, child);
  AccountsUpdate cycle = Request(AccountsOp::kModifyAccount, {"research"});
  cycle.parent = "ml";
  EXPECT_EQ(ApplyAccountsUpdate(lab, cycle, Context(), "lab").status().message(),
            "Invalid parent account specified");
  EXPECT_EQ(ToAccountPolicy(lab, {}).Lineage("ml"),
            (std::vector<std::string>{"ml", "research", "root"}));
}

TEST(AccountsTable, NormalizedSharesSplitEachLevelBySiblingsShares) {
  AccountsTable lab = Lab();  // root: {root user, research: {alice, root}}
  AccountsUpdate heavy = Request(AccountsOp::kModifyUser, {"alice"});
  heavy.limits.fairshare = 3;
  lab = Apply(lab, heavy);
  std::map<AssocKey, double> norm = NormalizedShares(lab);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey::Account("root")), 1.0);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey::User("root", "root")), 0.5);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey::Account("research")), 0.5);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey::User("research", "alice")), 0.375);
  EXPECT_DOUBLE_EQ(norm.at(AssocKey::User("research", "root")), 0.125);
  AccountPolicy policy = ToAccountPolicy(lab, {});
  EXPECT_DOUBLE_EQ(policy.user_shares.at("alice"), 0.375);
  EXPECT_DOUBLE_EQ(policy.user_shares.at("root"), 0.625);  // both of its associations
}

TEST(AccountsTable, AdminLevelsGiveAdminUids) {
  AccountsTable lab = Lab();
  AccountsUpdate op = Request(AccountsOp::kModifyUser, {"alice"});
  op.admin_level = "Operator";
  lab = Apply(lab, op);
  EXPECT_EQ(AdminUids(lab), (std::set<uid_t>{0, 1000}));
}

// The stored rows keep what they always kept: a GrpTRES= once given stays set
// with every TRES cleared, and a modify gives an association without limits
// an empty set of them (records_test checks the bytes).
TEST(AccountsTable, LimitsOnceSetStaySetWhenCleared) {
  AccountsTable lab = Lab();
  EXPECT_FALSE(lab.assocs.at(AssocKey::Account("root")).limits.has_value());
  AccountsUpdate grp = Request(AccountsOp::kModifyAccount, {"research"});
  grp.limits.grp_tres.emplace().cpu = 64;
  lab = Apply(lab, grp);
  const Association& research = lab.assocs.at(AssocKey::Account("research"));
  ASSERT_TRUE(research.limits && research.limits->grp_tres);
  EXPECT_EQ(research.limits->grp_tres->cpu, 64);
  grp.limits.grp_tres->cpu = -1;
  AccountsTable cleared = Apply(lab, grp);
  const Association& after = cleared.assocs.at(AssocKey::Account("research"));
  ASSERT_TRUE(after.limits && after.limits->grp_tres);
  EXPECT_FALSE(after.limits->grp_tres->cpu.has_value());
  EXPECT_EQ(DiffAccounts(lab, cleared).assocs.size(), 1u);
  EXPECT_EQ(ToAccountPolicy(cleared, {}).accounts.at("research").grp_tres.cpus, kNoAssocLimit);

  AccountsTable touched = Apply(lab, Request(AccountsOp::kModifyAccount, {"root"}));
  const Association& root = touched.assocs.at(AssocKey::Account("root"));
  ASSERT_TRUE(root.limits.has_value());
  EXPECT_EQ(*root.limits, AssocLimits{});
  EXPECT_EQ(DiffAccounts(lab, touched).assocs.count(AssocKey::Account("root")), 1u);
}

TEST(AccountsTable, NoNamesOrNoOperationIsRefused) {
  EXPECT_EQ(ApplyAccountsUpdate(Lab(), Request(AccountsOp::kAddAccount, {}), Context(), "lab")
                .status()
                .message(),
            "No names given");
  EXPECT_EQ(ApplyAccountsUpdate(Lab(), Request(AccountsOp::kUnspecified, {"x"}), Context(), "lab")
                .status()
                .message(),
            "Unknown accounts operation");
  EXPECT_STREQ(AccountsOpName(AccountsOp::kDeleteUser), "DELETE_USER");
}

}  // namespace
}  // namespace skiff::ctld
