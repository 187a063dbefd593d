#include "restd/metrics/metrics_core.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "client/accounts_usage.h"
#include "client/node_gpus.h"
#include "restd/metrics/exposition.h"

namespace skiff::restd {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// ---------------------------------------------------------------- jobs

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

// /metrics/jobs and (prefixed user_ and account_) /metrics/jobs-users-accts,
// in Slurm's order with its HELP texts.
constexpr MetricRow kJobRows[] = {
    {"jobs_bootfail", kBootFail, "Number of jobs in BootFail state"},
    {"jobs_cancelled", kCancelled, "Number of jobs in Cancelled state"},
    {"jobs_completed", kCompleted, "Number of jobs in Completed state"},
    {"jobs_completing", kCompletingJobs, "Number of jobs in Completing state"},
    {"jobs_configuring", kConfiguring, "Number of jobs in Configuring state"},
    {"jobs_cpus_alloc", kCpusAlloc, "Total number of Cpus allocated by jobs"},
    {"jobs_deadline", kDeadline, "Number of jobs in Deadline state"},
    {"jobs_expediting", kExpediting, "Number of jobs in Expediting state"},
    {"jobs_failed", kFailed, "Number of jobs in Failed state"},
    {"jobs_fed_requeued", kFedRequeued, "Number of jobs requeued in a federation"},
    {"jobs_finished", kFinished, "Number of finished jobs"},
    {"jobs_hold", kHold, "Number of jobs in Hold state"},
    {"jobs", kJobCount, "Total number of jobs"},
    {"jobs_memory_alloc", kMemoryAlloc, "Total memory bytes allocated by jobs"},
    {"jobs_node_failed", kNodeFailed, "Number of jobs in Node Failed state"},
    {"jobs_nodes_alloc", kNodesAlloc, "Total number of nodes allocated by jobs"},
    {"jobs_outofmemory", kOutOfMemory, "Number of jobs in Out of Memory state"},
    {"jobs_pending", kPending, "Number of jobs in Pending state"},
    {"jobs_powerup_node", kPowerupNode, "Number of jobs in PowerUp Node state"},
    {"jobs_preempted", kPreempted, "Number of jobs in Preempted state"},
    {"jobs_requeued", kRequeued, "Number of jobs in Requeued state"},
    {"jobs_resizing", kResizing, "Number of jobs in Resizing state"},
    {"jobs_revoked", kRevoked, "Number of jobs revoked"},
    {"jobs_running", kRunning, "Number of jobs in Running state"},
    {"jobs_signaling", kSignaling, "Number of jobs being signaled"},
    {"jobs_stageout", kStageOut, "Number of jobs in StageOut state"},
    {"jobs_started", kStarted, "Number of started jobs"},
    {"jobs_suspended", kSuspended, "Number of jobs in Suspended state"},
    {"jobs_timeout", kTimeout, "Number of jobs in Timeout state"},
};

constexpr MetricRow kPartitionJobRows[] = {
    {"partition_jobs", kNotCompleted, "Number of jobs in this partition"},
    {"partition_jobs_bootfail", kBootFail, "Number of jobs in BootFail state"},
    {"partition_jobs_cancelled", kCancelled, "Number of jobs in Cancelled state"},
    {"partition_jobs_completed", kCompleted, "Number of jobs in Completed state"},
    {"partition_jobs_completing", kCompletingJobs, "Number of jobs in Completing state"},
    {"partition_jobs_configuring", kConfiguring, "Number of jobs in Configuring state"},
    {"partition_jobs_cpus_alloc", kCpusAlloc, "Total number of Cpus allocated by jobs"},
    {"partition_jobs_deadline", kDeadline, "Number of jobs in Deadline state"},
    {"partition_jobs_expediting", kExpediting, "Number of jobs in Expediting state"},
    {"partition_jobs_failed", kFailed, "Number of jobs in Failed state"},
    {"partition_jobs_fed_requeued", kFedRequeued, "Number of jobs requeued in a federation"},
    {"partition_jobs_finished", kFinished, "Number of jobs in Finished"},
    {"partition_jobs_hold", kHold, "Number of jobs in Hold state"},
    {"partition_jobs_max_job_nodes", kMaxJobNodes,
     "Max of the max_nodes required of all pending jobs in that partition"},
    {"partition_jobs_max_job_nodes_nohold", kMaxJobNodesNoHold,
     "Max of the max_nodes required of all pending jobs in that partition excluding Held jobs"},
    {"partition_jobs_memory_alloc", kMemoryAlloc, "Total memory bytes allocated by jobs"},
    {"partition_jobs_min_job_nodes", kMinJobNodes,
     "Max of the min_nodes required of all pending jobs in that partition"},
    {"partition_jobs_min_job_nodes_nohold", kMinJobNodesNoHold,
     "Max of the min_nodes required of all pending jobs in that partition excluding Held jobs"},
    {"partition_jobs_node_failed", kNodeFailed, "Number of jobs in Node Failed state"},
    {"partition_jobs_outofmemory", kOutOfMemory, "Number of jobs in Out of Memory state"},
    {"partition_jobs_pending", kPending, "Number of jobs in Pending state"},
    {"partition_jobs_powerup_node", kPowerupNode, "Number of jobs in PowerUp Node state"},
    {"partition_jobs_preempted", kPreempted, "Number of jobs in Preempted state"},
    {"partition_jobs_requeued", kRequeued, "Number of jobs in Requeued state"},
    {"partition_jobs_resizing", kResizing, "Number of jobs in Resizing state"},
    {"partition_jobs_revoked", kRevoked, "Number of revoked jobs"},
    {"partition_jobs_running", kRunning, "Number of jobs in Running state"},
    {"partition_jobs_signaling", kSignaling, "Number of jobs in Signaling state"},
    {"partition_jobs_stageout", kStageOut, "Number of jobs in StageOut state"},
    {"partition_jobs_started", kStarted, "Number of jobs started"},
    {"partition_jobs_suspended", kSuspended, "Number of jobs in Suspended state"},
    {"partition_jobs_timeout", kTimeout, "Number of jobs in Timeout state"},
    {"partition_jobs_wait_part_node_limit", kWaitPartNodeLimit, "Jobs wait partition node limit"},
};

// Held: Slurm's WAIT_HELD and WAIT_HELD_USER.
bool IsHeld(const v1::JobInfo& job) {
  return job.held() || job.state_reason() == "JobHeldUser" || job.state_reason() == "JobHeldAdmin";
}

// How many jobs a record stands for: a collapsed array's pending tasks count
// one by one, as Slurm's job_array_cnt.
double TasksOf(const v1::JobInfo& job) {
  return job.collapsed_task_ids_size() > 0 ? job.collapsed_task_ids_size() : 1;
}

const std::string& PartitionOf(const v1::JobInfo& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

// How slurmctld's record total counts a record: the whole /metrics/jobs
// counts an array's tasks (job_array_cnt), the per-user and per-account sets
// count records.
enum class RecordTotal { kTasks, kRecords };

// Adds `job` to `c` as statistics.c's _fill_jobs_statistics and
// _statistics_part_aggregate_job do. Skiff's states map onto Slurm's base
// state and flags: CONFIGURING is RUNNING with CONFIGURING, COMPLETING a
// finished state with COMPLETING, STAGE_OUT that with STAGE_OUT too.
void CountJob(const v1::JobInfo& job, RecordTotal total, JobCounts& c) {
  const double tasks = TasksOf(job);
  const bool held = IsHeld(job);
  bool finished = true;  // Slurm's IS_JOB_FINISHED: base state past SUSPENDED
  bool completing = false;
  switch (job.state()) {
    case v1::PENDING:
      c[kPending] += tasks;
      if (held) c[kHold] += tasks;
      finished = false;
      break;
    case v1::CONFIGURING:
      ++c[kConfiguring];
      ++c[kRunning];
      finished = false;
      break;
    case v1::RUNNING:
      ++c[kRunning];
      finished = false;
      break;
    case v1::SUSPENDED:
      ++c[kSuspended];
      finished = false;
      break;
    case v1::STAGE_OUT:
      ++c[kStageOut];
      [[fallthrough]];
    case v1::COMPLETING:
      ++c[kCompletingJobs];
      completing = true;
      break;
    case v1::COMPLETED:
      ++c[kCompleted];
      break;
    case v1::CANCELLED:
      ++c[kCancelled];
      break;
    case v1::FAILED:
      ++c[kFailed];
      break;
    case v1::TIMEOUT:
      ++c[kTimeout];
      break;
    case v1::NODE_FAIL:
      ++c[kNodeFailed];
      break;
    case v1::OUT_OF_MEMORY:
      ++c[kOutOfMemory];
      break;
    case v1::PREEMPTED:
      ++c[kPreempted];
      break;
    case v1::DEADLINE:
      ++c[kDeadline];
      break;
    case v1::REQUEUED:
      ++c[kRequeued];
      finished = false;
      break;
    default:
      finished = false;
      break;
  }
  if (finished) ++c[kFinished];
  // Slurm's IS_JOB_STARTED: any base state past PENDING.
  if (job.state() != v1::PENDING && job.state() != v1::REQUEUED) ++c[kStarted];
  if (!finished || completing) ++c[kNotCompleted];
  if (job.state() == v1::RUNNING || job.state() == v1::CONFIGURING ||
      job.state() == v1::SUSPENDED) {
    c[kCpusAlloc] += job.num_cpus();
    c[kNodesAlloc] += job.num_nodes();
    c[kMemoryAlloc] += static_cast<double>(job.mem_per_node_mb()) * job.num_nodes() * kMiB;
  }
  if (job.state() == v1::PENDING) {
    // A summary carries the job's node count (its minimum) and not -N's maximum.
    const double nodes = std::max(1, job.num_nodes());
    c[kMaxJobNodes] = std::max(c[kMaxJobNodes], nodes);
    c[kMinJobNodes] = std::max(c[kMinJobNodes], nodes);
    if (!held) {
      c[kMaxJobNodesNoHold] = std::max(c[kMaxJobNodesNoHold], nodes);
      c[kMinJobNodesNoHold] = std::max(c[kMinJobNodesNoHold], nodes);
    }
    if (job.state_reason() == "PartitionNodeLimit") ++c[kWaitPartNodeLimit];
  }
  c[kJobCount] += total == RecordTotal::kTasks ? tasks : 1;
}

void AddJobMetrics(const v1::GetJobsReply& jobs, Exposition& out) {
  JobCounts counts{};
  for (const v1::JobInfo& job : jobs.jobs()) CountJob(job, RecordTotal::kTasks, counts);
  for (const MetricRow& row : kJobRows) {
    out.Gauge(absl::StrCat("slurm_", row.name), row.help, counts[row.index]);
  }
}

void AddUserAccountMetrics(const v1::GetJobsReply& jobs, Exposition& out) {
  std::map<std::string, JobCounts> users, accounts;
  for (const v1::JobInfo& job : jobs.jobs()) {
    CountJob(job, RecordTotal::kRecords, users[job.user_name()]);
    if (!job.account().empty()) CountJob(job, RecordTotal::kRecords, accounts[job.account()]);
  }
  // Family by family, each with every user's (then account's) sample.
  for (const MetricRow& row : kJobRows) {
    const std::string name = absl::StrCat("slurm_user_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (const auto& [user, counts] : users) {
      out.Gauge(name, row.help, counts[row.index], {{"username", user}});
    }
  }
  for (const MetricRow& row : kJobRows) {
    const std::string name = absl::StrCat("slurm_account_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (const auto& [account, counts] : accounts) {
      out.Gauge(name, row.help, counts[row.index], {{"account", account}});
    }
  }
}

// ---------------------------------------------------------------- nodes

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

constexpr MetricRow kNodeRows[] = {
    {"nodes", kNodes, "Total number of nodes"},
    {"nodes_alloc", kAlloc, "Number of nodes in Allocated state"},
    {"nodes_blocked", kBlocked, "Number of nodes in Blocked state"},
    {"nodes_completing", kCompletingNodes, "Number of nodes with Completing flag"},
    {"nodes_cloud", kCloud, "Number of Cloud nodes"},
    {"nodes_down", kDown, "Number of nodes in Down state"},
    {"nodes_drain", kDrain, "Number of nodes with Drain flag"},
    {"nodes_drained", kDrained, "Number of drained nodes"},
    {"nodes_draining", kDraining,
     "Number of nodes in draining condition (Drain state with active jobs)"},
    {"nodes_dyn_future", kDynFuture, "Number of future dynamic nodes"},
    {"nodes_dyn_normal", kDynNormal, "Number of dynamic nodes"},
    {"nodes_external", kExternal, "Number of external nodes"},
    {"nodes_fail", kFail, "Number of nodes with Fail flag"},
    {"nodes_future", kFuture, "Number of nodes in Future state"},
    {"nodes_idle", kIdle, "Number of nodes in Idle state"},
    {"nodes_invalid_reg", kInvalidReg, "Number of nodes with Invalid Registration flag"},
    {"nodes_maint", kMaint, "Number of nodes with Maintenance flag"},
    {"nodes_mixed", kMixed, "Number of nodes in Mixed state"},
    {"nodes_noresp", kNoResp, "Number of nodes with Not Responding flag"},
    {"nodes_planned", kPlanned, "Number of nodes with Planned flag"},
    {"nodes_power_down", kPowerDown, "Number of nodes marked to be powered down"},
    {"nodes_power_up", kPowerUp, "Number of nodes marked to be powered up"},
    {"nodes_powered_down", kPoweredDown, "Number of nodes powered down"},
    {"nodes_powering_up", kPoweringUp, "Number of nodes powering up"},
    {"nodes_reboot_issued", kRebootIssued, "Number of nodes with Reboot Issued flag"},
    {"nodes_reboot_req", kRebootRequested, "Number of nodes with Reboot Requested flag"},
    {"nodes_resv", kResv, "Number of nodes with Reserved flag"},
    {"nodes_unknown", kUnknown, "Number of nodes in Unknown state"},
};

constexpr MetricRow kPerNodeRows[] = {
    {"node_cpus", kCpus, "Total number of cpus in the node"},
    {"node_cpus_alloc", kCpusAllocated, "Allocated cpus in the node"},
    {"node_cpus_effective", kCpusEffective,
     "CPUs allocatable to jobs not reserved for system usage"},
    {"node_cpus_idle", kCpusIdle, "Idle cpus in the node"},
    {"node_memory_alloc_bytes", kMemAlloc, "Bytes allocated to jobs in the node"},
    {"node_memory_effective_bytes", kMemAvail,
     "Memory allocatable to jobs not reserved for system usage"},
    {"node_memory_free_bytes", kMemFree, "Free memory in bytes of the node"},
    {"node_memory_bytes", kMemTotal, "Total memory in bytes of the node"},
};

constexpr MetricRow kPartitionNodeRows[] = {
    {"partition_nodes_alloc", kAlloc, "Nodes allocated"},
    {"partition_nodes_blocked", kBlocked, "Nodes blocked"},
    {"partition_nodes_cg", kCompletingNodes, "Nodes in completing state"},
    {"partition_nodes_cloud", kCloud, "Cloud nodes"},
    {"partition_nodes_cpus_efctv", kCpusEffective,
     "Number of effective CPUs on all nodes, excludes CoreSpec"},
    {"partition_nodes_cpus_idle", kCpusIdle, "Number of idle CPUs on all nodes"},
    {"partition_nodes_cpus_alloc", kCpusAllocated, "Number of allocated cpus"},
    {"partition_nodes_down", kDown, "Nodes in Down state"},
    {"partition_nodes_drain", kDrain, "Nodes in Drain state"},
    {"partition_nodes_drained", kDrained, "Nodes in Drained state"},
    {"partition_nodes_draining", kDraining,
     "Number of nodes in draining condition (Drain state with active jobs)"},
    {"partition_nodes_dyn_future", kDynFuture, "Dynamic nodes in Future state"},
    {"partition_nodes_dyn_normal", kDynNormal, "Dynamic nodes"},
    {"partition_nodes_external", kExternal, "External nodes"},
    {"partition_nodes_fail", kFail, "Nodes in Fail state"},
    {"partition_nodes_future", kFuture, "Nodes in Future state"},
    {"partition_nodes_idle", kIdle, "Nodes in Idle state"},
    {"partition_nodes_invalid_reg", kInvalidReg, "Number of nodes with Invalid Registration flag"},
    {"partition_nodes_maint", kMaint, "Nodes in maintenance state"},
    {"partition_nodes_mem_alloc", kMemAlloc, "Amount of allocated memory of all nodes"},
    {"partition_nodes_mem_avail", kMemAvail, "Amount of available memory of all nodes"},
    {"partition_nodes_mem_free", kMemFree, "Amount of free memory in all nodes"},
    {"partition_nodes_mem_tot", kMemTotal, "Total amount of memory of all nodes"},
    {"partition_nodes_mixed", kMixed, "Nodes in Mixed state"},
    {"partition_nodes_no_resp", kNoResp, "Nodes in Not Responding state"},
    {"partition_nodes_planned", kPlanned, "Nodes in Planned state"},
    {"partition_nodes_power_down", kPowerDown, "Nodes marked to Power Down"},
    {"partition_nodes_power_up", kPowerUp, "Nodes marked to Power Up"},
    {"partition_nodes_powered_down", kPoweredDown, "Powered down nodes"},
    {"partition_nodes_powering_down", kPoweringDown, "Powering down nodes"},
    {"partition_nodes_powering_up", kPoweringUp, "Powering up nodes"},
    {"partition_nodes_reboot_issued", kRebootIssued, "Nodes which initiated reboot"},
    {"partition_nodes_reboot_requested", kRebootRequested, "Nodes with Reboot Requested flag"},
    {"partition_nodes_resv", kResv, "Nodes with Reserved flag"},
    {"partition_nodes_unknown", kUnknown, "Nodes in Unknown state"},
    {"partition_cpus", kCpus, "Partition total cpus"},
    {"partition_nodes", kNodes, "Partition total nodes"},
};

// Nodes with a COMPLETING (or staging-out) job on them: Slurm's COMPLETING
// node flag, which lasts while a job's epilog runs there.
absl::flat_hash_set<std::string> CompletingNodes(const MetricsSnapshot& snapshot) {
  absl::flat_hash_set<std::string> out;
  if (!snapshot.jobs) return out;
  for (const v1::JobInfo& job : snapshot.jobs->jobs()) {
    if (job.state() != v1::COMPLETING && job.state() != v1::STAGE_OUT) continue;
    for (const std::string& node : job.nodes()) out.insert(node);
  }
  return out;
}

// Adds `node` as statistics.c's statistics_get_nodes counts it. The flags a
// Skiff node cannot have (cloud, dynamic, external, power saving, reboot,
// planned, blocked, invalid registration) stay 0.
void CountNode(const v1::NodeInfo& node, bool completing, NodeCounts& c) {
  ++c[kNodes];
  const std::string& state = node.state();
  if (state == "FUTURE") {
    ++c[kFuture];
  } else if (state == "DOWN") {
    ++c[kDown];
  } else if (state == "MIXED") {
    ++c[kMixed];
  } else if (state == "ALLOCATED") {
    ++c[kAlloc];
  } else if (state == "IDLE") {
    ++c[kIdle];
  } else {
    ++c[kUnknown];
  }
  if (completing) ++c[kCompletingNodes];
  // Slurm's DRAINING: drained with jobs still on it (allocated, mixed or
  // completing); DRAINED: drained without. nodes_drain counts the latter.
  const bool busy = state == "ALLOCATED" || state == "MIXED" || completing;
  if (node.drain()) {
    if (busy) {
      ++c[kDraining];
    } else {
      ++c[kDrain];
      ++c[kDrained];
    }
  }
  if (node.fail()) ++c[kFail];
  if (node.maint()) ++c[kMaint];
  if (node.not_responding()) ++c[kNoResp];
  // A MAINT reservation is a reservation too (Slurm sets RESERVED with MAINT).
  if (node.reserved() || node.maint()) ++c[kResv];
  // No CoreSpecCount or MemSpecLimit in Skiff: every CPU and MB is the jobs'.
  c[kCpus] += node.cpus();
  c[kCpusAllocated] += node.alloc_cpus();
  c[kCpusEffective] += node.cpus();
  c[kCpusIdle] += node.cpus() - node.alloc_cpus();
  c[kMemAlloc] += static_cast<double>(node.alloc_memory_mb()) * kMiB;
  c[kMemAvail] += static_cast<double>(node.real_memory_mb()) * kMiB;
  c[kMemFree] += static_cast<double>(node.free_memory_mb()) * kMiB;  // 0 until reported
  c[kMemTotal] += static_cast<double>(node.real_memory_mb()) * kMiB;
}

void AddNodeMetrics(const v1::GetNodesReply& nodes, const MetricsSnapshot& snapshot,
                    Exposition& out) {
  const absl::flat_hash_set<std::string> completing = CompletingNodes(snapshot);
  NodeCounts total{};
  std::vector<NodeCounts> each(nodes.nodes_size());
  for (int i = 0; i < nodes.nodes_size(); ++i) {
    const v1::NodeInfo& node = nodes.nodes(i);
    const bool cg = completing.contains(node.name());
    CountNode(node, cg, total);
    each[i] = {};
    CountNode(node, cg, each[i]);
  }
  for (const MetricRow& row : kNodeRows) {
    out.Gauge(absl::StrCat("slurm_", row.name), row.help, total[row.index]);
  }
  for (const MetricRow& row : kPerNodeRows) {
    const std::string name = absl::StrCat("slurm_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (int i = 0; i < nodes.nodes_size(); ++i) {
      out.Gauge(name, row.help, each[i][row.index], {{"node", nodes.nodes(i).name()}});
    }
  }
}

// ---------------------------------------------------------------- partitions

void AddPartitionMetrics(const v1::GetPartitionsReply& partitions, const MetricsSnapshot& snapshot,
                         Exposition& out) {
  absl::flat_hash_map<std::string, const v1::NodeInfo*> nodes_by_name;
  for (const v1::NodeInfo& node : partitions.nodes()) nodes_by_name[node.name()] = &node;
  const absl::flat_hash_set<std::string> completing = CompletingNodes(snapshot);

  std::vector<JobCounts> jobs(partitions.partitions_size(), JobCounts{});
  std::vector<NodeCounts> nodes(partitions.partitions_size(), NodeCounts{});
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < partitions.partitions_size(); ++i) {
    const v1::PartitionInfo& partition = partitions.partitions(i);
    index[partition.name()] = i;
    for (const std::string& name : partition.nodes()) {
      auto it = nodes_by_name.find(name);
      if (it != nodes_by_name.end()) {
        CountNode(*it->second, completing.contains(name), nodes[i]);
      }
    }
  }
  if (snapshot.jobs) {
    for (const v1::JobInfo& job : snapshot.jobs->jobs()) {
      // Slurm counts a job in the partition it names exactly: one pending in
      // "a,b" is in neither.
      auto it = index.find(PartitionOf(job));
      if (it != index.end()) CountJob(job, RecordTotal::kRecords, jobs[it->second]);
    }
  }

  out.Gauge("slurm_partitions", "Total number of partitions", partitions.partitions_size());
  for (const MetricRow& row : kPartitionJobRows) {
    if (!snapshot.jobs) break;
    const std::string name = absl::StrCat("slurm_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (int i = 0; i < partitions.partitions_size(); ++i) {
      out.Gauge(name, row.help, jobs[i][row.index],
                {{"partition", partitions.partitions(i).name()}});
    }
  }
  for (const MetricRow& row : kPartitionNodeRows) {
    const std::string name = absl::StrCat("slurm_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (int i = 0; i < partitions.partitions_size(); ++i) {
      out.Gauge(name, row.help, nodes[i][row.index],
                {{"partition", partitions.partitions(i).name()}});
    }
  }
}

// ---------------------------------------------------------------- scheduler

double MeanOf(uint64_t sum, uint64_t count) {
  // Slurm's means are integer divisions of its counters.
  return count == 0 ? 0 : static_cast<double>(sum / count);
}

void AddSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out) {
  const uint64_t bf = s.bf_cycle_counter();
  const std::pair<const char*, std::pair<double, const char*>> rows[] = {
      {"agent_cnt", {s.agent_count(), "Number of agent threads"}},
      {"agent_queue_size", {s.agent_queue_size(), "Outgoing RPC retry queue length"}},
      {"agent_thread_cnt", {s.agent_thread_count(), "Total active agent-created threads"}},
      {"bf_depth_mean", {MeanOf(s.bf_depth_sum(), bf), "Mean backfill cycle depth"}},
      {"bf_mean_cycle", {MeanOf(s.bf_cycle_sum(), bf), "Mean backfill cycle time"}},
      {"bf_mean_table_sz", {MeanOf(s.bf_table_size_sum(), bf), "Mean backfill table size"}},
      {"bf_queue_len_mean", {MeanOf(s.bf_queue_len_sum(), bf), "Mean backfill queue length"}},
      {"bf_try_depth_mean", {MeanOf(s.bf_depth_try_sum(), bf), "Mean depth attempts in backfill"}},
      {"backfilled_het_jobs", {s.bf_backfilled_het_jobs(), "Heterogeneous components backfilled"}},
      {"backfilled_jobs", {s.bf_backfilled_jobs(), "Total backfilled jobs since reset"}},
      {"bf_active", {s.bf_active() ? 1 : 0, "Backfill scheduler active jobs"}},
      {"bf_cycle_cnt", {bf, "Backfill cycle count"}},
      {"bf_cycle_last", {s.bf_cycle_last(), "Last backfill cycle time"}},
      {"bf_cycle_max", {s.bf_cycle_max(), "Max backfill cycle time"}},
      {"bf_cycle_tot", {static_cast<double>(s.bf_cycle_sum()), "Sum of backfill cycle times"}},
      {"bf_depth_tot", {static_cast<double>(s.bf_depth_sum()), "Sum of backfill job depths"}},
      {"bf_depth_try_tot",
       {static_cast<double>(s.bf_depth_try_sum()), "Sum of backfill depth attempts"}},
      {"bf_last_depth", {s.bf_last_depth(), "Last backfill depth"}},
      {"bf_last_depth_try", {s.bf_last_depth_try(), "Last backfill depth attempts"}},
      {"bf_queue_len", {s.bf_queue_len(), "Backfill queue length"}},
      {"bf_queue_len_tot",
       {static_cast<double>(s.bf_queue_len_sum()), "Sum of backfill queue lengths"}},
      {"bf_table_size", {s.bf_table_size(), "Backfill table size"}},
      {"bf_table_size_tot",
       {static_cast<double>(s.bf_table_size_sum()), "Sum of backfill table sizes"}},
      {"bf_when_last_cycle",
       {static_cast<double>(s.bf_when_last_cycle()), "Timestamp of last backfill cycle"}},
      {"sdiag_jobs_canceled", {s.jobs_canceled(), "Jobs canceled since reset"}},
      {"sdiag_jobs_completed", {s.jobs_completed(), "Jobs completed since reset"}},
      {"sdiag_jobs_failed", {s.jobs_failed(), "Jobs failed since reset"}},
      {"sdiag_jobs_pending", {s.jobs_pending(), "Jobs pending at timestamp"}},
      {"sdiag_jobs_running", {s.jobs_running(), "Jobs running at timestamp"}},
      {"sdiag_jobs_started", {s.jobs_started(), "Jobs started since reset"}},
      {"sdiag_jobs_submitted", {s.jobs_submitted(), "Jobs submitted since reset"}},
      {"sdiag_job_states_ts", {static_cast<double>(s.job_states_ts()), "Job states timestamp"}},
      {"last_backfilled_jobs", {s.bf_last_backfilled_jobs(), "Backfilled jobs since last cycle"}},
      {"sdiag_latency", {s.gettimeofday_latency(), "Measurement latency"}},
      {"schedule_cycle_cnt", {s.schedule_cycle_counter(), "Scheduling cycle count"}},
      {"schedule_cycle_depth",
       {static_cast<double>(s.schedule_cycle_depth()), "Processed jobs depth total"}},
      {"schedule_cycle_last", {s.schedule_cycle_last(), "Last scheduling cycle time"}},
      {"schedule_cycle_max", {s.schedule_cycle_max(), "Max scheduling cycle time"}},
      {"schedule_cycle_tot",
       {static_cast<double>(s.schedule_cycle_sum()), "Sum of scheduling cycle times"}},
      {"schedule_queue_len", {s.schedule_queue_len(), "Jobs pending queue length"}},
      {"sched_mean_cycle",
       {MeanOf(s.schedule_cycle_sum(), s.schedule_cycle_counter()), "Mean scheduling cycle time"}},
      {"sched_mean_depth_cycle",
       {MeanOf(s.schedule_cycle_depth(), s.schedule_cycle_counter()),
        "Mean depth of scheduling cycles"}},
      {"server_thread_cnt", {s.server_thread_count(), "Active slurmctld threads count"}},
      {"slurmdbd_queue_size", {s.dbd_agent_queue_size(), "Queued messages to SlurmDBD"}},
      {"last_proc_req_start",
       {static_cast<double>(s.req_time_start()), "Timestamp of last process request start"}},
      {"sched_stats_timestamp",
       {static_cast<double>(s.req_time()), "Statistics snapshot timestamp"}},
  };
  for (const auto& [name, value_help] : rows) {
    out.Gauge(absl::StrCat("slurm_", name), value_help.second, value_help.first);
  }
}

