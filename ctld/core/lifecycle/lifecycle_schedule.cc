// The scheduling pass in three steps: PrepareSchedule (under the Controller's
// lock: dependencies, array throttles, burst-buffer stage-ins, the snapshot),
// PlanPass (no lock: priority, main pass, backfill, preemption, sprio factors)
// and ApplySchedule (under the lock again: every start re-checked against the
// live table).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/lifecycle/mail.h"
#include "ctld/core/scheduler/queue_depth.h"

namespace skiff::ctld {
namespace {

DependencyJobStatus StatusOf(const Job& job) {
  DependencyJobStatus status;
  status.state = job.state;
  status.start_time = job.start_time;
  status.end_time = IsFinal(job.state) ? job.end_time : 0;
  status.burst_buffer = job.UsesBurstBuffer();
  status.stage_out_done = !job.UsesBurstBuffer() || job.bb_state == BbState::kTeardown ||
                          job.bb_state == BbState::kTeardownFail ||
                          job.bb_state == BbState::kComplete;
  return status;
}

// The job table as dependencies see it.
class JobTableLookup final : public DependencyLookup {
 public:
  explicit JobTableLookup(const std::map<uint64_t, Job>& jobs) : jobs_(jobs) {}

  DependencyTarget Find(uint64_t job_id) const override {
    DependencyTarget target;
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return target;
    target.exists = true;
    if (it->second.array_job_id != job_id) {
      target.job = StatusOf(it->second);
      return target;
    }
    // An array's id: its tasks have consecutive ids from it.
    for (; it != jobs_.end() && it->second.array_job_id == job_id; ++it) {
      target.tasks.push_back(
          {static_cast<uint32_t>(it->second.array_task_id), StatusOf(it->second)});
    }
    return target;
  }

  bool SingletonBlocked(uid_t uid, const std::string& name, uint64_t self_id) const override {
    for (const auto& [id, job] : jobs_) {
      if (id == self_id || job.uid != uid || job.name != name) continue;
      if (job.state == JobState::kConfiguring || job.state == JobState::kRunning ||
          job.state == JobState::kSuspended || job.state == JobState::kCompleting ||
          (job.state == JobState::kPending && id < self_id)) {
        return true;
      }
    }
    return false;
  }

