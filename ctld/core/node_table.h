// The controller's view of its nodes: configured hardware plus what each node
// daemon last reported, and the node state machine that follows from
// registrations, heartbeats and silence.
//
// Pure: no locks, no I/O, no clock reads (`now` is an argument). The Controller
// owns one NodeTable under its mutex.
//
// States follow Slurm: a configured node starts UNKNOWN and not responding
// ("unk*"); registering makes it IDLE; a node silent for longer than
// 2 x heartbeat interval is marked not responding ("idle*"); silent for longer
// than SlurmdTimeout it goes DOWN with Reason "Not responding" ("down*").
// A node that registers with less hardware than configured is DRAINed with
// Slurm's reason ("Low RealMemory", "Low CPUs") unless config_overrides is set;
// one that says it cannot confine jobs as configured is DRAINed with its reason.
#ifndef SKIFF_CTLD_CORE_NODE_TABLE_H_
#define SKIFF_CTLD_CORE_NODE_TABLE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/resources.h"

namespace skiff::ctld {

enum class NodeBaseState { kUnknown, kIdle, kMixed, kAllocated, kDown, kFuture };

// Slurm's upper-case name ("IDLE", "DOWN", ...).
const char* NodeBaseStateName(NodeBaseState state);

// One generic resource as a node daemon found it.
struct ReportedGres {
  std::string name;
  std::string type;
  int64_t count = 0;
  std::vector<std::string> files;
};

// What a node daemon says about itself when it registers.
// What a node measures of itself with each registration and heartbeat
// (scontrol's CPULoad= and FreeMem=); nullopt when it did not say.
struct ReportedLoad {
  std::optional<uint32_t> cpu_load;  // 5-minute load average x 100
  std::optional<uint64_t> free_memory_mb;
};

struct NodeRegistration {
  std::string node_name;
  int cpus = 0;
  uint64_t real_memory_mb = 0;
  std::vector<ReportedGres> gres;
  int64_t boot_time = 0;
  int64_t noded_start_time = 0;
  std::string version;
  std::string os;
  std::string arch;
  int port = 0;
  // Non-empty: the node cannot confine jobs as configured (noded says why);
  // it is drained with this reason whatever config_overrides says.
  std::string drain_reason;
  ReportedLoad load;  // as the node measured it at registration
};

struct Node {
  NodeConfig config;                    // as configured in skiff.conf
  std::vector<std::string> partitions;  // names, in config order
  NodeBaseState state = NodeBaseState::kUnknown;
  bool drain = false;
  bool fail = false;  // scontrol update State=FAIL: expected to fail, takes no new work
  bool not_responding = true;

  // May the scheduler place work here?
  bool Usable() const {
    return !not_responding && !drain && !fail &&
           (state == NodeBaseState::kIdle || state == NodeBaseState::kMixed ||
            state == NodeBaseState::kAllocated);
  }
  std::string reason;  // why DOWN or DRAIN
  int64_t reason_time = 0;
  // Who set `reason` with scontrol update; nullopt for reasons ctld sets itself
  // (not responding, low memory, a failed launch).
  std::optional<uint32_t> reason_uid;
  int64_t last_heartbeat = 0;  // 0 = never heard from
  int64_t last_registered = 0;
  int64_t boot_time = 0;
  int64_t noded_start_time = 0;
  std::string version, os, arch;
  int port = 0;                    // where its noded listens, as it reported
  std::vector<ReportedGres> gres;  // as reported (device files)
  int alloc_cpus = 0;
  uint64_t alloc_memory_mb = 0;
  std::string gpu_type;             // configured Gres=gpu:TYPE:N, empty when untyped
  std::vector<uint64_t> gpu_owner;  // per configured GPU index: owning job id, 0 = free
  // gres/shard or gres/mps: per configured GPU index, its count (Gres=shard:N
  // or mps:N spread by SpreadShares; empty: none), and what jobs hold.
  GpuShareKind share_kind = GpuShareKind::kShard;
  std::vector<int32_t> gpu_shares;
  std::vector<NodeCapacity::ShareHold> share_holds;
  std::vector<uint64_t> cpu_owner;  // per logical CPU id: owning job id, 0 = free
  ReportedLoad load;                // the node's last report
  int64_t last_busy = 0;            // when it last became idle (Slurm's last_busy), 0 = never
};

// What an administrator (or ctld's own drains: a failed launch, Prolog or
// Epilog) decided about a node, which must outlive a ctld restart: Slurm keeps
// it in its node_state file. Everything else a node reports again when it
// registers.
// Stored as "node_admin" records (ctld/state/records.h).
struct NodeAdminState {
  bool drain = false;
  bool fail = false;
  bool down = false;  // DOWN set with scontrol (not "Not responding")
  std::string reason;
  int64_t reason_time = 0;
  std::optional<uint32_t> reason_uid;

