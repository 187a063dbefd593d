// NodedService's part in a multi-node job's node scripts on the nodes other
// than the batch host (allocation_epilogs.h): the Prolog before the job's first
// step here, the Epilog when the batch host ends the job here.
#include <signal.h>

#include <chrono>
#include <future>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/status.h"
#include "noded/container/image_container.h"
#include "noded/gpu/gpu_usage_proto.h"
#include "noded/node_scripts.h"
#include "noded/noded_service.h"
#include "noded/run_captured.h"

namespace skiff::noded {
namespace {

// The batch host's spec as this node's: its name, and its part of the
// allocation (CPUs, GPUs) for the scripts' variables.
absl::StatusOr<LaunchSpec> SpecOnThisNode(const std::string& spec_text,
                                          const std::string& node_name) {
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(spec_text);
  if (!spec.ok()) return spec.status();
  spec->node_name = node_name;
  for (const AllocatedNode& node : spec->allocation) {
    if (node.name != node_name) continue;
    spec->cpus = node.cpus;
    spec->gpu_indices.assign(node.gpus.begin(), node.gpus.end());
  }
  return spec;
}

// How ctld is asked about the job: an array task as (array id, task id), since
// its own id may also be its array's; anything else as (id, -1).
std::pair<uint64_t, int32_t> CtldJobRef(uint64_t job_id, const std::string& spec_text) {
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(spec_text);
  if (!spec.ok()) return {job_id, -1};
  auto array = spec->environment.find("SLURM_ARRAY_JOB_ID");
  auto index = spec->environment.find("SLURM_ARRAY_TASK_ID");
  uint64_t array_id = 0;
  int32_t task = -1;
  if (array == spec->environment.end() || index == spec->environment.end() ||
      !absl::SimpleAtoi(array->second, &array_id) || !absl::SimpleAtoi(index->second, &task)) {
    return {job_id, -1};
  }
  return {array_id, task};
}

}  // namespace

std::string NodedService::PrologBeforeFirstStep(const v1::TaskLaunch& launch, bool* ran_here) {
  *ran_here = false;
  const JobManagerOptions& scripts = jobs_.options();
  if (scripts.prolog.empty() || launch.job_spec().empty()) return "";
  // The batch host ran its Prolog before the batch script (shepherd.cc).
  if (jobs_.IsRunning(launch.job_id())) return "";
  std::promise<std::string> mine;
  std::shared_future<std::string> outcome;
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(prologs_mu_);
    auto [it, inserted] = prologs_.try_emplace(launch.job_id());
    if (inserted) it->second = mine.get_future().share();
    outcome = it->second;
    first = inserted;
  }
  // Another step of the job runs it, or ran it: its outcome is this step's.
  if (!first) return outcome.get();
  std::string failure;
  absl::StatusOr<LaunchSpec> spec = SpecOnThisNode(launch.job_spec(), node_name_);
  if (!spec.ok()) {
    failure = absl::StrCat("bad job spec: ", spec.status().message());
  } else {
    const CapturedRun run =
        RunCaptured({scripts.prolog}, NodeScriptTimeout(scripts.prolog_epilog_timeout), "Prolog",
                    {NodeScriptEnvironment(*spec, "prolog_slurmd"), std::nullopt, ""});
    failure = NodeScriptFailure(run, scripts.prolog_epilog_timeout);
  }
  mine.set_value(failure);
  *ran_here = true;
  return failure;
}

void NodedService::ReportPrologFailure(const v1::TaskLaunch& launch, const std::string& failure) {
  // Slurm's slurmd: the node drains ("Prolog error") and the job is requeued held.
  if (logger_ != nullptr) {
    logger_->error("JobId={} Prolog error on NodeName={}: {}", launch.job_id(), node_name_,
                   failure);
  }
  if (node_control_ != nullptr) {
    absl::Status drained = node_control_->Drain("Prolog error");
    const auto [job_id, task] = CtldJobRef(launch.job_id(), launch.job_spec());
    absl::Status requeued = node_control_->RequeueHeld(job_id, task);
    if (logger_ != nullptr && !drained.ok()) {
      logger_->error("cannot drain NodeName={}: {}", node_name_, std::string(drained.message()));
    }
    if (logger_ != nullptr && !requeued.ok()) {
      logger_->error("cannot requeue JobId={}: {}", launch.job_id(),
                     std::string(requeued.message()));
    }
  }
}

grpc::Status NodedService::EndJobOnNode(grpc::ServerContext* context,
                                        const v1::EndJobOnNodeRequest* request,
                                        v1::EndJobOnNodeReply* reply) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  if (request->job_id() == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "job_id must be given");
  }
  absl::StatusOr<LaunchSpec> spec = SpecOnThisNode(request->job_spec(), node_name_);
  if (!spec.ok() || spec->job_id != request->job_id()) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("job_spec: ", spec.ok() ? "not the job's" : spec.status().message()));
  }
  // What is left of the job's steps here goes first (their step manager, the
  // batch host, cancels them as the job ends; this does not wait for that).
  for (int attempt = 0; attempt < 500; ++attempt) {
    bool any = false;
    {
      std::lock_guard<std::mutex> lock(tasks_mu_);
      for (auto& [key, tasks] : local_tasks_) {
        if (key.first != request->job_id()) continue;
        if (attempt % 50 == 0) tasks->Signal(SIGKILL);
        any = true;
      }
    }
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  {
    std::lock_guard<std::mutex> lock(prologs_mu_);
    prologs_.erase(request->job_id());
  }
  // The job's image containers here (--container-name ones live until now).
  ReleaseJobImageContainers(ContainersDir(), request->job_id());
  if (ended_job_gpus_) {
    for (const GpuUse& gpu : ended_job_gpus_(request->job_id())) {
      GpuUseToProto(gpu, reply->add_gpus());
    }
  }
  const JobManagerOptions& scripts = jobs_.options();
  if (scripts.epilog.empty()) return grpc::Status::OK;
  const CapturedRun run = RunCaptured(
      {scripts.epilog}, NodeScriptTimeout(scripts.prolog_epilog_timeout), "Epilog",
      {NodeScriptEnvironment(*spec, "epilog_slurmd",
                             absl::StrCat(request->exit_code(), ":", request->signal())),
       std::nullopt, ""});
  reply->set_epilog_error(NodeScriptFailure(run, scripts.prolog_epilog_timeout));
  return grpc::Status::OK;
}

}  // namespace skiff::noded
