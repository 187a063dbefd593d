// Accounts, users, associations, QOS and TRES as slurmdbd's v0.0.42 records:
// the values (limits inherited as slurmdbd gives them), the query filters,
// and each answer against Slurm's own schema.
#include "restd/slurmdb/accounts_json.h"

#include <gtest/gtest.h>

#include "restd/openapi/openapi_check.h"
#include "restd/openapi/openapi_documents.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;

// A record as a reader sees it.
Json Read(const client::Json& record) { return Json::parse(record.Text()); }

const Json& Document() { return SlurmOpenapiDocument("v0.0.42"); }

std::string Problems(const std::string& path, const std::string& key, const Json& list) {
  std::string text;
  const Json body = {{key, list}, {"errors", Json::array()}, {"warnings", Json::array()}};
  for (const std::string& problem : ResponseProblems(Document(), "GET", path, 200, body)) {
    text += problem + "\n";
  }
  return text;
}

v1::AssocInfo* AddAssoc(v1::GetAccountsReply& reply, uint64_t id, const std::string& account,
                        const std::string& user, const std::string& parent) {
  v1::AssocInfo* assoc = reply.add_assocs();
  assoc->set_id(id);
  assoc->set_account(account);
  assoc->set_user(user);
  assoc->set_parent_account(parent);
  return assoc;
}

// root -> physics (MaxJobs=10, MaxTRES=cpu=32,gres/gpu=8, GrpTRES=gres/gpu=16,
// QOS normal,gpu4, DefaultQOS normal) -> alice (MaxSubmit=5, MaxTRES=gres/gpu=2,
// Fairshare=3) and alice on partition gpu; bob an Operator without associations.
v1::GetAccountsReply Tree() {
  v1::GetAccountsReply reply;
  reply.set_cluster("lab");
  v1::AccountInfo* root = reply.add_accounts();
  root->set_name("root");
  root->set_description("default root account");
  root->set_organization("root");
  v1::AccountInfo* physics = reply.add_accounts();
  physics->set_name("physics");
  physics->set_description("physics dept");
  physics->set_organization("science");
  physics->set_parent("root");
  v1::UserInfo* alice = reply.add_users();
  alice->set_name("alice");
  alice->set_default_account("physics");
  alice->set_admin_level("None");
  v1::UserInfo* bob = reply.add_users();
  bob->set_name("bob");
  bob->set_admin_level("Operator");
  AddAssoc(reply, 1, "root", "", "");
  v1::AssocInfo* account = AddAssoc(reply, 2, "physics", "", "root");
  account->mutable_limits()->set_max_jobs(10);
  account->mutable_limits()->mutable_max_tres_per_job()->set_cpu(32);
  account->mutable_limits()->mutable_max_tres_per_job()->set_gpu(8);
  account->mutable_limits()->mutable_grp_tres()->set_gpu(16);
  account->mutable_limits()->set_max_wall(7200);
  account->add_qos("normal");
  account->add_qos("gpu4");
  account->set_default_qos("normal");
  v1::AssocInfo* user = AddAssoc(reply, 3, "physics", "alice", "");
  user->mutable_limits()->set_max_submit_jobs(5);
  user->mutable_limits()->mutable_max_tres_per_job()->set_gpu(2);
  user->mutable_limits()->set_fairshare(3);
  user->mutable_limits()->set_grp_billing_mins(600);
  AddAssoc(reply, 4, "physics", "alice", "")->set_partition("gpu");
  return reply;
}

TEST(AccountsJsonTest, AnAssociationInheritsMaxLimitsAndQosButNotGrpLimits) {
  const v1::GetAccountsReply reply = Tree();
  const Json alice = Read(AssociationJson(reply, reply.assocs(2), /*parent_limits=*/true));
  EXPECT_EQ(alice["account"], "physics");
  EXPECT_EQ(alice["user"], "alice");
  EXPECT_EQ(alice["cluster"], "lab");
  EXPECT_EQ(alice["id"], 3);
  EXPECT_EQ(alice["is_default"], true);
  EXPECT_EQ(alice["lineage"], "/physics/0-alice/");
  EXPECT_EQ(alice["parent_account"], "");
  EXPECT_EQ(alice["shares_raw"], 3);
  EXPECT_EQ(alice["max"]["jobs"]["active"]["number"], 10);              // MaxJobs from physics
  EXPECT_EQ(alice["max"]["jobs"]["total"]["number"], 5);                // its own MaxSubmit
  EXPECT_EQ(alice["max"]["jobs"]["per"]["wall_clock"]["number"], 120);  // minutes
  EXPECT_EQ(alice["max"]["jobs"]["per"]["count"]["infinite"], true);    // GrpJobs: none
  // MaxTRES per TRES: gpu its own, cpu its account's.
  EXPECT_EQ(alice["max"]["tres"]["per"]["job"],
            Json::parse(R"([{"type": "cpu", "name": "", "id": 1, "count": 32},
                            {"type": "gres", "name": "gpu", "id": 1001, "count": 2}])"));
  EXPECT_EQ(alice["max"]["tres"]["total"], Json::array());  // GrpTRES stays physics'
  EXPECT_EQ(alice["max"]["tres"]["group"]["minutes"],
            Json::parse(R"([{"type": "billing", "name": "", "id": 5, "count": 600}])"));
  EXPECT_EQ(alice["qos"], Json::array({"gpu4", "normal"}));
  EXPECT_EQ(alice["default"]["qos"], "normal");

  const Json own = Read(AssociationJson(reply, reply.assocs(2), /*parent_limits=*/false));
  EXPECT_EQ(own["max"]["jobs"]["active"]["infinite"], true);
  EXPECT_EQ(own["qos"], Json::array());
  EXPECT_EQ(own["max"]["tres"]["per"]["job"].size(), 1u);

  const Json physics = Read(AssociationJson(reply, reply.assocs(1), true));
  EXPECT_EQ(physics["lineage"], "/physics/");
  EXPECT_EQ(physics["parent_account"], "root");
  EXPECT_EQ(physics["is_default"], false);
  EXPECT_EQ(physics["shares_raw"], 1);
  EXPECT_EQ(physics["max"]["tres"]["total"][0]["count"], 16);
  EXPECT_EQ(Read(AssociationJson(reply, reply.assocs(0), true))["lineage"], "/");
  EXPECT_EQ(Read(AssociationJson(reply, reply.assocs(3), true))["lineage"],
            "/physics/0-alice/gpu/");
}

