// One admission path: every rule that decides whether a submission is accepted.
//
// The rpc/ edge turns sbatch's v1::JobSpec into a SubmitRequest (plain fields,
// the caller's identity from its credential) and Lifecycle::Admit runs these
// checks and reserves the job's ids in one step under the Controller's lock, so
// two concurrent submissions cannot both squeeze under MaxSubmitJobsPerUser or
// MaxJobCount. Pure: no I/O; the burst-buffer hook slurm_bb_job_process (Lua)
// runs afterwards, outside the lock, and may still refuse.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_ADMISSION_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_ADMISSION_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/container_spec.h"
#include "ctld/core/job.h"
#include "ctld/core/resources.h"

namespace skiff::ctld {

// sbatch's request, as plain data. Field meanings are v1::JobSpec's.
struct SubmitRequest {
  uid_t uid = 0;  // from the credential
  gid_t gid = 0;
  std::string user_name;
  std::string group_name;

  std::string script;
  std::string work_dir;
  std::string name;
  std::string partition;
  std::string account;
  std::string qos;
  std::string reservation;  // --reservation
  std::string comment;
  std::string mail_type;        // --mail-type as written ("END,FAIL")
  std::string mail_user;        // --mail-user; "" = the submitting user
  bool interactive = false;     // salloc/srun allocation: no batch step
  int32_t nice = 0;             // --nice; < 0 is for root only (Slurm: operators)
  int32_t ntasks_per_node = 0;  // --ntasks-per-node; 0 = not given
  bool privileged = false;      // root, SlurmUser, SkiffOperators or an admin: from the credential
  int64_t priority = 0;         // --priority; 0 = none; operators only (refused for others)
  int32_t warn_signal = 0;      // --signal
  int32_t warn_time = 0;
  bool warn_batch_only = false;  // --signal=B:...: the batch shell only
  int min_nodes = 0;             // -N; 0 = not given
  int max_nodes = 0;
  int ntasks = 0;
  int min_cpus_per_node = 0;  // --mincpus
  bool overcommit = false;    // -O
  bool use_min_nodes = false;
  bool spread_job = false;
  bool contiguous = false;
  uint64_t min_tmp_disk_mb = 0;  // --tmp
  NodeTopology min_topology;     // -B, --sockets-per-node, ...
  bool oversubscribe = false;    // -s
  std::string licenses;          // -L as written
  std::string prefer;            // --prefer, -C syntax
  int64_t time_min = 0;          // --time-min seconds; 0 = none
  bool no_kill = false;          // -k
  int cpus_per_task = 0;
  uint64_t mem_per_node_mb = 0;
  uint64_t mem_per_cpu_mb = 0;
  uint64_t mem_per_gpu_mb = 0;
  std::optional<int64_t> time_limit;
  std::vector<std::string> gres;
  std::string gpus;
  std::string gpus_per_node;
  std::string gpus_per_task;  // --gpus-per-task as written
  int cpus_per_gpu = 0;       // --cpus-per-gpu
  bool hold = false;
  int64_t begin_time = 0;
  int64_t deadline = 0;  // --deadline, unix seconds; 0 = none
  std::optional<bool> requeue;
  std::string dependency;
  bool kill_on_invalid_dep = false;
  std::string burst_buffer;  // --bb / --bbf text
  std::string array;         // --array as written
  bool exclusive = false;
  std::vector<std::string> nodelist;
  std::vector<std::string> exclude;
  std::string constraint;
  ContainerSpec container;  // --container / --container-image ...
  // The serialized spec without its script, arguments and environment, kept
  // opaque with every job (and every array task) in memory.
  std::string spec_blob;
  // Those three alone (a serialized spec holding only them): stored once per
  // submission, with the first job, and read back from the store when a job
  // launches. Never held in ctld's memory: they are most of a spec's size.
  std::string payload_blob;
};

// A submission that passed every admission rule (Lifecycle::CheckSubmission):
// the job it makes (no id yet) and, for an array, its task ids.
struct CheckedSubmission {
  Job job;
  std::vector<uint32_t> tasks;  // empty: not an array
  uint32_t max_running = 0;     // the array's %N throttle; 0 = none
  size_t count = 1;             // jobs it makes: its tasks, or 1
  // What the submitter is told beside acceptance (Lifecycle::BudgetWarnings).
  std::vector<std::string> warnings;
};

// An admitted submission: ids reserved, not yet in the table.
struct Admitted {
  uint64_t first_id = 0;
  std::vector<std::string> warnings;  // CheckedSubmission's
  std::vector<Job> jobs;              // one per array task (ids first_id, first_id+1, ...)
  // burst_buffer/lua: per job, the script the Lua hooks open (directives expanded
  // and merged); empty when the job uses no buffer.
  std::vector<std::string> bb_scripts;
};

// The rules that tie a job to its partition: RootOnly (unless `privileged`:
// root, SlurmUser and admins may place jobs anywhere), AllowQos, AllowAccounts,
// AllowGroups, MaxNodes and MaxTime. Checked at submit and again by every
// update that changes the partition, QOS, account, node count or time limit,
// so that an update cannot reach what submission refuses. InvalidArgument
// with Slurm's message.
// -C: "a", "a&b", "a,b" (every feature required), appended to request.features.
// InvalidArgument "Invalid feature specification: ..." for other forms.
absl::Status ParseConstraint(const std::string& text, JobRequest& request);

absl::Status CheckPartitionAccess(const Job& job, const PartitionConfig& partition,
                                  bool privileged);

// Slurm's partition states: DRAIN and INACTIVE take no new jobs, by submission
// or by an update that moves a job there (Slurm's PARTITION_SUBMIT), for
// operators too. InvalidArgument "Required partition not available (inactive
// or drain)".
absl::Status CheckPartitionTakesJobs(const PartitionConfig& partition);

// The checks that need no cluster state: the spec itself, the partition's
// limits and Allow* lists, QOS names, GPU/memory options, features, time limit,
// satisfiability on `nodes`. Returns the job (no id yet). A partition list
// ("a,b", sbatch -p a,b) puts the job in the first that accepts it; the error
// is the first partition's when none does.
absl::StatusOr<Job> JobFromRequest(const SubmitRequest& request, const SkiffConfig& config,
                                   const std::vector<NodeCapacity>& nodes,
                                   const std::vector<std::string>& qos_names);

// The burst-buffer part: directive lines from the script and --bb, the user
// check, pool and capacity. Sets bb_directives/bb_pool/bb_size/bb_state.
// `bb` is null without burst_buffer/lua.
absl::Status AdmitBurstBuffer(const SubmitRequest& request, const BurstBufferConfig* bb,
                              const BbPoolTable& pools, Job& job);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_ADMISSION_H_
