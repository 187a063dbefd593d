#include "ctld/rpc/job_convert.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ctld/core/dependency.h"
#include "ctld/launch_builder.h"

namespace skiff {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// --gres entries: "gpu", "gpu:2", "gpu:a100:2". Only gpu is a known gres.
absl::Status ParseGres(const v1::JobSpec& spec, const SkiffConfig& config, JobRequest& request) {
  for (const std::string& entry : spec.gres()) {
    std::vector<std::string> parts = absl::StrSplit(entry, ':');
    if (parts.empty() || parts[0] != "gpu" || parts.size() > 3) {
      return Invalid("Invalid generic resource (gres) specification");
    }
    int count = 1;
    std::string type;
    if (parts.size() == 2) {
      if (!absl::SimpleAtoi(parts[1], &count)) type = parts[1];
    } else if (parts.size() == 3) {
      type = parts[1];
      if (!absl::SimpleAtoi(parts[2], &count)) {
        return Invalid("Invalid generic resource (gres) specification");
      }
    }
    if (count < 0) return Invalid("Invalid generic resource (gres) specification");
    request.gpus_per_node += count;
    if (!type.empty()) request.gpu_type = type;
  }
  (void)config;
  return absl::OkStatus();
}

// --gpus / --gpus-per-node text: "4" or "a100:2".
absl::Status ParseGpuCount(const std::string& text, const char* option, int* count,
                           std::string* type) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  const std::string& number = parts.back();
  if (parts.size() > 2 || !absl::SimpleAtoi(number, count) || *count < 0) {
    return Invalid(absl::StrCat("Invalid ", option, " specification: ", text));
  }
  if (parts.size() == 2) *type = parts[0];
  return absl::OkStatus();
}

