// The lifecycle core's own part: configuration, reads, recovery, and the
// transitions every event builds on (start, the end-of-run chain, requeue,
// termination, preemption, node failure). The events themselves are in
// job_events.cc, node_events.cc and reports.cc; burst buffers in
// lifecycle_bb.cc, the scheduling pass in lifecycle_schedule.cc, admission in
// admission.cc, service units and usage in lifecycle_bank.cc.
#include "ctld/core/lifecycle/lifecycle.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checked_math.h"
#include "ctld/core/lifecycle/mail.h"
#include "ctld/core/run_charge.h"
#include "ctld/core/scheduler/priority.h"

namespace skiff::ctld {
namespace {

// sdiag's counters for one transition (effects.h's JobTally), with Slurm's
// meanings: a job counts as started when it is allocated, and once as
// completed, canceled or failed for each run (or pending life) that ends:
// when it reaches its final state, or when it goes back to pending after its
// run ended (completed), its node failed under it or its prolog failed.
void TallyTransition(JobState from, JobEvent event, JobState to, JobTally& tally) {
  switch (event) {
    case JobEvent::kAllocate:
      ++tally.started;
      return;
    case JobEvent::kPrologFailed:
      ++tally.failed;
      return;
    case JobEvent::kRequeue:
      if (from == JobState::kCompleting) {
        ++tally.completed;  // its run ended (preempted, scontrol requeue) before it went back
      } else if (!IsFinal(from)) {
        ++tally.failed;  // its node failed under it
      }
      return;  // a finished job requeued was counted when it finished
    case JobEvent::kCancelPending:
      ++tally.canceled;
      return;
    case JobEvent::kFinish:
      if (to == JobState::kCancelled) {
        ++tally.canceled;
      } else if (to == JobState::kNodeFail) {
        ++tally.failed;
      } else {
        ++tally.completed;
      }
      return;
    case JobEvent::kLaunched:
    case JobEvent::kAbort:
    case JobEvent::kExited:  // counted at kFinish
    case JobEvent::kSuspend:
    case JobEvent::kResume:
    case JobEvent::kMissDeadline:
      return;
  }
}

}  // namespace

Lifecycle::Lifecycle(const SkiffConfig& config, LifecycleSettings settings, int64_t started_at)
    : config_(&config), settings_(settings), state_(config, started_at) {
  next_job_id_ = static_cast<uint64_t>(std::max<int64_t>(1, config_->first_job_id));
}

void Lifecycle::SetConfig(const SkiffConfig& config, LifecycleSettings settings) {
  config_ = &config;
  settings_ = settings;
  // Nodes that joined, and joined nodes deleted (dynamic_nodes.h).
  state_.UnjournaledNodes().AddMissingNodes(config);
  state_.UnjournaledNodes().DropNodesNotIn(config);
  state_.UnjournaledNodes().SetPartitions(config);
  views_generation_ = ~uint64_t{0};  // AccountingStorageEnforce may have changed
  RefreshAccountingViews();
}

// ---------------------------------------------------------------- reads

std::vector<const Job*> Lifecycle::Resolve(const JobRef& ref) const {
  std::vector<const Job*> out;
  const Job* job = Find(ref.job_id);
  if (job == nullptr) return out;
  if (job->array_job_id != ref.job_id) {  // a plain job, or one task by its own id
    if (ref.array_task_id < 0) out.push_back(job);
    return out;
  }
  // An array's id: its tasks have consecutive ids from it.
  for (auto it = state_.jobs().find(ref.job_id);
       it != state_.jobs().end() && it->second.array_job_id == ref.job_id; ++it) {
    if (ref.array_task_id < 0 || it->second.array_task_id == ref.array_task_id) {
      out.push_back(&it->second);
    }
  }
  return out;
}

std::string Lifecycle::NodeTarget(const std::string& node_name) const {
  const Node* node = state_.nodes().Find(node_name);
  if (node == nullptr) return "";
  const std::string& addr = node->config.addr.empty() ? node->config.name : node->config.addr;
  const int port = node->port != 0          ? node->port
                   : node->config.port != 0 ? node->config.port
                                            : config_->slurmd_port;
  return absl::StrCat(addr, ":", port);
}

LaunchIntent Lifecycle::MakeLaunch(const Job& job) const {
  LaunchIntent launch{job, NodeTarget(job.nodes.front()), 0, {}};
  if (const Node* node = state_.nodes().Find(job.nodes.front())) {
    launch.node_real_memory_mb = node->config.real_memory_mb;
    if (!job.shares_by_node.empty()) {
      const size_t gpu = static_cast<size_t>(std::max(0, job.shares_by_node.front().gpu));
      if (gpu < node->gpu_shares.size()) launch.share_gpu_count = node->gpu_shares[gpu];
      launch.share_fenced = node->config.gpu_shares_fenced;
    }
  }
  for (const std::string& name : job.nodes) launch.node_targets.push_back(NodeTarget(name));
  return launch;
}

int64_t Lifecycle::TakeBasicPriority() {
  const int64_t place = next_basic_priority_;
  // Slurm's last_prio never goes below 1; after four billion jobs, all tie.
  if (next_basic_priority_ > 1) --next_basic_priority_;
  return place;
}

TerminateIntent Lifecycle::MakeTerminate(const Job& job) const {
  return {job.id, NodeTarget(job.nodes.front()), config_->kill_wait};
}

// ---------------------------------------------------------------- recovery

void Lifecycle::Load(std::vector<Job> jobs, uint64_t max_stored_id, StoredRecords records) {
  LoadAccounting(std::move(records.qos), std::move(records.accounts));
  for (const auto& [name, admin] : records.node_admin) {
    state_.UnjournaledNodes().RestoreAdminState(name, admin);
  }
  next_job_id_ = std::max(next_job_id_, max_stored_id + 1);
  for (const Job& job : jobs) {
    if (job.basic_priority > 0 && job.basic_priority <= next_basic_priority_) {
      next_basic_priority_ = job.basic_priority - 1;
    }
  }
  for (Job& job : jobs) {
    if (HoldsResources(job.state)) {
      Placement placement;
      placement.job_id = job.id;
      placement.nodes = job.nodes;
      placement.cpus = job.cpus_by_node;
      placement.mem_mb = job.mem_by_node_mb;
      placement.tasks = job.tasks_by_node;
      placement.gpu_indices =
          job.gpus_by_node.size() == job.nodes.size()
              ? job.gpus_by_node
              : std::vector<std::vector<int>>(job.nodes.size(), job.gpu_indices);
      if (job.shares_by_node.size() == job.nodes.size()) placement.shares = job.shares_by_node;
      // Jobs stored before ctld chose CPU ids get theirs now.
      if (job.cpu_ids_by_node.size() == job.nodes.size()) placement.cpu_ids = job.cpu_ids_by_node;
      job.cpu_ids_by_node = state_.UnjournaledNodes().Allocate(placement);
    }
    state_.Install(std::move(job));
  }
  state_.LoadUsage(std::move(records.usage));
  state_.LoadAssocUsage(std::move(records.assoc_usage));
  state_.LoadBank(std::move(records.bank));
  state_.LoadTriggers(std::move(records.triggers));
  state_.LoadAdvanceReservations(std::move(records.advance_reservations));
}

Effects Lifecycle::Resume(int64_t now) {
  state_.Begin();
  Effects effects;
  BbResume(effects);
  MailRules(state_, *config_).Resume(effects);
  for (auto& [id, stored] : state_.jobs()) {
    if (stored.state == JobState::kConfiguring) {
      effects.log.push_back(absl::StrCat("JobId=", id, " was CONFIGURING: resuming its start"));
      ContinueStart(state_.Mut(id), now, effects);
    } else if (stored.state == JobState::kCompleting) {
      effects.log.push_back(
          absl::StrCat("JobId=", id, " was COMPLETING: running its epilog again"));
      RunEpilog(state_.Mut(id), now, effects);
    }
  }
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

// ---------------------------------------------------------------- transitions

bool Lifecycle::TransitionJob(Job& job, JobEvent event, Effects& effects) {
  const JobState from = job.state;
  absl::StatusOr<std::string> line = Transition(job, event);
  effects.log.push_back(line.ok() ? std::move(*line) : std::string(line.status().message()));
  if (!line.ok()) return false;
  state_.TrackUnfinished(job);  // a requeued finished job is pending again
  TallyTransition(from, event, job.state, effects.tally);
  effects.transitions.push_back({job.id, from, job.state});
  MailRules(state_, *config_).OnTransition(job, from, event, effects);
  return true;
}

Lifecycle::StateCounts Lifecycle::CountPendingAndRunning() const {
  StateCounts counts;
  for (const auto& [id, job] : state_.unfinished()) {
    if (job->state == JobState::kPending) ++counts.pending;
    if (job->state == JobState::kRunning || job->state == JobState::kConfiguring) ++counts.running;
  }
  return counts;
}

std::vector<Lifecycle::LicenseUsage> Lifecycle::LicenseUsages() const {
  std::vector<LicenseUsage> out;
  for (const LicenseCount& license : config_->licenses)
    out.push_back({license.name, license.count, 0});
  for (const auto& [id, job] : state_.unfinished()) {
    if (!HoldsResources(job->state)) continue;
    for (const LicenseCount& held : job->request.licenses) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const LicenseUsage& u) { return u.name == held.name; });
      if (it == out.end()) it = out.insert(out.end(), {held.name, 0, 0});
      it->used += held.count;
    }
  }
  return out;
}

