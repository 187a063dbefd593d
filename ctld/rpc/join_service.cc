#include "ctld/rpc/join_service.h"

#include <ctime>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"

namespace skiff::ctld {

JoinService::JoinService(Controller& controller) : controller_(controller) {}

grpc::Status JoinService::Join(grpc::ServerContext* context, const v1::JoinRequest* request,
                               v1::JoinReply* reply) {
  NodeConfig node;
  node.name = request->node_name();
  node.cpus = request->cpus();
  node.real_memory_mb = request->real_memory_mb();
  for (const v1::JoinGres& g : request->gres()) {
    if (g.name().empty() || g.count() <= 0) continue;
    node.gres.push_back({g.name(), g.type(), g.count()});
  }
  node.addr = request->addr().empty() ? PeerAddress(context->peer()) : request->addr();
  if (request->port() < 0 || request->port() > 65535) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("port ", request->port(), " is not a TCP port"));
  }
  node.port = request->port();
  absl::StatusOr<Controller::JoinedNode> joined = controller_.JoinNode(
      request->token_id(), request->token_secret(), node,
      request->has_slurm_user_uid() ? std::optional<uint32_t>(request->slurm_user_uid())
                                    : std::nullopt);
  if (!joined.ok()) return ToGrpcStatus(joined.status());
  std::shared_ptr<const SkiffConfig> config = controller_.config();
  reply->set_munge_key(joined->munge_key);
  reply->set_node_key(joined->node_key);
  reply->set_cluster_name(config->cluster_name);
  reply->set_node_name(node.name);
  reply->set_ctld_port(config->ctld_port);
  reply->set_node_addr(node.addr);
  return grpc::Status::OK;
}

grpc::Status JoinService::FetchMungeKey(grpc::ServerContext*,
                                        const v1::FetchMungeKeyRequest* request,
                                        v1::FetchMungeKeyReply* reply) {
  absl::StatusOr<std::string> key =
      controller_.FetchMungeKey(request->node_name(), request->node_key());
  if (!key.ok()) return ToGrpcStatus(key.status());
  reply->set_munge_key(*key);
  return grpc::Status::OK;
}

JoinTokensService::JoinTokensService(Controller& controller, Authenticator& auth)
    : controller_(controller), auth_(auth) {}

grpc::Status JoinTokensService::CreateJoinToken(grpc::ServerContext* context,
                                                const v1::CreateJoinTokenRequest* request,
                                                v1::CreateJoinTokenReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<Controller::JoinTokenCreated> created =
      controller_.CreateJoinToken({caller->uid, caller->gid}, request->ttl_seconds());
  if (!created.ok()) return ToGrpcStatus(created.status());
  reply->set_token(created->token);
  reply->set_expires(created->expires);
  reply->set_join_target(created->join_target);
  reply->set_slurm_user(created->slurm_user);
  return grpc::Status::OK;
}

grpc::Status JoinTokensService::ListJoinTokens(grpc::ServerContext* context,
                                               const v1::ListJoinTokensRequest*,
                                               v1::ListJoinTokensReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::vector<StoredJoinToken>> tokens =
      controller_.ListJoinTokens({caller->uid, caller->gid});
  if (!tokens.ok()) return ToGrpcStatus(tokens.status());
  const int64_t now = time(nullptr);
  for (const StoredJoinToken& t : *tokens) {
    v1::JoinTokenInfo* info = reply->add_tokens();
    info->set_id(t.id);
    info->set_created(t.created);
    info->set_expires(t.expires);
    info->set_created_by_uid(t.created_by_uid);
    info->set_used(t.used);
    info->set_used_by(t.used_by);
    info->set_used_at(t.used_at);
    info->set_state(JoinTokenStateText(t, now));
  }
  reply->set_now(now);
  return grpc::Status::OK;
}

grpc::Status JoinTokensService::ReloadMungeKey(grpc::ServerContext* context,
                                               const v1::ReloadMungeKeyRequest*,
                                               v1::ReloadMungeKeyReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<std::string> hash = controller_.ReloadMungeKey({caller->uid, caller->gid});
  if (!hash.ok()) return ToGrpcStatus(hash.status());
  reply->set_key_sha256(*hash);
  return grpc::Status::OK;
}

}  // namespace skiff::ctld
