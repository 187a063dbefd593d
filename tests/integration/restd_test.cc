// restd's /slurm/ paths through the real daemons (issue 36): ping, diag,
// jobs, job/{id} (GET, POST, DELETE), jobs DELETE, job/submit, nodes,
// node/{name} (GET, POST), partitions, partition/{name}, reservations,
// reservation/{name} and shares,
// for a local user on the Unix socket (their uid, no token) and a token's user
// over TCP; every answer checked against Slurm's v0.0.42 OpenAPI document. A
// user is refused someone else's job; no token, a forged or an expired one is
// refused in Slurm's error array. restd is the one `./skiff up` starts, with
// the token key it writes. Runs as root: it creates test users.
#include <arpa/inet.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

// A raw connection to restd over TCP (from `source`, an address of the
// loopback) or its Unix socket; -1 when it failed. Used after fork too:
// no allocation.
int ConnectTcp(int port, const char* source = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}
int ConnectUnix(const char* path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  strncpy(to.sun_path, path, sizeof(to.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}
void SendText(int fd, const char* text) { (void)!send(fd, text, strlen(text), MSG_NOSIGNAL); }
// Whether `fd` has something to read (an answer, or its end) within `ms`.
bool Readable(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, ms) == 1;
}
// The description of the first error in a Slurm error array, or "".
std::string FirstError(const Json& body) {
  if (!body.is_object() || !body.contains("errors") || !body["errors"].is_array() ||
      body["errors"].empty() || !body["errors"][0].is_object()) {
    return "";
  }
  return body["errors"][0].value("description", "");
}
// What the server sent on `fd` until it closed (or `seconds` passed).
std::string ReadAnswer(int fd, int seconds) {
  std::string out;
  char buffer[4096];
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !Readable(fd, static_cast<int>(left.count()))) break;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

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

// The write paths portals and admin scripts use: POST job/{id} (scontrol
// update) for the job's owner, refused for another user; POST node/{name}
// (drain, resume) and DELETE node/{name} for operators only. Answers checked
// against Slurm's document.
TEST_F(RestdTest, OwnersUpdateTheirJobsAndOperatorsDrainNodes) {
  const std::string v = "/slurm/v0.0.42/";
  const CommandResult r = cluster_->RunAs(
      kAlice, "cd " + work_ + " && sbatch --parsable -H -t 5 -o /dev/null --wrap=true");
  const uint64_t id = strtoull(r.out.c_str(), nullptr, 10);
  ASSERT_GT(id, 0u) << r.err;
  const std::string path = absl::StrCat(v, "job/", id);
  auto field = [&](const std::string& key) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, key);
  };

  // Another user: refused, nothing changed.
  const HttpAnswer refused =
      AsPeer(kBob, "POST", path, R"({"time_limit": {"set": true, "number": 9}})");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(Problems("POST", path, refused), "");
  EXPECT_FALSE(refused.body["errors"].empty());
  EXPECT_EQ(field("TimeLimit"), "00:05:00");

  // The owner: a longer limit is an operator's, a shorter one and the rest are hers.
  const HttpAnswer updated = WithToken(
      TokenOf(kAlice), "POST", path,
      R"({"time_limit": {"set": true, "number": 3}, "comment": "via-rest", "name": "renamed",
          "begin_time": {"set": true, "number": 4102444800}, "hold": false, "x11": "ALL"})");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(Problems("POST", path, updated), "");
  EXPECT_EQ(updated.body["errors"].size(), 0u) << updated.body;
  ASSERT_EQ(updated.body["warnings"].size(), 1u) << updated.body;
  EXPECT_TRUE(
      absl::StrContains(updated.body["warnings"][0]["description"].get<std::string>(), "job.x11"));
  EXPECT_EQ(field("TimeLimit"), "00:03:00");
  EXPECT_EQ(field("Comment"), "via-rest");
  EXPECT_EQ(field("JobName"), "renamed");
  EXPECT_EQ(field("Reason"), "BeginTime") << "released, waiting for its begin time";
  const HttpAnswer task = WithToken(TokenOf(kAlice), "POST", path + "_1", R"({"comment": "x"})");
  EXPECT_EQ(task.status, 400) << task.body;
  EXPECT_TRUE(absl::StrContains(task.body.dump(), "instead of array task id")) << task.body;
  EXPECT_EQ(WithToken(TokenOf(kAlice), "POST", path, "{}").status, 400);

  // Nodes: an operator drains and resumes one; a user may not.
  const std::string node = v + "node/n2";
  const HttpAnswer user_drain =
      AsPeer(kAlice, "POST", node, R"({"state": ["DRAIN"], "reason": "mine"})");
  EXPECT_EQ(user_drain.status, 403) << user_drain.body;
  EXPECT_EQ(Problems("POST", node, user_drain), "");
  const std::string root = TokenOf("root");
  const HttpAnswer drained =
      WithToken(root, "POST", node, R"({"state": ["DRAIN"], "reason": "fan replaced"})");
  ASSERT_EQ(drained.status, 200) << drained.body;
  EXPECT_EQ(Problems("POST", node, drained), "");
  const std::string shown = cluster_->Run("scontrol show node n2").out;
  EXPECT_TRUE(absl::StrContains(shown, "DRAIN")) << shown;
  EXPECT_TRUE(absl::StartsWith(ScontrolField(shown, "Reason"), "fan replaced")) << shown;
  EXPECT_EQ(WithToken(root, "POST", node, R"({"state": ["FUTURE"]})").status, 400);
  const HttpAnswer resumed = WithToken(root, "POST", node, R"({"state": ["RESUME"]})");
  EXPECT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_FALSE(absl::StrContains(cluster_->Run("scontrol show node n2").out, "DRAIN"));
  // DELETE node/NAME: scontrol delete NodeName= (operators; joined nodes only,
  // join_test deletes one): a user is refused, an unknown name named.
  const HttpAnswer user_delete = AsPeer(kAlice, "DELETE", node);
  EXPECT_EQ(user_delete.status, 403) << user_delete.body;
  EXPECT_EQ(Problems("DELETE", node, user_delete), "");
  const HttpAnswer unknown = WithToken(root, "DELETE", v + "node/n9");
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  EXPECT_EQ(Problems("DELETE", v + "node/n9", unknown), "");
  EXPECT_TRUE(absl::StrContains(unknown.body.dump(), "Invalid node name specified"))
      << unknown.body;
  const HttpAnswer configured = WithToken(root, "DELETE", node);
  EXPECT_EQ(configured.status, 400) << configured.body;
  EXPECT_TRUE(absl::StrContains(configured.body.dump(), "defined in skiff.conf"))
      << configured.body;
  EXPECT_TRUE(absl::StrContains(cluster_->Run("sinfo -h -N -o %N").out, "n2"));
  cluster_->Run(absl::StrCat("scancel ", id));
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

