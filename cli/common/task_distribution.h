// -m/--distribution (sbatch, salloc, srun): Slurm's grammar (proc_args.c,
// verify_dist_type) and what Skiff does with each level.
//
// The first level lays a step's tasks out over its nodes, as Slurm's:
// block (consecutive task ids on a node; the default), cyclic (ids dealt a
// node at a time), plane=N (dealt N at a time). The second and third levels
// (sockets, cores) and ,Pack/,NoPack are accepted and change nothing: Skiff
// binds no task to a socket or core (docs/compatibility.md). arbitrary (a
// task per line of SLURM_HOSTFILE) is refused, naming the reason.
//
// Pure: no I/O, no environment (the plane size of a bare "plane" comes in as
// `plane_size_env`, Slurm's SLURM_DIST_PLANESIZE).
#ifndef SKIFF_CLI_COMMON_TASK_DISTRIBUTION_H_
#define SKIFF_CLI_COMMON_TASK_DISTRIBUTION_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::cli {

struct TaskDistribution {
  enum class Nodes { kDefault, kBlock, kCyclic, kPlane, kArbitrary };
  Nodes nodes = Nodes::kDefault;
  int plane_size = 0;  // with kPlane
  // Slurm's name for SLURM_DISTRIBUTION ("cyclic", "block:cyclic", "plane"),
  // as format_task_dist_states writes it; "" for ",pack" alone.
  std::string name;
};

// InvalidArgument "Invalid --distribution specification" for what Slurm
// refuses (a bad plane size too).
absl::StatusOr<TaskDistribution> ParseTaskDistribution(
    const std::string& text, const std::optional<std::string>& plane_size_env = std::nullopt);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_TASK_DISTRIBUTION_H_
