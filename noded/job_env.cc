#include "noded/job_env.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::noded {

std::vector<std::string> BuildJobEnvironment(const LaunchSpec& spec, pid_t task_pid) {
  std::map<std::string, std::string> env = spec.environment;
  env["SLURMD_NODENAME"] = spec.node_name;
  env["SLURM_NODEID"] = "0";
  env["SLURM_PROCID"] = "0";
  env["SLURM_LOCALID"] = "0";
  env["SLURM_GTIDS"] = "0";
  env["SLURM_TASK_PID"] = absl::StrCat(task_pid);
  env["SLURM_CPUS_ON_NODE"] = absl::StrCat(spec.cpus);
  constexpr const char* kGpuLists[] = {"SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES",
                                       "GPU_DEVICE_ORDINAL"};
  if (spec.gpu_indices.empty()) {
    for (const char* name : kGpuLists) env.erase(name);
    env.erase("SLURM_GPUS_ON_NODE");
  } else {
    const std::string indices = absl::StrJoin(spec.gpu_indices, ",");
    for (const char* name : kGpuLists) env[name] = indices;
    env["SLURM_GPUS_ON_NODE"] = absl::StrCat(spec.gpu_indices.size());
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(absl::StrCat(name, "=", value));
  return out;
}

}  // namespace skiff::noded
