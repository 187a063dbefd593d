// restd's /slurm/ paths through the real daemons (issue 36): ping, diag,
// jobs, job/{id} (GET, DELETE), jobs DELETE, job/submit, nodes, node/{name},
// partitions, partition/{name}, reservations, reservation/{name} and shares,
// for a local user on the Unix socket (their uid, no token) and a token's user
// over TCP; every answer checked against Slurm's v0.0.42 OpenAPI document. A
// user is refused someone else's job; no token, a forged or an expired one is
// refused in Slurm's error array. restd is the one `./skiff up` starts, with
// the token key it writes. Runs as root: it creates test users.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/auth/jwt.h"
#include "nlohmann/json.hpp"
#include "restd/openapi/openapi_documents.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

using Json = nlohmann::json;

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

class RestdTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options;
    options.nodes = 2;
    options.gpu_nodes = 1;
    options.restd = true;  // as ./skiff up starts it, with its token key
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster).release();
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
    ASSERT_TRUE(cluster_->EnsureUser(kBob).ok());
    // The jobs' working directory: fresh, so no old slurm-N.out of another
    // user's is in the way.
    work_ = cluster_->dir() + "/work";
    ASSERT_EQ(RunShell("mkdir -p " + work_ + " && chmod 1777 " + work_).exit_code, 0);
    const RestdAddress restd = RestdAddressOf(*cluster_);
    ASSERT_GT(restd.port, 0) << ReadFile(cluster_->dir() + "/etc/restd.env");
    port_ = restd.port;
    socket_ = restd.socket;
    key_ = ReadFile(cluster_->dir() + "/etc/jwt_hs256.key");
    ASSERT_FALSE(key_.empty());
    ASSERT_TRUE(Eventually(30, [&] { return access(socket_.c_str(), F_OK) == 0; }))
        << ReadFile(cluster_->dir() + "/log/restd.out");
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
  }
  std::string Url(const std::string& path) {
    return absl::StrCat("http://127.0.0.1:", port_, path);
  }
  // `method` on `path` as `user`, a local peer on the Unix socket.
  HttpAnswer AsPeer(const std::string& user, const std::string& method, const std::string& path,
                    const std::string& body = "") {
    std::string args = absl::StrCat("-X ", method, " --unix-socket ", socket_, " ");
    if (!body.empty())
      absl::StrAppend(&args, "-H 'Content-Type: application/json' --data-binary @- ");
    absl::StrAppend(&args, "'http://localhost", path, "'");
    if (!body.empty()) args = absl::StrCat(args, " <<'EOF'\n", body, "\nEOF");
    return Curl(*cluster_, user, args);
  }
  // The same over TCP with `token`.
  HttpAnswer WithToken(const std::string& token, const std::string& method, const std::string& path,
                       const std::string& body = "") {
    std::string args = absl::StrCat("-X ", method, " -H 'X-SLURM-USER-TOKEN: ", token, "' ");
    if (!body.empty())
      absl::StrAppend(&args, "-H 'Content-Type: application/json' --data-binary @- ");
    absl::StrAppend(&args, "'", Url(path), "'");
    if (!body.empty()) args = absl::StrCat(args, " <<'EOF'\n", body, "\nEOF");
    return Curl(*cluster_, "", args);
  }
  std::string TokenOf(const std::string& user) {
    const std::string token = testing::TokenOf(*cluster_, user);
    EXPECT_NE(token, "") << "scontrol token as " << user;
    return token;
  }

  // What in `answer` breaks Slurm's document (of the path's version).
  static std::string Problems(const std::string& method, const std::string& path,
                              const HttpAnswer& answer) {
    return restd::AnswerProblems(method, path, answer.status, answer.body);
  }
  // A job of `user`'s that sleeps, and its id, once it runs.
  uint64_t RunningJob(const std::string& user, const std::string& options) {
    const CommandResult r = cluster_->RunAs(
        user, "cd " + work_ + " && sbatch --parsable " + options + " --wrap='sleep 300'");
    uint64_t id = strtoull(r.out.c_str(), nullptr, 10);
    EXPECT_GT(id, 0u) << r.out << r.err;
    EXPECT_TRUE(Eventually(60, [&] {
      return absl::StrContains(cluster_->Run(absl::StrCat("squeue -h -o %T -j ", id)).out,
                               "RUNNING");
    }));
    return id;
  }

  static LocalCluster* cluster_;
  static std::string key_;
  static int port_;
  static std::string socket_;
  static std::string work_;
};

