// scriptd's gRPC service, served to ctld alone over a Unix socket (mode 0600).
// Runs on gRPC's thread pool; holds no mutable state yet.
#ifndef SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
#define SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_

#include "proto/scriptd.grpc.pb.h"

namespace skiff {

class ScriptdService final : public v1::Scriptd::Service {
 public:
  grpc::Status Ping(grpc::ServerContext* context, const v1::ScriptdPingRequest* request,
                    v1::ScriptdPingReply* reply) override;
};

}  // namespace skiff

#endif  // SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
