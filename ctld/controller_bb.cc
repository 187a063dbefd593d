// The Controller's burst-buffer I/O (burst_buffer/lua): running a stage's
// hooks in scriptd (RunBbStage, from the dispatcher's burst-buffer queue),
// polling slurm_bb_pools, scontrol show burst/bbstat, and the stage-out mail.
// Every decision (which stage, when, what a result means) is the lifecycle
// core's (ctld/core/lifecycle/lifecycle_bb.cc).
#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ctld/controller.h"
#include "ctld/core/burst_buffer/directives.h"

namespace skiff {
namespace {

std::string OpName(const std::string& function) {
  constexpr char kPrefix[] = "slurm_bb_";
  return function.rfind(kPrefix, 0) == 0 ? function.substr(sizeof(kPrefix) - 1) : function;
}

}  // namespace

void Controller::PollBbPools() {
  if (bb_ == nullptr) return;
  absl::StatusOr<std::vector<BbPoolDef>> pools = bb_->Pools();
  if (!pools.ok()) {
    logger_.error("burst_buffer/lua: slurm_bb_pools: {}", std::string(pools.status().message()));
    return;
  }
  std::lock_guard<std::mutex> serial(commit_mu_);  // a rollback restores pool tables
  absl::MutexLock lock(&mu_);
  core_.SetBbPools(*pools);
}

BbStageResult Controller::RunBbStage(const Job& job, BbStage stage, bool hurry) {
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
  return core_.BbStageAbandoned(job_id);
}

// ---------------------------------------------------------------- visibility

Controller::BurstBufferSnapshot Controller::SnapshotBurstBuffers() {
  BurstBufferSnapshot snapshot;
  snapshot.enabled = bb_ != nullptr;
  if (bb_ != nullptr) snapshot.config = bb_->config();
  absl::MutexLock lock(&mu_);
  snapshot.pools = core_.bb_pools().pools();
  for (const auto& [id, allocation] : core_.bb_pools().allocations()) {
    snapshot.allocations.push_back(allocation);
    const Job* job = core_.Find(id);
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

void Controller::SendStageOutMail(const Job& job) {
  if (config_.mail_prog.empty()) return;
  const uint64_t job_id = job.id;
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
