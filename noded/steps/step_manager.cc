#include "noded/steps/step_manager.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace skiff::noded {

std::vector<std::pair<std::string, std::string>> StepNodeAddresses(const StepGrant& grant) {
  std::vector<std::pair<std::string, std::string>> nodes;
  for (const StepNodeShare& share : grant.share.nodes) {
    nodes.emplace_back(grant.nodes[share.node].name, grant.nodes[share.node].address);
  }
  return nodes;
}

int StepTaskCount(const StepGrant& grant) {
  size_t tasks = 0;
  for (const StepNodeShare& share : grant.share.nodes) tasks += share.task_ids.size();
  return static_cast<int>(tasks);
}

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

void StepManager::AddLive(uint64_t job_id, const StepGrant& grant, StepHandle* handle,
                          std::shared_ptr<StepWatchers> watchers) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;  // not a step of CreateStep's: nothing to reach
  it->second->live[grant.step_id] = std::make_shared<LiveEntry>(grant, std::move(watchers), handle);
}

void StepManager::EndStep(uint64_t job_id, const StepGrant& grant) {
  std::shared_ptr<LiveEntry> live;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    JobSteps& job = *it->second;
    if (auto entry = job.live.find(grant.step_id); entry != job.live.end()) {
      live = std::move(entry->second);
      job.live.erase(entry);
    }
    job.pool.Give(grant.share);
    --job.running;
    ++releases_;
  }
  if (live) {
    // Waits for a call on the handle under way; later ones find it gone.
    absl::MutexLock lock(&live->mu);
    live->handle = nullptr;
  }
}

std::shared_ptr<StepManager::LiveEntry> StepManager::LiveEntryOf(uint64_t job_id,
                                                                 uint32_t step_id) {
  absl::MutexLock lock(&mu_);
  auto job = jobs_.find(job_id);
  if (job == jobs_.end()) return nullptr;
  auto it = job->second->live.find(step_id);
  return it == job->second->live.end() ? nullptr : it->second;
}

std::optional<LiveStep> StepManager::FindLive(uint64_t job_id, uint32_t step_id) {
  std::shared_ptr<LiveEntry> live = LiveEntryOf(job_id, step_id);
  if (!live) return std::nullopt;
  return LiveStep{live->grant, live->watchers};
}

bool StepManager::ActOnLive(uint64_t job_id, uint32_t step_id,
                            const std::function<void(StepHandle&)>& act) {
  std::shared_ptr<LiveEntry> live = LiveEntryOf(job_id, step_id);
  if (!live) return false;
  absl::MutexLock lock(&live->mu);
  if (live->handle == nullptr) return false;  // ended since it was found
  act(*live->handle);
  return true;
}

int StepManager::SignalLive(uint64_t job_id, int sig) {
  std::vector<std::shared_ptr<LiveEntry>> steps;
  {
    absl::MutexLock lock(&mu_);
    auto job = jobs_.find(job_id);
    if (job == jobs_.end()) return 0;
    for (const auto& [id, live] : job->second->live) steps.push_back(live);
  }
  int signalled = 0;
  for (const std::shared_ptr<LiveEntry>& live : steps) {
    absl::MutexLock lock(&live->mu);
    if (live->handle == nullptr) continue;
    live->handle->Signal(sig);
    ++signalled;
  }
  return signalled;
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

}  // namespace skiff::noded
