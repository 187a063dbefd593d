// FetchConfigFromControllers against fake controllers on loopback: a port that
// refuses connections, a standby (standby.h's answer), a controller with
// configless off, and one that serves; each way a call is made (direct, and
// through gRPC's channel with SKIFF_DIRECT_CALLS=0).
#include "common/rpc/config_fetch.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/auth/authenticator.h"
#include "common/free_port.h"
#include "common/rpc/standby.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff {
namespace {

class FakeAuthenticator : public Authenticator {
 public:
  absl::StatusOr<std::string> CreateCredential() override { return std::string("cred"); }
  absl::StatusOr<Identity> VerifyCredential(const std::string&) override { return Identity{}; }
};

enum class Role { kServing, kStandby, kConfiglessOff };

class FakeCtld final : public v1::Ctld::Service {
 public:
  explicit FakeCtld(Role role) : role_(role) {}
  grpc::Status GetConfigFiles(grpc::ServerContext*, const v1::GetConfigFilesRequest*,
                              v1::GetConfigFilesReply* reply) override {
    switch (role_) {
      case Role::kStandby:
        return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            absl::StrCat(kStandbyAnswer, "standby stands by; head serves"));
      case Role::kConfiglessOff:
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "configless is not enabled");
      case Role::kServing:
        break;
    }
    v1::ConfigFileText* file = reply->add_files();
    file->set_name("skiff.conf");
    file->set_text("SlurmctldHost=head\n");
    return grpc::Status::OK;
  }

 private:
  const Role role_;
};

// A controller on 127.0.0.1, at target().
class Controller {
 public:
  explicit Controller(Role role) : service_(role) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~Controller() { server_->Shutdown(std::chrono::system_clock::now()); }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  FakeCtld service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// Each test runs with direct calls and through gRPC's channel.
class FetchConfigFromControllersTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      unsetenv("SKIFF_DIRECT_CALLS");
    } else {
      setenv("SKIFF_DIRECT_CALLS", "0", 1);
    }
  }
  void TearDown() override { unsetenv("SKIFF_DIRECT_CALLS"); }
  FakeAuthenticator auth_;
};

TEST_P(FetchConfigFromControllersTest, PassesOverARefusedAddressToTheServingController) {
  RefusingLoopbackPort refused;
  Controller serving(Role::kServing);
  absl::StatusOr<FetchedConfig> fetched =
      FetchConfigFromControllers({refused.target(), serving.target()}, auth_, 10);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->target, serving.target());
  ASSERT_EQ(fetched->files.files.size(), 1u);
  EXPECT_EQ(fetched->files.files[0].name, "skiff.conf");
  EXPECT_EQ(fetched->files.hash, ConfigHash(fetched->files.files));
}

TEST_P(FetchConfigFromControllersTest, PassesOverAStandbyToTheServingController) {
  Controller standby(Role::kStandby);
  Controller serving(Role::kServing);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<FetchedConfig> fetched =
      FetchConfigFromControllers({standby.target(), serving.target()}, auth_, 10);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(fetched->target, serving.target());
  // At once: the standby's answer is not waited out.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_P(FetchConfigFromControllersTest, TheServingControllersRefusalIsTheAnswer) {
  RefusingLoopbackPort refused;
  Controller off(Role::kConfiglessOff);
  absl::StatusOr<FetchedConfig> fetched =
      FetchConfigFromControllers({refused.target(), off.target()}, auth_, 10);
  ASSERT_FALSE(fetched.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(fetched.status())) << fetched.status();
  EXPECT_EQ(fetched.status().message(),
            absl::StrCat("configuration from ", off.target(), ": configless is not enabled"));
}

TEST_P(FetchConfigFromControllersTest, NoneServingNamesEveryAddressAndItsAnswer) {
  RefusingLoopbackPort refused;
  Controller standby(Role::kStandby);
  absl::StatusOr<FetchedConfig> fetched =
      FetchConfigFromControllers({refused.target(), standby.target()}, auth_, 1);
  ASSERT_FALSE(fetched.ok());
  EXPECT_TRUE(absl::IsUnavailable(fetched.status())) << fetched.status();
  EXPECT_EQ(
      fetched.status().message(),
      absl::StrCat("no skiff controller at ", refused.target(), ", ", standby.target(),
                   " serves its configuration (cannot reach the skiff controller at ",
                   refused.target(), " for its configuration; configuration from ",
                   standby.target(), ": standby controller: standby stands by; head serves)"));
}

TEST_P(FetchConfigFromControllersTest, OneAddressKeepsItsOwnErrors) {
  RefusingLoopbackPort refused;
  absl::StatusOr<FetchedConfig> unreachable =
      FetchConfigFromControllers({refused.target()}, auth_, 1);
  EXPECT_TRUE(absl::IsUnavailable(unreachable.status())) << unreachable.status();
  EXPECT_EQ(unreachable.status().message(),
            absl::StrCat("cannot reach the skiff controller at ", refused.target(),
                         " for its configuration"));
  // A standby alone says what it is rather than "cannot reach".
  Controller standby(Role::kStandby);
  absl::StatusOr<FetchedConfig> standing_by =
      FetchConfigFromControllers({standby.target()}, auth_, 10);
  EXPECT_TRUE(absl::IsUnavailable(standing_by.status())) << standing_by.status();
  EXPECT_EQ(standing_by.status().message(),
            absl::StrCat("configuration from ", standby.target(),
                         ": standby controller: standby stands by; head serves"));
}

INSTANTIATE_TEST_SUITE_P(DirectAndChannel, FetchConfigFromControllersTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Direct" : "Channel";
                         });

}  // namespace
}  // namespace skiff
