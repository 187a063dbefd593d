// The environment of a step's tasks, as Slurm 22.05's srun and slurmstepd set
// it. Pure.
#ifndef SKIFF_NODED_STEPS_STEP_ENV_H_
#define SKIFF_NODED_STEPS_STEP_ENV_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace skiff::noded {

// What every task of the step shares, added by the step manager to srun's
// environment: SLURM_STEP_ID/SLURM_STEPID, SLURM_NTASKS/SLURM_NPROCS,
// SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST/SLURM_NODELIST,
// SLURM_STEP_NUM_NODES/SLURM_NNODES, SLURM_STEP_TASKS_PER_NODE/
// SLURM_TASKS_PER_NODE, SLURM_CPUS_PER_TASK (when -c was given), and where
// srun runs: SLURM_LAUNCH_NODE_IPADDR and SLURM_SRUN_COMM_HOST.
struct StepFacts {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  int ntasks = 0;
  std::vector<std::string> nodes;  // the step's, in task order
  std::vector<int> tasks_per_node;
  int cpus_per_task = 0;     // 0: not given
  std::string srun_address;  // srun's IP address as the step manager saw it; "" = unknown
  // SLURM_DISTRIBUTION (-m's name, "block" by default) and, for plane,
  // SLURM_DIST_PLANESIZE; "" and 0 leave what srun's environment had.
  std::string distribution;
  int plane_size = 0;
};
void AddStepEnvironment(const StepFacts& facts, std::map<std::string, std::string>* env);

// srun's umask and resource limits, which Slurm's srun passes in its
// environment (SLURM_UMASK, octal; SLURM_RLIMIT_<NAME>, the soft limit in
// decimal, for CPU FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS, as
// PropagateResourceLimits=ALL) and slurmstepd applies to each task.
struct TaskLimits {
  int umask = -1;                                 // -1: leave noded's
  std::vector<std::pair<int, uint64_t>> rlimits;  // (RLIMIT_*, soft limit)
};
TaskLimits TaskLimitsFrom(const std::map<std::string, std::string>& step_env);

// One node's part and one task's: SLURMD_NODENAME, SLURM_NODEID, SLURM_GTIDS,
// SLURM_CPUS_ON_NODE, SLURM_PROCID, SLURM_LOCALID, SLURM_TOPOLOGY_ADDR (the
// node; topology/none's pattern "node"), without the SLURM_RLIMIT_* variables
// (applied, not passed on, as Slurm's), and the step's GPUs on the
// node in CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL and SLURM_STEP_GPUS (removed
// when it has none, so an inherited value cannot point at another step's GPUs).
struct TaskNodeFacts {
  std::string node_name;
  int node_id = 0;
  std::vector<int> task_ids;  // on this node
  int cpus = 0;
  std::vector<int> gpus;
  // --gpus-per-task: task `local_id` is bound to gpus[local_id * N, +N)
  // (CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL); SLURM_STEP_GPUS lists all.
  int gpus_per_task = 0;
  // --gpu-bind=map_gpu:/mask_gpu:/closest/single:N (gpu_bind.h), which wins
  // over gpus_per_task; "" when not given.
  std::string gpu_bind;
  // By the node's GPU index: a MIG device's CUDA name; "" or missing = index.
  std::vector<std::string> gpu_cuda_names;
};
// "NAME=VALUE" strings sorted by name.
std::vector<std::string> TaskEnvironment(const std::map<std::string, std::string>& step_env,
                                         const TaskNodeFacts& node, int task_id, int local_id);

// srun -o/-e/-i FILE patterns, as slurmstepd expands them for one task: %t task
// id, %n node index in the step, %N node name, %j job id, %s step id, %J
// "job.step", %u user, %x job name, %% a '%'. A number between '%' and the
// letter pads with zeros ("%3t" -> "007"); an unknown letter stays as written.
struct IoPatternFacts {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  int task_id = 0;
  int node_id = 0;
  std::string node_name;
  std::string user;
  std::string job_name;
};
std::string ExpandIoPattern(const std::string& pattern, const IoPatternFacts& facts);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_ENV_H_
