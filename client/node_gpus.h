// A node's GPUs and gres as ctld reports them and the commands show them: per gpu gres entry, in
// configured order, its type, how many there are and how many jobs use (whole or shared). A node
// numbers its GPUs across those entries in that order, and its alloc_gpu_indices count in the same
// numbering (sinfo's GresUsed reads them so too). sstatus and restd's metrics count GPUs from here.
//
// Pure; thread-safe.
#ifndef SKIFF_CLIENT_NODE_GPUS_H_
#define SKIFF_CLIENT_NODE_GPUS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/types.pb.h"

namespace skiff::client {

struct NodeGpuEntry {
  std::string type;  // "" when untyped
  int64_t count = 0;
  int64_t held = 0;  // of them, in use by jobs: held whole, or shared (gres/shard, gres/mps)
};

std::vector<NodeGpuEntry> NodeGpuEntries(const v1::NodeInfo& node);

// Slurm's GRES string of a node as configured ("gpu:2", "gpu:a100:2,nic:1");
// nullopt when it has none (printed "(null)").
std::optional<std::string> NodeGresString(const v1::NodeInfo& node);
// Slurm's GresUsed: "gpu:(null):1(IDX:0)" for GPUs with device files (untyped
// ones show Slurm's "(null)" type), "gpu:a100:0(IDX:N/A)" for none in use,
// "gpu:1" without device files, and for shards Slurm's count of GPUs with a
// shard in use, "shard:(null):1(IDX:0)"; nullopt for a node without GRES.
std::optional<std::string> NodeGresUsedString(const v1::NodeInfo& node);
// "0-1,3": Slurm's bit_fmt of ascending indices.
std::string IndexRanges(const std::vector<int>& indices);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_NODE_GPUS_H_
