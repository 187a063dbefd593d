#include "ctld/core/node_table.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/cpu_list.h"

namespace skiff::ctld {

const char* NodeBaseStateName(NodeBaseState state) {
  switch (state) {
    case NodeBaseState::kUnknown:
      return "UNKNOWN";
    case NodeBaseState::kIdle:
      return "IDLE";
    case NodeBaseState::kMixed:
      return "MIXED";
    case NodeBaseState::kAllocated:
      return "ALLOCATED";
    case NodeBaseState::kDown:
      return "DOWN";
    case NodeBaseState::kFuture:
      return "FUTURE";
  }
  return "UNKNOWN";
}

namespace {

constexpr char kNotResponding[] = "Not responding";

NodeBaseState InitialState(const NodeConfig& config) {
  if (config.state == "DOWN") return NodeBaseState::kDown;
  if (config.state == "FUTURE") return NodeBaseState::kFuture;
  return NodeBaseState::kUnknown;
}

void Record(std::vector<NodeChange>* changes, const Node& node, std::string what) {
  if (changes) changes->push_back({node.config.name, std::move(what)});
}

// The base state a responding node has given its allocations.
NodeBaseState UsageState(const Node& node) {
  if (node.alloc_cpus == 0) return NodeBaseState::kIdle;
  if (node.alloc_cpus >= node.config.cpus) return NodeBaseState::kAllocated;
  return NodeBaseState::kMixed;
}

}  // namespace

NodeTable::NodeTable(const SkiffConfig& config, int64_t started_at) : started_at_(started_at) {
  nodes_.reserve(config.nodes.size());
  for (const NodeConfig& node_config : config.nodes) AddNode(node_config);
  SetPartitions(config);
}

void NodeTable::AddNode(const NodeConfig& node_config) {
  Node node;
  node.config = node_config;
  node.state = InitialState(node_config);
  node.drain = node_config.state == "DRAIN";
  node.reason = node_config.reason;
  int64_t shares = 0;
  for (const GresCount& gres : node_config.gres) {
    if (gres.name == "shard" || gres.name == "mps") shares += gres.count;
    if (gres.name == "mps") node.share_kind = GpuShareKind::kMps;
    if (gres.name != "gpu") continue;
    node.gpu_type = gres.type;
    node.gpu_owner.resize(node.gpu_owner.size() + static_cast<size_t>(gres.count), 0);
  }
  if (node_config.gpu_share_counts.size() == node.gpu_owner.size() &&
      !node_config.gpu_share_counts.empty()) {
    node.gpu_shares = node_config.gpu_share_counts;  // gres.conf's per-GPU counts
  } else if (shares > 0) {
    node.gpu_shares = SpreadShares(shares, node.gpu_owner.size());
  }
  index_.emplace(node_config.name, nodes_.size());
  nodes_.push_back(std::move(node));
}

size_t NodeTable::AddMissingNodes(const SkiffConfig& config) {
  size_t added = 0;
  for (const NodeConfig& node_config : config.nodes) {
    if (index_.count(node_config.name) != 0) continue;
    AddNode(node_config);
    ++added;
  }
  return added;
}

size_t NodeTable::DropNodesNotIn(const SkiffConfig& config) {
  const size_t before = nodes_.size();
  nodes_.erase(std::remove_if(
                   nodes_.begin(), nodes_.end(),
                   [&](const Node& node) { return config.FindNode(node.config.name) == nullptr; }),
               nodes_.end());
  if (nodes_.size() == before) return 0;
  index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) index_.emplace(nodes_[i].config.name, i);
  return before - nodes_.size();
}

void NodeTable::SetPartitions(const SkiffConfig& config) {
  for (Node& node : nodes_) node.partitions.clear();
  for (const PartitionConfig& partition : config.partitions) {
    for (const std::string& name : partition.nodes) {
      if (Node* node = FindMutable(name)) node->partitions.push_back(partition.name);
    }
  }
}

const Node* NodeTable::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