LocalCluster* RestdTest::cluster_ = nullptr;
std::string RestdTest::key_;
int RestdTest::port_ = -1;
std::string RestdTest::socket_;
std::string RestdTest::work_;

TEST_F(RestdTest, ALocalUserPingsOnTheUnixSocketAsThemselves) {
  const HttpAnswer answer =
      Curl(*cluster_, kAlice, "--unix-socket " + socket_ + " http://localhost/slurm/v0.0.42/ping");
  ASSERT_EQ(answer.status, 200) << answer.body;
  const Json& ping = answer.body["pings"][0];
  EXPECT_EQ(ping["pinged"], "UP");
  EXPECT_EQ(ping["responding"], true);
  EXPECT_EQ(ping["primary"], true);
  EXPECT_TRUE(ping["latency"].is_number_integer());
  EXPECT_EQ(answer.body["meta"]["client"]["user"], kAlice);
  EXPECT_EQ(answer.body["meta"]["plugin"]["data_parser"], "data_parser/v0.0.42");
  EXPECT_TRUE(answer.body["errors"].empty());
}

TEST_F(RestdTest, ATokensUserPingsOverTcp) {
  const std::string token(absl::StripAsciiWhitespace(
      cluster_->RunAs(kAlice, "scontrol token").out.substr(strlen("SLURM_JWT="))));
  const HttpAnswer answer =
      Curl(*cluster_, "",
           "-H 'X-SLURM-USER-NAME: skiffalice' -H 'X-SLURM-USER-TOKEN: " + token + "' " +
               Url("/slurm/v0.0.42/ping"));
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.body["meta"]["client"]["user"], kAlice);  // root ran curl; the token decides
}