// ---------------------------------------------------------------- Skiff's own

// Microseconds (ctld's unit for cycles and RPCs) in seconds; a division, so
// that 1500 us is exactly the double nearest 0.0015.
double Seconds(double microseconds) { return microseconds / 1e6; }

void AddSkiffSchedulerMetrics(const v1::GetStatsReply& s, Exposition& out) {
  struct Cycle {
    const char* scheduler;
    double last, max, sum, count;
  };
  const Cycle cycles[] = {
      {"main", static_cast<double>(s.schedule_cycle_last()),
       static_cast<double>(s.schedule_cycle_max()), static_cast<double>(s.schedule_cycle_sum()),
       static_cast<double>(s.schedule_cycle_counter())},
      {"backfill", static_cast<double>(s.bf_cycle_last()), static_cast<double>(s.bf_cycle_max()),
       static_cast<double>(s.bf_cycle_sum()), static_cast<double>(s.bf_cycle_counter())},
  };
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_last_seconds", "Duration of the scheduler's last cycle",
              Seconds(c.last), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_max_seconds",
              "Longest scheduler cycle since ctld's start, midnight UTC or sdiag --reset",
              Seconds(c.max), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Gauge("skiff_scheduler_cycle_mean_seconds",
              "Mean scheduler cycle since ctld's start, midnight UTC or sdiag --reset",
              c.count == 0 ? 0 : Seconds(c.sum / c.count), {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Add("skiff_scheduler_cycles_total", "Scheduler cycles run", MetricType::kCounter, c.count,
            {{"scheduler", c.scheduler}});
  }
  for (const Cycle& c : cycles) {
    out.Add("skiff_scheduler_cycle_seconds_total", "Time spent in scheduler cycles",
            MetricType::kCounter, Seconds(c.sum), {{"scheduler", c.scheduler}});
  }

  constexpr char kRpcsHelp[] = "RPCs ctld served, by message type";
  constexpr char kRpcSecondsHelp[] = "Time ctld spent serving RPCs, by message type";
  constexpr char kRpcAverageHelp[] = "Mean time ctld took to serve an RPC, by message type";
  out.Declare("skiff_ctld_rpcs_total", kRpcsHelp, MetricType::kCounter);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Add("skiff_ctld_rpcs_total", kRpcsHelp, MetricType::kCounter, rpc.count(),
            {{"rpc", rpc.name()}});
  }
  out.Declare("skiff_ctld_rpc_seconds_total", kRpcSecondsHelp, MetricType::kCounter);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Add("skiff_ctld_rpc_seconds_total", kRpcSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(rpc.total_time())), {{"rpc", rpc.name()}});
  }
  out.Declare("skiff_ctld_rpc_average_seconds", kRpcAverageHelp, MetricType::kGauge);
  for (const v1::RpcTypeStat& rpc : s.rpcs_by_type()) {
    out.Gauge("skiff_ctld_rpc_average_seconds", kRpcAverageHelp,
              rpc.count() == 0 ? 0 : Seconds(static_cast<double>(rpc.total_time()) / rpc.count()),
              {{"rpc", rpc.name()}});
  }
  constexpr char kUserRpcsHelp[] = "RPCs ctld served, by user";
  constexpr char kUserSecondsHelp[] = "Time ctld spent serving RPCs, by user";
  out.Declare("skiff_ctld_user_rpcs_total", kUserRpcsHelp, MetricType::kCounter);
  for (const v1::RpcUserStat& rpc : s.rpcs_by_user()) {
    const std::string user = rpc.user().empty() ? absl::StrCat(rpc.uid()) : rpc.user();
    out.Add("skiff_ctld_user_rpcs_total", kUserRpcsHelp, MetricType::kCounter, rpc.count(),
            {{"user", user}});
  }
  out.Declare("skiff_ctld_user_rpc_seconds_total", kUserSecondsHelp, MetricType::kCounter);
  for (const v1::RpcUserStat& rpc : s.rpcs_by_user()) {
    const std::string user = rpc.user().empty() ? absl::StrCat(rpc.uid()) : rpc.user();
    out.Add("skiff_ctld_user_rpc_seconds_total", kUserSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(rpc.total_time())), {{"user", user}});
  }

  // What Skiff adds around each job's run, and each scriptd call by name.
  constexpr char kOverheadsHelp[] =
      "Jobs timed from allocation to launch on the node (start), or from their end on the node "
      "to their final state (end)";
  constexpr char kOverheadSecondsHelp[] = "Total of those jobs' start or end overheads";
  constexpr char kOverheadMaxHelp[] = "Longest start or end overhead of one job";
  const v1::CallTimeStat* overheads[] = {&s.job_start_overhead(), &s.job_end_overhead()};
  const char* phases[] = {"start", "end"};
  for (int i = 0; i < 2; ++i) {
    out.Add("skiff_job_overheads_total", kOverheadsHelp, MetricType::kCounter,
            overheads[i]->count(), {{"phase", phases[i]}});
  }
  for (int i = 0; i < 2; ++i) {
    out.Add("skiff_job_overhead_seconds_total", kOverheadSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(overheads[i]->total_time())), {{"phase", phases[i]}});
  }
  for (int i = 0; i < 2; ++i) {
    out.Gauge("skiff_job_overhead_max_seconds", kOverheadMaxHelp,
              Seconds(static_cast<double>(overheads[i]->max_time())), {{"phase", phases[i]}});
  }
  constexpr char kScriptsHelp[] =
      "Scripts and burst_buffer.lua hooks scriptd ran for ctld, by name";
  constexpr char kScriptSecondsHelp[] = "Time those calls took, from ctld's call to the answer";
  constexpr char kScriptMaxHelp[] = "Longest such call, by name";
  out.Declare("skiff_scriptd_calls_total", kScriptsHelp, MetricType::kCounter);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Add("skiff_scriptd_calls_total", kScriptsHelp, MetricType::kCounter, call.count(),
            {{"call", call.name()}});
  }
  out.Declare("skiff_scriptd_call_seconds_total", kScriptSecondsHelp, MetricType::kCounter);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Add("skiff_scriptd_call_seconds_total", kScriptSecondsHelp, MetricType::kCounter,
            Seconds(static_cast<double>(call.total_time())), {{"call", call.name()}});
  }
  out.Declare("skiff_scriptd_call_max_seconds", kScriptMaxHelp, MetricType::kGauge);
  for (const v1::CallTimeStat& call : s.scriptd_calls()) {
    out.Gauge("skiff_scriptd_call_max_seconds", kScriptMaxHelp,
              Seconds(static_cast<double>(call.max_time())), {{"call", call.name()}});
  }
}