Node* NodeTable::FindMutable(std::string_view name) {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

absl::Status NodeTable::Register(const NodeRegistration& reg, int64_t now, bool config_overrides,
                                 std::vector<NodeChange>* changes, int return_to_service) {
  Node* node = FindMutable(reg.node_name);
  if (node == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("NodeName=", reg.node_name, " is not in the configuration"));
  }
  if (reg.cpus < 0) {
    return absl::InvalidArgumentError(absl::StrCat("NodeName=", reg.node_name, ": negative CPUs"));
  }
  const NodeBaseState before = node->state;
  const std::string down_reason = before == NodeBaseState::kDown ? node->reason : "";
  node->last_registered = now;
  node->last_heartbeat = now;
  node->boot_time = reg.boot_time;
  node->noded_start_time = reg.noded_start_time;
  node->version = reg.version;
  node->os = reg.os;
  node->arch = reg.arch;
  node->port = reg.port;
  node->gres = reg.gres;
  node->not_responding = false;
  if (reg.load.cpu_load) node->load.cpu_load = reg.load.cpu_load;
  if (reg.load.free_memory_mb) node->load.free_memory_mb = reg.load.free_memory_mb;

  // A node that cannot confine jobs as its configuration asks: no job may start
  // there unconfined. An earlier drain (an admin's) keeps its reason.
  if (!reg.drain_reason.empty() && !node->drain) {
    node->drain = true;
    node->reason = reg.drain_reason;
    node->reason_time = now;
    node->reason_uid.reset();
    Record(changes, *node, absl::StrCat("DRAIN (", reg.drain_reason, ")"));
  }

  // Slurm drains a node that has less than it was configured with, so that jobs
  // sized by the configuration never land on it.
  if (!config_overrides && !node->drain) {
    std::string low;
    if (reg.cpus < node->config.cpus) {
      low = "Low CPUs";
    } else if (reg.real_memory_mb < node->config.real_memory_mb) {
      low = "Low RealMemory";
    } else {
      // Fewer devices of a generic resource than Gres= says (a GPU gone).
      std::map<std::string, int64_t> configured, reported;
      for (const GresCount& g : node->config.gres) configured[g.name] += g.count;
      for (const ReportedGres& g : reg.gres) reported[g.name] += g.count;
      for (const auto& [name, count] : configured) {
        if (reported[name] < count) {
          low = absl::StrCat("gres/", name, " count reported lower than configured (",
                             reported[name], " < ", count, ")");
          break;
        }
      }
      // Enough devices, but of the wrong kind: fewer of a type Gres= names
      // (gpu:a100:2) than configured, in Slurm's words (gres.c _valid_gres_type).
      std::map<std::pair<std::string, std::string>, int64_t> configured_typed, reported_typed;
      for (const GresCount& g : node->config.gres) {
        if (!g.type.empty()) configured_typed[{g.name, g.type}] += g.count;
      }
      for (const ReportedGres& g : reg.gres) reported_typed[{g.name, g.type}] += g.count;
      for (const auto& [key, count] : configured_typed) {
        if (!low.empty()) break;
        if (reported_typed[key] < count) {
          low = absl::StrCat("gres/", key.first, ":", key.second, " count too low (",
                             reported_typed[key], " < ", count, ")");
        }
      }
    }
    if (!low.empty()) {
      node->drain = true;
      node->reason = low;
      node->reason_time = now;
      node->reason_uid.reset();
      Record(changes, *node, absl::StrCat("DRAIN (", low, ")"));
    }
  }

  // ReturnToService: 1 brings back a node DOWN only because it stopped
  // answering, 2 one set DOWN for any reason; 0 leaves both to an operator.
  const bool returns =
      before == NodeBaseState::kDown &&
      (return_to_service == 2 || (return_to_service == 1 && down_reason == kNotResponding));
  if (before == NodeBaseState::kUnknown || returns) {
    node->state = UsageState(*node);
    // The reason it was DOWN goes with it (a drain reason set above stays).
    if (returns && node->reason == down_reason) {
      node->reason.clear();
      node->reason_time = 0;
      node->reason_uid.reset();
    }
    // Slurm counts a node that comes up idle as busy until now.
    if (node->state == NodeBaseState::kIdle) node->last_busy = now;
  }
  if (node->state != before) {
    Record(changes, *node,
           absl::StrCat(NodeBaseStateName(before), " -> ", NodeBaseStateName(node->state),
                        " (registered)"));
  }
  return absl::OkStatus();
}

