#include "ctld/core/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ctld/core/scheduler/test_util.h"

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeRunning;
using testing_util::MakeView;
using testing_util::ReasonOf;
using testing_util::StartOf;

constexpr int64_t kNow = 1000;

SchedulePlan RunPass(const ClusterView& view, const std::vector<PendingJob>& pending,
                     SchedulerOptions options = {}) {
  EXPECT_TRUE(ValidateView(view).ok()) << ValidateView(view);
  return Schedule(view, pending, options, kNow);
}

// Drops running job `id` (it completed).
void Complete(ClusterView& view, uint64_t id) {
  view.running.erase(std::remove_if(view.running.begin(), view.running.end(),
                                    [&](const RunningJob& job) { return job.id == id; }),
                     view.running.end());
}

TEST(Schedule, PlacesFirstFitWithLowestFreeGpuIndices) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4), MakeNode("n2", 8, 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0, 2}}, 0, 10000));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 2), MakeJob(2, 0, 1, 1)};
  SchedulePlan plan = RunPass(view, pending);
  ASSERT_EQ(plan.starts.size(), 2u);
  const JobStart* first = StartOf(plan, 1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->nodes, std::vector<int32_t>{0});
  EXPECT_EQ(first->gpu_indices, (std::vector<std::vector<int32_t>>{{1, 3}}));
  const JobStart* second = StartOf(plan, 2);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->nodes, std::vector<int32_t>{1});  // n1's GPUs are all taken now
  EXPECT_EQ(second->gpu_indices, (std::vector<std::vector<int32_t>>{{0}}));
  EXPECT_EQ(first->expected_end, kNow + 3600);
}

TEST(Schedule, RespectsGpuType) {
  ClusterView view = MakeView({MakeNode("v", 8, 4, /*v100=*/1), MakeNode("a", 8, 4, /*a100=*/0)});
  PendingJob typed = MakeJob(1, 0, 1, 2);
  typed.gpu_type = 0;
  PendingJob untyped = MakeJob(2, 0, 1, 1);
  SchedulePlan plan = RunPass(view, {typed, untyped});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  ASSERT_NE(StartOf(plan, 2), nullptr);
  // Best fit, as Slurm's cons_tres: the node job 1 already uses has less room left.
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{1});
}

TEST(Schedule, MultiNodeJobGetsGpusOnEveryNode) {
  ClusterView view = MakeView({MakeNode("n1", 8, 2), MakeNode("n2", 8, 2), MakeNode("n3", 8, 2)});
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0}}, 0, 10000));
  SchedulePlan plan = RunPass(view, {MakeJob(1, 0, 2, 2, 2)});
  const JobStart* start = StartOf(plan, 1);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->nodes, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(start->gpu_indices, (std::vector<std::vector<int32_t>>{{0, 1}, {0, 1}}));
}

// The case: MaxTRESPerUser=gres/gpu=4, one-GPU jobs.
TEST(QosLimits, MaxGresPerUserHoldsExactlyAtTheBoundary) {
  ClusterView view = MakeView({MakeNode("g1", 32, 8), MakeNode("g2", 32, 8)});
  view.qos[0].max_tres_per_user.gpus = 4;
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 6; ++id) pending.push_back(MakeJob(id, 0, 1, 1));
  pending.push_back(MakeJob(7, 1, 1, 1));  // another user is not limited by user 0's use
  SchedulePlan plan = RunPass(view, pending);
  for (uint64_t id = 1; id <= 4; ++id) EXPECT_NE(StartOf(plan, id), nullptr) << id;
  EXPECT_EQ(ReasonOf(plan, pending, 5), "QOSMaxGRESPerUser");
  EXPECT_EQ(ReasonOf(plan, pending, 6), "QOSMaxGRESPerUser");
  EXPECT_NE(StartOf(plan, 7), nullptr);

  // Next pass: the 4 run; job 1 completes; exactly one more starts.
  ClusterView after = WithStarts(view, pending, plan.starts, kNow);
  ASSERT_TRUE(ValidateView(after).ok());
  std::vector<PendingJob> still = {pending[4], pending[5]};
  SchedulePlan again = RunPass(after, still);
  EXPECT_TRUE(again.starts.empty());
  EXPECT_EQ(ReasonOf(again, still, 5), "QOSMaxGRESPerUser");
  Complete(after, 1);
  SchedulePlan freed = RunPass(after, still);
  ASSERT_EQ(freed.starts.size(), 1u);
  EXPECT_EQ(freed.starts[0].job_id, 5u);
  EXPECT_EQ(ReasonOf(freed, still, 6), "QOSMaxGRESPerUser");
}

TEST(QosLimits, PerUserCpuNodeMemoryAndJobLimitsAtTheBoundary) {
  struct Case {
    const char* reason;
    void (*limit)(Qos&);
  };
  const Case cases[] = {
      {"QOSMaxCpuPerUserLimit", [](Qos& q) { q.max_tres_per_user.cpus = 8; }},
      {"QOSMaxNodePerUserLimit", [](Qos& q) { q.max_tres_per_user.nodes = 4; }},
      {"QOSMaxMemoryPerUser", [](Qos& q) { q.max_tres_per_user.mem_mb = 4000; }},
      {"QOSMaxJobsPerUserLimit", [](Qos& q) { q.max_jobs_per_user = 4; }},
  };
  for (const Case& c : cases) {
    ClusterView view = MakeView({MakeNode("n1", 64), MakeNode("n2", 64)});
    c.limit(view.qos[0]);
    std::vector<PendingJob> pending;
    for (uint64_t id = 1; id <= 5; ++id) {
      pending.push_back(MakeJob(id, 0, 2));  // 2 CPUs, 1 node, 1000 MB each
      pending.back().mem_per_node_mb = 1000;
    }
    SchedulePlan plan = RunPass(view, pending);
    EXPECT_EQ(plan.starts.size(), 4u) << c.reason;
    EXPECT_EQ(ReasonOf(plan, pending, 5), c.reason);
  }
}

