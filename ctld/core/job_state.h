// The one place where a job's state changes.
//
// NextState is the transition table: it returns the new state for (from, event),
// or FailedPrecondition for an illegal pair. Transition applies it to a Job and
// returns the log line ("JobId=42 RUNNING -> COMPLETING (Exited)"); on an
// illegal pair it changes nothing. Pure, no locks. Only the lifecycle core
// (ctld/core/lifecycle) calls Transition; it bumps the version once per event.
#ifndef SKIFF_CTLD_CORE_JOB_STATE_H_
#define SKIFF_CTLD_CORE_JOB_STATE_H_

#include <string>

#include "absl/status/statusor.h"
#include "ctld/core/job.h"

namespace skiff {

enum class JobEvent {
  kAllocate,       // PENDING -> CONFIGURING: resources chosen, prolog/launch next
  kLaunched,       // CONFIGURING -> RUNNING: noded started the batch script
  kPrologFailed,   // CONFIGURING -> PENDING: requeued held (Slurm's behaviour)
  kAbort,          // CONFIGURING -> COMPLETING: launch failed or cancelled before start
  kExited,         // RUNNING/SUSPENDED -> COMPLETING: the batch script ended (any reason)
  kCancelPending,  // PENDING -> CANCELLED
  kFinish,         // COMPLETING -> job.final_state: EpilogSlurmctld done (or none)
  kSuspend,        // RUNNING -> SUSPENDED: scontrol suspend
  kResume,         // SUSPENDED -> RUNNING: scontrol resume
  kRequeue,  // CONFIGURING/RUNNING/SUSPENDED/COMPLETING -> PENDING: node failure with --requeue;
             // any final state -> PENDING: scontrol requeue of a finished job
  kMissDeadline,  // PENDING -> DEADLINE: --deadline can no longer be met
};

const char* JobEventName(JobEvent event);

// `final_state` is used by kFinish only. REQUIRES: IsFinal(final_state) for kFinish.
absl::StatusOr<JobState> NextState(JobState from, JobEvent event,
                                   JobState final_state = JobState::kCompleted);

// Applies `event` to `job` and returns the log line. The version is bumped by
// the lifecycle core once per event (lifecycle.h), not here.
absl::StatusOr<std::string> Transition(Job& job, JobEvent event);

}  // namespace skiff

#endif  // SKIFF_CTLD_CORE_JOB_STATE_H_
