// Conversions between absl::Status (libraries) and grpc::Status (the wire), in
// one place so that codes and messages survive the trip unchanged.
#ifndef SKIFF_COMMON_RPC_STATUS_H_
#define SKIFF_COMMON_RPC_STATUS_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace skiff {

// A status message travels in metadata, which gRPC caps (8 KiB by default; a
// longer one reaches the caller as "received initial metadata size exceeds
// limit"). Messages longer than this are cut (common/truncate.h); the places
// that pass on a script's words cut them shorter, to kMaxMessageBytes.
inline constexpr size_t kMaxStatusMessageBytes = 4096;

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_STATUS_H_
