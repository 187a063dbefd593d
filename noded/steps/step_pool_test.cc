#include "noded/steps/step_pool.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

using ::testing::ElementsAre;

// Two nodes of 4 CPUs, 1000 MB and two GPUs each.
StepPool TwoNodes() {
  return StepPool({{"n1", "h:1", 4, 1000, {0, 1}}, {"n2", "h:2", 4, 1000, {2, 3}}});
}

StepAsk Tasks(int n) {
  StepAsk ask;
  ask.ntasks = n;
  return ask;
}

TEST(StepPool, TasksGoToTheFewestNodesInBlocks) {
  StepPool pool = TwoNodes();
  StepPlan one = pool.Plan(Tasks(1));
  ASSERT_EQ(one.fit, StepFit::kNow);
  ASSERT_EQ(one.share.nodes.size(), 1u);
  EXPECT_EQ(one.share.nodes[0].node, 0u);
  EXPECT_EQ(one.share.nodes[0].cpus, 4) << "without --exact: every free CPU of the node";
  EXPECT_THAT(one.share.nodes[0].gpus, ElementsAre(0, 1)) << "Slurm's default: all job GPUs";

  StepPlan six = pool.Plan(Tasks(6));
  ASSERT_EQ(six.fit, StepFit::kNow);
  ASSERT_EQ(six.share.nodes.size(), 2u);
  EXPECT_THAT(six.share.nodes[0].task_ids, ElementsAre(0, 1, 2));
  EXPECT_THAT(six.share.nodes[1].task_ids, ElementsAre(3, 4, 5));
}

// -m cyclic deals the ids a node at a time over the same counts as block;
// -m plane=N deals N at a time, which sets the counts too (-n6 plane=4 over
// two nodes: 4 and 2).
TEST(StepPool, DistributionDealsTaskIdsAsSlurmsCyclicAndPlane) {
  StepPool pool = TwoNodes();
  StepAsk cyclic = Tasks(5);
  cyclic.min_nodes = 2;
  cyclic.distribution = StepAsk::Distribution::kCyclic;
  StepPlan plan = pool.Plan(cyclic);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  ASSERT_EQ(plan.share.nodes.size(), 2u);
  EXPECT_THAT(plan.share.nodes[0].task_ids, ElementsAre(0, 2, 4));
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(1, 3));

  StepAsk plane = Tasks(6);
  plane.min_nodes = 2;
  plane.distribution = StepAsk::Distribution::kPlane;
  plane.plane_size = 4;
  plan = pool.Plan(plane);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  ASSERT_EQ(plan.share.nodes.size(), 2u);
  EXPECT_THAT(plan.share.nodes[0].task_ids, ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(4, 5));
  plane.plane_size = 2;
  plane.ntasks = 7;
  plan = pool.Plan(plane);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  EXPECT_THAT(plan.share.nodes[0].task_ids, ElementsAre(0, 1, 4, 5));
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(2, 3, 6));
}

// srun -O in an allocation of 1 CPU on each of two nodes: six tasks, three a
// node, as Slurm 22.05 lays out -O -N2 -n6 (checked against it); without -O
// they do not fit.
TEST(StepPool, OvercommitDealsTasksPastTheCpus) {
  StepPool pool({{"n1", "h:1", 1, 1000, {}}, {"n2", "h:2", 1, 1000, {}}});
  StepAsk ask = Tasks(6);
  ask.min_nodes = 2;
  EXPECT_EQ(pool.Plan(ask).fit, StepFit::kNever);
  ask.overcommit = true;
  StepPlan plan = pool.Plan(ask);
  ASSERT_EQ(plan.fit, StepFit::kNow) << plan.reason;
  ASSERT_EQ(plan.share.nodes.size(), 2u);
  EXPECT_THAT(plan.share.nodes[0].task_ids, ElementsAre(0, 1, 2));
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(3, 4, 5));
  EXPECT_EQ(plan.share.nodes[0].cpus, 1);
}

// Issue 32 item 5: tasks x CPUs per task at 2^32 wrapped to 0 and "fit".
TEST(StepPool, TasksTimesCpusThatWrapNeverFit) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(4);
  ask.cpus_per_task = 1073741824;  // 4 x 2^30 = 2^32
  ask.exact = true;
  StepPlan plan = pool.Plan(ask);
  EXPECT_EQ(plan.fit, StepFit::kNever);
  EXPECT_EQ(plan.reason, "More processors requested than permitted");
  ask.overlap = true;  // overlapping steps are held against the job's totals too
  plan = pool.Plan(ask);
  EXPECT_EQ(plan.fit, StepFit::kNever);
  EXPECT_EQ(plan.reason, "More processors requested than permitted");
}

