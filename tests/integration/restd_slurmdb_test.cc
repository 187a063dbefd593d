// restd's /slurmdb/ paths through the real daemons (issue 36): jobs,
// job/{id}, accounts, account/{name}, associations, users, user/{name}, qos,
// qos/{name} and tres, set up with sacctmgr and sbatch, read as a normal user
// and as root, and checked against what sacct and sacctmgr print; every answer
// checked against Slurm's v0.0.42 OpenAPI document. With PrivateData=jobs a
// user sees only their own jobs, as sacct shows them; unknown names find nothing (200, a warning),
// as slurmrestd's; no token or a bad one is a 401. restd is the one `./skiff up` starts. Runs as
// root: it creates test users.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/auth/jwt.h"
#include "common/time_format.h"
#include "nlohmann/json.hpp"
#include "restd/openapi/openapi_documents.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

using Json = nlohmann::json;

constexpr char kAlice[] = "skiffdbalice";
constexpr char kBob[] = "skiffdbbob";

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

class RestdSlurmdbTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options;
    options.nodes = 2;
    options.gpu_nodes = 1;
    options.restd = true;
    options.extra_config = "PrivateData=jobs\n";
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster).release();
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
    ASSERT_TRUE(cluster_->EnsureUser(kBob).ok());
    const RestdAddress restd = RestdAddressOf(*cluster_);
    ASSERT_GT(restd.port, 0) << ReadFile(cluster_->dir() + "/etc/restd.env");
    port_ = restd.port;
    socket_ = restd.socket;
    ASSERT_TRUE(Eventually(30, [&] { return access(socket_.c_str(), F_OK) == 0; }))
        << ReadFile(cluster_->dir() + "/log/restd.out");

    auto ok = [](const std::string& command) {
      const CommandResult r = cluster_->Run(command);
      EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
    };
    ok("sacctmgr -i add qos gpu4 MaxTRESPerUser=gres/gpu=4 MaxJobsPerUser=3 MaxWall=2:00:00 "
       "Priority=10 Description=four_gpus");
    ok("sacctmgr -i add account physics Description=physics_dept Organization=science "
       "MaxJobs=10 QOS=normal,gpu4 DefaultQOS=normal");
    ok("sacctmgr -i add account chem Description=chemistry Organization=science");
    ok(absl::StrCat("sacctmgr -i add user ", kAlice,
                    " Account=physics MaxSubmitJobs=5 MaxTRES=gres/gpu=2 Fairshare=3"));
    ok(absl::StrCat("sacctmgr -i add user ", kBob, " Account=chem"));

    work_ = cluster_->dir() + "/work";
    ASSERT_EQ(RunShell("mkdir -p " + work_ + " && chmod 1777 " + work_).exit_code, 0);
    failed_ = Submit(kAlice, "-A physics --qos=gpu4 -J dbfail --gres=gpu:1 --wrap='exit 3'");
    completed_ = Submit(kAlice, "-A physics -J dbok --wrap=true");
    bobs_ = Submit(kBob, "-A chem -J dbbob --wrap=true");
    for (uint64_t id : {failed_, completed_, bobs_}) {
      ASSERT_TRUE(Eventually(120, [&] {
        const std::string state =
            cluster_->Run(absl::StrCat("sacct -n -X -P -o State -j ", id)).out;
        return absl::StrContains(state, "COMPLETED") || absl::StrContains(state, "FAILED");
      })) << cluster_->Run(absl::StrCat("sacct -X -j ", id)).out;
    }
  }
  static uint64_t Submit(const std::string& user, const std::string& options) {
    const CommandResult r =
        cluster_->RunAs(user, "cd " + work_ + " && sbatch --parsable " + options);
    const uint64_t id = strtoull(r.out.c_str(), nullptr, 10);
    EXPECT_GT(id, 0u) << r.out << r.err;
    return id;
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
  }

  // GET `path` as `user` ("" = root), a local peer on the Unix socket; the
  // answer must fit Slurm's document for its status.
  HttpAnswer Get(const std::string& user, const std::string& path) {
    const HttpAnswer answer = Curl(
        *cluster_, user, absl::StrCat("--unix-socket ", socket_, " 'http://localhost", path, "'"));
    EXPECT_EQ(restd::AnswerProblems("GET", path, answer.status, answer.body), "")
        << user << " GET " << path;
    return answer;
  }
  static std::set<uint64_t> JobIds(const Json& body) {
    std::set<uint64_t> ids;
    for (const Json& job : body["jobs"]) ids.insert(job["job_id"].get<uint64_t>());
    return ids;
  }
  static std::set<uint64_t> SacctIds(const std::string& user) {
    std::set<uint64_t> ids;
    const CommandResult r =
        user.empty() ? cluster_->Run("sacct -a -n -X -P -S 2000-01-01 -o JobIDRaw")
                     : cluster_->RunAs(user, "sacct -a -n -X -P -S 2000-01-01 -o JobIDRaw");
    for (const std::string& line : Lines(r.out)) ids.insert(strtoull(line.c_str(), nullptr, 10));
    return ids;
  }
  static const Json* JobIn(const Json& body, uint64_t id) {
    for (const Json& job : body["jobs"]) {
      if (job["job_id"] == id) return &job;
    }
    return nullptr;
  }

  static LocalCluster* cluster_;
  static int port_;
  static std::string socket_;
  static std::string work_;
  static uint64_t failed_, completed_, bobs_;
};

