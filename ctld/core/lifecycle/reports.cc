// What the nodes and the dispatcher report back: a job's end on its node
// (JobComplete), and the outcomes of PrologSlurmctld, the launch and
// EpilogSlurmctld.
#include <signal.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {

void Lifecycle::ApplyReport(Job& job, const NodeRunReport& report, int64_t now, Effects& effects) {
  if (report.finished && report.run != 0 && report.run != job.restart_count + 1) {
    // The end of an earlier run of a requeued job, sent again after the job
    // started anew (on this node): it says nothing about the current run.
    effects.log.push_back(absl::StrCat("JobId=", job.id, " ignored the end of run ", report.run,
                                       " (now run ", job.restart_count + 1, ")"));
    return;
  }
  if (job.state == JobState::kConfiguring) {
    // The node finished (or holds) the job before the launch reply reached us.
    job.progress.launched = true;
    if (!TransitionJob(job, JobEvent::kLaunched, effects)) return;
  }
  if (!report.finished) return;
  // The node's Epilog failed: Slurm drains the node; the job's result stands.
  if (!report.epilog_error.empty() && !job.nodes.empty()) {
    effects.log.push_back(absl::StrCat("JobId=", job.id, " Epilog error on NodeName=",
                                       job.nodes.front(), ": ", report.epilog_error));
    DrainNode(job.nodes.front(), "Epilog error", now, effects);
  }
  for (const auto& [node, error] : report.node_epilog_errors) {
    if (!absl::c_linear_search(job.nodes, node))
      continue;  // not the job's: nothing to say about it
    effects.log.push_back(
        absl::StrCat("JobId=", job.id, " Epilog error on NodeName=", node, ": ", error));
    DrainNode(node, "Epilog error", now, effects);
  }
  // Already recorded otherwise. (A suspended job ends when it is killed.)
  if (job.state != JobState::kRunning && job.state != JobState::kSuspended) return;
  if (!report.prolog_error.empty()) {
    // Slurm: the node drains ("Prolog error") and the job is requeued held.
    const std::string node = job.nodes.front();
    effects.log.push_back(absl::StrCat("JobId=", job.id, " Prolog error on NodeName=", node, ": ",
                                       report.prolog_error));
    DrainNode(node, "Prolog error", now, effects);
    job.reason_detail = absl::StrCat("Prolog error on NodeName=", node, ": ", report.prolog_error);
    job.exit_code = 1;
    if (RequeueOrEndOnNodeFailure(job, absl::StrCat("requeued: Prolog error on NodeName=", node),
                                  now, effects)) {
      // What Slurm shows; the Prolog's words are in ctld's log and the node's.
      job.held = true;
      job.reason = "launch failed requeued held";
      job.reason_detail = "launch failed requeued held";
    }
    return;
  }
  if (report.fenced) {
    // The node lost touch with ctld long enough for its lease to run out, though
    // not for SlurmdTimeout: as after a node failure, but the run is known dead.
    effects.log.push_back(absl::StrCat("JobId=", job.id, " ", report.failure));
    job.reason_detail = report.failure;
    job.exit_code = report.exit_code;
    job.exit_signal = report.exit_signal;
    RequeueOrEndOnNodeFailure(job, absl::StrCat("requeued: fenced on NodeName=", job.nodes.front()),
                              now, effects);
    return;
  }
  job.exit_code = report.exit_code;
  job.exit_signal = report.exit_signal;
  job.batch_usage = report.usage;
  job.gpu_usage = report.gpus;
  // The batch host's own GPUs come unnamed; its other nodes' are named.
  for (GpuUsage& gpu : job.gpu_usage) {
    if (gpu.node.empty() && !job.nodes.empty()) gpu.node = job.nodes.front();
  }
  if (!report.failure.empty()) {
    job.reason_detail = report.failure;
    job.final_state = JobState::kFailed;
  } else if (job.final_state == JobState::kCompleted && report.out_of_memory) {
    job.final_state = JobState::kOutOfMemory;  // as Slurm, whatever the script's exit code
  } else if (job.final_state == JobState::kCompleted &&
             (report.exit_code != 0 || report.exit_signal != 0)) {
    job.final_state = JobState::kFailed;
  }
  // Slurm's reason for how the run ended (job_complete): a script killed by a
  // signal counts as a launch failure there too.
  switch (job.final_state) {
    case JobState::kFailed:
      job.reason =
          report.failure.empty() && report.exit_code != 0 ? "NonZeroExitCode" : "JobLaunchFailure";
      break;
    case JobState::kOutOfMemory:
      job.reason = "OutOfMemory";
      break;
    case JobState::kTimeout:
      job.reason = "TimeLimit";
      break;
    case JobState::kCompleted:
    case JobState::kCancelled:
    case JobState::kNodeFail:
    case JobState::kPreempted:
    case JobState::kDeadline:
      break;  // the reason stays as it is
    case JobState::kPending:
    case JobState::kConfiguring:
    case JobState::kRunning:
    case JobState::kCompleting:
    case JobState::kSuspended:
      break;  // not final: never a final_state
  }
  if (TransitionJob(job, JobEvent::kExited, effects)) ReleaseAndRunEpilog(job, now, effects);
}

