#include "ctld/launch_builder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "ctld/core/array_spec.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
namespace {

constexpr char kNoArrayIndex[] = "4294967294";

// The GPUs noded gives the job on its i-th node: those it holds whole and
// the one its shards are on (gres/shard: the GPU is in CUDA_VISIBLE_DEVICES
// and the device cgroup as a whole one is, shared with the GPU's other
// shard jobs).
std::vector<int> NodedGpus(const Job& job, size_t i) {
  std::vector<int> gpus = i < job.gpus_by_node.size() ? job.gpus_by_node[i]
                          : i == 0                    ? job.gpu_indices
                                                      : std::vector<int>{};
  if (i < job.shares_by_node.size() && job.shares_by_node[i].count > 0) {
    gpus.push_back(job.shares_by_node[i].gpu);
    std::sort(gpus.begin(), gpus.end());
  }
  return gpus;
}

// SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP of the array `array_text`
// (--array as written; validated at submit, so MaxArraySize does not matter
// here). Nothing for a spec without one.
void AddArrayShape(const std::string& array_text, std::map<std::string, std::string>& env) {
  if (array_text.empty()) return;
  absl::StatusOr<ArraySpec> array = ParseArraySpec(array_text, kMaxMaxArraySize);
  if (!array.ok() || array->task_ids.empty()) return;
  const std::vector<uint32_t>& ids = array->task_ids;
  uint32_t step = ids.size() > 1 ? ids[1] - ids[0] : 1;
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] - ids[i - 1] != step) step = 1;
  }
  env["SLURM_ARRAY_TASK_COUNT"] = absl::StrCat(ids.size());
  env["SLURM_ARRAY_TASK_MIN"] = absl::StrCat(ids.front());
  env["SLURM_ARRAY_TASK_MAX"] = absl::StrCat(ids.back());
  env["SLURM_ARRAY_TASK_STEP"] = absl::StrCat(step);
}

}  // namespace

std::vector<int> TasksPerNode(int ntasks, size_t nodes) {
  if (nodes == 0) return {};
  const int n = static_cast<int>(nodes);
  const int tasks = std::max(ntasks, n);
  std::vector<int> out(nodes, tasks / n);
  for (int i = 0; i < tasks % n; ++i) ++out[i];
  return out;
}

std::string ExpandOutputPattern(const std::string& pattern, const Job& job,
                                const std::string& work_dir) {
  // Slurm's defaults: slurm-%j.out, and for an array task slurm-%A_%a.out.
  const std::string source = !pattern.empty()         ? pattern
                             : job.array_task_id >= 0 ? std::string("slurm-%A_%a.out")
                                                      : std::string("slurm-%j.out");
  std::string out;
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] != '%' || i + 1 == source.size()) {
      out += source[i];
      continue;
    }
    const char code = source[++i];
    switch (code) {
      case 'j':
        absl::StrAppend(&out, job.id);
        break;
      case 'A':
        absl::StrAppend(&out, job.array_job_id != 0 ? job.array_job_id : job.id);
        break;
      case 'x':
        out += job.name;
        break;
      case 'u':
        out += job.user_name;
        break;
      case 'a':
        if (job.array_task_id >= 0) {
          absl::StrAppend(&out, job.array_task_id);
        } else {
          out += kNoArrayIndex;
        }
        break;
      case 'N':
        out += job.nodes.empty() ? std::string() : job.nodes.front();
        break;
      case '%':
        out += '%';
        break;
      default:  // unknown codes stay as written, as Slurm does
        out += '%';
        out += code;
    }
  }
  if (!out.empty() && out[0] != '/') out = absl::StrCat(work_dir, "/", out);
  return out;
}

std::string WorkingCluster(const std::string& cluster_name, const std::string& ctld_addr,
                           int ctld_port) {
  constexpr int kSlurm2205ProtocolVersion = 38 << 8;  // SLURM_22_05_PROTOCOL_VERSION
  constexpr int kSelectConsTres = 109;                // SELECT_PLUGIN_CONS_TRES
  return absl::StrCat(cluster_name, ":", ctld_addr, ":", ctld_port, ":", kSlurm2205ProtocolVersion,
                      ":", kSelectConsTres);
}

