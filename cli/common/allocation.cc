#include "cli/common/allocation.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/noded.grpc.pb.h"

namespace skiff::cli {
namespace {

bool Ended(v1::JobState state) {
  switch (state) {
    case v1::PENDING:
    case v1::CONFIGURING:
    case v1::RUNNING:
    case v1::SUSPENDED:
      return false;
    default:
      return true;
  }
}

void Say(const AllocationMessages& messages, const std::string& line) {
  fprintf(stderr, "%s: %s\n", messages.program.c_str(), line.c_str());
}

}  // namespace

absl::StatusOr<int> ImmediateSeconds(const std::string& text) {
  if (text.empty()) return 1;
  int seconds = 0;
  if (!absl::SimpleAtoi(text, &seconds) || seconds < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid numeric value \"", text, "\" for immediate."));
  }
  return seconds;
}

namespace {

// Gives up an allocation -I could not have: cancels its job and prints
// Slurm's lines, salloc's revoked line before or after the error as Slurm's.
absl::Status GiveUp(client::CtldClient& client, uint64_t id, const AllocationMessages& messages,
                    const std::string& why, bool revoked_first) {
  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(id);
  v1::CancelJobsReply cancelled;
  (void)client.Call(&v1::Ctld::Stub::CancelJobs, cancel, &cancelled);
  const std::string revoked = absl::StrCat("Job allocation ", id, " has been revoked.");
  if (messages.says_revoked && revoked_first) Say(messages, revoked);
  fprintf(stderr, "%s: error: %s\n", messages.program.c_str(), why.c_str());
  if (messages.says_revoked && !revoked_first) Say(messages, revoked);
  return absl::DeadlineExceededError(why);
}

}  // namespace