// Item 9 of issue 47: a page on another site must not change anything as the
// user whose browser it runs in, even where a proxy adds the user's token
// (here the token stands for what such a proxy adds). A form can send only
// text/plain, urlencoded or multipart bodies, and its browser names the page's
// origin; restd refuses both before acting.
TEST_F(RestdTest, AStateChangingRequestFromAnotherSiteOrNotJsonIsRefused) {
  const std::string alice = TokenOf(kAlice);
  const std::string v = "/slurm/v0.0.42/";
  const std::string self = absl::StrCat("http://127.0.0.1:", port_);
  auto submit = [&](const std::string& name, const std::string& headers) {
    const std::string body = absl::StrCat(R"({"job": {"name": ")", name,
                                          R"(", "script": "#!/bin/bash\nsleep 300\n",
        "current_working_directory": ")",
                                          work_, R"(", "environment": ["PATH=/usr/bin:/bin"]}})");
    return Curl(
        *cluster_, "",
        absl::StrCat("-X POST -H 'X-SLURM-USER-TOKEN: ", alice, "' ", headers,
                     " --data-binary @- '", Url(v + "job/submit"), "' <<'EOF'\n", body, "\nEOF"));
  };
  auto submitted = [&](const std::string& name) {
    return cluster_->Run("squeue -h -o %j -u " + std::string(kAlice)).out.find(name) !=
           std::string::npos;
  };
  // A form's text/plain POST (what a cross-site form sends).
  const HttpAnswer plain = submit("csrfplain", "-H 'Content-Type: text/plain'");
  EXPECT_EQ(plain.status, 415) << plain.body;
  EXPECT_TRUE(absl::StrContains(FirstError(plain.body), "Content-Type")) << plain.body;
  // curl's default for --data: a form's urlencoded body.
  EXPECT_EQ(submit("csrfform", "").status, 415);
  // JSON, but from a page of another site: by its Origin, or its Sec-Fetch-Site.
  const HttpAnswer foreign =
      submit("csrforigin", "-H 'Content-Type: application/json' -H 'Origin: https://evil.example'");
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_TRUE(absl::StrContains(FirstError(foreign.body), "Origin")) << foreign.body;
  EXPECT_EQ(
      submit("csrffetch", "-H 'Content-Type: application/json' -H 'Sec-Fetch-Site: cross-site'")
          .status,
      403);
  // Another port of the same host is another origin.
  EXPECT_EQ(
      submit("csrfport", "-H 'Content-Type: application/json' -H 'Origin: http://127.0.0.1:1'")
          .status,
      403);
  for (const char* name : {"csrfplain", "csrfform", "csrforigin", "csrffetch", "csrfport"}) {
    EXPECT_FALSE(submitted(name)) << name << " ran";
  }
  // The dashboard's own page (same origin) and clients that send no Origin at all.
  const HttpAnswer same = submit("samesite",
                                 "-H 'Content-Type: application/json; charset=utf-8' "
                                 "-H 'Sec-Fetch-Site: same-origin' -H 'Origin: " +
                                     self + "'");
  ASSERT_EQ(same.status, 200) << same.body;
  const uint64_t id = same.body["job_id"].get<uint64_t>();
  // A DELETE has no body and needs no Content-Type, but not from another site.
  const std::string job = absl::StrCat(v, "job/", id);
  const HttpAnswer foreign_cancel =
      Curl(*cluster_, "",
           absl::StrCat("-X DELETE -H 'X-SLURM-USER-TOKEN: ", alice,
                        "' -H 'Origin: https://evil.example' '", Url(job), "'"));
  EXPECT_EQ(foreign_cancel.status, 403) << foreign_cancel.body;
  EXPECT_NE(cluster_->Run(absl::StrCat("squeue -h -o %T -j ", id)).out, "");
  EXPECT_FALSE(
      absl::StrContains(cluster_->Run(absl::StrCat("squeue -h -o %T -j ", id)).out, "CANCELLED"));
  const HttpAnswer cancel = Curl(*cluster_, "",
                                 absl::StrCat("-X DELETE -H 'X-SLURM-USER-TOKEN: ", alice,
                                              "' -H 'Origin: ", self, "' '", Url(job), "'"));
  EXPECT_EQ(cancel.status, 200) << cancel.body;
}

