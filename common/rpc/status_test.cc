#include "common/rpc/status.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff {
namespace {

TEST(ToGrpcStatus, KeepsCodeAndMessage) {
  const grpc::Status s = ToGrpcStatus(absl::NotFoundError("Invalid job id specified"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "Invalid job id specified");
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

// gRPC's metadata limit is 8 KiB; no message may reach it.
TEST(ToGrpcStatus, AMessageOfMegabytesIsCutWellUnderTheMetadataLimit) {
  const std::string huge(4 << 20, 'x');
  const grpc::Status s = ToGrpcStatus(absl::InvalidArgumentError(huge));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LE(s.error_message().size(), kMaxStatusMessageBytes + 64);
  EXPECT_NE(s.error_message().find(" ... (truncated, 4194304 bytes in all)"), std::string::npos);
}

}  // namespace
}  // namespace skiff
