// The Controller's burst-buffer I/O (burst_buffer/lua): running a stage's
// hooks in scriptd (RunBbStage, from the dispatcher's burst-buffer queue),
// polling slurm_bb_pools, and scontrol show burst/bbstat.
// Every decision (which stage, when, what a result means) is the lifecycle
// core's (ctld/core/lifecycle/lifecycle_bb.cc).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/truncate.h"
#include "ctld/bb_stages.h"
#include "ctld/controller.h"
#include "ctld/core/burst_buffer/directives.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {

void Controller::PollBbPools() {
  if (bb_ == nullptr) return;
  absl::StatusOr<std::vector<BbPoolDef>> pools = bb_->Pools();
  if (!pools.ok()) {
    logger_.error("burst_buffer/lua: slurm_bb_pools: {}", std::string(pools.status().message()));
    return;
  }
  // (A rollback restores the pool tables it journaled.)
  ChangeOutsideEvents([&](Lifecycle& core) { core.SetBbPools(*pools); });
}

absl::Status Controller::EnsureBbJobScript(const Job& job) {
  if (access(bb_->JobScriptPath(job.id).c_str(), F_OK) == 0) return absl::OkStatus();
  absl::StatusOr<std::string> stored = StoredSpec(job);
  if (!stored.ok()) return stored.status();
  const v1::JobSpec spec = JoinSpec(job.spec_blob, *stored);
  const std::vector<std::string> lines = absl::StrSplit(job.bb_directives, '\n', absl::SkipEmpty());
  logger_.info("JobId={}: writing its burst-buffer job_script again from the stored spec", job.id);
  return bb_->WriteJobScript(
      job.id, MergeBbDirectivesIntoScript(
                  RemoveBbDirectives(spec.script(), bb_->config().directive), lines));
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
  snapshot.pools = core_.state().bb_pools().pools();
  for (const auto& [id, allocation] : core_.state().bb_pools().allocations()) {
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
  absl::StatusOr<LuaEnd> reply = scripts_.RunLua(bb_->StatusCall(caller.uid, caller.gid, words));
  if (!reply.ok()) return reply.status();
  if (reply->timed_out) return absl::DeadlineExceededError("slurm_bb_get_status timed out");
  if (reply->rc != 0) {
    return absl::InternalError(reply->message.empty() ? "slurm_bb_get_status failed"
                                                      : TruncateMessage(reply->message));
  }
  return reply->message;
}

}  // namespace skiff::ctld