void AddPendingReasons(const v1::GetJobsReply& jobs, Exposition& out) {
  constexpr char kHelp[] = "Pending jobs (array tasks one by one) by Slurm's pending reason";
  std::map<std::string, double> by_reason;
  for (const v1::JobInfo& job : jobs.jobs()) {
    if (job.state() != v1::PENDING) continue;
    by_reason[job.state_reason().empty() ? "None" : job.state_reason()] += TasksOf(job);
  }
  out.Declare("skiff_jobs_pending", kHelp, MetricType::kGauge);
  for (const auto& [reason, count] : by_reason) {
    out.Gauge("skiff_jobs_pending", kHelp, count, {{"reason", reason}});
  }
}

struct GpuTally {
  double total = 0;
  double allocated = 0;
  double idle = 0;         // free on a node that can take jobs
  double unavailable = 0;  // free on a node that cannot
};

// Up and taking jobs: not down, drained, failed or silent.
bool TakesJobs(const v1::NodeInfo& node) {
  const std::string& state = node.state();
  return (state == "IDLE" || state == "MIXED" || state == "ALLOCATED") && !node.drain() &&
         !node.fail() && !node.not_responding();
}

// The node's GPUs by type ("" untyped).
void TallyGpus(const v1::NodeInfo& node, std::map<std::string, GpuTally>& by_type) {
  const bool usable = TakesJobs(node);
  for (const client::NodeGpuEntry& entry : client::NodeGpuEntries(node)) {
    GpuTally& tally = by_type[entry.type];
    tally.total += entry.count;
    tally.allocated += entry.held;
    (usable ? tally.idle : tally.unavailable) += entry.count - entry.held;
  }
}