// Item 10 of issue 47: one peer's connections that never finish their head
// take only that peer's share. Alice (a process of hers, no token) holds
// connections over TCP, from several loopback addresses, and over the Unix
// socket, until restd refuses her more; Bob's requests, over TCP from the same
// address and over the socket, are still answered.
TEST_F(RestdTest, OnePeersUnfinishedConnectionsLockNoOneElseOut) {
  const std::string bob = TokenOf(kBob);
  struct passwd* entry = getpwnam(kAlice);
  ASSERT_NE(entry, nullptr);
  const uid_t uid = entry->pw_uid;
  const gid_t gid = entry->pw_gid;
  int ready[2];
  int done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  constexpr int kConnections = 100;  // per transport: more than any cap restd had
  const std::string socket_path = socket_;
  const int port = port_;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Alice's process: no allocation after fork.
    close(ready[0]);
    close(done[1]);
    if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) _exit(2);
    static const char* const kSources[] = {"127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"};
    int tcp[kConnections];
    int unix_fds[kConnections];
    for (int i = 0; i < kConnections; ++i) {
      tcp[i] = ConnectTcp(port, kSources[i % 4]);
      unix_fds[i] = ConnectUnix(socket_path.c_str());
      for (int fd : {tcp[i], unix_fds[i]}) {
        if (fd >= 0) SendText(fd, "GET /slurm/v0.0.42/ping HTTP/1.1\r\nHost: x\r\n");
      }
    }
    // restd accepts in order: once the last of each is answered (refused),
    // it has taken all the others in.
    if (!Readable(tcp[kConnections - 1], 30000) || !Readable(unix_fds[kConnections - 1], 30000)) {
      _exit(3);
    }
    (void)!write(ready[1], "r", 1);
    char byte;
    (void)!read(done[0], &byte, 1);
    _exit(0);
  }
  close(ready[1]);
  close(done[0]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "Alice's connections were never refused";
  const auto started = std::chrono::steady_clock::now();
  const HttpAnswer tcp =
      Curl(*cluster_, kBob,
           absl::StrCat("-H 'X-SLURM-USER-TOKEN: ", bob, "' ", Url("/slurm/v0.0.42/ping")));
  const HttpAnswer unix =
      Curl(*cluster_, kBob, "--unix-socket " + socket_ + " http://localhost/slurm/v0.0.42/ping");
  const auto took = std::chrono::steady_clock::now() - started;
  (void)!write(done[1], "d", 1);
  close(done[1]);
  close(ready[0]);
  int status = 0;
  waitpid(child, &status, 0);
  // A refusal has no "meta": read it without assuming one.
  const Json::json_pointer user("/meta/client/user");
  EXPECT_EQ(tcp.status, 200) << tcp.body;
  EXPECT_EQ(tcp.body.is_object() ? tcp.body.value(user, "") : "", kBob);
  EXPECT_EQ(unix.status, 200) << unix.body;
  EXPECT_EQ(unix.body.is_object() ? unix.body.value(user, "") : "", kBob);
  EXPECT_LT(took, std::chrono::seconds(5));
}