absl::StatusOr<Effects> Lifecycle::JobComplete(const std::string& node_name,
                                               const NodeRunReport& report, int64_t now) {
  state_.Begin();
  const Job* job = Find(report.job_id);
  // Purged long ago, or already recorded (a repeated report): nothing to do.
  if (job == nullptr || !HoldsResources(job->state)) return state_.Close(Effects{});
  if (job->nodes.empty() || job->nodes.front() != node_name) {
    Rollback();
    return absl::FailedPreconditionError(
        absl::StrCat("JobId=", report.job_id, " does not run on NodeName=", node_name));
  }
  Effects effects;
  NodeRunReport finished = report;
  finished.finished = true;
  ApplyReport(state_.Mut(report.job_id), finished, now, effects);
  return state_.Close(std::move(effects));
}

// Whether a prolog or launch report is about the job's current start: the job
// is still CONFIGURING in the same run (not requeued, cancelled or gone since).
bool Lifecycle::StillStarting(uint64_t job_id, int restart_count) const {
  const Job* job = Find(job_id);
  return job != nullptr && job->state == JobState::kConfiguring &&
         job->restart_count == restart_count;
}

Effects Lifecycle::PrologDone(uint64_t job_id, int restart_count, const ScriptOutcome& outcome,
                              int64_t now) {
  state_.Begin();
  Effects effects;
  if (!StillStarting(job_id, restart_count)) {
    return state_.Close(std::move(effects));  // stale: the job moved on meanwhile
  }
  Job& job = state_.Mut(job_id);
  if (outcome.ran) {
    effects.log.push_back(absl::StrCat("JobId=", job_id, " PrologSlurmctld ", outcome.description,
                                       " (pid ", outcome.pid, ")"));
  }
  if (!outcome.succeeded) {
    // Slurm requeues a job whose PrologSlurmctld fails and holds it.
    ReleaseResources(job, now, effects);
    if (TransitionJob(job, JobEvent::kPrologFailed, effects)) {
      ++job.restart_count;
      job.held = true;
      job.held_by_admin = true;
      job.reason = "JobHeldAdmin";
      job.reason_detail = absl::StrCat("PrologSlurmctld failed: ", outcome.description);
      job.nodes.clear();
      job.gpu_indices.clear();
      job.gpus_by_node.clear();
      job.shares_by_node.clear();
      job.cpu_ids_by_node.clear();
      job.alloc_tres.clear();
      job.start_time = 0;
      job.progress.prolog_done = false;
    }
    effects.reschedule = true;
  } else {
    job.progress.prolog_done = true;
    ContinueStart(job, now, effects);
  }
  return state_.Close(std::move(effects));
}

Effects Lifecycle::LaunchDone(uint64_t job_id, int restart_count, const absl::Status& status,
                              int64_t now, LaunchBlame blame) {
  state_.Begin();
  Effects effects;
  if (!StillStarting(job_id, restart_count)) {
    return state_.Close(
        std::move(effects));  // already running (a node report won the race) or gone
  }
  Job& job = state_.Mut(job_id);
  if (status.ok()) {
    job.progress.launched = true;
    TransitionJob(job, JobEvent::kLaunched, effects);
    if (job.progress.cancel_requested) Terminate(job, job.final_state, effects);
  } else if (blame == LaunchBlame::kNode) {
    LaunchFailedOnNode(job, status, now, effects);
  } else {
    job.reason_detail =
        absl::StrCat("launch failed on ", job.nodes.front(), ": ", status.message());
    job.final_state = JobState::kFailed;
    job.reason = "JobLaunchFailure";
    job.exit_code = 1;
    if (TransitionJob(job, JobEvent::kAbort, effects)) ReleaseAndRunEpilog(job, now, effects);
  }
  return state_.Close(std::move(effects));
}

void Lifecycle::LaunchFailedOnNode(Job& job, const absl::Status& status, int64_t now,
                                   Effects& effects) {
  const std::string node_name = job.nodes.front();
  const std::string why = absl::StrCat("batch job launch failure on NodeName=", node_name);
  effects.log.push_back(absl::StrCat("JobId=", job.id, " ", why, ": ", status.message()));
  // Slurm's reason for a node that failed a batch launch; the detail is in the log.
  DrainNode(node_name, "batch job launch failure", now, effects);
  // A launch that timed out may have started the script after all: stop it, so
  // that it never runs beside its requeued copy.
  effects.intents.push_back(MakeTerminate(job));
  job.reason_detail = why;
  job.exit_code = 1;
  if (!RequeueOrEndOnNodeFailure(job, absl::StrCat("requeued: ", why), now, effects)) return;
  if (job.restart_count > kMaxBatchRequeue) {
    // Slurm's JOB_REQUEUE_HOLD after MaxBatchRequeue launch failures.
    job.held = true;
    job.reason = "launch failed requeued held";
    job.reason_detail = "launch failure limit exceeded requeued held";
  }
}

Effects Lifecycle::EpilogDone(uint64_t job_id, const ScriptOutcome& outcome, int64_t now) {
  state_.Begin();
  Effects effects;
  const Job* current = Find(job_id);
  if (current == nullptr || current->state != JobState::kCompleting) {
    return state_.Close(std::move(effects));
  }
  effects.log.push_back(
      absl::StrCat("JobId=", job_id, " EpilogSlurmctld ", outcome.description,
                   outcome.ran ? absl::StrCat(" (pid ", outcome.pid, ")") : std::string()));
  AfterEpilog(state_.Mut(job_id), now, effects);
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
