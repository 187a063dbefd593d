// A batch job as ctld's core sees it: plain C++, no protobuf.
//
// The submitted spec's fields the core needs (resources, limits, names) are
// copied into JobRequest; everything else (script, environment, paths) stays in
// `spec_blob`, the serialized v1::JobSpec that only the rpc/ edge reads.
//
// Ownership: Jobs live in the lifecycle core's JournaledState
// (ctld/core/lifecycle/journaled_state.h), under the Controller's mutex.
#ifndef SKIFF_CTLD_CORE_JOB_H_
#define SKIFF_CTLD_CORE_JOB_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/licenses.h"
#include "common/node_topology.h"
#include "common/tres_usage.h"
#include "ctld/core/burst_buffer/bb_state.h"
#include "ctld/core/container_spec.h"
#include "ctld/core/job_mail.h"

namespace skiff::ctld {

enum class JobState {
  kPending,
  kConfiguring,  // resources allocated, PrologSlurmctld / launch in progress
  kRunning,
  kCompleting,  // the batch script ended; EpilogSlurmctld in progress
  kCompleted,
  kFailed,
  kCancelled,
  kTimeout,
  kNodeFail,
  kOutOfMemory,
  kPreempted,
  // Last: the store keeps states by number.
  kSuspended,  // scontrol suspend: stopped (SIGSTOP), resources kept, time limit paused
  kDeadline,   // --deadline: it could no longer end in time, so it never started
};

// Slurm's upper-case name: "PENDING", "NODE_FAIL", ...
const char* JobStateName(JobState state);
// True for the final states (COMPLETED ... DEADLINE): a job leaves one only
// through scontrol requeue.
bool IsFinal(JobState state);
// True for the states in which a job holds its nodes' resources (CONFIGURING,
// RUNNING, SUSPENDED; a COMPLETING job has given them back).
bool HoldsResources(JobState state);

inline constexpr int64_t kUnlimited = -1;

// Slurm's shared GPU gres, one kind a node: shards (gres/shard: a count per
// GPU, nothing more) or MPS (gres/mps: a GPU's count, 100 by convention, is
// its compute, which CUDA_MPS_ACTIVE_THREAD_PERCENTAGE divides; the MPS jobs
// of a node use one GPU at a time, as Slurm's default one_sharing, and one
// user's at a time, as one MPS server serves one user).
enum class GpuShareKind : uint8_t { kShard, kMps };

// The gres name: "shard", "mps".
inline const char* GpuShareGres(GpuShareKind kind) {
  return kind == GpuShareKind::kMps ? "mps" : "shard";
}

// The share of one GPU a job holds on one node (gres/shard or gres/mps). As
// Slurm 22.05 gives them, a job's shares on a node all come from one GPU.
struct GpuShare {
  int32_t gpu = -1;  // the GPU's index on the node; -1 = none
  int32_t count = 0;
  bool operator==(const GpuShare& o) const { return gpu == o.gpu && count == o.count; }
};

// The resources and limits a job asked for, after validation and defaults.
struct JobRequest {
  std::string partition;  // resolved (default partition filled in)
  int num_nodes = 1;      // the fewest nodes (-N min)
  // -N min-max: at most this many; 0 = as many as the tasks spread over when
  // -N was not given, else num_nodes. A job never gets more nodes than tasks.
  int max_nodes = 0;
  bool nodes_given = false;  // -N was given: without it -n spreads over as few nodes as fit
  int ntasks = 1;
  int cpus_per_task = 1;
  int ntasks_per_node = 0;     // --ntasks-per-node; 0 = none
  int min_cpus_per_node = 0;   // --mincpus
  bool overcommit = false;     // -O: one task's CPUs per node, tasks past the CPUs
  bool use_min_nodes = false;  // --use-min-nodes: a -N range is not filled to its top
  bool spread_job = false;     // --spread-job: as many nodes as there are tasks
  bool contiguous = false;     // --contiguous: consecutive nodes (in slurm.conf order)
  // --tmp: only nodes whose TmpDisk is at least this many MB (Slurm's
  // pn_min_tmp_disk). A floor each node must meet, not an amount jobs take.
  uint64_t min_tmp_disk_mb = 0;
  // -B, --sockets-per-node, --cores-per-socket, --threads-per-core: floors on
  // a node's layout (common/node_topology.h); 0 = not asked.
  NodeTopology min_topology;
  // -s/--oversubscribe: the job may share CPUs with other jobs that asked the
  // same, where its partition allows it (OverSubscribe=YES or FORCE).
  bool oversubscribe = false;
  // -L/--licenses: as written (scontrol show job's Licenses=) and parsed
  // (common/licenses.h); held from start to end, counted cluster-wide.
  std::string licenses_text;
  std::vector<LicenseCount> licenses;
  uint64_t mem_per_node_mb = 0;  // 0 = none asked (see mem_per_cpu_mb)
  uint64_t mem_per_cpu_mb = 0;
  int gpus_per_node = 0;    // from --gres=gpu[:type]:N
  std::string gpu_type;     // empty = any
  int shares_per_node = 0;  // --gres=shard:N or mps:N: N of one GPU on each node
  GpuShareKind share_kind = GpuShareKind::kShard;  // which, when shares_per_node > 0
  int64_t time_limit = kUnlimited;                 // seconds, resolved against the partition
  int64_t time_min = 0;                            // --time-min seconds; 0 = none (scheduler.h's)
  int64_t begin_time = 0;                          // not eligible before this (unix seconds)
  int64_t deadline = 0;               // --deadline: must be able to end by then; 0 = none
  uint64_t mem_per_gpu_mb = 0;        // --mem-per-gpu (folded into mem_per_node_mb at submit)
  bool exclusive = false;             // --exclusive: whole nodes
  std::vector<std::string> nodelist;  // -w: every one of these nodes
  std::vector<std::string> exclude;   // -x
  std::vector<std::string> features;  // -C a&b: every one required
  // --prefer a&b: every one, where nodes with them are free now; else -C's.
  std::vector<std::string> prefer;
  // --container or --container-image ...: what the batch script runs in
  // (LaunchJobRequest.container); empty: on the host. Steps send their own.
  ContainerSpec container;

