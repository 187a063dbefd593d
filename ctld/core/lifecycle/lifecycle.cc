// The lifecycle core's transactions, and the events of a job's run: node
// reports, cancel, update, time limits, prolog/launch/epilog reports, requeue,
// preemption and node failure. Burst buffers are in lifecycle_bb.cc, the
// scheduling pass in lifecycle_schedule.cc, admission in admission.cc.
#include "ctld/core/lifecycle/lifecycle.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checked_math.h"
#include "ctld/core/run_charge.h"
#include "ctld/core/scheduler/priority.h"

namespace skiff {
namespace {

// How long a freshly launched job may be missing from its node's report before
// ctld believes the node lost it (the launch RPC may still be in flight).
constexpr int64_t kLaunchGraceSeconds = 10;
constexpr char kUsageKind[] = "usage";
constexpr char kAssocUsageKind[] = "assoc_usage";

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

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
    default:
      return;  // launched, aborted, exited (counted at kFinish), suspend, resume, deadline
  }
}

void Place(std::set<uint64_t>& set, uint64_t id, bool member) {
  if (member) {
    set.insert(id);
  } else {
    set.erase(id);
  }
}

// Sets `id`'s membership, journaling what it was the first time in a transaction.
void SetMember(std::set<uint64_t>& set, std::map<uint64_t, bool>& journal, uint64_t id,
               bool member) {
  journal.try_emplace(id, set.count(id) > 0);
  Place(set, id, member);
}

bool HoldsResources(const Job& job) {
  return job.state == JobState::kConfiguring || job.state == JobState::kRunning ||
         job.state == JobState::kSuspended;
}

}  // namespace

const char* BbStageName(BbStage stage) {
  switch (stage) {
    case BbStage::kStageIn:
      return "stage-in";
    case BbStage::kPreRun:
      return "pre-run";
    case BbStage::kPostRun:
      return "post-run";
    case BbStage::kStageOut:
      return "stage-out";
    case BbStage::kTeardown:
      return "teardown";
  }
  return "?";
}

Lifecycle::Lifecycle(const SkiffConfig& config, LifecycleSettings settings, int64_t started_at)
    : config_(&config), settings_(settings), nodes_(config, started_at) {
  next_job_id_ = static_cast<uint64_t>(std::max<int64_t>(1, config_->first_job_id));
}

void Lifecycle::SetConfig(const SkiffConfig& config, LifecycleSettings settings) {
  config_ = &config;
  settings_ = settings;
  nodes_.AddMissingNodes(config);  // nodes that joined (dynamic_nodes.h)
  nodes_.SetPartitions(config);
}

// ---------------------------------------------------------------- transactions

void Lifecycle::Begin() {
  if (in_transaction()) {
    // Two events interleaved: the Controller's serialization of decisions is
    // broken, and a rollback could no longer be exact.
    std::abort();
  }
  journal_.emplace_back();
  journal_.back().frame = next_frame_++;
  journal_.back().open = true;
}

Lifecycle::Journal& Lifecycle::Open() {
  if (!in_transaction()) std::abort();  // REQUIRES violated
  return journal_.back();
}

Effects Lifecycle::Close(Effects effects) {
  Journal& frame = Open();
  for (const auto& [id, before] : frame.jobs) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    Job& job = it->second;
    job.version = before ? before->version + 1 : std::max<uint64_t>(job.version, 1);
    effects.rows.push_back(job);
  }
  // Drains, admin DOWNs and their reasons are stored with the event that set
  // or cleared them (an empty blob deletes the record).
  if (frame.nodes) {
    for (const Node& node : nodes_.nodes()) {
      const Node* before = frame.nodes->Find(node.config.name);
      const NodeAdminState now = nodes_.AdminStateOf(node);
      const NodeAdminState was =
          before != nullptr ? frame.nodes->AdminStateOf(*before) : NodeAdminState{};
      if (now != was) {
        effects.records.push_back(
            {kNodeAdminKind, node.config.name, now.empty() ? "" : FormatNodeAdminState(now)});
      }
    }
  }
  if (frame.Empty()) {
    // Nothing to put back: no frame to wait for (a pass that changed nothing).
    journal_.pop_back();
    effects.frame = 0;
  } else {
    frame.open = false;
    effects.frame = frame.frame;
  }
  return effects;
}

bool Lifecycle::Journal::Empty() const {
  return jobs.empty() && !nodes && !bb_pools && usage.empty() && bank_used.empty() &&
         assoc_usage.empty() && bb_busy.empty() && terminate_sent.empty() &&
         reservations_taken.empty();
}

void Lifecycle::Confirm(uint64_t frame) {
  ConfirmWhere([frame](uint64_t f) { return f == frame; });
}

void Lifecycle::Confirm() {
  ConfirmWhere([](uint64_t) { return true; });
}

void Lifecycle::ConfirmWhere(const std::function<bool(uint64_t frame)>& chosen) {
  for (Journal& pending : journal_) {
    if (!pending.open && chosen(pending.frame)) pending.confirmed = true;
  }
  // Before-images go only once every earlier frame has ended too.
  while (!journal_.empty() && journal_.front().confirmed) journal_.pop_front();
}

void Lifecycle::RollbackFrom(uint64_t frame) {
  while (!journal_.empty() && journal_.back().frame >= frame) {
    Restore(journal_.back());
    journal_.pop_back();
  }
}

void Lifecycle::Rollback() {
  if (journal_.empty()) return;
  Restore(journal_.back());
  journal_.pop_back();
}