 private:
  const std::map<uint64_t, Job>& jobs_;
};

}  // namespace

DependentJob DependentOf(const Job& job) {
  DependentJob self;
  self.id = job.id;
  self.array_job_id = job.array_job_id;
  self.task_id = job.array_task_id >= 0 ? static_cast<uint32_t>(job.array_task_id) : kNoTask;
  self.uid = job.uid;
  self.name = job.name;
  self.burst_buffer = job.UsesBurstBuffer();
  return self;
}

absl::Status ValidateDependencyOf(const Job& job, const Dependency& dependency,
                                  const std::map<uint64_t, Job>& jobs) {
  return ValidateDependency(dependency, DependentOf(job), JobTableLookup(jobs)).status();
}

const Dependency* Lifecycle::ParsedDependency(const Job& job) {
  auto it = dependencies_.find(job.id);
  if (it != dependencies_.end()) return &it->second;
  // Parsed once per job (at submit, or here after a restart).
  absl::StatusOr<Dependency> parsed = ParseDependency(job.dependency, config_->max_array_size);
  if (!parsed.ok()) return nullptr;
  return &dependencies_.emplace(job.id, std::move(*parsed)).first->second;
}

// Whether a pending job's dependencies let it be scheduled now; sets its
// (derived) reason and scontrol's Dependency= text. A never-satisfiable
// dependency cancels the job when it asked for --kill-on-invalid-dep.
bool Lifecycle::DependencyAllows(uint64_t id, int64_t now, Effects& effects) {
  Job& view = *state_.Derived(id);
  if (view.dependency.empty()) return true;
  const Dependency* dependency = ParsedDependency(view);
  if (dependency == nullptr) {  // accepted at submit, so only a changed MaxArraySize gets here
    view.reason = "DependencyNeverSatisfied";
    return false;
  }
  const DependencyEvaluation evaluation =
      EvaluateDependency(*dependency, DependentOf(view), JobTableLookup(state_.jobs()), now);
  view.dependency_text = FormatRemaining(*dependency, evaluation);
  switch (evaluation.overall) {
    case DependencyResult::kSatisfied:
      return true;
    case DependencyResult::kWaiting:
      view.reason = "Dependency";
      return false;
    case DependencyResult::kNeverSatisfied:
      view.reason = "DependencyNeverSatisfied";
      MailRules(state_, *config_).OnInvalidDependency(id, now, effects);
      if (view.kill_on_invalid_dep) {
        Job& job = state_.Mut(id);
        job.end_time = now;
        job.final_state = JobState::kCancelled;
        TransitionJob(job, JobEvent::kCancelPending, effects);
        effects.log.push_back(
            absl::StrCat("JobId=", id, " cancelled: its dependency can never be satisfied"));
      }
      return false;
  }
  return false;
}

// --deadline, as Slurm's deadline_ok: a pending job whose time limit no
// longer fits before its deadline ends DEADLINE (ExitCode 1, Reason=DeadLine)
// without starting. Jobs without a time limit are never ended so.
bool Lifecycle::DeadlineAllows(uint64_t id, int64_t now, Effects& effects) {
  const Job& view = *Find(id);
  if (view.request.deadline == 0 || view.request.time_limit == kUnlimited ||
      now + view.request.time_limit <= view.request.deadline) {
    return true;
  }
  Job& job = state_.Mut(id);
  job.start_time = now;
  job.end_time = now;
  job.exit_code = 1;
  job.final_state = JobState::kDeadline;
  job.reason = "DeadLine";
  TransitionJob(job, JobEvent::kMissDeadline, effects);
  BbCancelPending(job, /*hurry=*/false, effects);
  effects.log.push_back(absl::StrCat("JobId=", id, " with time limit ", job.request.time_limit,
                                     " s exceeded its deadline and was ended DEADLINE"));
  return false;
}

Effects Lifecycle::PrepareSchedule(int64_t now, PassInput* input, int32_t queue_depth) {
  state_.Begin();
  Effects effects;
  CtldSchedulerInputs inputs;
  // One walk over the jobs not yet finished (a deep queue makes it the pass's
  // largest fixed cost): the jobs holding resources, the pending ones, and how
  // many tasks of each throttled array (%N) hold resources.
  std::unordered_map<uint64_t, int32_t> array_running;
  std::vector<Job*> pending;
  state_.VisitUnfinished([&](Job& job) {
    const uint64_t id = job.id;
    if (job.state == JobState::kPending) {
      pending.push_back(&job);
      return;
    }
    const bool holding = job.state == JobState::kConfiguring || job.state == JobState::kRunning ||
                         job.state == JobState::kSuspended;
    if (holding) {
      inputs.running.push_back(&job);  // they hold resources (COMPLETING ones gave them back)
      // Being stopped already (preempted or cancelled): their resources are on their way back.
      if (job.final_state != JobState::kCompleted) input->leaving.push_back(id);
    }
    if (job.array_job_id != 0 && job.array_max_running > 0 &&
        (holding || job.state == JobState::kCompleting)) {
      ++array_running[job.array_job_id];
    }
  });
  std::vector<uint64_t> stage_in;
  for (Job* pending_job : pending) {
    Job& job = *pending_job;
    const uint64_t id = job.id;
    // (Looked up by id only for the jobs that have either.)
    if (job.request.deadline != 0 && !DeadlineAllows(id, now, effects)) continue;
    if (!job.dependency.empty() && !DependencyAllows(id, now, effects)) continue;
    if (!BbReady(job)) {
      if (job.bb_state == BbState::kPending && !job.held &&
          std::max(job.eligible_time, job.request.begin_time) <= now) {
        stage_in.push_back(id);
      }
      continue;
    }
    if (queue_depth > 0 && job.held) continue;  // a full pass gives them their reasons
    if (job.array_job_id != 0 && job.array_max_running > 0 && !job.held) {
      // Only as many tasks as the throttle leaves room for are offered to the
      // scheduler (lowest task ids first: state_.jobs() is in id order).
      int32_t& count = array_running[job.array_job_id];
      if (count >= job.array_max_running) {
        job.reason = "JobArrayTaskLimit";  // derived
        continue;
      }
      ++count;
    }
    inputs.pending.push_back(&job);
  }
  if (!stage_in.empty()) BbStartStageIns(std::move(stage_in), now, effects);
  if (queue_depth > 0 && inputs.pending.size() > static_cast<size_t>(queue_depth)) {
    std::map<std::string, int32_t> tiers;
    for (const PartitionConfig& partition : config_->partitions) {
      tiers[partition.name] = partition.priority_tier;
    }
    // Partition (list) names numbered as met; a deep queue is mostly runs of
    // one name (an array), so the last one is tried first.
    std::map<std::string, std::pair<int32_t, int32_t>> keys;  // name -> (key, tier)
    const std::string* last_name = nullptr;
    std::pair<int32_t, int32_t> last{0, 0};
    std::vector<QueueCandidate> candidates;
    candidates.reserve(inputs.pending.size());
    for (const Job* job : inputs.pending) {
      const std::string& name = job->request.partition;
      if (last_name == nullptr || name != *last_name) {
        auto [it, added] = keys.try_emplace(name, static_cast<int32_t>(keys.size()), 0);
        if (added) {
          auto tier = tiers.find(name);
          it->second.second = tier == tiers.end() ? 0 : tier->second;
        }
        last_name = &it->first;
        last = it->second;
      }
      QueueCandidate c;
      c.partition = last.first;
      c.tier = last.second;
      c.priority = job->priority;
      c.submit_time = job->submit_time;
      c.id = job->id;
      c.ranked = job->ranked_version == job->version;
      candidates.push_back(std::move(c));
    }
    std::vector<const Job*> within;
    for (size_t i : WithinQueueDepth(candidates, queue_depth)) {
      within.push_back(inputs.pending[i]);
    }
    inputs.pending = std::move(within);
  }
  for (const Job* job : inputs.pending) input->versions[job->id] = job->version;
  if (!inputs.pending.empty()) input->snapshot = SchedulerSnapshot(inputs, now);
  return state_.Close(std::move(effects));
}

CtldSnapshot Lifecycle::SchedulerSnapshot(CtldSchedulerInputs& inputs, int64_t now) const {
  inputs.nodes = state_.nodes().Capacities();
  for (const Node& node : state_.nodes().nodes()) {
    inputs.node_features[node.config.name] = node.config.features;
  }
  inputs.partitions = config_->partitions;
  inputs.licenses = config_->licenses;
  inputs.qos = qos_;
  inputs.now = now;
  inputs.usage = state_.usage();
  inputs.accounts = &account_policy_;
  inputs.reservations = &state_.advance_reservations();  // read by BuildSnapshot only
  inputs.resv_calendar = settings_.resv_calendar;
  bank().FillBilling(inputs);
  return BuildSnapshot(inputs);
}

absl::StatusOr<CtldSnapshot> Lifecycle::WillRunSnapshot(const SubmitRequest& request, int64_t now,
                                                        std::vector<std::string>* warnings) const {
  absl::StatusOr<CheckedSubmission> checked = CheckSubmission(request, now);
  if (!checked.ok()) return checked.status();
  if (warnings != nullptr) *warnings = checked->warnings;
  Job* job = &checked->job;
  job->id = next_job_id_;
  job->submit_time = now;
  job->eligible_time = now;
  CtldSchedulerInputs inputs;
  for (const auto& [id, running] : state_.jobs()) {
    if (running.state == JobState::kConfiguring || running.state == JobState::kRunning ||
        running.state == JobState::kSuspended) {
      inputs.running.push_back(&running);
    }
  }
  inputs.pending.push_back(job);
  return SchedulerSnapshot(inputs, now);
}

absl::StatusOr<CtldSnapshot> Lifecycle::ExplainSnapshot(uint64_t job_id, int64_t now) const {
  const Job* job = Find(job_id);
  if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
  if (job->state != JobState::kPending) {
    return absl::FailedPreconditionError(absl::StrCat("JobId=", job_id, " is not pending"));
  }
  CtldSchedulerInputs inputs;
  for (const auto& [id, running] : state_.jobs()) {
    if (running.state == JobState::kConfiguring || running.state == JobState::kRunning ||
        running.state == JobState::kSuspended) {
      inputs.running.push_back(&running);
    }
  }
  inputs.pending.push_back(job);
  return SchedulerSnapshot(inputs, now);
}

Effects Lifecycle::ApplySchedule(const PassInput& input, const PassPlan& plan, int64_t now,
                                 bool* replan) {
  state_.Begin();
  Effects effects;
  for (const PassPlan::Victim& victim : plan.victims) {
    const Job* job = Find(victim.job_id);
    if (job == nullptr ||
        !(job->state == JobState::kRunning || job->state == JobState::kConfiguring) ||
        job->final_state != JobState::kCompleted) {
      continue;  // ended or already being stopped since the snapshot
    }
    Preempt(state_.Mut(victim.job_id), victim.requeue && job->requeue, victim.grace_time,
            plan.preemptor, now, effects);
  }
  const std::vector<PendingJob>& pending = input.snapshot.pending;
  for (size_t i = 0; i < pending.size() && i < plan.priorities.size(); ++i) {
    Job* job = state_.Derived(pending[i].id);
    if (job == nullptr || job->state != JobState::kPending) continue;
    // Eligible from the first pass that finds it neither held nor waiting on a
    // dependency (Slurm's EligibleTime and AccrueTime; age counts from then).
    // Stored in this frame, after the snapshot's versions were taken.
    if (job->eligible_time == 0 && !job->held) {
      job = &state_.Mut(job->id);
      job->eligible_time = now;
    }
    job->priority = job->held ? 0 : plan.priorities[i];
    job->ranked_version = job->held ? 0 : job->version;
    job->factors = plan.factors[i];
    if (plan.estimates) {  // estimates come from backfill's reservations
      auto it = plan.expected_start.find(job->id);
      job->expected_start = it == plan.expected_start.end() ? 0 : it->second;
      auto nodes = plan.sched_nodes.find(job->id);
      job->sched_nodes = nodes == plan.sched_nodes.end() ? "" : nodes->second;
    }
    job->sched_description.clear();
  }
  for (const PendingReason& reason : plan.result.pending) {
    Job* job = state_.Derived(reason.job_id);
    if (job == nullptr || job->state != JobState::kPending) continue;
    // A job changed since the snapshot (an operator's hold: JobHeldAdmin) keeps
    // the reason that change gave it; the next pass looks at it again.
    auto planned = input.versions.find(reason.job_id);
    if (planned == input.versions.end() || job->version != planned->second) {
      *replan = true;
      continue;
    }
    job->reason = reason.reason;
    job->sched_description = reason.description;
  }
  for (const Placement& placement : plan.result.placements) {
    const Job* current = Find(placement.job_id);
    auto planned = input.versions.find(placement.job_id);
    if (current == nullptr || current->state != JobState::kPending ||
        planned == input.versions.end() || current->version != planned->second ||
        !state_.nodes().CanAllocate(placement)) {
      *replan = true;  // changed since the snapshot: the next pass decides again
      continue;
    }
    Job& job = state_.Mut(placement.job_id);
    job.cpu_ids_by_node = state_.MutNodes().Allocate(placement);
    job.nodes = placement.nodes;
    job.cpus_by_node = placement.cpus;
    job.mem_by_node_mb = placement.mem_mb;
    job.tasks_by_node = placement.tasks;
    job.gpus_by_node = placement.gpu_indices;
    job.shares_by_node = placement.shares;
    job.gpu_indices =
        placement.gpu_indices.empty() ? std::vector<int>{} : placement.gpu_indices.front();
    if (placement.time_limit > 0) job.request.time_limit = placement.time_limit;  // --time-min
    job.alloc_tres = bank().RunTresOf(job);
    job.start_time = now;
    job.expected_start = 0;
    job.sched_nodes.clear();
    job.sched_description.clear();
    job.reason = "None";
    job.progress.launched = false;
    if (!placement.reservation.empty()) job.reservation = placement.reservation;  // MAGNETIC
    if (!TransitionJob(job, JobEvent::kAllocate, effects)) continue;
    if (placement.backfilled) ++effects.tally.backfilled;
    ContinueStart(job, now, effects);
  }
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