// --gpus, --gpus-per-node and --mem-per-gpu on top of --gres.
absl::Status ParseGpuOptions(const v1::JobSpec& spec, JobRequest& request) {
  if (!spec.gpus_per_node().empty()) {
    if (!spec.gres().empty()) {
      return Invalid(
          "Invalid generic resource (gres) specification: --gres and --gpus-per-node "
          "both ask for GPUs");
    }
    if (absl::Status s = ParseGpuCount(spec.gpus_per_node(), "--gpus-per-node",
                                       &request.gpus_per_node, &request.gpu_type);
        !s.ok()) {
      return s;
    }
  }
  if (!spec.gpus().empty()) {
    if (!spec.gres().empty() || !spec.gpus_per_node().empty()) {
      return Invalid(
          "Invalid generic resource (gres) specification: --gpus together with "
          "--gres or --gpus-per-node");
    }
    int total = 0;
    if (absl::Status s = ParseGpuCount(spec.gpus(), "--gpus", &total, &request.gpu_type); !s.ok()) {
      return s;
    }
    // A job total spread evenly: Skiff places the same GPU count on every node.
    if (total % request.num_nodes != 0) {
      return Invalid(absl::StrCat("Invalid --gpus specification: ", total,
                                  " GPUs cannot be spread evenly over ", request.num_nodes,
                                  " nodes"));
    }
    request.gpus_per_node = total / request.num_nodes;
  }
  const int mem_options =
      (spec.mem_per_node_mb() > 0) + (spec.mem_per_cpu_mb() > 0) + (spec.mem_per_gpu_mb() > 0);
  if (mem_options > 1) {
    return Invalid("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
  }
  if (spec.mem_per_gpu_mb() > 0) {
    if (request.gpus_per_node == 0) return Invalid("--mem-per-gpu requires a GPU request");
    request.mem_per_gpu_mb = spec.mem_per_gpu_mb();
    request.mem_per_node_mb = spec.mem_per_gpu_mb() * request.gpus_per_node;
    request.mem_per_cpu_mb = 0;
  }
  return absl::OkStatus();
}

// -C: "a", "a&b", "a,b" (every feature required).
absl::Status ParseConstraint(const std::string& text, JobRequest& request) {
  if (text.empty()) return absl::OkStatus();
  if (text.find_first_of("|[]*") != std::string::npos) {
    return Invalid(absl::StrCat("Invalid feature specification: ", text,
                                " (only AND lists such as a&b are supported)"));
  }
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar("&,"))) {
    if (part.empty()) return Invalid(absl::StrCat("Invalid feature specification: ", text));
    request.features.emplace_back(part);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Job> JobFromSpec(const v1::JobSpec& spec, const Submitter& submitter,
                                const SkiffConfig& config, const std::vector<NodeCapacity>& nodes,
                                const std::vector<std::string>& qos_names) {
  if (spec.script().empty()) return Invalid("Batch script is empty!");
  if (spec.script().rfind("#!", 0) != 0) {
    return Invalid("Batch script must start with #! (a shebang line)");
  }
  if (!spec.work_dir().empty() && spec.work_dir()[0] != '/') {
    return Invalid(absl::StrCat("Working directory must be absolute: ", spec.work_dir()));
  }
  if (config.disable_root_jobs && submitter.uid == 0) {
    return Invalid("User not permitted to submit jobs (DisableRootJobs=YES)");
  }
  const PartitionConfig* partition =
      spec.partition().empty() ? config.DefaultPartition() : config.FindPartition(spec.partition());
  if (partition == nullptr) {
    return Invalid(spec.partition().empty() ? "No partition specified or system default partition"
                                            : "Invalid partition name specified");
  }
  if (partition->root_only && submitter.uid != 0) {
    return Invalid("Partition is restricted to root (RootOnly=YES)");
  }

  Job job;
  job.uid = submitter.uid;
  job.gid = submitter.gid;
  job.user_name = submitter.user_name;
  job.group_name = submitter.group_name;
  job.name = spec.name().empty() ? "sbatch" : spec.name();
  job.account = spec.account();
  job.qos = spec.qos().empty() ? "normal" : spec.qos();
  if (std::find(qos_names.begin(), qos_names.end(), job.qos) == qos_names.end()) {
    return Invalid("Invalid qos specification");
  }
  // The partition's Allow* lists, checked at submit as Slurm does (EnforcePartLimits).
  auto allowed = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), "ALL") != list.end() ||
           std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!allowed(partition->allow_qos, job.qos)) {
    return Invalid(absl::StrCat("Job's QOS not permitted to use this partition (", partition->name,
                                " allows ", absl::StrJoin(partition->allow_qos, ","), " not ",
                                job.qos, ")"));
  }
  if (!allowed(partition->allow_accounts, job.account)) {
    return Invalid("Invalid account or account/partition combination specified");
  }
  if (!allowed(partition->allow_groups, submitter.group_name)) {
    return Invalid(absl::StrCat("User's group not permitted to use this partition (",
                                partition->name, " allows ",
                                absl::StrJoin(partition->allow_groups, ","), ")"));
  }
  job.requeue = spec.has_requeue() ? spec.requeue() : config.job_requeue;
  job.held = spec.hold();
  if (!spec.dependency().empty()) {
    absl::StatusOr<Dependency> dependency =
        ParseDependency(spec.dependency(), config.max_array_size);
    if (!dependency.ok()) return dependency.status();
    job.dependency = FormatDependency(*dependency);  // "" for "0"
    job.kill_on_invalid_dep = spec.kill_on_invalid_dep();
  }
  job.spec_blob = spec.SerializeAsString();

  JobRequest& request = job.request;
  request.partition = partition->name;
  request.num_nodes = std::max(1, spec.min_nodes());
  if (spec.max_nodes() != 0 && spec.max_nodes() < request.num_nodes) {
    return Invalid("Node count specification invalid");
  }
  if (partition->max_nodes >= 0 && request.num_nodes > partition->max_nodes) {
    return Invalid("Node count specification invalid (exceeds the partition's MaxNodes)");
  }
  request.ntasks = spec.ntasks() > 0 ? spec.ntasks() : request.num_nodes;
  if (spec.ntasks() < 0 || spec.cpus_per_task() < 0) {
    return Invalid("Invalid task or CPU count specified");
  }
  request.cpus_per_task = std::max(1, spec.cpus_per_task());
  request.mem_per_node_mb = spec.mem_per_node_mb();
  request.mem_per_cpu_mb = spec.mem_per_cpu_mb();
  if (request.mem_per_node_mb == 0 && request.mem_per_cpu_mb == 0) {
    request.mem_per_cpu_mb = partition->def_mem_per_cpu_mb;
  }
  if (absl::Status s = ParseGres(spec, config, request); !s.ok()) return s;
  request.exclusive = spec.exclusive();
  request.nodelist.assign(spec.nodelist().begin(), spec.nodelist().end());
  request.exclude.assign(spec.exclude().begin(), spec.exclude().end());
  // -w names more nodes than -N: the job gets them all, as in Slurm.
  request.num_nodes = std::max<int>(request.num_nodes, request.nodelist.size());
  if (spec.ntasks() == 0) request.ntasks = request.num_nodes;
  if (absl::Status s = ParseGpuOptions(spec, request); !s.ok()) return s;
  if (absl::Status s = ParseConstraint(spec.constraint(), request); !s.ok()) return s;

  // Time limit: the partition's DefaultTime (else MaxTime) when not given;
  // above MaxTime is refused, as Slurm does with EnforcePartLimits.
  const int64_t default_time =
      partition->default_time != kUnlimited ? partition->default_time : partition->max_time;
  request.time_limit = spec.has_time_limit() ? spec.time_limit() : default_time;
  if (request.time_limit == 0) request.time_limit = kUnlimited;  // Slurm: -t 0 = no limit
  if (partition->max_time != kUnlimited &&
      (request.time_limit == kUnlimited || request.time_limit > partition->max_time)) {
    return Invalid("Requested time limit is invalid (missing or exceeds some limit)");
  }
  request.begin_time = spec.begin_time();

  if (absl::Status s = CheckSatisfiable(request, nodes); !s.ok()) return s;
  return job;
}

