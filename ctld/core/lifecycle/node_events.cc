// Node events: registration, heartbeats, scontrol update node, node timeouts,
// and what a node going down does to the jobs on it.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {
namespace {

// How long a freshly launched job may be missing from its node's report before
// ctld believes the node lost it (the launch RPC may still be in flight).
constexpr int64_t kLaunchGraceSeconds = 10;

}  // namespace

bool Lifecycle::KeepsRunningWithout(const Job& job, const std::string& node_name) {
  // Being stopped already (cancelled, preempted, requeued): it ends as it was
  // going to.
  return job.no_kill && job.nodes.size() > 1 && job.nodes.front() != node_name &&
         (job.state == JobState::kRunning || job.state == JobState::kSuspended) &&
         job.final_state == JobState::kCompleted &&
         job.progress.requeue_request == Job::RequeueRequest::kNone;
}

void Lifecycle::DropFailedNode(Job& job, const std::string& node_name, int64_t now,
                               Effects& effects) {
  const size_t k = static_cast<size_t>(std::find(job.nodes.begin(), job.nodes.end(), node_name) -
                                       job.nodes.begin());
  state_.MutNodes().Release(job.id, {node_name}, {job.CpusOn(k)}, {job.MemOnMb(k)}, now);
  auto drop = [k](auto& per_node) {
    if (k < per_node.size()) per_node.erase(per_node.begin() + static_cast<std::ptrdiff_t>(k));
  };
  drop(job.nodes);
  drop(job.cpus_by_node);
  drop(job.mem_by_node_mb);
  drop(job.tasks_by_node);
  drop(job.gpus_by_node);
  drop(job.shares_by_node);
  drop(job.cpu_ids_by_node);
  // Slurm's words: "Removing failed node n2 from JobId=5".
  effects.log.push_back(
      absl::StrCat("Removing failed node ", node_name, " from JobId=", job.id, " (--no-kill)"));
}

void Lifecycle::NodeDown(const std::string& node_name, int64_t now, Effects& effects) {
  for (auto& [id, stored] : state_.jobs()) {
    if (!HoldsResources(stored.state) || !absl::c_linear_search(stored.nodes, node_name)) continue;
    Job& job = state_.Mut(id);
    if (KeepsRunningWithout(job, node_name)) {
      DropFailedNode(job, node_name, now, effects);
      continue;
    }
    // The batch script may still run on a healthy batch host: stop it there.
    if (job.progress.launched && job.nodes.front() != node_name) {
      effects.intents.push_back(MakeTerminate(job));
    }
    RequeueOrEndOnNodeFailure(job, absl::StrCat("requeued: NodeName=", node_name, " failed"), now,
                              effects);
  }
  effects.reschedule = true;
}

absl::StatusOr<Effects> Lifecycle::RegisterNode(const NodeRegistration& registration,
                                                const std::vector<NodeRunReport>& reports,
                                                int64_t now,
                                                std::vector<uint64_t>* jobs_to_terminate,
                                                std::vector<NodeChange>* changes) {
  state_.Begin();
  Effects effects;
  absl::Status status = state_.MutNodes().Register(registration, now, settings_.config_overrides,
                                                   changes, config_->return_to_service);
  if (!status.ok()) {
    Rollback();
    return status;
  }
  std::set<uint64_t> reported;
  for (const NodeRunReport& report : reports) {
    reported.insert(report.job_id);
    const Job* job = Find(report.job_id);
    const bool ours = job != nullptr && !job->nodes.empty() &&
                      job->nodes.front() == registration.node_name && HoldsResources(job->state);
    if (!ours) {
      if (!report.finished) jobs_to_terminate->push_back(report.job_id);
      continue;
    }
    Job& mine = state_.Mut(report.job_id);
    ApplyReport(mine, report, now, effects);
  }
  // Jobs ctld believes run on this node but the node does not know: lost.
  for (auto& [id, stored] : state_.jobs()) {
    if ((stored.state != JobState::kRunning && stored.state != JobState::kSuspended) ||
        stored.nodes.empty() || stored.nodes.front() != registration.node_name ||
        reported.count(id) > 0 || now - stored.start_time < kLaunchGraceSeconds) {
      continue;
    }
    Job& job = state_.Mut(id);
    effects.log.push_back(absl::StrCat(
        "JobId=", id, " is not known to NodeName=", registration.node_name, " any more"));
    job.exit_code = 0;
    if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
    if (TransitionJob(job, JobEvent::kExited, effects)) ReleaseAndRunEpilog(job, now, effects);
  }
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

bool Lifecycle::Heartbeat(const std::string& node_name, int64_t now,
                          std::vector<NodeChange>* changes, const ReportedLoad& load) {
  return state_.UnjournaledNodes().Heartbeat(node_name, now, changes, load);
}

absl::StatusOr<Effects> Lifecycle::UpdateNodes(const std::vector<std::string>& names,
                                               const std::string& state, const std::string& reason,
                                               uint32_t by, int64_t now,
                                               std::vector<NodeChange>* changes) {
  state_.Begin();
  Effects effects;
  for (const std::string& name : names) {
    absl::Status status = state_.MutNodes().AdminUpdate(name, state, reason, by, now, changes);
    if (!status.ok()) {
      Rollback();
      changes->clear();
      return status;
    }
  }
  for (const NodeChange& change : *changes) {
    if (change.went_down) NodeDown(change.node_name, now, effects);
  }
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

Effects Lifecycle::CheckNodeTimeouts(int64_t now, std::vector<NodeChange>* changes) {
  state_.Begin();
  Effects effects;
  state_.MutNodes().CheckTimeouts(now, config_->heartbeat_interval, config_->slurmd_timeout,
                                  changes);
  for (const NodeChange& change : *changes) {
    if (change.went_down) NodeDown(change.node_name, now, effects);
  }
  return state_.Close(std::move(effects));
}

void Lifecycle::DrainNode(const std::string& node_name, const std::string& reason, int64_t now,
                          Effects& effects) {
  std::vector<NodeChange> changes;
  if (const Node* node = state_.nodes().Find(node_name); node != nullptr && !node->drain) {
    absl::Status drained =
        state_.MutNodes().AdminUpdate(node_name, "DRAIN", reason, std::nullopt, now, &changes);
    if (drained.ok()) {
      for (const NodeChange& change : changes) {
        effects.log.push_back(absl::StrCat("NodeName=", change.node_name, " ", change.what));
      }
    }
  }
}

}  // namespace skiff::ctld
