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

absl::StatusOr<v1::RunScriptReply> ScriptdClient::RunScript(const v1::RunScriptRequest& request) {
  v1::RunScriptReply reply;
  absl::Status status = Issue(request.request_id(), request.job_id(), request.timeout_seconds(),
                              [&](grpc::ClientContext* context) {
                                reply.Clear();
                                return stub_->RunScript(context, request, &reply);
                              });
  if (absl::IsCancelled(status)) {
    // As scriptd answers a script that KillScript ended.
    reply.Clear();
    reply.set_killed(true);
    reply.set_signal(SIGKILL);
    return reply;
  }
  if (!status.ok()) return status;
  return reply;
}

absl::StatusOr<v1::RunLuaReply> ScriptdClient::RunLua(const v1::RunLuaRequest& request) {
  v1::RunLuaReply reply;
  absl::Status status = Issue(request.request_id(), request.job_id(), request.timeout_seconds(),
                              [&](grpc::ClientContext* context) {
                                reply.Clear();
                                return stub_->RunLua(context, request, &reply);
                              });
  if (absl::IsCancelled(status)) {
    reply.Clear();
    reply.set_rc(-1);
    reply.set_killed(true);
    reply.set_message(request.function() + " was cancelled");
    return reply;
  }
  if (!status.ok()) return status;
  return reply;
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
