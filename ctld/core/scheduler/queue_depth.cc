#include "ctld/core/scheduler/queue_depth.h"

#include <algorithm>
#include <map>

namespace skiff::ctld {

std::vector<size_t> WithinQueueDepth(const std::vector<QueueCandidate>& candidates, int32_t depth) {
  std::vector<size_t> out;
  if (depth <= 0 || candidates.size() <= static_cast<size_t>(depth)) {
    out.resize(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) out[i] = i;
    return out;
  }
  std::map<int32_t, std::vector<size_t>> ranked_by_partition;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].ranked) {
      ranked_by_partition[candidates[i].partition].push_back(i);
    } else {
      out.push_back(i);
    }
  }
  auto before = [&](size_t x, size_t y) {
    const QueueCandidate& a = candidates[x];
    const QueueCandidate& b = candidates[y];
    if (a.tier != b.tier) return a.tier > b.tier;
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
    return a.id < b.id;
  };
  for (auto& [partition, indices] : ranked_by_partition) {
    if (indices.size() > static_cast<size_t>(depth)) {
      std::nth_element(indices.begin(), indices.begin() + depth, indices.end(), before);
      indices.resize(static_cast<size_t>(depth));
    }
    out.insert(out.end(), indices.begin(), indices.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace skiff::ctld
