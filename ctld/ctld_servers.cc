#include "ctld/ctld_servers.h"

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/auth/jwt_authenticator.h"
#include "common/rpc/auth_metadata.h"

namespace skiff::ctld {
namespace {

// The join port's share of ctld's descriptors, under the same guard as its
// main port. Nothing authenticates there (a joining node has no munge key
// yet), so every connection counts as unauthenticated: few at once, few per
// address, and none for longer than a join takes on a loaded machine. A flood
// of idle connections then costs ctld at most kJoinPortConnections
// descriptors, and a joining node's connection, which speaks at once, pushes
// out a silent one.
constexpr int kJoinPortConnections = 64;
ConnectionLimits JoinPortLimits() {
  ConnectionLimits limits;
  limits.max_connections = kJoinPortConnections;
  limits.max_unauthenticated = kJoinPortConnections;
  limits.max_unauthenticated_per_peer = 16;
  limits.unauthenticated_ms = 30000;
  return limits;
}

// The commands' authenticator when tokens are on: a token or munge.
std::unique_ptr<Authenticator> CommandAuthenticator(const ServedParts& parts) {
  if (parts.tokens == nullptr || !parts.tokens->settings().enabled) return nullptr;
  return std::make_unique<JwtOrMungeAuthenticator>(*parts.munge, parts.tokens->settings().key);
}

}  // namespace

CtldServers::CtldServers(const ServedParts& parts)
    : command_auth_(CommandAuthenticator(parts)),
      ctld_service_(*parts.controller, command_auth_ ? *command_auth_ : *parts.munge, parts.served,
                    parts.tokens),
      node_service_(*parts.controller, *parts.munge, parts.served, parts.controller_epoch),
      join_tokens_service_(*parts.controller, *parts.munge),
      join_service_(*parts.controller),
      rpc_stats_(parts.controller->stats()) {}

absl::StatusOr<std::unique_ptr<CtldServers>> CtldServers::Start(const ServingSettings& settings,
                                                                const ServedParts& parts,
                                                                spdlog::logger& logger) {
  std::unique_ptr<CtldServers> servers(new CtldServers(parts));
  if (parts.hand_over) servers->ctld_service_.SetHandOver(parts.hand_over);
  const std::string listen = absl::StrCat(settings.host, ":", settings.port);
  // Connections are accepted by the listener, under its limits, and handed to
  // the server, which has no listening port of its own.
  absl::StatusOr<std::unique_ptr<GuardedListener>> listener =
      GuardedListener::Listen(settings.host, settings.port, settings.limits, logger);
  if (!listener.ok()) {
    return absl::Status(listener.status().code(), absl::StrCat("cannot listen on ", listen,
                                                               " (SlurmctldHost/SlurmctldPort): ",
                                                               listener.status().message()));
  }
  servers->listener_ = *std::move(listener);
  // sdiag's RPC statistics: every call is timed by an interceptor and
  // attributed to the uid AuthenticateCall proved.
  RpcStatsRecorder* rpc_stats = &servers->rpc_stats_;
  SetCallerHook([rpc_stats](const grpc::ServerContext& context, uid_t uid) {
    rpc_stats->NoteCaller(&context, uid);
  });
  grpc::ServerBuilder builder;
  {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
    creators.push_back(rpc_stats->InterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  builder.SetMaxReceiveMessageSize(settings.max_request_bytes);
  // gRPC's synchronous server keeps at most MAX_POLLERS idle threads (2 by
  // default): after a burst of concurrent calls every thread beyond that exits,
  // and the next burst creates them again. Keeping more cuts that churn.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 32);
  builder.RegisterService(&servers->ctld_service_);
  builder.RegisterService(&servers->node_service_);
  builder.RegisterService(&servers->join_tokens_service_);
  servers->server_ = builder.BuildAndStart();
  if (!servers->server_) {
    return absl::InternalError(absl::StrCat("cannot start the server for ", listen));
  }
  if (settings.join != nullptr) {
    if (absl::Status s = servers->StartJoinPort(settings.host, *settings.join, logger); !s.ok()) {
      return s;
    }
  }
  // Admins and nodes (which call as root or SlurmUser) always find a connection.
  servers->listener_->Start(servers->server_.get(), [privileged = settings.privileged](uid_t uid) {
    return uid == 0 || privileged.count(uid) != 0;
  });
  return servers;
}

absl::Status CtldServers::StartJoinPort(const std::string& host, const JoinSetup& join,
                                        spdlog::logger& logger) {
  const std::string join_listen = absl::StrCat(host, ":", join.port);
  absl::StatusOr<std::unique_ptr<GuardedListener>> listening =
      GuardedListener::Listen(host, join.port, JoinPortLimits(), logger);
  if (!listening.ok()) {
    return absl::Status(
        listening.status().code(),
        absl::StrCat("cannot listen on ", join_listen,
                     " (SlurmctldParameters=join_port): ", listening.status().message()));
  }
  join_listener_ = *std::move(listening);
  grpc::SslServerCredentialsOptions tls;
  tls.pem_key_cert_pairs.push_back({join.tls.key_pem, join.tls.cert_pem});
  grpc::ServerBuilder builder;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
          grpc::SslServerCredentials(tls));
  builder.SetMaxReceiveMessageSize(64 << 10);
  grpc::ResourceQuota quota("ctld-join");
  quota.SetMaxThreads(8);
  builder.SetResourceQuota(quota);
  builder.RegisterService(&join_service_);
  join_server_ = builder.BuildAndStart();
  if (!join_server_) {
    return absl::InternalError(absl::StrCat("cannot start the join server for ", join_listen,
                                            " (SlurmctldParameters=join_port)"));
  }
  join_listener_->StartExternal(std::move(acceptor));
  logger.info("join_port: nodes join at {} (certificate sha256 pin {})", join_listen, join.tls.pin);
  return absl::OkStatus();
}

void CtldServers::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_) listener_->Stop();
  if (join_listener_) join_listener_->Stop();
  if (join_server_) join_server_->Shutdown(std::chrono::system_clock::now());
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

CtldServers::~CtldServers() { Stop(); }

}  // namespace skiff::ctld
