#include "ctld/core/scheduler/priority.h"

#include <gtest/gtest.h>

#include <vector>

#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeView;

constexpr int64_t kDay = 24 * 3600;

PriorityFactors FactorsOf(const ClusterView& view, const PriorityWeights& weights,
                          const PendingJob& job, int64_t now) {
  return ComputePriority(view, MakePriorityContext(view, weights, now), weights, job, now);
}

TEST(Priority, AgeGrowsLinearlyUpToPriorityMaxAge) {
  ClusterView view = MakeView({MakeNode("n1", 10)});
  PriorityWeights weights;
  weights.age = 1000;
  weights.max_age = 10 * kDay;
  PendingJob job = MakeJob(1);
  job.eligible_time = 0;
  EXPECT_DOUBLE_EQ(FactorsOf(view, weights, job, 0).age, 0.0);
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 500);
  EXPECT_EQ(FactorsOf(view, weights, job, 10 * kDay).priority, 1000);
  EXPECT_EQ(FactorsOf(view, weights, job, 30 * kDay).priority, 1000);
  job.eligible_time = 5 * kDay;  // a --begin job ages from its begin time
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 0);
}

TEST(Priority, NiceLowersItNeverBelowOneAndAnOperatorsPriorityReplacesIt) {
  ClusterView view = MakeView({MakeNode("n1", 10)});
  PriorityWeights weights;
  weights.age = 1000;
  weights.max_age = 10 * kDay;
  PendingJob job = MakeJob(1);
  job.eligible_time = 0;
  job.nice = 100;
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 400);
  job.nice = -100;
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 600);
  job.nice = 10000;
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 1);
  job.admin_priority = 77;
  EXPECT_EQ(FactorsOf(view, weights, job, 5 * kDay).priority, 77);
}

TEST(Priority, BasicIsThePlaceInLineLessNiceAndOrdersTheQueueByIt) {
  ClusterView view = MakeView({MakeNode("n1", 10)});
  PriorityWeights weights;
  weights.basic = true;
  weights.age = 1000;  // unused with priority/basic
  PendingJob first = MakeJob(1);
  first.basic_priority = 4294901759;
  first.submit_time = 10;
  PendingJob released = MakeJob(2);  // submitted earlier, released later: behind
  released.basic_priority = 4294901757;
  released.submit_time = 5;
  PendingJob second = MakeJob(3);
  second.basic_priority = 4294901758;
  second.submit_time = 20;
  second.nice = 5;
  EXPECT_EQ(FactorsOf(view, weights, first, 100 * kDay).priority, 4294901759);
  EXPECT_DOUBLE_EQ(FactorsOf(view, weights, first, 100 * kDay).age, 0.0);
  EXPECT_EQ(FactorsOf(view, weights, second, 0).priority, 4294901753);
  second.admin_priority = 9;
  EXPECT_EQ(FactorsOf(view, weights, second, 0).priority, 9);
  second.admin_priority = 0;
  second.nice = 0;
  std::vector<int64_t> priorities;
  EXPECT_EQ(OrderQueue(view, {first, released, second}, weights, 0, &priorities),
            (std::vector<uint32_t>{0, 2, 1}));
  EXPECT_EQ(priorities, (std::vector<int64_t>{4294901759, 4294901757, 4294901758}));
}

TEST(Priority, PartitionTierQosAndJobSize) {
  ClusterView view = MakeView({MakeNode("n1", 10), MakeNode("n2", 10)});
  SchedPartition high;
  high.name = "high";
  high.priority_tier = 4;
  view.partitions.push_back(high);
  Qos urgent;
  urgent.name = "urgent";
  urgent.priority = 200;
  view.qos.push_back(urgent);
  view.qos[0].priority = 50;
  PriorityWeights weights;
  weights.partition = 1000;
  weights.qos = 1000;
  weights.job_size = 1000;
  PendingJob job = MakeJob(1, 0, 5);  // 5 of 20 CPUs
  PriorityFactors f = FactorsOf(view, weights, job, 100);
  EXPECT_DOUBLE_EQ(f.partition, 0.25);
  EXPECT_DOUBLE_EQ(f.qos, 0.25);
  EXPECT_DOUBLE_EQ(f.job_size, 0.25);
  EXPECT_EQ(f.priority, 750);
  job.partition = 1;
  job.qos = 1;
  job.num_nodes = 2;
  f = FactorsOf(view, weights, job, 100);
  EXPECT_EQ(f.priority, 1000 + 1000 + 500);
}

