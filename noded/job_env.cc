#include "noded/job_env.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "noded/gpu/mig.h"

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
    // SLURM_JOB_GPUS lists indices; CUDA's variables name a MIG device by its
    // own name, as Slurm's gres/gpu sets them.
    env["SLURM_JOB_GPUS"] = absl::StrJoin(spec.gpu_indices, ",");
    const std::string cuda =
        CudaDeviceList({spec.gpu_indices.begin(), spec.gpu_indices.end()}, spec.gpu_cuda_names);
    env["CUDA_VISIBLE_DEVICES"] = cuda;
    env["GPU_DEVICE_ORDINAL"] = cuda;
    env["SLURM_GPUS_ON_NODE"] = absl::StrCat(spec.gpu_indices.size());
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(absl::StrCat(name, "=", value));
  return out;
}

}  // namespace skiff::noded
