// The Controller's burst buffers (burst_buffer/lua): submit checks and
// slurm_bb_job_process, pool polling, stage-in ahead of scheduling, pre-run at
// start, post-run/stage-out at the end, teardown, cancellation and crash
// recovery. The stage order and states are the guide's (see bb_state.h):
//   pending -> staging-in -> staged-in -> pre-run -> running -> post-run
//   -> staging-out -> teardown -> complete
// Pool space is reserved (and persisted with the job) when stage-in is queued
// and returned only when teardown has completed.
//
// Threads: as the rest of the Controller. Decisions are made under mu_; the
// hooks run on the WorkQueue (asynchronous ones in scriptd through RunLua,
// synchronous ones through BbRuntime's Lua pool), never under mu_, and report
// back through OnBbStageDone. `bb_busy_` (under mu_) keeps one stage per job in
// flight.
#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ctld/controller.h"
#include "ctld/core/burst_buffer/directives.h"

namespace skiff {
namespace {

constexpr int64_t kPoolPollSeconds = 30;
constexpr int64_t kTeardownRetrySeconds = 60;
constexpr char kStageOutReason[] = "burst_buffer/lua: Stage-out in progress";

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

std::string OpName(const std::string& function) {
  constexpr char kPrefix[] = "slurm_bb_";
  return function.rfind(kPrefix, 0) == 0 ? function.substr(sizeof(kPrefix) - 1) : function;
}

}  // namespace

// ---------------------------------------------------------------- submit

absl::Status Controller::PrepareBurstBufferLocked(Job& job) {
  if (!job.UsesBurstBuffer()) return absl::OkStatus();
  if (bb_ == nullptr) {
    return absl::InvalidArgumentError(
        "Burst Buffer request invalid (BurstBufferType is not burst_buffer/lua)");
  }
  if (absl::Status s = CheckBbUser(job.uid, job.user_name, bb_->config()); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "\n", BbSubmitErrorText(s)));
  }
  absl::StatusOr<BbRequest> request =
      ParseBbRequest(Lines(job.bb_directives), bb_->config().directive, bb_pools_);
  if (!request.ok()) {
    return absl::Status(request.status().code(), absl::StrCat(request.status().message(), "\n",
                                                              BbSubmitErrorText(request.status())));
  }
  job.bb_pool = request->pool;
  job.bb_size = request->size;
  job.bb_state = BbState::kPending;
  return absl::OkStatus();
}

absl::Status Controller::ProcessBurstBuffer(std::vector<Job>& jobs) {
  if (jobs.empty() || !jobs.front().UsesBurstBuffer() || bb_ == nullptr) return absl::OkStatus();
  v1::JobSpec spec;
  spec.ParseFromString(jobs.front().spec_blob);
  for (Job& job : jobs) {
    BbSymbols symbols;
    symbols.job_id = static_cast<uint32_t>(job.id);
    if (job.array_job_id != 0) {
      symbols.array_job_id = static_cast<uint32_t>(job.array_job_id);
      symbols.array_task_id = static_cast<uint32_t>(job.array_task_id);
    }
    symbols.work_dir = spec.work_dir();
    symbols.user_name = job.user_name;
    symbols.job_name = job.name;
    std::vector<std::string> lines;
    for (const std::string& line : Lines(job.bb_directives)) {
      lines.push_back(ExpandBbSymbols(line, symbols));
    }
    job.bb_directives = absl::StrJoin(lines, "\n");
    if (absl::Status s = bb_->WriteJobScript(
            job.id, MergeBbDirectivesIntoScript(
                        RemoveBbDirectives(spec.script(), bb_->config().directive), lines));
        !s.ok()) {
      logger_.error("JobId={} not accepted: {}", job.id, std::string(s.message()));
      return absl::InternalError(absl::StrCat("burst_buffer/lua: ", s.message()));
    }
  }
  // Once per submission, as Slurm calls it once for an array.
  absl::Status processed = bb_->JobProcess(jobs.front());
  if (!processed.ok()) {
    for (const Job& job : jobs) bb_->RemoveJobFiles(job.id);
    return absl::Status(processed.code(),
                        absl::StrCat(processed.message(), "\n", BbSubmitErrorText(processed)));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- pools

void Controller::PollBbPools() {
  if (bb_ == nullptr) return;
  absl::StatusOr<std::vector<BbPoolDef>> pools = bb_->Pools();
  if (!pools.ok()) {
    logger_.error("burst_buffer/lua: slurm_bb_pools: {}", std::string(pools.status().message()));
    return;
  }
  absl::MutexLock lock(&mu_);
  bb_pools_.Update(*pools);
}

void Controller::BbHousekeeping() {
  if (bb_ == nullptr) return;
  const int64_t now = clock_.Now();
  if (now >= next_pool_poll_) {
    next_pool_poll_ = now + kPoolPollSeconds;
    PollBbPools();
    RequestSchedule();  // freed space may let a job stage in
  }
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, job] : jobs_) {
      if (job.UsesBurstBuffer() && job.bb_state == BbState::kTeardownFail &&
          bb_busy_.count(id) == 0 && now - job.end_time >= kTeardownRetrySeconds) {
        job.end_time = now;  // next retry counts from here
        BbTeardownLocked(job, /*hurry=*/true, effects);
      }
    }
  }
  Apply(std::move(effects));
}

