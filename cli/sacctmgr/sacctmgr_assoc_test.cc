#include "cli/sacctmgr/sacctmgr_assoc.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

v1::AssocInfo Assoc(const std::string& account, const std::string& user, const std::string& parent,
                    std::vector<std::string> qos = {}, const std::string& def = "") {
  v1::AssocInfo assoc;
  assoc.set_account(account);
  assoc.set_user(user);
  assoc.set_parent_account(parent);
  for (const std::string& q : qos) assoc.add_qos(q);
  assoc.set_default_qos(def);
  return assoc;
}

// The reference scenario (shared/reference/sacctmgr_show_assoc.txt).
v1::GetAccountsReply Lab() {
  v1::GetAccountsReply reply;
  reply.set_cluster("lab");
  *reply.add_assocs() = Assoc("root", "", "", {"normal"});
  *reply.add_assocs() = Assoc("root", "root", "");
  *reply.add_assocs() = Assoc("research", "", "root");
  *reply.add_assocs() = Assoc("research", "alice", "", {"normal", "low"}, "normal");
  *reply.add_assocs() = Assoc("research", "root", "", {"normal", "low", "high"}, "normal");
  v1::AccountInfo research;
  research.set_name("research");
  research.set_description("research");
  research.set_organization("research");
  *reply.add_accounts() = research;
  v1::UserInfo alice;
  alice.set_name("alice");
  alice.set_default_account("research");
  alice.set_admin_level("None");
  *reply.add_users() = alice;
  return reply;
}

TEST(SacctmgrAssoc, ShowAssocMatchesTheReference) {
  absl::StatusOr<AssocCommand> command =
      ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kAssociation,
                        {"format=Cluster,Account,User,QOS,DefaultQOS"});
  ASSERT_TRUE(command.ok()) << command.status();
  absl::StatusOr<std::string> table = FormatAssocTable(*command, Lab(), {});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(*table,
            "   Cluster    Account       User                  QOS   Def QOS \n"
            "---------- ---------- ---------- -------------------- --------- \n"
            "       lab       root                          normal           \n"
            "       lab       root       root               normal           \n"
            "       lab   research                          normal           \n"
            "       lab   research      alice           low,normal    normal \n"
            "       lab   research       root      high,low,normal    normal \n");
}

TEST(SacctmgrAssoc, ShowUsersAndAccountsParsable) {
  SacctmgrOptions options;
  options.parsable2 = true;
  options.no_header = true;
  auto users = ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kUser, {});
  EXPECT_EQ(*FormatAssocTable(*users, Lab(), options), "alice|research|None\n");
  auto accounts =
      ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kAccount, {"where", "name=Research"});
  EXPECT_EQ(*FormatAssocTable(*accounts, Lab(), options), "research|research|research\n");
  auto with =
      ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kUser, {"-s", "format=User,Account,QOS"});
  EXPECT_EQ(*FormatAssocTable(*with, Lab(), options), "alice|research|low,normal\n");
  auto bad = ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kUser, {"format=Bogus"});
  EXPECT_EQ(FormatAssocTable(*bad, Lab(), options).status().message(), "Unknown field 'Bogus'");
}