TEST(QosLimits, PerJobLimitsAndMaxWall) {
  ClusterView view = MakeView({MakeNode("n1", 64, 8), MakeNode("n2", 64, 8)});
  view.qos[0].max_wall = 3600;
  view.qos[0].max_tres_per_job = {/*cpus=*/16, /*mem_mb=*/8000, /*nodes=*/1, /*gpus=*/2};
  std::vector<PendingJob> pending = {
      MakeJob(1, 0, 16, 2, 1, 3600),  // exactly at every limit
      MakeJob(2, 0, 1, 0, 1, 3601),
      MakeJob(3, 0, 17),
      MakeJob(4, 0, 1, 3),
      MakeJob(5, 0, 1, 0, 2),
      MakeJob(6, 0, 1, 0, 1, kNoLimit),
  };
  pending.push_back(MakeJob(7, 0, 1));
  pending.back().mem_per_node_mb = 8001;
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 3), "QOSMaxCpuPerJobLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 4), "QOSMaxGRESPerJob");
  EXPECT_EQ(ReasonOf(plan, pending, 5), "QOSMaxNodePerJobLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 6), "QOSMaxWallDurationPerJobLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 7), "QOSMaxMemoryPerJob");
}

TEST(QosLimits, PartitionQosAppliesOnTopOfJobQos) {
  ClusterView view = MakeView({MakeNode("g1", 32, 8)});
  Qos part;
  part.name = "gpu-part";
  part.max_tres_per_user.gpus = 2;
  view.qos.push_back(part);
  view.partitions[0].qos = 1;
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 1), MakeJob(2, 0, 1, 1), MakeJob(3, 0, 1, 1)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(plan.starts.size(), 2u);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "QOSMaxGRESPerUser");
}

TEST(QosLimits, RunningJobsCountTowardsUsage) {
  ClusterView view = MakeView({MakeNode("g1", 32, 8)});
  view.qos[0].max_tres_per_user.gpus = 4;
  view.running.push_back(MakeRunning(50, 0, {0}, 1, {{0, 1, 2}}, 0, 100000));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 1), MakeJob(2, 0, 1, 1)};
  SchedulePlan plan = RunPass(view, pending);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "QOSMaxGRESPerUser");
}

TEST(QosLimits, SubmitLimit) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.qos[0].max_submit_jobs_per_user = 3;
  EXPECT_TRUE(CheckSubmitLimits(view, MakeJob(1), 2).ok());
  absl::Status over = CheckSubmitLimits(view, MakeJob(1), 3);
  EXPECT_EQ(over.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(over.message()).find("job submit limit"), std::string::npos);
}

TEST(Reasons, ResourcesThenPriorityInThePartitionOnly) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  SchedPartition other;
  other.name = "other";
  other.nodes = {1};
  view.partitions.push_back(other);
  view.partitions[0].nodes = {0};
  std::vector<PendingJob> pending = {MakeJob(1, 0, 4), MakeJob(2, 0, 4), MakeJob(3, 0, 1),
                                     MakeJob(4, 0, 4)};
  pending[3].partition = 1;
  SchedulerOptions no_backfill;
  no_backfill.backfill = false;
  SchedulePlan plan = RunPass(view, pending, no_backfill);
  EXPECT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Resources");
  EXPECT_EQ(ReasonOf(plan, pending, 3), "Priority");  // would fit, but is behind job 2
  EXPECT_NE(StartOf(plan, 4), nullptr);               // other partition goes on
}

TEST(Reasons, BlockedHigherTierShadowsLowerTiersOnSharedNodesOnly) {
  // n1 is in "high" (tier 10) and "low" (tier 1); n2 only in "low". A high job
  // waits for n1's GPUs; a low job must not take n1's free GPU meanwhile (it
  // would delay the high job), but may use n2.
  ClusterView view = MakeView({MakeNode("n1", 4, 2), MakeNode("n2", 4, 2)});
  view.partitions[0].name = "low";
  view.partitions[0].priority_tier = 1;
  SchedPartition high;
  high.name = "high";
  high.priority_tier = 10;
  high.nodes = {0};
  view.partitions.push_back(high);
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0}}, kNow - 10, 600));
  view.running.push_back(MakeRunning(51, 1, {1}, 1, {{0, 1}}, kNow - 10, 600));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 2), MakeJob(2, 0, 1, 1, 1, 3600)};
  pending[0].partition = 1;
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  EXPECT_EQ(StartOf(plan, 2), nullptr) << "the low job took the high job's node";
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Priority");
}