// ---------------------------------------------------------------- transitions

bool Controller::BbTransitionLocked(Job& job, BbEvent event, Effects& effects) {
  absl::StatusOr<BbState> next = NextBbState(job.bb_state, event);
  if (!next.ok()) {
    effects.log.push_back(
        absl::StrCat("JobId=", job.id, " burst buffer: ", next.status().message()));
    return false;
  }
  job.bb_state = *next;
  ++job.version;
  effects.save.push_back(job);
  return true;
}

void Controller::BbQueueStageLocked(Job& job, BbStage stage, bool hurry, Effects& effects) {
  bb_busy_.insert(job.id);
  effects.bb_actions.push_back(BbStageAction(job, stage, hurry));
}

void Controller::BbTeardownLocked(Job& job, bool hurry, Effects& effects) {
  if (job.bb_state != BbState::kTeardown &&
      !BbTransitionLocked(job, BbEvent::kTeardownQueued, effects)) {
    return;
  }
  BbQueueStageLocked(job, BbStage::kTeardown, hurry, effects);
}

// Stage-in ahead of scheduling. Returns whether the pending job may be offered
// to the scheduler now (its data is staged in).
bool Controller::BbReadyLocked(Job& job) {
  if (!job.UsesBurstBuffer() || bb_ == nullptr) return true;
  switch (job.bb_state) {
    case BbState::kStagedIn:
      return true;
    case BbState::kPending:
      if (job.held) return true;  // the scheduler reports the hold
      job.reason = "BurstBufferResources";
      return false;
    default:
      job.reason = "BurstBufferStageIn";
      return false;
  }
}

void Controller::BbStartStageInsLocked(std::vector<Job*> candidates, Effects& effects) {
  // Expected-start order (the last pass's priority), stopping at the first job
  // that lacks space: a smaller job behind it must not take what it waits for.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Job* a, const Job* b) { return a->priority > b->priority; });
  const int64_t now = clock_.Now();
  for (Job* job : candidates) {
    if (!job->bb_pool.empty() && job->bb_size > 0) {
      BbAllocation allocation;
      allocation.job_id = static_cast<uint32_t>(job->id);
      allocation.user_id = job->uid;
      allocation.pool = job->bb_pool;
      allocation.size = job->bb_size;
      allocation.create_time = now;
      absl::Status reserved = bb_pools_.Reserve(allocation);
      if (!reserved.ok()) {
        job->reason = "BurstBufferResources";
        if (reserved.code() == absl::StatusCode::kResourceExhausted) break;
        continue;
      }
    }
    job->bb_create_time = now;
    if (!BbTransitionLocked(*job, BbEvent::kStageInQueued, effects)) continue;
    job->reason = "BurstBufferStageIn";
    BbQueueStageLocked(*job, BbStage::kStageIn, false, effects);
  }
}

// At allocation: pre_run before the prolog. Returns true when the job must
// wait for it.
bool Controller::BbBeforeLaunchLocked(Job& job, Effects& effects) {
  if (!job.UsesBurstBuffer() || bb_ == nullptr) return false;
  if (job.bb_state == BbState::kStagedIn) {
    if (!BbTransitionLocked(job, BbEvent::kPreRunQueued, effects)) return false;
  }
  if (job.bb_state != BbState::kPreRun) return false;
  if (bb_busy_.count(job.id) == 0) BbQueueStageLocked(job, BbStage::kPreRun, false, effects);
  return true;
}