bool NodeTable::Heartbeat(std::string_view node_name, int64_t now, std::vector<NodeChange>* changes,
                          const ReportedLoad& load) {
  Node* node = FindMutable(node_name);
  if (node == nullptr || node->last_registered == 0) return false;
  if (load.cpu_load) node->load.cpu_load = load.cpu_load;
  if (load.free_memory_mb) node->load.free_memory_mb = load.free_memory_mb;
  // Silence long enough to go DOWN needs a fresh registration (the node may have
  // rebooted); a shorter gap only clears the '*'. A node registered since
  // (kept DOWN by ReturnToService=0) is heard again.
  if (node->state == NodeBaseState::kDown && node->reason == kNotResponding &&
      node->last_registered <= node->reason_time) {
    return false;
  }
  node->last_heartbeat = now;
  if (node->not_responding) {
    node->not_responding = false;
    Record(changes, *node, "responding again");
  }
  return true;
}

void NodeTable::CheckTimeouts(int64_t now, int64_t heartbeat_interval, int64_t slurmd_timeout,
                              std::vector<NodeChange>* changes) {
  for (Node& node : nodes_) {
    if (node.state == NodeBaseState::kFuture) continue;
    const int64_t heard = node.last_heartbeat != 0 ? node.last_heartbeat : started_at_;
    if (heard == 0) continue;  // never registered and no start time: stays unk*
    const int64_t silent = now - heard;
    if (!node.not_responding && silent > 2 * heartbeat_interval) {
      node.not_responding = true;
      Record(changes, node, absl::StrCat("not responding for ", silent, "s"));
    }
    if (node.state != NodeBaseState::kDown && silent > slurmd_timeout) {
      const NodeBaseState before = node.state;
      node.state = NodeBaseState::kDown;
      node.reason = kNotResponding;
      node.reason_time = now;
      node.reason_uid.reset();
      Record(changes, node,
             absl::StrCat(NodeBaseStateName(before), " -> DOWN (", kNotResponding, ")"));
      if (changes) changes->back().went_down = true;
    }
  }
}

absl::Status NodeTable::AdminUpdate(std::string_view node_name, std::string_view state,
                                    const std::string& reason, std::optional<uint32_t> by,
                                    int64_t now, std::vector<NodeChange>* changes) {
  Node* node = FindMutable(node_name);
  if (node == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Invalid node name specified: ", std::string(node_name)));
  }
  const std::string upper = absl::AsciiStrToUpper(std::string(state));
  if ((upper == "DRAIN" || upper == "DOWN" || upper == "FAIL") && reason.empty()) {
    return absl::InvalidArgumentError("You must specify a reason when DOWNING or DRAINING a node");
  }
  if (upper == "DRAIN") {
    node->drain = true;
    node->reason = reason;
    node->reason_time = now;
    node->reason_uid = by;
    Record(changes, *node, absl::StrCat("DRAIN (", reason, ")"));
  } else if (upper == "FAIL") {
    // Slurm's FAIL: expected to fail soon; running work goes on (FAILING),
    // nothing new starts (FAIL), until RESUME.
    node->fail = true;
    node->reason = reason;
    node->reason_time = now;
    node->reason_uid = by;
    Record(changes, *node, absl::StrCat("FAIL (", reason, ")"));
  } else if (upper == "DOWN") {
    const NodeBaseState before = node->state;
    node->state = NodeBaseState::kDown;
    node->reason = reason;
    node->reason_time = now;
    node->reason_uid = by;
    Record(changes, *node, absl::StrCat(NodeBaseStateName(before), " -> DOWN (", reason, ")"));
    if (changes) changes->back().went_down = true;
  } else if (upper == "RESUME" || upper == "UNDRAIN" || upper == "IDLE") {
    node->drain = false;
    node->fail = false;
    if (node->state == NodeBaseState::kDown && !node->not_responding) {
      node->state = NodeBaseState::kIdle;
      UpdateUsageState(*node);
      if (node->state == NodeBaseState::kIdle) node->last_busy = now;
    }
    node->reason.clear();
    node->reason_uid.reset();
    Record(changes, *node, "resumed");
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid node state specified: ", std::string(state),
                     " (use DRAIN, FAIL, DOWN, RESUME, UNDRAIN)"));
  }
  return absl::OkStatus();
}

