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

#include <memory>
#include <string>

namespace skiff {

// `target` is "host:port" or "unix:/path". No TLS: munge authenticates callers.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CHANNEL_H_
