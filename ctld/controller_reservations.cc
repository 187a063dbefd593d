// The Controller's side of scontrol's advance reservations: the table lives in
// the lifecycle core (Lifecycle::UpdateReservation decides; its rows go
// through Commit like every event's); this file only reads it out and runs
// the event.
#include "ctld/controller.h"

namespace skiff::ctld {

std::vector<AdvanceReservation> Controller::SnapshotReservations() {
  const int64_t now = clock_.Now();
  absl::MutexLock lock(&mu_);
  std::vector<AdvanceReservation> out;
  for (const auto& [name, resv] : core_.state().advance_reservations()) {
    if (!ResvEnded(resv, now)) out.push_back(resv);
  }
  return out;
}

absl::StatusOr<std::string> Controller::UpdateReservation(const Caller& caller,
                                                          const std::string& caller_name, ResvOp op,
                                                          const ResvRequest& request,
                                                          const ResvLookups& lookups) {
  const bool privileged = IsPrivileged(caller.uid);
  std::string name;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    return core.UpdateReservation(caller, privileged, caller_name, op, request, lookups, now,
                                  &name);
  });
  if (!status.ok()) return status;
  return name;
}

}  // namespace skiff::ctld
