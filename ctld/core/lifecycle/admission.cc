// One admission path (admission.h): the spec's own checks and the burst-buffer
// request. Lifecycle::CheckSubmission (lifecycle_admit.cc) adds the checks that
// need the job table.
#include "ctld/core/lifecycle/admission.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/checked_math.h"
#include "ctld/core/array_spec.h"
#include "ctld/core/burst_buffer/directives.h"
#include "ctld/core/dependency.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/lifecycle/mail.h"

namespace skiff::ctld {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// Slurm's controller sends the partition it did not find as a detail line
// before the summary (_get_job_parts' err_msg), which its clients print first.
absl::Status InvalidPartition(const std::string& name) {
  return Invalid(
      absl::StrCat("invalid partition specified: ", name, "\nInvalid partition name specified"));
}

// Slurm's refusals of sizes (src/common/slurm_errno.c; the first line of the
// two-line ones is slurmctld's err_msg, node_scheduler.c _set_err_msg, which
// sbatch prints before "Batch job submission failed: ...").
constexpr char kTooManyCpus[] = "More processors requested than permitted";
constexpr char kBadCpusPerNode[] =
    "CPU count per node can not be satisfied\nRequested node configuration is not available";
constexpr char kBadMemory[] =
    "Memory specification can not be satisfied\nRequested node configuration is not available";
constexpr char kBadTimeLimit[] = "Requested time limit is invalid (missing or exceeds some limit)";

// The sizes a request multiplies out to, held against its partition before the
// node-by-node check, so that no product wraps on the way (issue 32: `-n 65536
// -c 65536` was 2^32 CPUs, wrapped to none, and accepted with NumCPUs=1):
//  - tasks x CPUs per task against the partition's CPUs: Slurm's
//    _part_access_check (job_mgr.c), ESLURM_TOO_MANY_REQUESTED_CPUS; a product
//    past int (where Slurm's own uint32 min_cpus would wrap) names its fields;
//  - one task's CPUs and memory (the least a node of the job holds) against
//    the partition's largest node: Slurm's err_msg lines, then "Requested node
//    configuration is not available".
absl::Status CheckRequestSize(const JobRequest& request, const std::vector<NodeCapacity>& nodes) {
  int64_t partition_cpus = 0;
  int64_t largest_cpus = 0;
  uint64_t largest_memory = 0;
  for (const NodeCapacity& node : nodes) {
    if (std::find(node.partitions.begin(), node.partitions.end(), request.partition) ==
        node.partitions.end()) {
      continue;
    }
    partition_cpus += node.cpus;
    largest_cpus = std::max<int64_t>(largest_cpus, node.cpus);
    largest_memory = std::max(largest_memory, node.memory_mb);
  }
  // Every node of the partition excluded or missing: CheckSatisfiable says so.
  if (largest_cpus == 0) return absl::OkStatus();
  const std::optional<int> cpus = CheckedMul(request.ntasks, request.cpus_per_task);
  if (!cpus) {
    return Invalid(absl::StrCat("Requested CPU count overflows: NumTasks=", request.ntasks,
                                " x CPUs/Task=", request.cpus_per_task, "\n", kTooManyCpus));
  }
  // --overcommit: tasks beyond the CPUs are the point.
  if (*cpus > partition_cpus && !request.overcommit) return Invalid(kTooManyCpus);
  // Per node: one task (tasks spread over nodes, placement.h), or --mincpus.
  const int per_node = request.MinCpusPerNode();
  if (per_node > largest_cpus) return Invalid(kBadCpusPerNode);
  const std::optional<uint64_t> mem_per_node =
      request.mem_per_node_mb > 0
          ? std::optional<uint64_t>(request.mem_per_node_mb)
          : CheckedMul<uint64_t>(request.mem_per_cpu_mb, static_cast<uint64_t>(per_node));
  if (!mem_per_node || *mem_per_node > largest_memory) return Invalid(kBadMemory);
  return absl::OkStatus();
}

// --gres=shard[:N] or mps[:N]: N of one GPU on each node (gres/shard,
// gres/mps); one kind a job.
absl::Status ParseShares(const std::vector<std::string>& parts, JobRequest& request) {
  const GpuShareKind kind = parts[0] == "mps" ? GpuShareKind::kMps : GpuShareKind::kShard;
  int count = 1;
  if (parts.size() > 2 || (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &count)) ||
      count <= 0 || (request.shares_per_node > 0 && request.share_kind != kind)) {
    return Invalid("Invalid generic resource (gres) specification");
  }
  request.share_kind = kind;
  std::optional<int> sum = CheckedAdd(request.shares_per_node, count);
  if (!sum) return Invalid("Invalid generic resource (gres) specification");
  request.shares_per_node = *sum;
  return absl::OkStatus();
}

