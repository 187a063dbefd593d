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

namespace skiff::ctld {

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

// A job's RunProgress (job.h) in each state, as the lifecycle keeps it (the
// core's terminate_sent set, journaled_state.h, is not persisted: a restarted
// ctld sends the stop again):
//   PENDING       all clear: a new job, or Requeue cleared them for its next run.
//   CONFIGURING   launched clear; prolog_done once PrologSlurmctld passed (or
//                 there is none); cancel_requested when scancel or a preemption
//                 came during the start (the prolog or launch report then ends
//                 the run), with preempt_requeue for PreemptMode=REQUEUE;
//                 requeue_request after scontrol requeue.
//   RUNNING,      prolog_done and launched set; cancel_requested only when the
//   SUSPENDED     cancel came during the start (the job is being stopped);
//                 preempt_requeue and requeue_request while it is being stopped;
//                 preempt_stop_at (RUNNING only) while a preempted job has its
//                 GraceTime, until EnforceTimeLimits stops it.
//   COMPLETING    as in the state it left; launched clear when it never started.
//                 At its end preempt_requeue or requeue_request sends the job
//                 back to PENDING instead of final_state (a later scancel
//                 clears requeue_request).
//   final         as the run left them; scontrol requeue clears them.
//
// `final_state` is used by kFinish only. REQUIRES: IsFinal(final_state) for kFinish.
absl::StatusOr<JobState> NextState(JobState from, JobEvent event,
                                   JobState final_state = JobState::kCompleted);

// Applies `event` to `job` and returns the log line. The version is bumped by
// the lifecycle core once per event (lifecycle.h), not here.
absl::StatusOr<std::string> Transition(Job& job, JobEvent event);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_JOB_STATE_H_
