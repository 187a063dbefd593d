#include "ctld/core/lifecycle/schedule_pass.h"

#include <cmath>

#include "ctld/core/scheduler/priority.h"

namespace skiff::ctld {
namespace {

// Jobs examined for preemption per pass (in queue order).
constexpr int kMaxPreemptorsTested = 50;

}  // namespace

PassPlan PlanPass(const PassInput& input, const SchedulerOptions& options,
                  const PreemptOptions& preempt, int64_t now, const PhaseTimer* timer) {
  PassPlan out;
  const CtldSnapshot& snapshot = input.snapshot;
  if (snapshot.pending.empty()) return out;
  const SchedulePlan plan = Schedule(snapshot.view, snapshot.pending, options, now, timer);
  out.stats = {plan.main_tested, plan.backfill_tested, plan.backfill_tried, plan.backfill_queue,
               plan.backfill_micros};
  out.result = ToScheduleResult(snapshot, plan);
  out.priorities = plan.priorities;
  out.estimates = options.backfill;
  for (const Reservation& reservation : plan.reservations) {
    if (reservation.start != kNever) out.expected_start[reservation.job_id] = reservation.start;
  }
  const std::vector<std::string> sched_nodes = ScheduledNodes(snapshot, plan);
  for (size_t i = 0; i < sched_nodes.size(); ++i) {
    if (!sched_nodes[i].empty()) out.sched_nodes[snapshot.pending[i].id] = sched_nodes[i];
  }

  // Preemption: the first job in queue order that waits for resources and could
  // start once some running jobs it may preempt are gone. One preemptor per pass
  // keeps the plan simple; the victims' ends wake the scheduler again, and the
  // preemptor is then first in line for what they free.
  if (preempt.type != PreemptType::kNone) {
    PreemptExclusions exclusions;
    exclusions.leaving = input.leaving;
    const std::vector<uint32_t> order =
        OrderQueue(snapshot.view, snapshot.pending, options.weights, now, nullptr);
    int tested = 0;
    for (uint32_t i : order) {
      const WaitReason reason = plan.reasons[i];
      if (reason != WaitReason::kResources && reason != WaitReason::kPriority) continue;
      if (++tested > kMaxPreemptorsTested) break;
      PreemptPlan candidate =
          PlanPreemption(snapshot.view, snapshot.pending[i], preempt, exclusions, now);
      if (candidate.fits && !candidate.victims.empty()) {
        for (const PreemptVictim& victim : candidate.victims) {
          out.victims.push_back(
              {victim.job_id, victim.mode == PreemptMode::kRequeue, victim.grace_time});
        }
        out.preemptor = snapshot.pending[i].id;
        break;
      }
    }
  }

  // sprio's weighted factors.
  const PriorityContext context = MakePriorityContext(snapshot.view, options.weights, now);
  const PriorityWeights& w = options.weights;
  out.factors.resize(snapshot.pending.size());
  for (size_t i = 0; i < snapshot.pending.size(); ++i) {
    const PriorityFactors f = ComputePriority(snapshot.view, context, w, snapshot.pending[i], now);
    out.factors[i] = {
        std::llround(f.age * w.age),           std::llround(f.fairshare * w.fairshare),
        std::llround(f.job_size * w.job_size), std::llround(f.partition * w.partition),
        std::llround(f.qos * w.qos),           std::llround(f.tres_cpu * w.tres.cpu),
        std::llround(f.tres_mem * w.tres.mem), std::llround(f.tres_node * w.tres.node),
        std::llround(f.tres_gpu * w.tres.gpu)};
  }
  return out;
}

}  // namespace skiff::ctld