void Lifecycle::Restore(Journal& frame) {
  for (auto& [id, before] : frame.jobs) {
    if (before) {
      Job& job = jobs_[id];
      job = std::move(*before);
      TrackUnfinished(job);
    } else {
      unfinished_.erase(id);
      jobs_.erase(id);
    }
  }
  if (frame.nodes) nodes_ = std::move(*frame.nodes);
  if (frame.bb_pools) bb_pools_ = std::move(*frame.bb_pools);
  for (auto& [user, before] : frame.usage) {
    if (before) {
      usage_[user] = *before;
    } else {
      usage_.erase(user);
    }
  }
  for (auto& [key, before] : frame.assoc_usage) {
    if (before) {
      assoc_usage_[key] = *before;
    } else {
      assoc_usage_.erase(key);
    }
  }
  for (auto& [key, before] : frame.bank_used) {
    if (before) {
      bank_used_[key] = *before;
    } else {
      bank_used_.erase(key);
    }
  }
  for (const auto& [id, was] : frame.bb_busy) Place(bb_busy_, id, was);
  for (const auto& [id, was] : frame.terminate_sent) Place(terminate_sent_, id, was);
  for (auto& [first, reservation] : frame.reservations_taken) {
    reservations_[first] = std::move(reservation);
  }
}

Job& Lifecycle::Mut(uint64_t id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) std::abort();  // REQUIRES violated
  // The first change in a frame keeps the before-image; an insertion in the
  // same frame keeps its null.
  auto [image, first] = Open().jobs.try_emplace(id);
  if (first) image->second = std::make_unique<Job>(it->second);
  return it->second;
}

