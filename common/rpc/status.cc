#include "common/rpc/status.h"

#include <string>

#include "common/truncate.h"

namespace skiff {

// absl and gRPC share the canonical code numbering.
grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      TruncateMessage(status.message(), kMaxStatusMessageBytes));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace skiff
