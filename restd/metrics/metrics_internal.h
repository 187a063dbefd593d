// What the files of restd's metrics (metrics_core.h) share: the indices of the
// job and node counts, how one job and one node are counted, and each set of
// families MetricsFrom writes. Internal to //restd/metrics:metrics_core.
#ifndef SKIFF_RESTD_METRICS_METRICS_INTERNAL_H_
#define SKIFF_RESTD_METRICS_METRICS_INTERNAL_H_

#include <array>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "proto/ctld.pb.h"
#include "restd/metrics/exposition.h"
#include "restd/metrics/metrics_core.h"

namespace skiff::restd::metrics_internal {

inline constexpr double kMiB = 1024.0 * 1024.0;

// What slurmctld counts of its jobs (statistics.c's jobs_stats_t), as indices.
enum JobCount {
  kBootFail,
  kCancelled,
  kCompleted,
  kCompletingJobs,
  kConfiguring,
  kCpusAlloc,
  kDeadline,
  kExpediting,
  kFailed,
  kFedRequeued,
  kFinished,
  kHold,
  kJobCount,
  kMemoryAlloc,  // bytes
  kNodeFailed,
  kNodesAlloc,
  kOutOfMemory,
  kPending,
  kPowerupNode,
  kPreempted,
  kRequeued,
  kResizing,
  kRevoked,
  kRunning,
  kSignaling,
  kStageOut,
  kStarted,
  kSuspended,
  kTimeout,
  // Partitions only.
  kNotCompleted,  // partition_jobs: jobs not yet ended (completing ones included)
  kMaxJobNodes,
  kMaxJobNodesNoHold,
  kMinJobNodes,
  kMinJobNodesNoHold,
  kWaitPartNodeLimit,
  kJobCountSize
};
using JobCounts = std::array<double, kJobCountSize>;

struct MetricRow {
  const char* name;  // after the prefix ("slurm_", "slurm_user_", ...)
  int index;
  const char* help;
};

// How slurmctld's record total counts a record: the whole /metrics/jobs
// counts an array's tasks (job_array_cnt), the per-user and per-account sets
// count records.
enum class RecordTotal { kTasks, kRecords };

// metrics_jobs.cc. CountJob adds one job to `c` as slurmctld counts it.
void CountJob(const v1::JobInfo& job, RecordTotal total, JobCounts& c);
void AddJobMetrics(const v1::GetJobsReply& jobs, Exposition& out);
void AddUserAccountMetrics(const v1::GetJobsReply& jobs, Exposition& out);
void AddPendingReasons(const v1::GetJobsReply& jobs, Exposition& out);

// What slurmctld counts of its nodes (statistics_get_nodes), as indices.
enum NodeCount {
  kNodes,
  kAlloc,
  kBlocked,
  kCompletingNodes,
  kCloud,
  kDown,
  kDrain,
  kDrained,
  kDraining,
  kDynFuture,
  kDynNormal,
  kExternal,
  kFail,
  kFuture,
  kIdle,
  kInvalidReg,
  kMaint,
  kMixed,
  kNoResp,
  kPlanned,
  kPowerDown,
  kPowerUp,
  kPoweredDown,
  kPoweringDown,
  kPoweringUp,
  kRebootIssued,
  kRebootRequested,
  kResv,
  kUnknown,
  kCpus,
  kCpusAllocated,
  kCpusEffective,
  kCpusIdle,
  kMemAlloc,  // bytes, as the rest
  kMemAvail,
  kMemFree,
  kMemTotal,
  kNodeCountSize
};
using NodeCounts = std::array<double, kNodeCountSize>;

// metrics_nodes.cc. CountNode adds one node to `c` as slurmctld counts it.
absl::flat_hash_set<std::string> CompletingNodes(const MetricsSnapshot& snapshot);
void CountNode(const v1::NodeInfo& node, bool completing, NodeCounts& c);
void AddNodeMetrics(const v1::GetNodesReply& nodes, const MetricsSnapshot& snapshot,
                    Exposition& out);

// metrics_partitions.cc
void AddPartitionMetrics(const v1::GetPartitionsReply& partitions, const MetricsSnapshot& snapshot,
                         Exposition& out);
// metrics_scheduler.cc
void AddSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out);
void AddSkiffSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out);
// metrics_gpus.cc
void AddGpuMetrics(const MetricsSnapshot& snapshot, Exposition& out);
// skiff_job_gpu_utilization_percent and skiff_job_gpu_memory_max_bytes
// {job,user,account,node,gpu}: each running job's sampled GPUs.
void AddJobGpuMetrics(const v1::GetJobsReply& jobs, Exposition& out);
// metrics_accounts.cc
void AddAccountGpuMetrics(const v1::GetAccountsReply& accounts, const v1::GetQosReply* qos,
                          Exposition& out);

}  // namespace skiff::restd::metrics_internal

#endif  // SKIFF_RESTD_METRICS_METRICS_INTERNAL_H_