TEST(AccountsJsonTest, AssociationsAreSelectedByTheQuery) {
  const v1::GetAccountsReply reply = Tree();
  EXPECT_EQ(Read(AssociationsJson(reply, {})).size(), 4u);
  EXPECT_EQ(Read(AssociationsJson(reply, {{"user", "alice"}})).size(), 2u);
  EXPECT_EQ(Read(AssociationsJson(reply, {{"user", "alice"}, {"partition", "gpu"}})).size(), 1u);
  EXPECT_EQ(Read(AssociationsJson(reply, {{"account", "PHYSICS"}})).size(), 3u);
  EXPECT_EQ(Read(AssociationsJson(reply, {{"parent_account", "root"}}))[0]["account"], "physics");
  EXPECT_EQ(Read(AssociationsJson(reply, {{"id", "1,4"}})).size(), 2u);
  EXPECT_EQ(Read(AssociationsJson(reply, {{"cluster", "other"}})).size(), 0u);
  EXPECT_EQ(
      Read(AssociationsJson(reply, {{"user", "alice"}, {"without_parent_limits", ""}}))[0]["qos"],
      Json::array());
  EXPECT_EQ(
      Problems("/slurmdb/v0.0.42/associations", "associations", Read(AssociationsJson(reply, {}))),
      "");
}

TEST(AccountsJsonTest, AccountsAndUsersWithTheirAssociationsWhenAsked) {
  const v1::GetAccountsReply reply = Tree();
  const Json accounts = Read(AccountsJson(reply, {}));
  ASSERT_EQ(accounts.size(), 2u);
  EXPECT_EQ(accounts[1], Json::parse(R"({"name": "physics", "description": "physics dept",
                                         "organization": "science", "flags": []})"));
  const Json with = Read(AccountsJson(reply, {{"WithAssociations", ""}}));
  ASSERT_EQ(with[1]["associations"].size(), 3u);
  EXPECT_EQ(with[1]["associations"][1],
            Json::parse(R"({"account": "physics", "cluster": "lab", "partition": "",
                            "user": "alice", "id": 3})"));
  EXPECT_FALSE(
      Read(AccountsJson(reply, {{"WithAssociations", "false"}}))[1].contains("associations"));
  EXPECT_EQ(Read(AccountsJson(reply, {{"description", "physics dept"}})).size(), 1u);
  EXPECT_EQ(Problems("/slurmdb/v0.0.42/accounts", "accounts", with), "");

  const Json users = Read(UsersJson(reply, {}));
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0], Json::parse(R"({"name": "alice", "administrator_level": ["None"],
                                      "default": {"account": "physics"}})"));
  EXPECT_EQ(users[1]["administrator_level"], Json::array({"Operator"}));
  const Json alice = Read(UserJson(reply, reply.users(0), /*with_assocs=*/true));
  ASSERT_EQ(alice["associations"].size(), 2u);
  EXPECT_EQ(alice["associations"][1]["partition"], "gpu");
  EXPECT_EQ(Read(UsersJson(reply, {{"admin_level", "operator"}})).size(), 1u);
  EXPECT_EQ(Read(UsersJson(reply, {{"default_account", "physics"}}))[0]["name"], "alice");
  EXPECT_EQ(
      Problems("/slurmdb/v0.0.42/users", "users", Read(UsersJson(reply, {{"with_assocs", "1"}}))),
      "");
}