LocalCluster* RestdSlurmdbTest::cluster_ = nullptr;
int RestdSlurmdbTest::port_ = -1;
std::string RestdSlurmdbTest::socket_;
std::string RestdSlurmdbTest::work_;
uint64_t RestdSlurmdbTest::failed_ = 0;
uint64_t RestdSlurmdbTest::completed_ = 0;
uint64_t RestdSlurmdbTest::bobs_ = 0;

TEST_F(RestdSlurmdbTest, EveryPathAnswersAUserAndRootInSlurmsShapes) {
  // Each version restd serves, against that version's document.
  for (const std::string& user : {std::string(kAlice), std::string()}) {
    for (const std::string version : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
      const std::string v = "/slurmdb/" + version + "/";
      for (const std::string& path :
           {v + "jobs", absl::StrCat(v, "job/", failed_), v + "accounts", v + "account/physics",
            v + "associations", v + "qos", v + "qos/gpu4", v + "users",
            absl::StrCat(v, "user/", kAlice), v + "tres"}) {
        const HttpAnswer answer = Get(user, path);
        EXPECT_EQ(answer.status, 200) << user << " GET " << path << "\n" << answer.body;
        EXPECT_EQ(answer.body["meta"]["plugin"]["type"], "openapi/slurmdbd") << path;
        EXPECT_EQ(answer.body["meta"]["client"]["user"], user.empty() ? "root" : user) << path;
        EXPECT_EQ(answer.body["errors"], Json::array()) << path;
      }
    }
  }
}

