#include "cli/common/node_gpus.h"

namespace skiff::cli {

std::vector<NodeGpuEntry> NodeGpuEntries(const v1::NodeInfo& node) {
  std::vector<NodeGpuEntry> entries;
  int64_t base = 0;
  for (const v1::Gres& gres : node.gres()) {
    if (gres.name() != "gpu") continue;
    NodeGpuEntry entry{gres.type(), gres.count(), 0};
    for (int index : node.alloc_gpu_indices()) {
      if (index >= base && index < base + gres.count()) ++entry.held;
    }
    base += gres.count();
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace skiff::cli