void AddGpuMetrics(const MetricsSnapshot& snapshot, Exposition& out) {
  constexpr char kTotal[] = "GPUs in the cluster, by type";
  constexpr char kAllocated[] = "GPUs allocated to jobs, by type";
  constexpr char kIdle[] = "GPUs free on nodes that take jobs, by type";
  constexpr char kUnavailable[] =
      "GPUs free on nodes that are down, drained, failed or not responding, by type";
  if (snapshot.nodes) {
    std::map<std::string, GpuTally> by_type;
    std::vector<std::map<std::string, GpuTally>> by_node(snapshot.nodes->nodes_size());
    for (int i = 0; i < snapshot.nodes->nodes_size(); ++i) {
      TallyGpus(snapshot.nodes->nodes(i), by_type);
      TallyGpus(snapshot.nodes->nodes(i), by_node[i]);
    }
    out.Declare("skiff_gpus", kTotal, MetricType::kGauge);
    for (const auto& [type, t] : by_type)
      out.Gauge("skiff_gpus", kTotal, t.total, {{"type", type}});
    out.Declare("skiff_gpus_allocated", kAllocated, MetricType::kGauge);
    for (const auto& [type, t] : by_type) {
      out.Gauge("skiff_gpus_allocated", kAllocated, t.allocated, {{"type", type}});
    }
    out.Declare("skiff_gpus_idle", kIdle, MetricType::kGauge);
    for (const auto& [type, t] : by_type)
      out.Gauge("skiff_gpus_idle", kIdle, t.idle, {{"type", type}});
    out.Declare("skiff_gpus_unavailable", kUnavailable, MetricType::kGauge);
    for (const auto& [type, t] : by_type) {
      out.Gauge("skiff_gpus_unavailable", kUnavailable, t.unavailable, {{"type", type}});
    }
    constexpr char kNodeTotal[] = "GPUs on the node, by type";
    constexpr char kNodeAllocated[] = "GPUs allocated to jobs on the node, by type";
    out.Declare("skiff_node_gpus", kNodeTotal, MetricType::kGauge);
    for (int i = 0; i < snapshot.nodes->nodes_size(); ++i) {
      for (const auto& [type, t] : by_node[i]) {
        out.Gauge("skiff_node_gpus", kNodeTotal, t.total,
                  {{"node", snapshot.nodes->nodes(i).name()}, {"type", type}});
      }
    }
    out.Declare("skiff_node_gpus_allocated", kNodeAllocated, MetricType::kGauge);
    for (int i = 0; i < snapshot.nodes->nodes_size(); ++i) {
      for (const auto& [type, t] : by_node[i]) {
        out.Gauge("skiff_node_gpus_allocated", kNodeAllocated, t.allocated,
                  {{"node", snapshot.nodes->nodes(i).name()}, {"type", type}});
      }
    }
  }
  if (snapshot.partitions) {
    const v1::GetPartitionsReply& reply = *snapshot.partitions;
    absl::flat_hash_map<std::string, const v1::NodeInfo*> nodes_by_name;
    for (const v1::NodeInfo& node : reply.nodes()) nodes_by_name[node.name()] = &node;
    std::vector<std::map<std::string, GpuTally>> by_partition(reply.partitions_size());
    for (int i = 0; i < reply.partitions_size(); ++i) {
      for (const std::string& name : reply.partitions(i).nodes()) {
        auto it = nodes_by_name.find(name);
        if (it != nodes_by_name.end()) TallyGpus(*it->second, by_partition[i]);
      }
    }
    const std::pair<const char*, const char*> families[] = {
        {"skiff_partition_gpus", "GPUs on the partition's nodes, by type"},
        {"skiff_partition_gpus_allocated", "GPUs allocated to jobs on the partition's nodes"},
        {"skiff_partition_gpus_idle", "GPUs free on the partition's nodes that take jobs"},
    };
    for (int f = 0; f < 3; ++f) {
      const auto& [name, help] = families[f];
      out.Declare(name, help, MetricType::kGauge);
      for (int i = 0; i < reply.partitions_size(); ++i) {
        for (const auto& [type, t] : by_partition[i]) {
          const double value = f == 0 ? t.total : f == 1 ? t.allocated : t.idle;
          out.Gauge(name, help, value, {{"partition", reply.partitions(i).name()}, {"type", type}});
        }
      }
    }
  }
}