TEST_F(RestdSlurmdbTest, JobsHoldWhatSacctPrints) {
  const HttpAnswer root = Get("", "/slurmdb/v0.0.42/jobs");
  ASSERT_EQ(root.status, 200) << root.body;
  EXPECT_EQ(JobIds(root.body), SacctIds(""));
  const Json* job = JobIn(root.body, failed_);
  ASSERT_NE(job, nullptr) << root.body;
  // JobName|User|Account|Partition|QOS|State|ExitCode|ElapsedRaw|Start|End|AllocTRES
  const std::vector<std::string> sacct = absl::StrSplit(
      absl::StripAsciiWhitespace(
          cluster_
              ->Run(absl::StrCat("sacct -n -X -P -j ", failed_,
                                 " -o JobName,User,Account,Partition,QOS,State,ExitCode,"
                                 "ElapsedRaw,Start,End,AllocTRES,NodeList"))
              .out),
      '|');
  ASSERT_EQ(sacct.size(), 12u);
  EXPECT_EQ((*job)["name"], sacct[0]);
  EXPECT_EQ((*job)["user"], sacct[1]);
  EXPECT_EQ((*job)["account"], sacct[2]);
  EXPECT_EQ((*job)["partition"], sacct[3]);
  EXPECT_EQ((*job)["qos"], sacct[4]);
  EXPECT_EQ((*job)["state"]["current"], Json::array({sacct[5]}));
  EXPECT_EQ(sacct[5], "FAILED");
  EXPECT_EQ(absl::StrCat((*job)["exit_code"]["return_code"]["number"].get<int>(), ":",
                         (*job)["exit_code"]["signal"]["id"]["set"] == true
                             ? (*job)["exit_code"]["signal"]["id"]["number"].get<int>()
                             : 0),
            sacct[6]);
  EXPECT_EQ((*job)["exit_code"]["status"], Json::array({"ERROR"}));
  EXPECT_EQ(absl::StrCat((*job)["time"]["elapsed"].get<int64_t>()), sacct[7]);
  EXPECT_EQ(FormatTimestamp((*job)["time"]["start"].get<int64_t>()), sacct[8]);
  EXPECT_EQ(FormatTimestamp((*job)["time"]["end"].get<int64_t>()), sacct[9]);
  EXPECT_EQ((*job)["nodes"], sacct[11]);
  // AllocTRES "billing=1,cpu=1,gres/gpu=1,mem=...,node=1": the GPU and CPU counts.
  int64_t gpus = -1, cpus = -1;
  for (const Json& tres : (*job)["tres"]["allocated"]) {
    if (tres["type"] == "gres" && tres["name"] == "gpu") gpus = tres["count"];
    if (tres["type"] == "cpu") cpus = tres["count"];
  }
  EXPECT_EQ(gpus, 1) << (*job)["tres"];
  EXPECT_TRUE(absl::StrContains(sacct[10], absl::StrCat("cpu=", cpus, ","))) << sacct[10];
  EXPECT_TRUE(absl::StrContains(sacct[10], "gres/gpu=1")) << sacct[10];
  // The association it ran under, by sacctmgr's id.
  const std::string assoc_id(absl::StripAsciiWhitespace(
      cluster_
          ->Run(absl::StrCat("sacctmgr -n -P show assoc where user=", kAlice,
                             " account=physics format=ID"))
          .out));
  EXPECT_EQ(absl::StrCat((*job)["association"]["id"].get<uint64_t>()), assoc_id);
  // Its batch step.
  ASSERT_FALSE((*job)["steps"].empty());
  EXPECT_EQ((*job)["steps"][0]["step"]["id"], absl::StrCat(failed_, ".batch"));
  EXPECT_EQ((*job)["steps"][0]["exit_code"]["return_code"]["number"], 3);

  const HttpAnswer one = Get(kAlice, absl::StrCat("/slurmdb/v0.0.42/job/", completed_));
  ASSERT_EQ(one.status, 200) << one.body;
  ASSERT_EQ(one.body["jobs"].size(), 1u);
  EXPECT_EQ(one.body["jobs"][0]["state"]["current"], Json::array({"COMPLETED"}));
  EXPECT_EQ(one.body["jobs"][0]["exit_code"]["status"], Json::array({"SUCCESS"}));
}

