// ctld's gRPC services: thin handlers that authenticate, convert and call the
// Controller. Called on gRPC's thread pool; they hold no state of their own.
#ifndef SKIFF_CTLD_RPC_SERVICES_H_
#define SKIFF_CTLD_RPC_SERVICES_H_

#include <sys/types.h>

#include "common/auth/authenticator.h"
#include "ctld/controller.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff {

// Who may act as a node daemon or administrator: root and SlurmUser.
struct Privileged {
  uid_t slurm_user_uid = 0;
  bool Includes(uid_t uid) const { return uid == 0 || uid == slurm_user_uid; }
};

// For the CLIs: any authenticated user may read.
class CtldService final : public v1::Ctld::Service {
 public:
  CtldService(Controller& controller, Authenticator& auth);

  grpc::Status Ping(grpc::ServerContext* context, const v1::PingRequest* request,
                    v1::PingReply* reply) override;
  grpc::Status GetNodes(grpc::ServerContext* context, const v1::GetNodesRequest* request,
                        v1::GetNodesReply* reply) override;
  grpc::Status GetPartitions(grpc::ServerContext* context,
                             const v1::GetPartitionsRequest* request,
                             v1::GetPartitionsReply* reply) override;

 private:
  Controller& controller_;
  Authenticator& auth_;
};

// For node daemons: only root or SlurmUser credentials are accepted.
class NodeService final : public v1::NodeService::Service {
 public:
  NodeService(Controller& controller, Authenticator& auth, Privileged privileged);

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;

 private:
  grpc::Status AuthenticateNode(const grpc::ServerContext& context);

  Controller& controller_;
  Authenticator& auth_;
  const Privileged privileged_;
};

}  // namespace skiff

#endif  // SKIFF_CTLD_RPC_SERVICES_H_