  // The products below never wrap: a request too large for the type is pinned
  // to its maximum, which no node holds (admission refuses such requests; the
  // pinning keeps anything that slipped by, an older stored job, unrunnable).
  int64_t TotalCpus() const;      // ntasks * cpus_per_task
  int CpusPerNode() const;        // ceil(TotalCpus() / num_nodes)
  uint64_t MemPerNodeMb() const;  // mem_per_node_mb, or mem_per_cpu_mb * CpusPerNode()
  // The least CPUs one node of the job holds: one task's (or --mincpus).
  int MinCpusPerNode() const;
  // The most nodes it may be given: the top of -N, else (for -n alone) one a
  // task, never more nodes than tasks without --overcommit.
  int MaxNodes() const;
};

// What a batch script used, from its rusage (sacct's batch step: TotalCPU,
// MaxRSS, ...); measured false: not reported (a launch failure, an older noded).
struct BatchUsage {
  bool measured = false;
  int64_t user_cpu_usec = 0;
  int64_t system_cpu_usec = 0;
  int64_t max_rss_kb = 0;
};

// What one GPU the job held did while it ran, from its node's end report
// (noded/gpu/gpu_usage.h): seff's GPU lines, sacct's gres/gpuutil and
// gres/gpumem, the job's GPU energy.
struct GpuUsage {
  std::string node;
  int index = 0;         // the GPU's gres index on `node`
  int64_t samples = 0;   // samples with a utilisation figure
  int64_t util_sum = 0;  // percent, summed over those samples
  int util_max = 0;
  int64_t memory_samples = 0;
  uint64_t memory_sum_mib = 0;  // the job's memory on it, MiB summed over those samples
  uint64_t memory_max_bytes = 0;
  uint64_t memory_total_bytes = 0;
  uint64_t energy_mj = 0;  // 0: no energy counter
};

// The lifecycle's bookkeeping of one run, persisted so that a restarted ctld
// resumes where it was. Which combinations each JobState allows is written
// next to NextState (job_state.h); Requeue resets it for the next run.
struct RunProgress {
  bool prolog_done = false;       // PrologSlurmctld finished OK (or none)
  bool launched = false;          // noded accepted LaunchJob
  bool cancel_requested = false;  // scancel (or preemption) arrived while CONFIGURING
  bool preempt_requeue = false;   // preempted with PreemptMode=REQUEUE: back to PENDING at the end
  // scontrol requeue / requeuehold of a job that holds resources: once it has
  // been torn down it goes back to PENDING (held, for requeuehold) instead of
  // ending. A later scancel wins.
  enum class RequeueRequest { kNone = 0, kRequeue = 1, kRequeueHold = 2 };
  RequeueRequest requeue_request = RequeueRequest::kNone;
  // Preempted with a GraceTime: warned (its --signal, else SIGTERM) and
  // stopped at this time (seconds since the epoch); 0 = not in a grace period.
  int64_t preempt_stop_at = 0;
};

struct Job {
  uint64_t id = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user_name;
  std::string group_name;
  std::string name;
  std::string account;
  std::string qos;
  std::string reservation;     // --reservation: the advance reservation it runs in, "" = none
  std::string comment;         // --comment, scontrol update Comment=
  std::string work_dir;        // -D as resolved at submit (sacct WorkDir)
  bool interactive = false;    // salloc/srun allocation: its script only holds the nodes
  int32_t nice = 0;            // --nice, Nice=: subtracted from the computed priority
  int64_t admin_priority = 0;  // Priority= set by update; 0 = computed by the scheduler
  // priority/basic's place in line, as Slurm numbers it: 4294901759 for the
  // first job, one less for each job (or whole array) after, given at submit or
  // at release for a held job (so it goes last); 0 = none yet (held).
  int64_t basic_priority = 0;
  // --signal: warn_signal goes to the job warn_time seconds before its time
  // limit (once per run: warn_sent), to the job's steps, or to the batch shell
  // alone when warn_batch_only (B:), as in Slurm.
  int32_t warn_signal = 0;
  int32_t warn_time = 0;
  bool warn_batch_only = false;
  bool warn_sent = false;
  // --mail-type as Slurm's MAIL_* bits (job_mail.h) and --mail-user ("" = the
  // job's user). mail_sent: the events already mailed (TIME_LIMIT* and
  // STAGE_OUT once per job, as Slurm clears them; the others once per run).
  // mail_outbox: mails decided and not yet answered by MailProg
  // (ctld/core/lifecycle/mail.h).
  uint16_t mail_type = 0;
  std::string mail_user;
  uint16_t mail_sent = 0;
  std::vector<MailMessage> mail_outbox;
  BatchUsage batch_usage;           // the last run's, from its end report
  std::vector<GpuUsage> gpu_usage;  // the last run's GPUs, from its end report
  // GpuIdlePolicy's warning to this run ("GPUs idle: ..."), for squeue
  // --explain and scontrol show job; "" when none.
  std::string gpu_idle_warning;
  JobRequest request;
  std::string spec_blob;  // serialized v1::JobSpec; opaque to the core
  bool requeue = true;    // requeue on node failure
  // -k/--no-kill (Slurm's kill_on_node_fail = 0): when a node of a running
  // job fails and it is not the batch host, the node leaves the allocation
  // and the job keeps running on the others instead of being requeued or
  // ended NODE_FAIL.
  bool no_kill = false;

