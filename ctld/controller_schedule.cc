// The Controller's scheduling pass: snapshot under mu_, plan without it, apply
// under mu_ again.
//
// Under mu_ the pass only copies what the pure scheduler needs (the compact
// ClusterView and PendingJobs that BuildSnapshot makes) and decides which
// pending jobs may be considered at all (array throttles, dependencies). The
// plan (priority, main pass, backfill) is made without the lock, so RPCs are
// never blocked behind a pass. Applying re-checks every start against the live
// state: a job changed since the snapshot (cancelled, held, updated) or a node
// that went away simply waits for the next pass.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ctld/controller.h"
#include "ctld/core/dependency.h"
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff {
namespace {

// Jobs examined for preemption per pass (in queue order).
constexpr int kMaxPreemptorsTested = 50;

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

// The job table as dependencies see it. Used only under the Controller's mutex.
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
          job.state == JobState::kCompleting || (job.state == JobState::kPending && id < self_id)) {
        return true;
      }
    }
    return false;
  }

 private:
  const std::map<uint64_t, Job>& jobs_;
};

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

}  // namespace

absl::Status Controller::CheckDependencyLocked(const Job& job) {
  if (job.dependency.empty()) return absl::OkStatus();
  absl::StatusOr<Dependency> dependency = ParseDependency(job.dependency, config_.max_array_size);
  if (!dependency.ok()) return dependency.status();
  return ValidateDependency(*dependency, DependentOf(job), JobTableLookup(jobs_)).status();
}

// Whether a pending job's dependencies let it be scheduled now; sets its reason
// and scontrol's Dependency= text. A never-satisfiable dependency cancels the
// job when it asked for --kill-on-invalid-dep.
bool Controller::DependencyAllowsLocked(Job& job, int64_t now, Effects& effects) {
  if (job.dependency.empty()) return true;
  absl::StatusOr<Dependency> dependency = ParseDependency(job.dependency, config_.max_array_size);
  if (!dependency.ok()) {  // accepted at submit, so only a changed MaxArraySize gets here
    job.reason = "DependencyNeverSatisfied";
    return false;
  }
  const DependencyEvaluation evaluation =
      EvaluateDependency(*dependency, DependentOf(job), JobTableLookup(jobs_), now);
  job.dependency_text = FormatRemaining(*dependency, evaluation);
  switch (evaluation.overall) {
    case DependencyResult::kSatisfied:
      return true;
    case DependencyResult::kWaiting:
      job.reason = "Dependency";
      return false;
    case DependencyResult::kNeverSatisfied:
      job.reason = "DependencyNeverSatisfied";
      if (job.kill_on_invalid_dep) {
        job.end_time = now;
        job.final_state = JobState::kCancelled;
        TransitionLocked(job, JobEvent::kCancelPending, effects);
        effects.save.push_back(job);
        effects.log.push_back(
            absl::StrCat("JobId=", job.id, " cancelled: its dependency can never be satisfied"));
      }
      return false;
  }
  return false;
}