TEST(Reasons, HoldsBeginTimeAndPartitionChecks) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.partitions[0].max_time = 7200;
  view.partitions[0].max_nodes = 1;
  view.partitions[0].allow_accounts = {0};
  std::vector<PendingJob> pending(8);
  for (int i = 0; i < 8; ++i) pending[i] = MakeJob(i + 1);
  pending[0].held = true;
  pending[1].held = true;
  pending[1].held_by_admin = true;
  pending[2].eligible_time = kNow + 1;
  pending[3].time_limit = 7201;
  pending[4].num_nodes = 2;
  pending[5].account = 1;
  pending[6].features = {1};  // no node has it
  pending[7].qos = 5;
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "JobHeldUser");
  EXPECT_EQ(ReasonOf(plan, pending, 2), "JobHeldAdmin");
  EXPECT_EQ(ReasonOf(plan, pending, 3), "BeginTime");
  EXPECT_EQ(ReasonOf(plan, pending, 4), "PartitionTimeLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 5), "PartitionNodeLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 6), "PartitionConfig");
  EXPECT_EQ(ReasonOf(plan, pending, 7), "BadConstraints");
  EXPECT_EQ(ReasonOf(plan, pending, 8), "InvalidQOS");
  EXPECT_TRUE(plan.starts.empty());

  view.partitions[0].state = PartitionState::kDown;
  plan = RunPass(view, {MakeJob(9)});
  EXPECT_EQ(ReasonOf(plan, {MakeJob(9)}, 9), "PartitionDown");
  view.partitions[0].state = PartitionState::kInactive;
  plan = RunPass(view, {MakeJob(9)});
  EXPECT_EQ(ReasonOf(plan, {MakeJob(9)}, 9), "PartitionInactive");
}

TEST(Reasons, DownNodesGiveReqNodeNotAvailAndDoNotBlock) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.nodes[1].usable = false;
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 0, 2), MakeJob(2, 0, 1)};
  pending.push_back(MakeJob(3, 0, 1));
  pending[2].nodelist = {1};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "ReqNodeNotAvail");
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "ReqNodeNotAvail");
}

TEST(Reasons, AWaitingPartitionMakesItsNodesUnavailableToOtherPartitions) {
  // As Slurm's reference: "debug" (n1-n2) waits for resources; a job of "gpu"
  // (n2 only) that cannot run is told its nodes are reserved or down.
  ClusterView view = MakeView({MakeNode("n1", 2), MakeNode("n2", 2, 2)});
  SchedPartition gpu;
  gpu.name = "gpu";
  gpu.nodes = {1};
  view.partitions.push_back(gpu);
  view.running.push_back(MakeRunning(50, 1, {0, 1}, 2, {{}, {0, 1}}, kNow, 600));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 2), MakeJob(2, 0, 1, 1)};
  pending[1].partition = 1;
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  EXPECT_EQ(plan.details[0], WaitDetail::kNone);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Resources");
  EXPECT_EQ(plan.details[1], WaitDetail::kNodesUnavailable);
}

TEST(Reasons, DownNodesAreNamedOrCountedAsSlurmDoes) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.nodes[1].usable = false;
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 0, 2), MakeJob(2, 0, 1)};
  pending[1].nodelist = {1};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(plan.details[0], WaitDetail::kNodesUnavailable);  // 1 node up, 2 wanted
  EXPECT_EQ(plan.details[1], WaitDetail::kUnavailableNodes);  // -w n2, which is down

  // Behind a job waiting for resources, a -w job still names its down node.
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow, 600));
  pending = {MakeJob(3, 0, 4), MakeJob(4, 0, 1)};
  pending[1].nodelist = {1};
  plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "Resources");
  EXPECT_EQ(ReasonOf(plan, pending, 4), "ReqNodeNotAvail");
  EXPECT_EQ(plan.details[1], WaitDetail::kUnavailableNodes);
}

TEST(Schedule, NodelistExcludeAndFeatures) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.nodes[2].features = {0};
  PendingJob want = MakeJob(1, 0, 1, 0, 2);
  want.nodelist = {2};
  PendingJob avoid = MakeJob(2, 0, 1);
  avoid.exclude = {0};
  PendingJob feature = MakeJob(3, 0, 1);
  feature.features = {0};
  SchedulePlan plan = RunPass(view, {want, avoid, feature});
  ASSERT_EQ(plan.starts.size(), 3u);
  EXPECT_EQ(StartOf(plan, 1)->nodes, (std::vector<int32_t>{0, 2}));  // in node order
  // Best fit: n3, which job 1 half fills, before the empty n2.
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{2});
  EXPECT_EQ(StartOf(plan, 3)->nodes, std::vector<int32_t>{2});
}

// --tmp: only nodes whose TmpDisk is at least the job's ask, every node of a
// multi-node job; not a consumable, so jobs on one node do not add up.
TEST(Schedule, TmpDiskIsAFloorOnTheNodesAJobMayUse) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.nodes[1].tmp_disk_mb = 100;
  view.nodes[2].tmp_disk_mb = 1000;
  PendingJob big = MakeJob(1, 0, 1);
  big.min_tmp_disk_mb = 500;
  PendingJob two = MakeJob(2, 0, 1, 0, 2);
  two.min_tmp_disk_mb = 100;
  PendingJob also_big = MakeJob(3, 0, 1);
  also_big.min_tmp_disk_mb = 1000;
  SchedulePlan plan = RunPass(view, {big, two, also_big});
  ASSERT_EQ(plan.starts.size(), 3u);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{2});
  EXPECT_EQ(StartOf(plan, 2)->nodes, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(StartOf(plan, 3)->nodes, std::vector<int32_t>{2});
}