  bool empty() const { return !drain && !fail && !down; }
  bool operator==(const NodeAdminState& o) const {
    return drain == o.drain && fail == o.fail && down == o.down && reason == o.reason &&
           reason_time == o.reason_time && reason_uid == o.reason_uid;
  }
  bool operator!=(const NodeAdminState& o) const { return !(*this == o); }
};

// A node whose state changed, for logging and persistence by the caller.
struct NodeChange {
  std::string node_name;
  std::string what;        // "IDLE -> DOWN (Not responding)"
  bool went_down = false;  // its jobs must be failed or requeued
};

class NodeTable {
 public:
  // REQUIRES: config has passed ParseSkiffConfig's checks. `started_at` is when
  // this controller started: a node that has not registered since then counts as
  // silent from that moment (0: never-registered nodes stay UNKNOWN forever).
  explicit NodeTable(const SkiffConfig& config, int64_t started_at = 0);
  // Recomputes each node's partition list from `config` (partitions changed
  // at run time); nodes `config` does not define are left as they are.
  void SetPartitions(const SkiffConfig& config);
  // Adds the nodes `config` defines that the table lacks (nodes that joined,
  // dynamic_nodes.h), as the constructor would have; their partitions come with
  // the next SetPartitions. Returns how many were added.
  size_t AddMissingNodes(const SkiffConfig& config);
  // Removes the nodes `config` no longer defines (a joined node deleted:
  // dynamic_nodes.h). REQUIRES: none of them holds a job. Returns how many.
  size_t DropNodesNotIn(const SkiffConfig& config);

  // A node daemon (re)registered. NotFound for a node not in the configuration;
  // InvalidArgument for impossible values. With `config_overrides` the node's
  // configured hardware is trusted over what it reports. A DOWN node comes
  // back as Slurm's ReturnToService says: 0 never (an operator resumes it),
  // 1 when it was DOWN only for not responding, 2 whatever set it DOWN.
  absl::Status Register(const NodeRegistration& registration, int64_t now, bool config_overrides,
                        std::vector<NodeChange>* changes, int return_to_service = 1);

  // Returns false when the node has not registered since this ctld started (the
  // daemon should register again). Clears "not responding".
  // `load` replaces the node's last one where it says something.
  bool Heartbeat(std::string_view node_name, int64_t now, std::vector<NodeChange>* changes,
                 const ReportedLoad& load = {});

  // An administrator's `scontrol update NodeName=... State=...`: DRAIN and DOWN
  // need a reason; RESUME/UNDRAIN/IDLE clear DRAIN and an admin DOWN.
  // InvalidArgument names a bad state, NotFound an unknown node.
  absl::Status AdminUpdate(std::string_view node_name, std::string_view state,
                           const std::string& reason, std::optional<uint32_t> by, int64_t now,
                           std::vector<NodeChange>* changes);

  // Marks silent nodes not responding, then DOWN. Call periodically.
  void CheckTimeouts(int64_t now, int64_t heartbeat_interval, int64_t slurmd_timeout,
                     std::vector<NodeChange>* changes);

  // Free and used resources of every node, for the scheduler.
  std::vector<NodeCapacity> Capacities() const;

  // Takes resources for a started job / gives them back. REQUIRES: Release once
  // per Allocate, with the same figures (the Controller calls it when the job
  // leaves RUNNING/CONFIGURING). Returns the CPU ids taken on each node: the
  // placement's, or (where it names none) the lowest free ones. REQUIRES:
  // placement.cpus and placement.mem_mb have an entry per node.
  std::vector<std::vector<int>> Allocate(const Placement& placement);
  // Whether `placement` still fits: every node usable with the CPUs, memory and
  // the very GPU indices free. The scheduler plans on a snapshot taken earlier;
  // the Controller re-checks each start against the live table.
  bool CanAllocate(const Placement& placement) const;
  // `cpus` and `mem_mb`: what Allocate took on each of `node_names`. A node
  // left with no job becomes idle at `now` (its last_busy; 0 leaves it).
  void Release(uint64_t job_id, const std::vector<std::string>& node_names,
               const std::vector<int>& cpus, const std::vector<uint64_t>& mem_mb, int64_t now = 0);

  const std::vector<Node>& nodes() const { return nodes_; }

  // A node's admin state now; RestoreAdminState puts a stored one back at ctld
  // start (nodes no longer configured are ignored).
  NodeAdminState AdminStateOf(const Node& node) const;
  void RestoreAdminState(std::string_view node_name, const NodeAdminState& state);
  const Node* Find(std::string_view name) const;

 private:
  Node* FindMutable(std::string_view name);
  void AddNode(const NodeConfig& node_config);
  void UpdateUsageState(Node& node);

  int64_t started_at_;       // not const: the lifecycle core copies and restores tables
  std::vector<Node> nodes_;  // config order
  std::map<std::string, size_t, std::less<>> index_;  // name -> position in nodes_
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_NODE_TABLE_H_
