#include "ctld/clients/node_client.h"

#include <chrono>

#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/controller_epoch.h"
#include "common/rpc/status.h"
#include "ctld/rpc/container_convert.h"

namespace skiff::ctld {
namespace {

void CopyShare(const NodeShare& share, v1::JobNode* node) {
  node->set_name(share.name);
  node->set_address(share.address);
  node->set_cpus(share.cpus);
  node->set_memory_mb(share.memory_mb);
  for (int gpu : share.gpu_indices) node->add_gpu_indices(gpu);
  for (int cpu : share.cpu_ids) node->add_cpu_ids(cpu);
}

v1::SignalScope ToProto(SignalScope scope) {
  switch (scope) {
    case SignalScope::kEveryProcess:
      return v1::SIGNAL_EVERY_PROCESS;
    case SignalScope::kBatchShell:
      return v1::SIGNAL_BATCH_SHELL;
    case SignalScope::kSteps:
      return v1::SIGNAL_STEPS;
    case SignalScope::kBatchAndSteps:
      return v1::SIGNAL_BATCH_AND_STEPS;
  }
  return v1::SIGNAL_STEPS;
}

}  // namespace

v1::LaunchJobRequest ToLaunchJobRequest(const BatchLaunch& launch) {
  v1::LaunchJobRequest request;
  request.set_job_id(launch.job_id);
  request.set_uid(launch.uid);
  request.set_gid(launch.gid);
  request.set_user_name(launch.user_name);
  request.set_script(launch.script);
  for (const std::string& arg : launch.argv) request.add_argv(arg);
  request.mutable_environment()->insert(launch.environment.begin(), launch.environment.end());
  request.set_work_dir(launch.work_dir);
  request.set_stdout_path(launch.stdout_path);
  request.set_stderr_path(launch.stderr_path);
  request.set_stdin_path(launch.stdin_path);
  request.set_time_limit(launch.time_limit);
  request.set_cpus(launch.cpus);
  request.set_memory_mb(launch.memory_mb);
  for (int gpu : launch.gpu_indices) request.add_gpu_indices(gpu);
  for (int cpu : launch.cpu_ids) request.add_cpu_ids(cpu);
  request.set_run(launch.run);
  request.set_truncate_output(launch.truncate_output);
  for (const NodeShare& share : launch.allocation) CopyShare(share, request.add_allocation());
  if (!launch.container.IsEmpty()) ContainerToProto(launch.container, request.mutable_container());
  if (launch.mps_gpu >= 0) request.set_mps_gpu(launch.mps_gpu);
  request.set_mps_memory_fraction(launch.mps_memory_fraction);
  return request;
}

NodeClient::NodeClient(Authenticator& auth, int timeout_seconds, std::string controller_epoch)
    : auth_(auth),
      timeout_seconds_(timeout_seconds),
      controller_epoch_(std::move(controller_epoch)) {}

v1::Noded::Stub& NodeClient::Stub(const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& stub = stubs_[target];
  if (!stub) stub = v1::Noded::NewStub(MakeChannel(target));
  return *stub;
}

absl::Status NodeClient::Prepare(grpc::ClientContext* context, bool wait_for_ready) {
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds_));
  context->set_wait_for_ready(wait_for_ready);
  if (!controller_epoch_.empty()) {
    context->AddMetadata(kControllerEpochMetadataKey, controller_epoch_);
  }
  return AttachCredential(auth_, context);
}

absl::Status NodeClient::LaunchJob(const std::string& target, const BatchLaunch& launch) {
  const v1::LaunchJobRequest request = ToLaunchJobRequest(launch);
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
                                   SignalScope scope) {
  grpc::ClientContext context;
  if (absl::Status s = Prepare(&context); !s.ok()) return s;
  v1::SignalJobRequest request;
  request.set_job_id(job_id);
  request.set_signal(signal);
  request.set_scope(ToProto(scope));
  request.set_batch_only(scope == SignalScope::kBatchShell);  // for a noded before scope
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
