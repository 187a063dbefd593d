// The pure scheduler: a main pass in priority order, then backfill.
//
// Schedule(view, pending, options, now) orders the queue (priority.h), runs
// MainPass and then Backfill, and returns which jobs start where (with the GPU
// indices each gets on each node), a Slurm reason for every job left pending and
// the reservations backfill made. Jobs hold their resources until their
// expected end (start + time limit; never for unlimited jobs).
//
// Main pass: each job in order is checked against holds, begin time, its
// partition (state, MaxTime, MaxNodes, Allow*), its job QOS and partition QOS
// (MaxWall, MaxTRESPerJob, MaxJobsPerUser, MaxTRESPerUser), its licenses
// (-L; a job short of one pends with Licenses and blocks nothing) and then placed
// as Slurm's cons_tres places it (placement.h: tasks spread over as many nodes
// as they need, lighter nodes first, then best fit; lowest free GPU index; a
// GPU is never given twice). The first job of a partition that does not fit
// now pends with Resources and blocks its partition: every later job of that
// partition, and of every lower-PriorityTier partition sharing a node with it,
// pends with Priority (and is left to backfill), so the pass costs
// O(jobs + placed jobs x partition nodes).
//
// Backfill: for each partition's top Resources job (in priority order) it finds
// the earliest time the job fits, from the running jobs' expected ends, and
// reserves nodes for it then. Then it tests up to bf_max_job_test Priority and
// Resources jobs in order; one starts now only if it fits now and, on every
// reserved node it uses, it ends by the reservation's start or leaves enough
// room for the reserved job. Backfill therefore never delays a reservation.
// A tested job that cannot start now gets a reservation of its own at the
// earliest time it fits after the ones before it, as Slurm's backfill plans
// every job it tests: that time and those nodes are what `squeue --start`
// shows (START_TIME, SCHEDNODES). Jobs not tested get no such guarantee.
//
// Reasons Slurm spells out get a WaitDetail beside the reason (from_ctld.h's
// DescribeWaitReason words them): a job whose partition has fewer available nodes than it
// needs, counting nodes that are down, drained or in a partition whose top job
// waits for resources as unavailable, shows Slurm's "Nodes required for job are
// DOWN, DRAINED or reserved for jobs in higher priority partitions"; a job whose
// nodes are down shows "ReqNodeNotAvail, UnavailableNodes:<nodes>".
//
// Pure: no locks, no I/O, no clock reads. Ownership: the caller owns all
// arguments; results hold indices into them and job ids.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_SCHEDULER_H_
#define SKIFF_CTLD_CORE_SCHEDULER_SCHEDULER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "ctld/core/scheduler/priority.h"
#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

struct SchedulerOptions {
  PriorityWeights weights;
  bool backfill = true;
  int32_t bf_max_job_test = 500;  // SchedulerParameters=bf_max_job_test
  // SchedulerParameters=bf_interval: seconds between passes that run backfill
  // (the main pass runs on every event). Slurm's default is 30; Skiff's is 0,
  // backfill on every pass, which bench/scheduler_bench shows costs a few ms.
  int64_t bf_interval = 0;
  // SchedulerParameters=default_queue_depth and sched_interval, Slurm's names
  // and defaults: passes between full ones (every sched_interval seconds) look
  // at each partition's first default_queue_depth jobs (queue_depth.h).
  // Applied by ctld when it prepares a pass; Schedule plans on what it is given.
  int32_t default_queue_depth = 100;
  int64_t sched_interval = 60;
};

struct JobStart {
  uint64_t job_id = 0;
  uint32_t pending_index = 0;  // into the `pending` argument
  std::vector<int32_t> nodes;  // indices into ClusterView::nodes, ascending
  // Per entry of `nodes`: CPUs held (every CPU for an exclusive job), memory
  // as asked, and tasks (placement.h).
  std::vector<int32_t> cpus;
  std::vector<uint64_t> mem_mb;
  std::vector<int32_t> tasks;
  std::vector<std::vector<int32_t>> gpu_indices;  // per entry of `nodes`
  std::vector<GpuShare> shares;                   // per entry of `nodes`; empty = none
  bool exclusive = false;
  bool backfilled = false;
  int64_t expected_end = kNever;
  // The time limit backfill started it with, shorter than its own and no
  // shorter than its --time-min; 0 = its own.
  int64_t time_limit = 0;
  // The MAGNETIC reservation (index into ClusterView::resvs) the job was
  // placed in; kNone = none, or the one it asked for.
  int32_t magnetic = kNone;
};

