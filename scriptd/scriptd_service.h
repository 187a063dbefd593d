// scriptd's gRPC service, served to ctld alone over a Unix socket (mode 0600).
//
// Thin: converts between the proto messages and ScriptRunner's / LuaRunner's plain
// structs. Scripts and Lua calls share one table of running requests (the
// ScriptRunner's), so KillScript and FlushJob reach both.
// Threads: gRPC's sync pool; RunScript and RunLua hold their thread until the child
// has ended, so the server's thread limit bounds how many run at once (see main.cc).
// Ownership: the runners are borrowed and must outlive the server.
#ifndef SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
#define SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_

#include "proto/scriptd.grpc.pb.h"
#include "scriptd/lua_runner.h"
#include "scriptd/script_runner.h"

namespace skiff {

class ScriptdService final : public v1::Scriptd::Service {
 public:
  // `lua` runs its calls through `runner`.
  ScriptdService(ScriptRunner& runner, LuaRunner& lua) : runner_(runner), lua_(lua) {}

  grpc::Status Ping(grpc::ServerContext* context, const v1::ScriptdPingRequest* request,
                    v1::ScriptdPingReply* reply) override;
  grpc::Status RunScript(grpc::ServerContext* context, const v1::RunScriptRequest* request,
                         v1::RunScriptReply* reply) override;
  grpc::Status KillScript(grpc::ServerContext* context, const v1::KillScriptRequest* request,
                          v1::KillScriptReply* reply) override;
  grpc::Status RunLua(grpc::ServerContext* context, const v1::RunLuaRequest* request,
                      v1::RunLuaReply* reply) override;
  grpc::Status FlushJob(grpc::ServerContext* context, const v1::FlushJobRequest* request,
                        v1::FlushJobReply* reply) override;

 private:
  ScriptRunner& runner_;
  LuaRunner& lua_;
};

}  // namespace skiff

#endif  // SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
