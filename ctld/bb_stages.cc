// One burst-buffer stage's hooks, run in scriptd (see bb_stages.h).
#include "ctld/bb_stages.h"

#include <chrono>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/truncate.h"

namespace skiff::ctld {
namespace {

std::string OpName(const std::string& function) {
  constexpr char kPrefix[] = "slurm_bb_";
  return function.rfind(kPrefix, 0) == 0 ? function.substr(sizeof(kPrefix) - 1) : function;
}

// The stages that copy or read the job's files run as the job's user, so that a
// job can stage only what its user may read and write (lua/README.md). Their
// second argument is the job script. setup, real_size and teardown manage the
// pool and run with scriptd's privileges.
bool TouchesUserData(const std::string& function) {
  for (const char* name : {"slurm_bb_data_in", "slurm_bb_test_data_in", "slurm_bb_pre_run",
                           "slurm_bb_post_run", "slurm_bb_data_out", "slurm_bb_test_data_out"}) {
    if (function == name) return true;
  }
  return false;
}

}  // namespace

BbStageResult RunBbStage(ScriptdPort& scripts, const BbRuntime& bb, const Job& job, BbStage stage,
                         bool hurry, const std::function<bool()>& abandoned) {
  const BurstBufferConfig config = bb.config();
  const std::string id = absl::StrCat(job.id);
  const std::string uid = absl::StrCat(job.uid);
  const std::string gid = absl::StrCat(job.gid);
  const std::string script = bb.JobScriptPath(job.id);
  int attempt = 0;
  BbStageResult result;
  // One hook; false (and `result` says why) when it failed or was killed.
  auto call = [&](const std::string& function, std::vector<std::string> args,
                  int64_t timeout) -> std::optional<LuaEnd> {
    LuaCall lua = bb.StageCall(job, function, std::move(args), timeout, attempt++);
    if (TouchesUserData(function)) {
      lua.run_as_uid = job.uid;
      lua.run_as_gid = job.gid;
    }
    absl::StatusOr<LuaEnd> reply = scripts.RunLua(lua);
    std::string failure;
    if (!reply.ok()) {
      failure = std::string(reply.status().message());
    } else if (reply->killed) {
      result.killed = true;
      failure = "killed";
    } else if (reply->timed_out) {
      failure = absl::StrCat("timed out after ", timeout, " seconds");
    } else if (reply->rc != 0) {
      failure = reply->message.empty() ? absl::StrCat("rc=", reply->rc) : reply->message;
    } else {
      return *reply;
    }
    result.ok = false;
    // The job's Reason: the hook's words, bounded (scriptd passes up to 1 MiB).
    result.error =
        absl::StrCat("burst_buffer/lua: ", OpName(function), " failed: ", TruncateMessage(failure));
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
      std::optional<LuaEnd> reply = call(function, {id, script, uid, gid}, left);
      if (!reply) return false;
      if (reply->message != kBbLuaBusy) return true;
      if (abandoned()) {
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
      if (abandoned()) return {false, true, "cancelled", 0};
      if (!call("slurm_bb_data_in", {id, script, uid, gid}, config.stage_in_timeout)) {
        return result;
      }
      if (!poll("slurm_bb_test_data_in", config.stage_in_timeout)) return result;
      if (!job.bb_pool.empty() && job.bb_size > 0) {
        std::optional<LuaEnd> real =
            call("slurm_bb_real_size", {id, uid, gid}, config.other_timeout);
        if (!real) return result;
        uint64_t bytes = 0;
        if (!real->message.empty() && absl::SimpleAtoi(real->message, &bytes)) {
          result.real_size = bytes;
        }
      }
      return result;
    }
    case BbStage::kPreRun:
      call("slurm_bb_pre_run", {id, script, uid, gid}, config.other_timeout);
      return result;
    case BbStage::kPostRun:
      call("slurm_bb_post_run", {id, script, uid, gid}, config.other_timeout);
      return result;
    case BbStage::kStageOut:
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

}  // namespace skiff::ctld
