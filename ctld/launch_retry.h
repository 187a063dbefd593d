// When ctld tries a failed batch launch again (issue 32 item 10): a launch
// that could not reach the node's noded (UNAVAILABLE: refused, reset, closed
// by a noded that was stopping) or got no answer in time (DEADLINE_EXCEEDED)
// is tried again with backoff, since a restarting noded is back within a
// second or two; only a node that stays unreachable for SlurmdTimeout is
// blamed (drained, the job requeued). A node that goes silent meanwhile is
// marked DOWN after SlurmdTimeout anyway, which requeues the job and ends the
// retries (the caller checks that the job is still starting).
//
// Trying again is safe: noded answers a repeated launch of a run it already has
// with that run (JobManager::Launch: "already launched"), never a second copy.
//
// Pure: no clock, no I/O.
#ifndef SKIFF_CTLD_LAUNCH_RETRY_H_
#define SKIFF_CTLD_LAUNCH_RETRY_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"

namespace skiff::ctld {

// Whether a launch that failed with `status` may succeed if tried again.
bool LaunchMayPassLater(const absl::Status& status);

// After the `failures`-th failed attempt (1 for the first) of a launch that has
// been failing for `failing_for_seconds` (since its first failure): the delay
// in milliseconds before the next attempt, or nullopt to give up (a failure
// that retrying cannot mend, or SlurmdTimeout spent).
std::optional<int64_t> NextLaunchAttemptMs(const absl::Status& status, int failures,
                                           int64_t failing_for_seconds,
                                           int64_t slurmd_timeout_seconds);

// The backoff: 250 ms doubling per failure, at most kMaxLaunchBackoffMs.
inline constexpr int64_t kFirstLaunchBackoffMs = 250;
inline constexpr int64_t kMaxLaunchBackoffMs = 4000;

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_LAUNCH_RETRY_H_