bool HasLimit(const v1::Tres& tres) { return tres.has_gpu() && tres.gpu() >= 0; }

void AddAccountGpuMetrics(const v1::GetAccountsReply& accounts, const v1::GetQosReply* qos,
                          Exposition& out) {
  // What jobs hold now, from ctld's in-use tables: a user's jobs in an
  // account, and an account's whole subtree.
  constexpr char kUserGpus[] = "GPUs the user's running jobs in the account hold";
  constexpr char kAccountGpus[] = "GPUs the running jobs of the account and its sub-accounts hold";
  out.Declare("skiff_user_gpus_allocated", kUserGpus, MetricType::kGauge);
  out.Declare("skiff_account_gpus_allocated", kAccountGpus, MetricType::kGauge);
  for (const v1::AssocUsage& usage : accounts.assoc_usage()) {
    if (!usage.has_in_use()) continue;
    const v1::AssocKey& key = usage.key();
    if (key.user().empty()) {
      out.Gauge("skiff_account_gpus_allocated", kAccountGpus, usage.in_use().running_tres().gpu(),
                {{"account", key.account()}});
    } else {
      out.Gauge("skiff_user_gpus_allocated", kUserGpus, usage.in_use().running_tres().gpu(),
                {{"user", key.user()}, {"account", key.account()}});
    }
  }
  constexpr char kAccountLimit[] = "GrpTRES=gres/gpu: GPUs the account's running jobs may hold";
  out.Declare("skiff_account_gpus_limit", kAccountLimit, MetricType::kGauge);
  for (const v1::AssocInfo& assoc : accounts.assocs()) {
    if (assoc.user().empty() && assoc.partition().empty() && HasLimit(assoc.limits().grp_tres())) {
      out.Gauge("skiff_account_gpus_limit", kAccountLimit, assoc.limits().grp_tres().gpu(),
                {{"account", assoc.account()}});
    }
  }

  // GPU-hours: the budget bank's minutes / 60.
  constexpr char kUsed[] = "GPU-hours used by ended jobs";
  constexpr char kHeld[] =
      "GPU-hours the jobs not yet ended may still use (their time limits; +Inf without one)";
  constexpr char kBudget[] = "GrpTRESMins=gres/gpu in GPU-hours";
  const std::pair<const char*, const char*> scopes[] = {
      {"account", "the account and its sub-accounts"},
      {"user", "the user's jobs in the account"},
      {"qos", "the QOS's jobs"},
  };
  for (const auto& [scope, whose] : scopes) {
    const std::string used = absl::StrCat("skiff_", scope, "_gpu_hours_used");
    const std::string held = absl::StrCat("skiff_", scope, "_gpu_hours_held");
    const std::string used_help = absl::StrCat(kUsed, ": ", whose);
    const std::string held_help = absl::StrCat(kHeld, ": ", whose);
    out.Declare(used, used_help, MetricType::kGauge);
    out.Declare(held, held_help, MetricType::kGauge);
  }
  // The bank's balances (GPU minutes / 60): a user's in an account, an
  // account's subtree, a QOS's.
  for (const v1::AssocUsage& usage : accounts.assoc_usage()) {
    if (!usage.has_used_budget_mins() && !usage.has_held_budget_mins()) continue;
    const double used_hours = usage.used_budget_mins().gpu() / 60;
    const double held_hours = usage.held_budget_mins().gpu() / 60;
    const v1::AssocKey& key = usage.key();
    if (key.user().empty()) {
      out.Gauge("skiff_account_gpu_hours_used", "", used_hours, {{"account", key.account()}});
      out.Gauge("skiff_account_gpu_hours_held", "", held_hours, {{"account", key.account()}});
    } else {
      const MetricLabel user{"user", key.user()}, account{"account", key.account()};
      out.Gauge("skiff_user_gpu_hours_used", "", used_hours, {user, account});
      out.Gauge("skiff_user_gpu_hours_held", "", held_hours, {user, account});
    }
  }
  for (const v1::QosUsage& usage : accounts.qos_usage()) {
    if (!usage.user().empty() || (!usage.has_used_budget_mins() && !usage.has_held_budget_mins())) {
      continue;
    }
    const MetricLabel label{"qos", usage.qos()};
    out.Gauge("skiff_qos_gpu_hours_used", "", usage.used_budget_mins().gpu() / 60, {label});
    out.Gauge("skiff_qos_gpu_hours_held", "", usage.held_budget_mins().gpu() / 60, {label});
  }
  out.Declare("skiff_account_gpu_hours_budget", absl::StrCat(kBudget, ": the account's"),
              MetricType::kGauge);
  out.Declare("skiff_user_gpu_hours_budget",
              absl::StrCat(kBudget, ": the user's own association's in the account"),
              MetricType::kGauge);
  std::set<std::pair<std::string, std::string>> user_budgets;  // account, user
  for (const v1::AssocInfo& assoc : accounts.assocs()) {
    if (!HasLimit(assoc.limits().grp_tres_mins())) continue;
    const double hours = static_cast<double>(assoc.limits().grp_tres_mins().gpu()) / 60;
    if (assoc.user().empty()) {
      if (assoc.partition().empty()) {
        out.Gauge("skiff_account_gpu_hours_budget", "", hours, {{"account", assoc.account()}});
      }
    } else if (assoc.partition().empty() &&
               user_budgets.insert({assoc.account(), assoc.user()}).second) {
      // The bank keeps one balance per account|user, limited by the
      // partition-less association's budget.
      out.Gauge("skiff_user_gpu_hours_budget", "", hours,
                {{"user", assoc.user()}, {"account", assoc.account()}});
    }
  }
  if (qos == nullptr) return;
  constexpr char kQosBudget[] = "GrpTRESMins=gres/gpu in GPU-hours: the QOS's";
  constexpr char kQosGpus[] = "GPUs the QOS's running jobs hold";
  constexpr char kQosPerUser[] =
      "MaxTRESPerUser=gres/gpu: GPUs one user's jobs in the QOS may hold";
  out.Declare("skiff_qos_gpu_hours_budget", kQosBudget, MetricType::kGauge);
  for (const v1::QosInfo& q : qos->qos()) {
    if (HasLimit(q.grp_tres_mins())) {
      out.Gauge("skiff_qos_gpu_hours_budget", kQosBudget,
                static_cast<double>(q.grp_tres_mins().gpu()) / 60, {{"qos", q.name()}});
    }
  }
  out.Declare("skiff_qos_gpus_allocated", kQosGpus, MetricType::kGauge);
  const client::AccountsUsage usage(accounts);
  for (const v1::QosInfo& q : qos->qos()) {
    out.Gauge("skiff_qos_gpus_allocated", kQosGpus,
              usage.OfQos(QosKey{q.name(), ""}).in_use().running_tres().gpu(), {{"qos", q.name()}});
  }
  out.Declare("skiff_qos_gpus_per_user_limit", kQosPerUser, MetricType::kGauge);
  for (const v1::QosInfo& q : qos->qos()) {
    if (HasLimit(q.max_tres_per_user())) {
      out.Gauge("skiff_qos_gpus_per_user_limit", kQosPerUser, q.max_tres_per_user().gpu(),
                {{"qos", q.name()}});
    }
  }
}

