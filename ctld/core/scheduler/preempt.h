// Preemption planning: which running jobs to stop so a pending job can start.
//
// PlanPreemption(view, job, options, exclusions, now) is asked about a pending
// job that passed every non-resource check but does not fit now (Reason
// Resources). It picks victims among the running jobs the job may preempt:
//   PreemptType=preempt/partition_prio: the job's partition has a higher
//     PriorityTier than the victim's partition, and the victim partition's
//     PreemptMode (or the cluster's, if it has none) is CANCEL or REQUEUE;
//     the victim's GraceTime is its partition's.
//   PreemptType=preempt/qos: the job's QOS lists the victim's QOS in Preempt=,
//     and the victim QOS's PreemptMode (Cluster: the cluster's) is CANCEL or
//     REQUEUE; the victim's GraceTime is its QOS's.
// Only jobs holding a node the job could use count (a usable node of its
// partition that could hold it: CPUs, memory, GPU count and type, features,
// not excluded). Candidates are ordered lowest PriorityTier (partition_prio) or
// QOS Priority (qos) first, then youngest first (latest start, then highest id),
// as Slurm preempts; the planner takes the shortest prefix of that order after
// which the job fits now, then drops every victim (least preferred first)
// without which it still fits. Fitting uses the scheduler's own rules
// (EarliestStart(...).start == now on the view without the victims: CPUs,
// memory, GPUs with type, exclusive, features, -w/-x), so a job planned here
// starts on the next pass once the victims are gone.
//
// SUSPEND and GANG are not supported: ctld maps them to OFF (or rejects them in
// the configuration). With REQUEUE, a victim submitted with --no-requeue is
// cancelled instead, as Slurm does; that is ctld's call, it is not in the view.
//
// Pure: no locks, no I/O, no clock reads. Ownership: the caller owns all
// arguments; results hold job ids and node indices.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PREEMPT_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PREEMPT_H_

#include <cstdint>
#include <vector>

#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

enum class PreemptType : uint8_t {
  kNone,           // preempt/none
  kPartitionPrio,  // preempt/partition_prio
  kQos,            // preempt/qos
};

struct PreemptOptions {
  PreemptType type = PreemptType::kNone;  // PreemptType
  PreemptMode mode = PreemptMode::kOff;   // the cluster's PreemptMode (kCluster reads as OFF)
};

// Running jobs the planner treats specially in this pass (ids of view.running).
struct PreemptExclusions {
  // Never victims: COMPLETING jobs, jobs ctld will not touch.
  std::vector<uint64_t> exempt;
  // Already being preempted (in their GraceTime, or cancel/requeue under way):
  // their resources count as free, and they are never returned again.
  std::vector<uint64_t> leaving;
};

// Whether `job` may preempt `running`, and how.
struct PreemptAction {
  bool allowed = false;
  PreemptMode mode = PreemptMode::kOff;  // kCancel or kRequeue when allowed
  int64_t grace_time = 0;                // seconds between the SIGTERM and the stop
};

// REQUIRES: ValidateView(view).ok().
PreemptAction CanPreempt(const ClusterView& view, const PreemptOptions& options,
                         const PendingJob& job, const RunningJob& running);

struct PreemptVictim {
  uint64_t job_id = 0;
  PreemptMode mode = PreemptMode::kCancel;  // kCancel or kRequeue
  int64_t grace_time = 0;                   // seconds (0: stop at once)
};

struct PreemptPlan {
  // The job fits now once `victims` and the exclusions' `leaving` jobs are gone.
  // fits with no victims: nothing new to preempt (it fits already, or will
  // once the leaving jobs are gone). !fits: preemption cannot help; no victims.
  bool fits = false;
  std::vector<PreemptVictim> victims;  // most preferred victim first
  std::vector<int32_t> nodes;          // where it would start (first fit), when `fits`
};

// REQUIRES: ValidateView(view).ok(); `job` refers into `view`.
PreemptPlan PlanPreemption(const ClusterView& view, const PendingJob& job,
                           const PreemptOptions& options, const PreemptExclusions& exclusions,
                           int64_t now);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PREEMPT_H_
