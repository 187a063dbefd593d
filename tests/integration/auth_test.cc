// Every ctld RPC needs a valid munge credential; ctld takes the caller's uid from it.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/config_loader.h"
#include "common/rpc/auth_metadata.h"
#include "proto/ctld.grpc.pb.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalCluster::Options options;
    options.nodes = 1;
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    auto config = LoadConfig(cluster_->conf_path());
    ASSERT_TRUE(config.ok()) << config.status();
    munge_socket_ = config->skiff.auth_socket;
    stub_ = v1::Ctld::NewStub(
        grpc::CreateChannel(absl::StrCat(config->skiff.ctld_addr, ":", config->skiff.ctld_port),
                            grpc::InsecureChannelCredentials()));
  }

  grpc::Status Ping(grpc::ClientContext* context, v1::PingReply* reply) {
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub_->Ping(context, v1::PingRequest(), reply);
  }

  std::unique_ptr<LocalCluster> cluster_;
  std::string munge_socket_;
  std::unique_ptr<v1::Ctld::Stub> stub_;
};

TEST_F(AuthTest, RequestWithoutCredentialIsRefused) {
  grpc::ClientContext context;
  v1::PingReply reply;
  grpc::Status status = Ping(&context, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(status.error_message().find("no munge credential"), std::string::npos);
}

TEST_F(AuthTest, ForgedCredentialIsRefused) {
  grpc::ClientContext context;
  context.AddMetadata(kCredentialMetadataKey, "MUNGE:AAAAforged:AAAA:");
  v1::PingReply reply;
  grpc::Status status = Ping(&context, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(status.error_message().find("invalid munge credential"), std::string::npos);
  // ctld logs the refusal with the peer's address (issue 10, item 13), and a
  // flood of them is rate-limited to one line per peer per 10 s.
  for (int i = 0; i < 20; ++i) {
    grpc::ClientContext again;
    again.AddMetadata(kCredentialMetadataKey, "MUNGE:AAAAforged:AAAA:");
    v1::PingReply ignored;
    Ping(&again, &ignored);
  }
  const std::string log = ReadFile(cluster_->dir() + "/log/ctld.log");
  size_t lines = 0;
  for (size_t at = log.find("refused a request from 127.0.0.1: invalid munge credential");
       at != std::string::npos;
       at = log.find("refused a request from 127.0.0.1: invalid munge credential", at + 1)) {
    ++lines;
  }
  EXPECT_GE(lines, 1u) << log;
  EXPECT_LE(lines, 3u) << "not rate-limited:\n" << log;
}

TEST_F(AuthTest, ReplayedCredentialIsRefused) {
  MungeAuthenticator auth(munge_socket_);
  absl::StatusOr<std::string> cred = auth.CreateCredential();
  ASSERT_TRUE(cred.ok()) << cred.status();
  {
    grpc::ClientContext context;
    context.AddMetadata(kCredentialMetadataKey, *cred);
    v1::PingReply reply;
    ASSERT_TRUE(Ping(&context, &reply).ok());
  }
  grpc::ClientContext context;
  context.AddMetadata(kCredentialMetadataKey, *cred);
  v1::PingReply reply;
  EXPECT_EQ(Ping(&context, &reply).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthTest, ValidCredentialIsAcceptedAndIdentifiesCaller) {
  MungeAuthenticator auth(munge_socket_);
  grpc::ClientContext context;
  ASSERT_TRUE(AttachCredential(auth, &context).ok());
  v1::PingReply reply;
  grpc::Status status = Ping(&context, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.caller_uid(), getuid());
  EXPECT_EQ(reply.caller_gid(), getgid());
  EXPECT_EQ(reply.cluster_name(), "skiff-local");
}

}  // namespace
}  // namespace skiff::testing
