#include "common/mutex_mode.h"

#include "absl/synchronization/mutex.h"

namespace skiff {

void TurnOffMutexDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace skiff