  JobState state = JobState::kPending;
  // While CONFIGURING/RUNNING/COMPLETING: the state to end in once the job has
  // been torn down (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL).
  JobState final_state = JobState::kCompleted;
  std::string reason = "None";  // Slurm's pending/hold reason
  std::string reason_detail;    // free text, e.g. a prolog's output
  bool held = false;
  bool held_by_admin = false;

  int64_t submit_time = 0;
  int64_t eligible_time = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;
  int64_t suspend_time = 0;     // when last suspended (or resumed), 0 = never
  int64_t suspended_total = 0;  // seconds spent suspended this run: the time limit waits

  std::vector<std::string> nodes;  // allocated; nodes[0] runs the batch script
  // Per entry of `nodes`: CPUs and memory held and tasks placed there
  // (SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE).
  std::vector<int> cpus_by_node;
  std::vector<uint64_t> mem_by_node_mb;
  std::vector<int> tasks_by_node;
  std::vector<int> gpu_indices;                // allocated on the batch host (nodes[0])
  std::vector<std::vector<int>> gpus_by_node;  // allocated on each of `nodes`, in order
  std::vector<GpuShare> shares_by_node;        // gres/shard on each of `nodes`; empty = none
  // The logical CPU ids held on each of `nodes` (NodeTable chooses them).
  std::vector<std::vector<int>> cpu_ids_by_node;
  // What this run holds per TRES (common/tres_usage.h: cpu, mem, node,
  // billing under its partition's TRESBillingWeights, gres/gpu and
  // gres/gpu:TYPE), fixed when it is allocated: sacct's AllocTRES and, times
  // its elapsed time, sreport's usage. Empty until allocated, and for runs
  // stored before Skiff kept it (then cpu alone counts: alloc_cpus).
  TresCounts alloc_tres;

