// Controller: job steps as their step managers report them (see step_book.h).
// ctld stores and shows steps; it never creates or schedules them.
#include <algorithm>
#include <set>

#include "ctld/controller.h"
#include "ctld/rpc/acct_convert.h"

namespace skiff {

absl::Status Controller::ReportSteps(
    const std::string& node_name, const std::vector<std::pair<uint64_t, v1::AcctStep>>& reports) {
  // Only the job's step manager speaks for its steps: the job's first node.
  std::set<uint64_t> ids;
  for (const auto& report : reports) ids.insert(report.first);
  std::map<uint64_t, std::string> first_node;
  std::vector<uint64_t> gone;  // left ctld's memory (MinJobAge): ask the store
  {
    absl::MutexLock lock(&mu_);
    for (uint64_t id : ids) {
      const Job* job = core_.Find(id);
      if (job == nullptr) {
        gone.push_back(id);
      } else if (!job->nodes.empty()) {
        first_node[id] = job->nodes.front();
      }
    }
  }
  if (!gone.empty()) {
    JobQuery query;
    query.ids = gone;
    absl::StatusOr<std::vector<Job>> stored = store_.QueryJobs(query);
    if (!stored.ok()) return stored.status();
    for (const Job& job : *stored) {
      if (!job.nodes.empty()) first_node[job.id] = job.nodes.front();
    }
  }
  std::vector<RecordRow> rows;
  std::vector<std::pair<uint64_t, v1::AcctStep>> taken;
  for (const auto& [job_id, step] : reports) {
    auto it = first_node.find(job_id);
    if (it == first_node.end() || it->second != node_name || step.step_id().empty()) {
      logger_.warn("JobId={}: step {} reported by NodeName={}, not the job's step manager: dropped",
                   job_id, step.step_id(), node_name);
      continue;
    }
    rows.push_back(StepRecordRow(job_id, step));
    taken.emplace_back(job_id, step);
  }
  if (rows.empty()) return absl::OkStatus();
  if (absl::Status s = store_.Save({}, std::move(rows)); !s.ok()) return s;
  absl::MutexLock lock(&steps_mu_);
  for (const auto& [job_id, step] : taken) steps_.Apply(job_id, step);
  return absl::OkStatus();
}

std::vector<v1::StepInfo> Controller::SnapshotSteps(const std::vector<JobRef>& refs) {
  std::vector<Job> jobs = SnapshotJobs(refs);
  std::set<uint64_t> running;
  for (const Job& job : jobs) {
    if (job.state == JobState::kRunning) running.insert(job.id);
  }
  std::vector<std::pair<uint64_t, v1::AcctStep>> steps;
  {
    absl::MutexLock lock(&steps_mu_);
    steps = steps_.Running(&running);
  }
  std::vector<v1::StepInfo> out;
  auto info = [](const Job& job, v1::AcctStep step) {
    v1::StepInfo i;
    i.set_job_id(job.id);
    i.set_array_job_id(job.array_job_id);
    i.set_array_task_id(job.array_task_id);
    i.set_uid(job.uid);
    i.set_user(job.user_name);
    i.set_partition(job.request.partition);
    *i.mutable_step() = std::move(step);
    return i;
  };
  size_t next = 0;  // steps are by job id, as the snapshot is
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.id < b.id; });
  for (const Job& job : jobs) {
    if (running.count(job.id) == 0) continue;
    if (job.launched && !job.interactive) {
      v1::AcctStep batch = AcctBatchStep(job, job.suspended_total);
      batch.set_state("RUNNING");
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

void Controller::RetainStepsOfRunningJobs() {
  std::set<uint64_t> running;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, job] : core_.jobs()) {
      if (job.state == JobState::kRunning || job.state == JobState::kSuspended) running.insert(id);
    }
  }
  absl::MutexLock lock(&steps_mu_);
  steps_.Retain(running);
}

}  // namespace skiff