void Lifecycle::ReleaseResources(Job& job, int64_t now, Effects& effects) {
  state_.MutNodes().Release(job.id, job.nodes, job.cpus_by_node, job.mem_by_node_mb, now);
  ChargeRun(job, now, effects);
}

void Lifecycle::ContinueStart(Job& job, int64_t now, Effects& effects) {
  if (job.progress.cancel_requested) {
    if (TransitionJob(job, JobEvent::kAbort, effects)) ReleaseAndRunEpilog(job, now, effects);
    return;
  }
  if (BbBeforeLaunch(job, effects)) return;  // slurm_bb_pre_run first
  if (!job.progress.prolog_done && settings_.prolog) {
    effects.intents.push_back(RunPrologIntent{job});
    return;
  }
  job.progress.prolog_done = true;
  effects.intents.push_back(MakeLaunch(job));
}

void Lifecycle::ReleaseAndRunEpilog(Job& job, int64_t now, Effects& effects) {
  ReleaseResources(job, now, effects);
  state_.SetTerminateSent(job.id, false);
  RunEpilog(job, now, effects);
  effects.reschedule = true;
}

void Lifecycle::RunEpilog(Job& job, int64_t now, Effects& effects) {
  if (settings_.epilog) {
    effects.intents.push_back(RunEpilogIntent{job});
    return;
  }
  AfterEpilog(job, now, effects);
}