// -B and its siblings: only nodes whose layout meets every floor; the job
// waits for such a node rather than take another.
TEST(Schedule, TopologyIsAFloorOnTheNodesAJobMayUse) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)});
  view.nodes[0].layout = {1, 4, 1};
  view.nodes[1].layout = {2, 2, 1};
  view.nodes[2].layout = {1, 2, 2};
  PendingJob two_sockets = MakeJob(1, 0, 4);
  two_sockets.min_topology = {2, 0, 0};
  PendingJob two_threads = MakeJob(2, 0, 1);
  two_threads.min_topology = {0, 0, 2};
  PendingJob again = MakeJob(3, 0, 1);  // n2 is full: it waits
  again.min_topology = {2, 0, 0};
  SchedulePlan plan = RunPass(view, {two_sockets, two_threads, again});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{2});
  EXPECT_EQ(StartOf(plan, 3), nullptr);
}

// --time-min: a job whose limit does not fit before a reservation starts
// with the longest limit that does, from its --time-min up, whole minutes;
// one whose --time-min does not fit either waits.
TEST(Backfill, TimeMinShortensALimitToTheWindowBeforeAReservation) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow - 10, 610));  // ends kNow+600
  PendingJob wide = MakeJob(1, 0, 4, 0, 2);  // both nodes: reserved from kNow+600
  PendingJob too_long = MakeJob(2, 0, 4, 0, 1, 3600);
  too_long.time_min = 900;
  PendingJob shrinks = MakeJob(3, 0, 4, 0, 1, 3600);
  shrinks.time_min = 300;
  const std::vector<PendingJob> pending = {wide, too_long, shrinks};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 2), nullptr);
  const JobStart* start = StartOf(plan, 3);
  ASSERT_NE(start, nullptr);
  EXPECT_TRUE(start->backfilled);
  EXPECT_EQ(start->time_limit, 600);
  EXPECT_EQ(start->expected_end, kNow + 600);
  EXPECT_EQ(start->nodes, std::vector<int32_t>{1});
  // Without a reservation in the way the job keeps its own limit.
  plan = RunPass(view, {shrinks});
  ASSERT_NE(StartOf(plan, 3), nullptr);
  EXPECT_EQ(StartOf(plan, 3)->time_limit, 0);
}

// --prefer: nodes with the preferred features when they are free now, else
// wherever -C allows (Slurm 22.05's "tried first").
TEST(Schedule, PreferredFeaturesAreTriedFirst) {
  ClusterView view = MakeView({MakeNode("n1", 2), MakeNode("n2", 2), MakeNode("n3", 2)});
  view.nodes[1].features = {1};  // fast
  view.nodes[2].features = {1};
  PendingJob first = MakeJob(1, 0, 2);
  first.prefer = {1};
  PendingJob second = MakeJob(2, 0, 2);
  second.prefer = {1};
  PendingJob third = MakeJob(3, 0, 2);
  third.prefer = {1};
  SchedulePlan plan = RunPass(view, {first, second, third});
  ASSERT_EQ(plan.starts.size(), 3u);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{2});
  EXPECT_EQ(StartOf(plan, 3)->nodes, std::vector<int32_t>{0}) << "no fast node left: any node";
  // With -C, the fallback stays within it.
  PendingJob constrained = MakeJob(4, 0, 2);
  constrained.features = {0};  // ib: no node has it
  constrained.prefer = {1};
  plan = RunPass(view, {constrained});
  ASSERT_NE(StartOf(plan, 4), nullptr) << "the preferred features win over -C where they fit";
  EXPECT_EQ(StartOf(plan, 4)->nodes, std::vector<int32_t>{1});
}

// -L: a job starts only with every license it asks for free, counting what
// running jobs hold; one short of a license waits with Licenses, blocks
// nothing behind it and gets no backfill reservation (Slurm without
// bf_licenses).
TEST(Schedule, LicensesAreCountedClusterWideAndAJobShortOfOneBlocksNothing) {
  ClusterView view = MakeView({MakeNode("n1", 8), MakeNode("n2", 8)});
  view.licenses = {{"matlab", 2}, {"fluent", 1}};
  RunningJob holder = MakeRunning(50, 1, {0}, 1, {}, kNow - 10, 3600);
  holder.licenses = {{0, 1}};
  view.running.push_back(holder);
  PendingJob two = MakeJob(1, 0, 1);
  two.licenses = {{0, 2}};  // one is held: waits
  PendingJob one = MakeJob(2, 0, 1);
  one.licenses = {{0, 1}, {1, 1}};
  PendingJob none = MakeJob(3, 0, 1);
  PendingJob last = MakeJob(4, 0, 1);
  last.licenses = {{1, 1}};  // job 2 took the only fluent
  SchedulePlan plan = RunPass(view, {two, one, none, last});
  EXPECT_EQ(ReasonOf(plan, {two, one, none, last}, 1), "Licenses");
  ASSERT_NE(StartOf(plan, 2), nullptr);
  ASSERT_NE(StartOf(plan, 3), nullptr);
  EXPECT_FALSE(StartOf(plan, 3)->backfilled);
  EXPECT_EQ(ReasonOf(plan, {two, one, none, last}, 4), "Licenses");
  for (const Reservation& r : plan.reservations) EXPECT_NE(r.job_id, 1u);

  // Once the holder ends, the waiting job gets both.
  Complete(view, 50);
  plan = RunPass(view, {two});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  // A total lowered below what running jobs hold leaves nothing to start on.
  view.licenses[0].total = 0;
  view.running.push_back(holder);
  plan = RunPass(view, {one});
  EXPECT_EQ(ReasonOf(plan, {one}, 2), "Licenses");
}