NodeAdminState NodeTable::AdminStateOf(const Node& node) const {
  NodeAdminState state;
  state.drain = node.drain;
  state.fail = node.fail;
  state.down = node.state == NodeBaseState::kDown && node.reason_uid.has_value();
  if (state.drain || state.fail || state.down) {
    state.reason = node.reason;
    state.reason_time = node.reason_time;
    state.reason_uid = node.reason_uid;
  }
  return state;
}

void NodeTable::RestoreAdminState(std::string_view node_name, const NodeAdminState& state) {
  Node* node = FindMutable(node_name);
  if (node == nullptr || state.empty()) return;
  node->drain = state.drain;
  node->fail = state.fail;
  if (state.down) node->state = NodeBaseState::kDown;
  node->reason = state.reason;
  node->reason_time = state.reason_time;
  node->reason_uid = state.reason_uid;
}

std::vector<NodeCapacity> NodeTable::Capacities() const {
  std::vector<NodeCapacity> out;
  out.reserve(nodes_.size());
  for (const Node& node : nodes_) {
    NodeCapacity capacity;
    capacity.name = node.config.name;
    capacity.usable = node.Usable();
    capacity.cpus = node.config.cpus;
    capacity.alloc_cpus = node.alloc_cpus;
    capacity.memory_mb = node.config.real_memory_mb;
    capacity.alloc_memory_mb = node.alloc_memory_mb;
    capacity.gpu_type = node.gpu_type;
    capacity.gpu_owner = node.gpu_owner;
    capacity.share_kind = node.share_kind;
    capacity.gpu_shares = node.gpu_shares;
    capacity.share_fenced = node.config.gpu_shares_fenced;
    capacity.share_holds = node.share_holds;
    capacity.partitions = node.partitions;
    capacity.features = node.config.features;
    capacity.weight = static_cast<uint32_t>(std::max(0, node.config.weight));
    capacity.tmp_disk_mb = static_cast<uint64_t>(std::max<int64_t>(0, node.config.tmp_disk_mb));
    capacity.layout = NodeLayout(node.config.cpus, node.config.sockets,
                                 node.config.cores_per_socket, node.config.threads_per_core);
    out.push_back(std::move(capacity));
  }
  return out;
}

void NodeTable::UpdateUsageState(Node& node) {
  if (node.state == NodeBaseState::kIdle || node.state == NodeBaseState::kMixed ||
      node.state == NodeBaseState::kAllocated) {
    node.state = UsageState(node);
  }
}

namespace {

int32_t SharesUsed(const Node& node, int32_t gpu) {
  int32_t used = 0;
  for (const NodeCapacity::ShareHold& hold : node.share_holds) {
    if (hold.shares.gpu == gpu) used += hold.shares.count;
  }
  return used;
}

}  // namespace

