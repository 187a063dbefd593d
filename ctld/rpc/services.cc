#include "ctld/rpc/services.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "ctld/rpc/convert.h"

namespace skiff {
namespace {

constexpr char kVersion[] = "0.1.0";

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

}  // namespace

CtldService::CtldService(Controller& controller, Authenticator& auth)
    : controller_(controller), auth_(auth) {}

grpc::Status CtldService::Ping(grpc::ServerContext* context, const v1::PingRequest*,
                               v1::PingReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  reply->set_cluster_name(controller_.config().cluster_name);
  reply->set_version(kVersion);
  reply->set_start_time(controller_.start_time());
  reply->set_caller_uid(caller->uid);
  reply->set_caller_gid(caller->gid);
  return grpc::Status::OK;
}

grpc::Status CtldService::GetNodes(grpc::ServerContext* context,
                                   const v1::GetNodesRequest* request,
                                   v1::GetNodesReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const Node& node : controller_.SnapshotNodes(Names(request->names()))) {
    NodeToProto(node, reply->add_nodes());
  }
  reply->set_now(time(nullptr));
  return grpc::Status::OK;
}

grpc::Status CtldService::GetPartitions(grpc::ServerContext* context,
                                        const v1::GetPartitionsRequest* request,
                                        v1::GetPartitionsReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::vector<std::string> node_names;
  for (const PartitionConfig& partition : controller_.SnapshotPartitions(Names(request->names()))) {
    PartitionToProto(partition, reply->add_partitions());
    node_names.insert(node_names.end(), partition.nodes.begin(), partition.nodes.end());
  }
  if (!node_names.empty()) {
    for (const Node& node : controller_.SnapshotNodes(node_names)) {
      NodeToProto(node, reply->add_nodes());
    }
  }
  reply->set_now(time(nullptr));
  return grpc::Status::OK;
}

NodeService::NodeService(Controller& controller, Authenticator& auth, Privileged privileged)
    : controller_(controller), auth_(auth), privileged_(privileged) {}

grpc::Status NodeService::AuthenticateNode(const grpc::ServerContext& context) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!privileged_.Includes(caller->uid)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("uid ", caller->uid,
                                     " may not act as a node daemon (root or SlurmUser only)"));
  }
  return grpc::Status::OK;
}

grpc::Status NodeService::Register(grpc::ServerContext* context,
                                   const v1::RegisterRequest* request, v1::RegisterReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  absl::StatusOr<int64_t> interval = controller_.RegisterNode(RegistrationFromProto(*request));
  if (!interval.ok()) return ToGrpcStatus(interval.status());
  reply->set_heartbeat_interval(*interval);
  return grpc::Status::OK;
}

grpc::Status NodeService::Heartbeat(grpc::ServerContext* context,
                                    const v1::HeartbeatRequest* request,
                                    v1::HeartbeatReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  reply->set_registered(controller_.Heartbeat(request->node_name()));
  return grpc::Status::OK;
}

}  // namespace skiff