TEST(StepPool, GpusPerTaskTimesTasksThatWrapNeverFit) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(2);
  ask.gpus_per_task = 1073741824;
  ask.gpus_per_node = 0;
  StepPlan plan = pool.Plan(ask);
  EXPECT_EQ(plan.fit, StepFit::kNever);
  EXPECT_EQ(plan.reason, "Invalid generic resource (gres) specification");
}

// Slurm's step_mgr.c bound: nodes x MaxTasksPerNode (512) tasks, refused
// before any layout is sized by the task count.
TEST(StepPool, MoreTasksThanMaxTasksPerNodeAllowIsABadTaskCount) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(65536);
  ask.cpus_per_task = 65536;
  ask.overlap = true;
  ask.exact = true;
  StepPlan plan = pool.Plan(ask);
  EXPECT_EQ(plan.fit, StepFit::kNever);
  EXPECT_EQ(plan.reason, "Task count specification invalid");
  EXPECT_TRUE(plan.share.nodes.empty());
  EXPECT_EQ(pool.Plan(Tasks(1025)).reason, "Task count specification invalid");
  // 1024 = 2 x 512 passes that bound (and then is more CPUs than the job has).
  EXPECT_EQ(pool.Plan(Tasks(1024)).reason, "More processors requested than permitted");
  StepAsk overlapping = Tasks(1024);
  overlapping.overlap = true;
  overlapping.ntasks_per_node = 0;
  EXPECT_EQ(pool.Plan(overlapping).fit, StepFit::kNever);
}

TEST(StepPool, HugeNodeCountsEndTheSearch) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(2);
  ask.min_nodes = 1;
  ask.max_nodes = 2147483647;
  EXPECT_EQ(pool.Plan(ask).fit, StepFit::kNow);
  ask.min_nodes = 2147483647;
  EXPECT_EQ(pool.Plan(ask).fit, StepFit::kNow) << "shrunk to the 2 tasks, as Slurm";
}

TEST(StepPool, NodeCountSpreadsTasksAndFirstNodesTakeTheRemainder) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(3);
  ask.min_nodes = 2;
  StepPlan plan = pool.Plan(ask);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  ASSERT_EQ(plan.share.nodes.size(), 2u);
  EXPECT_THAT(plan.share.nodes[0].task_ids, ElementsAre(0, 1));
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(2));
}

TEST(StepPool, ExactStepsRunSideBySideAndSplitGpus) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(1);
  ask.exact = true;
  ask.gpus_per_node = 1;
  StepPlan first = pool.Plan(ask);
  ASSERT_EQ(first.fit, StepFit::kNow);
  EXPECT_EQ(first.share.nodes[0].cpus, 1);
  EXPECT_THAT(first.share.nodes[0].gpus, ElementsAre(0));
  pool.Take(first.share);
  StepPlan second = pool.Plan(ask);
  ASSERT_EQ(second.fit, StepFit::kNow);
  EXPECT_EQ(second.share.nodes[0].node, 0u);
  EXPECT_THAT(second.share.nodes[0].gpus, ElementsAre(1));
  pool.Take(second.share);
  StepPlan third = pool.Plan(ask);
  ASSERT_EQ(third.fit, StepFit::kNow);
  EXPECT_EQ(third.share.nodes[0].node, 1u) << "n1's GPUs are held: n2";
  EXPECT_THAT(third.share.nodes[0].gpus, ElementsAre(2));
  pool.Give(first.share);
  EXPECT_EQ(pool.free_cpus(0), 3);
  EXPECT_EQ(pool.free_gpus(0).count(0), 1u);
}

TEST(StepPool, ADefaultStepWaitsForTheCpusAnotherHolds) {
  StepPool pool = StepPool({{"n1", "h:1", 2, 1000, {}}});
  StepPlan first = pool.Plan(Tasks(1));
  ASSERT_EQ(first.fit, StepFit::kNow);
  pool.Take(first.share);
  StepPlan second = pool.Plan(Tasks(1));
  EXPECT_EQ(second.fit, StepFit::kLater);
  EXPECT_EQ(second.reason, "Requested nodes are busy");
  StepAsk overlap = Tasks(1);
  overlap.overlap = true;
  EXPECT_EQ(pool.Plan(overlap).fit, StepFit::kNow) << "--overlap shares";
  pool.Give(first.share);
  EXPECT_EQ(pool.Plan(Tasks(1)).fit, StepFit::kNow);
}

TEST(StepPool, MemoryIsHeldOnlyWhenAsked) {
  StepPool pool = StepPool({{"n1", "h:1", 4, 1000, {}}});
  StepAsk ask = Tasks(1);
  ask.exact = true;
  StepPlan unasked = pool.Plan(ask);
  ASSERT_EQ(unasked.fit, StepFit::kNow);
  EXPECT_EQ(unasked.share.nodes[0].memory_mb, 1000u);
  pool.Take(unasked.share);
  EXPECT_EQ(pool.free_memory_mb(0), 1000u);
  ask.mem_given = true;
  ask.mem_per_node_mb = 600;
  StepPlan held = pool.Plan(ask);
  ASSERT_EQ(held.fit, StepFit::kNow);
  pool.Take(held.share);
  EXPECT_EQ(pool.free_memory_mb(0), 400u);
  EXPECT_EQ(pool.Plan(ask).fit, StepFit::kLater);
  ask.mem_per_node_mb = 2000;
  StepPlan never = pool.Plan(ask);
  EXPECT_EQ(never.fit, StepFit::kNever);
  EXPECT_EQ(never.reason, "Memory required by task is not available");
}

