// A node's GPUs as ctld reports them: per gpu gres entry, in configured
// order, its type, how many there are and how many jobs hold. A node numbers
// its GPUs across those entries in that order, and its alloc_gpu_indices
// count in the same numbering (sinfo's GresUsed reads them so too).
// sstatus and restd's metrics count GPUs from here.
//
// Pure; thread-safe.
#ifndef SKIFF_CLI_COMMON_NODE_GPUS_H_
#define SKIFF_CLI_COMMON_NODE_GPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/types.pb.h"

namespace skiff::cli {

struct NodeGpuEntry {
  std::string type;  // "" when untyped
  int64_t count = 0;
  int64_t held = 0;  // of them, held by jobs
};

std::vector<NodeGpuEntry> NodeGpuEntries(const v1::NodeInfo& node);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_NODE_GPUS_H_