TEST_F(RestdSlurmdbTest, AUserSeesOnlyWhatSacctShowsThem) {
  // PrivateData=jobs: alice's sacct -a lists her jobs only, and so does restd.
  const HttpAnswer alice = Get(kAlice, "/slurmdb/v0.0.42/jobs");
  ASSERT_EQ(alice.status, 200) << alice.body;
  EXPECT_EQ(JobIds(alice.body), SacctIds(kAlice));
  EXPECT_EQ(JobIds(alice.body), (std::set<uint64_t>{failed_, completed_}));
  // Bob's job is not there for her: sacct prints nothing, restd finds nothing.
  EXPECT_EQ(cluster_->RunAs(kAlice, absl::StrCat("sacct -n -X -j ", bobs_)).out, "");
  const HttpAnswer hidden = Get(kAlice, absl::StrCat("/slurmdb/v0.0.42/job/", bobs_));
  EXPECT_EQ(hidden.status, 200) << hidden.body;
  EXPECT_EQ(hidden.body["jobs"], Json::array());
  ASSERT_EQ(hidden.body["warnings"].size(), 1u) << hidden.body;
  EXPECT_EQ(hidden.body["warnings"][0]["description"], "slurmdb_jobs_get() found nothing");
  // Root sees it; bob sees his own.
  EXPECT_EQ(Get("", absl::StrCat("/slurmdb/v0.0.42/job/", bobs_)).status, 200);
  EXPECT_EQ(JobIds(Get(kBob, "/slurmdb/v0.0.42/jobs").body), (std::set<uint64_t>{bobs_}));
}

TEST_F(RestdSlurmdbTest, JobsQueriesFilterAndMalformedOnesAreRefused) {
  const std::string since = "start_time=" + std::to_string(time(nullptr) - 3600);
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?" + since + "&users=" + kAlice).body),
            (std::set<uint64_t>{failed_, completed_}));
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?" + since + "&job_name=dbok,dbbob").body),
            (std::set<uint64_t>{completed_, bobs_}));
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?" + since + "&account=chem").body),
            (std::set<uint64_t>{bobs_}));
  // With a state and no end_time the window is the instant start_time, as
  // sacct -s's; give it an end.
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?" + since + "&state=FAILED&end_time=now").body),
            (std::set<uint64_t>{failed_}));
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?" + since + "&state=FAILED").body),
            std::set<uint64_t>{});
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?start_time=now-1hour&partition=nosuch").body),
            std::set<uint64_t>{});
  // A window that ended before the jobs were submitted.
  EXPECT_EQ(JobIds(Get("", "/slurmdb/v0.0.42/jobs?start_time=1000&end_time=2000").body),
            std::set<uint64_t>{});
  const HttpAnswer bad = Get(kAlice, "/slurmdb/v0.0.42/jobs?start_time=someday");
  EXPECT_EQ(bad.status, 400) << bad.body;
  ASSERT_FALSE(bad.body["errors"].empty());
  EXPECT_TRUE(
      absl::StartsWith(bad.body["errors"][0]["description"].get<std::string>(), "start_time:"))
      << bad.body;
  EXPECT_EQ(Get(kAlice, "/slurmdb/v0.0.42/jobs?state=DONE").status, 400);
  EXPECT_EQ(Get(kAlice, "/slurmdb/v0.0.42/job/12x").status, 400);
}

