#include "ctld/core/scheduler/scheduler.h"

#include <algorithm>
#include <limits>

#include "ctld/core/scheduler/pass_state.h"

namespace skiff::ctld {
namespace {

using pass::Amount;
using pass::Over;
using pass::QosList;
using pass::State;

// A job's shape, for skipping backfill candidates that cannot fit when an
// identical one with an earlier or equal end just failed.
struct Shape {
  const PendingJob* job;
  int64_t failed_end;

  bool Same(const PendingJob& other) const {
    const PendingJob& a = *job;
    return a.partition == other.partition && a.num_nodes == other.num_nodes &&
           a.cpus_per_node == other.cpus_per_node && a.gpus_per_node == other.gpus_per_node &&
           a.gpu_type == other.gpu_type && a.shares_per_node == other.shares_per_node &&
           a.mem_per_node_mb == other.mem_per_node_mb && a.exclusive == other.exclusive &&
           a.ntasks == other.ntasks && a.cpus_per_task == other.cpus_per_task &&
           a.max_nodes == other.max_nodes && a.want_nodes == other.want_nodes &&
           a.ntasks_per_node == other.ntasks_per_node &&
           a.min_cpus_per_node == other.min_cpus_per_node && a.overcommit == other.overcommit &&
           a.contiguous == other.contiguous && a.mem_per_cpu_mb == other.mem_per_cpu_mb &&
           a.min_tmp_disk_mb == other.min_tmp_disk_mb && a.min_topology == other.min_topology;
  }
};

bool Plain(const PendingJob& job) {
  return job.nodelist.empty() && job.exclude.empty() && job.features.empty();
}

}  // namespace

MainPassResult MainPass(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, int64_t now) {
  MainPassResult result;
  result.reasons.assign(pending.size(), WaitReason::kNone);
  result.details.assign(pending.size(), WaitDetail::kNone);
  State state(view, now);
  std::vector<uint8_t> blocked(view.partitions.size(), 0);
  // Partitions whose own top job waits for resources (Slurm's failed_parts).
  std::vector<uint8_t> failed(view.partitions.size(), 0);
  // Nodes Slurm counts as unavailable to later jobs: not usable, or in a
  // failed partition; and per partition how many of its nodes remain.
  std::vector<uint8_t> unavailable(view.nodes.size(), 0);
  for (size_t n = 0; n < view.nodes.size(); ++n) unavailable[n] = view.nodes[n].usable ? 0 : 1;
  std::vector<int64_t> available(view.partitions.size(), 0);
  auto count_available = [&] {
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      available[p] = 0;
      for (int32_t n : view.partitions[p].nodes) available[p] += unavailable[n] ? 0 : 1;
    }
  };
  count_available();
  // A blocked partition also blocks the lower-tier partitions that share nodes
  // with it: their jobs go to backfill, which respects the blocked job's
  // reservation, so a higher tier (a preemptor waiting for its victims to
  // leave, say) is never overtaken on its own nodes.
  std::vector<std::vector<int32_t>> shadowed(view.partitions.size());
  {
    std::vector<std::vector<uint8_t>> has(view.partitions.size(),
                                          std::vector<uint8_t>(view.nodes.size(), 0));
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      for (int32_t n : view.partitions[p].nodes) has[p][n] = 1;
    }
    for (size_t p = 0; p < view.partitions.size(); ++p) {
      for (size_t q = 0; q < view.partitions.size(); ++q) {
        if (view.partitions[q].priority_tier >= view.partitions[p].priority_tier) continue;
        const bool overlap =
            std::any_of(view.partitions[q].nodes.begin(), view.partitions[q].nodes.end(),
                        [&](int32_t n) { return has[p][n] != 0; });
        if (overlap) shadowed[p].push_back(static_cast<int32_t>(q));
      }
    }
  }
  std::vector<NodeTake> takes;
  for (uint32_t index : order) {
    const PendingJob& job = pending[index];
    WaitReason reason = state.Precheck(job);
    WaitDetail detail = WaitDetail::kNone;
    const bool too_few_nodes = available[job.partition] < std::max(job.num_nodes, 1);
    if (reason == WaitReason::kNone) {
      // A job asking for a down node waits for it, whatever else waits (Slurm
      // names the node even behind its partition's top job).
      for (int32_t r : job.nodelist) {
        if (r >= 0 && static_cast<size_t>(r) < view.nodes.size() && !view.nodes[r].usable) {
          reason = WaitReason::kReqNodeNotAvail;
          detail = WaitDetail::kUnavailableNodes;
          break;
        }
      }
    }
    if (reason == WaitReason::kNone && blocked[job.partition]) {
      reason = WaitReason::kPriority;
      // Slurm says why for a job whose partition's nodes are taken by another
      // partition's waiting job (not for one waiting behind its own partition's).
      if (!failed[job.partition] && too_few_nodes) detail = WaitDetail::kNodesUnavailable;
    }
    if (reason == WaitReason::kNone) {
      ++result.tested;
      const int64_t end = state.EndOf(job);
      // MAGNETIC reservations the job may use come first, as if it had asked
      // for each (Slurm queues it once per such reservation, then alone).
      bool started = false;
      for (int32_t m : job.magnetic) {
        PendingJob in = job;
        in.resv = m;
        if (state.Precheck(in) != WaitReason::kNone) continue;  // its window is not open
        if (state.Place(
                in, [&](int32_t n) { return state.ResvRoom(n, in, state.FreeNow(n), now, end); },
                &takes)) {
          JobStart start = state.Start(index, in, takes, /*backfilled=*/false);
          start.magnetic = m;
          result.starts.push_back(std::move(start));
          started = true;
          break;
        }
      }
      if (started) continue;
      // --prefer: its features first, in place of -C's.
      if (!job.prefer.empty()) {
        PendingJob preferred = job;
        preferred.features = job.prefer;
        if (state.Place(
                preferred,
                [&](int32_t n) { return state.ResvRoom(n, preferred, state.FreeNow(n), now, end); },
                &takes)) {
          result.starts.push_back(state.Start(index, preferred, takes, /*backfilled=*/false));
          continue;
        }
      }
      if (state.Place(
              job, [&](int32_t n) { return state.ResvRoom(n, job, state.FreeNow(n), now, end); },
              &takes)) {
        result.starts.push_back(state.Start(index, job, takes, /*backfilled=*/false));
        continue;
      }
      reason = state.NoFitReason(job);
      // A job that would fit now but for an advance reservation's window
      // waits for resources like any other (its partition is blocked and
      // backfill plans it after the window), with Slurm's words when the
      // reservation is a maintenance one.
      bool kept_off = false;
      if (reason == WaitReason::kResources && state.HasResvs() &&
          state.Place(
              job, [&](int32_t n) { return state.FreeNow(n); }, &takes)) {
        kept_off = true;
        if (state.MaintBlocks(job, end)) {
          reason = WaitReason::kReqNodeNotAvail;
          detail = WaitDetail::kReservedForMaintenance;
        }
      }
      if (kept_off) {
        // detail as set above
      } else if (reason == WaitReason::kReqNodeNotAvail) {
        detail = job.nodelist.empty() && too_few_nodes ? WaitDetail::kNodesUnavailable
                                                       : WaitDetail::kUnavailableNodes;
      } else if (reason == WaitReason::kResources && too_few_nodes) {
        detail = WaitDetail::kNodesUnavailable;
      }
      if (reason == WaitReason::kResources || kept_off) {
        blocked[job.partition] = 1;
        for (int32_t q : shadowed[job.partition]) blocked[q] = 1;
        result.blocked.push_back(index);
        if (!failed[job.partition]) {
          failed[job.partition] = 1;
          for (int32_t n : view.partitions[job.partition].nodes) unavailable[n] = 1;
          count_available();
        }
      }
    }
    result.reasons[index] = reason;
    result.details[index] = detail;
  }
  return result;
}

