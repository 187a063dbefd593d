// The bodies of /slurmdb/ writes read into sacctmgr's requests: add or
// modify by what exists, limits in Slurm's shapes, fields Skiff does not keep
// as warnings, bad fields refused by name, and the texts slurmdbd reports.
#include "restd/slurmdb/accounts_desc.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

using Json = nlohmann::json;
using Op = v1::UpdateAccountsRequest;

// root -> physics -> alice (and alice on partition gpu).
v1::GetAccountsReply Now() {
  v1::GetAccountsReply now;
  now.set_cluster("lab");
  for (const auto& [name, parent] :
       std::vector<std::pair<std::string, std::string>>{{"root", ""}, {"physics", "root"}}) {
    v1::AccountInfo* account = now.add_accounts();
    account->set_name(name);
    account->set_parent(parent);
    v1::AssocInfo* assoc = now.add_assocs();
    assoc->set_account(name);
    assoc->set_parent_account(parent);
    assoc->set_id(now.assocs_size());
  }
  v1::UserInfo* alice = now.add_users();
  alice->set_name("alice");
  alice->set_default_account("physics");
  for (const char* partition : {"", "gpu"}) {
    v1::AssocInfo* assoc = now.add_assocs();
    assoc->set_account("physics");
    assoc->set_user("alice");
    assoc->set_partition(partition);
    assoc->set_id(now.assocs_size());
  }
  return now;
}

TEST(AccountsPostTest, AddsNewAccountsAndModifiesExistingOnes) {
  const Json body = {{"accounts",
                      {{{"name", "chem"}, {"description", "chemistry"}, {"organization", "sci"}},
                       {{"name", "Physics"}, {"description", "physics dept"}}}}};
  absl::StatusOr<SlurmdbWrite> write = AccountsPost(body, Now());
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->changes.size(), 2u);
  const v1::UpdateAccountsRequest& add = write->changes[0].accounts;
  EXPECT_EQ(add.op(), Op::ADD_ACCOUNT);
  EXPECT_EQ(add.names(0), "chem");
  EXPECT_EQ(add.description(), "chemistry");
  EXPECT_EQ(add.organization(), "sci");
  EXPECT_FALSE(add.has_parent()) << "under root, as sacctmgr add account";
  const v1::UpdateAccountsRequest& modify = write->changes[1].accounts;
  EXPECT_EQ(modify.op(), Op::MODIFY_ACCOUNT);
  EXPECT_EQ(modify.description(), "physics dept");
  EXPECT_FALSE(modify.has_organization());
  EXPECT_TRUE(write->warnings.empty());
}

TEST(AccountsPostTest, AssociationsAndUnknownFieldsAreWarnedEmptyOnesAreNot) {
  const Json body = {{"accounts",
                      {{{"name", "chem"},
                        {"description", "c"},
                        {"organization", "o"},
                        {"coordinators", Json::array()},
                        {"flags", Json::array({"DELETED"})},
                        {"associations", {{{"account", "chem"}, {"user", "bob"}}}}}}}};
  absl::StatusOr<SlurmdbWrite> write = AccountsPost(body, Now());
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->warnings.size(), 2u);
  EXPECT_EQ(write->warnings[0],
            "Account associations ignored. They must be set via the associations end point.");
  EXPECT_EQ(write->warnings[1], "accounts[0].flags is not supported by Skiff and was ignored");
}

TEST(AccountsPostTest, MalformedBodiesAreRefusedNamingTheField) {
  EXPECT_EQ(AccountsPost(Json::object(), Now()).status().message(),
            "accounts: expected a list of records");
  EXPECT_EQ(AccountsPost({{"accounts", {{{"description", "x"}}}}}, Now()).status().message(),
            "accounts[0].name: an account needs a name");
  EXPECT_EQ(AccountsPost({{"accounts", {{{"name", 7}}}}}, Now()).status().message(),
            "accounts[0].name: expected a string");
}

