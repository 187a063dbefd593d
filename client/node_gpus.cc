#include "client/node_gpus.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::client {

std::vector<NodeGpuEntry> NodeGpuEntries(const v1::NodeInfo& node) {
  std::vector<NodeGpuEntry> entries;
  int64_t base = 0;
  for (const v1::Gres& gres : node.gres()) {
    if (gres.name() != "gpu") continue;
    NodeGpuEntry entry{gres.type(), gres.count(), 0};
    for (int64_t index = base; index < base + gres.count(); ++index) {
      const bool whole = std::find(node.alloc_gpu_indices().begin(), node.alloc_gpu_indices().end(),
                                   index) != node.alloc_gpu_indices().end();
      const bool shared = index < node.alloc_gpu_shares_size() &&
                          node.alloc_gpu_shares(static_cast<int>(index)) > 0;
      entry.held += whole || shared;
    }
    base += gres.count();
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::optional<std::string> NodeGresString(const v1::NodeInfo& node) {
  std::vector<std::string> parts;
  for (const v1::Gres& g : node.gres()) {
    parts.push_back(g.type().empty() ? absl::StrCat(g.name(), ":", g.count())
                                     : absl::StrCat(g.name(), ":", g.type(), ":", g.count()));
  }
  if (parts.empty()) return std::nullopt;
  return absl::StrJoin(parts, ",");
}

std::string IndexRanges(const std::vector<int>& indices) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(indices[i]) : absl::StrCat(indices[i], "-", indices[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

std::optional<std::string> NodeGresUsedString(const v1::NodeInfo& node) {
  std::vector<std::string> parts;
  // Skiff tracks allocation per GPU index; the node's GPUs are numbered across
  // its gpu entries in configured order.
  std::vector<int> held(node.alloc_gpu_indices().begin(), node.alloc_gpu_indices().end());
  std::sort(held.begin(), held.end());
  int64_t gpu_base = 0;
  for (const v1::Gres& g : node.gres()) {
    std::vector<int> mine;
    if (g.name() == "gpu") {
      for (int idx : held) {
        if (idx >= gpu_base && idx < gpu_base + g.count()) mine.push_back(idx);
      }
      gpu_base += g.count();
    }
    if (g.name() == "shard" || g.name() == "mps") {
      // Slurm keeps one bit per GPU for a shared gres (gres.c
      // _sync_node_shared_to_sharing) and counts those: the GPUs with a share
      // in use, untyped.
      for (int idx = 0; idx < node.alloc_gpu_shares_size(); ++idx) {
        if (node.alloc_gpu_shares(idx) > 0) mine.push_back(idx);
      }
      parts.push_back(absl::StrCat(g.name(), ":(null):", mine.size(),
                                   "(IDX:", mine.empty() ? "N/A" : IndexRanges(mine), ")"));
      continue;
    }
    const size_t used = mine.size();
    if (!g.files().empty()) {
      // With device files Slurm knows the topology: type (or "(null)"), count, indices.
      parts.push_back(absl::StrCat(g.name(), ":", g.type().empty() ? "(null)" : g.type(), ":", used,
                                   "(IDX:", used == 0 ? "N/A" : IndexRanges(mine), ")"));
    } else if (g.type().empty()) {
      parts.push_back(absl::StrCat(g.name(), ":", used));
    } else {
      parts.push_back(absl::StrCat(g.name(), ":", g.type(), ":", used));
    }
  }
  if (parts.empty()) return std::nullopt;
  return absl::StrJoin(parts, ",");
}
}  // namespace skiff::client