std::map<std::string, std::string> JobEnvironment(const Job& job, const v1::JobSpec& spec,
                                                  const ClusterFacts& facts) {
  std::map<std::string, std::string> env(spec.environment().begin(), spec.environment().end());
  const std::string nodelist = CompressHostlist(job.nodes);
  const std::string id = absl::StrCat(job.id);
  const std::string nodes = absl::StrCat(job.nodes.size());
  const std::string cpus = absl::StrCat(job.CpusOn(0));
  env["SLURM_JOB_ID"] = id;
  env["SLURM_JOBID"] = id;
  env["SLURM_JOB_NAME"] = job.name;
  // As Slurm: set once the job has been requeued (node failure, fencing, requeue).
  if (job.restart_count > 0) env["SLURM_RESTART_COUNT"] = absl::StrCat(job.restart_count);
  env["SLURM_JOB_NODELIST"] = nodelist;
  env["SLURM_NODELIST"] = nodelist;
  env["SLURM_JOB_NUM_NODES"] = nodes;
  env["SLURM_NNODES"] = nodes;
  // As Slurm: the task count only when the job asked for one (-n).
  if (spec.ntasks() > 0) {
    env["SLURM_NTASKS"] = absl::StrCat(job.request.ntasks);
    env["SLURM_NPROCS"] = absl::StrCat(job.request.ntasks);
  }
  if (spec.cpus_per_task() > 0) env["SLURM_CPUS_PER_TASK"] = absl::StrCat(spec.cpus_per_task());
  // As Slurm, each only when asked: srun in the job reads them, giving every
  // task its own GPUs (and their CPUs).
  if (!spec.gpus_per_task().empty()) env["SLURM_GPUS_PER_TASK"] = spec.gpus_per_task();
  if (spec.cpus_per_gpu() > 0) env["SLURM_CPUS_PER_GPU"] = absl::StrCat(spec.cpus_per_gpu());
  // -O: srun in the job reads it and overcommits its steps too, as in Slurm.
  if (job.request.overcommit) env["SLURM_OVERCOMMIT"] = "1";
  if (spec.ntasks_per_node() > 0) {
    env["SLURM_NTASKS_PER_NODE"] = absl::StrCat(spec.ntasks_per_node());
  }
  env["SLURM_JOB_CPUS_PER_NODE"] = SlurmCountList(job.cpus_by_node);
  env["SLURM_TASKS_PER_NODE"] =
      SlurmCountList(job.tasks_by_node.size() == job.nodes.size()
                         ? job.tasks_by_node
                         : TasksPerNode(job.request.ntasks, std::max<size_t>(1, job.nodes.size())));
  if (job.request.mem_per_cpu_mb > 0 && job.request.mem_per_node_mb == 0) {
    env["SLURM_MEM_PER_CPU"] = absl::StrCat(job.request.mem_per_cpu_mb);
  } else {
    // No --mem: the job may use the whole node, as Slurm without memory limits.
    env["SLURM_MEM_PER_NODE"] =
        absl::StrCat(job.MemOnMb(0) > 0 ? job.MemOnMb(0) : facts.node_real_memory_mb);
  }
  env["SLURM_SUBMIT_DIR"] = spec.submit_dir();
  env["SLURM_SUBMIT_HOST"] = spec.submit_host();
  env["SLURM_JOB_PARTITION"] = job.request.partition;
  if (!job.account.empty()) env["SLURM_JOB_ACCOUNT"] = job.account;
  env["SLURM_JOB_QOS"] = job.qos;
  env["SLURM_JOB_USER"] = job.user_name;
  env["SLURM_JOB_UID"] = absl::StrCat(job.uid);
  env["SLURM_JOB_GID"] = absl::StrCat(job.gid);
  env["SLURM_CLUSTER_NAME"] = facts.cluster_name;
  if (!facts.working_cluster.empty()) env["SLURM_WORKING_CLUSTER"] = facts.working_cluster;
  // Never SLURM_CONF: a real Slurm client on the same host would read
  // skiff.conf as slurm.conf and fail. Skiff's own commands read SKIFF_CONF.
  env.erase("SLURM_CONF");
  env["SKIFF_CONF"] = facts.conf_path;
  env["SLURM_NODE_ALIASES"] = "(null)";
  env["SLURM_PRIO_PROCESS"] = "0";
  env["SLURM_TOPOLOGY_ADDR"] = job.nodes.empty() ? "" : job.nodes.front();
  env["SLURM_TOPOLOGY_ADDR_PATTERN"] = "node";
  // sbatch's default (ALL) is not announced, as in Slurm.
  if (!spec.export_mode().empty() && spec.export_mode() != "ALL") {
    env["SLURM_EXPORT_ENV"] = spec.export_mode();
  }
  if (job.array_job_id != 0) {
    env["SLURM_ARRAY_JOB_ID"] = absl::StrCat(job.array_job_id);
    env["SLURM_ARRAY_TASK_ID"] = absl::StrCat(job.array_task_id);
    AddArrayShape(spec.array(), env);
  }
  return env;
}