// At the end of a job: post_run and stage-out before the job completes.
// Returns true when the job must wait (stays COMPLETING).
bool Controller::BbBeforeFinishLocked(Job& job, Effects& effects) {
  if (!job.UsesBurstBuffer() || bb_ == nullptr) return false;
  switch (job.bb_state) {
    case BbState::kRunning:
      if (job.bb_hurry) {
        BbTeardownLocked(job, true, effects);
        return false;
      }
      if (!BbTransitionLocked(job, BbEvent::kJobEnded, effects)) return false;
      [[fallthrough]];
    case BbState::kPostRun:
    case BbState::kStagingOut:
      job.reason = kStageOutReason;
      if (bb_busy_.count(job.id) == 0) BbQueueStageLocked(job, BbStage::kStageOut, false, effects);
      return true;
    case BbState::kStagingIn:
    case BbState::kStagedIn:
    case BbState::kPreRun:
      // The job never ran: no stage-out, straight to teardown.
      BbTeardownLocked(job, true, effects);
      return false;
    default:
      return false;
  }
}

void Controller::BbCancelPendingLocked(Job& job, bool hurry, Effects& effects) {
  if (!job.UsesBurstBuffer() || bb_ == nullptr) return;
  job.bb_hurry = hurry;
  if (job.bb_state == BbState::kPending) {
    BbTransitionLocked(job, BbEvent::kCancelPending, effects);
    return;
  }
  if (bb_busy_.count(job.id) > 0) {
    // A stage is running: kill its process group; its report starts teardown.
    effects.actions.push_back([this, id = job.id] { scripts_.FlushJob(id); });
    return;
  }
  if (job.bb_state == BbState::kStagingIn || job.bb_state == BbState::kStagedIn) {
    BbTeardownLocked(job, true, effects);
  }
}

// ---------------------------------------------------------------- stages

std::function<void()> Controller::BbStageAction(const Job& job, BbStage stage, bool hurry) {
  return [this, job, stage, hurry] {
    BbStageResult result = RunBbStage(job, stage, hurry);
    OnBbStageDone(job.id, stage, std::move(result));
  };
}

Controller::BbStageResult Controller::RunBbStage(const Job& job, BbStage stage, bool hurry) {
  const BurstBufferConfig& config = bb_->config();
  const std::string id = absl::StrCat(job.id);
  const std::string uid = absl::StrCat(job.uid);
  const std::string gid = absl::StrCat(job.gid);
  const std::string script = bb_->JobScriptPath(job.id);
  int attempt = 0;
  BbStageResult result;
  // One hook; false (and `result` says why) when it failed or was killed.
  auto call = [&](const std::string& function, std::vector<std::string> args,
                  int64_t timeout) -> std::optional<v1::RunLuaReply> {
    absl::StatusOr<v1::RunLuaReply> reply =
        scripts_.RunLua(bb_->StageRequest(job, function, std::move(args), timeout, attempt++));
    std::string failure;
    if (!reply.ok()) {
      failure = std::string(reply.status().message());
    } else if (reply->killed()) {
      result.killed = true;
      failure = "killed";
    } else if (reply->timed_out()) {
      failure = absl::StrCat("timed out after ", timeout, " seconds");
    } else if (reply->rc() != 0) {
      failure = reply->message().empty() ? absl::StrCat("rc=", reply->rc()) : reply->message();
    } else {
      return *reply;
    }
    result.ok = false;
    result.error = absl::StrCat("burst_buffer/lua: ", OpName(function), " failed: ", failure);
    return std::nullopt;
  };
  // test_data_in/out: poll every PollInterval until not BUSY, within `timeout`.
  auto poll = [&](const std::string& function, int64_t timeout) -> bool {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::seconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) {
        result.ok = false;
        result.error = absl::StrCat("burst_buffer/lua: ", OpName(function),
                                    " failed: timed out after ", timeout, " seconds");
        return false;
      }
      std::optional<v1::RunLuaReply> reply = call(function, {id, script, uid, gid}, left);
      if (!reply) return false;
      if (reply->message() != kBbLuaBusy) return true;
      if (BbStageAbandoned(job.id)) {
        result.ok = false;
        result.killed = true;
        result.error = "cancelled";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::seconds(config.poll_interval));
    }
  };
  switch (stage) {
    case BbStage::kStageIn: {
      if (!call("slurm_bb_setup", {id, uid, gid, job.bb_pool, absl::StrCat(job.bb_size), script},
                config.other_timeout)) {
        return result;
      }
      if (BbStageAbandoned(job.id)) return {false, true, "cancelled", 0};
      if (!call("slurm_bb_data_in", {id, script, uid, gid}, config.stage_in_timeout)) {
        return result;
      }
      if (!poll("slurm_bb_test_data_in", config.stage_in_timeout)) return result;
      if (!job.bb_pool.empty() && job.bb_size > 0) {
        std::optional<v1::RunLuaReply> real =
            call("slurm_bb_real_size", {id, uid, gid}, config.other_timeout);
        if (!real) return result;
        uint64_t bytes = 0;
        if (!real->message().empty() && absl::SimpleAtoi(real->message(), &bytes)) {
          result.real_size = bytes;
        }
      }
      return result;
    }
    case BbStage::kPreRun:
      call("slurm_bb_pre_run", {id, script, uid, gid}, config.other_timeout);
      return result;
    case BbStage::kStageOut:
      if (job.bb_state == BbState::kPostRun &&
          !call("slurm_bb_post_run", {id, script, uid, gid}, config.other_timeout)) {
        return result;
      }
      result.post_run_done = true;
      if (!call("slurm_bb_data_out", {id, script, uid, gid}, config.stage_out_timeout)) {
        return result;
      }
      poll("slurm_bb_test_data_out", config.stage_out_timeout);
      return result;
    case BbStage::kTeardown:
      call("slurm_bb_job_teardown", {id, script, hurry ? "true" : "false", uid, gid},
           config.other_timeout);
      return result;
  }
  return result;
}

