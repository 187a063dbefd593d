// The batch job's environment. Pure.
#ifndef SKIFF_NODED_JOB_ENV_H_
#define SKIFF_NODED_JOB_ENV_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "noded/job_files.h"

namespace skiff::noded {

// The environment the batch script runs with, as "NAME=VALUE" strings sorted by
// name: the request's environment (the user's exported variables plus ctld's
// job-wide SLURM_* ones) overlaid with what this node adds, as Slurm 22.05's
// slurmd does for a batch step:
//   SLURMD_NODENAME, SLURM_NODEID=0, SLURM_PROCID=0, SLURM_LOCALID=0,
//   SLURM_GTIDS=0, SLURM_TASK_PID=`task_pid`, SLURM_CPUS_ON_NODE=spec.cpus,
// and, when the job has GPUs here, SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES and
// GPU_DEVICE_ORDINAL (the indices comma-joined, "0,1") and SLURM_GPUS_ON_NODE
// (their count). A job without GPUs here has those four removed, so a
// CUDA_VISIBLE_DEVICES exported from the submit host cannot point it at GPUs
// other jobs hold (noded has no device cgroup to stop it).
std::vector<std::string> BuildJobEnvironment(const LaunchSpec& spec, pid_t task_pid);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_JOB_ENV_H_
