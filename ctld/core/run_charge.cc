#include "ctld/core/run_charge.h"

#include <algorithm>

#include "common/checked_math.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

int64_t OverTimeSeconds(int64_t over_time_limit_minutes) {
  return over_time_limit_minutes > 0 ? SaturatingMul<int64_t>(over_time_limit_minutes, 60) : 0;
}

int64_t MaxRunSeconds(int64_t time_limit, int64_t over_time_limit_minutes, int64_t kill_wait) {
  if (time_limit == kUnlimited) return kUnlimited;
  return SaturatingAdd(SaturatingAdd(time_limit, OverTimeSeconds(over_time_limit_minutes)),
                       std::max<int64_t>(0, kill_wait));
}

int64_t KillWaitLeft(int64_t limit_end, int64_t kill_wait, int64_t now) {
  const int64_t late = std::max<int64_t>(0, now - limit_end);
  return std::max<int64_t>(0, kill_wait - late);
}

int64_t ChargedSeconds(int64_t start, int64_t end, int64_t suspended, int64_t max_run) {
  const int64_t held = std::max<int64_t>(0, end - start - std::max<int64_t>(0, suspended));
  return max_run == kUnlimited ? held : std::min(held, max_run);
}

}  // namespace skiff::ctld
