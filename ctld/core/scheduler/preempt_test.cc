#include "ctld/core/scheduler/preempt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ctld/core/scheduler/scheduler.h"
#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeRunning;
using testing_util::MakeView;

constexpr int64_t kNow = 10000;

// Partitions: 0 "low" (tier 1, every node, REQUEUE, GraceTime 30), 1 "high"
// (tier 2, every node). QOS: 0 "normal" (priority 10, preempts "scav"),
// 1 "scav" (priority 0, CANCEL, GraceTime 60), 2 "urgent" (preempts both).
ClusterView TwoTierView(std::vector<SchedNode> nodes) {
  ClusterView view = MakeView(std::move(nodes));
  view.partitions[0].name = "low";
  view.partitions[0].preempt_mode = PreemptMode::kRequeue;
  view.partitions[0].grace_time = 30;
  SchedPartition high = view.partitions[0];
  high.name = "high";
  high.priority_tier = 2;
  high.preempt_mode = PreemptMode::kCluster;
  high.grace_time = 0;
  view.partitions.push_back(high);
  view.qos[0].priority = 10;
  view.qos[0].preempt = {1};
  Qos scav;
  scav.name = "scav";
  scav.preempt_mode = PreemptMode::kCancel;
  scav.grace_time = 60;
  view.qos.push_back(scav);
  Qos urgent;
  urgent.name = "urgent";
  urgent.priority = 100;
  urgent.preempt = {0, 1};
  view.qos.push_back(urgent);
  return view;
}

RunningJob Running(uint64_t id, int32_t partition, std::vector<int32_t> nodes, int cpus,
                   int64_t start, int32_t qos = 0, std::vector<std::vector<int32_t>> gpus = {}) {
  RunningJob job = MakeRunning(id, 1, std::move(nodes), cpus, std::move(gpus), start, kNoLimit);
  job.partition = partition;
  job.qos = qos;
  return job;
}

PendingJob Pending(int32_t partition, int cpus, int gpus = 0, int num_nodes = 1, int32_t qos = 0) {
  PendingJob job = MakeJob(900, 0, cpus, gpus, num_nodes);
  job.partition = partition;
  job.qos = qos;
  return job;
}

const PreemptOptions kPartitionPrio{PreemptType::kPartitionPrio, PreemptMode::kCancel};
const PreemptOptions kQosPreempt{PreemptType::kQos, PreemptMode::kRequeue};

std::vector<uint64_t> Ids(const PreemptPlan& plan) {
  std::vector<uint64_t> ids;
  for (const PreemptVictim& victim : plan.victims) ids.push_back(victim.job_id);
  return ids;
}

PreemptPlan Plan(const ClusterView& view, const PendingJob& job, const PreemptOptions& options,
                 const PreemptExclusions& exclusions = {}) {
  EXPECT_TRUE(ValidateView(view).ok()) << ValidateView(view);
  return PlanPreemption(view, job, options, exclusions, kNow);
}

// --- Eligibility -------------------------------------------------------------

TEST(CanPreempt, PartitionPrioNeedsAHigherTierAndAMode) {
  ClusterView view = TwoTierView({MakeNode("n1", 4)});
  const RunningJob low = Running(1, 0, {0}, 4, 100);
  const RunningJob high = Running(2, 1, {0}, 4, 100);
  PreemptAction action = CanPreempt(view, kPartitionPrio, Pending(1, 4), low);
  EXPECT_TRUE(action.allowed);
  EXPECT_EQ(action.mode, PreemptMode::kRequeue);  // the victim partition's mode
  EXPECT_EQ(action.grace_time, 30);               // and GraceTime
  EXPECT_FALSE(CanPreempt(view, kPartitionPrio, Pending(1, 4), high).allowed);  // same tier
  EXPECT_FALSE(CanPreempt(view, kPartitionPrio, Pending(0, 4), high).allowed);  // lower tier
  view.partitions[0].preempt_mode = PreemptMode::kOff;
  EXPECT_FALSE(CanPreempt(view, kPartitionPrio, Pending(1, 4), low).allowed);
  // No PreemptMode on the partition: the cluster's.
  view.partitions[0].preempt_mode = PreemptMode::kCluster;
  EXPECT_EQ(CanPreempt(view, kPartitionPrio, Pending(1, 4), low).mode, PreemptMode::kCancel);
  EXPECT_FALSE(
      CanPreempt(view, {PreemptType::kPartitionPrio, PreemptMode::kOff}, Pending(1, 4), low)
          .allowed);
  EXPECT_FALSE(
      CanPreempt(view, {PreemptType::kNone, PreemptMode::kCancel}, Pending(1, 4), low).allowed);
}