TEST_F(RestdTest, EveryReadPathAnswersInSlurmsShapes) {
  const uint64_t gpu_job = RunningJob(kAlice, "--gres=gpu:1 -J gpujob");
  ASSERT_EQ(cluster_
                ->Run("scontrol create reservation ReservationName=lab_maint "
                      "StartTime=now+1hour Duration=60 Nodes=ALL Users=root Flags=MAINT")
                .exit_code,
            0);
  const std::string node = cluster_->Run("sinfo -h -N -o %N | head -1").out;
  const std::string first_node(absl::StripAsciiWhitespace(node));
  const std::string partition(
      absl::StripAsciiWhitespace(cluster_->Run("sinfo -h -o %R | head -1").out));
  // Each version restd serves, against that version's document.
  for (const std::string version : {"v0.0.42", "v0.0.43", "v0.0.44"}) {
    const std::string v = "/slurm/" + version + "/";
    for (const std::string& path :
         {v + "ping", v + "diag", v + "jobs", absl::StrCat(v, "job/", gpu_job), v + "nodes/",
          v + "node/" + first_node, v + "partitions", v + "partition/" + partition,
          v + "reservations", v + "reservation/lab_maint", v + "shares"}) {
      const HttpAnswer answer = AsPeer(kAlice, "GET", path);
      EXPECT_EQ(answer.status, 200) << path << ": " << answer.body;
      EXPECT_EQ(Problems("GET", path, answer), "") << path;
      EXPECT_EQ(answer.body["meta"]["client"]["user"], kAlice) << path;
      EXPECT_EQ(answer.body["meta"]["plugin"]["data_parser"], "data_parser/" + version) << path;
      EXPECT_TRUE(answer.body["errors"].empty()) << path << ": " << answer.body;
    }
  }
  const std::string v = "/slurm/v0.0.42/";

  // The values are the cluster's: the running GPU job with its GPU.
  const HttpAnswer job = AsPeer(kAlice, "GET", absl::StrCat(v, "job/", gpu_job));
  ASSERT_EQ(job.status, 200);
  ASSERT_EQ(job.body["jobs"].size(), 1u);
  const Json& j = job.body["jobs"][0];
  EXPECT_EQ(j["job_id"], gpu_job);
  EXPECT_EQ(j["name"], "gpujob");
  EXPECT_EQ(j["user_name"], kAlice);
  EXPECT_EQ(j["job_state"], Json::array({"RUNNING"}));
  EXPECT_TRUE(absl::StrContains(j["tres_alloc_str"].get<std::string>(), "gres/gpu=1")) << j;
  ASSERT_EQ(j["gres_detail"].size(), 1u) << j;
  EXPECT_TRUE(absl::StartsWith(j["gres_detail"][0].get<std::string>(), "gpu:1(IDX:")) << j;
  EXPECT_EQ(j["job_resources"]["nodes"]["count"], 1);
  EXPECT_EQ(j["time_limit"]["set"].get<bool>() || j["time_limit"]["infinite"].get<bool>(), true);

  const HttpAnswer nodes = AsPeer(kAlice, "GET", v + "nodes");
  bool gpu_in_use = false;
  for (const Json& n : nodes.body["nodes"]) {
    if (absl::StrContains(n["gres_used"].get<std::string>(), "gpu:(null):1")) gpu_in_use = true;
  }
  EXPECT_TRUE(gpu_in_use) << nodes.body["nodes"];
  const HttpAnswer resv = AsPeer(kAlice, "GET", v + "reservation/lab_maint");
  EXPECT_EQ(resv.body["reservations"][0]["flags"][0], "MAINT");  // then SPEC_NODES,ALL_NODES
  EXPECT_EQ(resv.body["reservations"][0]["users"], "root");

  // Failures answer in the path's shape too, with Slurm's error array.
  for (const std::string& path : {v + "job/999999", v + "node/nosuchnode", v + "partition/nosuch",
                                  v + "reservation/nosuch"}) {
    const HttpAnswer missing = AsPeer(kAlice, "GET", path);
    EXPECT_EQ(missing.status, 404) << path;
    EXPECT_EQ(Problems("GET", path, missing), "") << path;
    EXPECT_FALSE(missing.body["errors"].empty()) << path;
  }
  EXPECT_EQ(AsPeer(kAlice, "PUT", v + "jobs").status, 405);
  cluster_->Run("scontrol delete ReservationName=lab_maint");
  cluster_->Run(absl::StrCat("scancel ", gpu_job));
}