// Item 10: the request head has one deadline in all, not one per read: a
// client that sends a header line now and then is answered 408 and let go.
TEST_F(RestdTest, AHeadTrickledInIsCutOffAtItsDeadline) {
  const int fd = ConnectTcp(port_);
  ASSERT_GE(fd, 0);
  SendText(fd, "GET /slurm/v0.0.42/ping HTTP/1.1\r\n");
  const auto started = std::chrono::steady_clock::now();
  bool answered = false;
  while (std::chrono::steady_clock::now() - started < std::chrono::seconds(30)) {
    if (Readable(fd, 500)) {
      answered = true;
      break;
    }
    SendText(fd, "X-Trickle: 1\r\n");
  }
  const std::string answer = answered ? ReadAnswer(fd, 5) : "";
  close(fd);
  ASSERT_TRUE(answered) << "still reading a 30 s head";
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 408")) << answer;
  EXPECT_TRUE(absl::StrContains(answer, "\"errors\"")) << answer;
}

// Item 10: a request without a credential is refused from its head, before
// its body is read; a body for a path that needs none is kept small.
TEST_F(RestdTest, ABodyWithoutATokenIsRefusedBeforeItIsRead) {
  const int fd = ConnectTcp(port_);
  ASSERT_GE(fd, 0);
  SendText(fd,
           "POST /slurm/v0.0.42/job/submit HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           "Content-Type: application/json\r\nContent-Length: 8000000\r\n\r\n");
  // No body is sent: an answer can only come from the head.
  const std::string answer = ReadAnswer(fd, 5);
  close(fd);
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 401")) << answer;
  EXPECT_TRUE(absl::StrContains(answer, "authentication required")) << answer;

  // A token is checked with ctld before a large body is read: anyone can send
  // a header that looks like one.
  const int forged = ConnectTcp(port_);
  ASSERT_GE(forged, 0);
  SendText(forged, absl::StrCat("POST /slurm/v0.0.42/job/submit HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Content-Type: application/json\r\nX-SLURM-USER-TOKEN: ",
                                MakeJwt("not the key", kAlice, time(nullptr), 600),
                                "\r\nContent-Length: 8000000\r\n\r\n")
                       .c_str());
  const std::string refused = ReadAnswer(forged, 5);
  close(forged);
  EXPECT_TRUE(absl::StartsWith(refused, "HTTP/1.1 401")) << refused;

  const int page = ConnectTcp(port_);
  ASSERT_GE(page, 0);
  SendText(page, "GET /dashboard/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n");
  const std::string large = ReadAnswer(page, 5);
  close(page);
  EXPECT_TRUE(absl::StartsWith(large, "HTTP/1.1 413")) << large;
}

// Item 11 of issue 47: an answer for one user is never kept by a cache for
// the next, and says which request headers chose it.
TEST_F(RestdTest, PerUserAnswersAreNotStoredByCaches) {
  const std::string alice = TokenOf(kAlice);
  for (const std::string path : {"/slurm/v0.0.42/ping", "/slurm/v0.0.42/jobs",
                                 "/dashboard/session.json", "/slurm/v0.0.42/nosuch"}) {
    const CommandResult r = cluster_->Run(absl::StrCat(
        "curl -s -o /dev/null -D - -H 'X-SLURM-USER-TOKEN: ", alice, "' '", Url(path), "'"));
    const std::string head = absl::AsciiStrToLower(r.out);
    EXPECT_TRUE(absl::StrContains(head, "cache-control: no-store")) << path << ":\n" << r.out;
    const size_t vary_at = head.find("\nvary: ");
    ASSERT_NE(vary_at, std::string::npos) << path << ":\n" << r.out;
    const std::string vary = head.substr(vary_at, head.find('\n', vary_at + 1) - vary_at);
    for (const char* header :
         {"authorization", "x-slurm-user-token", "x-slurm-user-name", "cookie"}) {
      EXPECT_TRUE(absl::StrContains(vary, header)) << path << " varies by " << header << ":\n"
                                                   << r.out;
    }
  }
  // Refusals too: a 401 must not be cached for the next user either.
  const CommandResult refused =
      cluster_->Run("curl -s -o /dev/null -D - " + Url("/slurm/v0.0.42/ping"));
  EXPECT_TRUE(absl::StrContains(absl::AsciiStrToLower(refused.out), "cache-control: no-store"))
      << refused.out;
}

}  // namespace
}  // namespace skiff::testing
