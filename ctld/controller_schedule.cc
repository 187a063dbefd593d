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
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff {

void Controller::RunSchedulePass() {
  CtldSnapshot snapshot;
  std::unordered_map<uint64_t, uint64_t> versions;  // pending job id -> version planned on
  int64_t now = 0;
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
      }
    }
    if (inputs.pending.empty()) return;
    inputs.nodes = nodes_.Capacities();
    for (const Node& node : nodes_.nodes()) {
      inputs.node_features[node.config.name] = node.config.features;
    }
    inputs.partitions = config_.partitions;
    for (const auto& [name, info] : qos_) inputs.qos.push_back(ToSchedQos(info));
    now = clock_.Now();
    snapshot = BuildSnapshot(inputs);
  }

  // The plan, without the lock.
  const SchedulePlan plan = Schedule(snapshot.view, snapshot.pending, scheduler_options_, now);
  const ScheduleResult result = ToScheduleResult(snapshot, plan);
  const PriorityContext context =
      MakePriorityContext(snapshot.view, scheduler_options_.weights, now);
  std::unordered_map<uint64_t, int64_t> expected_start;
  for (const Reservation& reservation : plan.reservations) {
    if (reservation.start != kNever) expected_start[reservation.job_id] = reservation.start;
  }

  Effects effects;
  bool replan = false;
  {
    absl::MutexLock lock(&mu_);
    const PriorityWeights& w = scheduler_options_.weights;
    for (size_t i = 0; i < snapshot.pending.size(); ++i) {
      Job* job = FindJobLocked(snapshot.pending[i].id);
      if (job == nullptr || job->state != JobState::kPending) continue;
      const PriorityFactors f =
          ComputePriority(snapshot.view, context, w, snapshot.pending[i], now);
      job->priority = job->held ? 0 : plan.priorities[i];
      job->factors = {std::llround(f.age * w.age), std::llround(f.fairshare * w.fairshare),
                      std::llround(f.job_size * w.job_size),
                      std::llround(f.partition * w.partition), std::llround(f.qos * w.qos)};
      auto it = expected_start.find(job->id);
      job->expected_start = it == expected_start.end() ? 0 : it->second;
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

}  // namespace skiff
