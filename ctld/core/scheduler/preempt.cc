#include "ctld/core/scheduler/preempt.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace {

bool Contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool ContainsId(const std::vector<uint64_t>& list, uint64_t id) {
  return std::find(list.begin(), list.end(), id) != list.end();
}

bool InRange(int32_t index, size_t size) { return index >= 0 && static_cast<size_t>(index) < size; }

PreemptMode Resolve(PreemptMode own, PreemptMode cluster) {
  const PreemptMode mode = own == PreemptMode::kCluster ? cluster : own;
  return mode == PreemptMode::kCluster ? PreemptMode::kOff : mode;
}

// Could node `n` hold the job if it were empty (and is it usable, in the
// partition, allowed)? Only narrows the candidates; EarliestStart decides.
bool UsefulNode(const ClusterView& view, const PendingJob& job, int32_t n) {
  if (!InRange(n, view.nodes.size())) return false;
  const SchedNode& node = view.nodes[n];
  if (!node.usable || !Contains(view.partitions[job.partition].nodes, n)) return false;
  if (!NodeCouldHold(node, n, job)) return false;
  // With -w naming every node it needs, only those matter.
  return job.nodelist.size() < static_cast<size_t>(std::max(job.num_nodes, 1)) ||
         Contains(job.nodelist, n);
}

// Fit tests against `view` with a changing set of running jobs.
class FitTester {
 public:
  FitTester(const ClusterView& view, const PendingJob& job, int64_t now)
      : work_(view), job_(job), now_(now) {
    work_.running.clear();
  }

  // Does the job fit now with exactly `running` holding resources?
  bool Fits(const std::vector<const RunningJob*>& running, std::vector<int32_t>* nodes) {
    work_.running.clear();
    for (const RunningJob* job : running) work_.running.push_back(*job);
    StartEstimate estimate = EarliestStart(work_, job_, now_);
    if (estimate.start != now_) return false;
    if (nodes != nullptr) *nodes = std::move(estimate.nodes);
    return true;
  }

 private:
  ClusterView work_;
  const PendingJob& job_;
  const int64_t now_;
};

// `all` without the jobs whose index is marked in `removed`.
std::vector<const RunningJob*> Without(const std::vector<const RunningJob*>& all,
                                       const std::vector<uint8_t>& removed) {
  std::vector<const RunningJob*> out;
  out.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (!removed[i]) out.push_back(all[i]);
  }
  return out;
}

}  // namespace

PreemptAction CanPreempt(const ClusterView& view, const PreemptOptions& options,
                         const PendingJob& job, const RunningJob& running) {
  PreemptAction action;
  switch (options.type) {
    case PreemptType::kNone:
      return action;
    case PreemptType::kPartitionPrio: {
      if (!InRange(job.partition, view.partitions.size()) ||
          !InRange(running.partition, view.partitions.size())) {
        return action;
      }
      const SchedPartition& victim = view.partitions[running.partition];
      if (view.partitions[job.partition].priority_tier <= victim.priority_tier) return action;
      action.mode = Resolve(victim.preempt_mode, options.mode);
      action.grace_time = victim.grace_time;
      break;
    }
    case PreemptType::kQos: {
      if (!InRange(job.qos, view.qos.size()) || !InRange(running.qos, view.qos.size())) {
        return action;
      }
      if (!Contains(view.qos[job.qos].preempt, running.qos)) return action;
      const Qos& victim = view.qos[running.qos];
      action.mode = Resolve(victim.preempt_mode, options.mode);
      action.grace_time = victim.grace_time;
      break;
    }
  }
  action.allowed = action.mode == PreemptMode::kCancel || action.mode == PreemptMode::kRequeue;
  if (!action.allowed) action.grace_time = 0;
  return action;
}

PreemptPlan PlanPreemption(const ClusterView& view, const PendingJob& job,
                           const PreemptOptions& options, const PreemptExclusions& exclusions,
                           int64_t now) {
  PreemptPlan plan;
  if (!InRange(job.partition, view.partitions.size())) return plan;
  FitTester tester(view, job, now);

  // Jobs that keep their resources whatever happens, and the candidates.
  std::vector<const RunningJob*> staying;
  struct Candidate {
    const RunningJob* job;
    PreemptAction action;
    std::tuple<int64_t, int64_t, int64_t, uint64_t> key;  // ascending = preempt first
  };
  std::vector<Candidate> candidates;
  std::vector<uint8_t> useful(view.nodes.size(), 0);
  for (size_t n = 0; n < view.nodes.size(); ++n) {
    useful[n] = UsefulNode(view, job, static_cast<int32_t>(n));
  }
  for (const RunningJob& running : view.running) {
    if (ContainsId(exclusions.leaving, running.id)) continue;
    const PreemptAction action = ContainsId(exclusions.exempt, running.id)
                                     ? PreemptAction{}
                                     : CanPreempt(view, options, job, running);
    bool helps = false;
    for (int32_t n : running.nodes) helps = helps || (InRange(n, useful.size()) && useful[n]);
    if (!action.allowed || !helps) {
      staying.push_back(&running);
      continue;
    }
    const int64_t tier = view.partitions[running.partition].priority_tier;
    const int64_t qos_priority = InRange(running.qos, view.qos.size())
                                     ? view.qos[running.qos].priority
                                     : std::numeric_limits<int64_t>::min();
    const int64_t first = options.type == PreemptType::kQos ? qos_priority : tier;
    const int64_t second = options.type == PreemptType::kQos ? tier : qos_priority;
    candidates.push_back({&running, action, {first, second, -running.start_time, ~running.id}});
  }
  // Running set: staying jobs, then the candidates in preemption order.
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  std::vector<const RunningJob*> all = staying;
  for (const Candidate& c : candidates) all.push_back(c.job);
  if (tester.Fits(all, &plan.nodes)) {
    plan.fits = true;  // nothing new to preempt
    return plan;
  }
  // With the first `k` candidates removed; fitting is monotone in k.
  const size_t base = staying.size();
  std::vector<uint8_t> removed(all.size(), 0);
  auto fits_with_prefix = [&](size_t k) {
    std::fill(removed.begin(), removed.end(), 0);
    for (size_t i = 0; i < k; ++i) removed[base + i] = 1;
    return tester.Fits(Without(all, removed), nullptr);
  };
  if (candidates.empty() || !fits_with_prefix(candidates.size())) return plan;
  size_t lo = 1, hi = candidates.size();  // the shortest fitting prefix is in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (fits_with_prefix(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  std::fill(removed.begin(), removed.end(), 0);
  for (size_t i = 0; i < lo; ++i) removed[base + i] = 1;
  // Spare every victim that is not needed, least preferred first.
  for (size_t i = lo; i-- > 0;) {
    removed[base + i] = 0;
    if (!tester.Fits(Without(all, removed), nullptr)) removed[base + i] = 1;
  }
  plan.fits = tester.Fits(Without(all, removed), &plan.nodes);
  for (size_t i = 0; i < lo; ++i) {
    if (!removed[base + i]) continue;
    const Candidate& c = candidates[i];
    plan.victims.push_back({c.job->id, c.action.mode, c.action.grace_time});
  }
  return plan;
}

}  // namespace skiff::ctld