absl::StatusOr<v1::JobInfo> Allocate(client::CtldClient& client, const v1::JobSpec& spec,
                                     const AllocationMessages& messages,
                                     const std::function<bool()>& interrupted,
                                     const AllocationPatience& patience) {
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = spec;
  submit.mutable_spec()->set_interactive(true);
  v1::SubmitJobReply submitted;
  if (absl::Status s = client.Call(&v1::Ctld::Stub::SubmitJob, submit, &submitted); !s.ok()) {
    // ctld's detail lines (slurmctld's err_msg, "Memory specification can not
    // be satisfied") come first, as salloc prints them; the summary last.
    std::string message(s.message());
    std::string detail;
    if (const size_t cut = message.rfind('\n'); cut != std::string::npos) {
      detail = message.substr(0, cut + 1);
      message = message.substr(cut + 1);
    }
    return absl::Status(s.code(), absl::StrCat(detail, "Job submit/allocate failed: ", message));
  }
  const uint64_t id = submitted.job_id();
  // -I: at once (Slurm's slurmctld decides at submit, and says nothing of a
  // pending allocation), or within its seconds.
  const bool at_once = patience.immediate_seconds && *patience.immediate_seconds <= 1;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::seconds(patience.immediate_seconds.value_or(0) > 1 ? *patience.immediate_seconds
                                                                      : 1);
  const std::string unable =
      messages.says_revoked ? "Job submit/allocate failed: " : "Unable to allocate resources: ";
  if (at_once && spec.hold()) {
    return GiveUp(client, id, messages, unable + "Job dependency problem", false);
  }
  if (messages.verbose && spec.hold()) {
    Say(messages, "Job is in held state, pending scheduler release");
  }
  if (messages.verbose && !at_once) Say(messages, absl::StrCat("Pending job allocation ", id));
  bool queued = false;
  // Short looks first (an idle cluster grants within milliseconds), then at most
  // every half second.
  std::chrono::milliseconds pause(10);
  for (;;) {
    v1::GetJobsRequest request;
    request.add_job_ids(id);
    v1::GetJobsReply reply;
    absl::Status s = client.Call(&v1::Ctld::Stub::GetJobs, request, &reply);
    if (s.ok() && reply.jobs_size() == 1) {
      const v1::JobInfo& job = reply.jobs(0);
      if (job.state() == v1::RUNNING && !job.stepmgr_address().empty()) {
        if (queued) Say(messages, absl::StrCat("job ", id, " has been allocated resources"));
        if (messages.verbose) {
          Say(messages, absl::StrCat("Granted job allocation ", id));
          Say(messages,
              absl::StrCat("Nodes ", CompressHostlist({job.nodes().begin(), job.nodes().end()}),
                           " are ready for job"));
        }
        return job;
      }
      if (Ended(job.state())) {
        return absl::UnavailableError(absl::StrCat("Job allocation ", id, " has been revoked."));
      }
      if (!queued && !at_once && job.state() == v1::PENDING &&
          pause >= std::chrono::milliseconds(40)) {
        Say(messages, absl::StrCat("job ", id, " queued and waiting for resources"));
        queued = true;
      }
    }
    if (patience.immediate_seconds && std::chrono::steady_clock::now() >= deadline) {
      if (at_once) {
        return GiveUp(client, id, messages,
                      "Unable to allocate resources: Requested nodes are busy", false);
      }
      // After waiting: salloc's alarm says the connection timed out; srun
      // repeats that the nodes are busy.
      return GiveUp(client, id, messages,
                    messages.says_revoked
                        ? "Unable to allocate resources: Connection timed out"
                        : "Unable to allocate resources: Requested nodes are busy",
                    true);
    }
    if (interrupted()) {
      v1::CancelJobsRequest cancel;
      cancel.add_job_ids(id);
      v1::CancelJobsReply cancelled;
      (void)client.Call(&v1::Ctld::Stub::CancelJobs, cancel, &cancelled);
      return absl::CancelledError(absl::StrCat("Job allocation ", id, " has been revoked."));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

std::map<std::string, std::string> AllocationEnvironment(const v1::JobInfo& job,
                                                         const std::string& cluster_name,
                                                         const std::string& submit_dir,
                                                         const std::string& submit_host) {
  std::map<std::string, std::string> env;
  const std::string id = absl::StrCat(job.job_id());
  env["SLURM_JOB_ID"] = env["SLURM_JOBID"] = id;
  env["SLURM_JOB_NAME"] = job.spec().name();
  const std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  env["SLURM_JOB_NODELIST"] = env["SLURM_NODELIST"] = CompressHostlist(nodes);
  env["SLURM_JOB_NUM_NODES"] = env["SLURM_NNODES"] = absl::StrCat(nodes.size());
  const int per_node = nodes.empty() ? 0 : job.num_cpus() / static_cast<int>(nodes.size());
  env["SLURM_JOB_CPUS_PER_NODE"] = SlurmCountList(std::vector<int>(nodes.size(), per_node));
  if (job.spec().ntasks() > 0) {
    env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = absl::StrCat(job.spec().ntasks());
    std::vector<int> tasks(nodes.size(), 0);
    for (int t = 0; t < job.spec().ntasks() && !tasks.empty(); ++t) ++tasks[t % tasks.size()];
    std::sort(tasks.rbegin(), tasks.rend());
    env["SLURM_TASKS_PER_NODE"] = SlurmCountList(tasks);
  } else {
    env["SLURM_TASKS_PER_NODE"] = SlurmCountList(std::vector<int>(nodes.size(), 1));
  }
  if (job.spec().cpus_per_task() > 0) {
    env["SLURM_CPUS_PER_TASK"] = absl::StrCat(job.spec().cpus_per_task());
  }
  if (!job.spec().gpus_per_task().empty()) env["SLURM_GPUS_PER_TASK"] = job.spec().gpus_per_task();
  if (job.spec().cpus_per_gpu() > 0) {
    env["SLURM_CPUS_PER_GPU"] = absl::StrCat(job.spec().cpus_per_gpu());
  }
  if (job.mem_per_node_mb() > 0) env["SLURM_MEM_PER_NODE"] = absl::StrCat(job.mem_per_node_mb());
  env["SLURM_JOB_PARTITION"] = job.partition();
  if (!job.account().empty()) env["SLURM_JOB_ACCOUNT"] = job.account();
  if (!job.qos().empty()) env["SLURM_JOB_QOS"] = job.qos();
  env["SLURM_CLUSTER_NAME"] = cluster_name;
  env["SLURM_SUBMIT_DIR"] = submit_dir;
  env["SLURM_SUBMIT_HOST"] = submit_host;
  if (!nodes.empty()) env["SLURM_STEPMGR"] = nodes.front();
  env["SKIFF_STEPMGR_ADDR"] = job.stepmgr_address();
  return env;
}

absl::Status Relinquish(client::CtldClient& client, const v1::JobInfo& job, int exit_code) {
  auto stub = v1::Noded::NewStub(MakeChannel(job.stepmgr_address()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(client.config().skiff.message_timeout));
  absl::Status status = AttachCredential(client.auth(), &context);
  if (status.ok()) {
    v1::EndAllocationRequest request;
    request.set_job_id(job.job_id());
    request.set_exit_code(exit_code);
    v1::EndAllocationReply reply;
    const grpc::Status s = stub->EndAllocation(&context, request, &reply);
    if (s.ok() || s.error_code() == grpc::StatusCode::NOT_FOUND)
      return absl::OkStatus();  // ended already
    status = absl::UnavailableError(s.error_message());
  }
  // The step manager is out of reach: ctld ends the job (CANCELLED).
  v1::CancelJobsRequest cancel;
  cancel.add_job_ids(job.job_id());
  v1::CancelJobsReply cancelled;
  return client.Call(&v1::Ctld::Stub::CancelJobs, cancel, &cancelled);
}

}  // namespace skiff::cli
