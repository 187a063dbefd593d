// gRPC channels between Skiff's processes.
//
// gRPC's default reconnect backoff grows to two minutes; after a daemon restarts
// (ctld killed and brought back, say), its peers would wait that long. Skiff's
// peers are few and local, so reconnect attempts are capped at two seconds
// (the first retry comes after 100 ms), and each attempt may take two seconds
// to complete its handshake on a loaded machine.
#ifndef SKIFF_COMMON_RPC_CHANNEL_H_
#define SKIFF_COMMON_RPC_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

namespace skiff {

// The largest reply a client accepts (gRPC's default is 4 MB).
inline constexpr int kMaxReplyBytes = 256 << 20;

// The largest request a daemon accepts: room for the largest batch script
// SchedulerParameters=max_script_size allows plus its environment and fields.
inline int MaxRequestBytes(int64_t max_script_size) {
  return static_cast<int>(std::min<int64_t>(max_script_size + (16 << 20), 1 << 30));
}

// `target` is "host:port" or "unix:/path". No TLS: munge authenticates callers.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CHANNEL_H_
