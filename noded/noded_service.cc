#include "noded/noded_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"

namespace skiff {

NodedService::NodedService(std::string node_name, int64_t start_time, Authenticator& auth,
                           uid_t slurm_user_uid)
    : node_name_(std::move(node_name)),
      start_time_(start_time),
      auth_(auth),
      slurm_user_uid_(slurm_user_uid) {}

grpc::Status NodedService::AuthenticateCtld(const grpc::ServerContext& context) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (caller->uid != 0 && caller->uid != slurm_user_uid_) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("uid ", caller->uid, " is not ctld's user"));
  }
  return grpc::Status::OK;
}

grpc::Status NodedService::Ping(grpc::ServerContext* context, const v1::NodedPingRequest*,
                                v1::NodedPingReply* reply) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  reply->set_node_name(node_name_);
  reply->set_start_time(start_time_);
  return grpc::Status::OK;
}

}  // namespace skiff