TEST(CanPreempt, QosNeedsThePreemptListAndAMode) {
  ClusterView view = TwoTierView({MakeNode("n1", 4)});
  const RunningJob scav = Running(1, 0, {0}, 4, 100, /*qos=*/1);
  const RunningJob normal = Running(2, 0, {0}, 4, 100, /*qos=*/0);
  PreemptAction action = CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, /*qos=*/0), scav);
  EXPECT_TRUE(action.allowed);
  EXPECT_EQ(action.mode, PreemptMode::kCancel);  // scav's PreemptMode
  EXPECT_EQ(action.grace_time, 60);
  EXPECT_FALSE(CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, 0), normal).allowed);
  action = CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, /*qos=*/2), normal);
  EXPECT_TRUE(action.allowed);
  EXPECT_EQ(action.mode, PreemptMode::kRequeue);  // normal is Cluster: the cluster's REQUEUE
  EXPECT_EQ(action.grace_time, 0);
  // The tier does not matter with preempt/qos.
  EXPECT_TRUE(
      CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, 0), Running(3, 1, {0}, 4, 0, 1)).allowed);
  view.qos[1].preempt_mode = PreemptMode::kOff;
  EXPECT_FALSE(CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, 0), scav).allowed);
  EXPECT_FALSE(CanPreempt(view, kQosPreempt, Pending(0, 4, 0, 1, kNone), scav).allowed);
}

// --- Choosing victims --------------------------------------------------------

TEST(PlanPreemption, NoneTypeNeverPreempts) {
  ClusterView view = TwoTierView({MakeNode("n1", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, 100));
  const PreemptPlan plan = Plan(view, Pending(1, 4), {PreemptType::kNone, PreemptMode::kCancel});
  EXPECT_FALSE(plan.fits);
  EXPECT_TRUE(plan.victims.empty());
}

TEST(PlanPreemption, PreemptsTheYoungestLowerTierJobFirstAndStops) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/100));
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/300));  // youngest
  view.running.push_back(Running(3, 0, {2}, 4, /*start=*/200));
  const PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{2}));
  EXPECT_EQ(plan.nodes, (std::vector<int32_t>{1}));
  EXPECT_EQ(plan.victims[0].mode, PreemptMode::kRequeue);
  EXPECT_EQ(plan.victims[0].grace_time, 30);
}

TEST(PlanPreemption, LowestTierBeforeYoungest) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  SchedPartition top = view.partitions[1];
  top.name = "top";
  top.priority_tier = 3;
  view.partitions.push_back(top);
  view.partitions[1].preempt_mode = PreemptMode::kCancel;
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/100));  // tier 1, old
  view.running.push_back(Running(2, 1, {1}, 4, /*start=*/900));  // tier 2, young
  const PreemptPlan plan = Plan(view, Pending(2, 4), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{1}));
}

TEST(PlanPreemption, QosLowestPriorityFirstThenYoungest) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900, /*qos=*/0));  // normal, young
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/100, /*qos=*/1));  // scav, old
  view.running.push_back(Running(3, 0, {2}, 4, /*start=*/200, /*qos=*/1));  // scav, younger
  PreemptPlan plan = Plan(view, Pending(0, 4, 0, 1, /*qos=*/2), kQosPreempt);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{3}));
  EXPECT_EQ(plan.victims[0].mode, PreemptMode::kCancel);
  EXPECT_EQ(plan.victims[0].grace_time, 60);
  // Needing two nodes: both scav jobs, youngest first.
  plan = Plan(view, Pending(0, 4, 0, 2, 2), kQosPreempt);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{3, 2}));
}

TEST(PlanPreemption, FreesJustEnoughOnOneNode) {
  ClusterView view = TwoTierView({MakeNode("n1", 8)});
  view.running.push_back(Running(1, 0, {0}, 2, 100));
  view.running.push_back(Running(2, 0, {0}, 2, 200));
  view.running.push_back(Running(3, 0, {0}, 2, 300));
  view.running.push_back(Running(4, 0, {0}, 2, 400));
  const PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{4, 3}));
}