bool Controller::BbStageAbandoned(uint64_t job_id) {
  absl::MutexLock lock(&mu_);
  const Job* job = FindJobLocked(job_id);
  return job == nullptr || IsFinal(job->state) || job->cancel_requested;
}

void Controller::OnBbStageDone(uint64_t job_id, BbStage stage, BbStageResult result) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    bb_busy_.erase(job_id);
    Job* job = FindJobLocked(job_id);
    if (job == nullptr) return;
    const bool gone = IsFinal(job->state) || job->cancel_requested;
    switch (stage) {
      case BbStage::kStageIn:
        if (gone) {
          BbTeardownLocked(*job, true, effects);
        } else if (!result.ok) {
          // Slurm holds the job (priority 0) with the hook's message.
          job->held = true;
          job->held_by_admin = true;
          job->reason = result.error;
          ++job->version;
          effects.save.push_back(*job);
          effects.log.push_back(absl::StrCat("JobId=", job_id, " held: ", result.error));
          if (bb_->config().HasFlag("TeardownFailure")) BbTeardownLocked(*job, true, effects);
        } else {
          if (result.real_size > 0) {
            absl::StatusOr<uint64_t> grown =
                bb_pools_.GrowAllocation(static_cast<uint32_t>(job_id), result.real_size);
            if (grown.ok()) job->bb_size = *grown;
          }
          if (BbTransitionLocked(*job, BbEvent::kStageInDone, effects)) job->reason = "None";
          RequestSchedule();
        }
        break;
      case BbStage::kPreRun:
        if (job->state != JobState::kConfiguring) break;  // cancelled meanwhile
        if (!result.ok) {
          job->reason_detail = result.error;
          job->final_state = JobState::kFailed;
          job->exit_code = 1;
          effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
          if (TransitionLocked(*job, JobEvent::kAbort, effects)) FinishRunLocked(*job, effects);
        } else if (BbTransitionLocked(*job, BbEvent::kPreRunDone, effects)) {
          ContinueStartLocked(*job, effects);
        }
        break;
      case BbStage::kStageOut:
        if (result.post_run_done && job->bb_state == BbState::kPostRun) {
          BbTransitionLocked(*job, BbEvent::kPostRunDone, effects);
        }
        if (!result.ok) {
          job->reason_detail = result.error;
          effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
          BbTeardownLocked(*job, true, effects);
        } else if (BbTransitionLocked(*job, BbEvent::kStageOutDone, effects)) {
          BbQueueStageLocked(*job, BbStage::kTeardown, false, effects);
          effects.actions.push_back([this, job_id] { SendStageOutMail(job_id); });
        }
        if (job->state == JobState::kCompleting) {
          job->reason = "None";
          FinishJobLocked(*job, effects);
        }
        break;
      case BbStage::kTeardown:
        if (!result.ok) {
          effects.log.push_back(absl::StrCat("JobId=", job_id, " ", result.error));
          BbTransitionLocked(*job, BbEvent::kTeardownFailed, effects);
          break;
        }
        bb_pools_.Release(static_cast<uint32_t>(job_id)).IgnoreError();  // none: nothing held
        if (job->state == JobState::kPending && !job->held) {
          // Torn down to stage in again (crash recovery, or a requeue).
          BbTransitionLocked(*job, BbEvent::kRestage, effects);
          RequestSchedule();
        } else if (BbTransitionLocked(*job, BbEvent::kTeardownDone, effects)) {
          effects.actions.push_back([this, job_id] { bb_->RemoveJobFiles(job_id); });
          RequestSchedule();  // space is free again
        }
        break;
    }
  }
  Apply(std::move(effects));
}