// What workflow managers run to check a user's accounts:
// `sacctmgr -n -s list user NAME format=account%20`.
TEST(SacctmgrAssoc, AssociationsOptionListsAUsersAccounts) {
  absl::StatusOr<SacctmgrCommandLine> line =
      ParseSacctmgrOptions({"-n", "-s", "list", "user", "alice", "format=account%20"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_TRUE(line->options.with_assoc);
  EXPECT_TRUE(line->options.no_header);
  ASSERT_EQ(line->words.size(), 4u);
  EXPECT_TRUE(ParseSacctmgrOptions({"--associations", "show", "account"})->options.with_assoc);
  EXPECT_FALSE(ParseSacctmgrOptions({"show", "account"})->options.with_assoc);
  auto command = ParseAssocCommand(SacctmgrVerb::kShow, AssocEntity::kUser,
                                   {line->words.begin() + 2, line->words.end()});
  ASSERT_TRUE(command.ok()) << command.status();
  command->with_assoc = line->options.with_assoc;
  EXPECT_EQ(*FormatAssocTable(*command, Lab(), line->options), "            research \n");
  // Without -s Slurm lists the user's record alone, which has no account.
  command->with_assoc = false;
  EXPECT_EQ(*FormatAssocTable(*command, Lab(), line->options), std::string(21, ' ') + "\n");
  SacctmgrOptions header;
  command->with_assoc = true;
  EXPECT_EQ(*FormatAssocTable(*command, Lab(), header),
            "             Account \n-------------------- \n            research \n");
}

TEST(SacctmgrAssoc, AddAndModifyBuildTheRequest) {
  auto add = ParseAssocCommand(
      SacctmgrVerb::kAdd, AssocEntity::kUser,
      {"alice", "Account=Research", "MaxJobs=4", "GrpTRES=cpu=8,gres/gpu=2", "MaxWall=2:00:00",
       "QOS=normal,low", "DefaultQOS=low", "AdminLevel=Operator"});
  ASSERT_TRUE(add.ok()) << add.status();
  const v1::UpdateAccountsRequest& r = add->request;
  EXPECT_EQ(r.op(), v1::UpdateAccountsRequest::ADD_USER);
  EXPECT_EQ(r.names(0), "alice");
  EXPECT_EQ(r.accounts(0), "research");
  EXPECT_EQ(r.limits().max_jobs(), 4);
  EXPECT_EQ(r.limits().grp_tres().gpu(), 2);
  EXPECT_EQ(r.limits().max_wall(), 7200);
  EXPECT_EQ(r.qos_op(), "=");
  EXPECT_EQ(r.qos_size(), 2);
  EXPECT_EQ(r.admin_level(), "Operator");

  auto modify = ParseAssocCommand(
      SacctmgrVerb::kModify, AssocEntity::kAccount,
      {"where", "name=research", "set", "GrpTRESMins=billing=100", "QOS+=high", "MaxJobs=-1"});
  ASSERT_TRUE(modify.ok()) << modify.status();
  EXPECT_EQ(modify->request.limits().grp_billing_mins(), 100);
  EXPECT_EQ(modify->request.qos_op(), "+=");
  EXPECT_EQ(modify->request.limits().max_jobs(), -1);

  EXPECT_EQ(
      ParseAssocCommand(SacctmgrVerb::kModify, AssocEntity::kUser, {"alice"}).status().message(),
      " You didn't give me anything to set");
  EXPECT_EQ(ParseAssocCommand(SacctmgrVerb::kAdd, AssocEntity::kAccount, {"x", "Bogus=1"})
                .status()
                .message(),
            " Unknown option: Bogus=1");
  // Budgets in any TRES Skiff counts; billing beside them.
  auto budget = ParseAssocCommand(SacctmgrVerb::kAdd, AssocEntity::kAccount,
                                  {"x", "GrpTRESMins=gres/gpu=600,billing=100,cpu=5"});
  ASSERT_TRUE(budget.ok()) << budget.status();
  EXPECT_EQ(budget->request.limits().grp_tres_mins().gpu(), 600);
  EXPECT_EQ(budget->request.limits().grp_tres_mins().cpu(), 5);
  EXPECT_EQ(budget->request.limits().grp_billing_mins(), 100);
  EXPECT_FALSE(
      ParseAssocCommand(SacctmgrVerb::kAdd, AssocEntity::kAccount, {"x", "GrpTRESMins=gres/fpga=5"})
          .ok());
  auto per_job = ParseAssocCommand(SacctmgrVerb::kModify, AssocEntity::kUser,
                                   {"alice", "set", "MaxTRESMins=gres/gpu=30"});
  ASSERT_TRUE(per_job.ok()) << per_job.status();
  EXPECT_EQ(per_job->request.limits().max_tres_mins_per_job().gpu(), 30);
  auto run_mins = ParseAssocCommand(SacctmgrVerb::kModify, AssocEntity::kAccount,
                                    {"lab", "set", "GrpTRESRunMins=gres/gpu=480,cpu=-1"});
  ASSERT_TRUE(run_mins.ok()) << run_mins.status();
  EXPECT_EQ(run_mins->request.limits().grp_tres_run_mins().gpu(), 480);
  EXPECT_EQ(run_mins->request.limits().grp_tres_run_mins().cpu(), -1);
  EXPECT_FALSE(
      ParseAssocCommand(SacctmgrVerb::kAdd, AssocEntity::kAccount, {"x", "GrpTRESMins=billing=x"})
          .ok());
}

TEST(SacctmgrAssoc, MessagesSayWhatChanged) {
  auto add = ParseAssocCommand(SacctmgrVerb::kAdd, AssocEntity::kAccount, {"research"});
  v1::UpdateAccountsReply reply;
  reply.add_affected("research");
  reply.add_associations()->set_account("research");
  EXPECT_EQ(AssocChangeMessage(*add, reply, "lab"),
            " Adding Account(s)\n  research\n Settings\n  Description     = Account Name\n"
            "  Organization    = Parent/Account Name\n Associations\n"
            "  A = research   C = lab       \n");
  EXPECT_EQ(AssocChangeMessage(*add, v1::UpdateAccountsReply(), "lab"), " Nothing new added.\n");
  auto remove = ParseAssocCommand(SacctmgrVerb::kDelete, AssocEntity::kUser, {"alice"});
  v1::UpdateAccountsReply removed;
  v1::AssocKey* alice = removed.add_associations();
  alice->set_account("research");
  alice->set_user("alice");
  EXPECT_EQ(AssocChangeMessage(*remove, removed, "lab"),
            " Deleting user associations...\n  C = lab        A = research   U = alice    \n");
}

}  // namespace
}  // namespace skiff::cli
