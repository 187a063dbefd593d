#include "noded/steps/step_manager.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace skiff {

absl::StatusOr<StepGrant> StepManager::CreateStep(
    uint64_t job_id, const std::vector<StepNode>& nodes, const StepAsk& ask, bool immediate,
    const std::function<void(const std::string&)>& waiting, const std::function<bool()>& give_up) {
  bool told = false;
  std::optional<StepGrant> granted;
  while (!granted) {
    std::string reason;
    {
      absl::MutexLock lock(&mu_);
      std::unique_ptr<JobSteps>& job = jobs_[job_id];
      // A requeued job may come back with another allocation.
      if (!job || (job->running == 0 && !(job->pool.nodes() == nodes))) {
        job = std::make_unique<JobSteps>(nodes);
      }
      const StepPlan plan = job->pool.Plan(ask);
      if (plan.fit == StepFit::kNever) return absl::FailedPreconditionError(plan.reason);
      if (plan.fit == StepFit::kNow) {
        job->pool.Take(plan.share);
        ++job->running;
        granted = StepGrant{job->next_step_id++, plan.share, job->pool.nodes()};
        break;
      }
      if (immediate) return absl::UnavailableError(plan.reason);
      reason = plan.reason;
      if (told) {
        // Wait for a step to end (or, now and then, to poll give_up).
        struct Since {
          const uint64_t* releases;
          uint64_t seen;
        } since{&releases_, releases_};
        mu_.AwaitWithTimeout(absl::Condition(
                                 +[](Since* s) { return *s->releases != s->seen; }, &since),
                             absl::Milliseconds(100));
      }
    }
    if (!told) {
      waiting(reason);
      told = true;
    }
    if (give_up()) return absl::UnavailableError("the step's caller or job went away");
  }
  // The durable id, outside the lock (it writes a file).
  if (next_id_) {
    if (absl::StatusOr<uint32_t> id = next_id_(job_id); id.ok()) granted->step_id = *id;
  }
  return *granted;
}

void StepManager::EndStep(uint64_t job_id, const StepGrant& grant) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  it->second->pool.Give(grant.share);
  --it->second->running;
  ++releases_;
}

void StepManager::ForgetEndedJobs(const std::function<bool(uint64_t)>& running) {
  std::vector<uint64_t> idle;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, job] : jobs_) {
      if (job->running == 0) idle.push_back(id);
    }
  }
  std::vector<uint64_t> ended;
  for (uint64_t id : idle) {
    if (!running(id)) ended.push_back(id);
  }
  absl::MutexLock lock(&mu_);
  for (uint64_t id : ended) {
    auto it = jobs_.find(id);
    if (it != jobs_.end() && it->second->running == 0) jobs_.erase(it);
  }
}

size_t StepManager::Pools() {
  absl::MutexLock lock(&mu_);
  return jobs_.size();
}

int StepManager::RunningSteps(uint64_t job_id) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? 0 : it->second->running;
}

}  // namespace skiff
