#include "noded/steps/step_env.h"

#include <sys/resource.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "common/propagated_limits.h"
#include "noded/gpu/mig.h"
#include "noded/steps/gpu_bind.h"

namespace skiff::noded {

void AddStepEnvironment(const StepFacts& facts, std::map<std::string, std::string>* env) {
  std::map<std::string, std::string>& e = *env;
  e["SLURM_STEP_ID"] = e["SLURM_STEPID"] = absl::StrCat(facts.step_id);
  e["SLURM_NTASKS"] = e["SLURM_NPROCS"] = e["SLURM_STEP_NUM_TASKS"] = absl::StrCat(facts.ntasks);
  e["SLURM_STEP_NODELIST"] = e["SLURM_NODELIST"] = CompressHostlist(facts.nodes);
  e["SLURM_STEP_NUM_NODES"] = e["SLURM_NNODES"] = absl::StrCat(facts.nodes.size());
  e["SLURM_STEP_TASKS_PER_NODE"] = e["SLURM_TASKS_PER_NODE"] = SlurmCountList(facts.tasks_per_node);
  if (facts.cpus_per_task > 0) e["SLURM_CPUS_PER_TASK"] = absl::StrCat(facts.cpus_per_task);
  e["SLURM_JOB_ID"] = e["SLURM_JOBID"] = absl::StrCat(facts.job_id);
  if (!facts.distribution.empty()) e["SLURM_DISTRIBUTION"] = facts.distribution;
  if (facts.plane_size > 0) e["SLURM_DIST_PLANESIZE"] = absl::StrCat(facts.plane_size);
  if (!facts.srun_address.empty()) {
    e["SLURM_LAUNCH_NODE_IPADDR"] = e["SLURM_SRUN_COMM_HOST"] = facts.srun_address;
  }
}

TaskLimits TaskLimitsFrom(const std::map<std::string, std::string>& step_env) {
  TaskLimits limits;
  if (auto it = step_env.find("SLURM_UMASK"); it != step_env.end()) {
    uint32_t mask = 0;
    if (!it->second.empty() && it->second.size() <= 4 &&
        it->second.find_first_not_of("01234567") == std::string::npos) {
      for (char c : it->second) mask = mask * 8 + static_cast<uint32_t>(c - '0');
      limits.umask = static_cast<int>(mask & 0777);
    }
  }
  for (const auto& [name, resource] : kPropagatedLimits) {
    auto it = step_env.find(absl::StrCat("SLURM_RLIMIT_", name));
    uint64_t value = 0;
    if (it != step_env.end() && absl::SimpleAtoi(it->second, &value)) {
      limits.rlimits.emplace_back(resource, value);
    }
  }
  return limits;
}

std::vector<std::string> TaskEnvironment(const std::map<std::string, std::string>& step_env,
                                         const TaskNodeFacts& node, int task_id, int local_id) {
  std::map<std::string, std::string> env = step_env;
  for (auto it = env.lower_bound("SLURM_RLIMIT_");
       it != env.end() && absl::StartsWith(it->first, "SLURM_RLIMIT_");) {
    it = env.erase(it);
  }
  env["SLURMD_NODENAME"] = node.node_name;
  env["SLURM_TOPOLOGY_ADDR"] = node.node_name;
  env["SLURM_TOPOLOGY_ADDR_PATTERN"] = "node";
  env["SLURM_NODEID"] = absl::StrCat(node.node_id);
  env["SLURM_GTIDS"] = absl::StrJoin(node.task_ids, ",");
  env["SLURM_CPUS_ON_NODE"] = absl::StrCat(node.cpus);
  env["SLURM_PROCID"] = absl::StrCat(task_id);
  env["SLURM_LOCALID"] = absl::StrCat(local_id);
  std::vector<int> bound = node.gpus;
  if (IsTaskGpuBind(node.gpu_bind)) {
    bound = BoundGpus(node.gpu_bind, node.gpus, local_id);
  } else if (node.gpus_per_task > 0) {
    const size_t first = static_cast<size_t>(local_id) * static_cast<size_t>(node.gpus_per_task);
    if (first + static_cast<size_t>(node.gpus_per_task) <= node.gpus.size()) {
      bound.assign(node.gpus.begin() + static_cast<std::ptrdiff_t>(first),
                   node.gpus.begin() + static_cast<std::ptrdiff_t>(first) + node.gpus_per_task);
    }
  }
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "SLURM_STEP_GPUS"}) {
    const std::vector<int>& gpus = std::string(name) == "SLURM_STEP_GPUS" ? node.gpus : bound;
    if (gpus.empty()) {
      env.erase(name);
    } else {
      env[name] = std::string(name) == "SLURM_STEP_GPUS"
                      ? absl::StrJoin(gpus, ",")
                      : CudaDeviceList(gpus, node.gpu_cuda_names);
    }
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) out.push_back(absl::StrCat(key, "=", value));
  return out;
}

std::string ExpandIoPattern(const std::string& pattern, const IoPatternFacts& facts) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && pattern[j] >= '0' && pattern[j] <= '9' && width < 100) {
      width = width * 10 + (pattern[j] - '0');
      ++j;
    }
    if (j >= pattern.size()) {
      out += pattern.substr(i);
      break;
    }
    auto padded = [&](uint64_t n) {
      std::string digits = std::to_string(n);
      if (static_cast<int>(digits.size()) < width) {
        digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
      }
      return digits;
    };
    switch (pattern[j]) {
      case '%':
        out += '%';
        break;
      case 't':
        out += padded(static_cast<uint64_t>(facts.task_id));
        break;
      case 'n':
        out += padded(static_cast<uint64_t>(facts.node_id));
        break;
      case 'N':
        out += facts.node_name;
        break;
      case 'j':
        out += padded(facts.job_id);
        break;
      case 's':
        out += padded(facts.step_id);
        break;
      case 'J':
        out += std::to_string(facts.job_id) + "." + std::to_string(facts.step_id);
        break;
      case 'u':
        out += facts.user;
        break;
      case 'x':
        out += facts.job_name;
        break;
      default:
        out += pattern.substr(i, j + 1 - i);
    }
    i = j;
  }
  return out;
}

}  // namespace skiff::noded