v1::JobState ToProtoState(JobState state) {
  switch (state) {
    case JobState::kPending:
      return v1::PENDING;
    case JobState::kConfiguring:
      return v1::CONFIGURING;
    case JobState::kRunning:
      return v1::RUNNING;
    case JobState::kCompleting:
      return v1::COMPLETING;
    case JobState::kCompleted:
      return v1::COMPLETED;
    case JobState::kFailed:
      return v1::FAILED;
    case JobState::kCancelled:
      return v1::CANCELLED;
    case JobState::kTimeout:
      return v1::TIMEOUT;
    case JobState::kNodeFail:
      return v1::NODE_FAIL;
    case JobState::kOutOfMemory:
      return v1::OUT_OF_MEMORY;
    case JobState::kPreempted:
      return v1::PREEMPTED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

absl::StatusOr<JobState> FromProtoState(v1::JobState state) {
  switch (state) {
    case v1::PENDING:
      return JobState::kPending;
    case v1::CONFIGURING:
      return JobState::kConfiguring;
    case v1::RUNNING:
      return JobState::kRunning;
    case v1::COMPLETING:
      return JobState::kCompleting;
    case v1::COMPLETED:
      return JobState::kCompleted;
    case v1::FAILED:
      return JobState::kFailed;
    case v1::CANCELLED:
      return JobState::kCancelled;
    case v1::TIMEOUT:
      return JobState::kTimeout;
    case v1::NODE_FAIL:
      return JobState::kNodeFail;
    case v1::OUT_OF_MEMORY:
      return JobState::kOutOfMemory;
    case v1::PREEMPTED:
      return JobState::kPreempted;
    default:
      return absl::InvalidArgumentError(absl::StrCat("Invalid job state ", state));
  }
}

void JobToInfo(const Job& job, int64_t now, v1::JobInfo* out) {
  out->set_job_id(job.id);
  out->mutable_spec()->ParseFromString(job.spec_blob);
  // What scontrol update may have changed since submission.
  out->mutable_spec()->set_name(job.name);
  out->mutable_spec()->set_partition(job.request.partition);
  out->mutable_spec()->set_account(job.account);
  out->mutable_spec()->set_qos(job.qos);
  out->set_user_id(job.uid);
  out->set_group_id(job.gid);
  out->set_user_name(job.user_name);
  out->set_group_name(job.group_name);
  out->set_state(ToProtoState(job.state));
  out->set_state_reason(job.reason);
  out->set_state_description(job.reason_detail);
  out->set_submit_time(job.submit_time);
  out->set_eligible_time(job.eligible_time);
  out->set_start_time(job.start_time);
  out->set_end_time(job.end_time);
  out->set_time_limit(job.request.time_limit);
  out->set_partition(job.request.partition);
  out->set_account(job.account);
  out->set_qos(job.qos);
  for (const std::string& node : job.nodes) out->add_nodes(node);
  out->set_num_nodes(job.nodes.empty() ? job.request.num_nodes
                                       : static_cast<int>(job.nodes.size()));
  out->set_num_cpus(job.nodes.empty() ? job.request.ntasks * job.request.cpus_per_task
                                      : job.cpus_per_node * static_cast<int>(job.nodes.size()));
  out->set_num_tasks(job.request.ntasks);
  out->set_cpus_per_task(job.request.cpus_per_task);
  out->set_mem_per_node_mb(job.nodes.empty() ? job.request.MemPerNodeMb() : job.mem_per_node_mb);
  for (int gpu : job.gpu_indices) out->add_gpu_indices(gpu);
  out->set_exit_code(job.exit_code);
  out->set_exit_signal(job.exit_signal);
  out->set_restart_count(job.restart_count);
  out->set_held(job.held);
  out->set_held_by_admin(job.held_by_admin);
  const v1::JobSpec& spec = out->spec();
  const std::string stdout_path = ExpandOutputPattern(spec.stdout_pattern(), job, spec.work_dir());
  out->set_stdout_path(stdout_path);
  out->set_stderr_path(spec.stderr_pattern().empty()
                           ? stdout_path
                           : ExpandOutputPattern(spec.stderr_pattern(), job, spec.work_dir()));
  out->set_priority(job.held ? 0 : static_cast<uint32_t>(std::max<int64_t>(1, job.priority)));
  if (job.UsesBurstBuffer()) {
    out->mutable_spec()->set_burst_buffer(job.bb_directives);
    out->set_burst_buffer_state(BbStateName(job.bb_state));
  }
  out->set_array_job_id(job.array_job_id);
  out->set_array_task_id(job.array_task_id);
  out->set_array_max_running(job.array_max_running);
  out->set_dependency(job.dependency_text);
  if (job.state == JobState::kPending) {
    v1::PriorityFactors* f = out->mutable_priority_factors();
    f->set_priority(job.held ? 0 : job.priority);
    f->set_age(job.factors.age);
    f->set_fairshare(job.factors.fairshare);
    f->set_job_size(job.factors.job_size);
    f->set_partition(job.factors.partition);
    f->set_qos(job.factors.qos);
    out->set_expected_start(job.expected_start);
  }
  out->set_now(now);
}

}  // namespace skiff