BatchLaunch BuildBatchLaunch(const Job& job, const v1::JobSpec& spec, const ClusterFacts& facts) {
  BatchLaunch launch;
  launch.job_id = job.id;
  launch.uid = job.uid;
  launch.gid = job.gid;
  launch.user_name = job.user_name;
  launch.script = spec.script();
  launch.argv.assign(spec.argv().begin(), spec.argv().end());
  launch.environment = JobEnvironment(job, spec, facts);
  launch.work_dir = spec.work_dir();
  launch.stdout_path = ExpandOutputPattern(spec.stdout_pattern(), job, spec.work_dir());
  if (!spec.stderr_pattern().empty()) {
    launch.stderr_path = ExpandOutputPattern(spec.stderr_pattern(), job, spec.work_dir());
  }
  launch.stdin_path = spec.stdin_path();
  launch.time_limit = job.request.time_limit;
  launch.cpus = job.CpusOn(0);
  launch.memory_mb = job.MemOnMb(0);
  launch.gpu_indices = NodedGpus(job, 0);
  if (!job.shares_by_node.empty() && job.shares_by_node.front().count > 0) {
    const int32_t count = job.shares_by_node.front().count;
    const bool mps = job.request.share_kind == GpuShareKind::kMps;
    if (mps || facts.share_fenced) {
      launch.mps_gpu = job.shares_by_node.front().gpu;
      // Slurm's gres/mps: the share of the GPU's count, at least 1%.
      const int64_t percent = facts.share_gpu_count > 0
                                  ? std::max<int64_t>(1, count * 100LL / facts.share_gpu_count)
                                  : count;
      launch.environment["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = absl::StrCat(percent);
    }
    // Fenced: the same share of the GPU's memory, which noded turns into
    // CUDA_MPS_PINNED_DEVICE_MEM_LIMIT (only it knows the GPU's memory).
    if (facts.share_fenced && facts.share_gpu_count > 0) {
      launch.mps_memory_fraction = static_cast<double>(count) / facts.share_gpu_count;
    }
    if (!mps) launch.environment["SLURM_SHARDS_ON_NODE"] = absl::StrCat(count);
  }
  launch.run = job.restart_count + 1;
  // Slurm's JobFileAppend=0: a first run truncates unless --open-mode=append;
  // a requeued run appends, keeping what the earlier runs wrote.
  launch.truncate_output = job.restart_count == 0 && spec.open_mode() != "append";
  for (size_t i = 0; i < job.nodes.size() && i < facts.node_targets.size(); ++i) {
    NodeShare share;
    share.name = job.nodes[i];
    share.address = facts.node_targets[i];
    share.cpus = job.CpusOn(i);
    share.memory_mb = job.MemOnMb(i) != 0 ? job.MemOnMb(i) : facts.node_real_memory_mb;
    share.gpu_indices = NodedGpus(job, i);
    if (i < job.cpu_ids_by_node.size()) share.cpu_ids = job.cpu_ids_by_node[i];
    launch.allocation.push_back(std::move(share));
  }
  if (!job.cpu_ids_by_node.empty()) launch.cpu_ids = job.cpu_ids_by_node.front();
  // The job's container is the batch script's; its steps bring their own
  // (srun's StepRequest.container), as in Slurm.
  launch.container = job.request.container;
  // srun inside the job finds its step manager here (Slurm 24.05 names the
  // node in SLURM_STEPMGR; Skiff also gives its noded's address).
  if (!facts.node_targets.empty()) {
    launch.environment["SLURM_STEPMGR"] = job.nodes.front();
    launch.environment["SKIFF_STEPMGR_ADDR"] = facts.node_targets.front();
  }
  return launch;
}

BatchLaunch BuildBatchLaunch(const Job& job, const std::string& stored_spec,
                             const std::map<std::string, std::string>& extra_environment,
                             const ClusterFacts& facts) {
  v1::JobSpec spec = JoinSpec(job.spec_blob, stored_spec);
  for (const auto& [key, value] : extra_environment) (*spec.mutable_environment())[key] = value;
  return BuildBatchLaunch(job, spec, facts);
}

std::map<std::string, std::string> JobDetailsEnvironment(const Job& job) {
  std::map<std::string, std::string> env;
  v1::JobSpec spec;
  if (!spec.ParseFromString(job.spec_blob)) return env;
  if (!spec.stderr_pattern().empty()) env["SLURM_JOB_STDERR"] = spec.stderr_pattern();
  if (!spec.stdin_path().empty()) env["SLURM_JOB_STDIN"] = spec.stdin_path();
  if (!spec.stdout_pattern().empty()) env["SLURM_JOB_STDOUT"] = spec.stdout_pattern();
  if (job.array_job_id != 0) AddArrayShape(spec.array(), env);
  return env;
}

ScriptCall BuildCtldScriptCall(CtldScript which, const std::string& path, int64_t timeout_seconds,
                               const Job& job, const ClusterFacts& facts) {
  const bool prolog = which == CtldScript::kProlog;
  ScriptCall call;
  call.request_id = absl::StrCat(prolog ? "prolog-" : "epilog-", job.id, "-", job.restart_count);
  call.path = path;
  call.timeout_seconds = timeout_seconds;
  call.job_id = job.id;
  call.run_once = true;
  std::map<std::string, std::string>& env = call.environment;
  env["PATH"] = "/usr/sbin:/usr/bin:/sbin:/bin";
  env["SLURM_SCRIPT_CONTEXT"] = prolog ? "prolog_slurmctld" : "epilog_slurmctld";
  env["SLURM_JOB_ID"] = absl::StrCat(job.id);
  env["SLURM_JOBID"] = absl::StrCat(job.id);
  env["SLURM_JOB_NAME"] = job.name;
  env["SLURM_JOB_USER"] = job.user_name;
  env["SLURM_JOB_UID"] = absl::StrCat(job.uid);
  env["SLURM_JOB_GID"] = absl::StrCat(job.gid);
  env["SLURM_JOB_NODELIST"] = CompressHostlist(job.nodes);
  env["SLURM_JOB_PARTITION"] = job.request.partition;
  env["SLURM_JOB_ACCOUNT"] = job.account;
  env["SLURM_CLUSTER_NAME"] = facts.cluster_name;
  env["SKIFF_CONF"] = facts.conf_path;
  if (!job.gpu_indices.empty()) {
    env["SLURM_JOB_GPUS"] = absl::StrJoin(job.gpu_indices, ",");
  }
  if (!prolog) {
    env["SLURM_JOB_EXIT_CODE"] = absl::StrCat(job.exit_code << 8 | job.exit_signal);
    env["SLURM_JOB_EXIT_CODE2"] = absl::StrCat(job.exit_code, ":", job.exit_signal);
    env["SLURM_JOB_DERIVED_EC"] = absl::StrCat(job.exit_code);
  }
  return call;
}

}  // namespace skiff::ctld