TEST(AccountsAssociationPostTest, IsSacctmgrAddAccountWithItsSettings) {
  const Json body = {{"association_condition",
                      {{"accounts", {"bio", "geo"}},
                       {"association",
                        {{"parent", "physics"},
                         {"fairshare", 5},
                         {"maxjobs", {{"set", true}, {"infinite", false}, {"number", 4}}},
                         {"grptres", {{{"type", "gres"}, {"name", "gpu"}, {"count", 8}}}},
                         {"grptresmins", {{{"type", "billing"}, {"count", 6000}}}},
                         {"maxwalldurationperjob", {{"set", true}, {"number", 90}}},
                         {"qoslevel", {"normal", "gpu4"}},
                         {"defaultqos", "normal"},
                         {"minpriothresh", {{"set", true}, {"number", 3}}}}}}},
                     {"account", {{"description", "life"}, {"organization", "sci"}}}};
  absl::StatusOr<SlurmdbWrite> write = AccountsAssociationPost(body);
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->changes.size(), 1u);
  const v1::UpdateAccountsRequest& r = write->changes[0].accounts;
  EXPECT_EQ(r.op(), Op::ADD_ACCOUNT);
  EXPECT_EQ(r.names_size(), 2);
  EXPECT_EQ(r.parent(), "physics");
  EXPECT_EQ(r.limits().fairshare(), 5);
  EXPECT_EQ(r.limits().max_jobs(), 4);
  EXPECT_EQ(r.limits().grp_tres().gpu(), 8);
  EXPECT_EQ(r.limits().grp_billing_mins(), 6000);
  EXPECT_EQ(r.limits().max_wall(), 90 * 60);
  EXPECT_EQ(r.qos_size(), 2);
  EXPECT_EQ(r.qos_op(), "=");
  EXPECT_EQ(r.default_qos(), "normal");
  EXPECT_EQ(r.description(), "life");
  ASSERT_EQ(write->warnings.size(), 1u);
  EXPECT_EQ(write->warnings[0],
            "association_condition.association.minpriothresh is not supported by Skiff and was "
            "ignored");
}

TEST(AccountsAssociationPostTest, ATresSkiffDoesNotLimitIsRefused) {
  const Json body = {
      {"association_condition",
       {{"accounts", {"bio"}},
        {"association", {{"grptres", {{{"type", "fs"}, {"name", "disk"}, {"count", 1}}}}}}}}};
  EXPECT_EQ(AccountsAssociationPost(body).status().message(),
            "association_condition.association.grptres: TRES 'fs/disk' is not one Skiff limits "
            "here (cpu, mem, node, gres/gpu)");
  EXPECT_FALSE(AccountsAssociationPost({{"association_condition", Json::object()}}).ok());
}

TEST(UsersPostTest, ModifiesKnownUsersAndAddsNewOnesWithTheirDefaultAccount) {
  const Json body = {{"users",
                      {{{"name", "alice"}, {"administrator_level", {"Operator"}}},
                       {{"name", "carol"}, {"default", {{"account", "physics"}}}}}}};
  absl::StatusOr<SlurmdbWrite> write = UsersPost(body, Now());
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->changes.size(), 2u);
  EXPECT_EQ(write->changes[0].accounts.op(), Op::MODIFY_USER);
  EXPECT_EQ(write->changes[0].accounts.admin_level(), "Operator");
  EXPECT_FALSE(write->changes[0].accounts.has_default_account());
  const v1::UpdateAccountsRequest& add = write->changes[1].accounts;
  EXPECT_EQ(add.op(), Op::ADD_USER);
  EXPECT_EQ(add.accounts(0), "physics");
  EXPECT_EQ(add.default_account(), "physics");

  const Json orphan = {{"users", {{{"name", "dave"}}}}};
  EXPECT_EQ(UsersPost(orphan, Now()).status().message(),
            "users[0].default.account: user dave does not exist: a new user needs a default "
            "account (or add it through users_association)");
}

