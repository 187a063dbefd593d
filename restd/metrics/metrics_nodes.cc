// Slurm's node families (/metrics/nodes): how slurmctld counts its nodes,
// the cluster's and each node's.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

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

}  // namespace

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

}  // namespace skiff::restd::metrics_internal