// Backfill counts the licenses of the jobs it starts: of two jobs behind a
// blocked partition wanting the one license, the first starts, the other
// waits with Licenses.
TEST(Backfill, CountsTheLicensesOfTheJobsItStarts) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.licenses = {{"matlab", 1}};
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow - 10, 600));
  PendingJob wide = MakeJob(1, 0, 4, 0, 2);  // needs both nodes: Resources
  PendingJob a = MakeJob(2, 0, 1, 0, 1, 300);
  a.licenses = {{0, 1}};
  PendingJob b = MakeJob(3, 0, 1, 0, 1, 300);
  b.licenses = {{0, 1}};
  const std::vector<PendingJob> pending = {wide, a, b};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_TRUE(StartOf(plan, 2)->backfilled);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "Licenses");
}

// A job that waits for the one node with its TmpDisk does not make backfill
// skip a job of the same shape without --tmp (backfill's shape cache).
TEST(Backfill, TmpDiskIsPartOfTheShapeBackfillSkipsBy) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.nodes[1].tmp_disk_mb = 1000;
  view.running.push_back(MakeRunning(50, 1, {1}, 4, {}, kNow, 600));
  PendingJob waits = MakeJob(1, 0, 4);
  waits.min_tmp_disk_mb = 1000;
  PendingJob fits = MakeJob(2, 0, 4);
  SchedulePlan plan = RunPass(view, {waits, fits});
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, {waits, fits}, 1), "Resources");
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{0});
}

TEST(Schedule, ExclusiveNeedsAnIdleNodeAndHoldsItWhole) {
  ClusterView view = MakeView({MakeNode("n1", 8, 2), MakeNode("n2", 8, 2)});
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{}}, 0, 100000));
  PendingJob exclusive = MakeJob(1, 0, 1, 1);
  exclusive.exclusive = true;
  SchedulePlan plan = RunPass(view, {exclusive, MakeJob(2, 0, 1, 1), MakeJob(3, 0, 1)});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->nodes, std::vector<int32_t>{1});
  EXPECT_EQ(StartOf(plan, 2)->nodes, std::vector<int32_t>{0});  // not beside job 1
  EXPECT_EQ(StartOf(plan, 3)->nodes, std::vector<int32_t>{0});
  ClusterView after =
      WithStarts(view, {exclusive, MakeJob(2, 0, 1, 1), MakeJob(3, 0, 1)}, plan.starts, kNow);
  EXPECT_TRUE(ValidateView(after).ok()) << ValidateView(after);
  SchedulePlan next = RunPass(after, {MakeJob(4, 0, 1)});
  ASSERT_NE(StartOf(next, 4), nullptr);
  EXPECT_EQ(StartOf(next, 4)->nodes, std::vector<int32_t>{0});
}

// Two 4-CPU nodes; n1 busy until kNow+100. The top job needs both.
TEST(Backfill, ShortJobsFillTheGapLongOnesWait) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow - 50, 150));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 4, 0, 2, 1000), MakeJob(2, 0, 4, 0, 1, 101),
                                     MakeJob(3, 0, 4, 0, 1, 100)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  ASSERT_EQ(plan.reservations.size(), 2u);
  EXPECT_EQ(plan.reservations[0].job_id, 1u);
  EXPECT_EQ(plan.reservations[0].start, kNow + 100);
  EXPECT_EQ(plan.reservations[0].nodes, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Priority");  // would end after the reservation
  EXPECT_EQ(plan.reservations[1].job_id, 2u);         // ... so it is planned after job 1
  EXPECT_EQ(plan.reservations[1].start, kNow + 100 + 1000);
  const JobStart* backfilled = StartOf(plan, 3);
  ASSERT_NE(backfilled, nullptr);
  EXPECT_TRUE(backfilled->backfilled);
  EXPECT_EQ(backfilled->nodes, std::vector<int32_t>{1});
}

TEST(Backfill, LongJobMayUseWhatTheReservationDoesNotNeed) {
  ClusterView view = MakeView({MakeNode("n1", 8), MakeNode("n2", 8)});
  view.running.push_back(MakeRunning(50, 1, {0}, 8, {}, kNow, 100));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 6, 0, 2, 1000), MakeJob(2, 0, 2, 0, 1, 100000),
                                     MakeJob(3, 0, 1, 0, 1, 100000)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  ASSERT_NE(StartOf(plan, 2), nullptr);  // n2 keeps 6 CPUs for job 1
  EXPECT_EQ(ReasonOf(plan, pending, 3), "Priority");
}

