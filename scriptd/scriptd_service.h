// scriptd's gRPC service, served to ctld alone over a Unix socket (mode 0600).
//
// Thin: converts between the proto messages and ScriptRunner's / LuaRunner's plain
// structs. Scripts and Lua calls share one table of running requests (the
// ScriptRunner's), so KillScript and FlushJob reach both.
// Scripts get SIGKILL as their parent-death signal: a scriptd killed with SIGKILL
// takes them with it, and the next scriptd kills what they left (run_journal.h).
// A run_once request whose script already ended is answered from the journal.
// Threads: gRPC's sync pool; RunScript and RunLua hold their thread until the child
// has ended, so the server's thread limit bounds how many run at once (see main.cc).
// Ownership: the runners and the journal are borrowed and must outlive the server.
#ifndef SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
#define SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_

#include "proto/scriptd.grpc.pb.h"
#include "scriptd/lua_runner.h"
#include "scriptd/run_journal.h"
#include "scriptd/script_runner.h"

namespace skiff::scriptd {

class ScriptdService final : public v1::Scriptd::Service {
 public:
  // `lua` runs its calls through `runner`. `journal` may be null (no run_once
  // memory: such requests simply run).
  ScriptdService(ScriptRunner& runner, LuaRunner& lua, RunJournal* journal = nullptr)
      : runner_(runner), lua_(lua), journal_(journal) {}

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
  RunJournal* const journal_;
};

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_SCRIPTD_SERVICE_H_