TEST_F(RestdTest, ATokensUserSubmitsAGpuJobAndCancelsItButNotAnothersJob) {
  const std::string alice = TokenOf(kAlice);
  const std::string v = "/slurm/v0.0.42/";
  const std::string submit = absl::StrCat(
      R"({"job": {"name": "viarest", "script": "#!/bin/bash\nsleep 300\n",
      "current_working_directory": ")",
      work_, R"(", "environment": ["PATH=/usr/bin:/bin"],
      "tres_per_node": "gres/gpu:1", "time_limit": {"set": true, "number": 30},
      "x11": ["FIRST_NODE"]}})");
  const HttpAnswer submitted = WithToken(alice, "POST", v + "job/submit", submit);
  ASSERT_EQ(submitted.status, 200) << submitted.body;
  EXPECT_EQ(Problems("POST", v + "job/submit", submitted), "");
  const uint64_t id = submitted.body["job_id"].get<uint64_t>();
  EXPECT_EQ(submitted.body["step_id"], "batch");
  // A field Skiff cannot honour is a warning, not a failure.
  ASSERT_EQ(submitted.body["warnings"].size(), 1u) << submitted.body;
  EXPECT_TRUE(absl::StrContains(submitted.body["warnings"][0]["description"].get<std::string>(),
                                "job.x11"));
  ASSERT_TRUE(Eventually(60, [&] {
    const HttpAnswer job = WithToken(alice, "GET", absl::StrCat(v, "job/", id));
    return job.status == 200 && job.body["jobs"][0]["job_state"][0] == "RUNNING";
  }));
  const HttpAnswer job = WithToken(alice, "GET", absl::StrCat(v, "job/", id));
  ASSERT_EQ(job.status, 200);
  EXPECT_EQ(job.body["jobs"][0]["user_name"], kAlice);
  EXPECT_EQ(job.body["jobs"][0]["time_limit"]["number"], 30);
  EXPECT_EQ(job.body["jobs"][0]["tres_per_node"], "gres/gpu:1");
  EXPECT_EQ(job.body["jobs"][0]["current_working_directory"], work_);

  // Bob may see Alice's job, as squeue shows it, but not cancel it.
  const HttpAnswer refused = AsPeer(kBob, "DELETE", absl::StrCat(v, "job/", id));
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(Problems("DELETE", absl::StrCat(v, "job/", id), refused), "");
  EXPECT_FALSE(refused.body["errors"].empty());
  EXPECT_NE(refused.body["status"][0]["error"]["code"], 0);
  EXPECT_EQ(cluster_->Run(absl::StrCat("squeue -h -o %T -j ", id)).out, "RUNNING\n");

  const HttpAnswer cancelled = WithToken(alice, "DELETE", absl::StrCat(v, "job/", id));
  EXPECT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(Problems("DELETE", absl::StrCat(v, "job/", id), cancelled), "");
  EXPECT_EQ(cancelled.body["status"][0]["job_id"]["number"], id);
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Run(absl::StrCat("sacct -n -X -o State -j ", id)).out,
                             "CANCELLED");
  }));
}

TEST_F(RestdTest, JobsDeleteSignalsTheListedJobsOfTheCaller) {
  const uint64_t first = RunningJob(kBob, "");
  const std::string v = "/slurm/v0.0.42/";
  const HttpAnswer answer =
      AsPeer(kBob, "DELETE", v + "jobs", absl::StrCat(R"({"jobs": [")", first, R"("]})"));
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(Problems("DELETE", v + "jobs", answer), "");
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(cluster_->Run(absl::StrCat("sacct -n -X -o State -j ", first)).out,
                             "CANCELLED");
  }));
  EXPECT_EQ(AsPeer(kBob, "DELETE", v + "jobs", "{}").status, 400);
}

