// GpuIdlePolicy's events (ctld/core/gpu_idle/gpu_watch.h): the heartbeats'
// figures of each running job's GPUs, and the warning and the action taken
// on a job whose GPUs stayed idle.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/time_format.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/lifecycle/mail.h"

namespace skiff::ctld {

void Lifecycle::ObserveJobGpus(const std::string& node_name,
                               const std::vector<JobGpuReport>& reports, int64_t now) {
  for (const JobGpuReport& report : reports) {
    const Job* job = state_.Find(report.job_id);
    // From a node of the job's (its batch host, or another where its steps
    // run); a late report of an ended run is old.
    if (job == nullptr || job->state != JobState::kRunning ||
        std::find(job->nodes.begin(), job->nodes.end(), node_name) == job->nodes.end()) {
      continue;
    }
    const GpuIdlePolicy* policy = GpuIdlePolicyFor(*config_, job->request.partition, job->qos);
    JobGpuReport named = report;
    named.node = node_name;
    named.batch_host = job->nodes.front() == node_name;
    ObserveGpus(named, policy != nullptr ? policy->threshold_percent : 0, now,
                &gpu_watch_[report.job_id]);
  }
}

const GpuWatch* Lifecycle::JobGpus(uint64_t job_id) const {
  auto it = gpu_watch_.find(job_id);
  return it == gpu_watch_.end() ? nullptr : &it->second;
}

Effects Lifecycle::EnforceGpuIdle(int64_t now) {
  state_.Begin();
  Effects effects;
  for (auto it = gpu_watch_.begin(); it != gpu_watch_.end();) {
    const Job* stored = state_.Find(it->first);
    if (stored == nullptr || stored->state != JobState::kRunning ||
        state_.terminate_sent(it->first)) {
      // Ended, or on its way out: its figures went with its end report.
      it = stored == nullptr || IsFinal(stored->state) ? gpu_watch_.erase(it) : std::next(it);
      continue;
    }
    GpuWatch& watch = it->second;
    const uint64_t id = it->first;
    ++it;
    const GpuIdlePolicy* policy =
        GpuIdlePolicyFor(*config_, stored->request.partition, stored->qos);
    if (policy == nullptr) continue;
    switch (NextIdleStep(*policy, watch, now)) {
      case IdleStep::kNone:
        // Busy again since its warning: left alone, and the warning goes.
        if (watch.warned_at == 0 && !stored->gpu_idle_warning.empty()) {
          state_.Mut(id).gpu_idle_warning.clear();
          effects.log.push_back(absl::StrCat("JobId=", id, " GPUs in use again"));
        }
        break;
      case IdleStep::kWarn: {
        watch.warned_at = now;
        const std::string warning = GpuIdleWarning(*policy, watch, FormatTimestamp);
        Job& job = state_.Mut(id);
        job.gpu_idle_warning = warning;
        effects.log.push_back(absl::StrCat("JobId=", id, " ", warning));
        MailRules(state_, *config_).OnGpuIdle(job, warning, now, effects);
        if (!job.interactive) {
          effects.intents.push_back(NotifyIntent{id, NodeTarget(job.nodes.front()), warning});
        }
        break;
      }
      case IdleStep::kAct: {
        Job& job = state_.Mut(id);
        const std::string reason = GpuIdleReason(*policy);
        job.reason = "GpuIdle";  // sacct's Reason; scontrol shows the words
        job.reason_detail = reason;
        job.gpu_idle_warning.clear();
        bool requeued = false;
        if (policy->action == GpuIdlePolicy::Action::kRequeue) {
          absl::Status s = RequeueOne(job, /*hold=*/false, now, effects);
          requeued = s.ok();
          if (!s.ok()) {
            effects.log.push_back(absl::StrCat("JobId=", id, " cannot be requeued (", s.message(),
                                               "): cancelled instead"));
          }
        }
        if (!requeued) {
          job.progress.requeue_request = Job::RequeueRequest::kNone;
          Terminate(job, JobState::kCancelled, effects);
        }
        effects.log.push_back(
            absl::StrCat("JobId=", id, " ", requeued ? "requeued" : "cancelled", ": ", reason));
        watch = GpuWatch{};
        break;
      }
    }
  }
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