TEST(PlanPreemption, SparesVictimsThatTurnOutUnneeded) {
  // n1: A (young, 2 CPUs) and C (old, 2 CPUs); n2: B (4 CPUs, middle). In
  // preference order A then B makes room (on n2); A alone never does, so A is
  // spared.
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(10, 0, {0}, 2, /*start=*/900));  // A
  view.running.push_back(Running(11, 0, {1}, 4, /*start=*/500));  // B
  view.running.push_back(Running(12, 0, {0}, 2, /*start=*/100));  // C
  const PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{11}));
  EXPECT_EQ(plan.nodes, (std::vector<int32_t>{1}));
}

TEST(PlanPreemption, NothingWhenEvenAllVictimsWouldNotMakeRoom) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(1, 0, {0}, 2, 100));
  view.running.push_back(Running(2, 1, {0}, 2, 100));  // same tier as the job: stays
  view.running.push_back(Running(3, 1, {1}, 4, 100));
  const PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  EXPECT_FALSE(plan.fits);
  EXPECT_TRUE(plan.victims.empty());
  // Bigger than any node: never.
  EXPECT_FALSE(Plan(view, Pending(1, 5), kPartitionPrio).fits);
}

TEST(PlanPreemption, FitsAlreadyMeansNoVictims) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, 100));
  const PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  EXPECT_TRUE(plan.fits);
  EXPECT_TRUE(plan.victims.empty());
  EXPECT_EQ(plan.nodes, (std::vector<int32_t>{1}));
}

TEST(PlanPreemption, OnlyNodesOfThePendingJobsPartition) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.partitions[1].nodes = {1};                                // "high" has n2 only
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900));  // young, but on n1
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/100));
  PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{2}));
  // With only the job outside the partition to preempt: nothing helps.
  view.running.pop_back();
  view.running.push_back(Running(3, 1, {1}, 4, 100));
  plan = Plan(view, Pending(1, 4), kPartitionPrio);
  EXPECT_FALSE(plan.fits);
  EXPECT_TRUE(plan.victims.empty());
}

TEST(PlanPreemption, GpuTypeAndIndices) {
  // n1 has v100s, n2 a100s; the job wants 2 a100s.
  ClusterView view = TwoTierView({MakeNode("n1", 8, 2, /*v100=*/1), MakeNode("n2", 8, 2, 0)});
  view.running.push_back(Running(1, 0, {0}, 1, /*start=*/900, 0, {{0, 1}}));
  view.running.push_back(Running(2, 0, {1}, 1, /*start=*/500, 0, {{1}}));
  view.running.push_back(Running(3, 0, {1}, 1, /*start=*/100, 0, {{0}}));
  view.running.push_back(Running(4, 0, {1}, 1, /*start=*/950, 0, {}));  // CPUs only: not needed
  PendingJob job = Pending(1, 2, 2);
  job.gpu_type = 0;
  const PreemptPlan plan = Plan(view, job, kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(plan.nodes, (std::vector<int32_t>{1}));
}

TEST(PlanPreemption, ExclusiveJobEmptiesTheNode) {
  ClusterView view = TwoTierView({MakeNode("n1", 8)});
  view.running.push_back(Running(1, 0, {0}, 1, 100));
  view.running.push_back(Running(2, 0, {0}, 1, 200));
  PendingJob job = Pending(1, 1);
  job.exclusive = true;
  const PreemptPlan plan = Plan(view, job, kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{2, 1}));
}

TEST(PlanPreemption, NodelistAndExcludeAndFeatures) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.nodes[2].features = {0};
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900));
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/500));
  view.running.push_back(Running(3, 0, {2}, 4, /*start=*/100));
  PendingJob job = Pending(1, 4);
  job.nodelist = {1};
  EXPECT_EQ(Ids(Plan(view, job, kPartitionPrio)), (std::vector<uint64_t>{2}));
  job.nodelist.clear();
  job.exclude = {0};
  EXPECT_EQ(Ids(Plan(view, job, kPartitionPrio)), (std::vector<uint64_t>{2}));
  job.exclude.clear();
  job.features = {0};
  EXPECT_EQ(Ids(Plan(view, job, kPartitionPrio)), (std::vector<uint64_t>{3}));
}

