// GuardedListener: accepts a daemon's TCP connections on its own thread, under
// ConnectionGuard's limits (connection_guard.h), and hands each admitted one to
// a gRPC server (grpc::AddInsecureChannelFromFd).
//
// Why not gRPC's own listener: gRPC 1.51 (Debian 12) stops accepting for good
// when accept4 fails with EMFILE, and has no per-peer or total limits; an idle
// flood of connections without credentials took ctld and noded off the network.
// Here a descriptor shortage refuses one connection (a spare descriptor is freed
// to accept and close it) and accepting goes on; idle connections without a
// valid credential are shut down after a few seconds; one user cannot hold more
// than their share of authenticated connections; nodes and admins, whose first
// request authenticates their connection as privileged, are never evicted.
//
// gRPC names a connection handed over this way "fd:N"; AuthenticateCall reports
// each valid credential's peer here (Authenticated) and logs refusals with the
// real address (Describe) through the hooks in auth_metadata.h.
//
// The same listener guards a server with credentials of its own (ctld's join
// port, TLS): StartExternal hands its connections to the server's external
// connection acceptor instead. Its calls carry no credential the guard sees,
// so every connection there counts as unauthenticated: capped, in all and per
// address, and shut down `unauthenticated_ms` after accept.
//
// Threads: Start() or StartExternal() runs one listener thread (accept, plus a
// sweep every 250 ms that forgets closed connections and shuts down expired
// ones). Authenticated() and Describe() are called from gRPC's threads. One
// mutex guards the guard.
#ifndef SKIFF_COMMON_RPC_GUARDED_SERVER_H_
#define SKIFF_COMMON_RPC_GUARDED_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/rpc/connection_guard.h"
#include "spdlog/spdlog.h"

namespace skiff {

// Raises the soft RLIMIT_NOFILE to the hard one and returns limits that leave
// half the descriptors to everything but client connections (at most 8192 of
// them, an eighth of those for one unprivileged user). For a daemon's main,
// before any thread starts.
ConnectionLimits DaemonConnectionLimits();

class GuardedListener {
 public:
  // Binds and listens on host:port (port 0: any free one). The logger must
  // outlive the listener.
  static absl::StatusOr<std::unique_ptr<GuardedListener>> Listen(const std::string& host, int port,
                                                                 ConnectionLimits limits,
                                                                 spdlog::logger& logger);
  ~GuardedListener();

  int port() const { return port_; }

  // Starts handing connections to `server`, which was built and started without
  // a listening port and must outlive Stop(). Installs the auth_metadata hooks,
  // which point here: the listener must outlive the server. `privileged` says
  // whether a uid's connections are never evicted (root, SlurmUser; nodes
  // call as one of them); called from gRPC's threads.
  void Start(grpc::Server* server, std::function<bool(uid_t)> privileged);
  // Starts handing connections to `acceptor` (ServerBuilder's
  // AddExternalConnectionAcceptor, FROM_FD), whose server must outlive Stop().
  // Installs no auth_metadata hooks: Authenticated and Describe stay the main
  // listener's.
  void StartExternal(std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor);
  // Stops accepting (before the server shuts down).
  void Stop();

  // The connection gRPC calls `grpc_peer` ("fd:N") presented a valid credential
  // of `uid`.
  void Authenticated(const std::string& grpc_peer, uid_t uid);
  // "fd:N" -> "ipv4:ADDRESS:PORT" of that connection, as gRPC's own listener
  // names peers; other names unchanged.
  std::string Describe(const std::string& grpc_peer);

 private:
  GuardedListener(int listen_fd, int port, ConnectionLimits limits, spdlog::logger& logger);
  void Loop();
  void AcceptReady();
  void Sweep();
  // Shuts down `fd` if it is still the socket accepted as `id`.
  static void ShutDownIf(int fd, uint64_t id);
  // Whether the connection on `fd` has received any byte (TCP_INFO).
  static bool HasSpoken(int fd);

  const int listen_fd_;
  const int port_;
  spdlog::logger& logger_;
  grpc::Server* server_ = nullptr;                                            // Start's; or
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;  // StartExternal's
  std::function<bool(uid_t)> privileged_;  // set by Start, then only read
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  int spare_fd_ = -1;  // listener thread only: freed to accept and refuse at EMFILE
  int64_t last_shortage_log_ms_ = 0;
  int64_t last_refusal_log_ms_ = 0;
  std::atomic<int64_t> last_user_cap_log_ms_{0};  // gRPC's threads

  absl::Mutex mu_;
  ConnectionGuard guard_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_GUARDED_SERVER_H_