TEST_F(RestdSlurmdbTest, AccountsAndAssociationsHoldWhatSacctmgrPrints) {
  const HttpAnswer accounts = Get(kAlice, "/slurmdb/v0.0.42/accounts");
  ASSERT_EQ(accounts.status, 200) << accounts.body;
  std::vector<std::string> rest_rows;
  for (const Json& account : accounts.body["accounts"]) {
    rest_rows.push_back(absl::StrCat(account["name"].get<std::string>(), "|",
                                     account["description"].get<std::string>(), "|",
                                     account["organization"].get<std::string>()));
  }
  EXPECT_EQ(rest_rows,
            Lines(cluster_->Run("sacctmgr -n -P show account format=Account,Descr,Org").out));

  const HttpAnswer physics = Get(kAlice, "/slurmdb/v0.0.42/account/physics?with_assocs");
  ASSERT_EQ(physics.status, 200) << physics.body;
  std::set<std::string> users;
  for (const Json& assoc : physics.body["accounts"][0]["associations"]) users.insert(assoc["user"]);
  EXPECT_EQ(users, (std::set<std::string>{"", kAlice}));

  const HttpAnswer assocs =
      Get(kAlice, absl::StrCat("/slurmdb/v0.0.42/associations?user=", kAlice));
  ASSERT_EQ(assocs.status, 200) << assocs.body;
  ASSERT_EQ(assocs.body["associations"].size(), 1u) << assocs.body;
  const Json& mine = assocs.body["associations"][0];
  const std::vector<std::string> row = absl::StrSplit(
      absl::StripAsciiWhitespace(
          cluster_
              ->Run(absl::StrCat("sacctmgr -n -P show assoc where user=", kAlice,
                                 " format=Cluster,Account,User,ID,Share,MaxSubmit,MaxTRES,QOS,"
                                 "DefaultQOS"))
              .out),
      '|');
  ASSERT_EQ(row.size(), 9u);
  EXPECT_EQ(mine["cluster"], row[0]);
  EXPECT_EQ(mine["account"], row[1]);
  EXPECT_EQ(mine["user"], row[2]);
  EXPECT_EQ(absl::StrCat(mine["id"].get<uint64_t>()), row[3]);
  EXPECT_EQ(absl::StrCat(mine["shares_raw"].get<int>()), row[4]);
  EXPECT_EQ(absl::StrCat(mine["max"]["jobs"]["total"]["number"].get<int>()), row[5]);
  EXPECT_EQ(row[6], "gres/gpu=2");
  EXPECT_EQ(mine["max"]["tres"]["per"]["job"],
            Json::parse(R"([{"type": "gres", "name": "gpu", "id": 1001, "count": 2}])"));
  std::vector<std::string> qos = mine["qos"];
  EXPECT_EQ(absl::StrJoin(qos, ","), row[7]);
  EXPECT_EQ(mine["default"]["qos"], row[8]);
  // MaxJobs is physics' (sacctmgr shows it on the account's row), inherited as
  // slurmdbd gives it.
  EXPECT_EQ(
      absl::StripAsciiWhitespace(
          cluster_->Run("sacctmgr -n -P show assoc where account=physics format=User,MaxJobs").out)
          .substr(0, 3),
      "|10");
  EXPECT_EQ(mine["max"]["jobs"]["active"]["number"], 10);
  EXPECT_EQ(mine["lineage"], absl::StrCat("/physics/0-", kAlice, "/"));
  EXPECT_EQ(mine["is_default"], true);
}