// The reference scenario of squeue --start: one node busy for 100 s, a queue of
// jobs of which none fits now. Every one gets a start time and nodes, each after
// the jobs before it, as Slurm's backfill plans every job it tests.
TEST(Backfill, PlansEveryTestedJobThatCannotStartNow) {
  ClusterView view = MakeView({MakeNode("n1", 2), MakeNode("n2", 2)});
  view.running.push_back(MakeRunning(50, 1, {0, 1}, 2, {}, kNow - 50, 150));
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 6; ++id) pending.push_back(MakeJob(id, 0, 2, 0, 1, 600));
  SchedulePlan plan = RunPass(view, pending);
  ASSERT_EQ(plan.reservations.size(), 6u);
  std::vector<int64_t> starts;
  for (uint64_t id = 1; id <= 6; ++id) {
    auto it = std::find_if(plan.reservations.begin(), plan.reservations.end(),
                           [&](const Reservation& r) { return r.job_id == id; });
    ASSERT_NE(it, plan.reservations.end()) << "job " << id << " has no estimate";
    ASSERT_EQ(it->nodes.size(), 1u);
    starts.push_back(it->start);
  }
  // Two nodes: two jobs at a time, 600 s each, from when job 50 ends.
  EXPECT_EQ(starts, (std::vector<int64_t>{kNow + 100, kNow + 100, kNow + 700, kNow + 700,
                                          kNow + 1300, kNow + 1300}));
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  EXPECT_EQ(ReasonOf(plan, pending, 6), "Priority");
}

TEST(Backfill, ALaterPlannedJobIsNotOvertakenByALongerOne) {
  // Job 1 waits for n1 (free at +100). Job 2, behind it, fits n2 whole once job
  // 51 ends (+500) and is planned there; job 3 fits n2's free CPU now but would
  // run past +500, so it must wait (before, only job 1 was planned).
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow, 100));
  view.running.push_back(MakeRunning(51, 1, {1}, 3, {}, kNow, 500));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 4, 0, 1, 1000), MakeJob(2, 0, 4, 0, 1, 1000),
                                     MakeJob(3, 0, 1, 0, 1, 100000)};
  SchedulePlan plan = RunPass(view, pending);
  ASSERT_EQ(plan.reservations.size(), 3u);  // job 3 too, after job 2
  EXPECT_EQ(plan.reservations[1].job_id, 2u);
  EXPECT_EQ(plan.reservations[1].start, kNow + 500);
  EXPECT_EQ(plan.reservations[1].nodes, std::vector<int32_t>{1});
  EXPECT_EQ(StartOf(plan, 3), nullptr) << "job 3 would delay job 2";
}

TEST(Backfill, UnlimitedJobsNeverGiveAReservation) {
  ClusterView view = MakeView({MakeNode("n1", 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow, kNoLimit));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 4)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  EXPECT_TRUE(plan.reservations.empty());
  EXPECT_EQ(EarliestStart(view, pending[0], kNow).start, kNever);
}

TEST(Backfill, StopsAfterBfMaxJobTest) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow, 100));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 4, 0, 2, 1000)};
  for (uint64_t id = 2; id <= 5; ++id) pending.push_back(MakeJob(id, 0, 1, 0, 1, 50));
  SchedulerOptions options;
  options.bf_max_job_test = 3;  // the top job and two more
  SchedulePlan plan = RunPass(view, pending, options);
  EXPECT_EQ(plan.backfill_tested, 3);
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_NE(StartOf(plan, 3), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 4), "Priority");
  EXPECT_EQ(ReasonOf(plan, pending, 5), "Priority");
}

TEST(Backfill, ChecksQosLimitsAgain) {
  ClusterView view = MakeView({MakeNode("n1", 4), MakeNode("n2", 4)});
  view.qos[0].max_jobs_per_user = 1;
  view.running.push_back(MakeRunning(50, 1, {0}, 4, {}, kNow, 100));
  std::vector<PendingJob> pending = {MakeJob(1, 1, 4, 0, 2, 1000), MakeJob(2, 0, 1, 0, 1, 50),
                                     MakeJob(3, 0, 1, 0, 1, 50)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "QOSMaxJobsPerUserLimit");
}

TEST(Schedule, AssociationLimitsHoldJobsWithSlurmsReasons) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4), MakeNode("n2", 8, 4)});
  // root (0) <- research (1, GrpJobs=3, GrpTRES gres/gpu=2) <- alice (2, MaxJobs=2), bob (3)
  view.assocs.resize(4);
  view.assocs[1].parent = 0;
  view.assocs[1].grp_jobs = 3;
  view.assocs[1].grp_tres.gpus = 2;
  view.assocs[2].parent = 1;
  view.assocs[2].max_jobs = 2;
  view.assocs[3].parent = 1;
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 3; ++id) {
    pending.push_back(MakeJob(id, 0));
    pending.back().assoc = 2;  // alice
  }
  for (uint64_t id = 4; id <= 5; ++id) {
    pending.push_back(MakeJob(id, 1));
    pending.back().assoc = 3;  // bob
  }
  PendingJob gpu = MakeJob(6, 1, 1, 1);
  gpu.assoc = 3;
  pending.push_back(gpu);
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 1), nullptr);
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "AssocMaxJobsLimit");
  EXPECT_NE(StartOf(plan, 4), nullptr);  // the account's third running job
  EXPECT_EQ(ReasonOf(plan, pending, 5), "AssocGrpJobsLimit");
  EXPECT_EQ(ReasonOf(plan, pending, 6), "AssocGrpJobsLimit");

  // Running jobs count too: two GPUs held in the account stop a third.
  view.assocs[1].grp_jobs = kNoLimit;
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0, 1}}, kNow, 100));
  view.running.back().assoc = 3;
  std::vector<PendingJob> gpus = {gpu};
  EXPECT_EQ(ReasonOf(RunPass(view, gpus), gpus, 6), "AssocGrpGRES");
}