std::vector<std::vector<int>> NodeTable::Allocate(const Placement& placement) {
  std::vector<std::vector<int>> cpu_ids(placement.nodes.size());
  for (size_t i = 0; i < placement.nodes.size(); ++i) {
    Node* node = FindMutable(placement.nodes[i]);
    if (node == nullptr) continue;
    if (node->cpu_owner.size() < static_cast<size_t>(std::max(0, node->config.cpus))) {
      node->cpu_owner.resize(static_cast<size_t>(node->config.cpus), 0);
    }
    if (i < placement.cpu_ids.size() && !placement.cpu_ids[i].empty()) {
      cpu_ids[i] = placement.cpu_ids[i];
    } else {
      std::set<int> used;
      for (size_t id = 0; id < node->cpu_owner.size(); ++id) {
        if (node->cpu_owner[id] != 0) used.insert(static_cast<int>(id));
      }
      cpu_ids[i] = ChooseCpuIds(placement.cpus[i], node->config.cpus, used);
    }
    for (int id : cpu_ids[i]) {
      if (id >= 0 && static_cast<size_t>(id) < node->cpu_owner.size()) {
        node->cpu_owner[id] = placement.job_id;
      }
    }
    node->alloc_cpus += placement.cpus[i];
    node->alloc_memory_mb += placement.mem_mb[i];
    if (i < placement.gpu_indices.size()) {
      for (int gpu : placement.gpu_indices[i]) {
        if (gpu >= 0 && static_cast<size_t>(gpu) < node->gpu_owner.size()) {
          node->gpu_owner[gpu] = placement.job_id;
        }
      }
    }
    if (i < placement.shares.size() && placement.shares[i].count > 0) {
      node->share_holds.push_back({placement.job_id, placement.shares[i]});
    }
    UpdateUsageState(*node);
  }
  return cpu_ids;
}

bool NodeTable::CanAllocate(const Placement& placement) const {
  for (size_t i = 0; i < placement.nodes.size(); ++i) {
    const Node* node = Find(placement.nodes[i]);
    if (node == nullptr || !node->Usable()) return false;
    if (node->config.cpus - node->alloc_cpus < placement.cpus[i]) return false;
    if (node->config.real_memory_mb < node->alloc_memory_mb + placement.mem_mb[i]) {
      return false;
    }
    if (i < placement.gpu_indices.size()) {
      for (int gpu : placement.gpu_indices[i]) {
        if (gpu < 0 || static_cast<size_t>(gpu) >= node->gpu_owner.size() ||
            node->gpu_owner[gpu] != 0 || SharesUsed(*node, gpu) != 0) {
          return false;
        }
      }
    }
    if (i < placement.shares.size() && placement.shares[i].count > 0) {
      const GpuShare& want = placement.shares[i];
      if (want.gpu < 0 || static_cast<size_t>(want.gpu) >= node->gpu_shares.size() ||
          node->gpu_owner[want.gpu] != 0 ||
          SharesUsed(*node, want.gpu) + want.count > node->gpu_shares[want.gpu]) {
        return false;
      }
    }
  }
  return true;
}

void NodeTable::Release(uint64_t job_id, const std::vector<std::string>& node_names,
                        const std::vector<int>& cpus, const std::vector<uint64_t>& mem_mb,
                        int64_t now) {
  for (size_t k = 0; k < node_names.size(); ++k) {
    Node* node = FindMutable(node_names[k]);
    if (node == nullptr) continue;
    for (uint64_t& owner : node->gpu_owner) {
      if (owner == job_id) owner = 0;
    }
    std::vector<NodeCapacity::ShareHold>& holds = node->share_holds;
    holds.erase(std::remove_if(holds.begin(), holds.end(),
                               [&](const auto& hold) { return hold.job_id == job_id; }),
                holds.end());
    for (uint64_t& owner : node->cpu_owner) {
      if (owner == job_id) owner = 0;
    }
    const int cpus_held = k < cpus.size() ? cpus[k] : 0;
    const uint64_t mem_held = k < mem_mb.size() ? mem_mb[k] : 0;
    node->alloc_cpus = std::max(0, node->alloc_cpus - cpus_held);
    node->alloc_memory_mb = node->alloc_memory_mb > mem_held ? node->alloc_memory_mb - mem_held : 0;
    if (now != 0 && cpus_held > 0 && node->alloc_cpus == 0) node->last_busy = now;
    UpdateUsageState(*node);
  }
}

}  // namespace skiff::ctld
