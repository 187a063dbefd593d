// CallUnary against a real gRPC server (gRPC's C++ library, in this process):
// the server must see an ordinary call, and the client must read back what it
// answered, errors and a reply far beyond HTTP/2's initial window included.
#include "common/rpc/http2/unary_call.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "common/free_port.h"
#include "gtest/gtest.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff::http2 {
namespace {

using namespace std::chrono_literals;

// ExplainJob answers by job id: 1 echoes the call's metadata, 2 fails with a
// message gRPC must escape, 3 answers 5 MB, 4 waits until released.
class FakeCtld final : public v1::Ctld::Service {
 public:
  grpc::Status ExplainJob(grpc::ServerContext* context, const v1::ExplainJobRequest* request,
                          v1::ExplainJobReply* reply) override {
    switch (request->job_id()) {
      case 1: {
        const auto& metadata = context->client_metadata();
        auto credential = metadata.find("x-skiff-munge");
        std::string text = credential == metadata.end()
                               ? "no credential"
                               : std::string(credential->second.data(), credential->second.size());
        // gRPC turns grpc-timeout into the call's deadline.
        const bool has_deadline = context->deadline() < std::chrono::system_clock::now() + 1h;
        reply->set_text(text + (has_deadline ? " with a deadline" : " without a deadline"));
        return grpc::Status::OK;
      }
      case 2:
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "Invalid job id specified\n100% caf\xC3\xA9");
      case 3:
        reply->set_text(std::string(5 << 20, 'j'));
        return grpc::Status::OK;
      case 4:
        release_.WaitForNotification();
        return grpc::Status::OK;
      default:
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job");
    }
  }
  void Release() { release_.Notify(); }

 private:
  absl::Notification release_;
};

class UnaryCallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    target_ = "127.0.0.1:" + std::to_string(port_);
  }
  void TearDown() override {
    service_.Release();
    server_->Shutdown();
  }

  UnaryCallResult Explain(uint64_t job_id, std::chrono::milliseconds timeout = 10s,
                          size_t max_reply = 64 << 20) {
    v1::ExplainJobRequest request;
    request.set_job_id(job_id);
    UnaryRequest call{target_,
                      "/skiff.v1.Ctld/ExplainJob",
                      {{"x-skiff-munge", "MUNGE:cred"}},
                      request.SerializeAsString()};
    return CallUnary(target_, call, 2s, timeout, max_reply);
  }

  static std::string Text(const UnaryCallResult& result) {
    v1::ExplainJobReply reply;
    EXPECT_TRUE(reply.ParseFromString(result.reply));
    return reply.text();
  }

  FakeCtld service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string target_;
};

TEST_F(UnaryCallTest, TheServerSeesMetadataAndADeadline) {
  UnaryCallResult result = Explain(1);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(Text(result), "MUNGE:cred with a deadline");
}

TEST_F(UnaryCallTest, ErrorsKeepTheirCodeAndExactMessage) {
  UnaryCallResult result = Explain(2);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status.message(), "Invalid job id specified\n100% caf\xC3\xA9");
  EXPECT_FALSE(result.never_sent);
  EXPECT_EQ(Explain(99).status.code(), absl::StatusCode::kNotFound);
}

TEST_F(UnaryCallTest, ReadsAReplyFarBeyondTheInitialWindow) {
  UnaryCallResult result = Explain(3);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(Text(result), std::string(5 << 20, 'j'));
  EXPECT_EQ(Explain(3, 10s, 1 << 20).status.code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(UnaryCallTest, ASlowServerRunsOutTheTimeoutAfterTheCallWasSent) {
  UnaryCallResult result = Explain(4, 300ms);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kDeadlineExceeded) << result.status;
  EXPECT_FALSE(result.never_sent);  // the server may have acted on it
}

TEST_F(UnaryCallTest, NoServerMeansNeverSent) {
  const int free_port = FreeLoopbackPort();  // nothing listens there
  ASSERT_GT(free_port, 0);
  UnaryRequest call{"x", "/skiff.v1.Ctld/Ping", {}, ""};
  UnaryCallResult result =
      CallUnary("127.0.0.1:" + std::to_string(free_port), call, 2s, 2s, 1 << 20);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(result.never_sent);

  UnaryCallResult unresolvable = CallUnary("no-such-host.invalid:1", call, 2s, 2s, 1 << 20);
  EXPECT_TRUE(unresolvable.never_sent);
  UnaryCallResult too_large =
      CallUnary(target_, UnaryRequest{target_, "/skiff.v1.Ctld/Ping", {}, std::string(70000, 'x')},
                2s, 2s, 1 << 20);
  EXPECT_TRUE(too_large.never_sent);
}

}  // namespace
}  // namespace skiff::http2
