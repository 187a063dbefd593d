// The lifecycle core's burst buffers (burst_buffer/lua): stage-in ahead of
// scheduling, pre-run at start, post-run/stage-out at the end, teardown,
// cancellation and recovery. The stage order and states are the guide's (see
// bb_state.h):
//   pending -> staging-in -> staged-in -> pre-run -> running -> post-run
//   -> staging-out -> teardown -> complete
// Pool space is reserved (and persisted with the job) when stage-in is queued
// and returned only when teardown has completed. `bb_busy_` keeps one stage per
// job in flight.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/lifecycle/mail.h"

namespace skiff::ctld {
namespace {
constexpr char kStageOutReason[] = "burst_buffer/lua: Stage-out in progress";
// A failed slurm_bb_job_teardown is tried again this long after it failed.
constexpr int64_t kTeardownRetrySeconds = 60;
}  // namespace

bool Lifecycle::BbTransition(Job& job, BbEvent event, Effects& effects) {
  absl::StatusOr<BbState> next = NextBbState(job.bb_state, event);
  if (!next.ok()) {
    effects.log.push_back(
        absl::StrCat("JobId=", job.id, " burst buffer: ", next.status().message()));
    return false;
  }
  job.bb_state = *next;
  return true;
}

void Lifecycle::BbQueueStage(Job& job, BbStage stage, bool hurry, Effects& effects) {
  state_.SetBusy(job.id, true);
  effects.intents.push_back(RunBbStageIntent{job, stage, hurry});
}

void Lifecycle::BbTeardown(Job& job, bool hurry, Effects& effects) {
  if (job.bb_state != BbState::kTeardown && !BbTransition(job, BbEvent::kTeardownQueued, effects)) {
    return;
  }
  BbQueueStage(job, BbStage::kTeardown, hurry, effects);
}

// Whether the pending job may be offered to the scheduler now (its data is
// staged in). Sets only the derived reason.
bool Lifecycle::BbReady(Job& job) {
  if (!job.UsesBurstBuffer() || !BbEnabled()) return true;
  switch (job.bb_state) {
    case BbState::kStagedIn:
      return true;
    case BbState::kPending:
      if (job.held) return true;  // the scheduler reports the hold
      job.reason = "BurstBufferResources";
      return false;
    case BbState::kStagingIn:
    case BbState::kPreRun:
    case BbState::kRunning:
    case BbState::kPostRun:
    case BbState::kStagingOut:
    case BbState::kTeardown:
    case BbState::kTeardownFail:
    case BbState::kComplete:
      // A stage-in that failed holds the job with the hook's message: keep it.
      if (!job.held) job.reason = "BurstBufferStageIn";
      return false;
  }
  return false;
}

void Lifecycle::BbStartStageIns(std::vector<uint64_t> candidates, int64_t now, Effects& effects) {
  // Expected-start order (the last pass's priority), stopping at the first job
  // that lacks space: a smaller job behind it must not take what it waits for.
  std::stable_sort(candidates.begin(), candidates.end(), [&](uint64_t a, uint64_t b) {
    return state_.jobs().at(a).priority > state_.jobs().at(b).priority;
  });
  for (uint64_t id : candidates) {
    const Job& current = state_.jobs().at(id);
    if (!current.bb_pool.empty() && current.bb_size > 0) {
      BbAllocation allocation;
      allocation.job_id = static_cast<uint32_t>(id);
      allocation.user_id = current.uid;
      allocation.pool = current.bb_pool;
      allocation.size = current.bb_size;
      allocation.create_time = now;
      absl::Status reserved = state_.MutPools().Reserve(allocation);
      if (!reserved.ok()) {
        state_.Derived(id)->reason = "BurstBufferResources";
        if (reserved.code() == absl::StatusCode::kResourceExhausted) break;
        continue;
      }
    }
    Job& job = state_.Mut(id);
    job.bb_create_time = now;
    if (!BbTransition(job, BbEvent::kStageInQueued, effects)) continue;
    job.reason = "BurstBufferStageIn";
    BbQueueStage(job, BbStage::kStageIn, false, effects);
  }
}

// At allocation: pre_run before the prolog. True when the job must wait for it.
bool Lifecycle::BbBeforeLaunch(Job& job, Effects& effects) {
  if (!job.UsesBurstBuffer() || !BbEnabled()) return false;
  if (job.bb_state == BbState::kStagedIn) {
    if (!BbTransition(job, BbEvent::kPreRunQueued, effects)) return false;
  }
  if (job.bb_state != BbState::kPreRun) return false;
  if (!state_.bb_busy(job.id)) BbQueueStage(job, BbStage::kPreRun, false, effects);
  return true;
}

// At the end of a job: post_run and stage-out before it completes. True when
// the job must wait (stays COMPLETING).
bool Lifecycle::BbBeforeFinish(Job& job, Effects& effects) {
  if (!job.UsesBurstBuffer() || !BbEnabled()) return false;
  switch (job.bb_state) {
    case BbState::kRunning:
      if (job.bb_hurry) {
        BbTeardown(job, true, effects);
        return false;
      }
      if (!BbTransition(job, BbEvent::kJobEnded, effects)) return false;
      [[fallthrough]];
    case BbState::kPostRun:
    case BbState::kStagingOut:
      // post_run, then data_out, each its own stage so that the state shows
      // which runs (Slurm's post-run, then staging-out).
      job.reason = kStageOutReason;
      if (!state_.bb_busy(job.id)) {
        BbQueueStage(job,
                     job.bb_state == BbState::kPostRun ? BbStage::kPostRun : BbStage::kStageOut,
                     false, effects);
      }
      return true;
    case BbState::kStagingIn:
    case BbState::kStagedIn:
    case BbState::kPreRun:
      // The job never ran: no stage-out, straight to teardown.
      BbTeardown(job, true, effects);
      return false;
    case BbState::kPending:
    case BbState::kTeardown:
    case BbState::kTeardownFail:
    case BbState::kComplete:
      return false;  // nothing staged, or already being given back
  }
  return false;
}

void Lifecycle::BbCancelPending(Job& job, bool hurry, Effects& effects) {
  if (!job.UsesBurstBuffer() || !BbEnabled()) return;
  job.bb_hurry = hurry;
  if (job.bb_state == BbState::kPending) {
    BbTransition(job, BbEvent::kCancelPending, effects);
    return;
  }
  if (state_.bb_busy(job.id)) {
    // A stage is running: kill its process group; its report starts teardown.
    effects.intents.push_back(FlushBbStageIntent{job.id});
    return;
  }
  if (job.bb_state == BbState::kStagingIn || job.bb_state == BbState::kStagedIn) {
    BbTeardown(job, true, effects);
  }
}

bool Lifecycle::BbStageAbandoned(uint64_t job_id) const {
  const Job* job = Find(job_id);
  return job == nullptr || IsFinal(job->state) || job->progress.cancel_requested;
}

Effects Lifecycle::RetryBbTeardowns(int64_t now) {
  state_.Begin();
  Effects effects;
  if (BbEnabled()) {
    for (const auto& [id, stored] : state_.jobs()) {
      if (stored.UsesBurstBuffer() && stored.bb_state == BbState::kTeardownFail &&
          !state_.bb_busy(id) && now >= stored.bb_teardown_retry_at) {
        Job& job = state_.Mut(id);
        job.bb_teardown_retry_at = now + kTeardownRetrySeconds;
        BbTeardown(job, /*hurry=*/true, effects);
      }
    }
  }
  return state_.Close(std::move(effects));
}

Effects Lifecycle::BbStageDone(uint64_t job_id, BbStage stage, const BbStageResult& result,
                               int64_t now) {
  state_.Begin();
  Effects effects;
  state_.SetBusy(job_id, false);
  if (Find(job_id) == nullptr) return state_.Close(std::move(effects));
  Job& job = state_.Mut(job_id);
  const bool gone = IsFinal(job.state) || job.progress.cancel_requested;
  switch (stage) {
    case BbStage::kStageIn:
      if (gone) {
        BbTeardown(job, true, effects);
      } else if (!result.ok) {
        // Slurm holds the job (priority 0) with the hook's message.
        job.held = true;
        job.held_by_admin = true;
        job.reason = result.error;
        effects.log.push_back(absl::StrCat("JobId=", job_id, " held: ", result.error));
        if (settings_.burst_buffer->HasFlag("TeardownFailure")) BbTeardown(job, true, effects);
      } else {
        if (result.real_size > 0) {
          absl::StatusOr<uint64_t> grown =
              state_.MutPools().GrowAllocation(static_cast<uint32_t>(job_id), result.real_size);
          if (grown.ok()) job.bb_size = *grown;
        }
        if (BbTransition(job, BbEvent::kStageInDone, effects)) job.reason = "None";
        effects.reschedule = true;
      }
      break;
    case BbStage::kPreRun:
      if (job.state != JobState::kConfiguring) break;  // cancelled meanwhile
      if (!result.ok) {
        job.reason_detail = result.error;
        job.final_state = JobState::kFailed;
        job.exit_code = 1;
        effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
        if (TransitionJob(job, JobEvent::kAbort, effects)) ReleaseAndRunEpilog(job, now, effects);
      } else if (BbTransition(job, BbEvent::kPreRunDone, effects)) {
        ContinueStart(job, now, effects);
      }
      break;
    case BbStage::kPostRun:
      if (result.ok && BbTransition(job, BbEvent::kPostRunDone, effects)) {
        BbQueueStage(job, BbStage::kStageOut, false, effects);
        break;
      }
      if (!result.ok) {
        job.reason_detail = result.error;
        effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
        BbTeardown(job, true, effects);
      }
      if (job.state == JobState::kCompleting) {
        job.reason = "None";
        AfterStageOut(job, now, effects);
      }
      break;
    case BbStage::kStageOut:
      if (!result.ok) {
        job.reason_detail = result.error;
        effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
        BbTeardown(job, true, effects);
      } else if (BbTransition(job, BbEvent::kStageOutDone, effects)) {
        BbQueueStage(job, BbStage::kTeardown, false, effects);
      }
      if (job.state == JobState::kCompleting) {
        job.reason = "None";
        AfterStageOut(job, now, effects);
      }
      break;
    case BbStage::kTeardown:
      if (!result.ok) {
        effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
        if (BbTransition(job, BbEvent::kTeardownFailed, effects)) {
          job.bb_teardown_retry_at = now + kTeardownRetrySeconds;
        }
        break;
      }
      state_.MutPools().Release(static_cast<uint32_t>(job_id)).IgnoreError();  // none: nothing held
      if (job.state == JobState::kPending && !job.held) {
        // Torn down to stage in again (crash recovery, or a requeue).
        BbTransition(job, BbEvent::kRestage, effects);
      } else if (BbTransition(job, BbEvent::kTeardownDone, effects)) {
        effects.intents.push_back(RemoveBbFilesIntent{job_id});
        MailRules(state_, *config_).OnTeardown(job, now, effects);
      }
      effects.reschedule = true;  // space is free again
      break;
  }
  return state_.Close(std::move(effects));
}

void Lifecycle::BbResume(Effects& effects) {
  for (auto& [id, stored] : state_.jobs()) {
    if (!stored.UsesBurstBuffer()) continue;
    // Space the stored jobs hold, re-charged after slurm_bb_pools has named the
    // pools (so their order, PoolName[i], stays the script's).
    if (BbHoldsSpace(stored.bb_state) && !stored.bb_pool.empty() && stored.bb_size > 0) {
      BbAllocation allocation;
      allocation.job_id = static_cast<uint32_t>(id);
      allocation.user_id = stored.uid;
      allocation.pool = stored.bb_pool;
      allocation.size = stored.bb_size;
      allocation.create_time = stored.bb_create_time;
      state_.MutPools().Restore(allocation).IgnoreError();
    }
    if (!BbEnabled()) continue;
    switch (stored.bb_state) {
      case BbState::kStagingIn:
      case BbState::kStagedIn: {
        // An interrupted stage-in: tear down (hurry), then stage in again.
        effects.log.push_back(absl::StrCat("JobId=", id, " was ", BbStateName(stored.bb_state),
                                           ": tearing down to stage in again"));
        BbTeardown(state_.Mut(id), true, effects);
        break;
      }
      case BbState::kTeardown:
      case BbState::kTeardownFail:
        effects.log.push_back(absl::StrCat("JobId=", id, " burst buffer teardown again"));
        BbQueueStage(state_.Mut(id), BbStage::kTeardown, true, effects);
        break;
      case BbState::kPreRun:
      case BbState::kPostRun:
      case BbState::kStagingOut:
        // pre-run: ContinueStart re-runs it; post-run/staging-out: the COMPLETING
        // job's finish runs stage-out again (Resume).
        break;
      case BbState::kPending:
      case BbState::kRunning:
      case BbState::kComplete:
        break;  // nothing was in flight
    }
  }
}

}  // namespace skiff::ctld