TEST_F(RestdSlurmdbTest, UsersQosAndTresHoldWhatTheCommandsPrint) {
  const HttpAnswer users = Get(kBob, "/slurmdb/v0.0.42/users");
  ASSERT_EQ(users.status, 200) << users.body;
  std::vector<std::string> rest_rows;
  for (const Json& user : users.body["users"]) {
    rest_rows.push_back(absl::StrCat(user["name"].get<std::string>(), "|",
                                     user["default"]["account"].get<std::string>(), "|",
                                     user["administrator_level"][0].get<std::string>()));
  }
  EXPECT_EQ(rest_rows,
            Lines(cluster_->Run("sacctmgr -n -P show user format=User,DefaultAccount,Admin").out));
  const HttpAnswer alice =
      Get(kBob, absl::StrCat("/slurmdb/v0.0.42/user/", kAlice, "?with_assocs=true"));
  ASSERT_EQ(alice.status, 200) << alice.body;
  ASSERT_EQ(alice.body["users"][0]["associations"].size(), 1u);
  EXPECT_EQ(alice.body["users"][0]["associations"][0]["account"], "physics");

  const HttpAnswer qos = Get(kAlice, "/slurmdb/v0.0.42/qos");
  ASSERT_EQ(qos.status, 200) << qos.body;
  std::vector<std::string> names;
  for (const Json& q : qos.body["qos"]) names.push_back(q["name"]);
  EXPECT_EQ(names, Lines(cluster_->Run("sacctmgr -n -P show qos format=Name").out));
  const HttpAnswer gpu4 = Get(kAlice, "/slurmdb/v0.0.42/qos/gpu4");
  ASSERT_EQ(gpu4.status, 200) << gpu4.body;
  EXPECT_EQ(cluster_
                ->Run("sacctmgr -n -P show qos gpu4 format=Name,Priority,MaxTRESPU,MaxJobsPU,"
                      "MaxWall")
                .out,
            "gpu4|10|gres/gpu=4|3|02:00:00\n");
  const Json& q = gpu4.body["qos"][0];
  EXPECT_EQ(q["priority"]["number"], 10);
  EXPECT_EQ(q["description"], "four_gpus");
  EXPECT_EQ(q["limits"]["max"]["tres"]["per"]["user"],
            Json::parse(R"([{"type": "gres", "name": "gpu", "id": 1001, "count": 4}])"));
  EXPECT_EQ(q["limits"]["max"]["jobs"]["active_jobs"]["per"]["user"]["number"], 3);
  EXPECT_EQ(q["limits"]["max"]["wall_clock"]["per"]["job"]["number"], 120);

  // The cluster's TRES: 2 nodes of 4 CPUs, 2 GPUs on the GPU node (sinfo's totals).
  const HttpAnswer tres = Get(kAlice, "/slurmdb/v0.0.42/tres");
  ASSERT_EQ(tres.status, 200) << tres.body;
  std::map<std::string, int64_t> counts;
  for (const Json& t : tres.body["TRES"]) {
    const std::string name = t["name"].get<std::string>();
    counts[t["type"].get<std::string>() + (name.empty() ? "" : "/" + name)] = t["count"];
  }
  const std::vector<std::string> cpus =
      absl::StrSplit(absl::StripAsciiWhitespace(cluster_->Run("sinfo -h -o %C").out), '/');
  ASSERT_EQ(cpus.size(), 4u);
  EXPECT_EQ(absl::StrCat(counts["cpu"]), cpus[3]);
  EXPECT_EQ(counts["node"], 2);
  EXPECT_EQ(counts["gres/gpu"], 2);
}

// As slurmrestd: an unknown name is no error, an empty list with a warning.
TEST_F(RestdSlurmdbTest, UnknownNamesFindNothingAndNoOrABadTokenIs401) {
  for (const auto& [path, list] : std::vector<std::pair<std::string, std::string>>{
           {"/slurmdb/v0.0.42/job/999999", "jobs"},
           {"/slurmdb/v0.0.42/account/nosuch", "accounts"},
           {"/slurmdb/v0.0.42/qos/nosuch", "qos"},
           {"/slurmdb/v0.0.42/user/nosuchuser", "users"}}) {
    const HttpAnswer answer = Get(kAlice, path);
    EXPECT_EQ(answer.status, 200) << path << "\n" << answer.body;
    EXPECT_EQ(answer.body[list], Json::array()) << path;
    EXPECT_TRUE(answer.body["errors"].empty()) << path;
    ASSERT_EQ(answer.body["warnings"].size(), 1u) << path;
    EXPECT_TRUE(absl::EndsWith(answer.body["warnings"][0]["description"].get<std::string>(),
                               "() found nothing"))
        << path;
  }
  const std::string url = absl::StrCat("http://127.0.0.1:", port_, "/slurmdb/v0.0.42/jobs");
  EXPECT_EQ(Curl(*cluster_, "", url).status, 401);
  const std::string forged = MakeJwt("not the key", "root", time(nullptr), 600);
  EXPECT_EQ(Curl(*cluster_, "", "-H 'X-SLURM-USER-TOKEN: " + forged + "' " + url).status, 401);
  // A real token of alice's over TCP reads as alice.
  const std::string token(absl::StripAsciiWhitespace(
      cluster_->RunAs(kAlice, "scontrol token").out.substr(strlen("SLURM_JWT="))));
  const HttpAnswer with_token =
      Curl(*cluster_, "", "-H 'X-SLURM-USER-TOKEN: " + token + "' " + url);
  ASSERT_EQ(with_token.status, 200) << with_token.body;
  EXPECT_EQ(JobIds(with_token.body), (std::set<uint64_t>{failed_, completed_}));
}