void Lifecycle::AfterEpilog(Job& job, int64_t now, Effects& effects) {
  if (BbBeforeFinish(job, effects)) return;  // stage-out first
  AfterStageOut(job, now, effects);
}

void Lifecycle::AfterStageOut(Job& job, int64_t now, Effects& effects) {
  if (job.final_state == JobState::kPreempted && job.progress.preempt_requeue) {
    Requeue(job, "requeued: preempted", now, effects);
    return;
  }
  if (job.progress.requeue_request != Job::RequeueRequest::kNone) {
    RequeueAfterTeardown(job, now, effects);
    return;
  }
  job.end_time = now;
  TransitionJob(job, JobEvent::kFinish, effects);  // the run was charged when it ended
}

void Lifecycle::Requeue(Job& job, const std::string& detail, int64_t now, Effects& effects) {
  // The run that ends here ends now: its REQUEUE (and FAIL) mail says its Run
  // time, as Slurm's does. A pending job shows no end, so it is cleared after.
  const bool run_ends = job.start_time != 0 && job.end_time < job.start_time;
  if (run_ends) job.end_time = now;
  const bool moved = TransitionJob(job, JobEvent::kRequeue, effects);
  if (run_ends) job.end_time = 0;
  if (!moved) return;
  ++job.restart_count;
  job.gpu_idle_warning.clear();
  job.nodes.clear();
  job.gpu_indices.clear();
  job.gpus_by_node.clear();
  job.shares_by_node.clear();
  job.cpu_ids_by_node.clear();
  job.alloc_tres.clear();
  job.progress = RunProgress{};
  job.cancelled_by = -1;
  job.warn_sent = false;
  job.suspend_time = 0;
  job.suspended_total = 0;
  job.final_state = JobState::kCompleted;
  job.exit_code = 0;
  job.exit_signal = 0;
  job.start_time = 0;
  job.reason = "None";
  job.reason_detail = detail;
  effects.reschedule = true;
}