TEST(UsersAssociationPostTest, IsSacctmgrAddUserWithPartitionsAndLimits) {
  const Json body = {{"association_condition",
                      {{"users", {"bob", "carol"}},
                       {"accounts", {"physics"}},
                       {"partitions", {"gpu"}},
                       {"association", {{"maxsubmitjobs", 5}}}}},
                     {"user", {{"adminlevel", {"None"}}, {"defaultaccount", "physics"}}}};
  absl::StatusOr<SlurmdbWrite> write = UsersAssociationPost(body);
  ASSERT_TRUE(write.ok()) << write.status();
  const v1::UpdateAccountsRequest& r = write->changes.at(0).accounts;
  EXPECT_EQ(r.op(), Op::ADD_USER);
  EXPECT_EQ(r.names_size(), 2);
  EXPECT_EQ(r.partitions(0), "gpu");
  EXPECT_EQ(r.limits().max_submit_jobs(), 5);
  EXPECT_EQ(r.default_account(), "physics");
  EXPECT_EQ(r.admin_level(), "None");
}

TEST(AssociationsPostTest, AddsOrModifiesEachByItsKey) {
  const Json body = {
      {"associations",
       {// alice on gpu exists: its limits change, only that one.
        {{"account", "physics"},
         {"user", "alice"},
         {"partition", "gpu"},
         {"cluster", "lab"},
         {"max", {{"jobs", {{"active", {{"set", true}, {"number", 2}}}}}}},
         {"shares_raw", 7}},
        // bob in physics is new.
        {{"account", "physics"}, {"user", "bob"}},
        // an account association: new, under physics, infinite wall clears.
        {{"account", "bio"},
         {"parent_account", "physics"},
         {"max", {{"jobs", {{"per", {{"wall_clock", {{"set", false}, {"infinite", true}}}}}}}}},
         {"qos", {"normal"}},
         {"default", {{"qos", "normal"}}}}}}};
  absl::StatusOr<SlurmdbWrite> write = AssociationsPost(body, Now());
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->changes.size(), 3u);
  const v1::UpdateAccountsRequest& alice = write->changes[0].accounts;
  EXPECT_EQ(alice.op(), Op::MODIFY_USER);
  EXPECT_EQ(alice.partitions(0), "gpu");
  EXPECT_EQ(alice.limits().max_jobs(), 2);
  EXPECT_EQ(alice.limits().fairshare(), 7);
  const v1::UpdateAccountsRequest& bob = write->changes[1].accounts;
  EXPECT_EQ(bob.op(), Op::ADD_USER);
  EXPECT_EQ(bob.names(0), "bob");
  EXPECT_EQ(bob.accounts(0), "physics");
  EXPECT_EQ(bob.partitions_size(), 0);
  const v1::UpdateAccountsRequest& bio = write->changes[2].accounts;
  EXPECT_EQ(bio.op(), Op::ADD_ACCOUNT);
  EXPECT_EQ(bio.parent(), "physics");
  EXPECT_EQ(bio.limits().max_wall(), -1);
  EXPECT_EQ(bio.default_qos(), "normal");
  EXPECT_TRUE(write->warnings.empty()) << write->warnings[0];

  const Json bad = {{"associations", {{{"user", "bob"}}}}};
  EXPECT_EQ(AssociationsPost(bad, Now()).status().message(),
            "associations[0].account: an association needs its account");
}