// PriorityWeightTRES: what the job asks for of each TRES over its partition's
// total, times its weight.
TEST(Priority, TresWeightsCountWhatTheJobAsksOfItsPartition) {
  ClusterView view = MakeView({MakeNode("g1", 8, 4), MakeNode("g2", 8, 4)});
  PriorityWeights weights;
  weights.tres.cpu = 1000;
  weights.tres.gpu = 4000;
  PendingJob job = MakeJob(1, 0, 4, 2);  // 4 of 16 CPUs, 2 of 8 GPUs
  PriorityFactors f = FactorsOf(view, weights, job, 100);
  EXPECT_DOUBLE_EQ(f.tres_cpu, 0.25);
  EXPECT_DOUBLE_EQ(f.tres_gpu, 0.25);
  EXPECT_DOUBLE_EQ(f.tres_mem, 0);  // no memory asked
  EXPECT_EQ(f.priority, 250 + 1000);
  // Without TRES weights nothing is computed.
  EXPECT_EQ(FactorsOf(view, PriorityWeights{}, job, 100).tres_gpu, 0);
}

TEST(Priority, FairShareFavoursLightUsersAndDecays) {
  ClusterView view = MakeView({MakeNode("n1", 10)}, /*users=*/2);
  view.users[0].usage = 3000;
  view.users[1].usage = 1000;
  PriorityWeights weights;
  weights.fairshare = 10000;
  weights.decay_half_life = kDay;
  const PriorityContext context = MakePriorityContext(view, weights, 0);
  // U = 0.75 / 0.25, S = 0.5: F = 2^-1.5 and 2^-0.5.
  EXPECT_NEAR(context.fairshare[0], 0.35355, 1e-4);
  EXPECT_NEAR(context.fairshare[1], 0.70711, 1e-4);
  EXPECT_LT(FactorsOf(view, weights, MakeJob(1, 0), 0).priority,
            FactorsOf(view, weights, MakeJob(2, 1), 0).priority);
  EXPECT_DOUBLE_EQ(DecayedUsage(1000, 0, kDay, kDay), 500);
  EXPECT_DOUBLE_EQ(DecayedUsage(1000, 0, 2 * kDay, kDay), 250);
  EXPECT_DOUBLE_EQ(AccrueUsage(1000, 0, 100, 2.0, kDay, kDay), 700);
  // User 0's usage recorded a long time ago has decayed below user 1's.
  view.users[0].usage_as_of = -3 * kDay;  // 3000 -> 375
  EXPECT_GT(FactorsOf(view, weights, MakeJob(1, 0), 0).fairshare,
            FactorsOf(view, weights, MakeJob(2, 1), 0).fairshare);
  // Nobody has usage: everyone 1.
  view.users[0].usage = view.users[1].usage = 0;
  EXPECT_DOUBLE_EQ(FactorsOf(view, weights, MakeJob(1, 0), 0).fairshare, 1.0);
}

TEST(OrderQueue, PriorityThenSubmitTimeThenId) {
  ClusterView view = MakeView({MakeNode("n1", 10)});
  Qos urgent;
  urgent.name = "urgent";
  urgent.priority = 10;
  view.qos.push_back(urgent);
  PriorityWeights weights;
  weights.qos = 100;
  std::vector<PendingJob> pending = {MakeJob(5), MakeJob(4), MakeJob(3), MakeJob(2), MakeJob(1)};
  pending[0].submit_time = 10;  // id 5
  pending[1].submit_time = 10;  // id 4
  pending[2].submit_time = 1;   // id 3
  pending[3].qos = 1;           // id 2: high priority
  pending[4].submit_time = 10;  // id 1
  std::vector<int64_t> priorities;
  std::vector<uint32_t> order = OrderQueue(view, pending, weights, 100, &priorities);
  std::vector<uint64_t> ids;
  for (uint32_t i : order) ids.push_back(pending[i].id);
  EXPECT_EQ(ids, (std::vector<uint64_t>{2, 3, 1, 4, 5}));
  EXPECT_EQ(priorities[3], 100);
  EXPECT_EQ(priorities[0], 0);
}

}  // namespace
}  // namespace skiff::ctld
