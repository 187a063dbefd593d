// What ctld's core knows about nodes' resources and where jobs were placed,
// and the one rule for whether a per-node share fits.
//
// Pure values and functions; thread-compatible. The scheduler (scheduler/)
// decides placements; the lifecycle core applies them to the NodeTable;
// admission uses CheckSatisfiable to refuse what could never run.
#ifndef SKIFF_CTLD_CORE_RESOURCES_H_
#define SKIFF_CTLD_CORE_RESOURCES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctld/core/job.h"
#include "ctld/core/scheduler/placement.h"

namespace skiff::ctld {

// A per-node amount of CPUs, memory (MB), whole GPUs and GPU shards
// (gres/shard): what a job takes on one node, or how much a node has (in
// total or free). A GPU with a shard in use is not free whole, and a GPU held
// whole has no shard free; `shards` sums the shards over the node's GPUs, so
// it is a bound, and which GPU can give a job its shards is decided per GPU
// (GpuShare) where a job is started.
// GPUs and shares are 32-bit so that a Share is as small as before shares:
// the scheduler's backfill walks arrays of them.
struct Share {
  int64_t cpus = 0;
  int64_t mem = 0;  // MB
  int32_t gpus = 0;
  int32_t shares = 0;
};

// The node-fit rule, the only one: `want` fits into `room` when every amount
// does. Admission (node totals), the scheduler (free amounts and reservations)
// and preemption (through the scheduler) all ask it.
inline bool ShareFits(const Share& want, const Share& room) {
  return want.cpus <= room.cpus && want.mem <= room.mem && want.gpus <= room.gpus &&
         want.shares <= room.shares;
}

// A node's shard (or MPS) count spread over its GPUs, as Slurm spreads a
// Name=shard Count= without File= (gres.c _sync_node_shared_to_sharing):
// evenly, the remainder on the last GPUs (10 over 4 GPUs: 2,2,3,3).
std::vector<int32_t> SpreadShares(int64_t shares, size_t gpus);

// One node's capacity and what is in use, as the scheduler sees it.
struct NodeCapacity {
  std::string name;
  bool usable = false;  // responding, not DOWN/DRAIN/UNKNOWN/FUTURE
  int cpus = 0;
  int alloc_cpus = 0;
  uint64_t memory_mb = 0;
  uint64_t alloc_memory_mb = 0;
  std::string gpu_type;             // empty = untyped
  std::vector<uint64_t> gpu_owner;  // one entry per GPU index: owning job id, 0 = free
  // gres/shard or gres/mps (share_kind): per GPU index, its count (empty:
  // none), and what jobs hold, one entry per job and node.
  GpuShareKind share_kind = GpuShareKind::kShard;
  std::vector<int32_t> gpu_shares;
  // gres.conf Flags=fence: share jobs run under MPS, so one user a GPU.
  bool share_fenced = false;
  struct ShareHold {
    uint64_t job_id = 0;
    GpuShare shares;
  };
  std::vector<ShareHold> share_holds;
  std::vector<std::string> partitions;
  std::vector<std::string> features;  // Features= of its NodeName line
  uint32_t weight = 1;                // Weight=: the scheduler fills lighter nodes first
  uint64_t tmp_disk_mb = 0;           // TmpDisk=: what a job's --tmp asks of it
  NodeTopology layout;                // Sockets=, CoresPerSocket=, ThreadsPerCore=

  int FreeGpus() const;  // neither held whole nor sharded
  int32_t SharesUsed(int32_t gpu) const;
  int64_t TotalShares() const;
  Share Total() const;
};

// Where one job starts: its nodes and what it takes on each.
struct Placement {
  uint64_t job_id = 0;
  std::vector<std::string> nodes;
  // Per node in `nodes`: CPUs and memory taken there, tasks placed there.
  std::vector<int> cpus;
  std::vector<uint64_t> mem_mb;
  std::vector<int> tasks;
  std::vector<std::vector<int>> gpu_indices;  // per node in `nodes`
  std::vector<GpuShare> shares;               // per node in `nodes`; empty = none
  // Per node in `nodes`: the CPU ids to take; empty (as the scheduler leaves
  // it) = NodeTable::Allocate chooses the lowest free ones.
  std::vector<std::vector<int>> cpu_ids;
  bool backfilled = false;  // placed by backfill, not by the main pass (sdiag counts them)
  // Seconds: the shorter time limit backfill started the job with (its
  // --time-min let it); 0 = the job's own.
  int64_t time_limit = 0;
  // A MAGNETIC reservation the job was placed in without asking for it: it
  // becomes the job's reservation. "" = none.
  std::string reservation;
};

struct PendingReason {
  uint64_t job_id = 0;
  std::string reason;  // Priority, Resources, BeginTime, JobHeldUser, ...
  // What Slurm shows instead of the bare reason, where it spells one out
  // ("ReqNodeNotAvail, UnavailableNodes:n1"); "" = none.
  std::string description;
};

// One scheduling pass's decisions.
struct ScheduleResult {
  std::vector<Placement> placements;
  std::vector<PendingReason> pending;
};

// Whether `request` could ever run in its partition on an empty cluster (all
// nodes of the partition up). InvalidArgument with Slurm's message when not:
// "Requested node configuration is not available", "Node count specification
// invalid", ...; when nodes the job could otherwise use lack the TmpDisk its
// --tmp asks, Slurm's err_msg line first ("Temporary disk specification can
// not be satisfied\nRequested node configuration is not available").
absl::Status CheckSatisfiable(const JobRequest& request, const std::vector<NodeCapacity>& nodes);

// The request as placement.h places it: -N min..max (filled to the top of a
// range unless --use-min-nodes; -n alone spreads over as few nodes as hold
// it), tasks, CPUs per task, per-node caps and memory.
TaskShape RequestShape(const JobRequest& request);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_RESOURCES_H_
