// What ctld sends to run a job: the batch launch for noded and the
// PrologSlurmctld/EpilogSlurmctld calls for scriptd, as the ports' plain data.
// Pure functions of the job, its submitted spec and a few cluster facts; the one
// place besides ctld/rpc and ctld/state that reads the submitted spec.
#ifndef SKIFF_CTLD_LAUNCH_BUILDER_H_
#define SKIFF_CTLD_LAUNCH_BUILDER_H_

#include <map>
#include <string>
#include <vector>

#include "ctld/clients/noded_port.h"
#include "ctld/clients/scriptd_port.h"
#include "ctld/core/job.h"
#include "proto/job.pb.h"

namespace skiff::ctld {

struct ClusterFacts {
  std::string cluster_name;
  std::string conf_path;             // skiff.conf, exported as SKIFF_CONF (never SLURM_CONF)
  uint64_t node_real_memory_mb = 0;  // of the batch host, for SLURM_MEM_PER_NODE without --mem
  // "addr:port" of each of the job's nodes' noded, in job.nodes order: the
  // allocation the job's step manager (nodes[0]'s noded) carves steps from.
  std::vector<std::string> node_targets = {};
  // SLURM_WORKING_CLUSTER's value (WorkingCluster()); "" = not set.
  std::string working_cluster = "";
  // gres/mps: the count of the GPU the job's share is on, on the batch host
  // (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE divides by it); 0 = none.
  int32_t share_gpu_count = 0;
  // The batch host's shares are fenced (gres.conf Flags=fence): a shard job
  // runs under the GPU's MPS server too, with thread and memory limits.
  bool share_fenced = false;
};

// Slurm 22.05's SLURM_WORKING_CLUSTER: "ClusterName:address:SlurmctldPort:
// protocol version:select plugin id", the address being SlurmctldAddr, else
// SlurmctldHost's (env.c). Skiff speaks 22.05's protocol (9728) with cons_tres (109).
std::string WorkingCluster(const std::string& cluster_name, const std::string& ctld_addr,
                           int ctld_port);

// Slurm's filename patterns: %j job id, %x job name, %u user, %A array master
// (the job id here), %a array index (4294967294 outside arrays, as Slurm), %N
// first node, %% a percent sign. A relative result is made absolute against
// `work_dir`. An empty pattern means Slurm's default "slurm-%j.out", or
// "slurm-%A_%a.out" for an array task.
std::string ExpandOutputPattern(const std::string& pattern, const Job& job,
                                const std::string& work_dir);

// `ntasks` spread over `nodes` as Slurm's block distribution: the first nodes
// one more than the rest when they do not divide; at least one each.
std::vector<int> TasksPerNode(int ntasks, size_t nodes);

// The job-wide environment: the user's exported variables plus Slurm's SLURM_*
// set (noded adds the node-local ones such as SLURM_TASK_PID and the GPU lists).
std::map<std::string, std::string> JobEnvironment(const Job& job, const v1::JobSpec& spec,
                                                  const ClusterFacts& facts);

BatchLaunch BuildBatchLaunch(const Job& job, const v1::JobSpec& spec, const ClusterFacts& facts);

// The same from what the job store holds: the job's own spec blob joined with
// the script and environment stored once per job or array (`stored_spec`,
// JobStore::LoadSpec), with `extra_environment` (slurm_bb_paths' lines) among
// the user's variables.
BatchLaunch BuildBatchLaunch(const Job& job, const std::string& stored_spec,
                             const std::map<std::string, std::string>& extra_environment,
                             const ClusterFacts& facts);

// What Slurm's job_common_env_vars takes from the job's details, which only
// the submitted spec holds (for MailProg): the output paths as given, and the
// array's shape.
std::map<std::string, std::string> JobDetailsEnvironment(const Job& job);

enum class CtldScript { kProlog, kEpilog };

// PrologSlurmctld/EpilogSlurmctld with Slurm's environment for them
// (SLURM_JOB_ID, SLURM_JOB_USER, SLURM_SCRIPT_CONTEXT, ...).
ScriptCall BuildCtldScriptCall(CtldScript which, const std::string& path, int64_t timeout_seconds,
                               const Job& job, const ClusterFacts& facts);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_LAUNCH_BUILDER_H_
