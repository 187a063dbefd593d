#include "ctld/core/resources.h"

#include <algorithm>

namespace skiff::ctld {
namespace {

bool InPartition(const NodeCapacity& node, const std::string& partition) {
  return std::find(node.partitions.begin(), node.partitions.end(), partition) !=
         node.partitions.end();
}

bool GpuTypeMatches(const NodeCapacity& node, const JobRequest& request) {
  return request.gpu_type.empty() || request.gpu_type == node.gpu_type;
}

// Could the node hold one of the job's tasks (its least per-node share) if
// it were empty, TmpDisk aside?
bool FitsEmptyButDisk(const NodeCapacity& node, const JobRequest& request) {
  const int64_t cpus =
      request.overcommit ? std::max(1, request.cpus_per_task) : request.MinCpusPerNode();
  const int64_t mem = request.mem_per_node_mb > 0
                          ? static_cast<int64_t>(request.mem_per_node_mb)
                          : static_cast<int64_t>(request.mem_per_cpu_mb) * cpus;
  const Share want{cpus, mem, request.gpus_per_node, request.shares_per_node};
  // A job's shares on a node come from one GPU of a node sharing its kind.
  const bool shares_fit =
      request.shares_per_node == 0 ||
      (node.share_kind == request.share_kind &&
       std::any_of(node.gpu_shares.begin(), node.gpu_shares.end(),
                   [&](int32_t count) { return count >= request.shares_per_node; }));
  return ShareFits(want, node.Total()) && shares_fit &&
         TopologyHolds(node.layout, request.min_topology) &&
         (request.gpus_per_node == 0 || GpuTypeMatches(node, request));
}

// --tmp: a floor on the node's TmpDisk, as Slurm's pn_min_tmp_disk.
bool DiskFits(const NodeCapacity& node, const JobRequest& request) {
  return request.min_tmp_disk_mb <= node.tmp_disk_mb;
}

bool FitsEmpty(const NodeCapacity& node, const JobRequest& request) {
  return FitsEmptyButDisk(node, request) && DiskFits(node, request);
}

// Slurm's refusal when nodes were left out for their TmpDisk alone
// (node_scheduler.c _set_err_msg, then ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE).
constexpr char kBadTmpDisk[] =
    "Temporary disk specification can not be satisfied\n"
    "Requested node configuration is not available";

}  // namespace

std::vector<int32_t> SpreadShares(int64_t shares, size_t gpus) {
  std::vector<int32_t> out(gpus, 0);
  int64_t left = std::max<int64_t>(0, shares);
  for (size_t g = 0; g < gpus; ++g) {
    out[g] = static_cast<int32_t>(left / static_cast<int64_t>(gpus - g));
    left -= out[g];
  }
  return out;
}

int32_t NodeCapacity::SharesUsed(int32_t gpu) const {
  int32_t used = 0;
  for (const ShareHold& hold : share_holds) {
    if (hold.shares.gpu == gpu) used += hold.shares.count;
  }
  return used;
}

int64_t NodeCapacity::TotalShares() const {
  int64_t total = 0;
  for (int32_t count : gpu_shares) total += count;
  return total;
}

int NodeCapacity::FreeGpus() const {
  int free = 0;
  for (size_t g = 0; g < gpu_owner.size(); ++g) {
    free += gpu_owner[g] == 0 && SharesUsed(static_cast<int32_t>(g)) == 0;
  }
  return free;
}

Share NodeCapacity::Total() const {
  return {cpus, static_cast<int64_t>(memory_mb), static_cast<int32_t>(gpu_owner.size()),
          static_cast<int32_t>(TotalShares())};
}

absl::Status CheckSatisfiable(const JobRequest& request, const std::vector<NodeCapacity>& nodes) {
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& name : request.nodelist) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const NodeCapacity& n) { return n.name == name; });
    if (it == nodes.end()) return absl::InvalidArgumentError("Invalid node name specified");
    // A required node must be able to hold the job's share on its own (a GPU
    // job cannot insist on a node without GPUs: it would pend forever).
    if (!InPartition(*it, request.partition) || listed(request.exclude, name) ||
        !FitsEmptyButDisk(*it, request)) {
      return absl::InvalidArgumentError("Requested node configuration is not available");
    }
    if (!DiskFits(*it, request)) return absl::InvalidArgumentError(kBadTmpDisk);
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
  // A GPU type no node has at all: Slurm refuses it as an invalid gres
  // (ESLURM_INVALID_GRES) instead of letting it pend forever.
  if (request.gpus_per_node > 0 && !request.gpu_type.empty() &&
      std::none_of(nodes.begin(), nodes.end(), [&](const NodeCapacity& n) {
        return !n.gpu_owner.empty() && n.gpu_type == request.gpu_type;
      })) {
    return absl::InvalidArgumentError("Invalid generic resource (gres) specification");
  }
  // Shards (or MPS) where no node has any: Slurm's answer to a gres no node has.
  if (request.shares_per_node > 0 &&
      std::none_of(nodes.begin(), nodes.end(), [&](const NodeCapacity& n) {
        return n.TotalShares() > 0 && n.share_kind == request.share_kind;
      })) {
    return absl::InvalidArgumentError("Invalid generic resource (gres) specification");
  }
  int partition_nodes = 0;
  int excluded = 0;
  int fitting = 0;
  bool short_of_disk = false;  // a node left out for its TmpDisk alone
  bool any_gpus = false;
  for (const NodeCapacity& node : nodes) {
    if (!InPartition(node, request.partition)) continue;
    if (listed(request.exclude, node.name)) {
      ++excluded;
      continue;
    }
    bool has_features = true;
    for (const std::string& f : request.features) has_features &= listed(node.features, f);
    if (!has_features) continue;
    ++partition_nodes;
    any_gpus |= !node.gpu_owner.empty() && GpuTypeMatches(node, request);
    if (FitsEmpty(node, request)) ++fitting;
    short_of_disk |= FitsEmptyButDisk(node, request) && !DiskFits(node, request);
  }
  if (request.num_nodes > partition_nodes) {
    // -x left too few nodes: the node list is what cannot be satisfied.
    if (request.num_nodes <= partition_nodes + excluded) {
      return absl::InvalidArgumentError("Requested node configuration is not available");
    }
    // Slurm's wording for more nodes than the partition has.
    return absl::InvalidArgumentError("More processors requested than permitted");
  }
  if (request.gpus_per_node > 0 && !any_gpus) {
    return absl::InvalidArgumentError("Requested node configuration is not available");
  }
  if (fitting < request.num_nodes) {
    return absl::InvalidArgumentError(
        short_of_disk ? kBadTmpDisk : "Requested node configuration is not available");
  }
  // The whole job on the partition's nodes, all empty.
  std::vector<PlacementCandidate> candidates;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeCapacity& node = nodes[i];
    if (!InPartition(node, request.partition) || listed(request.exclude, node.name)) continue;
    bool has_features = true;
    for (const std::string& f : request.features) has_features &= listed(node.features, f);
    if (!has_features || !FitsEmpty(node, request)) continue;
    PlacementCandidate c;
    c.node = static_cast<int32_t>(i);
    c.weight = node.weight;
    c.required = listed(request.nodelist, node.name);
    c.total_cpus = node.cpus;
    c.total_mem_mb = node.memory_mb;
    c.room = {node.cpus, static_cast<int64_t>(node.memory_mb),
              static_cast<int64_t>(node.gpu_owner.size()), true};
    candidates.push_back(c);
  }
  if (PlaceTasks(RequestShape(request), candidates).empty()) {
    return absl::InvalidArgumentError(
        short_of_disk ? kBadTmpDisk : "Requested node configuration is not available");
  }
  return absl::OkStatus();
}

TaskShape RequestShape(const JobRequest& r) {
  TaskShape shape;
  shape.min_nodes = std::max(1, r.num_nodes);
  shape.max_nodes = r.MaxNodes();
  shape.want_nodes = shape.min_nodes;
  if (r.max_nodes > 0 && !r.use_min_nodes)
    shape.want_nodes = std::min(r.max_nodes, shape.max_nodes);
  if (r.spread_job) shape.want_nodes = shape.max_nodes;
  shape.want_nodes = std::max(shape.want_nodes, shape.min_nodes);
  shape.ntasks = std::max(1, r.ntasks);
  shape.cpus_per_task = std::max(1, r.cpus_per_task);
  shape.ntasks_per_node = r.ntasks_per_node;
  shape.min_cpus_per_node = r.min_cpus_per_node;
  shape.overcommit = r.overcommit;
  shape.exclusive = r.exclusive;
  shape.contiguous = r.contiguous;
  if (r.mem_per_node_mb > 0) {
    shape.mem_per_node_mb = r.mem_per_node_mb;
  } else {
    shape.mem_per_cpu_mb = r.mem_per_cpu_mb;
  }
  shape.gpus_per_node = r.gpus_per_node;
  return shape;
}

}  // namespace skiff::ctld