// The writes portals and admin scripts send (issue 49): an account added
// with its settings, a user put in it, their association's limits, a QOS,
// then each removed; a user is refused every write, a malformed body changes
// nothing, and each answer fits Slurm's document. sacctmgr is the oracle.
TEST_F(RestdSlurmdbTest, OperatorsWriteAccountsUsersAssociationsAndQosAsSacctmgrDoes) {
  const std::string v = "/slurmdb/v0.0.42/";
  auto send = [&](const std::string& user, const std::string& method, const std::string& path,
                  const std::string& body = "") {
    std::string args = absl::StrCat("--unix-socket ", socket_, " -X ", method, " ");
    if (!body.empty()) {
      absl::StrAppend(&args, "-H 'Content-Type: application/json' --data-binary @- ");
    }
    absl::StrAppend(&args, "'http://localhost", path, "'");
    if (!body.empty()) absl::StrAppend(&args, " <<'EOF'\n", body, "\nEOF");
    const HttpAnswer answer = Curl(*cluster_, user, args);
    EXPECT_EQ(restd::AnswerProblems(method, path, answer.status, answer.body), "")
        << method << " " << path;
    return answer;
  };
  auto sacctmgr = [&](const std::string& args) {
    return std::string(absl::StripAsciiWhitespace(cluster_->Run("sacctmgr -n -P " + args).out));
  };

  // A user may not add an account.
  const std::string restbio =
      R"({"association_condition": {"accounts": ["restbio"],
            "association": {"parent": "physics", "maxjobs": {"set": true, "number": 4},
                            "grptres": [{"type": "gres", "name": "gpu", "count": 2}]}},
          "account": {"description": "biology", "organization": "sci"}})";
  const HttpAnswer refused = send(kAlice, "POST", v + "accounts_association", restbio);
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_FALSE(refused.body["errors"].empty());
  EXPECT_EQ(sacctmgr("show account restbio format=Account"), "");

  // An operator (root) adds it with its settings, as sacctmgr add account.
  const HttpAnswer added = send("", "POST", v + "accounts_association", restbio);
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_TRUE(absl::StartsWith(added.body["added_accounts"].get<std::string>(),
                               " Adding Account(s)\n  restbio\n Settings\n"))
      << added.body;
  EXPECT_EQ(sacctmgr("show account restbio format=Account,Descr,Org"), "restbio|biology|sci");
  EXPECT_EQ(sacctmgr("show assoc where account=restbio format=Account,ParentName,MaxJobs,GrpTRES"),
            "restbio|physics|4|gres/gpu=2");

  // A user in it, then that association's limit.
  const HttpAnswer user_added = send("", "POST", v + "users_association",
                                     absl::StrCat(R"({"association_condition": {"users": [")", kBob,
                                                  R"("], "accounts": ["restbio"]}, "user": {}})"));
  ASSERT_EQ(user_added.status, 200) << user_added.body;
  EXPECT_TRUE(absl::StrContains(user_added.body["added_users"].get<std::string>(), "A = restbio"))
      << user_added.body;
  const HttpAnswer limited =
      send("", "POST", v + "associations",
           absl::StrCat(R"({"associations": [{"account": "restbio", "user": ")", kBob,
                        R"(", "max": {"jobs": {"active": {"set": true, "number": 2}}},
                            "shares_raw": 3}]})"));
  ASSERT_EQ(limited.status, 200) << limited.body;
  EXPECT_EQ(sacctmgr(absl::StrCat("show assoc where account=restbio user=", kBob,
                                  " format=User,Share,MaxJobs")),
            absl::StrCat(kBob, "|3|2"));
  // POST users: Bob's default account, and back.
  for (const std::string account : {"restbio", "chem"}) {
    const HttpAnswer user =
        send("", "POST", v + "users",
             absl::StrCat(R"({"users": [{"name": ")", kBob, R"(", "default": {"account": ")",
                          account, R"("}}]})"));
    ASSERT_EQ(user.status, 200) << user.body;
    EXPECT_EQ(sacctmgr(absl::StrCat("show user ", kBob, " format=DefaultAccount")), account);
  }

  // A QOS added, then modified.
  const HttpAnswer qos = send("", "POST", v + "qos",
                              R"({"qos": [{"name": "restq", "description": "rest_qos",
                    "priority": {"set": true, "number": 7},
                    "limits": {"max": {"tres": {"per": {"user":
                      [{"type": "gres", "name": "gpu", "count": 2}]}}}}}]})");
  ASSERT_EQ(qos.status, 200) << qos.body;
  EXPECT_EQ(sacctmgr("show qos restq format=Name,Priority,MaxTRESPU,Descr"),
            "restq|7|gres/gpu=2|rest_qos");
  ASSERT_EQ(send("", "POST", v + "qos", R"({"qos": [{"name": "restq", "priority": 9}]})").status,
            200);
  EXPECT_EQ(sacctmgr("show qos restq format=Name,Priority"), "restq|9");

  // A malformed body: refused naming the field, nothing changed.
  const HttpAnswer bad = send("", "POST", v + "associations",
                              R"({"associations": [{"account": "restbio", "max": {"tres": {"total":
                [{"type": "fs", "name": "disk", "count": 1}]}}}]})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_TRUE(absl::StrContains(bad.body.dump(), "associations[0].max.tres.total")) << bad.body;
  EXPECT_EQ(sacctmgr("show assoc where account=restbio format=Account,ParentName,MaxJobs,GrpTRES")
                .substr(0, 24),
            "restbio|physics|4|gres/g");

  // Removed: a user's association, the account, the QOS; an unknown name
  // removes nothing and says so.
  EXPECT_EQ(send(kAlice, "DELETE", v + "account/restbio").status, 403);
  const HttpAnswer assoc_gone =
      send("", "DELETE", absl::StrCat(v, "association?account=restbio&user=", kBob));
  ASSERT_EQ(assoc_gone.status, 200) << assoc_gone.body;
  ASSERT_EQ(assoc_gone.body["removed_associations"].size(), 1u) << assoc_gone.body;
  EXPECT_TRUE(absl::StrContains(assoc_gone.body["removed_associations"][0].get<std::string>(),
                                absl::StrCat("A = restbio    U = ", kBob)))
      << assoc_gone.body;
  const HttpAnswer account_gone = send("", "DELETE", v + "account/restbio");
  ASSERT_EQ(account_gone.status, 200) << account_gone.body;
  EXPECT_EQ(account_gone.body["removed_accounts"], Json::array({"restbio"}));
  EXPECT_EQ(sacctmgr("show account restbio format=Account"), "");
  const HttpAnswer qos_gone = send("", "DELETE", v + "qos/restq");
  ASSERT_EQ(qos_gone.status, 200) << qos_gone.body;
  EXPECT_EQ(qos_gone.body["removed_qos"], Json::array({"restq"}));
  EXPECT_EQ(sacctmgr("show qos restq format=Name"), "");
  const HttpAnswer none = send("", "DELETE", v + "account/nosuch");
  EXPECT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.body["removed_accounts"], Json::array());
  EXPECT_EQ(none.body["warnings"].size(), 1u) << none.body;
}

}  // namespace
}  // namespace skiff::testing
