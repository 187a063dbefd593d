// The serving controller's epoch (issue 53): with a standby over etcd, each
// controller that wins the lead has a number no earlier one had (etcd's
// revision at which it wrote the leader key, with the etcd cluster's id), and
// sends it with every call it makes to noded and in its registration replies.
// noded keeps the highest it has seen and refuses calls of an older one, so a
// deposed controller that wakes from a hang cannot launch or kill a job the
// new one has taken over (a fencing token). Without etcd there is none and
// nothing is refused.
//
// Text form "CLUSTER.REVISION" (hex cluster id, decimal revision). A new etcd
// cluster (skiff init run again) has a new id: its revisions start again, and
// its first epoch replaces the old one instead of being refused.
//
// Threads: ControllerFence is thread-safe (a leaf mutex); the rest is pure.
#ifndef SKIFF_COMMON_RPC_CONTROLLER_EPOCH_H_
#define SKIFF_COMMON_RPC_CONTROLLER_EPOCH_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff {

// The gRPC metadata key ctld's calls to noded carry it in.
inline constexpr char kControllerEpochMetadataKey[] = "skiff-controller-epoch";

struct ControllerEpoch {
  uint64_t cluster = 0;  // etcd's cluster id
  int64_t revision = 0;  // etcd's revision of the winning campaign
};

std::string FormatControllerEpoch(const ControllerEpoch& epoch);
// InvalidArgument for anything but "CLUSTER.REVISION".
absl::StatusOr<ControllerEpoch> ParseControllerEpoch(const std::string& text);

class ControllerFence {
 public:
  // OK for an empty epoch (a controller without etcd), one at least as new as
  // the highest seen (which it becomes), and one of another etcd cluster
  // (which replaces it). FailedPrecondition, naming both, for an older one;
  // InvalidArgument for one that does not parse.
  absl::Status Admit(const std::string& epoch_text);

  // The highest seen, "" when none.
  std::string Highest() const;

 private:
  mutable std::mutex mu_;
  std::optional<ControllerEpoch> highest_;  // guarded by mu_
};

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CONTROLLER_EPOCH_H_