TEST(PlanPreemption, UnusableNodeIsNoHelp) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.nodes[0].usable = false;
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900));
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/100));
  EXPECT_EQ(Ids(Plan(view, Pending(1, 4), kPartitionPrio)), (std::vector<uint64_t>{2}));
}

TEST(PlanPreemption, MultiNodeVictim) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(1, 0, {0, 1}, 4, 100));
  const PreemptPlan plan = Plan(view, Pending(1, 4, 0, 2), kPartitionPrio);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{1}));
  EXPECT_EQ(plan.nodes, (std::vector<int32_t>{0, 1}));
}

TEST(PlanPreemption, ExemptJobsAreNeverVictims) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900));
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/100));
  PreemptExclusions exclusions;
  exclusions.exempt = {1};
  EXPECT_EQ(Ids(Plan(view, Pending(1, 4), kPartitionPrio, exclusions)), (std::vector<uint64_t>{2}));
  exclusions.exempt = {1, 2};
  EXPECT_FALSE(Plan(view, Pending(1, 4), kPartitionPrio, exclusions).fits);
}

TEST(PlanPreemption, LeavingJobsCountAsGoneAndAreNotPickedAgain) {
  ClusterView view = TwoTierView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(Running(1, 0, {0}, 4, /*start=*/900));
  view.running.push_back(Running(2, 0, {1}, 4, /*start=*/100));
  PreemptExclusions exclusions;
  exclusions.leaving = {1};
  PreemptPlan plan = Plan(view, Pending(1, 4), kPartitionPrio, exclusions);
  EXPECT_TRUE(plan.fits);
  EXPECT_TRUE(plan.victims.empty());  // wait for job 1 to go
  // A two-node job needs job 2 as well, but never job 1 again.
  plan = Plan(view, Pending(1, 4, 0, 2), kPartitionPrio, exclusions);
  ASSERT_TRUE(plan.fits);
  EXPECT_EQ(Ids(plan), (std::vector<uint64_t>{2}));
}

// --- Properties over random views ------------------------------------------

int Uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

PreemptMode RandomMode(std::mt19937_64& rng) {
  static const PreemptMode kModes[] = {PreemptMode::kCluster, PreemptMode::kOff,
                                       PreemptMode::kCancel, PreemptMode::kRequeue,
                                       PreemptMode::kRequeue};
  return kModes[Uniform(rng, 0, 4)];
}

