// Conversions between absl::Status (libraries) and grpc::Status (the wire), in
// one place so that codes and messages survive the trip unchanged.
#ifndef SKIFF_COMMON_RPC_STATUS_H_
#define SKIFF_COMMON_RPC_STATUS_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace skiff {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_STATUS_H_