TEST(AccountsJsonTest, QosLimitsIncludingGpusInSlurmsPlaces) {
  v1::GetQosReply reply;
  v1::QosInfo* normal = reply.add_qos();
  normal->set_name("normal");
  normal->set_id(1);
  normal->set_max_jobs_per_user(-1);
  normal->set_max_submit_jobs_per_user(-1);
  normal->set_max_wall(-1);
  normal->set_usage_factor(1.0);
  normal->set_preempt_mode("cluster");
  v1::QosInfo* gpu = reply.add_qos();
  gpu->set_name("gpu4");
  gpu->set_id(2);
  gpu->set_description("four GPUs");
  gpu->set_priority(100);
  gpu->mutable_max_tres_per_user()->set_gpu(4);
  gpu->mutable_max_tres_per_job()->set_cpu(16);
  gpu->mutable_max_tres_per_job()->set_mem_mb(65536);
  gpu->set_max_jobs_per_user(3);
  gpu->set_max_submit_jobs_per_user(10);
  gpu->set_max_wall(86400);
  gpu->add_preempt("normal");
  gpu->set_preempt_mode("REQUEUE");
  gpu->set_usage_factor(2.5);
  gpu->set_grace_time(60);
  gpu->mutable_grp_tres_run_mins()->set_gpu(600);
  gpu->mutable_max_tres_run_mins_per_user()->set_gpu(300);
  gpu->mutable_max_tres_mins_per_job()->set_cpu(1000);
  gpu->mutable_grp_tres_mins()->set_gpu(10000);
  const Json list = Read(QosListJson(reply, {}));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["limits"]["max"]["jobs"]["active_jobs"]["per"]["user"]["infinite"], true);
  EXPECT_EQ(list[0]["preempt"]["mode"], Json::array({"DISABLED"}));
  const Json& q = list[1];
  EXPECT_EQ(q["name"], "gpu4");
  EXPECT_EQ(q["id"], 2);
  EXPECT_EQ(q["description"], "four GPUs");
  EXPECT_EQ(q["priority"]["number"], 100);
  EXPECT_EQ(q["usage_factor"]["number"], 2.5);
  EXPECT_EQ(q["limits"]["grace_time"], 60);
  const Json& max = q["limits"]["max"];
  EXPECT_EQ(max["tres"]["per"]["user"],
            Json::parse(R"([{"type": "gres", "name": "gpu", "id": 1001, "count": 4}])"));
  EXPECT_EQ(max["tres"]["per"]["job"][1],
            Json::parse(R"({"type": "mem", "name": "", "id": 2, "count": 65536})"));
  EXPECT_EQ(max["jobs"]["active_jobs"]["per"]["user"]["number"], 3);
  EXPECT_EQ(max["jobs"]["per"]["user"]["number"], 10);
  EXPECT_EQ(max["wall_clock"]["per"]["job"]["number"], 1440);
  EXPECT_EQ(max["tres"]["minutes"]["per"]["qos"][0]["count"], 600);
  EXPECT_EQ(max["tres"]["minutes"]["per"]["user"][0]["count"], 300);
  EXPECT_EQ(max["tres"]["minutes"]["per"]["job"][0]["type"], "cpu");
  EXPECT_EQ(max["tres"]["minutes"]["total"][0]["count"], 10000);
  EXPECT_EQ(q["preempt"], Json::parse(R"({"list": ["normal"], "mode": ["REQUEUE"]})"));
  EXPECT_EQ(Read(QosListJson(reply, {{"name", "GPU4"}})).size(), 1u);
  EXPECT_EQ(Read(QosListJson(reply, {{"id", "1"}}))[0]["name"], "normal");
  EXPECT_EQ(Problems("/slurmdb/v0.0.42/qos", "qos", list), "");
}

TEST(AccountsJsonTest, TheClustersTresWithTheirTotals) {
  v1::GetUsageReportReply report;
  for (const auto& [name, count] :
       std::vector<std::pair<std::string, double>>{{"cpu", 16},
                                                   {"mem", 32768},
                                                   {"energy", 0},
                                                   {"node", 2},
                                                   {"billing", 16},
                                                   {"gres/gpu", 2},
                                                   {"gres/gpu:a100", 2}}) {
    v1::ClusterTres* tres = report.add_tres();
    tres->set_name(name);
    tres->set_count(count);
  }
  const Json tres = Read(ClusterTresJson(report));
  ASSERT_EQ(tres.size(), 7u);
  EXPECT_EQ(tres[0], Json::parse(R"({"type": "cpu", "name": "", "id": 1, "count": 16})"));
  EXPECT_EQ(tres[1]["count"], 32768);
  EXPECT_EQ(tres[2]["type"], "energy");
  EXPECT_EQ(tres[5], Json::parse(R"({"type": "gres", "name": "gpu", "id": 1001, "count": 2})"));
  EXPECT_EQ(tres[6]["name"], "gpu:a100");
  EXPECT_EQ(Problems("/slurmdb/v0.0.42/tres", "TRES", tres), "");
}

}  // namespace
}  // namespace skiff::restd
