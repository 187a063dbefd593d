// The pure scheduler's inputs and outputs: plain structs, no protobuf.
//
// A ClusterView is a snapshot the caller (ctld) builds under its lock: nodes,
// partitions, QOS, users and the jobs that hold resources. Pending jobs refer to
// users, accounts, groups, QOS, partitions, GPU types, features and nodes by
// index into the view's tables (interned once per pass), which keeps a pending
// job small (see bench/scheduler_bench.cc) and the pass free of string hashing.
//
// Threads: none; every function in ctld/core/scheduler is pure (no locks, no
// I/O, no clock reads: `now` is an argument). Ownership: the caller owns every
// struct; results hold indices into the inputs and job ids, never pointers.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_TYPES_H_
#define SKIFF_CTLD_CORE_SCHEDULER_TYPES_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctld/core/budget.h"
#include "ctld/core/resources.h"
#include "ctld/core/scheduler/placement.h"

namespace skiff::ctld {

// "No limit" for every int64 limit below (same value as ctld's kUnlimited).
inline constexpr int64_t kNoLimit = -1;
// An expected end or start time that never comes.
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
// An index that refers to nothing (no QOS, untyped GPU, ...).
inline constexpr int32_t kNone = -1;

enum class PartitionState { kUp, kDown, kDrain, kInactive };

// How a preempted job is stopped (PreemptMode). kCluster: the cluster-wide
// PreemptMode (a partition without PreemptMode=, a QOS with PreemptMode=Cluster).
// SUSPEND and GANG are not supported (see preempt.h).
enum class PreemptMode : uint8_t { kCluster, kOff, kCancel, kRequeue };

struct SchedNode {
  std::string name;
  bool usable = false;  // responding and not DOWN/DRAIN/FUTURE
  int32_t cpus = 0;
  uint64_t memory_mb = 0;
  int32_t gpu_type = kNone;  // index into ClusterView::gpu_types; kNone = untyped
  int32_t gpu_count = 0;     // GPU indices are 0 .. gpu_count-1
  // gres/shard or gres/mps (share_kind) per GPU index; empty = none.
  GpuShareKind share_kind = GpuShareKind::kShard;
  std::vector<int32_t> gpu_shares;
  // Fenced shares (gres.conf Flags=fence) run under the GPU's MPS server,
  // which serves one uid: a GPU's share jobs are one user's at a time.
  bool share_fenced = false;
  uint32_t weight = 1;            // Weight=: lower is used first
  std::vector<int32_t> features;  // indices into ClusterView::features
  uint64_t tmp_disk_mb = 0;       // TmpDisk=: a job's --tmp is a floor on it
  NodeTopology layout;            // Sockets=, ...: a job's -B is a floor on it
};

struct SchedPartition {
  std::string name;
  PartitionState state = PartitionState::kUp;
  int64_t max_time = kNoLimit;   // seconds
  int64_t max_nodes = kNoLimit;  // nodes per job
  int32_t priority_tier = 1;
  std::vector<int32_t> nodes;           // indices into ClusterView::nodes, config order
  std::vector<int32_t> allow_accounts;  // empty = all
  std::vector<int32_t> allow_groups;    // empty = all
  std::vector<int32_t> allow_qos;       // empty = all
  int32_t qos = kNone;                  // partition QOS; its limits apply too
  // Preemption (preempt.h), used with PreemptType=preempt/partition_prio:
  PreemptMode preempt_mode = PreemptMode::kCluster;  // PreemptMode= of jobs in this partition
  int64_t grace_time = 0;                            // GraceTime= seconds before they are stopped
};

// Trackable resources of one job or one user; kNoLimit where unlimited.
struct TresCaps {
  int64_t cpus = kNoLimit;
  int64_t mem_mb = kNoLimit;
  int64_t nodes = kNoLimit;
  int64_t gpus = kNoLimit;  // gres/gpu
};

struct Qos {
  std::string name;
  int64_t priority = 0;
  TresCaps max_tres_per_user;  // over the user's running jobs in this QOS
  TresCaps max_tres_per_job;
  int64_t max_jobs_per_user = kNoLimit;         // running
  int64_t max_submit_jobs_per_user = kNoLimit;  // pending + running; see CheckSubmitLimits
  int64_t max_wall = kNoLimit;                  // seconds
  double usage_factor = 1.0;                    // scales accrued fair-share usage
  // TRES-minutes limits (budget.h's MinutesLimit); negative = none. Run
  // minutes: what running jobs hold times what is left of their time limits.
  TresMinutes grp_tres_run_mins = kNoBudget;           // of all its running jobs
  TresMinutes max_tres_run_mins_per_user = kNoBudget;  // of each user's running jobs
  TresMinutes max_tres_mins_per_job = kNoBudget;       // held x time limit, per job
  // GrpTRESMins: what ended runs in the QOS used (tres_mins_used) plus the
  // most its running jobs and a new one may use stays within it.
  TresMinutes grp_tres_mins = kNoBudget;
  TresMinutes tres_mins_used;
  // Preemption (preempt.h), used with PreemptType=preempt/qos:
  std::vector<int32_t> preempt;                      // Preempt=: QOS (indices) this one may preempt
  PreemptMode preempt_mode = PreemptMode::kCluster;  // PreemptMode= of jobs in this QOS
  int64_t grace_time = 0;                            // GraceTime= seconds before they are stopped
};

// An association (sacctmgr): a user's in an account, or an account's own. A
// job counts against its association and every one above it; MaxJobs limits
// the association's own running jobs, the Grp limits its whole subtree's.
struct SchedAssoc {
  int32_t parent = kNone;       // the association above (an account's); kNone at root
  int64_t max_jobs = kNoLimit;  // running jobs of this association
  int64_t grp_jobs = kNoLimit;  // running jobs of this subtree
  TresCaps grp_tres;            // resources of the running jobs of this subtree
  // GrpTRESMins (budget.h): TRES-minutes of the subtree; a job starts only if
  // what ended runs used (tres_mins_used) plus the maximum cost of the running
  // jobs and its own stays within it, in every TRES named. Negative = no limit.
  TresMinutes grp_tres_mins = kNoBudget;
  TresMinutes tres_mins_used;
  // GrpTRESRunMins: the run minutes (Qos) of the subtree's running jobs.
  TresMinutes grp_tres_run_mins = kNoBudget;
};

struct SchedUser {
  std::string name;
  double shares = 1.0;      // fair-share shares (equal until accounts land)
  double usage = 0;         // recorded usage (CPU-seconds x UsageFactor) ...
  int64_t usage_as_of = 0;  // ... as of this time; decayed to `now` by PriorityDecayHalfLife
};

// Licenses= of skiff.conf: a count of something the whole cluster shares
// (common/licenses.h). Jobs hold what they asked for (-L) while they run.
struct SchedLicense {
  std::string name;
  int64_t total = 0;
};

// Licenses a job holds or asks for: an index into ClusterView::licenses.
struct LicenseUse {
  int32_t license = 0;
  int64_t count = 0;
};

// A job that holds resources (CONFIGURING, RUNNING or COMPLETING).
struct RunningJob {
  uint64_t id = 0;
  int32_t user = 0;
  int32_t qos = kNone;
  int32_t partition = 0;
  int32_t assoc = kNone;       // index into ClusterView::assocs; kNone = not limited
  TresMinutes max_cost;        // the TRES-minutes it may use (GrpTRESMins)
  TresMinutes per_minute;      // what it holds: the TRES-minutes of one minute
  std::vector<int32_t> nodes;  // indices into ClusterView::nodes
  int32_t cpus_per_node = 0;   // on each node, unless cpus_by_node says otherwise
  uint64_t mem_per_node_mb = 0;
  // Per entry of `nodes` when a job holds different amounts on its nodes
  // (tasks spread by placement.h); empty = the uniform fields above.
  std::vector<int32_t> cpus_by_node;
  std::vector<uint64_t> mem_by_node_mb;
  std::vector<std::vector<int32_t>> gpu_indices;  // per entry of `nodes`; may be empty
                                                  // when the job holds no GPU
  std::vector<GpuShare> shares;                   // per entry of `nodes`; empty = none
  bool exclusive = false;                         // holds its nodes whole
  std::vector<LicenseUse> licenses;               // -L
  int64_t start_time = 0;
  int64_t time_limit = kNoLimit;  // seconds