TEST(Schedule, BillingLimitCountsUsedAndRunningMaxCosts) {
  ClusterView view = MakeView({MakeNode("n1", 8), MakeNode("n2", 8)});
  view.assocs.resize(2);
  view.assocs[0].grp_tres_mins.billing = 100;
  view.assocs[0].tres_mins_used.billing = 25;  // ended runs
  view.assocs[1].parent = 0;
  view.running.push_back(MakeRunning(50, 0, {0}, 1, {}, kNow, 1800));
  view.running.back().assoc = 1;
  view.running.back().max_cost.billing = 30;  // 25 + 30 = 55 of 100 taken
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 3; ++id) {
    pending.push_back(MakeJob(id, 0, 1, 0, 1, 1800));
    pending.back().assoc = 1;
    pending.back().max_cost.billing = 30;
  }
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 1), nullptr);                             // 85
  EXPECT_EQ(ReasonOf(plan, pending, 2), "AssocGrpBillingMinutes");  // 115 > 100
  EXPECT_EQ(ReasonOf(plan, pending, 3), "AssocGrpBillingMinutes");
}

// A GPU-minutes budget (GrpTRESMins=gres/gpu) binds only what uses GPUs: the
// CPU-only job starts whatever the GPU jobs used.
TEST(Schedule, GpuMinutesLimitHoldsGpuJobsOnly) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4)});
  view.assocs.resize(2);
  view.assocs[0].grp_tres_mins.gpu = 60;
  view.assocs[0].tres_mins_used.gpu = 40;
  view.assocs[1].parent = 0;
  std::vector<PendingJob> pending;
  pending.push_back(MakeJob(1, 0, 1, 0, 1, 600));
  pending.back().assoc = 1;
  pending.back().max_cost.gpu = 30;  // 40 + 30 > 60
  pending.back().max_cost.cpu = 10;
  pending.push_back(MakeJob(2, 0, 1, 0, 1, 600));
  pending.back().assoc = 1;
  pending.back().max_cost.cpu = 10;
  pending.push_back(MakeJob(3, 0, 1, 0, 1, 600));
  pending.back().assoc = 1;
  pending.back().max_cost.gpu = 20;  // exactly 60
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "AssocGrpGRESMinutes");
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_NE(StartOf(plan, 3), nullptr);
}

// GrpTRESRunMins=gres/gpu: what running jobs hold times what is left of
// their time limits, plus what a new job holds times its time limit. A job
// near its end leaves room that a fresh one does not.
TEST(Schedule, GpuRunMinutesCountWhatRunningJobsHaveLeft) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4)});
  view.assocs.resize(2);
  view.assocs[0].grp_tres_run_mins.gpu = 100;  // the account's subtree
  view.assocs[1].parent = 0;
  // 1 GPU, 60 minutes limit, started 30 minutes ago: 30 GPU-minutes left.
  view.running.push_back(MakeRunning(50, 0, {0}, 1, {{0}}, kNow - 1800, 3600));
  view.running.back().assoc = 1;
  view.running.back().per_minute.gpu = 1;
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 2; ++id) {
    pending.push_back(MakeJob(id, 0, 1, 1, 1, 3600));  // 60 GPU-minutes each
    pending.back().assoc = 1;
    pending.back().per_minute.gpu = 1;
  }
  pending.push_back(MakeJob(3, 0, 1, 0, 1, 3600));  // no GPU: not limited
  pending.back().assoc = 1;
  pending.back().per_minute.cpu = 1;
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 1), nullptr);                             // 30 + 60 = 90
  EXPECT_EQ(ReasonOf(plan, pending, 2), "AssocGrpGRESRunMinutes");  // 150 > 100
  EXPECT_NE(StartOf(plan, 3), nullptr);
  // Later, with the running job 20 minutes from its end and job 1 not started:
  // 20 + 60 fits.
  view.running.back().start_time = kNow - 2400;
  std::vector<PendingJob> one = {pending[1]};
  EXPECT_NE(StartOf(RunPass(view, one), 2), nullptr);
}

// A QOS's TRES-minutes limits: MaxTRESMinsPerJob per job (held x time limit),
// MaxTRESRunMinsPerUser over a user's running jobs, GrpTRESRunMins over all.
TEST(QosLimits, TresMinuteLimitsPerJobPerUserAndInAll) {
  ClusterView view = MakeView({MakeNode("n1", 16, 8), MakeNode("n2", 16, 8)});
  view.qos[0].max_tres_mins_per_job.gpu = 120;
  view.qos[0].max_tres_run_mins_per_user.gpu = 200;
  view.qos[0].grp_tres_run_mins.gpu = 300;
  auto gpu_job = [](uint64_t id, int32_t user, int gpus, int64_t minutes) {
    PendingJob job = MakeJob(id, user, 1, gpus, 1, minutes * 60);
    job.per_minute.gpu = gpus;
    return job;
  };
  std::vector<PendingJob> pending = {
      gpu_job(1, 0, 2, 61),  // 122 GPU-minutes: over the per-job limit
      gpu_job(2, 0, 2, 60),  // 120
      gpu_job(3, 0, 1, 90),  // 120 + 90 = 210 for user 0: over the per-user limit
      gpu_job(4, 1, 2, 60),  // user 1: 120; in all 240
      gpu_job(5, 2, 1, 61),  // user 2: 61; in all 301: over the QOS's
      gpu_job(6, 2, 1, 60),  // exactly 300
  };
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "QOSMaxGRESMinutesPerJob");
  EXPECT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 3), "MaxGRESRunMinsPerUser");
  EXPECT_NE(StartOf(plan, 4), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 5), "QOSGrpGRESRunMinutes");
  EXPECT_NE(StartOf(plan, 6), nullptr);
}