// --gres entries: "gpu", "gpu:2", "gpu:a100:2", "shard:2", "mps:50". gpu,
// shard and mps are the known gres, and one job asks for one of them (Slurm
// refuses a sharing gres beside the shared one: ESLURM_INVALID_GRES).
absl::Status ParseGres(const SubmitRequest& spec, const SkiffConfig& config, JobRequest& request) {
  for (const std::string& entry : spec.gres) {
    std::vector<std::string> parts = absl::StrSplit(entry, ':');
    if (!parts.empty() && (parts[0] == "shard" || parts[0] == "mps")) {
      if (absl::Status s = ParseShares(parts, request); !s.ok()) return s;
      continue;
    }
    if (parts.empty() || parts[0] != "gpu" || parts.size() > 3) {
      return Invalid("Invalid generic resource (gres) specification");
    }
    int count = 1;
    std::string type;
    if (parts.size() == 2) {
      // "gpu:2" is a count, "gpu:a100" a type (count 1). SimpleAtoi zeroes its
      // output on failure, so parse into a scratch value.
      int parsed = 0;
      if (absl::SimpleAtoi(parts[1], &parsed)) {
        count = parsed;
      } else {
        type = parts[1];
      }
    } else if (parts.size() == 3) {
      type = parts[1];
      if (!absl::SimpleAtoi(parts[2], &count)) {
        return Invalid("Invalid generic resource (gres) specification");
      }
    }
    // Entries add up ("gpu:2,gpu:a100:2"): a sum past int is no count at all.
    std::optional<int> sum = CheckedAdd(request.gpus_per_node, count);
    if (count < 0 || !sum) return Invalid("Invalid generic resource (gres) specification");
    request.gpus_per_node = *sum;
    if (!type.empty()) request.gpu_type = type;
  }
  if (request.shares_per_node > 0 && request.gpus_per_node > 0) {
    return Invalid("Invalid generic resource (gres) specification");
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

constexpr char kBadGres[] = "Invalid generic resource (gres) specification: ";

// --gpus-per-task, with -n or -G for the task count (Slurm's
// gres_job_state_validate). Skiff gives every node of a job the same GPUs, so
// the tasks are spread evenly: -N nodes (one without -N or
// --ntasks-per-node), each running ntasks / nodes of them with their GPUs.
// --cpus-per-gpu makes each task's CPUs its GPUs' (Slurm: cpus_per_task =
// cpus_per_gres * gres_per_task).
absl::Status ParseGpusPerTask(const SubmitRequest& spec, JobRequest& request) {
  if (!spec.gres.empty() || !spec.gpus_per_node.empty()) {
    return Invalid(
        absl::StrCat(kBadGres, "--gpus-per-task together with --gres or --gpus-per-node"));
  }
  int per_task = 0;
  if (absl::Status s =
          ParseGpuCount(spec.gpus_per_task, "--gpus-per-task", &per_task, &request.gpu_type);
      !s.ok()) {
    return s;
  }
  if (per_task == 0) {
    return Invalid(absl::StrCat("Invalid --gpus-per-task specification: ", spec.gpus_per_task));
  }
  int ntasks = spec.ntasks;
  if (!spec.gpus.empty()) {
    int total = 0;
    std::string type;
    if (absl::Status s = ParseGpuCount(spec.gpus, "--gpus", &total, &type); !s.ok()) return s;
    if (!type.empty() && !request.gpu_type.empty() && type != request.gpu_type) {
      return Invalid(absl::StrCat(kBadGres, "--gpus and --gpus-per-task name different types"));
    }
    if (request.gpu_type.empty()) request.gpu_type = type;
    if (total % per_task != 0) {
      return Invalid(absl::StrCat(kBadGres, "--gpus not multiple of --gpus-per-task"));
    }
    if (ntasks > 0 && ntasks != total / per_task) {
      return Invalid(absl::StrCat(kBadGres,
                                  "Based on --gpus and --gpus-per-task number of requested tasks "
                                  "differ from -n/--ntasks."));
    }
    ntasks = total / per_task;
  } else if (ntasks == 0 && spec.ntasks_per_node == 0) {
    return Invalid(absl::StrCat(
        kBadGres, "--gpus-per-task used without either --gpus or -n/--ntasks is not allowed."));
  }
  if (ntasks > 0) request.ntasks = ntasks;
  if (spec.ntasks_per_node > 0) {
    request.num_nodes =
        std::max(request.num_nodes, request.ntasks / spec.ntasks_per_node +
                                        (request.ntasks % spec.ntasks_per_node != 0 ? 1 : 0));
  } else if (!request.nodes_given) {
    // All tasks, with their GPUs, on one node (or on each -w node).
    request.num_nodes = std::max<int>(1, static_cast<int>(request.nodelist.size()));
  }
  if (request.max_nodes > 0 || request.ntasks % request.num_nodes != 0) {
    return Invalid(absl::StrCat(
        kBadGres, "--gpus-per-task with ", request.ntasks, " tasks cannot give ", request.num_nodes,
        request.max_nodes > 0 ? " or more" : "", " nodes the same tasks and GPUs each"));
  }
  request.nodes_given = true;
  request.ntasks_per_node = request.ntasks / request.num_nodes;
  std::optional<int> per_node = CheckedMul(per_task, request.ntasks_per_node);
  if (!per_node) return Invalid(absl::StrCat(kBadGres, "too many GPUs"));
  request.gpus_per_node = *per_node;
  if (spec.cpus_per_gpu > 0) {
    std::optional<int> cpus = CheckedMul(spec.cpus_per_gpu, per_task);
    if (!cpus) return Invalid("Invalid task or CPU count specified");
    if (spec.cpus_per_task > 0 && spec.cpus_per_task != *cpus) {
      return Invalid(absl::StrCat(kBadGres,
                                  "Based on --cpus-per-gpu and --gpus-per-task requested number "
                                  "of cpus differ from -c/--cpus-per-task."));
    }
    request.cpus_per_task = *cpus;
  }
  return absl::OkStatus();
}

// --gpus, --gpus-per-node, --gpus-per-task, --cpus-per-gpu and --mem-per-gpu
// on top of --gres.
absl::Status ParseGpuOptions(const SubmitRequest& spec, JobRequest& request) {
  if (spec.cpus_per_gpu < 0) return Invalid("Invalid task or CPU count specified");
  if (spec.cpus_per_gpu > 0 && spec.cpus_per_task > 0 && spec.gpus_per_task.empty()) {
    return Invalid("--cpus-per-gpu is mutually exclusive with --cpus-per-task");
  }
  if (!spec.gpus_per_task.empty()) {
    if (absl::Status s = ParseGpusPerTask(spec, request); !s.ok()) return s;
  }
  if (!spec.gpus_per_node.empty()) {
    if (!spec.gres.empty()) {
      return Invalid(
          "Invalid generic resource (gres) specification: --gres and --gpus-per-node "
          "both ask for GPUs");
    }
    if (absl::Status s = ParseGpuCount(spec.gpus_per_node, "--gpus-per-node",
                                       &request.gpus_per_node, &request.gpu_type);
        !s.ok()) {
      return s;
    }
  }
  if (!spec.gpus.empty() && spec.gpus_per_task.empty()) {
    if (!spec.gres.empty() || !spec.gpus_per_node.empty()) {
      return Invalid(
          "Invalid generic resource (gres) specification: --gpus together with "
          "--gres or --gpus-per-node");
    }
    int total = 0;
    if (absl::Status s = ParseGpuCount(spec.gpus, "--gpus", &total, &request.gpu_type); !s.ok()) {
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
  if (spec.cpus_per_gpu > 0) {
    if (request.gpus_per_node == 0) return Invalid("--cpus-per-gpu requires a GPU request");
    // Every node holds at least its GPUs' CPUs (with --gpus-per-task, its
    // tasks already ask for exactly those).
    std::optional<int> cpus = CheckedMul(spec.cpus_per_gpu, request.gpus_per_node);
    if (!cpus) return Invalid("Invalid task or CPU count specified");
    request.min_cpus_per_node = std::max(request.min_cpus_per_node, *cpus);
  }
  const int mem_options =
      (spec.mem_per_node_mb > 0) + (spec.mem_per_cpu_mb > 0) + (spec.mem_per_gpu_mb > 0);
  if (mem_options > 1) {
    return Invalid("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
  }
  if (spec.mem_per_gpu_mb > 0) {
    if (request.gpus_per_node == 0) return Invalid("--mem-per-gpu requires a GPU request");
    request.mem_per_gpu_mb = spec.mem_per_gpu_mb;
    std::optional<uint64_t> per_node =
        CheckedMul<uint64_t>(spec.mem_per_gpu_mb, static_cast<uint64_t>(request.gpus_per_node));
    if (!per_node || *per_node > kMaxMemoryMb) return Invalid(kBadMemory);
    request.mem_per_node_mb = *per_node;
    request.mem_per_cpu_mb = 0;
  }
  return absl::OkStatus();
}

}  // namespace

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

absl::Status CheckPartitionAccess(const Job& job, const PartitionConfig& partition,
                                  bool privileged) {
  if (partition.root_only && job.uid != 0 && !privileged) {
    return Invalid("Partition is restricted to root (RootOnly=YES)");
  }
  // The partition's Allow* lists, checked as Slurm does with EnforcePartLimits.
  auto allowed = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), "ALL") != list.end() ||
           std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!allowed(partition.allow_qos, job.qos)) {
    return Invalid(absl::StrCat("Job's QOS not permitted to use this partition (", partition.name,
                                " allows ", absl::StrJoin(partition.allow_qos, ","), " not ",
                                job.qos, ")"));
  }
  if (!allowed(partition.allow_accounts, job.account)) {
    return Invalid("Invalid account or account/partition combination specified");
  }
  if (!allowed(partition.allow_groups, job.group_name)) {
    return Invalid(absl::StrCat("User's group not permitted to use this partition (",
                                partition.name, " allows ",
                                absl::StrJoin(partition.allow_groups, ","), ")"));
  }
  if (partition.max_nodes >= 0 && job.request.num_nodes > partition.max_nodes) {
    return Invalid("Node count specification invalid (exceeds the partition's MaxNodes)");
  }
  const int64_t limit = job.request.time_limit;
  if (partition.max_time != kUnlimited && (limit == kUnlimited || limit > partition.max_time)) {
    return Invalid("Requested time limit is invalid (missing or exceeds some limit)");
  }
  return absl::OkStatus();
}

namespace {
// JobFromRequest for one partition (spec.partition names at most one).
absl::StatusOr<Job> JobInPartition(const SubmitRequest& spec, const SkiffConfig& config,
                                   const std::vector<NodeCapacity>& nodes,
                                   const std::vector<std::string>& qos_names);
}  // namespace

absl::StatusOr<Job> JobFromRequest(const SubmitRequest& spec, const SkiffConfig& config,
                                   const std::vector<NodeCapacity>& nodes,
                                   const std::vector<std::string>& qos_names) {
  if (spec.partition.find(',') == std::string::npos) {
    return JobInPartition(spec, config, nodes, qos_names);
  }
  // -p a,b: every name must exist; the job goes to the first partition that
  // accepts it (Slurm would keep it queued in all of them and start it in
  // whichever frees first; Skiff decides at submit).
  std::vector<std::string> names = absl::StrSplit(spec.partition, ',', absl::SkipEmpty());
  for (const std::string& name : names) {
    if (config.FindPartition(name) == nullptr) return InvalidPartition(name);
  }
  absl::Status first_error;
  for (const std::string& name : names) {
    SubmitRequest one = spec;
    one.partition = name;
    absl::StatusOr<Job> job = JobInPartition(one, config, nodes, qos_names);
    if (job.ok()) return job;
    if (first_error.ok()) first_error = job.status();
  }
  return first_error;
}

namespace {

absl::StatusOr<Job> JobInPartition(const SubmitRequest& spec, const SkiffConfig& config,
                                   const std::vector<NodeCapacity>& nodes,
                                   const std::vector<std::string>& qos_names) {
  const SubmitRequest& submitter = spec;
  if (spec.script.empty()) return Invalid("Batch script is empty!");
  if (static_cast<int64_t>(spec.script.size()) > config.scheduler_parameters.max_script_size) {
    return Invalid(ScriptTooLarge(spec.script.size(), config.scheduler_parameters.max_script_size));
  }
  if (spec.script.rfind("#!", 0) != 0) {
    return Invalid("Batch script must start with #! (a shebang line)");
  }
  if (!spec.work_dir.empty() && spec.work_dir[0] != '/') {
    return Invalid(absl::StrCat("Working directory must be absolute: ", spec.work_dir));
  }
  // sbatch and salloc check these too (cli/common/container_options.h); a
  // request from elsewhere is held to the same: a bundle is a path on the
  // nodes, and a script runs in one container, a bundle or an image.
  const ContainerSpec& container = spec.container;
  if (!container.bundle.empty() && container.bundle[0] != '/') {
    return Invalid(absl::StrCat("Container bundle path must be absolute: ", container.bundle));
  }
  if (!container.bundle.empty() && (!container.image.empty() || !container.name.empty())) {
    return Invalid(container.image.empty()
                       ? "--container and --container-name options are mutually exclusive"
                       : "--container and --container-image options are mutually exclusive");
  }
  if (config.disable_root_jobs && submitter.uid == 0) {
    return Invalid("User not permitted to submit jobs (DisableRootJobs=YES)");
  }
  const PartitionConfig* partition =
      spec.partition.empty() ? config.DefaultPartition() : config.FindPartition(spec.partition);
  if (partition == nullptr) {
    return spec.partition.empty() ? Invalid("No partition specified or system default partition")
                                  : InvalidPartition(spec.partition);
  }

  Job job;
  job.uid = submitter.uid;
  job.gid = submitter.gid;
  job.user_name = submitter.user_name;
  job.group_name = submitter.group_name;
  job.name = spec.name.empty() ? "sbatch" : spec.name;
  job.account = spec.account;
  job.reservation = spec.reservation;
  job.qos = spec.qos.empty() ? "normal" : spec.qos;
  if (std::find(qos_names.begin(), qos_names.end(), job.qos) == qos_names.end()) {
    return Invalid("Invalid qos specification");
  }
  job.requeue = spec.requeue.value_or(config.job_requeue);
  job.no_kill = spec.no_kill;
  job.held = spec.hold;
  if (!spec.dependency.empty()) {
    absl::StatusOr<Dependency> dependency = ParseDependency(spec.dependency, config.max_array_size);
    if (!dependency.ok()) return dependency.status();
    job.dependency = FormatDependency(*dependency);  // "" for "0"
    job.kill_on_invalid_dep = spec.kill_on_invalid_dep;
  }
  job.spec_blob = spec.spec_blob;
  job.comment = spec.comment;
  job.work_dir = spec.work_dir;
  job.mail_type = ParseMailType(spec.mail_type);
  if (std::string problem = MailUserProblem(spec.mail_user); !problem.empty()) {
    return Invalid(absl::StrCat("Invalid --mail-user specification: ", problem));
  }
  job.mail_user = spec.mail_user;
  job.interactive = spec.interactive;
  // Slurm's ESLURM_INVALID_NICE: a negative nice raises the job above others.
  if (spec.nice < 0 && spec.uid != 0) return Invalid("Invalid nice value");
  job.nice = spec.nice;
  // --priority: an operator's. Slurm 22.05 drops anyone else's without a word
  // (validate_job_create_req), so the job runs at a priority its user did not
  // ask for; Skiff refuses it instead, in the words of an update's refusal.
  if (spec.priority != 0) {
    if (!spec.privileged && spec.uid != 0) {
      return absl::PermissionDeniedError(
          "Access/permission denied (only an operator can set a job's priority)");
    }
    job.admin_priority = spec.priority;
  }
  if (spec.warn_signal < 0 || spec.warn_signal > 64 || spec.warn_time < 0) {
    return Invalid("Invalid --signal specification");
  }
  job.warn_signal = spec.warn_signal;
  job.warn_time = spec.warn_time;
  job.warn_batch_only = spec.warn_batch_only;

  JobRequest& request = job.request;
  request.partition = partition->name;
  request.num_nodes = std::max(1, spec.min_nodes);
  if (spec.max_nodes != 0 && spec.max_nodes < request.num_nodes) {
    return Invalid("Node count specification invalid");
  }
  request.nodes_given = spec.min_nodes > 0;
  request.max_nodes = spec.max_nodes > request.num_nodes ? spec.max_nodes : 0;
  request.ntasks = spec.ntasks > 0 ? spec.ntasks : request.num_nodes;
  if (spec.ntasks < 0 || spec.cpus_per_task < 0 || spec.min_cpus_per_node < 0) {
    return Invalid("Invalid task or CPU count specified");
  }
  request.min_cpus_per_node = spec.min_cpus_per_node;
  request.overcommit = spec.overcommit;
  request.use_min_nodes = spec.use_min_nodes;
  request.spread_job = spec.spread_job;
  request.contiguous = spec.contiguous;
  request.min_tmp_disk_mb = spec.min_tmp_disk_mb;
  request.min_topology = spec.min_topology;
  request.container = spec.container;
  if (!spec.licenses.empty()) {
    // Slurm's refusal for the grammar and for names or counts beyond Licenses=.
    absl::StatusOr<std::vector<LicenseCount>> licenses = ParseLicenses(spec.licenses);
    if (!licenses.ok()) return Invalid(kInvalidLicenses);
    if (absl::Status s = CheckLicenseRequest(*licenses, config.licenses); !s.ok()) return s;
    request.licenses_text = spec.licenses;
    request.licenses = *std::move(licenses);
  }
  request.cpus_per_task = std::max(1, spec.cpus_per_task);
  // Slurm keeps no memory size from 2^63 MB up (its MEM_PER_CPU flag bit).
  if (spec.mem_per_node_mb > kMaxMemoryMb || spec.mem_per_cpu_mb > kMaxMemoryMb ||
      spec.mem_per_gpu_mb > kMaxMemoryMb) {
    return Invalid(kBadMemory);
  }
  request.mem_per_node_mb = spec.mem_per_node_mb;
  request.mem_per_cpu_mb = spec.mem_per_cpu_mb;
  if (request.mem_per_node_mb == 0 && request.mem_per_cpu_mb == 0) {
    request.mem_per_cpu_mb = partition->def_mem_per_cpu_mb;
  }
  if (absl::Status s = ParseGres(spec, config, request); !s.ok()) return s;
  // OverSubscribe=EXCLUSIVE: every job of the partition gets whole nodes.
  request.exclusive = spec.exclusive || partition->oversubscribe == "EXCLUSIVE";
  // -s: a job that holds its nodes whole shares nothing.
  request.oversubscribe = spec.oversubscribe && !request.exclusive;
  request.nodelist.assign(spec.nodelist.begin(), spec.nodelist.end());
  request.exclude.assign(spec.exclude.begin(), spec.exclude.end());
  // -w names more nodes than -N: the job gets them all, as in Slurm.
  request.num_nodes = std::max<int>(request.num_nodes, request.nodelist.size());
  if (spec.ntasks_per_node < 0) return Invalid("Invalid task or CPU count specified");
  request.ntasks_per_node = spec.ntasks_per_node;
  if (spec.ntasks_per_node > 0) {
    // -n with it: enough nodes that no node runs more; without -n: that many
    // tasks on every node, as Slurm.
    if (spec.ntasks > 0) {
      request.num_nodes =
          std::max(request.num_nodes, spec.ntasks / spec.ntasks_per_node +
                                          (spec.ntasks % spec.ntasks_per_node != 0 ? 1 : 0));
    } else {
      std::optional<int> ntasks = CheckedMul(spec.ntasks_per_node, request.num_nodes);
      if (!ntasks) {
        return Invalid(absl::StrCat("Requested task count overflows: NumNodes=", request.num_nodes,
                                    " x NtasksPerN=", spec.ntasks_per_node, "\n", kTooManyCpus));
      }
      request.ntasks = *ntasks;
    }
  }
  if (spec.ntasks == 0 && spec.ntasks_per_node == 0) request.ntasks = request.num_nodes;
  if (absl::Status s = ParseGpuOptions(spec, request); !s.ok()) return s;
  if (request.shares_per_node > 0 && request.gpus_per_node > 0) {
    return Invalid("Invalid generic resource (gres) specification");  // --gpus beside shards
  }
  if (absl::Status s = ParseConstraint(spec.constraint, request); !s.ok()) return s;
  if (!spec.prefer.empty()) {
    JobRequest preferred;
    if (absl::Status s = ParseConstraint(spec.prefer, preferred); !s.ok()) return s;
    request.prefer = std::move(preferred.features);
  }

  // Time limit: the partition's DefaultTime (else MaxTime) when not given;
  // above MaxTime is refused, as Slurm does with EnforcePartLimits.
  const int64_t default_time =
      partition->default_time != kUnlimited ? partition->default_time : partition->max_time;
  request.time_limit = spec.time_limit.value_or(default_time);
  // Seconds as sent: below -1 (UNLIMITED) or past Slurm's largest limit (which
  // `now + limit` must also hold) is no limit at all.
  if (request.time_limit < kUnlimited || request.time_limit > kMaxTimeLimitSeconds) {
    return Invalid(kBadTimeLimit);
  }
  if (request.time_limit == 0) request.time_limit = kUnlimited;  // Slurm: -t 0 = no limit
  // --time-min: within the time limit and the partition's MaxTime (Slurm's
  // ESLURM_INVALID_TIME_MIN_LIMIT).
  if (spec.time_min != 0) {
    const bool over = spec.time_min < 0 || spec.time_min > kMaxTimeLimitSeconds ||
                      (request.time_limit != kUnlimited && spec.time_min > request.time_limit) ||
                      (partition->max_time != kUnlimited && spec.time_min > partition->max_time);
    if (over) {
      return Invalid("Invalid time-min specification (exceeds job's time or other limits)");
    }
    request.time_min = spec.time_min;
  }
  request.begin_time = spec.begin_time;
  request.deadline = spec.deadline;
  if (absl::Status s = CheckPartitionAccess(job, *partition, /*privileged=*/false); !s.ok()) {
    return s;
  }

  if (absl::Status s = CheckRequestSize(request, nodes); !s.ok()) return s;
  if (absl::Status s = CheckSatisfiable(request, nodes); !s.ok()) return s;
  return job;
}

}  // namespace

absl::Status AdmitBurstBuffer(const SubmitRequest& request, const BurstBufferConfig* bb,
                              const BbPoolTable& pools, Job& job) {
  if (bb == nullptr) {
    if (!request.burst_buffer.empty()) {
      return Invalid("Burst Buffer request invalid (BurstBufferType is not set)");
    }
    return absl::OkStatus();
  }
  // The script's #BB_LUA lines and the --bb/--bbf text.
  std::vector<std::string> lines = ExtractBbDirectives(request.script, bb->directive);
  for (std::string& line : BbOptionToDirectives(request.burst_buffer, bb->directive)) {
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  }
  if (lines.empty()) return absl::OkStatus();
  if (absl::Status s = CheckBbUser(job.uid, job.user_name, *bb); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "\n", BbSubmitErrorText(s)));
  }
  absl::StatusOr<BbRequest> parsed = ParseBbRequest(lines, bb->directive, pools);
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(), absl::StrCat(parsed.status().message(), "\n",
                                                             BbSubmitErrorText(parsed.status())));
  }
  job.bb_directives = absl::StrJoin(lines, "\n");
  job.bb_pool = parsed->pool;
  job.bb_size = parsed->size;
  job.bb_state = BbState::kPending;
  return absl::OkStatus();
}

absl::Status CheckPartitionTakesJobs(const PartitionConfig& partition) {
  // DOWN accepts jobs and starts none; the scheduler keeps them pending.
  if (partition.state == "DRAIN" || partition.state == "INACTIVE") {
    return Invalid("Required partition not available (inactive or drain)");
  }
  return absl::OkStatus();
}

}  // namespace skiff::ctld