TEST_F(RestdTest, ABadJobDescriptionIsRefusedNamingTheField) {
  const std::string v = "/slurm/v0.0.42/";
  const HttpAnswer no_script =
      AsPeer(kAlice, "POST", v + "job/submit", R"({"job": {"name": "x"}})");
  EXPECT_EQ(no_script.status, 400);
  EXPECT_EQ(Problems("POST", v + "job/submit", no_script), "");
  EXPECT_TRUE(absl::StrContains(no_script.body["errors"][0]["description"].get<std::string>(),
                                "job.script"))
      << no_script.body;
  const HttpAnswer bad_tasks =
      AsPeer(kAlice, "POST", v + "job/submit",
             R"({"job": {"script": "#!/bin/sh\ntrue\n", "tasks": "many"}})");
  EXPECT_EQ(bad_tasks.status, 400);
  EXPECT_TRUE(absl::StrContains(bad_tasks.body["errors"][0]["description"].get<std::string>(),
                                "job.tasks"));
  const HttpAnswer not_json = AsPeer(kAlice, "POST", v + "job/submit", "{not json");
  EXPECT_EQ(not_json.status, 400);
  // ctld's own refusal comes through too: an unknown partition.
  const HttpAnswer bad_partition =
      AsPeer(kAlice, "POST", v + "job/submit",
             R"({"job": {"script": "#!/bin/sh\ntrue\n", "partition": "nosuch"}})");
  EXPECT_EQ(bad_partition.status, 400) << bad_partition.body;
  EXPECT_TRUE(absl::StrContains(bad_partition.body["errors"][0]["description"].get<std::string>(),
                                "partition"))
      << bad_partition.body;
}

TEST_F(RestdTest, AProxyWithRootsTokenActsForTheUserItNames) {
  // A reverse proxy holds root's (or SlurmUser's) token and names the user it
  // logged in; restd acts as that user, not as root.
  const std::string root = TokenOf("root");
  const std::string v = "/slurm/v0.0.42/";
  const uint64_t bobs = RunningJob(kBob, "");
  auto as_alice_via_proxy = [&](const std::string& method, const std::string& path) {
    return Curl(*cluster_, "",
                absl::StrCat("-X ", method, " -H 'X-SLURM-USER-TOKEN: ", root,
                             "' -H 'X-SLURM-USER-NAME: ", kAlice, "' '", Url(path), "'"));
  };
  const HttpAnswer ping = as_alice_via_proxy("GET", v + "ping");
  ASSERT_EQ(ping.status, 200) << ping.body;
  EXPECT_EQ(ping.body["meta"]["client"]["user"], kAlice);
  // As Alice, not root: Bob's job is not hers to cancel.
  EXPECT_EQ(as_alice_via_proxy("DELETE", absl::StrCat(v, "job/", bobs)).status, 403);
  EXPECT_EQ(cluster_->Run(absl::StrCat("squeue -h -o %T -j ", bobs)).out, "RUNNING\n");
  // A user's own token may not name someone else.
  const HttpAnswer refused =
      Curl(*cluster_, "",
           absl::StrCat("-H 'X-SLURM-USER-TOKEN: ", TokenOf(kAlice),
                        "' -H 'X-SLURM-USER-NAME: ", kBob, "' '", Url(v + "ping"), "'"));
  EXPECT_EQ(refused.status, 401);
  EXPECT_TRUE(absl::StrContains(refused.body["errors"][0]["description"].get<std::string>(),
                                "only root's and SlurmUser's tokens may act for another user"))
      << refused.body;
  cluster_->Run(absl::StrCat("scancel ", bobs));
}

TEST_F(RestdTest, NoTokenABadTokenOrAnUnknownPathIsRefused) {
  const HttpAnswer none = Curl(*cluster_, "", Url("/slurm/v0.0.42/ping"));
  EXPECT_EQ(none.status, 401);
  EXPECT_TRUE(absl::StrContains(none.body["errors"][0]["description"].get<std::string>(),
                                "authentication required"))
      << none.body;
  const std::string forged = MakeJwt("not the key", "root", time(nullptr), 600);
  const HttpAnswer bad =
      Curl(*cluster_, "", "-H 'X-SLURM-USER-TOKEN: " + forged + "' " + Url("/slurm/v0.0.42/ping"));
  EXPECT_EQ(bad.status, 401);
  EXPECT_TRUE(absl::StrContains(bad.body["errors"][0]["description"].get<std::string>(),
                                "invalid token: bad signature"))
      << bad.body;
  const HttpAnswer expired =
      Curl(*cluster_, "",
           "-H 'X-SLURM-USER-TOKEN: " + MakeJwt(key_, kAlice, time(nullptr) - 7200, 60) + "' " +
               Url("/slurm/v0.0.42/ping"));
  EXPECT_EQ(expired.status, 401);
  const HttpAnswer unknown =
      Curl(*cluster_, kAlice, "--unix-socket " + socket_ + " http://localhost/slurm/v0.0.42/nope");
  EXPECT_EQ(unknown.status, 404);
}

}  // namespace
}  // namespace skiff::testing
