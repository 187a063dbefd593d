#include "ctld/launch_retry.h"

#include <algorithm>

namespace skiff::ctld {

bool LaunchMayPassLater(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

std::optional<int64_t> NextLaunchAttemptMs(const absl::Status& status, int failures,
                                           int64_t failing_for_seconds,
                                           int64_t slurmd_timeout_seconds) {
  if (!LaunchMayPassLater(status) || failing_for_seconds >= slurmd_timeout_seconds) {
    return std::nullopt;
  }
  int64_t delay = kFirstLaunchBackoffMs;
  for (int i = 1; i < failures && delay < kMaxLaunchBackoffMs; ++i) delay *= 2;
  return std::min(delay, kMaxLaunchBackoffMs);
}

}  // namespace skiff::ctld