void Controller::RunSchedulePass() {
  CtldSnapshot snapshot;
  std::unordered_map<uint64_t, uint64_t> versions;  // pending job id -> version planned on
  int64_t now = clock_.Now();
  Effects dependency_effects;     // --kill-on-invalid-dep cancellations
  std::vector<uint64_t> leaving;  // running jobs already being stopped
  std::vector<Job*> stage_in;     // burst-buffer jobs that may stage in now
  {
    absl::MutexLock lock(&mu_);
    CtldSchedulerInputs inputs;
    // Array throttles (%N): how many tasks of each array hold resources now.
    std::unordered_map<uint64_t, int32_t> array_running;
    for (const auto& [id, job] : jobs_) {
      if (job.array_job_id != 0 && job.array_max_running > 0 &&
          (job.state == JobState::kConfiguring || job.state == JobState::kRunning ||
           job.state == JobState::kCompleting)) {
        ++array_running[job.array_job_id];
      }
    }
    for (auto& [id, job] : jobs_) {
      if (job.state == JobState::kPending) {
        if (!DependencyAllowsLocked(job, now, dependency_effects)) continue;
        if (!BbReadyLocked(job)) {
          if (job.bb_state == BbState::kPending && !job.held &&
              std::max(job.eligible_time, job.request.begin_time) <= now) {
            stage_in.push_back(&job);
          }
          continue;
        }
        if (job.array_job_id != 0 && job.array_max_running > 0 && !job.held) {
          // Only as many tasks as the throttle leaves room for are offered to the
          // scheduler (lowest task ids first: jobs_ is in id order).
          int32_t& count = array_running[job.array_job_id];
          if (count >= job.array_max_running) {
            job.reason = "JobArrayTaskLimit";
            continue;
          }
          ++count;
        }
        inputs.pending.push_back(&job);
        versions[id] = job.version;
      } else if (job.state == JobState::kConfiguring || job.state == JobState::kRunning) {
        inputs.running.push_back(&job);  // they hold resources (COMPLETING ones gave them back)
        // Being stopped already (preempted or cancelled): their resources are on their way back.
        if (job.final_state != JobState::kCompleted) leaving.push_back(id);
      }
    }
    if (!stage_in.empty()) BbStartStageInsLocked(std::move(stage_in), dependency_effects);
    if (!inputs.pending.empty()) {
      inputs.nodes = nodes_.Capacities();
      for (const Node& node : nodes_.nodes()) {
        inputs.node_features[node.config.name] = node.config.features;
      }
      inputs.partitions = config_.partitions;
      inputs.qos = ToSchedQosTable(qos_);
      inputs.now = now;
      inputs.usage = usage_;
      snapshot = BuildSnapshot(inputs);
    }
  }
  Apply(std::move(dependency_effects));
  if (snapshot.pending.empty()) return;

  // The plan, without the lock.
  SchedulerOptions options = scheduler_options_;
  if (options.backfill) {
    // Backfill at most every bf_interval seconds; the main pass runs every time.
    const int64_t due = next_backfill_.load();
    if (now < due) {
      options.backfill = false;
    } else {
      next_backfill_ = now + options.bf_interval;
    }
  }
  const SchedulePlan plan = Schedule(snapshot.view, snapshot.pending, options, now);
  const ScheduleResult result = ToScheduleResult(snapshot, plan);
  const PriorityContext context =
      MakePriorityContext(snapshot.view, scheduler_options_.weights, now);
  std::unordered_map<uint64_t, int64_t> expected_start;
  for (const Reservation& reservation : plan.reservations) {
    if (reservation.start != kNever) expected_start[reservation.job_id] = reservation.start;
  }

  // Preemption: the first job in queue order that waits for resources and could
  // start once some running jobs it may preempt are gone. One preemptor per pass
  // keeps the plan simple; the victims' ends wake the scheduler again, and the
  // preemptor is then first in line for what they free.
  PreemptPlan preemption;
  uint64_t preemptor = 0;
  if (preempt_options_.type != PreemptType::kNone) {
    PreemptExclusions exclusions;
    exclusions.leaving = leaving;
    const std::vector<uint32_t> order =
        OrderQueue(snapshot.view, snapshot.pending, scheduler_options_.weights, now, nullptr);
    int tested = 0;
    for (uint32_t i : order) {
      const WaitReason reason = plan.reasons[i];
      if (reason != WaitReason::kResources && reason != WaitReason::kPriority) continue;
      if (++tested > kMaxPreemptorsTested) break;
      PreemptPlan candidate =
          PlanPreemption(snapshot.view, snapshot.pending[i], preempt_options_, exclusions, now);
      if (candidate.fits && !candidate.victims.empty()) {
        preemption = std::move(candidate);
        preemptor = snapshot.pending[i].id;
        break;
      }
    }
  }

  // sprio's weighted factors, computed before the lock is taken again.
  std::vector<Job::Factors> factors(snapshot.pending.size());
  {
    const PriorityWeights& w = scheduler_options_.weights;
    for (size_t i = 0; i < snapshot.pending.size(); ++i) {
      const PriorityFactors f =
          ComputePriority(snapshot.view, context, w, snapshot.pending[i], now);
      factors[i] = {std::llround(f.age * w.age), std::llround(f.fairshare * w.fairshare),
                    std::llround(f.job_size * w.job_size), std::llround(f.partition * w.partition),
                    std::llround(f.qos * w.qos)};
    }
  }

  Effects effects;
  bool replan = false;
  {
    absl::MutexLock lock(&mu_);
    for (const PreemptVictim& victim : preemption.victims) {
      Job* job = FindJobLocked(victim.job_id);
      if (job == nullptr ||
          (job->state != JobState::kRunning && job->state != JobState::kConfiguring) ||
          job->final_state != JobState::kCompleted) {
        continue;  // ended or already being stopped since the snapshot
      }
      PreemptLocked(*job, victim.mode == PreemptMode::kRequeue && job->requeue, victim.grace_time,
                    preemptor, effects);
    }
    for (size_t i = 0; i < snapshot.pending.size(); ++i) {
      Job* job = FindJobLocked(snapshot.pending[i].id);
      if (job == nullptr || job->state != JobState::kPending) continue;
      job->priority = job->held ? 0 : plan.priorities[i];
      job->factors = factors[i];
      if (options.backfill) {  // estimates come from backfill's reservations
        auto it = expected_start.find(job->id);
        job->expected_start = it == expected_start.end() ? 0 : it->second;
      }
    }
    for (const PendingReason& reason : result.pending) {
      Job* job = FindJobLocked(reason.job_id);
      if (job != nullptr && job->state == JobState::kPending) {
        job->reason = reason.reason;  // derived; not persisted on its own
      }
    }
    for (const Placement& placement : result.placements) {
      Job* job = FindJobLocked(placement.job_id);
      if (job == nullptr || job->state != JobState::kPending ||
          job->version != versions[placement.job_id] || !nodes_.CanAllocate(placement)) {
        replan = true;  // changed since the snapshot: the next pass decides again
        continue;
      }
      nodes_.Allocate(placement);
      job->nodes = placement.nodes;
      job->cpus_per_node = placement.cpus_per_node;
      job->mem_per_node_mb = placement.mem_per_node_mb;
      job->gpus_by_node = placement.gpu_indices;
      job->gpu_indices =
          placement.gpu_indices.empty() ? std::vector<int>{} : placement.gpu_indices.front();
      job->start_time = now;
      job->expected_start = 0;
      job->reason = "None";
      job->launched = false;
      if (!TransitionLocked(*job, JobEvent::kAllocate, effects)) continue;
      ContinueStartLocked(*job, effects);
    }
  }
  Apply(std::move(effects));
  if (replan) RequestSchedule();
}

void Controller::PreemptLocked(Job& job, bool requeue, int64_t grace_time, uint64_t preemptor,
                               Effects& effects) {
  job.final_state = JobState::kPreempted;
  job.preempt_requeue = requeue;
  job.reason_detail = absl::StrCat("preempted by JobId=", preemptor);
  ++job.version;
  effects.save.push_back(job);
  effects.log.push_back(absl::StrCat("JobId=", job.id, " preempted by JobId=", preemptor, " (",
                                     requeue ? "REQUEUE" : "CANCEL", ", GraceTime=", grace_time,
                                     ")"));
  if (job.state == JobState::kConfiguring && !job.launched) {
    job.cancel_requested = true;  // the prolog or launch in flight checks it when it returns
    return;
  }
  terminate_sent_.insert(job.id);
  effects.actions.push_back(
      TerminateAction(NodeTargetLocked(job.nodes.front()), job.id, grace_time));
}

}  // namespace skiff
