// Controller: job steps as their step managers report them (see
// ctld/core/accounting/step_book.h).
// ctld stores and shows steps; it never creates or schedules them.
#include <algorithm>
#include <set>

#include "ctld/controller.h"
#include "ctld/core/accounting/batch_step.h"

namespace skiff::ctld {

absl::Status Controller::ReportSteps(const std::string& node_name,
                                     const std::vector<std::pair<uint64_t, StepRecord>>& reports) {
  // Jobs that left ctld's memory (MinJobAge) are asked of the store, outside
  // the lock, before the event.
  std::set<uint64_t> gone;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& report : reports) {
      if (core_.Find(report.first) == nullptr) gone.insert(report.first);
    }
  }
  std::map<uint64_t, std::string> stored_first_nodes;
  if (!gone.empty()) {
    JobQuery query;
    query.ids.assign(gone.begin(), gone.end());
    absl::StatusOr<std::vector<Job>> stored = store_.QueryJobs(query);
    if (!stored.ok()) return stored.status();
    for (const Job& job : *stored) {
      if (!job.nodes.empty()) stored_first_nodes[job.id] = job.nodes.front();
    }
  }
  return Commit([&](Lifecycle& core, int64_t now) -> absl::StatusOr<Effects> {
    return core.ReportSteps(node_name, reports, stored_first_nodes, now);
  });
}

std::vector<JobStep> Controller::SnapshotSteps(const std::vector<JobRef>& refs) {
  std::vector<Job> jobs = SnapshotJobs(refs);
  std::set<uint64_t> running;
  for (const Job& job : jobs) {
    if (job.state == JobState::kRunning) running.insert(job.id);
  }
  std::vector<std::pair<uint64_t, StepRecord>> steps;
  {
    absl::MutexLock lock(&mu_);
    steps = core_.state().steps().Running(&running);
  }
  std::vector<JobStep> out;
  auto info = [](const Job& job, StepRecord step) {
    JobStep i;
    i.job_id = job.id;
    i.array_job_id = job.array_job_id;
    i.array_task_id = job.array_task_id;
    i.uid = job.uid;
    i.user = job.user_name;
    i.partition = job.request.partition;
    i.step = std::move(step);
    return i;
  };
  size_t next = 0;  // steps are by job id, as the snapshot is
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.id < b.id; });
  for (const Job& job : jobs) {
    if (running.count(job.id) == 0) continue;
    if (job.progress.launched && !job.interactive) {
      StepRecord batch = BatchStep(job, job.suspended_total);
      batch.state = "RUNNING";
      out.push_back(info(job, std::move(batch)));
    }
    while (next < steps.size() && steps[next].first < job.id) ++next;
    for (; next < steps.size() && steps[next].first == job.id; ++next) {
      out.push_back(info(job, steps[next].second));
    }
  }
  return out;
}

absl::Status Controller::SignalStep(const Caller& caller, uint64_t job_id, uint32_t step_id,
                                    int signal) {
  std::string target;
  {
    absl::MutexLock lock(&mu_);
    const Job* job = core_.Find(job_id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    if (job->uid != caller.uid && !IsPrivileged(caller.uid)) {
      return absl::PermissionDeniedError("Access/permission denied");
    }
    if (job->state != JobState::kRunning || job->nodes.empty()) {
      return absl::NotFoundError("Job/step already completing or completed");
    }
    target = core_.NodeTarget(job->nodes.front());
  }
  if (target.empty()) return absl::NotFoundError("Job/step already completing or completed");
  return node_client_.SignalStep(target, job_id, step_id, signal);
}

absl::Status Controller::NotifyJob(const Caller& caller, uint64_t job_id,
                                   const std::string& message) {
  std::string target;
  {
    absl::MutexLock lock(&mu_);
    const Job* job = core_.Find(job_id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    if (job->uid != caller.uid && !IsPrivileged(caller.uid)) {
      return absl::PermissionDeniedError("Access/permission denied");
    }
    if (IsFinal(job->state) || job->state == JobState::kCompleting) {
      return absl::FailedPreconditionError("Job/step already completing or completed");
    }
    // Slurm sends to salloc/srun when they wait for the allocation; Skiff's
    // do not listen, and a pending batch job has no output yet.
    if (job->state != JobState::kRunning || job->interactive || job->nodes.empty()) {
      return absl::FailedPreconditionError("Requested operation is presently disabled");
    }
    target = core_.NodeTarget(job->nodes.front());
  }
  if (target.empty())
    return absl::FailedPreconditionError("Requested operation is presently disabled");
  return node_client_.NotifyJob(target, job_id, message);
}

}  // namespace skiff::ctld
