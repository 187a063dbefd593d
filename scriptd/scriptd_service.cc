#include "scriptd/scriptd_service.h"

#include <unistd.h>

namespace skiff {

grpc::Status ScriptdService::Ping(grpc::ServerContext*, const v1::ScriptdPingRequest*,
                                  v1::ScriptdPingReply* reply) {
  reply->set_pid(getpid());
  reply->set_parent_pid(getppid());
  return grpc::Status::OK;
}

}  // namespace skiff