// GrpTRESMins on a QOS: what its ended runs used plus the most of its
// running jobs and a new one stays within it, with the QOS's reason.
TEST(QosLimits, AQosGpuBudgetCountsUsedAndRunningMaxCosts) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4)});
  view.qos[0].grp_tres_mins.gpu = 100;
  view.qos[0].tres_mins_used.gpu = 40;
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0}}, kNow, 1800));
  view.running.back().max_cost.gpu = 30;  // 70 of 100 taken
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 2; ++id) {
    pending.push_back(MakeJob(id, 0, 1, 1, 1, 1200));
    pending.back().max_cost.gpu = 20;
  }
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_NE(StartOf(plan, 1), nullptr);                        // 90
  EXPECT_EQ(ReasonOf(plan, pending, 2), "QOSGrpGRESMinutes");  // 110 > 100
}

TEST(Schedule, DeterministicWhateverTheInputOrder) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4), MakeNode("n2", 8, 4)});
  std::vector<PendingJob> pending;
  for (uint64_t id = 1; id <= 12; ++id) {
    pending.push_back(MakeJob(id, id % 3, 1 + id % 4, id % 3, 1, 100 * id));
    pending.back().submit_time = 5;  // all tied: the id decides
  }
  SchedulePlan a = RunPass(view, pending);
  std::vector<PendingJob> reversed(pending.rbegin(), pending.rend());
  SchedulePlan b = RunPass(view, reversed);
  ASSERT_EQ(a.starts.size(), b.starts.size());
  for (size_t i = 0; i < a.starts.size(); ++i) {
    EXPECT_EQ(a.starts[i].job_id, b.starts[i].job_id);
    EXPECT_EQ(a.starts[i].nodes, b.starts[i].nodes);
    EXPECT_EQ(a.starts[i].gpu_indices, b.starts[i].gpu_indices);
  }
  for (const PendingJob& job : pending) {
    EXPECT_EQ(ReasonOf(a, pending, job.id), ReasonOf(b, reversed, job.id));
  }
}

TEST(ValidateView, CatchesDoubleBookedGpus) {
  ClusterView view = MakeView({MakeNode("n1", 8, 4)});
  view.running.push_back(MakeRunning(1, 0, {0}, 1, {{0, 1}}, 0, 10));
  view.running.push_back(MakeRunning(2, 0, {0}, 1, {{1}}, 0, 10));
  EXPECT_FALSE(ValidateView(view).ok());
  view.running[1].gpu_indices = {{2}};
  EXPECT_TRUE(ValidateView(view).ok());
  view.running[1].gpu_indices = {{4}};
  EXPECT_FALSE(ValidateView(view).ok());
}

}  // namespace
}  // namespace skiff::ctld

namespace skiff::ctld {
namespace {

using testing_util::MakeJob;
using testing_util::MakeNode;
using testing_util::MakeRunning;
using testing_util::MakeView;
using testing_util::StartOf;

// -n tasks without -N: as many nodes as they need (placement.h).
PendingJob Spread(uint64_t id, int ntasks, int64_t time_limit = 3600) {
  PendingJob job = MakeJob(id, 0, 1, 0, 1, time_limit);
  job.ntasks = ntasks;
  job.max_nodes = ntasks;
  return job;
}

TEST(SpreadTasks, StartsOverAsManyNodesAsItNeedsWithUnevenShares) {
  ClusterView view = MakeView({MakeNode("n1", 2), MakeNode("n2", 2), MakeNode("n3", 2)});
  const SchedulePlan plan = Schedule(view, {Spread(1, 3)}, SchedulerOptions{}, 1000);
  const JobStart* start = StartOf(plan, 1);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->nodes, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(start->cpus, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(start->tasks, (std::vector<int32_t>{2, 1}));
}

TEST(SpreadTasks, WaitingSpreadJobIsPlannedAndNotOvertaken) {
  // n1 busy until 1100, n2 until 1300: a 3-task job fits at 1100 (n1 + n3);
  // a later 1-CPU job that would run past 1100 on n3 must not delay it.
  ClusterView view = MakeView({MakeNode("n1", 2), MakeNode("n2", 2), MakeNode("n3", 2)});
  view.running.push_back(MakeRunning(50, 0, {0}, 2, {}, 900, 200));
  view.running.push_back(MakeRunning(51, 0, {1}, 2, {}, 900, 400));
  view.running.push_back(MakeRunning(52, 0, {2}, 1, {}, 900, 200));
  const SchedulePlan plan =
      Schedule(view, {Spread(1, 4), MakeJob(2, 0, 1, 0, 1, 500), MakeJob(3, 0, 1, 0, 1, 50)},
               SchedulerOptions{}, 1000);
  ASSERT_FALSE(plan.reservations.empty());
  EXPECT_EQ(plan.reservations[0].job_id, 1u);
  EXPECT_EQ(plan.reservations[0].start, 1100);
  EXPECT_EQ(plan.reservations[0].nodes, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(StartOf(plan, 2), nullptr);  // would hold n3's CPU past 1100
  EXPECT_NE(StartOf(plan, 3), nullptr);  // ends before 1100: backfilled
}

}  // namespace
}  // namespace skiff::ctld
