// pass::State's start-time estimates and the backfill reservations made from
// them (Estimate, EstimateOneTaskPerNode, EstimateSpread, Reserve): defined
// here, inline, and included at the end of pass_state.h; scheduler.cc only.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_PASS_ESTIMATE_H_
#define SKIFF_CTLD_CORE_SCHEDULER_PASS_ESTIMATE_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ctld/core/scheduler/pass_state.h"
#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {
namespace pass {

// The earliest time `job` fits, counting running jobs until their ends and
// reservations as held from now until their ends; and the nodes then.
// `need` gets, per chosen node, what the job holds there, and `spare` the
// room left at that time after it. Room only grows with time here.
inline StartEstimate State::Estimate(const PendingJob& job, std::vector<Amount>* need,
                                     std::vector<Amount>* spare) const {
  if (!ShapeOf(job).OneTaskPerNode()) return EstimateSpread(job, need, spare);
  return EstimateOneTaskPerNode(job, need, spare);
}

// Estimate for a job with one task per node: each node fits from its own
// earliest time on, so the job starts when enough nodes (and every -w node)
// do. Cost: per candidate node, its releases up to the first that makes it fit.
inline StartEstimate State::EstimateOneTaskPerNode(const PendingJob& job, std::vector<Amount>* need,
                                                   std::vector<Amount>* spare) const {
  StartEstimate estimate;
  const SchedPartition& partition = view_.partitions[job.partition];
  const size_t wanted = static_cast<size_t>(std::max(job.num_nodes, 1));
  for (int32_t r : job.nodelist) {
    if (!Eligible(r, job)) return estimate;
  }
  // Candidates: -w nodes first, then the partition's other eligible nodes.
  std::vector<int32_t> candidates(job.nodelist.begin(), job.nodelist.end());
  for (int32_t n : partition.nodes) {
    if (!job.nodelist.empty() && Contains(job.nodelist, n)) continue;
    if (Eligible(n, job)) candidates.push_back(n);
  }
  if (candidates.size() < wanted) return estimate;
  std::vector<int64_t> fit_from(candidates.size(), kNever);
  for (size_t c = 0; c < candidates.size(); ++c) {
    const int32_t n = candidates[c];
    Amount free = FreeBeyondClaims(n);
    // Now, a shard job needs its shards on one GPU; later, the node's total
    // is the bound (which GPU frees first is not modelled).
    const bool shares_now =
        job.shares_per_node == 0 || ShareGpu(n, job, free.gpus > job.gpus_per_node) >= 0;
    if (FitsIn(n, free, job) && shares_now) {
      fit_from[c] = ResvFitFrom(n, job, now_);
      continue;
    }
    for (const Release& release : releases_[n]) {
      Add(&free, release.amount);
      if (FitsIn(n, free, job)) {
        fit_from[c] = ResvFitFrom(n, job, std::max(release.end, now_));
        break;
      }
    }
  }
  int64_t when = now_;
  for (size_t c = 0; c < job.nodelist.size(); ++c) when = std::max(when, fit_from[c]);
  std::vector<int64_t> sorted = fit_from;
  std::nth_element(sorted.begin(), sorted.begin() + (wanted - 1), sorted.end());
  when = std::max(when, sorted[wanted - 1]);
  if (when == kNever) return estimate;
  estimate.start = when;
  for (size_t c = 0; c < candidates.size() && estimate.nodes.size() < wanted; ++c) {
    if (fit_from[c] > when) continue;
    const int32_t n = candidates[c];
    estimate.nodes.push_back(n);
    if (need != nullptr) need->push_back(AmountOn(n, job));
    if (spare != nullptr) {
      Amount free = FreeBeyondClaims(n);
      for (const Release& release : releases_[n]) {
        if (release.end > when) break;
        Add(&free, release.amount);
      }
      spare->push_back(Minus(free, AmountOn(n, job)));
    }
  }
  return estimate;
}

// Estimate for a job whose tasks spread (placement.h): the first time,
// among now and the releases on its candidate nodes, at which it can be
// placed with every node's room then. Room only grows with time, so a
// binary search over those times finds it.
inline StartEstimate State::EstimateSpread(const PendingJob& job, std::vector<Amount>* need,
                                           std::vector<Amount>* spare) const {
  StartEstimate estimate;
  for (int32_t r : job.nodelist) {
    if (!Eligible(r, job)) return estimate;
  }
  std::vector<int64_t> times{now_};
  auto consider = [&](int32_t n) {
    for (const Release& release : releases_[n]) times.push_back(std::max(release.end, now_));
  };
  for (int32_t r : job.nodelist) consider(r);
  for (int32_t n : view_.partitions[job.partition].nodes) {
    if (Eligible(n, job) && !Contains(job.nodelist, n)) consider(n);
  }
  // Advance reservations: a window's end (and its own window's start) may
  // be the time it fits.
  for (const std::vector<Block>& blocks : blocks_) {
    for (const Block& b : blocks) {
      if (b.end > now_) times.push_back(b.end);
      if (b.resv == job.resv && b.start > now_) times.push_back(b.start);
    }
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  auto room_at = [&](int64_t when) {
    return [this, when, &job](int32_t n) {
      Amount free = FreeBeyondClaims(n);
      for (const Release& release : releases_[n]) {
        if (release.end > when) break;
        Add(&free, release.amount);
      }
      const int64_t end = job.time_limit == kNoLimit || when > kNever - job.time_limit
                              ? kNever
                              : when + job.time_limit;
      return ResvRoom(n, job, free, when, end);
    };
  };
  std::vector<NodeTake> takes;
  size_t lo = 0, hi = times.size();  // first fitting index in [lo, hi]; hi = none
  if (HasResvs()) {
    // Windows make room come and go: no longer monotonic, so look in order.
    // A job in a reservation also needs one of its windows open.
    for (lo = 0; lo < times.size(); ++lo) {
      if (job.resv >= 0 && !view_.resvs[job.resv].flex && !OwnWindowOpen(job, times[lo])) {
        continue;
      }
      if (Place(job, room_at(times[lo]), &takes, times[lo] == now_)) break;
    }
    hi = lo;
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (Place(job, room_at(times[mid]), &takes, times[mid] == now_)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo == times.size()) return estimate;
  const int64_t when = times[lo];
  const auto room = room_at(when);
  Place(job, room, &takes, when == now_);
  estimate.start = when;
  for (const NodeTake& take : takes) {
    const int32_t n = take.node;
    estimate.nodes.push_back(n);
    const Amount held = Held(n, job, take.cpus, static_cast<int64_t>(take.mem_mb));
    if (need != nullptr) need->push_back(held);
    if (spare != nullptr) {
      const Amount free = room(n);
      spare->push_back(Minus(free, held));
    }
  }
  return estimate;
}

// Reserves `estimate.nodes` for `job` from `estimate.start`, `need[k]` on
// the k-th.
inline void State::Reserve(const PendingJob& job, const StartEstimate& estimate,
                           const std::vector<Amount>& need_by_node,
                           const std::vector<Amount>& spare) {
  const int64_t end = job.time_limit == kNoLimit || estimate.start > kNever - job.time_limit
                          ? kNever
                          : estimate.start + job.time_limit;
  for (size_t k = 0; k < estimate.nodes.size(); ++k) {
    const int32_t n = estimate.nodes[k];
    const Amount need = need_by_node[k];
    for (Claim& claim : claims_[n]) {
      if (claim.start >= estimate.start && claim.start < end) {
        claim.spare = Minus(claim.spare, need);
      }
    }
    claims_[n].push_back({estimate.start, end, need, spare[k]});
    Add(&claimed_[n], need);
    AddRelease(n, end, need);
  }
}

}  // namespace pass
}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_PASS_ESTIMATE_H_
