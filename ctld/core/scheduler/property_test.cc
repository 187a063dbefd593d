// Property tests over random clusters and job mixes, many seeds each.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"
#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeNode;
using testing_util::MakeView;

int Uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// 1-6 nodes with 0-8 GPUs of type a100/v100, two overlapping partitions, a QOS
// with per-user limits and one without.
ClusterView RandomCluster(std::mt19937_64& rng) {
  std::vector<SchedNode> nodes;
  const int count = Uniform(rng, 1, 6);
  for (int n = 0; n < count; ++n) {
    const int gpus = Uniform(rng, 0, 2) == 0 ? 0 : Uniform(rng, 1, 8);
    nodes.push_back(MakeNode("n" + std::to_string(n), Uniform(rng, 4, 32), gpus, Uniform(rng, 0, 1),
                             1000 * Uniform(rng, 8, 64)));
    if (Uniform(rng, 0, 9) == 0) nodes.back().usable = false;
    if (Uniform(rng, 0, 2) == 0) nodes.back().features = {0};
  }
  ClusterView view = MakeView(std::move(nodes), /*users=*/4);
  SchedPartition half;
  half.name = "half";
  half.priority_tier = 2;
  for (int n = 0; n < count; n += 2) half.nodes.push_back(n);
  view.partitions.push_back(half);
  Qos limited;
  limited.name = "limited";
  limited.max_tres_per_user.gpus = Uniform(rng, 1, 6);
  limited.max_tres_per_user.cpus = Uniform(rng, 4, 40);
  limited.max_jobs_per_user = Uniform(rng, 1, 5);
  view.qos.push_back(limited);
  return view;
}

PendingJob RandomJob(std::mt19937_64& rng, uint64_t id, int64_t now, bool allow_unlimited) {
  PendingJob job = testing_util::MakeJob(id, Uniform(rng, 0, 3));
  job.submit_time = job.eligible_time = now;
  job.partition = Uniform(rng, 0, 1);
  job.qos = Uniform(rng, 0, 1);
  job.num_nodes = Uniform(rng, 0, 4) == 0 ? Uniform(rng, 2, 3) : 1;
  job.cpus_per_node = Uniform(rng, 1, 16);
  job.mem_per_node_mb = 500 * Uniform(rng, 0, 20);
  job.gpus_per_node = Uniform(rng, 0, 1) == 0 ? 0 : Uniform(rng, 1, 4);
  if (Uniform(rng, 0, 3) == 0) job.gpu_type = Uniform(rng, 0, 1);
  job.exclusive = Uniform(rng, 0, 9) == 0;
  if (Uniform(rng, 0, 9) == 0) job.features = {0};
  if (Uniform(rng, 0, 9) == 0) job.exclude = {0};
  job.time_limit = 10 * Uniform(rng, 1, 100);
  if (allow_unlimited && Uniform(rng, 0, 19) == 0) job.time_limit = kNoLimit;
  return job;
}

// Every start's GPUs: as many as asked on each node, distinct, in range, free.
void CheckStart(const ClusterView& view, const PendingJob& job, const JobStart& start) {
  ASSERT_EQ(start.nodes.size(), static_cast<size_t>(job.num_nodes));
  ASSERT_EQ(start.gpu_indices.size(), start.nodes.size());
  std::set<int32_t> distinct_nodes(start.nodes.begin(), start.nodes.end());
  EXPECT_EQ(distinct_nodes.size(), start.nodes.size());
  for (size_t k = 0; k < start.nodes.size(); ++k) {
    const std::vector<int32_t>& gpus = start.gpu_indices[k];
    EXPECT_EQ(gpus.size(), static_cast<size_t>(job.gpus_per_node));
    std::set<int32_t> distinct(gpus.begin(), gpus.end());
    EXPECT_EQ(distinct.size(), gpus.size());
    for (int32_t g : gpus) {
      EXPECT_GE(g, 0);
      EXPECT_LT(g, view.nodes[start.nodes[k]].gpu_count);
    }
    if (job.gpus_per_node > 0 && job.gpu_type != kNone) {
      EXPECT_EQ(view.nodes[start.nodes[k]].gpu_type, job.gpu_type);
    }
  }
}

// Running totals per (user, QOS) never exceed the QOS's per-user limits.
void CheckUserLimits(const ClusterView& view) {
  std::map<std::pair<int32_t, int32_t>, std::array<int64_t, 3>> used;  // jobs, cpus, gpus
  for (const RunningJob& job : view.running) {
    int64_t gpus = 0;
    for (const auto& per_node : job.gpu_indices) gpus += per_node.size();
    std::set<int32_t> qos = {job.qos};
    if (view.partitions[job.partition].qos != kNone) qos.insert(view.partitions[job.partition].qos);
    for (int32_t q : qos) {
      auto& u = used[{job.user, q}];
      u[0] += 1;
      u[1] += static_cast<int64_t>(job.nodes.size()) * job.cpus_per_node;
      u[2] += gpus;
    }
  }
  for (const auto& [key, u] : used) {
    const Qos& qos = view.qos[key.second];
    if (qos.max_jobs_per_user != kNoLimit) {
      EXPECT_LE(u[0], qos.max_jobs_per_user);
    }
    if (qos.max_tres_per_user.cpus != kNoLimit) {
      EXPECT_LE(u[1], qos.max_tres_per_user.cpus);
    }
    if (qos.max_tres_per_user.gpus != kNoLimit) {
      EXPECT_LE(u[2], qos.max_tres_per_user.gpus);
    }
  }
}