// 1-6 nodes, three partitions (tiers 1-3, overlapping), three QOS with random
// Preempt lists, and running jobs packed onto the nodes with distinct GPUs.
ClusterView RandomView(std::mt19937_64& rng) {
  std::vector<SchedNode> nodes;
  const int count = Uniform(rng, 1, 6);
  for (int n = 0; n < count; ++n) {
    const int gpus = Uniform(rng, 0, 2) == 0 ? 0 : Uniform(rng, 1, 4);
    nodes.push_back(MakeNode("n" + std::to_string(n), Uniform(rng, 2, 16), gpus, Uniform(rng, 0, 1),
                             1000 * Uniform(rng, 4, 32)));
    if (Uniform(rng, 0, 9) == 0) nodes.back().usable = false;
    if (Uniform(rng, 0, 2) == 0) nodes.back().features = {0};
  }
  ClusterView view = MakeView(std::move(nodes));
  view.partitions[0].preempt_mode = RandomMode(rng);
  view.partitions[0].grace_time = Uniform(rng, 0, 2) * 30;
  for (int tier = 2; tier <= 3; ++tier) {
    SchedPartition p;
    p.name = "p" + std::to_string(tier);
    p.priority_tier = Uniform(rng, 1, 3);
    p.preempt_mode = RandomMode(rng);
    p.grace_time = Uniform(rng, 0, 2) * 30;
    for (int n = 0; n < count; ++n) {
      if (Uniform(rng, 0, 2) != 0) p.nodes.push_back(n);
    }
    view.partitions.push_back(p);
  }
  for (int q = 1; q <= 2; ++q) {
    Qos qos;
    qos.name = "q" + std::to_string(q);
    view.qos.push_back(qos);
  }
  for (size_t q = 0; q < view.qos.size(); ++q) {
    view.qos[q].priority = Uniform(rng, 0, 3) * 10;
    view.qos[q].preempt_mode = RandomMode(rng);
    view.qos[q].grace_time = Uniform(rng, 0, 2) * 60;
    for (size_t other = 0; other < view.qos.size(); ++other) {
      if (other != q && Uniform(rng, 0, 1) == 0) view.qos[q].preempt.push_back(other);
    }
  }
  // Pack running jobs.
  std::vector<int> cpus(view.nodes.size());
  std::vector<uint64_t> mem(view.nodes.size());
  std::vector<std::vector<bool>> gpu_used(view.nodes.size());
  for (size_t n = 0; n < view.nodes.size(); ++n) {
    cpus[n] = view.nodes[n].cpus;
    mem[n] = view.nodes[n].memory_mb;
    gpu_used[n].assign(view.nodes[n].gpu_count, false);
  }
  const int jobs = Uniform(rng, 0, 14);
  for (int j = 0; j < jobs; ++j) {
    RunningJob job;
    job.id = 100 + j;
    job.user = Uniform(rng, 0, 3);
    job.qos = Uniform(rng, 0, 2);
    job.partition = Uniform(rng, 0, 2);
    job.start_time = Uniform(rng, 0, 5) * 100;  // ties on purpose
    job.time_limit = Uniform(rng, 0, 3) == 0 ? kNoLimit : 100 * Uniform(rng, 1, 200);
    job.cpus_per_node = Uniform(rng, 1, 6);
    job.mem_per_node_mb = 500 * Uniform(rng, 0, 8);
    const int want_gpus = Uniform(rng, 0, 2);
    const int want_nodes = Uniform(rng, 0, 4) == 0 ? 2 : 1;
    const std::vector<int32_t>& pnodes = view.partitions[job.partition].nodes;
    for (int32_t n : pnodes) {
      if (static_cast<int>(job.nodes.size()) == want_nodes) break;
      int free_gpus = 0;
      for (bool used : gpu_used[n]) free_gpus += used ? 0 : 1;
      if (cpus[n] < job.cpus_per_node || mem[n] < job.mem_per_node_mb || free_gpus < want_gpus) {
        continue;
      }
      job.nodes.push_back(n);
    }
    if (static_cast<int>(job.nodes.size()) != want_nodes) continue;
    job.exclusive = Uniform(rng, 0, 14) == 0;
    for (int32_t n : job.nodes) {
      if (job.exclusive && (cpus[n] != view.nodes[n].cpus || mem[n] != view.nodes[n].memory_mb ||
                            std::count(gpu_used[n].begin(), gpu_used[n].end(), true) > 0)) {
        job.exclusive = false;
      }
    }
    std::vector<std::vector<int32_t>> gpus;
    for (int32_t n : job.nodes) {
      cpus[n] -= job.exclusive ? cpus[n] : job.cpus_per_node;
      mem[n] -= job.exclusive ? mem[n] : job.mem_per_node_mb;
      gpus.emplace_back();
      for (size_t g = 0; g < gpu_used[n].size(); ++g) {
        if (!gpu_used[n][g] &&
            (job.exclusive || static_cast<int>(gpus.back().size()) < want_gpus)) {
          gpu_used[n][g] = true;
          gpus.back().push_back(static_cast<int32_t>(g));
        }
      }
    }
    if (want_gpus > 0 || job.exclusive) job.gpu_indices = gpus;
    view.running.push_back(job);
  }
  return view;
}

PendingJob RandomPending(std::mt19937_64& rng, const ClusterView& view) {
  PendingJob job = MakeJob(999, Uniform(rng, 0, 3));
  job.partition = Uniform(rng, 0, 2);
  job.qos = Uniform(rng, 0, 2);
  job.num_nodes = Uniform(rng, 0, 3) == 0 ? 2 : 1;
  job.cpus_per_node = Uniform(rng, 1, 12);
  job.mem_per_node_mb = 500 * Uniform(rng, 0, 10);
  job.gpus_per_node = Uniform(rng, 0, 1) == 0 ? 0 : Uniform(rng, 1, 3);
  if (Uniform(rng, 0, 2) == 0) job.gpu_type = Uniform(rng, 0, 1);
  job.exclusive = Uniform(rng, 0, 9) == 0;
  if (Uniform(rng, 0, 7) == 0) job.features = {0};
  if (Uniform(rng, 0, 7) == 0 && !view.nodes.empty()) job.exclude = {0};
  if (Uniform(rng, 0, 7) == 0 && !view.nodes.empty()) {
    job.nodelist = {static_cast<int32_t>(Uniform(rng, 0, view.nodes.size() - 1))};
  }
  return job;
}

