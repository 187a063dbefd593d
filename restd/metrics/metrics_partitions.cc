// Slurm's partition families (/metrics/partitions): each partition's jobs
// and nodes, counted as /metrics/jobs and /metrics/nodes count them.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

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

const std::string& PartitionOf(const v1::JobInfo& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

}  // namespace

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

}  // namespace skiff::restd::metrics_internal