void Lifecycle::Terminate(Job& job, JobState final_state, Effects& effects) {
  job.final_state = final_state;
  if (job.state == JobState::kConfiguring && !job.progress.launched) {
    // The prolog or launch is in flight; its report checks cancel_requested.
    job.progress.cancel_requested = true;
    return;
  }
  if (HoldsResources(job.state)) {
    state_.SetTerminateSent(job.id, true);
    effects.intents.push_back(MakeTerminate(job));
  }
}

void Lifecycle::Preempt(Job& job, bool requeue, int64_t grace_time, uint64_t preemptor, int64_t now,
                        Effects& effects) {
  job.progress.preempt_requeue = requeue;
  job.reason_detail = absl::StrCat("preempted by JobId=", preemptor);
  effects.log.push_back(absl::StrCat("JobId=", job.id, " preempted by JobId=", preemptor, " (",
                                     requeue ? "REQUEUE" : "CANCEL", ", GraceTime=", grace_time,
                                     ")"));
  if (grace_time <= 0 || job.state != JobState::kRunning || !job.progress.launched ||
      job.nodes.empty()) {
    Terminate(job, JobState::kPreempted, effects);
    return;
  }
  // GraceTime (Slurm's preempt.c): warned now, stopped when it ends
  // (EnforceTimeLimits). The warning is the job's own --signal when it has one
  // not yet sent (Slurm does so with SchedulerParameters=preempt_send_user_signal;
  // Skiff always, so a checkpointing job hears what it asked to hear), else
  // SIGTERM to the whole job.
  job.final_state = JobState::kPreempted;
  job.progress.preempt_stop_at = now + grace_time;
  SignalIntent warn{job.id, NodeTarget(job.nodes.front()), SIGTERM, SignalScope::kBatchAndSteps};
  if (job.warn_signal != 0 && !job.warn_sent) {
    job.warn_sent = true;
    warn.signal = job.warn_signal;
    warn.scope = job.warn_batch_only ? SignalScope::kBatchShell : SignalScope::kSteps;
  }
  effects.log.push_back(absl::StrCat("JobId=", job.id, " sent signal ", warn.signal, ", stopped ",
                                     grace_time, "s from now (GraceTime)"));
  effects.intents.push_back(std::move(warn));
}

bool Lifecycle::RequeueOrEndOnNodeFailure(Job& job, const std::string& detail, int64_t now,
                                          Effects& effects) {
  // Cancelled or preempted meanwhile: final_state already says how it ends.
  if (job.requeue && job.final_state == JobState::kCompleted) {
    ReleaseResources(job, now, effects);
    Requeue(job, detail, now, effects);
    return true;
  }
  if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
  const JobEvent event = job.state == JobState::kRunning || job.state == JobState::kSuspended
                             ? JobEvent::kExited
                             : JobEvent::kAbort;
  if (TransitionJob(job, event, effects)) ReleaseAndRunEpilog(job, now, effects);
  return false;
}

void Lifecycle::RequeueAfterTeardown(Job& job, int64_t now, Effects& effects) {
  const bool hold = job.progress.requeue_request == Job::RequeueRequest::kRequeueHold;
  Requeue(job, hold ? "job requeued in held state" : "", now, effects);
  if (hold) {
    job.held = true;
    job.reason = "JobHeldUser";
  }
}

}  // namespace skiff::ctld