void AddRoundTrips(const std::vector<CtldRoundTrip>& round_trips, Exposition& out) {
  constexpr char kHelp[] = "restd's round trip to ctld for this answer's calls, by RPC";
  out.Declare("skiff_restd_ctld_round_trip_seconds", kHelp, MetricType::kGauge);
  for (const CtldRoundTrip& trip : round_trips) {
    out.Gauge("skiff_restd_ctld_round_trip_seconds", kHelp, trip.seconds, {{"rpc", trip.rpc}});
  }
}

}  // namespace

MetricsNeeds NeedsOf(MetricsEndpoint endpoint) {
  MetricsNeeds needs;
  switch (endpoint) {
    case MetricsEndpoint::kAll:
      needs.jobs = needs.nodes = needs.partitions = needs.stats = needs.accounts = needs.qos = true;
      break;
    case MetricsEndpoint::kJobs:
    case MetricsEndpoint::kJobsUsersAccts:
      needs.jobs = true;
      break;
    case MetricsEndpoint::kNodes:
      needs.nodes = needs.completing_jobs = true;
      break;
    case MetricsEndpoint::kPartitions:
      needs.partitions = needs.jobs = true;
      break;
    case MetricsEndpoint::kScheduler:
      needs.stats = true;
      break;
  }
  return needs;
}