  int exit_code = 0;
  int exit_signal = 0;
  int restart_count = 0;

  RunProgress progress;  // how far this run has got (job_state.h: legal combinations)
  using RequeueRequest = RunProgress::RequeueRequest;
  int64_t cancelled_by = -1;  // uid whose scancel ended the job (sacct "CANCELLED by N"); -1 = none

  // Arrays: every task is its own Job; array_job_id is the first task's id.
  uint64_t array_job_id = 0;      // 0 = not an array task
  int32_t array_task_id = -1;     // -1 = not an array task
  int32_t array_max_running = 0;  // %N throttle, 0 = none
  // Cancelled before it started by a cancel of its whole array (scancel J,
  // or a filter), not by its own J_T: Slurm keeps such tasks in the array's
  // record, shown CANCELLED as J_[1-5]; a task cancelled alone leaves it.
  bool cancelled_with_array = false;
  std::string dependency;  // -d as accepted; "" = none
  bool kill_on_invalid_dep = false;

  // Burst buffer (burst_buffer/lua). A job uses one exactly when bb_directives
  // is not empty.
  std::string bb_directives;  // the #BB_LUA lines, symbols expanded, '\n' separated
  BbState bb_state = BbState::kPending;
  std::string bb_pool;         // "" = no pool space asked
  uint64_t bb_size = 0;        // bytes charged to bb_pool (after real_size)
  bool bb_hurry = false;       // scancel --hurry: skip stage-out
  int64_t bb_create_time = 0;  // when its space was reserved
  // teardown-fail: when slurm_bb_job_teardown is tried again (its own field, so
  // retries never touch the job's end_time that accounting reports).
  int64_t bb_teardown_retry_at = 0;
  bool UsesBurstBuffer() const { return !bb_directives.empty(); }

  uint64_t version = 0;  // +1 on every change; the store keeps the newest

  // Derived by the last scheduling pass; not persisted.
  int64_t priority = 0;
  // `version` when a pass last computed `priority` (0 = never): a job changed
  // since is looked at by every pass until one ranks it again (queue_depth.h).
  uint64_t ranked_version = 0;
  int64_t expected_start = 0;  // backfill's estimate for a pending job, 0 = unknown
  std::string sched_nodes;     // where backfill plans to start it ("n[1-2]"), "" = unknown
  // Slurm's words for the last pass's reason, where it spells them out
  // ("ReqNodeNotAvail, UnavailableNodes:n1"); shown when reason_detail is empty.
  std::string sched_description;
  struct Factors {
    int64_t age = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
    int64_t tres_cpu = 0, tres_mem = 0, tres_node = 0, tres_gpu = 0;  // PriorityWeightTRES
  } factors;
  std::string dependency_text;  // remaining dependencies, Slurm's text (scontrol)

  // What the job holds on its k-th node (0 past the end).
  int CpusOn(size_t k) const { return k < cpus_by_node.size() ? cpus_by_node[k] : 0; }
  uint64_t MemOnMb(size_t k) const { return k < mem_by_node_mb.size() ? mem_by_node_mb[k] : 0; }
  int64_t AllocCpus() const;    // over all its nodes
  uint64_t AllocMemMb() const;  // over all its nodes
};

// Slurm's job_state_string of `job`'s base state, as sacct and MailProg show
// it: CONFIGURING and COMPLETING are flags there, on RUNNING and on the state
// the job ends in.
const char* JobBaseStateName(const Job& job);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_JOB_H_
