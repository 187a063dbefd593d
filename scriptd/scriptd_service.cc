#include "scriptd/scriptd_service.h"

#include <signal.h>
#include <unistd.h>

#include <ctime>

#include "common/rpc/status.h"

namespace skiff::scriptd {
namespace {

// Of a recorded result's output, enough for ctld's log line; keeps the journal small.
constexpr size_t kRecordedOutputTail = 512;

}  // namespace

grpc::Status ScriptdService::Ping(grpc::ServerContext*, const v1::ScriptdPingRequest*,
                                  v1::ScriptdPingReply* reply) {
  reply->set_pid(getpid());
  reply->set_parent_pid(getppid());
  reply->set_running(runner_.Running());
  return grpc::Status::OK;
}

grpc::Status ScriptdService::RunScript(grpc::ServerContext*, const v1::RunScriptRequest* request,
                                       v1::RunScriptReply* reply) {
  const bool remembered = request->run_once() && journal_ != nullptr;
  if (remembered) {
    if (std::optional<std::string> recorded = journal_->Result(request->request_id())) {
      if (reply->ParseFromString(*recorded)) return grpc::Status::OK;
      reply->Clear();
    }
  }
  ScriptRequest run;
  run.request_id = request->request_id();
  run.parent_death_signal = SIGKILL;
  run.path = request->path();
  run.argv.assign(request->argv().begin(), request->argv().end());
  run.environment.insert(request->environment().begin(), request->environment().end());
  run.timeout_seconds = request->timeout_seconds();
  run.work_dir = request->work_dir();
  run.job_id = request->job_id();
  run.uid = request->uid();
  run.gid = request->gid();
  run.stdin_data = request->stdin();

  absl::StatusOr<ScriptResult> result = runner_.Run(run);
  if (!result.ok()) return ToGrpcStatus(result.status());
  reply->set_exit_code(result->exit_code);
  reply->set_signal(result->signal);
  reply->set_timed_out(result->timed_out);
  reply->set_killed(result->killed);
  reply->set_output_tail(result->output_tail);
  reply->set_pid(result->pid);
  reply->set_error(result->error);
  // A script that was killed (scriptd stopping, or ctld cancelling it) has no
  // result to remember: if ctld asks again, it runs again.
  if (remembered && !result->killed) {
    v1::RunScriptReply recorded = *reply;
    if (recorded.output_tail().size() > kRecordedOutputTail) {
      recorded.set_output_tail(
          recorded.output_tail().substr(recorded.output_tail().size() - kRecordedOutputTail));
    }
    journal_->RecordResult(request->request_id(), recorded.SerializeAsString(), time(nullptr));
  }
  return grpc::Status::OK;
}

grpc::Status ScriptdService::KillScript(grpc::ServerContext*, const v1::KillScriptRequest* request,
                                        v1::KillScriptReply* reply) {
  reply->set_was_running(runner_.Kill(request->request_id()));
  return grpc::Status::OK;
}

grpc::Status ScriptdService::RunLua(grpc::ServerContext*, const v1::RunLuaRequest* request,
                                    v1::RunLuaReply* reply) {
  LuaCall call;
  call.request_id = request->request_id();
  call.job_id = request->job_id();
  call.script_path = request->script_path();
  call.function = request->function();
  call.args.assign(request->args().begin(), request->args().end());
  call.job_info_json = request->job_info_json();
  call.timeout_seconds = request->timeout_seconds();
  call.run_as_uid = request->run_as_uid();
  call.run_as_gid = request->run_as_gid();

  absl::StatusOr<LuaCallResult> result = lua_.Run(call);
  if (!result.ok()) return ToGrpcStatus(result.status());
  reply->set_rc(result->rc);
  reply->set_message(result->message);
  reply->set_timed_out(result->timed_out);
  reply->set_killed(result->killed);
  reply->set_pid(result->pid);
  return grpc::Status::OK;
}

grpc::Status ScriptdService::FlushJob(grpc::ServerContext*, const v1::FlushJobRequest* request,
                                      v1::FlushJobReply* reply) {
  reply->set_killed(runner_.KillJob(request->job_id()));
  return grpc::Status::OK;
}

}  // namespace skiff::scriptd
