#include "ctld/clients/node_client.h"

#include <chrono>

#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/status.h"

namespace skiff::ctld {

NodeClient::NodeClient(Authenticator& auth, int timeout_seconds)
    : auth_(auth), timeout_seconds_(timeout_seconds) {}

v1::Noded::Stub& NodeClient::Stub(const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& stub = stubs_[target];
  if (!stub) stub = v1::Noded::NewStub(MakeChannel(target));
  return *stub;
}

absl::Status NodeClient::Prepare(grpc::ClientContext* context, bool wait_for_ready) {
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds_));
  context->set_wait_for_ready(wait_for_ready);
  return AttachCredential(auth_, context);
}

absl::Status NodeClient::LaunchJob(const std::string& target, const v1::LaunchJobRequest& request) {
  grpc::ClientContext context;
  // A channel whose last connect failed (noded was restarting) fails new calls at
  // once until its reconnect backoff ends; a launch waits for the connection
  // instead, up to MessageTimeout, so that a noded that is back is reached, and
  // only one still down after MessageTimeout counts as failed (and is drained).
  // Signals and terminations stay fail-fast: a late one must not reach a run
  // launched after it.
  if (absl::Status s = Prepare(&context, /*wait_for_ready=*/true); !s.ok()) return s;
  v1::LaunchJobReply reply;
  return FromGrpcStatus(Stub(target).LaunchJob(&context, request, &reply));
}

absl::Status NodeClient::SignalJob(const std::string& target, uint64_t job_id, int signal,
                                   v1::SignalScope scope) {
  grpc::ClientContext context;
  if (absl::Status s = Prepare(&context); !s.ok()) return s;
  v1::SignalJobRequest request;
  request.set_job_id(job_id);
  request.set_signal(signal);
  request.set_scope(scope);
  request.set_batch_only(scope == v1::SIGNAL_BATCH_SHELL);  // for a noded before scope
  v1::SignalJobReply reply;
  return FromGrpcStatus(Stub(target).SignalJob(&context, request, &reply));
}

absl::Status NodeClient::SignalStep(const std::string& target, uint64_t job_id, uint32_t step_id,
                                    int signal) {
  grpc::ClientContext context;
  if (absl::Status s = Prepare(&context); !s.ok()) return s;
  v1::SignalStepRequest request;
  request.set_job_id(job_id);
  request.set_step_id(step_id);
  request.set_signal(signal);
  v1::SignalStepReply reply;
  return FromGrpcStatus(Stub(target).SignalStep(&context, request, &reply));
}

absl::Status NodeClient::NotifyJob(const std::string& target, uint64_t job_id,
                                   const std::string& message) {
  grpc::ClientContext context;
  if (absl::Status s = Prepare(&context); !s.ok()) return s;
  v1::NotifyJobRequest request;
  request.set_job_id(job_id);
  request.set_message(message);
  v1::NotifyJobReply reply;
  return FromGrpcStatus(Stub(target).NotifyJob(&context, request, &reply));
}

absl::Status NodeClient::TerminateJob(const std::string& target, uint64_t job_id, int kill_wait) {
  grpc::ClientContext context;
  if (absl::Status s = Prepare(&context); !s.ok()) return s;
  v1::TerminateJobRequest request;
  request.set_job_id(job_id);
  request.set_kill_wait(kill_wait);
  v1::TerminateJobReply reply;
  return FromGrpcStatus(Stub(target).TerminateJob(&context, request, &reply));
}

}  // namespace skiff::ctld