BackfillResult Backfill(const ClusterView& view, const std::vector<PendingJob>& pending,
                        const std::vector<uint32_t>& order, const MainPassResult& main,
                        const SchedulerOptions& options, int64_t now) {
  BackfillResult result;
  State state(view, now);
  for (const JobStart& start : main.starts) state.Replay(pending[start.pending_index], start);
  // Reserves the earliest place `index` fits after every reservation so far.
  std::vector<uint8_t> planned(pending.size(), 0);
  auto plan = [&](uint32_t index) {
    planned[index] = 1;
    const PendingJob& job = pending[index];
    std::vector<Amount> need, spare;
    StartEstimate estimate = state.Estimate(job, &need, &spare);
    if (estimate.start == kNever) return;
    state.Reserve(job, estimate, need, spare);
    result.reservations.push_back({job.id, index, estimate.start, std::move(estimate.nodes)});
  };
  for (uint32_t index : main.blocked) plan(index);
  result.queue_length = static_cast<int32_t>(
      std::count_if(main.reasons.begin(), main.reasons.end(), [](WaitReason reason) {
        return reason == WaitReason::kPriority || reason == WaitReason::kResources;
      }));
  std::vector<Shape> failed;
  std::vector<NodeTake> takes;
  for (uint32_t index : order) {
    const WaitReason reason = main.reasons[index];
    if (reason != WaitReason::kPriority && reason != WaitReason::kResources) continue;
    if (result.tested >= options.bf_max_job_test) break;
    ++result.tested;
    if (planned[index]) continue;  // a partition's top job: reserved above
    const PendingJob& job = pending[index];
    WaitReason limit = state.UserLimit(job);
    if (limit == WaitReason::kNone && !state.LicensesFree(job)) limit = WaitReason::kLicenses;
    if (limit != WaitReason::kNone) {
      result.newly_limited.push_back(index);
      result.limit_reasons.push_back(limit);
      continue;
    }
    const int64_t end = state.EndOf(job);
    const bool plain = Plain(job);
    bool skip = reason == WaitReason::kResources;  // nothing was freed since the main pass
    if (plain && !skip) {
      for (const Shape& shape : failed) {
        if (shape.Same(job) && end >= shape.failed_end) skip = true;
      }
    }
    if (!skip) ++result.tried;
    if (!skip && !job.prefer.empty()) {
      PendingJob preferred = job;
      preferred.features = job.prefer;
      if (state.Place(
              preferred,
              [&](int32_t n) {
                return state.ResvRoom(n, preferred, state.FreeUntil(n, end), now, end);
              },
              &takes)) {
        result.starts.push_back(state.Start(index, preferred, takes, /*backfilled=*/true));
        continue;
      }
    }
    if (!skip &&
        state.Place(
            job,
            [&](int32_t n) { return state.ResvRoom(n, job, state.FreeUntil(n, end), now, end); },
            &takes)) {
      result.starts.push_back(state.Start(index, job, takes, /*backfilled=*/true));
      // Starting consumed room: earlier failures stay failures.
      continue;
    }
    // --time-min: the longest limit from it up that fits now (whole minutes,
    // as Slurm's limits), found by halving: a shorter limit fits wherever a
    // longer one does. Tried even where the full limit was skipped: what
    // failed (the main pass, an alike job) failed with a later end.
    if (job.time_min > 0 && job.time_limit != kNoLimit && job.time_min < job.time_limit) {
      PendingJob shorter = job;
      auto fits = [&](int64_t minutes) {
        shorter.time_limit = minutes * 60;
        const int64_t short_end = state.EndOf(shorter);
        return state.Place(
            shorter,
            [&](int32_t n) {
              return state.ResvRoom(n, shorter, state.FreeUntil(n, short_end), now, short_end);
            },
            &takes);
      };
      int64_t lo = (job.time_min + 59) / 60, hi = (job.time_limit - 1) / 60;
      if (lo <= hi && fits(lo)) {
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo + 1) / 2;
          if (fits(mid)) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        fits(lo);  // `takes` for the limit found
        JobStart start = state.Start(index, shorter, takes, /*backfilled=*/true);
        start.time_limit = shorter.time_limit;
        result.starts.push_back(std::move(start));
        continue;
      }
    }
    if (plain && !skip) {
      bool found = false;
      for (Shape& shape : failed) {
        if (shape.Same(job)) {
          shape.failed_end = std::min(shape.failed_end, end);
          found = true;
        }
      }
      if (!found && failed.size() < 256) {
        failed.push_back({&job, end});
      }
    }
    plan(index);  // cannot start now: its own reservation, later jobs respect it
  }
  return result;
}