TEST(QosPostTest, AddsOrModifiesWithSlurmsLimitShapes) {
  v1::GetQosReply now;
  now.add_qos()->set_name("normal");
  const Json body = {
      {"qos",
       {{{"name", "normal"}, {"priority", {{"set", true}, {"number", 20}}}},
        {{"name", "gpu4"},
         {"description", "four"},
         {"usage_factor", {{"set", true}, {"number", 1.5}}},
         {"preempt", {{"list", {"normal"}}, {"mode", {"REQUEUE"}}}},
         {"limits",
          {{"grace_time", 30},
           {"max",
            {{"tres", {{"per", {{"user", {{{"type", "gres"}, {"name", "gpu"}, {"count", 4}}}}}}}},
             {"jobs", {{"active_jobs", {{"per", {{"user", {{"set", true}, {"number", 3}}}}}}}}},
             {"wall_clock", {{"per", {{"job", {{"set", true}, {"number", 120}}}}}}}}}}}}}}};
  absl::StatusOr<SlurmdbWrite> write = QosPost(body, now);
  ASSERT_TRUE(write.ok()) << write.status();
  ASSERT_EQ(write->changes.size(), 2u);
  EXPECT_TRUE(write->changes[0].is_qos);
  EXPECT_EQ(write->changes[0].qos.op(), v1::UpdateQosRequest::MODIFY);
  EXPECT_EQ(write->changes[0].qos.changes().priority(), 20);
  const v1::UpdateQosRequest& gpu4 = write->changes[1].qos;
  EXPECT_EQ(gpu4.op(), v1::UpdateQosRequest::ADD);
  EXPECT_EQ(gpu4.changes().description(), "four");
  EXPECT_DOUBLE_EQ(gpu4.changes().usage_factor(), 1.5);
  EXPECT_EQ(gpu4.changes().preempt(), "normal");
  EXPECT_EQ(gpu4.changes().preempt_mode(), "REQUEUE");
  EXPECT_EQ(gpu4.changes().grace_time(), 30);
  EXPECT_EQ(gpu4.changes().max_tres_per_user().gpu(), 4);
  EXPECT_EQ(gpu4.changes().max_jobs_per_user(), 3);
  EXPECT_EQ(gpu4.changes().max_wall(), 7200);
}

TEST(AssociationsDeleteTest, SelectsByQueryUsersFirstAccountsDeepestFirst) {
  v1::GetAccountsReply now = Now();
  v1::AccountInfo* bio = now.add_accounts();
  bio->set_name("bio");
  bio->set_parent("physics");
  v1::AssocInfo* assoc = now.add_assocs();
  assoc->set_account("bio");
  assoc->set_parent_account("physics");

  EXPECT_TRUE(SelectedAssociations({}, now).empty()) << "no filter removes nothing";
  EXPECT_EQ(SelectedAssociations({{"user", "alice"}, {"partition", "gpu"}}, now).size(), 1u);
  EXPECT_TRUE(SelectedAssociations({{"account", "physics"}, {"cluster", "other"}}, now).empty());

  const std::vector<v1::AssocKey> keys =
      SelectedAssociations({{"account", "physics,bio,root"}}, now);
  ASSERT_EQ(keys.size(), 4u) << "physics, alice twice, bio; never root";
  const SlurmdbWrite write = AssociationsDelete(keys, now);
  ASSERT_EQ(write.changes.size(), 4u);
  EXPECT_EQ(write.changes[0].accounts.op(), Op::DELETE_USER);
  EXPECT_EQ(write.changes[1].accounts.op(), Op::DELETE_USER);
  EXPECT_EQ(write.changes[2].accounts.names(0), "bio");
  EXPECT_EQ(write.changes[3].accounts.names(0), "physics");
}

TEST(SlurmdbTextsTest, AreSlurmdbdsWords) {
  v1::AssocKey key;
  key.set_account("physics");
  EXPECT_EQ(RemovedAssociationText("lab", key, "root"), "C = lab        A = physics of root");
  key.set_user("alice");
  EXPECT_EQ(RemovedAssociationText("lab", key, ""), "C = lab        A = physics    U = alice    ");
  key.set_partition("gpu");
  EXPECT_EQ(RemovedAssociationText("lab", key, ""),
            "C = lab        A = physics    U = alice     P = gpu");

  v1::UpdateAccountsRequest request;
  request.set_description("life");
  v1::UpdateAccountsReply reply;
  reply.add_affected("bio");
  v1::AssocKey* added = reply.add_associations();
  added->set_account("bio");
  EXPECT_EQ(AddedAccountsText("lab", request, reply),
            " Adding Account(s)\n  bio\n Settings\n  Description     = life\n"
            "  Organization    = Parent/Account Name\n Associations =\n"
            "  C = lab        A = bio                 \n");
  v1::UpdateAccountsRequest users;
  users.add_accounts("physics");
  v1::UpdateAccountsReply added_users;
  added_users.add_affected("bob");
  EXPECT_EQ(AddedUsersText("lab", users, added_users),
            " Adding User(s)\n  bob\n Settings\n  Default Account = physics\n");
}

}  // namespace
}  // namespace skiff::restd
