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
//
// The process's first channel initialises gRPC and holds it until the process
// ends: the threads gRPC starts then block every signal (so that a signal
// meant for a command, such as the USR1 srun forwards to its tasks, is taken
// by the command's own threads, never by one of gRPC's, where USR1's default
// action would end it), and a command's last channel going away does not shut
// gRPC down (joining its threads: ~1 ms, a tenth of an `srun true` step). A
// command whose calls all go direct (client/ctld_client.h) never starts gRPC.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target);
// The same over `credentials` (etcd over TLS: ctld/replication/etcd_client.h).
std::shared_ptr<grpc::Channel> MakeChannel(
    const std::string& target, const std::shared_ptr<grpc::ChannelCredentials>& credentials);

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CHANNEL_H_