struct Reservation {
  uint64_t job_id = 0;
  uint32_t pending_index = 0;
  int64_t start = kNever;      // expected start (squeue --start)
  std::vector<int32_t> nodes;  // reserved for it from `start`
};

// What Slurm adds to some reasons (its job state_desc).
enum class WaitDetail : uint8_t {
  kNone,
  // Slurm's reason Resources with "Nodes required for job are DOWN, DRAINED or
  // reserved for jobs in higher priority partitions".
  kNodesUnavailable,
  // Slurm's reason ReqNodeNotAvail with "ReqNodeNotAvail,
  // UnavailableNodes:<the partition's (or -w's) unusable nodes>".
  kUnavailableNodes,
  // Slurm's reason ReqNodeNotAvail with "ReqNodeNotAvail, Reserved for
  // maintenance": only a MAINT reservation's window keeps it off nodes it
  // would otherwise fit.
  kReservedForMaintenance,
};

struct MainPassResult {
  std::vector<JobStart> starts;
  std::vector<WaitReason> reasons;  // indexed like `pending`; kNone for started jobs
  std::vector<WaitDetail> details;  // indexed like `pending`
  std::vector<uint32_t> blocked;    // each partition's top Resources job, in queue order
  int32_t tested = 0;               // jobs it tried to place (held, blocked, ... not counted)
};

struct BackfillResult {
  std::vector<JobStart> starts;
  std::vector<Reservation> reservations;
  int32_t tested = 0;                     // jobs examined (<= bf_max_job_test)
  int32_t tried = 0;                      // of those, jobs it tried to start now
  int32_t queue_length = 0;               // jobs it could examine (Priority or Resources)
  std::vector<uint32_t> newly_limited;    // jobs now over a per-user QOS limit or
                                          // short of licenses ...
  std::vector<WaitReason> limit_reasons;  // ... and why (parallel to newly_limited)
};

struct SchedulePlan {
  std::vector<JobStart> starts;     // main pass first, then backfill
  std::vector<WaitReason> reasons;  // indexed like `pending`; kNone for started jobs
  std::vector<WaitDetail> details;  // indexed like `pending`; kNone for started jobs
  std::vector<int64_t> priorities;  // indexed like `pending`
  std::vector<Reservation> reservations;
  int32_t backfill_tested = 0;
  // For sdiag's statistics only (ctld/diag_stats.h); no decision depends on them.
  int32_t main_tested = 0;      // MainPassResult::tested
  int32_t backfill_tried = 0;   // BackfillResult::tried
  int32_t backfill_queue = 0;   // BackfillResult::queue_length
  int64_t backfill_micros = 0;  // how long backfill took, when Schedule was given a timer
};

// A monotonic clock in microseconds, which Schedule reads only to say how long
// backfill took (sdiag's cycle times): no decision depends on it, so plans stay
// deterministic. The daemon passes a steady clock; tests and tools pass none.
class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  virtual int64_t Micros() const = 0;
};

// `order`: indices into `pending`, as OrderQueue returns. REQUIRES:
// ValidateView(view).ok(); pending jobs' indices refer into `view`.
MainPassResult MainPass(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, int64_t now);

// Backfill over the same inputs after `main` (whose starts it treats as
// running from `now`).
BackfillResult Backfill(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, const MainPassResult& main,
                        const SchedulerOptions& options, int64_t now);

// `timer`, when given, times backfill (SchedulePlan::backfill_micros).
SchedulePlan Schedule(const ClusterView& view, const std::vector<PendingJob>& pending,
                      const SchedulerOptions& options, int64_t now,
                      const PhaseTimer* timer = nullptr);

// When and where `job` could start on `view` if nothing else started, with the
// running jobs ending at their expected ends. start = kNever when it cannot
// (it does not fit the partition, or the blocking jobs have no time limit).
struct StartEstimate {
  int64_t start = kNever;
  std::vector<int32_t> nodes;
};
StartEstimate EarliestStart(const ClusterView& view, const PendingJob& job, int64_t now);

// QOS limits enforced at submit (MaxSubmitJobsPerUser): `user_jobs` is the
// user's pending + running jobs in the job's QOS (or partition QOS) before this
// one. InvalidArgument with Slurm's message when over.
absl::Status CheckSubmitLimits(const ClusterView& view, const PendingJob& job, int64_t user_jobs);

// Adds `starts` to a copy of `view` as running jobs (for tests, simulators and
// estimates after a pass).
ClusterView WithStarts(const ClusterView& view, const std::vector<PendingJob>& pending,
                       const std::vector<JobStart>& starts, int64_t now);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_SCHEDULER_H_
