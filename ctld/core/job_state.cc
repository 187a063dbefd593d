#include "ctld/core/job_state.h"

#include "absl/strings/str_cat.h"

namespace skiff::ctld {

const char* JobEventName(JobEvent event) {
  switch (event) {
    case JobEvent::kAllocate:
      return "Allocated";
    case JobEvent::kLaunched:
      return "Launched";
    case JobEvent::kPrologFailed:
      return "PrologFailed";
    case JobEvent::kAbort:
      return "Aborted";
    case JobEvent::kExited:
      return "Exited";
    case JobEvent::kCancelPending:
      return "Cancelled";
    case JobEvent::kMissDeadline:
      return "Deadline";
    case JobEvent::kFinish:
      return "Finished";
    case JobEvent::kRequeue:
      return "Requeued";
    case JobEvent::kSuspend:
      return "Suspended";
    case JobEvent::kResume:
      return "Resumed";
  }
  return "?";
}

absl::StatusOr<JobState> NextState(JobState from, JobEvent event, JobState final_state) {
  using S = JobState;
  using E = JobEvent;
  switch (event) {
    case E::kAllocate:
      if (from == S::kPending) return S::kConfiguring;
      break;
    case E::kLaunched:
      if (from == S::kConfiguring) return S::kRunning;
      break;
    case E::kPrologFailed:
      if (from == S::kConfiguring) return S::kPending;
      break;
    case E::kAbort:
      if (from == S::kConfiguring) return S::kCompleting;
      break;
    case E::kExited:
      if (from == S::kRunning || from == S::kSuspended) return S::kCompleting;
      break;
    case E::kSuspend:
      if (from == S::kRunning) return S::kSuspended;
      break;
    case E::kResume:
      if (from == S::kSuspended) return S::kRunning;
      break;
    case E::kCancelPending:
      if (from == S::kPending) return S::kCancelled;
      break;
    case E::kMissDeadline:
      if (from == S::kPending) return S::kDeadline;
      break;
    case E::kFinish:
      if (from == S::kCompleting && IsFinal(final_state)) return final_state;
      break;
    case E::kRequeue:
      // A finished job may be requeued too (scontrol requeue), as in Slurm.
      if (from == S::kConfiguring || from == S::kRunning || from == S::kSuspended ||
          from == S::kCompleting || IsFinal(from)) {
        return S::kPending;
      }
      break;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("illegal job transition: ", JobStateName(from), " on ", JobEventName(event)));
}

absl::StatusOr<std::string> Transition(Job& job, JobEvent event) {
  absl::StatusOr<JobState> next = NextState(job.state, event, job.final_state);
  if (!next.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("JobId=", job.id, ": ", next.status().message()));
  }
  const JobState from = job.state;
  job.state = *next;
  return absl::StrCat("JobId=", job.id, " ", JobStateName(from), " -> ", JobStateName(*next), " (",
                      JobEventName(event), ")");
}

}  // namespace skiff::ctld