Job* Lifecycle::Derived(uint64_t id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

NodeTable& Lifecycle::MutNodes() {
  Journal& frame = Open();
  if (!frame.nodes) frame.nodes.emplace(nodes_);
  return nodes_;
}

BbPoolTable& Lifecycle::MutPools() {
  Journal& frame = Open();
  if (!frame.bb_pools) frame.bb_pools.emplace(bb_pools_);
  return bb_pools_;
}

void Lifecycle::SetBusy(uint64_t id, bool busy) { SetMember(bb_busy_, Open().bb_busy, id, busy); }

void Lifecycle::SetTerminateSent(uint64_t id, bool sent) {
  SetMember(terminate_sent_, Open().terminate_sent, id, sent);
}

// ---------------------------------------------------------------- reads

const Job* Lifecycle::Find(uint64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::vector<const Job*> Lifecycle::Resolve(const JobRef& ref) const {
  std::vector<const Job*> out;
  const Job* job = Find(ref.job_id);
  if (job == nullptr) return out;
  if (job->array_job_id != ref.job_id) {  // a plain job, or one task by its own id
    if (ref.array_task_id < 0) out.push_back(job);
    return out;
  }
  // An array's id: its tasks have consecutive ids from it.
  for (auto it = jobs_.find(ref.job_id); it != jobs_.end() && it->second.array_job_id == ref.job_id;
       ++it) {
    if (ref.array_task_id < 0 || it->second.array_task_id == ref.array_task_id) {
      out.push_back(&it->second);
    }
  }
  return out;
}

std::string Lifecycle::NodeTarget(const std::string& node_name) const {
  const Node* node = nodes_.Find(node_name);
  if (node == nullptr) return "";
  const std::string& addr = node->config.addr.empty() ? node->config.name : node->config.addr;
  const int port = node->port != 0          ? node->port
                   : node->config.port != 0 ? node->config.port
                                            : config_->slurmd_port;
  return absl::StrCat(addr, ":", port);
}

LaunchIntent Lifecycle::MakeLaunch(const Job& job) const {
  LaunchIntent launch{job, NodeTarget(job.nodes.front()), 0, {}};
  if (const Node* node = nodes_.Find(job.nodes.front())) {
    launch.node_real_memory_mb = node->config.real_memory_mb;
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

TerminateIntent Lifecycle::MakeTerminate(const Job& job, int64_t grace_time) const {
  return {job.id, NodeTarget(job.nodes.front()), std::max<int64_t>(config_->kill_wait, grace_time)};
}

// ---------------------------------------------------------------- recovery

void Lifecycle::Load(std::vector<Job> jobs, uint64_t max_stored_id,
                     std::map<std::string, UserUsageRecord> usage) {
  next_job_id_ = std::max(next_job_id_, max_stored_id + 1);
  for (const Job& job : jobs) {
    if (job.basic_priority > 0 && job.basic_priority <= next_basic_priority_) {
      next_basic_priority_ = job.basic_priority - 1;
    }
  }
  for (Job& job : jobs) {
    if (HoldsResources(job)) {
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
      // Jobs stored before ctld chose CPU ids get theirs now.
      if (job.cpu_ids_by_node.size() == job.nodes.size()) placement.cpu_ids = job.cpu_ids_by_node;
      job.cpu_ids_by_node = nodes_.Allocate(placement);
    }
    const uint64_t id = job.id;
    TrackUnfinished(jobs_.insert_or_assign(id, std::move(job)).first->second);
  }
  usage_ = std::move(usage);
}

Effects Lifecycle::Resume(int64_t now) {
  Begin();
  Effects effects;
  BbResume(effects);
  for (auto& [id, stored] : jobs_) {
    if (stored.state == JobState::kConfiguring) {
      effects.log.push_back(absl::StrCat("JobId=", id, " was CONFIGURING: resuming its start"));
      ContinueStart(Mut(id), now, effects);
    } else if (stored.state == JobState::kCompleting) {
      effects.log.push_back(
          absl::StrCat("JobId=", id, " was COMPLETING: running its epilog again"));
      EpilogOrFinish(Mut(id), now, effects);
    }
  }
  effects.reschedule = true;
  return Close(std::move(effects));
}

// ---------------------------------------------------------------- job steps

bool Lifecycle::TransitionJob(Job& job, JobEvent event, Effects& effects) {
  const JobState from = job.state;
  absl::StatusOr<std::string> line = Transition(job, event);
  effects.log.push_back(line.ok() ? std::move(*line) : std::string(line.status().message()));
  if (!line.ok()) return false;
  TrackUnfinished(job);  // a requeued finished job is pending again
  TallyTransition(from, event, job.state, effects.tally);
  return true;
}

Lifecycle::StateCounts Lifecycle::CountPendingAndRunning() const {
  StateCounts counts;
  for (const auto& [id, job] : unfinished_) {
    if (job->state == JobState::kPending) ++counts.pending;
    if (job->state == JobState::kRunning || job->state == JobState::kConfiguring) ++counts.running;
  }
  return counts;
}

void Lifecycle::TrackUnfinished(Job& job) {
  if (IsFinal(job.state)) return;
  auto it = jobs_.find(job.id);
  if (it != jobs_.end() && &it->second == &job) unfinished_[job.id] = &job;
}

void Lifecycle::ReleaseResources(Job& job, int64_t now, Effects& effects) {
  MutNodes().Release(job.id, job.nodes, job.cpus_by_node, job.mem_by_node_mb, now);
  ChargeRun(job, now, effects);
}

void Lifecycle::ContinueStart(Job& job, int64_t now, Effects& effects) {
  if (job.cancel_requested) {
    if (TransitionJob(job, JobEvent::kAbort, effects)) FinishRun(job, now, effects);
    return;
  }
  if (BbBeforeLaunch(job, effects)) return;  // slurm_bb_pre_run first
  if (!job.prolog_done && settings_.prolog) {
    effects.intents.push_back(RunPrologIntent{job});
    return;
  }
  job.prolog_done = true;
  effects.intents.push_back(MakeLaunch(job));
}

void Lifecycle::FinishRun(Job& job, int64_t now, Effects& effects) {
  ReleaseResources(job, now, effects);
  SetTerminateSent(job.id, false);
  EpilogOrFinish(job, now, effects);
  effects.reschedule = true;
}

void Lifecycle::EpilogOrFinish(Job& job, int64_t now, Effects& effects) {
  if (settings_.epilog) {
    effects.intents.push_back(RunEpilogIntent{job});
    return;
  }
  Finish(job, now, effects);
}

void Lifecycle::Finish(Job& job, int64_t now, Effects& effects) {
  if (BbBeforeFinish(job, effects)) return;  // stage-out first
  FinishJob(job, now, effects);
}

void Lifecycle::FinishJob(Job& job, int64_t now, Effects& effects) {
  if (job.final_state == JobState::kPreempted && job.preempt_requeue) {
    Requeue(job, "requeued: preempted", effects);
    return;
  }
  if (job.requeue_request != Job::RequeueRequest::kNone) {
    RequeueAfterTeardown(job, effects);
    return;
  }
  job.end_time = now;
  TransitionJob(job, JobEvent::kFinish, effects);  // the run was charged when it ended
}

void Lifecycle::Requeue(Job& job, const std::string& detail, Effects& effects) {
  if (!TransitionJob(job, JobEvent::kRequeue, effects)) return;
  ++job.restart_count;
  job.nodes.clear();
  job.gpu_indices.clear();
  job.gpus_by_node.clear();
  job.cpu_ids_by_node.clear();
  job.launched = false;
  job.prolog_done = false;
  job.cancel_requested = false;
  job.cancelled_by = -1;
  job.preempt_requeue = false;
  job.requeue_request = Job::RequeueRequest::kNone;
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

void Lifecycle::Terminate(Job& job, JobState final_state, Effects& effects, int64_t grace_time) {
  job.final_state = final_state;
  if (job.state == JobState::kConfiguring && !job.launched) {
    // The prolog or launch is in flight; its report checks cancel_requested.
    job.cancel_requested = true;
    return;
  }
  if (HoldsResources(job)) {
    SetTerminateSent(job.id, true);
    effects.intents.push_back(MakeTerminate(job, grace_time));
  }
}

void Lifecycle::Preempt(Job& job, bool requeue, int64_t grace_time, uint64_t preemptor,
                        Effects& effects) {
  job.preempt_requeue = requeue;
  job.reason_detail = absl::StrCat("preempted by JobId=", preemptor);
  effects.log.push_back(absl::StrCat("JobId=", job.id, " preempted by JobId=", preemptor, " (",
                                     requeue ? "REQUEUE" : "CANCEL", ", GraceTime=", grace_time,
                                     ")"));
  Terminate(job, JobState::kPreempted, effects, grace_time);
}

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
    job.launched = true;
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
    if (!Contains(job.nodes, node)) continue;  // not the job's: nothing to say about it
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
    default:
      break;
  }
  if (TransitionJob(job, JobEvent::kExited, effects)) FinishRun(job, now, effects);
}

void Lifecycle::NodeDown(const std::string& node_name, int64_t now, Effects& effects) {
  for (auto& [id, stored] : jobs_) {
    if (!HoldsResources(stored) || !Contains(stored.nodes, node_name)) continue;
    Job& job = Mut(id);
    // The batch script may still run on a healthy batch host: stop it there.
    if (job.launched && job.nodes.front() != node_name) {
      effects.intents.push_back(MakeTerminate(job));
    }
    RequeueOrEndOnNodeFailure(job, absl::StrCat("requeued: NodeName=", node_name, " failed"), now,
                              effects);
  }
  effects.reschedule = true;
}

bool Lifecycle::RequeueOrEndOnNodeFailure(Job& job, const std::string& detail, int64_t now,
                                          Effects& effects) {
  // Cancelled or preempted meanwhile: final_state already says how it ends.
  if (job.requeue && job.final_state == JobState::kCompleted) {
    ReleaseResources(job, now, effects);
    Requeue(job, detail, effects);
    return true;
  }
  if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
  const JobEvent event = job.state == JobState::kRunning || job.state == JobState::kSuspended
                             ? JobEvent::kExited
                             : JobEvent::kAbort;
  if (TransitionJob(job, event, effects)) FinishRun(job, now, effects);
  return false;
}

void Lifecycle::AccrueUsage(const Job& job, double billing_seconds, int64_t now, Effects& effects) {
  double factor = 1.0;
  for (const Qos& qos : qos_) {
    if (qos.name == job.qos) factor = qos.usage_factor;
  }
  auto found = usage_.find(job.user_name);
  Open().usage.try_emplace(job.user_name, found == usage_.end()
                                              ? std::nullopt
                                              : std::optional<UserUsageRecord>(found->second));
  UserUsageRecord& record = usage_[job.user_name];
  record.usage = ::skiff::AccrueUsage(record.usage, record.as_of, billing_seconds, factor, now,
                                      settings_.decay_half_life);
  record.as_of = now;
  effects.records.push_back({kUsageKind, job.user_name,
                             absl::StrCat(record.usage, " ", record.as_of, " ", record.shares)});
  // The same per association, for sshare and the account tree's fair share.
  const std::string key = absl::StrCat(job.account, "|", job.user_name);
  auto assoc_found = assoc_usage_.find(key);
  Open().assoc_usage.try_emplace(key, assoc_found == assoc_usage_.end()
                                          ? std::nullopt
                                          : std::optional<UserUsageRecord>(assoc_found->second));
  UserUsageRecord& assoc = assoc_usage_[key];
  assoc.usage = ::skiff::AccrueUsage(assoc.usage, assoc.as_of, billing_seconds, factor, now,
                                     settings_.decay_half_life);
  assoc.as_of = now;
  effects.records.push_back({kAssocUsageKind, key, absl::StrCat(assoc.usage, " ", assoc.as_of)});
}

// ---------------------------------------------------------------- nodes

absl::StatusOr<Effects> Lifecycle::RegisterNode(const NodeRegistration& registration,
                                                const std::vector<NodeRunReport>& reports,
                                                int64_t now,
                                                std::vector<uint64_t>* jobs_to_terminate,
                                                std::vector<NodeChange>* changes) {
  Begin();
  Effects effects;
  absl::Status status = MutNodes().Register(registration, now, settings_.config_overrides, changes);
  if (!status.ok()) {
    Rollback();
    return status;
  }
  std::set<uint64_t> reported;
  for (const NodeRunReport& report : reports) {
    reported.insert(report.job_id);
    const Job* job = Find(report.job_id);
    const bool ours = job != nullptr && !job->nodes.empty() &&
                      job->nodes.front() == registration.node_name && HoldsResources(*job);
    if (!ours) {
      if (!report.finished) jobs_to_terminate->push_back(report.job_id);
      continue;
    }
    Job& mine = Mut(report.job_id);
    ApplyReport(mine, report, now, effects);
  }
  // Jobs ctld believes run on this node but the node does not know: lost.
  for (auto& [id, stored] : jobs_) {
    if ((stored.state != JobState::kRunning && stored.state != JobState::kSuspended) ||
        stored.nodes.empty() || stored.nodes.front() != registration.node_name ||
        reported.count(id) > 0 || now - stored.start_time < kLaunchGraceSeconds) {
      continue;
    }
    Job& job = Mut(id);
    effects.log.push_back(absl::StrCat(
        "JobId=", id, " is not known to NodeName=", registration.node_name, " any more"));
    job.exit_code = 0;
    if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
    if (TransitionJob(job, JobEvent::kExited, effects)) FinishRun(job, now, effects);
  }
  effects.reschedule = true;
  return Close(std::move(effects));
}

bool Lifecycle::Heartbeat(const std::string& node_name, int64_t now,
                          std::vector<NodeChange>* changes, const ReportedLoad& load) {
  return nodes_.Heartbeat(node_name, now, changes, load);
}

absl::StatusOr<Effects> Lifecycle::UpdateNodes(const std::vector<std::string>& names,
                                               const std::string& state, const std::string& reason,
                                               uint32_t by, int64_t now,
                                               std::vector<NodeChange>* changes) {
  Begin();
  Effects effects;
  for (const std::string& name : names) {
    absl::Status status = MutNodes().AdminUpdate(name, state, reason, by, now, changes);
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
  return Close(std::move(effects));
}

Effects Lifecycle::CheckNodeTimeouts(int64_t now, std::vector<NodeChange>* changes) {
  Begin();
  Effects effects;
  MutNodes().CheckTimeouts(now, config_->heartbeat_interval, config_->slurmd_timeout, changes);
  for (const NodeChange& change : *changes) {
    if (change.went_down) NodeDown(change.node_name, now, effects);
  }
  return Close(std::move(effects));
}

// ---------------------------------------------------------------- jobs

absl::StatusOr<Effects> Lifecycle::JobComplete(const std::string& node_name,
                                               const NodeRunReport& report, int64_t now) {
  Begin();
  const Job* job = Find(report.job_id);
  // Purged long ago, or already recorded (a repeated report): nothing to do.
  if (job == nullptr || !HoldsResources(*job)) return Close(Effects{});
  if (job->nodes.empty() || job->nodes.front() != node_name) {
    Rollback();
    return absl::FailedPreconditionError(
        absl::StrCat("JobId=", report.job_id, " does not run on NodeName=", node_name));
  }
  Effects effects;
  NodeRunReport finished = report;
  finished.finished = true;
  ApplyReport(Mut(report.job_id), finished, now, effects);
  return Close(std::move(effects));
}

Effects Lifecycle::Cancel(const Caller& caller, bool privileged, const CancelSpec& spec,
                          int64_t now, std::vector<CancelOutcome>* outcomes) {
  Begin();
  Effects effects;
  std::vector<uint64_t> selected;
  auto matches = [&](const Job& job) {
    if (!spec.user.empty() && job.user_name != spec.user) return false;
    if (!spec.name.empty() && job.name != spec.name) return false;
    if (!spec.states.empty() &&
        std::find(spec.states.begin(), spec.states.end(), job.state) == spec.states.end()) {
      return false;
    }
    return spec.partitions.empty() || Contains(spec.partitions, job.request.partition);
  };
  if (!spec.jobs.empty()) {
    std::set<uint64_t> seen;
    for (const JobRef& ref : spec.jobs) {
      std::vector<const Job*> jobs = Resolve(ref);
      if (jobs.empty()) {
        outcomes->push_back({ref.job_id, absl::NotFoundError("Invalid job id specified")});
      }
      for (const Job* job : jobs) {
        // A whole array: its finished tasks are not errors.
        if (jobs.size() > 1 && IsFinal(job->state)) continue;
        if (matches(*job) && seen.insert(job->id).second) selected.push_back(job->id);
      }
    }
  } else {
    for (const auto& [id, job] : jobs_) {
      if (IsFinal(job.state) || !matches(job)) continue;
      // Without ids, a user's filters only ever reach their own jobs (Slurm).
      if (!privileged && job.uid != caller.uid) continue;
      selected.push_back(id);
    }
  }
  for (uint64_t id : selected) {
    const Job& current = jobs_.at(id);
    if (current.uid != caller.uid && !privileged) {
      outcomes->push_back({id, absl::PermissionDeniedError("Access/permission denied")});
      continue;
    }
    if (IsFinal(current.state) || current.state == JobState::kCompleting) {
      outcomes->push_back(
          {id, absl::FailedPreconditionError("Job/step already completing or completed")});
      continue;
    }
    if (spec.signal != 0) {
      if (current.state != JobState::kRunning) {
        outcomes->push_back({id, absl::FailedPreconditionError("Job is pending execution")});
        continue;
      }
      // Slurm: -f wins over -b; neither spares the batch shell.
      const SignalScope scope = spec.full         ? SignalScope::kBatchAndSteps
                                : spec.batch_only ? SignalScope::kBatchShell
                                                  : SignalScope::kSteps;
      effects.intents.push_back(
          SignalIntent{id, NodeTarget(current.nodes.front()), spec.signal, scope});
      outcomes->push_back({id, absl::OkStatus()});
      continue;
    }
    Job& job = Mut(id);
    job.cancelled_by = caller.uid;
    if (job.state == JobState::kPending) {
      job.end_time = now;
      job.final_state = JobState::kCancelled;
      // The reason it waited for stays (scontrol's Reason=Priority), as
      // Slurm's _job_signal leaves state_reason alone.
      TransitionJob(job, JobEvent::kCancelPending, effects);
      BbCancelPending(job, spec.hurry, effects);
    } else {
      job.bb_hurry = spec.hurry;
      job.requeue_request = Job::RequeueRequest::kNone;  // scancel wins over a requeue
      Terminate(job, JobState::kCancelled, effects);
    }
    effects.log.push_back(absl::StrCat("JobId=", id, " cancelled by uid ", caller.uid));
    outcomes->push_back({id, absl::OkStatus()});
  }
  effects.reschedule = true;
  return Close(std::move(effects));
}

namespace {

// Whether an update from `before` to `after` must pass admission's policy
// rules again. A user's: when it moves the job (account, QOS, partition) or
// asks for more (nodes, time); lowering what a job asks for stays possible
// even for a job already over a limit, as Slurm allows. An operator's: only
// when it moves the job to another association, which must exist.
bool NeedsPolicyCheck(const Job& before, const Job& after, bool privileged) {
  const bool moves =
      before.account != after.account || before.request.partition != after.request.partition;
  if (privileged) return moves;
  const int64_t was = before.request.time_limit;
  const int64_t now = after.request.time_limit;
  const bool longer = was != kUnlimited && (now == kUnlimited || now > was);
  return moves || before.qos != after.qos || after.request.num_nodes > before.request.num_nodes ||
         longer;
}

}  // namespace

absl::StatusOr<Job> Lifecycle::Updated(const Job& current, bool privileged,
                                       const JobUpdate& update) const {
  // Every field is checked on a copy; the job changes only when all pass.
  Job job = current;
  const bool pending = job.state == JobState::kPending;
  auto not_pending = [] {
    return absl::FailedPreconditionError("Job is no longer pending execution");
  };
  auto denied = [](const char* why) {
    return absl::PermissionDeniedError(absl::StrCat("Access/permission denied (", why, ")"));
  };
  if (update.held.has_value()) {
    if (!pending) return not_pending();
    if (*update.held) {
      job.held = true;
      job.held_by_admin = privileged && !update.user_hold;
      job.reason = job.held_by_admin ? "JobHeldAdmin" : "JobHeldUser";
    } else {
      if (job.held_by_admin && !privileged) {
        return denied("the job was held by an administrator; only an operator can release it");
      }
      // A released job goes to the end of the line, as in Slurm (its place is
      // given when the update is applied).
      if (job.held) job.basic_priority = 0;
      job.held = false;
      job.held_by_admin = false;
      job.reason = "None";
      job.reason_detail.clear();
    }
  }
  if (update.time_limit.has_value()) {
    const int64_t current_limit = job.request.time_limit;
    const int64_t wanted = *update.time_limit;
    // As at submit: seconds below -1 (UNLIMITED) or past Slurm's largest limit.
    if (wanted < kUnlimited || wanted > kMaxTimeLimitSeconds) {
      return absl::InvalidArgumentError(
          "Requested time limit is invalid (missing or exceeds some limit)");
    }
    const bool lowers = current_limit == kUnlimited
                            ? wanted != kUnlimited
                            : wanted != kUnlimited && wanted <= current_limit;
    // As in Slurm: a user may lower the limit of any job, and raise that of a
    // pending job up to its partition's MaxTime (checked below).
    if (!privileged && !lowers && !pending) {
      return denied("only an operator can raise the time limit of a job that has started");
    }
    job.request.time_limit = wanted;
  }
  if (update.name.has_value()) job.name = *update.name;
  if (update.account.has_value()) {
    // As Slurm: a started job's association (and so its charges) is fixed.
    if (!pending) return not_pending();
    // As at submit: lower case, and "" is the user's DefaultAccount. The QOS
    // stays the job's (a non-empty stand-in keeps the default QOS out).
    std::string account = *update.account;
    std::string keep_qos = "-";
    FillAccountDefaults(account_policy_, job.user_name, &account, &keep_qos);
    job.account = account;
  }
  if (update.comment.has_value()) job.comment = *update.comment;
  if (update.qos.has_value()) {
    if (!pending) return not_pending();
    const bool known =
        std::any_of(qos_.begin(), qos_.end(), [&](const Qos& q) { return q.name == *update.qos; });
    if (!known) return absl::InvalidArgumentError("Invalid qos specification");
    job.qos = *update.qos;
  }
  if (update.partition.has_value()) {
    if (!pending) return not_pending();
    const PartitionConfig* partition = config_->FindPartition(*update.partition);
    if (partition == nullptr) {
      return absl::InvalidArgumentError("Invalid partition name specified");
    }
    if (partition->name != current.request.partition) {
      if (absl::Status s = CheckPartitionTakesJobs(*partition); !s.ok()) return s;
    }
    job.request.partition = *update.partition;
  }
  if (update.min_nodes.has_value()) {
    if (!pending) return not_pending();
    if (*update.min_nodes < 1) return absl::InvalidArgumentError("Invalid node count specified");
    job.request.num_nodes = *update.min_nodes;
  }
  if (update.nice.has_value()) {
    if (!pending) return not_pending();
    // Slurm's ESLURM_INVALID_NICE: only operators may raise a job's priority so.
    if (*update.nice < 0 && !privileged) return absl::InvalidArgumentError("Invalid nice value");
    job.nice = *update.nice;
  }
  if (update.priority.has_value()) {
    if (!pending) return not_pending();
    if (*update.priority < 0) return absl::InvalidArgumentError("Invalid priority value");
    // A user may only lower their job's priority (Slurm's rule).
    if (!privileged && (job.priority == 0 || *update.priority > job.priority)) {
      return denied("only an operator can raise a job's priority");
    }
    job.admin_priority = *update.priority;
  }
  if (update.begin_time.has_value()) {
    if (!pending) return not_pending();
    job.request.begin_time = *update.begin_time;
  }
  if (update.features.has_value()) {
    if (!pending) return not_pending();
    job.request.features = *update.features;
  }
  if (update.exclude.has_value()) {
    if (!pending) return not_pending();
    job.request.exclude = *update.exclude;
  }
  if (update.nodelist.has_value()) {
    if (!pending) return not_pending();
    job.request.nodelist = *update.nodelist;
  }
  if (update.array_task_throttle.has_value()) {
    if (job.array_job_id == 0) {
      return absl::InvalidArgumentError("ArrayTaskThrottle applies only to job arrays");
    }
    if (*update.array_task_throttle < 0) {
      return absl::InvalidArgumentError("Invalid ArrayTaskThrottle value");
    }
    job.array_max_running = *update.array_task_throttle;
  }
  // What submission checks, checked again for the job as it would become: a
  // user cannot reach by update a partition, QOS, account, size or time limit
  // that submission refuses. A running job's partition, QOS, account and size
  // cannot change, so only its time limit is rechecked then. (The rules that
  // need the job table, the association's among them, are Update's.)
  const bool reshapes =
      update.partition || update.qos || update.account || update.min_nodes || update.time_limit;
  if (reshapes && !privileged) {
    const PartitionConfig* partition = config_->FindPartition(job.request.partition);
    if (partition == nullptr) return absl::InvalidArgumentError("Invalid partition name specified");
    if (absl::Status s = CheckPartitionAccess(job, *partition, privileged); !s.ok()) return s;
  }
  // A pending job must stay runnable, for operators too: a node list or a
  // feature no node has would leave it pending forever.
  const bool replaces =
      update.partition || update.min_nodes || update.features || update.exclude || update.nodelist;
  if (pending && replaces) {
    for (const std::string& name : job.request.nodelist) {
      if (nodes_.Find(name) == nullptr) {
        return absl::InvalidArgumentError("Invalid node name specified");
      }
    }
    if (absl::Status s = CheckSatisfiable(job.request, nodes_.Capacities()); !s.ok()) return s;
  }
  return job;
}

absl::Status Lifecycle::RequeueOne(Job& job, bool hold, int64_t now, Effects& effects) {
  if (job.state == JobState::kPending) {
    return absl::FailedPreconditionError("Job is pending execution");
  }
  if (!job.requeue) {
    return absl::FailedPreconditionError("Requested operation is presently disabled");
  }
  const Job::RequeueRequest request =
      hold ? Job::RequeueRequest::kRequeueHold : Job::RequeueRequest::kRequeue;
  if (IsFinal(job.state)) {
    // A finished job goes back to the queue at once (Slurm requeues finished
    // batch jobs still in memory); one with a burst buffer would have to be
    // staged in anew, which Skiff does not do.
    if (job.UsesBurstBuffer()) {
      return absl::FailedPreconditionError("Requested operation is presently disabled");
    }
    job.requeue_request = request;
    job.end_time = 0;
    RequeueAfterTeardown(job, effects);
    return absl::OkStatus();
  }
  job.requeue_request = request;
  if (job.state == JobState::kCompleting) return absl::OkStatus();  // FinishJob requeues it
  effects.log.push_back(absl::StrCat("JobId=", job.id, " requeue requested"));
  Terminate(job, JobState::kCancelled, effects);
  (void)now;
  return absl::OkStatus();
}

void Lifecycle::RequeueAfterTeardown(Job& job, Effects& effects) {
  const bool hold = job.requeue_request == Job::RequeueRequest::kRequeueHold;
  Requeue(job, hold ? "job requeued in held state" : "", effects);
  if (hold) {
    job.held = true;
    job.reason = "JobHeldUser";
  }
}

absl::StatusOr<Effects> Lifecycle::Update(const Caller& caller, bool privileged,
                                          const JobUpdate& update, int64_t now) {
  const std::vector<const Job*> targets =
      Resolve({update.job_id, update.array_task_id.value_or(-1)});
  if (targets.empty()) return absl::NotFoundError("Invalid job id specified");
  for (const Job* current : targets) {
    // Slurm's answer to an update of someone else's job (ESLURM_USER_ID_MISSING).
    if (current->uid != caller.uid && !privileged) {
      return absl::PermissionDeniedError("Invalid user id");
    }
  }
  const bool whole_array = targets.size() > 1;
  if (update.requeue != JobUpdate::Requeue::kNone) {
    Begin();
    Effects effects;
    for (const Job* target : targets) {
      if (whole_array && target->state == JobState::kPending) continue;
      absl::Status s = RequeueOne(Mut(*target), update.requeue == JobUpdate::Requeue::kRequeueHold,
                                  now, effects);
      if (!s.ok()) {
        Rollback();
        return s;
      }
    }
    effects.log.push_back(absl::StrCat("JobId=", update.job_id, " requeued by uid ", caller.uid));
    effects.reschedule = true;
    return Close(std::move(effects));
  }
  std::vector<Job> changed;
  absl::Status first_refusal;
  for (const Job* current : targets) {
    // An array's finished tasks are left as they are; a job named alone is not.
    if (IsFinal(current->state)) {
      if (whole_array) continue;
      return absl::FailedPreconditionError("Job has already finished");
    }
    absl::StatusOr<Job> job = Updated(*current, privileged, update);
    if (!job.ok()) {
      // A whole array: tasks already running keep what only pending tasks may
      // change (hold, partition, ...), as Slurm updates each task it can.
      if (whole_array && job.status().code() == absl::StatusCode::kFailedPrecondition) {
        if (first_refusal.ok()) first_refusal = job.status();
        continue;
      }
      return job.status();
    }
    changed.push_back(std::move(*job));
  }
  if (changed.empty()) {
    return first_refusal.ok() ? absl::FailedPreconditionError("Job has already finished")
                              : first_refusal;
  }
  // The association, QOS and limit rules of admission (AccountingStorageEnforce),
  // for every changed job at once: an array moved to another account counts
  // all its tasks there. Only jobs the update takes further are checked.
  std::vector<const Job*> checked;
  std::set<uint64_t> replacing;
  for (const Job& job : changed) {
    if (NeedsPolicyCheck(*Find(job.id), job, privileged)) {
      checked.push_back(&job);
      replacing.insert(job.id);
    }
  }
  if (!checked.empty()) {
    if (absl::Status s = CheckPolicy(checked, 1, replacing, privileged); !s.ok()) return s;
  }
  Begin();
  int64_t place = 0;  // one for all the tasks of an array released at once
  for (Job& job : changed) {
    if (job.state == JobState::kPending && !job.held && job.basic_priority == 0) {
      if (place == 0) place = TakeBasicPriority();
      job.basic_priority = place;
    }
    const uint64_t id = job.id;
    Mut(id) = std::move(job);
  }
  Effects effects;
  effects.log.push_back(absl::StrCat("JobId=", update.job_id, " updated by uid ", caller.uid));
  effects.reschedule = true;
  return Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::Suspend(const Caller& caller, bool privileged, const JobRef& ref,
                                           bool resume, int64_t now) {
  // Slurm: only operators suspend and resume (a user's suspend would free
  // nothing for others and could stall a running job's peers).
  if (!privileged) return absl::PermissionDeniedError("Access/permission denied");
  const std::vector<const Job*> targets = Resolve(ref);
  if (targets.empty()) return absl::NotFoundError("Invalid job id specified");
  Begin();
  Effects effects;
  for (const Job* target : targets) {
    const JobState want = resume ? JobState::kSuspended : JobState::kRunning;
    if (target->state != want) {
      if (targets.size() > 1) continue;  // an array's other tasks are not errors
      Rollback();
      return absl::FailedPreconditionError(resume ? "Job is not suspended" : "Job is not running");
    }
    Job& job = Mut(*target);
    if (!TransitionJob(job, resume ? JobEvent::kResume : JobEvent::kSuspend, effects)) continue;
    if (resume) job.suspended_total += std::max<int64_t>(0, now - job.suspend_time);
    job.suspend_time = now;
    effects.intents.push_back(SignalIntent{job.id, NodeTarget(job.nodes.front()),
                                           resume ? SIGCONT : SIGSTOP, SignalScope::kEveryProcess});
    effects.log.push_back(
        absl::StrCat("JobId=", job.id, resume ? " resumed" : " suspended", " by uid ", caller.uid));
  }
  effects.reschedule = true;
  return Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::Top(const Caller& caller, bool privileged,
                                       const std::vector<uint64_t>& job_ids, int64_t now) {
  (void)now;
  if (job_ids.empty()) return absl::InvalidArgumentError("No job id given");
  const Job* first = Find(job_ids.front());
  if (first == nullptr) return absl::NotFoundError("Invalid job id specified");
  if (!privileged &&
      (first->uid != caller.uid || config_->scheduler_parameters.count("enable_user_top") == 0)) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  auto same_group = [first](const Job& job) {
    return job.state == JobState::kPending && job.uid == first->uid &&
           job.request.partition == first->request.partition && job.account == first->account &&
           job.qos == first->qos;
  };
  // The listed jobs that belong to the group, in the order given (Slurm leaves
  // jobs that do not match the first one alone).
  std::vector<const Job*> listed;
  for (uint64_t id : job_ids) {
    const Job* job = Find(id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    if (same_group(*job) && std::find(listed.begin(), listed.end(), job) == listed.end()) {
      listed.push_back(job);
    }
  }
  int64_t best_of_rest = 0;
  for (const auto& [id, job] : jobs_) {
    if (same_group(job) && std::find(listed.begin(), listed.end(), &job) == listed.end()) {
      best_of_rest = std::max(best_of_rest, job.priority);
    }
  }
  // From the last listed job up: each just above the one after it (the last
  // just above the rest of the group), never lower than it is. The change goes
  // into nice, so the next passes keep the order as the jobs age alike.
  Begin();
  Effects effects;
  int64_t floor = best_of_rest;
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    const int64_t target = std::max((*it)->priority, floor + 1);
    floor = target;
    if (target == (*it)->priority) continue;
    Job& job = Mut(**it);
    job.nice = static_cast<int32_t>(
        std::clamp<int64_t>(job.nice - (target - job.priority), -2147483645, 2147483645));
    job.priority = target;  // derived; the next pass computes the same
  }
  effects.log.push_back(
      absl::StrCat("JobId=", job_ids.front(), " moved to the top by uid ", caller.uid));
  effects.reschedule = true;
  return Close(std::move(effects));
}

Effects Lifecycle::EnforceTimeLimits(int64_t now) {
  Begin();
  Effects effects;
  const int64_t grace = OverTimeSeconds(config_->over_time_limit);
  // Every second: the unfinished jobs only, not MinJobAge's finished ones.
  for (const auto& [id, unfinished] : unfinished_) {
    const Job& stored = *unfinished;
    if (stored.state != JobState::kRunning || stored.request.time_limit == kUnlimited) continue;
    if (terminate_sent_.count(id) > 0) continue;
    // Time spent suspended does not count against the limit, as in Slurm.
    const int64_t end = stored.start_time + stored.request.time_limit + stored.suspended_total;
    if (stored.warn_signal != 0 && !stored.warn_sent && now >= end - stored.warn_time &&
        now < end + grace && !stored.nodes.empty()) {
      Job& job = Mut(id);
      job.warn_sent = true;
      effects.log.push_back(absl::StrCat("JobId=", id, " sent signal ", job.warn_signal, " ",
                                         job.warn_time, "s before its time limit"));
      effects.intents.push_back(
          SignalIntent{id, NodeTarget(job.nodes.front()), job.warn_signal,
                       job.warn_batch_only ? SignalScope::kBatchShell : SignalScope::kSteps});
    }
    if (now < end + grace) continue;
    effects.log.push_back(
        absl::StrCat("JobId=", id, " reached its time limit of ", stored.request.time_limit, "s"));
    Job& job = Mut(id);
    Terminate(job, JobState::kTimeout, effects);
    // SIGKILL at the deadline admission reserved up to (limit, grace, KillWait),
    // however late this check ran or was resent after a restart.
    if (!effects.intents.empty()) {
      if (auto* terminate = std::get_if<TerminateIntent>(&effects.intents.back());
          terminate != nullptr && terminate->job_id == id) {
        terminate->kill_wait = KillWaitLeft(end + grace, config_->kill_wait, now);
      }
    }
  }
  return Close(std::move(effects));
}

size_t Lifecycle::Purge(int64_t now) {
  const int64_t cutoff = now - config_->min_job_age;
  size_t purged = 0;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Job& job = it->second;
    const bool bb_done = !job.UsesBurstBuffer() || job.bb_state == BbState::kComplete;
    if (IsFinal(job.state) && bb_done && job.end_time < cutoff) {
      dependencies_.erase(it->first);
      unfinished_.erase(it->first);
      it = jobs_.erase(it);  // still in the database for accounting
      ++purged;
    } else {
      ++it;
    }
  }
  return purged;
}

// ---------------------------------------------------------------- reports

// Whether a prolog or launch report is about the job's current start: the job
// is still CONFIGURING in the same run (not requeued, cancelled or gone since).
bool Lifecycle::StillStarting(uint64_t job_id, int restart_count) const {
  const Job* job = Find(job_id);
  return job != nullptr && job->state == JobState::kConfiguring &&
         job->restart_count == restart_count;
}

Effects Lifecycle::PrologDone(uint64_t job_id, int restart_count, const ScriptOutcome& outcome,
                              int64_t now) {
  Begin();
  Effects effects;
  if (!StillStarting(job_id, restart_count)) {
    return Close(std::move(effects));  // stale: the job moved on meanwhile
  }
  Job& job = Mut(job_id);
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
      job.cpu_ids_by_node.clear();
      job.start_time = 0;
      job.prolog_done = false;
    }
    effects.reschedule = true;
  } else {
    job.prolog_done = true;
    ContinueStart(job, now, effects);
  }
  return Close(std::move(effects));
}

Effects Lifecycle::LaunchDone(uint64_t job_id, int restart_count, const absl::Status& status,
                              int64_t now, LaunchBlame blame) {
  Begin();
  Effects effects;
  if (!StillStarting(job_id, restart_count)) {
    return Close(std::move(effects));  // already running (a node report won the race) or gone
  }
  Job& job = Mut(job_id);
  if (status.ok()) {
    job.launched = true;
    TransitionJob(job, JobEvent::kLaunched, effects);
    if (job.cancel_requested) Terminate(job, job.final_state, effects);
  } else if (blame == LaunchBlame::kNode) {
    LaunchFailedOnNode(job, status, now, effects);
  } else {
    job.reason_detail =
        absl::StrCat("launch failed on ", job.nodes.front(), ": ", status.message());
    job.final_state = JobState::kFailed;
    job.reason = "JobLaunchFailure";
    job.exit_code = 1;
    if (TransitionJob(job, JobEvent::kAbort, effects)) FinishRun(job, now, effects);
  }
  return Close(std::move(effects));
}

void Lifecycle::DrainNode(const std::string& node_name, const std::string& reason, int64_t now,
                          Effects& effects) {
  std::vector<NodeChange> changes;
  if (const Node* node = nodes_.Find(node_name); node != nullptr && !node->drain) {
    absl::Status drained =
        MutNodes().AdminUpdate(node_name, "DRAIN", reason, std::nullopt, now, &changes);
    if (drained.ok()) {
      for (const NodeChange& change : changes) {
        effects.log.push_back(absl::StrCat("NodeName=", change.node_name, " ", change.what));
      }
    }
  }
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
  Begin();
  Effects effects;
  const Job* current = Find(job_id);
  if (current == nullptr || current->state != JobState::kCompleting) {
    return Close(std::move(effects));
  }
  effects.log.push_back(
      absl::StrCat("JobId=", job_id, " EpilogSlurmctld ", outcome.description,
                   outcome.ran ? absl::StrCat(" (pid ", outcome.pid, ")") : std::string()));
  Finish(Mut(job_id), now, effects);
  return Close(std::move(effects));
}

}  // namespace skiff
