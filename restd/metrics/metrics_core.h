// restd's Prometheus metrics (issue 36) as a pure function of ctld's replies.
//
// Slurm 25.11 (metrics/openmetrics) serves its metrics from slurmctld at
// /metrics/jobs, /metrics/nodes, /metrics/partitions, /metrics/scheduler and
// /metrics/jobs-users-accts; restd serves the same paths with the same metric
// names, types, labels and HELP texts, computed as slurmctld computes them
// (src/slurmctld/statistics.c). Where Skiff differs:
//  - /metrics is every one of those sets plus Skiff's own (below); Slurm's
//    /metrics is only an index of the other paths.
//  - Memory metrics are in bytes, as the node and job ones' names and HELP
//    say (the partition ones follow); Slurm 25.11 fills them with megabytes.
//  - Slurm's schedule_exit/bf_exit counters (sched_exit_*, bf_exit_*) are
//    left out: Skiff's scheduler does not count why its cycles stop.
//  - Node flags Skiff has no such nodes for (cloud, dynamic, external,
//    power saving, reboot, planned, blocked, invalid registration) are 0;
//    the families are there so that a Slurm dashboard finds them.
//  - A pending job's max_nodes is its node count: a summary from ctld
//    carries one (the minimum); "-N 2-4" counts as 2 in *_max_job_nodes*.
//  - Jobs without an account are not in slurm_account_* (Slurm would write
//    them once, without a label).
//
// Skiff's own, for a GPU lab (all gauges unless named *_total; GPU counts
// without a _total suffix, which Prometheus keeps for counters, as Slurm's
// slurm_nodes is the node count):
//   skiff_gpus{type}, skiff_gpus_{allocated,idle,unavailable}{type}  the
//       cluster's GPUs ("idle": free on a node that can take jobs;
//       "unavailable": free but on a node that is down, drained, failed or
//       not responding); untyped GPUs have type="" (no label, to
//       Prometheus). sum() over a family is the cluster's count.
//   skiff_partition_gpus{partition,type}, skiff_partition_gpus_{allocated,
//       idle}{partition,type}  the same per partition; a node in two
//       partitions counts in both, so these are not to be summed.
//   skiff_node_gpus{node,type}, skiff_node_gpus_allocated{node,type}
//   skiff_job_gpu_utilization_percent{job,user,account,node,gpu}  a running
//       job's GPU's average utilisation so far, as its node samples it
//   skiff_job_gpu_memory_max_bytes{job,user,account,node,gpu}  the most
//       memory the job's processes held on that GPU
//   skiff_user_gpus_allocated{user,account}   what the user's running jobs
//       in the account hold
//   skiff_account_gpus_allocated{account}     the account's whole subtree
//   skiff_account_gpus_limit{account}         GrpTRES=gres/gpu, where set
//   skiff_qos_gpus_allocated{qos}, skiff_qos_gpus_per_user_limit{qos}
//       (MaxTRESPerUser=gres/gpu, where set)
//   skiff_account_gpu_hours_{used,held,budget}{account}  GrpTRESMins
//       gres/gpu in GPU-hours (a lab's budget unit rather than Prometheus's
//       seconds): used by ended runs (the subtree's), held by jobs not yet
//       ended (their time limits; +Inf for a job without one), and the
//       budget where one is set
//   skiff_user_gpu_hours_{used,held,budget}{user,account}  the same for a
//       user's own association
//   skiff_qos_gpu_hours_{used,held,budget}{qos}
//   skiff_jobs_pending{reason}                 pending jobs (array tasks
//       counted one by one) by Slurm's reason
//   skiff_scheduler_cycle_{last,max,mean}_seconds{scheduler="main"|"backfill"},
//   skiff_scheduler_cycles_total{scheduler},
//   skiff_scheduler_cycle_seconds_total{scheduler}  (rate() of the two: the
//       mean cycle over a window)
//   skiff_ctld_rpcs_total{rpc}, skiff_ctld_rpc_seconds_total{rpc},
//   skiff_ctld_rpc_average_seconds{rpc}        ctld's own timing of each RPC
//       type, as sdiag shows it (since ctld's start, midnight UTC or a reset)
//   skiff_ctld_user_rpcs_total{user}, skiff_ctld_user_rpc_seconds_total{user}
//   skiff_restd_ctld_round_trip_seconds{rpc}   restd's round trip to ctld
//       for this answer's calls
//
// Pure (no RPCs, no clock); thread-safe.
#ifndef SKIFF_RESTD_METRICS_METRICS_CORE_H_
#define SKIFF_RESTD_METRICS_METRICS_CORE_H_

#include <optional>
#include <string>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff::restd {

enum class MetricsEndpoint {
  kAll,             // /metrics
  kJobs,            // /metrics/jobs
  kNodes,           // /metrics/nodes
  kPartitions,      // /metrics/partitions
  kScheduler,       // /metrics/scheduler
  kJobsUsersAccts,  // /metrics/jobs-users-accts
};

// The ctld calls an endpoint's metrics are made of.
struct MetricsNeeds {
  bool jobs = false;  // GetJobs (summary, pending array tasks collapsed)
  // GetJobs of only the COMPLETING and STAGE_OUT jobs (for nodes_completing),
  // when `jobs` is not needed whole.
  bool completing_jobs = false;
  bool nodes = false;       // GetNodes
  bool partitions = false;  // GetPartitions
  bool stats = false;       // GetStats
  bool accounts = false;    // GetAccounts
  bool qos = false;         // GetQos
};
MetricsNeeds NeedsOf(MetricsEndpoint endpoint);

struct CtldRoundTrip {
  std::string rpc;  // "GetJobs"
  double seconds = 0;
};

// ctld's replies, as the needs of the endpoint asked for them.
struct MetricsSnapshot {
  std::optional<v1::GetJobsReply> jobs;
  std::optional<v1::GetNodesReply> nodes;
  std::optional<v1::GetPartitionsReply> partitions;
  std::optional<v1::GetStatsReply> stats;
  std::optional<v1::GetAccountsReply> accounts;
  std::optional<v1::GetQosReply> qos;
  std::vector<CtldRoundTrip> round_trips;
};

// The endpoint's metrics in the text format (exposition.h). What the snapshot
// lacks is left out: a missing reply adds no family.
std::string MetricsFrom(MetricsEndpoint endpoint, const MetricsSnapshot& snapshot);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_METRICS_METRICS_CORE_H_
