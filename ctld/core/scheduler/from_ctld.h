// The seam between ctld and the pure scheduler: builds a ClusterView and
// PendingJobs from ctld's own types (NodeCapacity, PartitionConfig, Job) and
// turns a SchedulePlan back into the ScheduleResult that RunSchedulePass
// already applies (Placement with node names and per-node GPU indices,
// PendingReason with Slurm's reason names).
//
// Node usage comes from the running jobs (`running`: CONFIGURING, RUNNING and
// SUSPENDED jobs; COMPLETING ones gave their resources back), not from
// NodeCapacity's alloc fields, so that every
// allocation has an expected end for backfill. Names the view does not know
// (a QOS that was deleted, a partition gone from the config) make the job pend
// with InvalidQOS / PartitionInactive.
//
// Pure, like the scheduler; called under the Controller's mutex. The snapshot
// owns its copies; Job pointers are only read during the call.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_FROM_CTLD_H_
#define SKIFF_CTLD_CORE_SCHEDULER_FROM_CTLD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "ctld/core/account_policy.h"
#include "ctld/core/job.h"
#include "ctld/core/reservations/reservation.h"
#include "ctld/core/resources.h"
#include "ctld/core/scheduler/preempt.h"
#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {

// Fair-share usage of a user or an association: decayed billing-seconds as of
// `as_of` (stored as "usage" and "assoc_usage" records).
struct UserUsageRecord {
  double usage = 0;
  int64_t as_of = 0;
  double shares = 1.0;
};

struct CtldSchedulerInputs {
  std::vector<NodeCapacity> nodes;                                // NodeTable::Capacities()
  std::map<std::string, std::vector<std::string>> node_features;  // NodeName -> Features=
  std::vector<PartitionConfig> partitions;                        // config_.partitions
  std::vector<Qos> qos;                                           // sacctmgr's QOS table
  std::map<std::string, UserUsageRecord> usage;                   // by user name
  std::vector<const Job*> running;                                // jobs holding resources
  std::vector<const Job*> pending;                                // PENDING jobs, any order
  std::vector<LicenseCount> licenses;                             // Licenses= of skiff.conf
  // Associations and their limits; applied when AccountingStorageEnforce has
  // limits. Null = none.
  const AccountPolicy* accounts = nullptr;
  // With TRES-minutes limits (budget.h): per account, and per user in an
  // account, the TRES-minutes the ended runs under it used; per job (running
  // and pending) the most it may use, and what it holds in a minute.
  std::map<AssocKey, TresMinutes> tres_mins_used;
  std::map<uint64_t, TresMinutes> max_cost;
  std::map<uint64_t, TresMinutes> per_minute;
  // scontrol's advance reservations (null: none); their windows from `now`
  // on become ClusterView::resvs, and a job's --reservation its index there.
  const ResvTable* reservations = nullptr;
  // Local time for their repeats; outlives the inputs.
  const ResvCalendar* resv_calendar = &UtcResvCalendar();
  // Running jobs already being stopped (cancelled, preempted: final_state is
  // not COMPLETED) are expected to end at `now`, so backfill plans the space
  // they free for the jobs waiting on it (a preemptor) instead of handing it out.
  int64_t now = 0;
};

struct CtldSnapshot {
  ClusterView view;
  std::vector<PendingJob> pending;  // parallel to CtldSchedulerInputs::pending
};

CtldSnapshot BuildSnapshot(const CtldSchedulerInputs& inputs);

// A job's request as the scheduler's PendingJob shape (num_nodes ..
// max_nodes, ntasks, the least a node holds).
void SetShape(const JobRequest& request, PendingJob* pending);

// Placements (node names, GPU indices per node) and a reason for every pending
// job that does not start, for Controller::RunSchedulePass.
ScheduleResult ToScheduleResult(const CtldSnapshot& snapshot, const SchedulePlan& plan);

// The reason name and Slurm's description for a pending job, as squeue and
// scontrol show them: ("Resources", "Nodes required for job are DOWN, DRAINED
// or reserved for jobs in higher priority partitions"), ("ReqNodeNotAvail",
// "ReqNodeNotAvail, UnavailableNodes:n[1-2]"), or the reason's own name and ""
// where Slurm adds nothing (slurmctld's job_scheduler.c and node_scheduler.c).
struct ReasonText {
  std::string reason;
  std::string description;
};
ReasonText DescribeWaitReason(const ClusterView& view, const PendingJob& job, WaitReason reason,
                              WaitDetail detail);

// Per pending job (parallel to snapshot.pending) the node names of its
// reservation, for squeue's SCHEDNODES; "" where backfill made none.
std::vector<std::string> ScheduledNodes(const CtldSnapshot& snapshot, const SchedulePlan& plan);

// PreemptMode text ("REQUEUE", "cancel", "Cluster", "SUSPEND,GANG") as the
// preemption planner takes it; SUSPEND and GANG are not supported and read as OFF.
PreemptMode ParsePreemptMode(const std::string& text);

// PreemptType and the cluster's PreemptMode from skiff.conf.
PreemptOptions PreemptOptionsFromConfig(const SkiffConfig& config);

// SchedulerOptions from skiff.conf: Priority* weights and SchedulerParameters
// bf_max_job_test.
SchedulerOptions OptionsFromConfig(const SkiffConfig& config);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_FROM_CTLD_H_