ClusterView WithoutJobs(ClusterView view, const std::set<uint64_t>& gone) {
  view.running.erase(std::remove_if(view.running.begin(), view.running.end(),
                                    [&](const RunningJob& j) { return gone.count(j.id) > 0; }),
                     view.running.end());
  return view;
}

bool FitsNow(const ClusterView& view, const PendingJob& job) {
  return EarliestStart(view, job, kNow).start == kNow;
}

TEST(PreemptProperty, VictimsAreEligibleSufficientAndEachNeeded) {
  std::mt19937_64 rng(20240611);
  int planned = 0, impossible = 0, already = 0;
  for (int round = 0; round < 3000; ++round) {
    const ClusterView view = RandomView(rng);
    ASSERT_TRUE(ValidateView(view).ok()) << ValidateView(view);
    const PendingJob job = RandomPending(rng, view);
    PreemptOptions options;
    options.type = Uniform(rng, 0, 1) == 0 ? PreemptType::kPartitionPrio : PreemptType::kQos;
    options.mode = Uniform(rng, 0, 1) == 0 ? PreemptMode::kCancel : PreemptMode::kRequeue;
    PreemptExclusions exclusions;
    for (const RunningJob& running : view.running) {
      const int pick = Uniform(rng, 0, 11);
      if (pick == 0) exclusions.exempt.push_back(running.id);
      if (pick == 1) exclusions.leaving.push_back(running.id);
    }
    const PreemptPlan plan = PlanPreemption(view, job, options, exclusions, kNow);
    const std::set<uint64_t> leaving(exclusions.leaving.begin(), exclusions.leaving.end());
    std::set<uint64_t> gone = leaving;
    std::set<uint64_t> victims;
    for (const PreemptVictim& victim : plan.victims) {
      ASSERT_TRUE(victims.insert(victim.job_id).second) << "victim twice";
      gone.insert(victim.job_id);
      EXPECT_EQ(leaving.count(victim.job_id), 0u);
      EXPECT_EQ(std::count(exclusions.exempt.begin(), exclusions.exempt.end(), victim.job_id), 0);
      const auto it = std::find_if(view.running.begin(), view.running.end(),
                                   [&](const RunningJob& r) { return r.id == victim.job_id; });
      ASSERT_NE(it, view.running.end());
      const PreemptAction action = CanPreempt(view, options, job, *it);
      EXPECT_TRUE(action.allowed);
      EXPECT_EQ(victim.mode, action.mode);
      EXPECT_EQ(victim.grace_time, action.grace_time);
      EXPECT_TRUE(victim.mode == PreemptMode::kCancel || victim.mode == PreemptMode::kRequeue);
    }
    if (plan.fits) {
      const ClusterView after = WithoutJobs(view, gone);
      const StartEstimate estimate = EarliestStart(after, job, kNow);
      ASSERT_EQ(estimate.start, kNow) << "round " << round;
      EXPECT_EQ(estimate.nodes, plan.nodes);
      // Each victim is needed.
      for (uint64_t victim : victims) {
        std::set<uint64_t> spared = gone;
        spared.erase(victim);
        EXPECT_FALSE(FitsNow(WithoutJobs(view, spared), job))
            << "round " << round << ": victim " << victim << " not needed";
      }
      if (FitsNow(WithoutJobs(view, leaving), job)) {
        EXPECT_TRUE(victims.empty());
        ++already;
      } else {
        EXPECT_FALSE(victims.empty());
        ++planned;
      }
    } else {
      EXPECT_TRUE(victims.empty());
      // Even without every job it may preempt, it would not fit.
      std::set<uint64_t> all = leaving;
      for (const RunningJob& running : view.running) {
        const bool exempt =
            std::count(exclusions.exempt.begin(), exclusions.exempt.end(), running.id) > 0;
        if (!exempt && CanPreempt(view, options, job, running).allowed) all.insert(running.id);
      }
      EXPECT_FALSE(FitsNow(WithoutJobs(view, all), job)) << "round " << round;
      ++impossible;
    }
  }
  // The generator exercises every outcome.
  EXPECT_GT(planned, 100);
  EXPECT_GT(impossible, 100);
  EXPECT_GT(already, 100);
}

}  // namespace
}  // namespace skiff::ctld
