#include "noded/noded_service.h"

#include <csignal>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"

namespace skiff::noded {

LaunchSpec LaunchSpecFromProto(const v1::LaunchJobRequest& request) {
  LaunchSpec spec;
  spec.job_id = request.job_id();
  spec.run = request.run();
  spec.uid = request.uid();
  spec.gid = request.gid();
  spec.user_name = request.user_name();
  spec.argv.assign(request.argv().begin(), request.argv().end());
  spec.environment.insert(request.environment().begin(), request.environment().end());
  spec.work_dir = request.work_dir();
  spec.stdout_path = request.stdout_path();
  spec.truncate_output = request.truncate_output();
  spec.stderr_path = request.stderr_path();
  spec.stdin_path = request.stdin_path();
  spec.time_limit = request.time_limit();
  spec.cpus = request.cpus();
  spec.memory_mb = request.memory_mb();
  spec.gpu_indices.assign(request.gpu_indices().begin(), request.gpu_indices().end());
  spec.cpu_ids.assign(request.cpu_ids().begin(), request.cpu_ids().end());
  spec.container_bundle = request.container().bundle();
  const v1::ContainerRequest& container = request.container();
  spec.container_image = container.image();
  spec.container_name = container.name();
  spec.container_mounts.assign(container.mounts().begin(), container.mounts().end());
  spec.container_workdir = container.workdir();
  spec.container_env.assign(container.env().begin(), container.env().end());
  spec.container_remap_root = container.remap_root();
  spec.container_mount_home = !container.no_mount_home();
  for (const v1::JobNode& node : request.allocation()) {
    spec.allocation.push_back({node.name(),
                               node.address(),
                               node.cpus(),
                               node.memory_mb(),
                               {node.gpu_indices().begin(), node.gpu_indices().end()}});
  }
  return spec;
}

NodedService::NodedService(std::string node_name, int64_t start_time, Authenticator& auth,
                           uid_t slurm_user_uid, JobManager& jobs, StepManager& steps,
                           StepReportQueue& step_reports)
    : node_name_(std::move(node_name)),
      start_time_(start_time),
      auth_(auth),
      slurm_user_uid_(slurm_user_uid),
      jobs_(jobs),
      steps_(steps),
      step_reports_(step_reports) {}

grpc::Status NodedService::AuthenticateCtld(const grpc::ServerContext& context) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (caller->uid != 0 && caller->uid != slurm_user_uid_) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("uid ", caller->uid, " is not ctld's user"));
  }
  if (fence_ != nullptr) {
    const auto& metadata = context.client_metadata();
    auto epoch = metadata.find(kControllerEpochMetadataKey);
    if (epoch != metadata.end()) {
      absl::Status admitted =
          fence_->Admit(std::string(epoch->second.data(), epoch->second.size()));
      if (!admitted.ok()) {
        if (logger_ != nullptr) logger_->warn("{}", std::string(admitted.message()));
        return ToGrpcStatus(admitted);
      }
    }
  }
  return grpc::Status::OK;
}

grpc::Status NodedService::Ping(grpc::ServerContext* context, const v1::NodedPingRequest*,
                                v1::NodedPingReply* reply) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  reply->set_node_name(node_name_);
  reply->set_start_time(start_time_);
  return grpc::Status::OK;
}

grpc::Status NodedService::LaunchJob(grpc::ServerContext* context,
                                     const v1::LaunchJobRequest* request,
                                     v1::LaunchJobReply* reply) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  LaunchSpec spec = LaunchSpecFromProto(*request);
  if (request->has_mps_gpu() && mps_ != nullptr) {
    spec.mps_gpu = request->mps_gpu();
    const std::map<std::string, std::string> served =
        mps_->ForJob(spec.job_id, spec.mps_gpu, spec.uid, spec.gid, request->mps_memory_fraction());
    for (const auto& [name, value] : served) spec.environment[name] = value;
    // Through its MPS server, which sees only this GPU, CUDA numbers the GPU 0
    // (Slurm's guide: an MPS job's device is always 0); its steps see it so too.
    if (!served.empty()) {
      spec.gpu_cuda_names = jobs_.options().gpu_cuda_names;
      const size_t gpu = static_cast<size_t>(spec.mps_gpu);
      if (spec.gpu_cuda_names.size() <= gpu) spec.gpu_cuda_names.resize(gpu + 1);
      spec.gpu_cuda_names[gpu] = "0";
    }
  }
  absl::StatusOr<pid_t> pid = jobs_.Launch(std::move(spec), request->script());
  if (!pid.ok()) return ToGrpcStatus(pid.status());
  reply->set_shepherd_pid(*pid);
  return grpc::Status::OK;
}

grpc::Status NodedService::SignalJob(grpc::ServerContext* context,
                                     const v1::SignalJobRequest* request, v1::SignalJobReply*) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  const uint64_t job_id = request->job_id();
  const int sig = request->signal();
  v1::SignalScope scope = request->scope();
  if (scope == v1::SIGNAL_EVERY_PROCESS && request->batch_only()) scope = v1::SIGNAL_BATCH_SHELL;
  switch (scope) {
    case v1::SIGNAL_BATCH_SHELL:
      return ToGrpcStatus(jobs_.Signal(job_id, sig, JobManager::SignalTarget::kBatchShell));
    case v1::SIGNAL_STEPS:
      return ToGrpcStatus(SignalLiveSteps(job_id, sig));
    case v1::SIGNAL_BATCH_AND_STEPS: {
      // The steps first: their tasks are in no process group of the batch shell.
      absl::Status steps = SignalLiveSteps(job_id, sig);
      if (!steps.ok()) return ToGrpcStatus(steps);
      return ToGrpcStatus(jobs_.Signal(job_id, sig, JobManager::SignalTarget::kBatchGroup));
    }
    default:
      return ToGrpcStatus(jobs_.Signal(job_id, sig, JobManager::SignalTarget::kEveryProcess));
  }
}

absl::Status NodedService::SignalLiveSteps(uint64_t job_id, int sig) {
  if (sig <= 0 || sig >= NSIG) return absl::InvalidArgumentError(absl::StrCat("bad signal ", sig));
  if (!jobs_.IsRunning(job_id)) {
    return absl::NotFoundError(
        absl::StrCat("JobId=", job_id, " is not running on NodeName=", node_name_));
  }
  // This node is the job's step manager: every step of the job is here, each
  // with a stream to the tasks on each of its nodes. No step is no error.
  const int signalled = steps_.SignalLive(job_id, sig);
  if (logger_ != nullptr) {
    logger_->info("JobId={}: signal {} sent to {} step(s)", job_id, sig, signalled);
  }
  return absl::OkStatus();
}

grpc::Status NodedService::TerminateJob(grpc::ServerContext* context,
                                        const v1::TerminateJobRequest* request,
                                        v1::TerminateJobReply*) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  return ToGrpcStatus(jobs_.Terminate(request->job_id(), request->kill_wait()));
}

grpc::Status NodedService::NotifyJob(grpc::ServerContext* context,
                                     const v1::NotifyJobRequest* request, v1::NotifyJobReply*) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  return ToGrpcStatus(jobs_.Notify(request->job_id(), request->message()));
}

}  // namespace skiff::noded
