// The one place where a job's BurstBufferState changes.
//
// States and names are Slurm's (scontrol show job's BurstBufferState=). The
// normal sequence, from Slurm's burst-buffer guide and the sampled
// transitions_burst_buffer_job.txt:
//   pending -> staging-in -> staged-in -> pre-run (job CONFIGURING) -> running
//   -> post-run -> staging-out -> teardown -> complete
// plus teardown-fail when slurm_bb_job_teardown fails (retried later).
// NextBbState is the transition table: the new state for (from, event), or
// FailedPrecondition for an illegal pair. Pure, no locks.
#ifndef SKIFF_CTLD_CORE_BURST_BUFFER_BB_STATE_H_
#define SKIFF_CTLD_CORE_BURST_BUFFER_BB_STATE_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace skiff::ctld {

enum class BbState {
  kPending,       // "pending": waiting for pool space / its turn to stage in
  kStagingIn,     // "staging-in": space reserved, setup + data_in (+ test_data_in polls)
  kStagedIn,      // "staged-in": data is in; the job may be allocated nodes
  kPreRun,        // "pre-run": nodes allocated (job CONFIGURING), pre_run running
  kRunning,       // "running": the batch script runs
  kPostRun,       // "post-run": the job ended, post_run running
  kStagingOut,    // "staging-out": data_out (+ test_data_out polls)
  kTeardown,      // "teardown": job_teardown running; space still charged
  kTeardownFail,  // "teardown-fail": job_teardown failed; space still charged
  kComplete,      // "complete": space returned; nothing left to run
};

enum class BbEvent {
  kStageInQueued,   // pending -> staging-in: space reserved, setup+data_in queued in scriptd
  kStageInDone,     // staging-in -> staged-in: data_in (and its polls) succeeded
  kPreRunQueued,    // staged-in -> pre-run: nodes allocated, job CONFIGURING
  kPreRunDone,      // pre-run -> running: the job may start its script
  kJobEnded,        // running -> post-run: the batch script ended, post_run queued
  kPostRunDone,     // post-run -> staging-out: data_out queued
  kStageOutDone,    // staging-out -> teardown: data_out (and its polls) succeeded
  kTeardownQueued,  // any of staging-in .. staging-out, or teardown-fail -> teardown:
                    //   cancel, `scancel --hurry`, a job that never ran, a failed stage
                    //   with Flags=TeardownFailure, recovery after a crash, or a retry
  kTeardownDone,    // teardown -> complete: space may be returned now
  kTeardownFailed,  // teardown -> teardown-fail
  kRestage,         // teardown -> pending: crash recovery tore down an interrupted
                    //   stage-in (hurry) and the still-pending job stages in again
  kCancelPending,   // pending -> complete: nothing was reserved or set up, so Slurm
                    //   skips teardown for a job cancelled before stage-in
};

// Slurm's spelling: "staging-in", "teardown-fail", ...
const char* BbStateName(BbState state);
const char* BbEventName(BbEvent event);

// Inverse of BbStateName (exact match), for reading persisted state back.
// Errors: InvalidArgument for an unknown name.
absl::StatusOr<BbState> ParseBbState(std::string_view name);

// True when the job's buffer has space charged to its pool: from staging-in
// (reservation happens as stage-in is queued) until teardown completes.
bool BbHoldsSpace(BbState state);

absl::StatusOr<BbState> NextBbState(BbState from, BbEvent event);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_BURST_BUFFER_BB_STATE_H_
