// A first-fit scheduler: the seam the real scheduler (its own issue) replaces.
//
// Pure: it gets a copy of the nodes' free resources, the pending jobs in priority
// order and the time, and returns which jobs start where plus a Slurm reason for
// every job left pending. No locks, no I/O, no clock.
#ifndef SKIFF_CTLD_CORE_FIRST_FIT_H_
#define SKIFF_CTLD_CORE_FIRST_FIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config.h"
#include "ctld/core/job.h"

namespace skiff {

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
  std::vector<std::string> partitions;
  std::vector<std::string> features;  // Features= of its NodeName line

  int FreeGpus() const;
};

struct Placement {
  uint64_t job_id = 0;
  std::vector<std::string> nodes;
  int cpus_per_node = 0;
  uint64_t mem_per_node_mb = 0;
  std::vector<std::vector<int>> gpu_indices;  // per node in `nodes`
};

struct PendingReason {
  uint64_t job_id = 0;
  std::string reason;  // Priority, Resources, BeginTime, JobHeldUser, ...
};

struct ScheduleResult {
  std::vector<Placement> placements;
  std::vector<PendingReason> pending;
};

// Slurm's reason when no node of the partition can take the job at all.
inline constexpr char kNodesUnavailable[] =
    "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority "
    "partitions";

// Places `pending` (REQUIRES: in priority order, all PENDING) on `nodes` first-fit.
// `partitions` gives each partition's state.
ScheduleResult ScheduleFirstFit(std::vector<NodeCapacity> nodes,
                                const std::vector<const Job*>& pending,
                                const std::vector<PartitionConfig>& partitions, int64_t now);

// Whether `request` could ever run in its partition on an empty cluster (all
// nodes of the partition up). InvalidArgument with Slurm's message when not:
// "Requested node configuration is not available", "Node count specification
// invalid", ...
absl::Status CheckSatisfiable(const JobRequest& request, const std::vector<NodeCapacity>& nodes);

}  // namespace skiff

#endif  // SKIFF_CTLD_CORE_FIRST_FIT_H_