SchedulePlan Schedule(const ClusterView& view, const std::vector<PendingJob>& pending,
                      const SchedulerOptions& options, int64_t now, const PhaseTimer* timer) {
  SchedulePlan plan;
  const std::vector<uint32_t> order =
      OrderQueue(view, pending, options.weights, now, &plan.priorities);
  MainPassResult main = MainPass(view, pending, order, now);
  plan.main_tested = main.tested;
  BackfillResult backfill;
  if (options.backfill) {
    const int64_t started = timer != nullptr ? timer->Micros() : 0;
    backfill = Backfill(view, pending, order, main, options, now);
    if (timer != nullptr) plan.backfill_micros = timer->Micros() - started;
  }
  plan.reasons = std::move(main.reasons);
  plan.details = std::move(main.details);
  plan.starts = std::move(main.starts);
  for (JobStart& start : backfill.starts) {
    plan.reasons[start.pending_index] = WaitReason::kNone;
    plan.details[start.pending_index] = WaitDetail::kNone;
    plan.starts.push_back(std::move(start));
  }
  for (size_t i = 0; i < backfill.newly_limited.size(); ++i) {
    plan.reasons[backfill.newly_limited[i]] = backfill.limit_reasons[i];
    plan.details[backfill.newly_limited[i]] = WaitDetail::kNone;
  }
  plan.reservations = std::move(backfill.reservations);
  plan.backfill_tested = backfill.tested;
  plan.backfill_tried = backfill.tried;
  plan.backfill_queue = backfill.queue_length;
  return plan;
}

