// scriptd's gRPC service, served to ctld alone over a Unix socket (mode 0600).
//
// Thin: converts between the proto messages and ScriptRunner's plain structs.
// Threads: gRPC's sync pool; RunScript holds its thread until the script has ended,
// so the server's thread limit bounds how many scripts run at once (see main.cc).
// Ownership: the runner is borrowed and must outlive the server.
#ifndef SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
#define SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_

#include "proto/scriptd.grpc.pb.h"
#include "scriptd/script_runner.h"

namespace skiff {

class ScriptdService final : public v1::Scriptd::Service {
 public:
  explicit ScriptdService(ScriptRunner& runner) : runner_(runner) {}

  grpc::Status Ping(grpc::ServerContext* context, const v1::ScriptdPingRequest* request,
                    v1::ScriptdPingReply* reply) override;
  grpc::Status RunScript(grpc::ServerContext* context, const v1::RunScriptRequest* request,
                         v1::RunScriptReply* reply) override;
  grpc::Status KillScript(grpc::ServerContext* context, const v1::KillScriptRequest* request,
                          v1::KillScriptReply* reply) override;

 private:
  ScriptRunner& runner_;
};

}  // namespace skiff

#endif  // SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
