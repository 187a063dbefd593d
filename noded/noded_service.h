// noded's gRPC service for ctld. Runs on gRPC's pool; authenticates every call.
#ifndef SKIFF_NODED_NODED_SERVICE_H_
#define SKIFF_NODED_NODED_SERVICE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "common/auth/authenticator.h"
#include "proto/noded.grpc.pb.h"

namespace skiff {

class NodedService final : public v1::Noded::Service {
 public:
  // Only root and `slurm_user_uid` (ctld's user) may call.
  NodedService(std::string node_name, int64_t start_time, Authenticator& auth,
               uid_t slurm_user_uid);

  grpc::Status Ping(grpc::ServerContext* context, const v1::NodedPingRequest* request,
                    v1::NodedPingReply* reply) override;

 private:
  grpc::Status AuthenticateCtld(const grpc::ServerContext& context);

  const std::string node_name_;
  const int64_t start_time_;
  Authenticator& auth_;
  const uid_t slurm_user_uid_;
};

}  // namespace skiff

#endif  // SKIFF_NODED_NODED_SERVICE_H_
