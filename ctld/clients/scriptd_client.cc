#include "ctld/clients/scriptd_client.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/rpc/status.h"

namespace skiff::ctld {

ScriptdClient::ScriptdClient(const std::string& socket_path, int retry_window_seconds)
    : channel_(MakeChannel("unix:" + socket_path)),
      stub_(v1::Scriptd::NewStub(channel_)),
      retry_window_seconds_(retry_window_seconds) {}

absl::Status ScriptdClient::Issue(const std::string& request_id, uint64_t job_id,
                                  int64_t timeout_seconds,
                                  const std::function<grpc::Status(grpc::ClientContext*)>& call) {
  using Clock = std::chrono::steady_clock;
  uint64_t token;
  {
    absl::MutexLock lock(&mu_);
    token = next_token_++;
    in_flight_[token] = InFlight{request_id, job_id, false};
  }
  auto cancelled = [this, token] {
    absl::MutexLock lock(&mu_);
    return in_flight_[token].cancelled;
  };
  const Clock::duration window = std::chrono::seconds(retry_window_seconds_);
  // The end of the current outage's window. It starts at the first failure; an
  // attempt that ran longer than the window (scriptd was fine for a while) starts
  // a new one, while a scriptd that keeps dying at once is given up on.
  Clock::time_point give_up = Clock::now() + window;
  bool failed_before = false;
  // The request's own timeout plus slack: scriptd enforces the real limit.
  const int64_t rpc_seconds = timeout_seconds > 0 ? timeout_seconds + 30 : 365LL * 24 * 3600;
  absl::Status result;
  for (;;) {
    if (cancelled()) {
      result = absl::CancelledError(request_id + " was cancelled while scriptd restarted");
      break;
    }
    if (stopping_) {
      result = absl::UnavailableError(absl::StrCat("ctld is stopping (", request_id, " not run)"));
      break;
    }
    // Wait for scriptd's socket here, within the window and in short slices that
    // notice a cancel, rather than in a wait_for_ready call, which would wait
    // until the request's own deadline.
    const Clock::time_point slice_end =
        std::min(give_up, Clock::now() + std::chrono::milliseconds(500));
    if (!channel_->WaitForConnected(std::chrono::system_clock::now() +
                                    std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                        slice_end - Clock::now()))) {
      if (Clock::now() < give_up) continue;
      result = absl::UnavailableError(
          absl::StrCat("scriptd does not answer (", request_id, " not run)"));
      break;
    }
    const Clock::time_point attempt_start = Clock::now();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(rpc_seconds));
    grpc::Status status = call(&context);
    if (status.ok()) {
      result = absl::OkStatus();
      break;
    }
    // UNAVAILABLE: scriptd died (taking the child with it) or is restarting.
    const Clock::time_point now = Clock::now();
    if (!failed_before || now - attempt_start > window) give_up = now + window;
    failed_before = true;
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || stopping_ || now > give_up) {
      result = FromGrpcStatus(status);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  absl::MutexLock lock(&mu_);
  in_flight_.erase(token);
  return result;
}

absl::StatusOr<ScriptEnd> ScriptdClient::RunScript(const ScriptCall& call) {
  v1::RunScriptRequest request;
  request.set_request_id(call.request_id);
  request.set_path(call.path);
  for (const std::string& arg : call.argv) request.add_argv(arg);
  request.mutable_environment()->insert(call.environment.begin(), call.environment.end());
  request.set_timeout_seconds(call.timeout_seconds);
  request.set_work_dir(call.work_dir);
  request.set_job_id(call.job_id);
  request.set_uid(call.uid);
  request.set_gid(call.gid);
  request.set_stdin(call.stdin_data);
  request.set_run_once(call.run_once);
  v1::RunScriptReply reply;
  absl::Status status =
      Issue(call.request_id, call.job_id, call.timeout_seconds, [&](grpc::ClientContext* context) {
        reply.Clear();
        return stub_->RunScript(context, request, &reply);
      });
  ScriptEnd end;
  if (absl::IsCancelled(status)) {
    // As scriptd answers a script that KillScript ended.
    end.killed = true;
    end.signal = SIGKILL;
    return end;
  }
  if (!status.ok()) return status;
  end.exit_code = reply.exit_code();
  end.signal = reply.signal();
  end.timed_out = reply.timed_out();
  end.killed = reply.killed();
  end.output_tail = reply.output_tail();
  end.pid = reply.pid();
  end.error = reply.error();
  return end;
}

absl::StatusOr<LuaEnd> ScriptdClient::RunLua(const LuaCall& call) {
  v1::RunLuaRequest request;
  request.set_request_id(call.request_id);
  request.set_job_id(call.job_id);
  request.set_script_path(call.script_path);
  request.set_function(call.function);
  for (const std::string& arg : call.args) request.add_args(arg);
  request.set_job_info_json(call.job_info_json);
  request.set_timeout_seconds(call.timeout_seconds);
  request.set_run_as_uid(call.run_as_uid);
  request.set_run_as_gid(call.run_as_gid);
  v1::RunLuaReply reply;
  absl::Status status =
      Issue(call.request_id, call.job_id, call.timeout_seconds, [&](grpc::ClientContext* context) {
        reply.Clear();
        return stub_->RunLua(context, request, &reply);
      });
  LuaEnd end;
  if (absl::IsCancelled(status)) {
    end.rc = -1;
    end.killed = true;
    end.message = call.function + " was cancelled";
    return end;
  }
  if (!status.ok()) return status;
  end.rc = reply.rc();
  end.message = reply.message();
  end.timed_out = reply.timed_out();
  end.killed = reply.killed();
  end.pid = reply.pid();
  return end;
}

void ScriptdClient::KillScript(const std::string& request_id) {
  {
    absl::MutexLock lock(&mu_);
    for (auto& [token, flight] : in_flight_) {
      if (flight.request_id == request_id) flight.cancelled = true;
    }
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::KillScriptRequest request;
  request.set_request_id(request_id);
  v1::KillScriptReply reply;
  stub_->KillScript(&context, request, &reply);
}

absl::StatusOr<int> ScriptdClient::FlushJob(uint64_t job_id) {
  if (job_id == 0) return 0;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [token, flight] : in_flight_) {
      if (flight.job_id == job_id) flight.cancelled = true;
    }
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::FlushJobRequest request;
  request.set_job_id(job_id);
  v1::FlushJobReply reply;
  grpc::Status status = stub_->FlushJob(&context, request, &reply);
  if (!status.ok()) return FromGrpcStatus(status);
  return reply.killed();
}

}  // namespace skiff::ctld
