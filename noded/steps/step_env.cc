#include "noded/steps/step_env.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"

namespace skiff {

void AddStepEnvironment(const StepFacts& facts, std::map<std::string, std::string>* env) {
  std::map<std::string, std::string>& e = *env;
  e["SLURM_STEP_ID"] = e["SLURM_STEPID"] = absl::StrCat(facts.step_id);
  e["SLURM_NTASKS"] = e["SLURM_NPROCS"] = e["SLURM_STEP_NUM_TASKS"] = absl::StrCat(facts.ntasks);
  e["SLURM_STEP_NODELIST"] = e["SLURM_NODELIST"] = CompressHostlist(facts.nodes);
  e["SLURM_STEP_NUM_NODES"] = e["SLURM_NNODES"] = absl::StrCat(facts.nodes.size());
  e["SLURM_STEP_TASKS_PER_NODE"] = e["SLURM_TASKS_PER_NODE"] = SlurmCountList(facts.tasks_per_node);
  if (facts.cpus_per_task > 0) e["SLURM_CPUS_PER_TASK"] = absl::StrCat(facts.cpus_per_task);
  e["SLURM_JOB_ID"] = e["SLURM_JOBID"] = absl::StrCat(facts.job_id);
}

std::vector<std::string> TaskEnvironment(const std::map<std::string, std::string>& step_env,
                                         const TaskNodeFacts& node, int task_id, int local_id) {
  std::map<std::string, std::string> env = step_env;
  env["SLURMD_NODENAME"] = node.node_name;
  env["SLURM_NODEID"] = absl::StrCat(node.node_id);
  env["SLURM_GTIDS"] = absl::StrJoin(node.task_ids, ",");
  env["SLURM_CPUS_ON_NODE"] = absl::StrCat(node.cpus);
  env["SLURM_PROCID"] = absl::StrCat(task_id);
  env["SLURM_LOCALID"] = absl::StrCat(local_id);
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "SLURM_STEP_GPUS"}) {
    if (node.gpus.empty()) {
      env.erase(name);
    } else {
      env[name] = absl::StrJoin(node.gpus, ",");
    }
  }
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) out.push_back(absl::StrCat(key, "=", value));
  return out;
}

}  // namespace skiff
