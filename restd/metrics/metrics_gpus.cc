// Skiff's GPU families: the cluster's GPUs by type, and each partition's
// and each node's.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/node_gpus.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

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

}  // namespace

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
    // Shares of GPUs (gres/shard, gres/mps): what each node has and what jobs hold.
    constexpr char kShares[] = "GPU shares on the node (gres/shard or gres/mps), by gres";
    constexpr char kSharesAllocated[] = "GPU shares held by jobs on the node, by gres";
    out.Declare("skiff_node_gpu_shares", kShares, MetricType::kGauge);
    out.Declare("skiff_node_gpu_shares_allocated", kSharesAllocated, MetricType::kGauge);
    for (const v1::NodeInfo& node : snapshot.nodes->nodes()) {
      for (const v1::Gres& gres : node.gres()) {
        if (gres.name() != "shard" && gres.name() != "mps") continue;
        double held = 0;
        for (int32_t count : node.alloc_gpu_shares()) held += count;
        out.Gauge("skiff_node_gpu_shares", kShares, static_cast<double>(gres.count()),
                  {{"node", node.name()}, {"gres", gres.name()}});
        out.Gauge("skiff_node_gpu_shares_allocated", kSharesAllocated, held,
                  {{"node", node.name()}, {"gres", gres.name()}});
      }
    }
    // noded drains a node whose GPU broke with "GPU /dev/nvidia1: Xid 79 (...)".
    constexpr char kFault[] =
        "A node drained for a broken GPU (a fault Xid, uncorrected ECC errors, a lost GPU): 1, "
        "with the GPU and the error";
    out.Declare("skiff_node_gpu_fault", kFault, MetricType::kGauge);
    for (const v1::NodeInfo& node : snapshot.nodes->nodes()) {
      constexpr absl::string_view kPrefix = "GPU /dev/";
      const std::string& reason = node.reason();
      const size_t colon = reason.find(": ");
      if (!node.drain() || !absl::StartsWith(reason, kPrefix) || colon == std::string::npos) {
        continue;
      }
      out.Gauge("skiff_node_gpu_fault", kFault, 1,
                {{"node", node.name()},
                 {"gpu", reason.substr(4, colon - 4)},
                 {"error", reason.substr(colon + 2)}});
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

void AddJobGpuMetrics(const v1::GetJobsReply& jobs, Exposition& out) {
  constexpr char kUtil[] =
      "A running job's GPU: its average utilisation (percent) since the job started, as "
      "its node samples it (JobAcctGatherFrequency)";
  constexpr char kMemory[] = "A running job's GPU: the most memory its processes held on it, bytes";
  out.Declare("skiff_job_gpu_utilization_percent", kUtil, MetricType::kGauge);
  out.Declare("skiff_job_gpu_memory_max_bytes", kMemory, MetricType::kGauge);
  for (const v1::JobInfo& job : jobs.jobs()) {
    if (job.state() != v1::RUNNING) continue;
    for (const v1::GpuUsage& gpu : job.gpus()) {
      const std::string id = absl::StrCat(job.job_id());
      const std::string index = absl::StrCat(gpu.index());
      auto gauge = [&](const char* name, const char* help, double value) {
        out.Gauge(name, help, value,
                  {{"job", id},
                   {"user", job.user_name()},
                   {"account", job.account()},
                   {"node", gpu.node()},
                   {"gpu", index}});
      };
      if (gpu.samples() > 0) {
        gauge("skiff_job_gpu_utilization_percent", kUtil,
              static_cast<double>(gpu.util_sum()) / static_cast<double>(gpu.samples()));
      }
      if (gpu.memory_samples() > 0) {
        gauge("skiff_job_gpu_memory_max_bytes", kMemory,
              static_cast<double>(gpu.memory_max_bytes()));
      }
    }
  }
}

}  // namespace skiff::restd::metrics_internal