TEST(StepPool, MemoryPerCpuAndPerGpuAreHeldForTheShare) {
  StepPool pool = TwoNodes();
  StepAsk per_cpu = Tasks(2);
  per_cpu.exact = true;
  per_cpu.cpus_per_task = 2;
  per_cpu.mem_per_cpu_mb = 100;
  StepPlan plan = pool.Plan(per_cpu);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  ASSERT_EQ(plan.share.nodes.size(), 1u);
  EXPECT_EQ(plan.share.nodes[0].memory_mb, 400u);  // 4 CPUs x 100 MB
  EXPECT_TRUE(plan.share.nodes[0].memory_held);
  pool.Take(plan.share);
  EXPECT_EQ(pool.free_memory_mb(0), 600u);
  // A task whose CPUs' memory is more than a node has never fits; one whose
  // memory would fit only beside fewer tasks spreads over more nodes.
  per_cpu.mem_per_cpu_mb = 600;
  EXPECT_EQ(pool.Plan(per_cpu).fit, StepFit::kNever);
  EXPECT_EQ(pool.Plan(per_cpu).reason, "Memory required by task is not available");
  StepAsk per_gpu = Tasks(1);
  per_gpu.exact = true;
  per_gpu.gpus_per_task = 2;
  per_gpu.mem_per_gpu_mb = 300;
  StepPlan gpus = pool.Plan(per_gpu);
  ASSERT_EQ(gpus.fit, StepFit::kNow);
  EXPECT_EQ(gpus.share.nodes[0].memory_mb, 600u);
}

TEST(StepPool, WhatTheJobCannotHoldIsNamed) {
  StepPool pool = TwoNodes();
  EXPECT_EQ(pool.Plan(Tasks(9)).reason, "More processors requested than permitted");
  StepAsk gpus = Tasks(1);
  gpus.gpus_total = 5;
  EXPECT_EQ(pool.Plan(gpus).reason, "Invalid generic resource (gres) specification");
  StepAsk per_node = Tasks(1);
  per_node.gpus_per_node = 3;
  EXPECT_EQ(pool.Plan(per_node).fit, StepFit::kNever);
  EXPECT_EQ(pool.Plan(per_node).reason, "Invalid generic resource (gres) specification");
  StepAsk nodes = Tasks(3);
  nodes.min_nodes = 3;
  EXPECT_EQ(pool.Plan(nodes).reason, "Requested node configuration is not available");
  StepAsk unknown = Tasks(1);
  unknown.nodelist = {"n9"};
  EXPECT_EQ(pool.Plan(unknown).reason, "Requested node configuration is not available");
}

TEST(StepPool, NodelistIsHonouredAndExcludeAvoided) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(1);
  ask.nodelist = {"n2"};
  StepPlan plan = pool.Plan(ask);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  EXPECT_EQ(plan.share.nodes[0].node, 1u);
  StepAsk avoid = Tasks(1);
  avoid.exclude = {"n1"};
  EXPECT_EQ(pool.Plan(avoid).share.nodes[0].node, 1u);
}

TEST(StepPool, TasksPerNodeCapsEachNode) {
  StepPool pool = TwoNodes();
  StepAsk ask = Tasks(4);
  ask.ntasks_per_node = 2;
  StepPlan plan = pool.Plan(ask);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  ASSERT_EQ(plan.share.nodes.size(), 2u);
  EXPECT_THAT(plan.share.nodes[1].task_ids, ElementsAre(2, 3));
}

TEST(StepPool, GpusPerTaskAndTotalAreSpread) {
  StepPool pool = TwoNodes();
  StepAsk per_task = Tasks(2);
  per_task.exact = true;
  per_task.gpus_per_task = 1;
  StepPlan plan = pool.Plan(per_task);
  ASSERT_EQ(plan.fit, StepFit::kNow);
  EXPECT_THAT(plan.share.nodes[0].gpus, ElementsAre(0, 1));
  StepAsk total = Tasks(2);
  total.min_nodes = 2;
  total.gpus_total = 2;
  StepPlan spread = pool.Plan(total);
  ASSERT_EQ(spread.fit, StepFit::kNow);
  EXPECT_THAT(spread.share.nodes[0].gpus, ElementsAre(0));
  EXPECT_THAT(spread.share.nodes[1].gpus, ElementsAre(2));
}

}  // namespace
}  // namespace skiff::noded
