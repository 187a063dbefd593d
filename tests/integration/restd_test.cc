// restd through the real daemons (issue 36, the first paths): slurmrestd's
// ping at /slurm/v0.0.42/ping, for a local user on the Unix socket (their
// uid, no token), for a token's user over TCP, and refused without a token or
// with a forged one, in Slurm's error array. Runs as root: it creates a test
// user, and restd (like slurmrestd under its service user) may have tokens
// made for local peers.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/auth/jwt.h"
#include "nlohmann/json.hpp"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

using Json = nlohmann::json;

constexpr char kAlice[] = "skiffalice";
constexpr char kKey[] = "restd test key: thirty-two bytes or more, please.";

// curl's answer: the body, then the status code on its own last line.
struct HttpAnswer {
  int status = 0;
  Json body;
};

HttpAnswer Curl(const LocalCluster& cluster, const std::string& user, const std::string& args) {
  const std::string command = absl::StrCat("curl -s -w '\\n%{http_code}' ", args);
  const CommandResult r = user.empty() ? cluster.Run(command) : cluster.RunAs(user, command);
  HttpAnswer answer;
  const size_t newline = r.out.rfind('\n');
  if (newline == std::string::npos) return answer;
  answer.status = atoi(r.out.c_str() + newline + 1);
  answer.body = Json::parse(r.out.substr(0, newline), nullptr, false);
  return answer;
}

class RestdTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options;
    options.nodes = 1;
    options.gpu_nodes = 0;
    options.files = {{"etc/jwt_hs256.key", kKey}};
    options.extra_config =
        "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=@DIR@/etc/jwt_hs256.key\n";
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster).release();
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
    port_ = FreePort();
    socket_ = cluster_->dir() + "/run/restd.sock";
    const std::string binary = RunfilesRoot() + "/restd/restd";
    const std::string conf = cluster_->conf_path();
    const std::string log = cluster_->dir() + "/log/restd.log";
    restd_ = fork();
    if (restd_ == 0) {
      setenv("SKIFF_CONF", conf.c_str(), 1);
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      const std::string tcp = absl::StrCat("127.0.0.1:", port_);
      const std::string unix_listen = "unix:" + socket_;
      execl(binary.c_str(), binary.c_str(), tcp.c_str(), unix_listen.c_str(), nullptr);
      _exit(127);
    }
    ASSERT_TRUE(Eventually(30, [&] { return access(socket_.c_str(), F_OK) == 0; }))
        << ReadFile(log);
  }
  static void TearDownTestSuite() {
    if (restd_ > 0) {
      kill(restd_, SIGTERM);
      waitpid(restd_, nullptr, 0);
    }
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

  static LocalCluster* cluster_;
  static pid_t restd_;
  static int port_;
  static std::string socket_;
};

LocalCluster* RestdTest::cluster_ = nullptr;
pid_t RestdTest::restd_ = -1;
int RestdTest::port_ = -1;
std::string RestdTest::socket_;

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
           "-H 'X-SLURM-USER-TOKEN: " + MakeJwt(kKey, kAlice, time(nullptr) - 7200, 60) + "' " +
               Url("/slurm/v0.0.42/ping"));
  EXPECT_EQ(expired.status, 401);
  const HttpAnswer unknown =
      Curl(*cluster_, kAlice, "--unix-socket " + socket_ + " http://localhost/slurm/v0.0.42/nope");
  EXPECT_EQ(unknown.status, 404);
}

}  // namespace
}  // namespace skiff::testing