  int64_t ExpectedEnd() const { return time_limit == kNoLimit ? kNever : start_time + time_limit; }
  int32_t CpusOn(size_t k) const {
    return k < cpus_by_node.size() ? cpus_by_node[k] : cpus_per_node;
  }
  uint64_t MemOn(size_t k) const {
    return k < mem_by_node_mb.size() ? mem_by_node_mb[k] : mem_per_node_mb;
  }
};

// An advance reservation (scontrol create reservation) as a pass sees it:
// during each window, jobs outside it may not use what it holds on its nodes
// (the nodes whole, or `gpus` of them), and the jobs in it
// (PendingJob::resv) run only on its nodes, only while a window is open
// (unless `flex`). Not to be confused with backfill's Reservation
// (scheduler.h), where a pending job is planned.
struct SchedResv {
  std::string name;
  std::vector<int32_t> nodes;  // indices into ClusterView::nodes
  std::vector<int32_t> gpus;   // per entry of `nodes`: GPUs held; empty = the nodes whole
  struct Window {
    int64_t start = 0;
    int64_t end = 0;
  };
  std::vector<Window> windows;  // the current or next ones, by start, none ended
  bool maint = false;           // Flags=MAINT: "ReqNodeNotAvail, Reserved for maintenance"
  bool flex = false;            // Flags=FLEX: its jobs may start early and use other nodes
  // Flags=OVERLAP: its jobs may use its nodes while other reservations (but
  // MAINT ones) hold them too, as Slurm's job_test_resv lets them.
  bool overlap = false;
};

// PendingJob::resv of a job whose reservation is gone (deleted, or ended).
inline constexpr int32_t kResvGone = -2;

struct ClusterView {
  std::vector<SchedNode> nodes;
  std::vector<SchedPartition> partitions;
  std::vector<Qos> qos;
  std::vector<SchedUser> users;
  std::vector<SchedAssoc> assocs;  // parents before children not required
  std::vector<std::string> accounts;
  std::vector<std::string> groups;
  std::vector<std::string> gpu_types;
  std::vector<std::string> features;
  std::vector<RunningJob> running;
  std::vector<SchedResv> resvs;  // advance reservations not ended
  // Licenses=. Running jobs may hold more than a total that was lowered since.
  std::vector<SchedLicense> licenses;
};

// Checks indices, capacities and that no GPU index is held twice. Schedule()
// REQUIRES a view that passes.
absl::Status ValidateView(const ClusterView& view);

struct PendingJob {
  uint64_t id = 0;
  int32_t user = 0;
  int32_t account = kNone;
  int32_t group = kNone;
  int32_t qos = kNone;
  int32_t partition = 0;
  int32_t assoc = kNone;   // index into ClusterView::assocs; kNone = not limited
  TresMinutes max_cost;    // the TRES-minutes it may use if started (GrpTRESMins)
  TresMinutes per_minute;  // what it would hold: the TRES-minutes of one minute
  int64_t submit_time = 0;
  int64_t eligible_time = 0;      // begin time; age counts from here
  int64_t time_limit = kNoLimit;  // seconds, resolved against the partition
  // --time-min, seconds (0 = none): backfill may start the job with a time
  // limit as short as this, the longest that fits, where the full one does not.
  int64_t time_min = 0;
  // The fewest nodes, and the least CPUs and memory one of them holds. With
  // ntasks = 0 that is the whole shape: exactly num_nodes nodes holding
  // cpus_per_node CPUs and mem_per_node_mb each.
  int32_t num_nodes = 1;
  int32_t cpus_per_node = 1;
  uint64_t mem_per_node_mb = 0;
  int32_t gpus_per_node = 0;
  int32_t gpu_type = kNone;  // kNone = any
  // gres/shard or gres/mps (share_kind): this many of one GPU on each node
  // sharing that kind (a GPU no job holds whole); 0 = none. An MPS job takes
  // the node's GPU already in MPS use, if any, and only while its user's.
  int32_t shares_per_node = 0;
  GpuShareKind share_kind = GpuShareKind::kShard;
  bool exclusive = false;
  // With ntasks > 0, tasks spread over num_nodes..max_nodes nodes as
  // placement.h places them (ShapeOf).
  int32_t ntasks = 0;
  int32_t cpus_per_task = 1;
  int32_t max_nodes = 0;   // 0 = num_nodes
  int32_t want_nodes = 0;  // 0 = num_nodes; the top of a -N range unless --use-min-nodes
  int32_t ntasks_per_node = 0;
  int32_t min_cpus_per_node = 0;  // --mincpus
  bool overcommit = false;
  bool contiguous = false;       // --contiguous: consecutive nodes (by index)
  uint64_t mem_per_cpu_mb = 0;   // with ntasks > 0: memory follows each node's CPUs
  uint64_t min_tmp_disk_mb = 0;  // --tmp: only nodes with at least this TmpDisk
  NodeTopology min_topology;     // -B ...: only nodes with at least this layout
  bool held = false;
  bool held_by_admin = false;
  std::vector<int32_t> nodelist;  // -w: all of these, plus others up to num_nodes
  std::vector<int32_t> exclude;   // -x
  std::vector<int32_t> features;  // -C a&b: every one required
  // --prefer a&b: placed first on nodes with every one of these (instead of
  // -C's), by the main pass and backfill's start-now test; -C's otherwise.
  std::vector<int32_t> prefer;
  int32_t nice = 0;            // subtracted from the computed priority
  int64_t admin_priority = 0;  // set by an operator: used as is; 0 = computed
  int64_t basic_priority = 0;  // priority/basic's place in line (Job::basic_priority)
  // --reservation: index into ClusterView::resvs; kNone = none, kResvGone =
  // named one that no longer exists.
  int32_t resv = kNone;
  // Without --reservation: the MAGNETIC reservations (indices into
  // ClusterView::resvs) the job may use, by name; the main pass tries each
  // before placing it outside them (backfill does not).
  std::vector<int32_t> magnetic;
  // -L: every one must be free when the job starts. As Slurm without
  // SchedulerParameters=bf_licenses, a job waiting for licenses (reason
  // Licenses) neither blocks its partition nor gets a backfill reservation.
  std::vector<LicenseUse> licenses;
};

// Why a job is still pending, with Slurm's names (WaitReasonName).
enum class WaitReason : uint8_t {
  kNone,
  kPriority,
  kResources,
  kBeginTime,
  kJobHeldUser,
  kJobHeldAdmin,
  kPartitionDown,
  kPartitionInactive,
  kPartitionTimeLimit,
  kPartitionNodeLimit,
  kPartitionConfig,  // account/group/QOS not allowed in the partition
  kReqNodeNotAvail,  // the requested/eligible nodes are down or drained
  kBadConstraints,   // no node of the partition could ever hold the job
  kInvalidQos,
  kQosMaxWallDurationPerJobLimit,
  kQosMaxCpuPerJobLimit,
  kQosMaxMemoryPerJob,
  kQosMaxNodePerJobLimit,
  kQosMaxGresPerJob,
  kQosMaxJobsPerUserLimit,
  kQosMaxCpuPerUserLimit,
  kQosMaxMemoryPerUser,
  kQosMaxNodePerUserLimit,
  kQosMaxGresPerUser,
  kAssocMaxJobsLimit,
  kAssocGrpJobsLimit,
  kAssocGrpCpuLimit,
  kAssocGrpMemLimit,
  kAssocGrpNodeLimit,
  kAssocGrpGres,
  kAssocGrpBillingMinutes,  // GrpTRESMins, one reason per budget TRES (budget.h)
  kAssocGrpCpuMinutes,
  kAssocGrpMemMinutes,
  kAssocGrpNodeMinutes,
  kAssocGrpGresMinutes,
  kReservation,         // its reservation's window has not begun
  kReservationDeleted,  // its reservation is gone
  // The other TRES-minutes limits (budget.h's MinutesLimit), five reasons
  // each in kBudgetTres order: MinutesWait gives them.
  kAssocGrpBillingRunMinutes,
  kAssocGrpGresRunMinutes = kAssocGrpBillingRunMinutes + 4,
  kQosGrpBillingRunMinutes,
  kQosGrpGresRunMinutes = kQosGrpBillingRunMinutes + 4,
  kQosMaxBillingRunMinsPerUser,
  kQosMaxGresRunMinsPerUser = kQosMaxBillingRunMinsPerUser + 4,
  kQosMaxBillingMinutesPerJob,
  kQosMaxGresMinutesPerJob = kQosMaxBillingMinutesPerJob + 4,
  kQosGrpBillingMinutes,
  kQosGrpGresMinutes = kQosGrpBillingMinutes + 4,
  kLicenses,  // a license it asked for (-L) is held by running jobs
};
// The reason for an association over its GrpTRESMins in `tres`.
WaitReason AssocGrpMinutes(BudgetTres tres);
// The reason for a job held by `limit` in `tres`.
WaitReason MinutesWait(MinutesLimit limit, BudgetTres tres);

// Why `partition` does not run `job` whatever its resources (its state, the
// accounts, groups and QOS it allows, MaxTime, MaxNodes); kNone when it does.
WaitReason PartitionRefuses(const SchedPartition& partition, const PendingJob& job);

// "Priority", "QOSMaxGRESPerUser", ...
const char* WaitReasonName(WaitReason reason);

// Could node `n` ever hold the job's per-node share: its size (ShareFits), its
// GPU type, its TmpDisk (--tmp), the job's features, and not excluded by -x.
// Ignores the node's state, its partitions and what runs on it. The main
// pass, backfill and preemption all ask this.
bool NodeCouldHold(const SchedNode& node, int32_t n, const PendingJob& job);

// The job's request as placement.h takes it.
TaskShape ShapeOf(const PendingJob& job);
// CPUs, memory and GPUs the job holds at least when it runs (QOS and
// association limits count these, as Slurm counts its min_cpus).
int64_t MinJobCpus(const PendingJob& job);
int64_t MinJobMemMb(const PendingJob& job);
int64_t MinJobGpus(const PendingJob& job);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_TYPES_H_