// ---------------------------------------------------------------- recovery

void Controller::BbRecoverLocked(Effects& effects) {
  for (auto& [id, job] : jobs_) {
    if (!job.UsesBurstBuffer()) continue;
    if (BbHoldsSpace(job.bb_state) && !job.bb_pool.empty() && job.bb_size > 0) {
      BbAllocation allocation;
      allocation.job_id = static_cast<uint32_t>(id);
      allocation.user_id = job.uid;
      allocation.pool = job.bb_pool;
      allocation.size = job.bb_size;
      allocation.create_time = job.bb_create_time;
      bb_pools_.Restore(allocation).IgnoreError();
    }
    if (bb_ == nullptr) continue;
    switch (job.bb_state) {
      case BbState::kStagingIn:
      case BbState::kStagedIn:
        // An interrupted stage-in: tear down (hurry), then stage in again.
        effects.log.push_back(absl::StrCat("JobId=", id, " was ", BbStateName(job.bb_state),
                                           ": tearing down to stage in again"));
        BbTeardownLocked(job, true, effects);
        break;
      case BbState::kTeardown:
      case BbState::kTeardownFail:
        effects.log.push_back(absl::StrCat("JobId=", id, " burst buffer teardown again"));
        BbQueueStageLocked(job, BbStage::kTeardown, true, effects);
        break;
      default:
        // pre-run: ContinueStartLocked re-runs it; post-run/staging-out: the
        // COMPLETING job's finish runs stage-out again (Controller::Start).
        break;
    }
  }
}

// ---------------------------------------------------------------- visibility

Controller::BurstBufferSnapshot Controller::SnapshotBurstBuffers() {
  BurstBufferSnapshot snapshot;
  snapshot.enabled = bb_ != nullptr;
  if (bb_ != nullptr) snapshot.config = bb_->config();
  absl::MutexLock lock(&mu_);
  snapshot.pools = bb_pools_.pools();
  for (const auto& [id, allocation] : bb_pools_.allocations()) {
    snapshot.allocations.push_back(allocation);
    const Job* job = FindJobLocked(id);
    snapshot.user_names.push_back(job != nullptr ? job->user_name
                                                 : absl::StrCat(allocation.user_id));
  }
  return snapshot;
}

absl::StatusOr<std::string> Controller::BbStatus(const Caller& caller,
                                                 const std::vector<std::string>& words) {
  if (bb_ == nullptr) {
    return absl::FailedPreconditionError("burst_buffer/lua is not configured");
  }
  absl::StatusOr<v1::RunLuaReply> reply =
      scripts_.RunLua(bb_->StatusRequest(caller.uid, caller.gid, words));
  if (!reply.ok()) return reply.status();
  if (reply->timed_out()) return absl::DeadlineExceededError("slurm_bb_get_status timed out");
  if (reply->rc() != 0) {
    return absl::InternalError(reply->message().empty() ? "slurm_bb_get_status failed"
                                                        : reply->message());
  }
  return reply->message();
}

// ---------------------------------------------------------------- mail

void Controller::SendStageOutMail(uint64_t job_id) {
  if (config_.mail_prog.empty()) return;
  Job job;
  {
    absl::MutexLock lock(&mu_);
    const Job* found = FindJobLocked(job_id);
    if (found == nullptr) return;
    job = *found;
  }
  v1::JobSpec spec;
  spec.ParseFromString(job.spec_blob);
  const std::string types = absl::AsciiStrToUpper(spec.mail_type());
  if (types.find("STAGE_OUT") == std::string::npos && types.find("ALL") == std::string::npos) {
    return;
  }
  const std::string user = spec.mail_user().empty() ? job.user_name : spec.mail_user();
  // Slurm's subject: "Slurm Job_id=N Name=NAME StageOut/Teardown Complete".
  v1::RunScriptRequest request;
  request.set_request_id(absl::StrCat("mail-stage_out-", job_id));
  request.set_path(config_.mail_prog);
  request.add_argv("-s");
  request.add_argv(
      absl::StrCat("Slurm Job_id=", job_id, " Name=", job.name, " StageOut/Teardown Complete"));
  request.add_argv(user);
  request.set_timeout_seconds(60);
  request.set_job_id(job_id);
  (*request.mutable_environment())["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  absl::StatusOr<v1::RunScriptReply> reply = scripts_.RunScript(request);
  if (!reply.ok() || reply->exit_code() != 0) {
    logger_.warn("JobId={} MailProg {} failed", job_id, config_.mail_prog);
  }
}

}  // namespace skiff
