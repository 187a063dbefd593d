// The QOS and association limit checks of one scheduling pass: the usage they
// weigh (pass::Usage) and the first limit a pending job would exceed if it
// started now. Part of pass_state.h, which includes it; scheduler.cc only.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PASS_LIMITS_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PASS_LIMITS_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace pass {

// Per-user usage within one QOS.
struct Usage {
  TresMinutes cost;      // TRES-minutes held (associations only)
  TresMinutes run_mins;  // what the running jobs may still use (GrpTRESRunMins)
  int64_t jobs = 0;
  int64_t cpus = 0;
  int64_t mem = 0;
  int64_t nodes = 0;
  int64_t gpus = 0;
};

inline bool Over(int64_t limit, int64_t value) { return limit != kNoLimit && value > limit; }

// The QOS whose limits apply to a job: its own and its partition's.
inline int QosList(const ClusterView& view, int32_t qos, int32_t partition, int32_t out[2]) {
  int count = 0;
  if (qos != kNone) out[count++] = qos;
  const int32_t part_qos = view.partitions[partition].qos;
  if (part_qos != kNone && part_qos != qos) out[count++] = part_qos;
  return count;
}

// What a job may use if it starts now: what it holds times its time limit
// (infinite without one), as the TRES-minutes limits count a job's start.
inline TresMinutes JobRunMinutes(const PendingJob& job) {
  return MinutesOver(job.per_minute, job.time_limit == kNoLimit ? -1 : job.time_limit);
}

// What a running job may still use at `now`.
inline TresMinutes RunMinutesLeft(const RunningJob& job, int64_t now) {
  return MinutesOver(job.per_minute, job.time_limit == kNoLimit
                                         ? -1
                                         : std::max<int64_t>(0, job.ExpectedEnd() - now));
}

// OverBudget for a run-minute limit and what the job would add; the job's
// run minutes are worked out only when the limit names a TRES (most don't).
inline std::optional<BudgetTres> OverRunMinutes(const TresMinutes& limit, const TresMinutes& used,
                                                const PendingJob& job) {
  if (!NamesAnyTres(limit)) return std::nullopt;
  return OverBudget(limit, used, JobRunMinutes(job));
}

inline WaitReason PerJobLimit(const Qos& qos, const PendingJob& job) {
  if (qos.max_wall != kNoLimit && (job.time_limit == kNoLimit || job.time_limit > qos.max_wall)) {
    return WaitReason::kQosMaxWallDurationPerJobLimit;
  }
  const TresCaps& limit = qos.max_tres_per_job;
  const int64_t nodes = job.num_nodes;
  if (Over(limit.gpus, MinJobGpus(job))) return WaitReason::kQosMaxGresPerJob;
  if (Over(limit.cpus, MinJobCpus(job))) return WaitReason::kQosMaxCpuPerJobLimit;
  if (Over(limit.mem_mb, MinJobMemMb(job))) return WaitReason::kQosMaxMemoryPerJob;
  if (Over(limit.nodes, nodes)) return WaitReason::kQosMaxNodePerJobLimit;
  if (std::optional<BudgetTres> over = OverRunMinutes(qos.max_tres_mins_per_job, {}, job)) {
    return MinutesWait(MinutesLimit::kQosMaxMinsPerJob, *over);
  }
  return WaitReason::kNone;
}

inline WaitReason PerUserLimit(const Qos& qos, const Usage& usage, const PendingJob& job) {
  if (Over(qos.max_jobs_per_user, usage.jobs + 1)) return WaitReason::kQosMaxJobsPerUserLimit;
  const TresCaps& limit = qos.max_tres_per_user;
  const int64_t nodes = job.num_nodes;
  if (Over(limit.gpus, usage.gpus + MinJobGpus(job))) return WaitReason::kQosMaxGresPerUser;
  if (Over(limit.cpus, usage.cpus + MinJobCpus(job))) return WaitReason::kQosMaxCpuPerUserLimit;
  if (Over(limit.mem_mb, usage.mem + MinJobMemMb(job))) return WaitReason::kQosMaxMemoryPerUser;
  if (Over(limit.nodes, usage.nodes + nodes)) return WaitReason::kQosMaxNodePerUserLimit;
  if (std::optional<BudgetTres> over =
          OverRunMinutes(qos.max_tres_run_mins_per_user, usage.run_mins, job)) {
    return MinutesWait(MinutesLimit::kQosMaxRunMinsPerUser, *over);
  }
  return WaitReason::kNone;
}

// The first association limit a job would exceed if it started now: its own
// association's MaxJobs, then the Grp limits of it and every one above it.
inline WaitReason AssocLimit(const ClusterView& view, const std::vector<Usage>& usage,
                             const PendingJob& job) {
  if (job.assoc == kNone) return WaitReason::kNone;
  const int64_t nodes = job.num_nodes;
  if (Over(view.assocs[job.assoc].max_jobs, usage[job.assoc].jobs + 1)) {
    return WaitReason::kAssocMaxJobsLimit;
  }
  for (int32_t a = job.assoc; a != kNone; a = view.assocs[a].parent) {
    const SchedAssoc& assoc = view.assocs[a];
    const Usage& used = usage[a];
    if (Over(assoc.grp_jobs, used.jobs + 1)) return WaitReason::kAssocGrpJobsLimit;
    const TresCaps& limit = assoc.grp_tres;
    if (Over(limit.gpus, used.gpus + MinJobGpus(job))) return WaitReason::kAssocGrpGres;
    if (Over(limit.cpus, used.cpus + MinJobCpus(job))) return WaitReason::kAssocGrpCpuLimit;
    if (Over(limit.mem_mb, used.mem + MinJobMemMb(job))) return WaitReason::kAssocGrpMemLimit;
    if (Over(limit.nodes, used.nodes + nodes)) return WaitReason::kAssocGrpNodeLimit;
    if (std::optional<BudgetTres> over =
            OverBudget(assoc.grp_tres_mins, assoc.tres_mins_used + used.cost, job.max_cost)) {
      return AssocGrpMinutes(*over);
    }
    if (std::optional<BudgetTres> over =
            OverRunMinutes(assoc.grp_tres_run_mins, used.run_mins, job)) {
      return MinutesWait(MinutesLimit::kAssocGrpRunMins, *over);
    }
  }
  return WaitReason::kNone;
}

}  // namespace pass
}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PASS_LIMITS_H_
