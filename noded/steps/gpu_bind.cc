#include "noded/steps/gpu_bind.h"

#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_split.h"

namespace skiff::noded {
namespace {

bool StartsWithNoCase(const std::string& text, const char* prefix) {
  return strncasecmp(text.c_str(), prefix, strlen(prefix)) == 0;
}

// The value the list gives task `local_id`: items "V" or "V*R" (R tasks each),
// the list repeated from its start for tasks past its end, as Slurm's
// _get_usable_gres_map_or_mask. -1 when the list has no item.
long ValueFor(const std::string& list, int local_id) {
  struct Item {
    long value;
    long repeat;
  };
  std::vector<Item> items;
  long total = 0;
  for (absl::string_view piece : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    const std::string token(piece);
    const size_t star = token.find('*');
    long repeat = 1;
    if (star != std::string::npos)
      repeat = std::max(1L, strtol(token.c_str() + star + 1, nullptr, 0));
    items.push_back({strtol(token.substr(0, star).c_str(), nullptr, 0), repeat});
    total += repeat;
  }
  if (items.empty() || total <= 0) return -1;
  long at = local_id % total;
  for (const Item& item : items) {
    if (at < item.repeat) return item.value;
    at -= item.repeat;
  }
  return -1;
}

}  // namespace

bool IsTaskGpuBind(const std::string& bind) {
  return StartsWithNoCase(bind, "map_gpu:") || StartsWithNoCase(bind, "mask_gpu:") ||
         StartsWithNoCase(bind, "closest") || StartsWithNoCase(bind, "single:");
}

std::vector<int> BoundGpus(const std::string& bind, const std::vector<int>& step_gpus,
                           int local_id) {
  if (step_gpus.empty() || !IsTaskGpuBind(bind)) return step_gpus;
  std::vector<int> bound;
  if (StartsWithNoCase(bind, "map_gpu:")) {
    const long gpu = ValueFor(bind.substr(8), local_id);
    if (std::find(step_gpus.begin(), step_gpus.end(), gpu) != step_gpus.end()) {
      bound.push_back(static_cast<int>(gpu));
    }
  } else if (StartsWithNoCase(bind, "mask_gpu:")) {
    const long mask = ValueFor(bind.substr(9), local_id);
    for (int gpu : step_gpus) {
      if (mask > 0 && gpu < 63 && ((mask >> gpu) & 1) != 0) bound.push_back(gpu);
    }
  } else if (StartsWithNoCase(bind, "single:")) {
    // Slurm: a count that is not positive means 1.
    long per_gpu = strtol(bind.c_str() + 7, nullptr, 0);
    if (per_gpu <= 0) per_gpu = 1;
    const size_t n = static_cast<size_t>(local_id / per_gpu) % step_gpus.size();
    bound.push_back(step_gpus[n]);
  } else {
    return step_gpus;  // closest: every GPU is as close as any other
  }
  if (bound.empty()) bound.push_back(step_gpus.front());
  return bound;
}

}  // namespace skiff::noded
