// The Controller's side of sacctmgr's QOS: the table lives in the lifecycle
// core (Lifecycle::UpdateQos decides, its rows go through Commit like every
// event's); this file only reads it out and runs the event.
#include <algorithm>

#include "ctld/controller.h"

namespace skiff::ctld {

std::vector<QosDefinition> Controller::SnapshotQos(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  std::vector<QosDefinition> out;
  for (QosDefinition& qos : QosInIdOrder(core_.state().qos())) {
    if (names.empty() || std::find(names.begin(), names.end(), qos.name) != names.end()) {
      out.push_back(std::move(qos));
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> Controller::UpdateQos(const Caller& caller,
                                                               const QosUpdate& update) {
  const bool privileged = IsPrivileged(caller.uid);
  std::vector<std::string> affected;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    return core.UpdateQos(caller, privileged, update, now, &affected);
  });
  if (!status.ok()) return status;
  return affected;
}

}  // namespace skiff::ctld
