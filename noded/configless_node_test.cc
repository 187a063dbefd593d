// A configless node's fetch at start and on reconfigure, against fake
// controllers on loopback: a port that refuses, a standby, one that serves.
#include "noded/configless_node.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/config/configless.h"
#include "common/free_port.h"
#include "common/rpc/standby.h"
#include "proto/ctld.grpc.pb.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {
namespace {

class FakeAuthenticator : public Authenticator {
 public:
  absl::StatusOr<std::string> CreateCredential() override { return std::string("cred"); }
  absl::StatusOr<Identity> VerifyCredential(const std::string&) override { return Identity{}; }
};

// A controller on 127.0.0.1: a standby, or one serving skiff.conf `text`.
class Controller final : public v1::Ctld::Service {
 public:
  Controller(bool standby, std::string text) : standby_(standby), text_(std::move(text)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~Controller() override { server_->Shutdown(std::chrono::system_clock::now()); }
  int port() const { return port_; }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }

  grpc::Status GetConfigFiles(grpc::ServerContext*, const v1::GetConfigFilesRequest*,
                              v1::GetConfigFilesReply* reply) override {
    if (standby_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat(kStandbyAnswer, "standby stands by; head serves"));
    }
    v1::ConfigFileText* file = reply->add_files();
    file->set_name("skiff.conf");
    file->set_text(text_);
    return grpc::Status::OK;
  }

 private:
  const bool standby_;
  const std::string text_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(dir);
  return dir;
}

// skiff.conf naming `hosts` as SlurmctldHost lines, all at `port` (a standby
// over etcd: the lines after the first count with EtcdEndpoints alone).
std::string ConfNaming(const std::vector<std::string>& hosts, int port) {
  std::string text = "ClusterName=test\n";
  for (const std::string& host : hosts) absl::StrAppend(&text, "SlurmctldHost=", host, "\n");
  absl::StrAppend(&text, "EtcdEndpoints=127.0.0.1:2379\nSlurmctldPort=", port, "\n");
  return text;
}

void WriteCache(const std::string& dir, const std::string& skiff_conf) {
  ConfigFileSet set;
  set.files.push_back({"skiff.conf", skiff_conf});
  set.hash = ConfigHash(set.files);
  ASSERT_TRUE(WriteConfigCache(dir, set).ok());
}

TEST(CachedControllerTargets, TheCachedSkiffConfsControllersOrNone) {
  const std::string cache = FreshDir("cached_targets");
  EXPECT_TRUE(CachedControllerTargets(cache).empty());
  WriteCache(cache, ConfNaming({"head(10.0.0.1)", "standby(10.0.0.2)"}, 7000));
  EXPECT_EQ(CachedControllerTargets(cache),
            (std::vector<std::string>{"10.0.0.1:7000", "10.0.0.2:7000"}));
}

TEST(PrepareConfiglessConfig, PassesOverARefusedServerToTheNextOne) {
  RefusingLoopbackPort refused;
  Controller serving(false, "ClusterName=fetched\n");
  const std::string cache = FreshDir("refused_then_serving");
  FakeAuthenticator auth;
  absl::StatusOr<ConfiglessStart> start =
      PrepareConfiglessConfig({refused.target(), serving.target()}, cache, auth, 10);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->served_by, serving.target());
  EXPECT_EQ(start->note,
            absl::StrCat("configless: fetched 1 config file(s) from ", serving.target(), " into ",
                         cache, " (hash ", start->hash, ")"));
  absl::StatusOr<ConfigFileSet> cached = ReadConfigCache(cache);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_EQ(cached->files.at(0).text, "ClusterName=fetched\n");
}

// The node's --conf-server names only the head, which is down; the copy it
// fetched before names the standby too, which now serves.
TEST(PrepareConfiglessConfig, FindsTheControllerTheCachedCopyNames) {
  RefusingLoopbackPort head;
  Controller serving(false, "ClusterName=from-standby\n");
  const std::string cache = FreshDir("cached_controllers");
  WriteCache(cache, ConfNaming({"head(127.0.0.3)", "standby(127.0.0.1)"}, serving.port()));
  FakeAuthenticator auth;
  absl::StatusOr<ConfiglessStart> start = PrepareConfiglessConfig({head.target()}, cache, auth, 10);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_EQ(start->served_by, serving.target());
  EXPECT_EQ(ReadConfigCache(cache)->files.at(0).text, "ClusterName=from-standby\n");
}

TEST(PrepareConfiglessConfig, NoneServingAndNoCacheNamesEveryServer) {
  RefusingLoopbackPort first;
  Controller standby(true, "");
  const std::string cache = FreshDir("none_serving");
  FakeAuthenticator auth;
  absl::StatusOr<ConfiglessStart> start =
      PrepareConfiglessConfig({first.target(), standby.target()}, cache, auth, 1);
  ASSERT_FALSE(start.ok());
  const std::string message(start.status().message());
  EXPECT_NE(message.find(absl::StrCat("configless: no configuration: no skiff controller at ",
                                      first.target(), ", ", standby.target())),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("standby controller: standby stands by"), std::string::npos) << message;
  EXPECT_NE(message.find("and no cached copy to start from"), std::string::npos) << message;
}

TEST(ConfigFollower, FetchesFromTheNextControllerWhenTheFirstStandsBy) {
  Controller standby(true, "");
  Controller serving(false, "ClusterName=reconfigured\n");
  const std::string cache = FreshDir("follower");
  WriteCache(cache, "ClusterName=before\n");
  FakeAuthenticator auth;
  spdlog::logger logger("configless_node_test");  // no sinks: quiet
  ConfigFollower follower({standby.target(), serving.target()}, cache, "old", auth, logger);
  int changes = 0;
  follower.SetChangedListener([&changes] { ++changes; });
  follower.OnAnnouncedHash("new");
  EXPECT_EQ(changes, 1);
  absl::StatusOr<ConfigFileSet> cached = ReadConfigCache(cache);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_EQ(cached->files.at(0).text, "ClusterName=reconfigured\n");
  EXPECT_EQ(follower.hash(), cached->hash);
}

}  // namespace
}  // namespace skiff::noded