std::string MetricsFrom(MetricsEndpoint endpoint, const MetricsSnapshot& snapshot) {
  Exposition out;
  const bool all = endpoint == MetricsEndpoint::kAll;
  if ((all || endpoint == MetricsEndpoint::kJobs) && snapshot.jobs) {
    AddJobMetrics(*snapshot.jobs, out);
  }
  if ((all || endpoint == MetricsEndpoint::kNodes) && snapshot.nodes) {
    AddNodeMetrics(*snapshot.nodes, snapshot, out);
  }
  if ((all || endpoint == MetricsEndpoint::kPartitions) && snapshot.partitions) {
    AddPartitionMetrics(*snapshot.partitions, snapshot, out);
  }
  if ((all || endpoint == MetricsEndpoint::kScheduler) && snapshot.stats) {
    AddSchedulerMetrics(*snapshot.stats, out);
  }
  if ((all || endpoint == MetricsEndpoint::kJobsUsersAccts) && snapshot.jobs) {
    AddUserAccountMetrics(*snapshot.jobs, out);
  }
  if (all) {
    AddGpuMetrics(snapshot, out);
    if (snapshot.accounts) {
      AddAccountGpuMetrics(*snapshot.accounts, snapshot.qos ? &*snapshot.qos : nullptr, out);
    }
    if (snapshot.jobs) AddPendingReasons(*snapshot.jobs, out);
    if (snapshot.stats) AddSkiffSchedulerMetrics(*snapshot.stats, out);
    AddRoundTrips(snapshot.round_trips, out);
  }
  return out.Text();
}

}  // namespace skiff::restd