StartEstimate EarliestStart(const ClusterView& view, const PendingJob& job, int64_t now) {
  State state(view, now);
  if (job.partition < 0 || static_cast<size_t>(job.partition) >= view.partitions.size()) {
    return {};
  }
  return state.Estimate(job, nullptr, nullptr);
}

absl::Status CheckSubmitLimits(const ClusterView& view, const PendingJob& job, int64_t user_jobs) {
  if (job.partition < 0 || static_cast<size_t>(job.partition) >= view.partitions.size()) {
    return absl::InvalidArgumentError("Invalid partition name specified");
  }
  if (job.qos != kNone && (job.qos < 0 || static_cast<size_t>(job.qos) >= view.qos.size())) {
    return absl::InvalidArgumentError("Invalid qos specification");
  }
  int32_t qos[2];
  const int count = QosList(view, job.qos, job.partition, qos);
  for (int i = 0; i < count; ++i) {
    if (Over(view.qos[qos[i]].max_submit_jobs_per_user, user_jobs + 1)) {
      return absl::InvalidArgumentError(
          "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
          "limits)");
    }
  }
  return absl::OkStatus();
}

ClusterView WithStarts(const ClusterView& view, const std::vector<PendingJob>& pending,
                       const std::vector<JobStart>& starts, int64_t now) {
  ClusterView out = view;
  for (const JobStart& start : starts) {
    const PendingJob& job = pending[start.pending_index];
    RunningJob running;
    running.id = job.id;
    running.user = job.user;
    running.qos = job.qos;
    running.partition = job.partition;
    running.nodes = start.nodes;
    running.cpus_by_node = start.cpus;
    running.mem_by_node_mb = start.mem_mb;
    running.gpu_indices = start.gpu_indices;
    running.exclusive = start.exclusive;
    running.licenses = job.licenses;
    running.start_time = now;
    running.time_limit = job.time_limit;
    out.running.push_back(std::move(running));
  }
  return out;
}

}  // namespace skiff::ctld