TEST(Property, GpusAreNeverDoubleBookedUnderRandomSubmitsAndCompletions) {
  int total_starts = 0, gpu_starts = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    ClusterView view = RandomCluster(rng);
    std::vector<PendingJob> pending;
    uint64_t next_id = 1;
    int64_t now = 1000;
    for (int step = 0; step < 40; ++step) {
      for (int k = Uniform(rng, 0, 4); k > 0; --k) {
        pending.push_back(RandomJob(rng, next_id++, now, /*allow_unlimited=*/true));
      }
      SchedulePlan plan = Schedule(view, pending, {}, now);
      for (const JobStart& start : plan.starts) {
        CheckStart(view, pending[start.pending_index], start);
        if (pending[start.pending_index].gpus_per_node > 0) ++gpu_starts;
      }
      total_starts += plan.starts.size();
      view = WithStarts(view, pending, plan.starts, now);
      ASSERT_TRUE(ValidateView(view).ok()) << ValidateView(view);  // no GPU held twice
      CheckUserLimits(view);
      if (::testing::Test::HasFailure()) return;
      std::vector<uint8_t> started(pending.size(), 0);
      for (const JobStart& start : plan.starts) started[start.pending_index] = 1;
      std::vector<PendingJob> left;
      for (size_t i = 0; i < pending.size(); ++i) {
        if (!started[i]) left.push_back(pending[i]);
      }
      pending = std::move(left);
      now += Uniform(rng, 1, 300);
      // Jobs past their end complete; a few others end early.
      std::vector<RunningJob> running;
      for (RunningJob& job : view.running) {
        if (job.ExpectedEnd() <= now || Uniform(rng, 0, 5) == 0) continue;
        running.push_back(std::move(job));
      }
      view.running = std::move(running);
    }
  }
  EXPECT_GT(total_starts, 3000);  // the property was exercised
  EXPECT_GT(gpu_starts, 1000);
}

TEST(Property, BackfillNeverDelaysTheReservedStart) {
  int reservations = 0, backfilled = 0, delayed_candidates = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed + 100000);
    ClusterView view = RandomCluster(rng);
    for (SchedNode& node : view.nodes) node.usable = true;
    // Fill the cluster at earlier times so running jobs end at varied times.
    uint64_t next_id = 1;
    int64_t now = 0;
    for (int round = 0; round < 3; ++round) {
      std::vector<PendingJob> fill;
      for (int k = 0; k < 6; ++k) fill.push_back(RandomJob(rng, next_id++, now, false));
      SchedulerOptions options;
      options.backfill = false;
      SchedulePlan plan = Schedule(view, fill, options, now);
      view = WithStarts(view, fill, plan.starts, now);
      now += Uniform(rng, 0, 200);
    }
    std::vector<RunningJob> running;
    for (RunningJob& job : view.running) {
      if (job.ExpectedEnd() > now) running.push_back(std::move(job));
    }
    view.running = std::move(running);
    std::vector<PendingJob> pending;
    for (int k = Uniform(rng, 2, 25); k > 0; --k) {
      pending.push_back(RandomJob(rng, next_id++, now, /*allow_unlimited=*/true));
    }
    SchedulePlan plan = Schedule(view, pending, {}, now);
    std::vector<JobStart> main_starts;
    for (const JobStart& start : plan.starts) {
      if (!start.backfilled) main_starts.push_back(start);
      if (start.backfilled) ++backfilled;
    }
    const ClusterView after_main = WithStarts(view, pending, main_starts, now);
    const ClusterView after_all = WithStarts(view, pending, plan.starts, now);
    ASSERT_TRUE(ValidateView(after_all).ok()) << ValidateView(after_all);
    for (size_t r = 0; r < plan.reservations.size(); ++r) {
      const Reservation& reservation = plan.reservations[r];
      const PendingJob& job = pending[reservation.pending_index];
      ++reservations;
      EXPECT_GE(reservation.start, now);
      if (r == 0 && plan.reasons[reservation.pending_index] == WaitReason::kResources) {
        // The first reservation, a partition's top job's, is exactly the
        // earliest start after the main pass. (Jobs planned later, after
        // backfill started others before them in order, may start later.)
        EXPECT_EQ(EarliestStart(after_main, job, now).start, reservation.start);
      }
      const int64_t after = EarliestStart(after_all, job, now).start;
      EXPECT_LE(after, reservation.start) << "job " << job.id << " delayed by backfill";
    }
    // Without the reservation check, would some backfilled job have delayed it?
    // (Shows the test can fail: count cases where a pending job that fits now
    // was held back by a reservation.)
    for (size_t i = 0; i < pending.size(); ++i) {
      if (plan.reasons[i] == WaitReason::kPriority) ++delayed_candidates;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(reservations, 200);
  EXPECT_GT(backfilled, 100);
  EXPECT_GT(delayed_candidates, 100);
}

}  // namespace
}  // namespace skiff::ctld
