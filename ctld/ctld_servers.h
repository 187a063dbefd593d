// CtldServers: the controller's gRPC servers and what they serve.
//
// The main port (SlurmctldHost/SlurmctldPort) serves the commands (CtldService),
// the nodes (NodeService) and `skiff token` (JoinTokensService). Its
// connections are accepted by a GuardedListener under the daemon's limits
// (guarded_server.h) and every call is timed for sdiag (rpc_stats.h). The join
// port (SlurmctldParameters=join_port) speaks TLS with ctld's own certificate
// and no munge, since a joining node has no key yet: few connections, small
// requests, 8 threads.
//
// Thread: ctld's main thread owns the object (Start, Stop); the servers' own
// threads call into the Controller, which is thread-safe.
#ifndef SKIFF_CTLD_CTLD_SERVERS_H_
#define SKIFF_CTLD_CTLD_SERVERS_H_

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/rpc/guarded_server.h"
#include "ctld/controller.h"
#include "ctld/ctld_setup.h"
#include "ctld/rpc/join_service.h"
#include "ctld/rpc/rpc_stats.h"
#include "ctld/rpc/served_config.h"
#include "ctld/rpc/services.h"
#include "ctld/rpc/token_issuer.h"

namespace skiff::ctld {

struct ServingSettings {
  std::string host;  // SlurmctldAddr, else SlurmctldHost
  int port = 0;      // SlurmctldPort
  ConnectionLimits limits;
  int max_request_bytes = 0;
  std::set<uid_t> privileged;       // always find a connection (with root)
  const JoinSetup* join = nullptr;  // the join port, or none
};

// What the services use. Each outlives the CtldServers.
struct ServedParts {
  Controller* controller = nullptr;
  Authenticator* munge = nullptr;
  ServedConfig* served = nullptr;  // configless files, or null
  // scontrol token's issuer; when tokens are on, the commands' service also
  // takes a token as a credential (SLURM_JWT=).
  const TokenIssuer* tokens = nullptr;
  // scontrol takeover's work, with a standby over etcd; else empty.
  std::function<absl::Status()> hand_over;
  // With a standby over etcd, this controller's epoch, told to each node that
  // registers (common/rpc/controller_epoch.h); else "".
  std::string controller_epoch;
};

class CtldServers {
 public:
  // Listens and starts serving; an error names the port and the key that sets it.
  static absl::StatusOr<std::unique_ptr<CtldServers>> Start(const ServingSettings& settings,
                                                            const ServedParts& parts,
                                                            spdlog::logger& logger);
  ~CtldServers();
  CtldServers(const CtldServers&) = delete;
  CtldServers& operator=(const CtldServers&) = delete;

  // Stops accepting, then shuts the servers down (the main one lets calls in
  // flight finish for up to 2 s).
  void Stop();

 private:
  CtldServers(const ServedParts& parts);
  absl::Status StartJoinPort(const std::string& host, const JoinSetup& join,
                             spdlog::logger& logger);

  // Declared before the servers, which they outlive.
  std::unique_ptr<Authenticator> command_auth_;  // a token or munge; null: munge alone
  CtldService ctld_service_;
  NodeService node_service_;
  JoinTokensService join_tokens_service_;
  JoinService join_service_;
  RpcStatsRecorder rpc_stats_;
  std::unique_ptr<GuardedListener> listener_;
  std::unique_ptr<GuardedListener> join_listener_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::Server> join_server_;
  bool stopped_ = false;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CTLD_SERVERS_H_
