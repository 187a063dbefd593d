#include "ctld/core/first_fit.h"

#include <algorithm>

namespace skiff {
namespace {

bool InPartition(const NodeCapacity& node, const std::string& partition) {
  return std::find(node.partitions.begin(), node.partitions.end(), partition) !=
         node.partitions.end();
}

bool GpuTypeMatches(const NodeCapacity& node, const JobRequest& request) {
  return request.gpu_type.empty() || request.gpu_type == node.gpu_type;
}

// Could the node hold the job's per-node share if it were empty?
bool FitsEmpty(const NodeCapacity& node, const JobRequest& request) {
  return node.cpus >= request.CpusPerNode() && node.memory_mb >= request.MemPerNodeMb() &&
         static_cast<int>(node.gpu_owner.size()) >= request.gpus_per_node &&
         (request.gpus_per_node == 0 || GpuTypeMatches(node, request));
}

bool FitsNow(const NodeCapacity& node, const JobRequest& request) {
  return node.usable && node.cpus - node.alloc_cpus >= request.CpusPerNode() &&
         node.memory_mb - node.alloc_memory_mb >= request.MemPerNodeMb() &&
         node.FreeGpus() >= request.gpus_per_node &&
         (request.gpus_per_node == 0 || GpuTypeMatches(node, request));
}

const PartitionConfig* FindPartition(const std::vector<PartitionConfig>& partitions,
                                     const std::string& name) {
  for (const PartitionConfig& p : partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace

int NodeCapacity::FreeGpus() const {
  return static_cast<int>(std::count(gpu_owner.begin(), gpu_owner.end(), 0u));
}

ScheduleResult ScheduleFirstFit(std::vector<NodeCapacity> nodes,
                                const std::vector<const Job*>& pending,
                                const std::vector<PartitionConfig>& partitions, int64_t now) {
  ScheduleResult result;
  for (const Job* job : pending) {
    const JobRequest& request = job->request;
    auto leave = [&](std::string reason) {
      result.pending.push_back({job->id, std::move(reason)});
    };
    if (job->held) {
      leave(job->held_by_admin ? "JobHeldAdmin" : "JobHeldUser");
      continue;
    }
    if (request.begin_time > now) {
      leave("BeginTime");
      continue;
    }
    const PartitionConfig* partition = FindPartition(partitions, request.partition);
    if (partition == nullptr || partition->state == "INACTIVE") {
      leave("PartitionInactive");
      continue;
    }
    if (partition->state == "DOWN") {
      leave("PartitionDown");
      continue;
    }
    if (partition->state == "DRAIN") {
      leave("PartitionInactive");
      continue;
    }
    std::vector<size_t> chosen;
    bool any_usable = false;
    for (size_t i = 0; i < nodes.size() && static_cast<int>(chosen.size()) < request.num_nodes;
         ++i) {
      const NodeCapacity& node = nodes[i];
      if (!InPartition(node, request.partition)) continue;
      if (node.usable && FitsEmpty(node, request)) any_usable = true;
      if (FitsNow(node, request)) chosen.push_back(i);
    }
    if (static_cast<int>(chosen.size()) < request.num_nodes) {
      leave(any_usable ? "Resources" : kNodesUnavailable);
      continue;
    }
    Placement placement;
    placement.job_id = job->id;
    placement.cpus_per_node = request.CpusPerNode();
    placement.mem_per_node_mb = request.MemPerNodeMb();
    for (size_t i : chosen) {
      NodeCapacity& node = nodes[i];
      node.alloc_cpus += placement.cpus_per_node;
      node.alloc_memory_mb += placement.mem_per_node_mb;
      std::vector<int> gpus;
      for (size_t g = 0;
           g < node.gpu_owner.size() && static_cast<int>(gpus.size()) < request.gpus_per_node;
           ++g) {
        if (node.gpu_owner[g] == 0) {
          node.gpu_owner[g] = job->id;
          gpus.push_back(static_cast<int>(g));
        }
      }
      placement.nodes.push_back(node.name);
      placement.gpu_indices.push_back(std::move(gpus));
    }
    result.placements.push_back(std::move(placement));
  }
  return result;
}

absl::Status CheckSatisfiable(const JobRequest& request, const std::vector<NodeCapacity>& nodes) {
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& name : request.nodelist) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const NodeCapacity& n) { return n.name == name; });
    if (it == nodes.end()) return absl::InvalidArgumentError("Invalid node name specified");
    if (!InPartition(*it, request.partition) || listed(request.exclude, name)) {
      return absl::InvalidArgumentError("Requested node configuration is not available");
    }
  }
  if (static_cast<int>(request.nodelist.size()) > request.num_nodes) {
    return absl::InvalidArgumentError("Node count specification invalid");
  }
  for (const std::string& feature : request.features) {
    const bool known = std::any_of(nodes.begin(), nodes.end(), [&](const NodeCapacity& n) {
      return listed(n.features, feature);
    });
    if (!known) return absl::InvalidArgumentError("Invalid feature specification");
  }
  int partition_nodes = 0;
  int fitting = 0;
  bool any_gpus = false;
  for (const NodeCapacity& node : nodes) {
    if (!InPartition(node, request.partition) || listed(request.exclude, node.name)) continue;
    bool has_features = true;
    for (const std::string& f : request.features) has_features &= listed(node.features, f);
    if (!has_features) continue;
    ++partition_nodes;
    any_gpus |= !node.gpu_owner.empty() && GpuTypeMatches(node, request);
    if (FitsEmpty(node, request)) ++fitting;
  }
  if (request.num_nodes > partition_nodes) {
    // Slurm's wording for more nodes than the partition has.
    return absl::InvalidArgumentError("More processors requested than permitted");
  }
  if (request.gpus_per_node > 0 && !any_gpus) {
    return absl::InvalidArgumentError("Requested node configuration is not available");
  }
  if (fitting < request.num_nodes) {
    return absl::InvalidArgumentError("Requested node configuration is not available");
  }
  return absl::OkStatus();
}

}  // namespace skiff
