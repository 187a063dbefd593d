// A node's CPU layout (Sockets, CoresPerSocket, ThreadsPerCore) and a job's
// floor on it: sbatch/salloc/srun's -B S[:C[:T]], --sockets-per-node,
// --cores-per-socket and --threads-per-core, which Slurm's cons_tres reads as
// "only nodes with at least this many" (its multi_core_data). Skiff places by
// CPU count, so these choose nodes; they do not lay tasks out on sockets.
// Pure; thread-safe.
#ifndef SKIFF_COMMON_NODE_TOPOLOGY_H_
#define SKIFF_COMMON_NODE_TOPOLOGY_H_

#include <cstdint>
#include <string>

namespace skiff {

// As a node's layout, every field is at least 1. As a job's floor, 0 is "not
// asked" (Slurm's NO_VAL16, printed "*").
struct NodeTopology {
  int32_t sockets = 0;
  int32_t cores_per_socket = 0;
  int32_t threads_per_core = 0;

  bool asked() const { return sockets > 0 || cores_per_socket > 0 || threads_per_core > 0; }
  bool operator==(const NodeTopology& o) const {
    return sockets == o.sockets && cores_per_socket == o.cores_per_socket &&
           threads_per_core == o.threads_per_core;
  }
};

// A NodeName line's layout as scontrol show node prints it: CoresPerSocket=
// when given, else CPUs / (Sockets * ThreadsPerCore), at least 1.
NodeTopology NodeLayout(int cpus, int sockets, int cores_per_socket, int threads_per_core);

// Does a node of layout `node` meet every floor `wanted` asks?
bool TopologyHolds(const NodeTopology& node, const NodeTopology& wanted);

// One field of a floor as Slurm prints it: the number, or "*" when not asked.
std::string TopologyField(int32_t value);

// squeue's %z (sct): "S:C:T", "*" for what is not asked.
std::string FormatSocketsCoresThreads(const NodeTopology& wanted);

}  // namespace skiff

#endif  // SKIFF_COMMON_NODE_TOPOLOGY_H_
