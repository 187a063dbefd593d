// gres/shard and gres/mps in the pass: a job's shares on a node come from
// one GPU, the first by index with that many free (Slurm 22.05's
// _pick_specific_topo); a GPU held whole gives no shares and a GPU with
// shares in use is not given whole. MPS jobs of a node use its one GPU in MPS
// use (Slurm's one_sharing), and only while it is their user's.
#include <gtest/gtest.h>

#include <vector>

#include "ctld/core/scheduler/scheduler.h"
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

SchedNode ShardedNode(const std::string& name, int gpus, std::vector<int32_t> shards) {
  SchedNode node = MakeNode(name, 8, gpus);
  node.gpu_shares = std::move(shards);
  return node;
}

PendingJob ShardJob(uint64_t id, int32_t user, int32_t shards) {
  PendingJob job = MakeJob(id, user, 1, 0);
  job.shares_per_node = shards;
  return job;
}

RunningJob RunningShards(uint64_t id, int32_t gpu, int32_t count, int64_t time_limit) {
  RunningJob job = MakeRunning(id, 1, {0}, 1, {{}}, kNow, time_limit);
  job.shares = {{gpu, count}};
  return job;
}

SchedulePlan RunPass(const ClusterView& view, const std::vector<PendingJob>& pending) {
  EXPECT_TRUE(ValidateView(view).ok()) << ValidateView(view);
  return Schedule(view, pending, {}, kNow);
}

TEST(Shards, TwoUsersShareTheFirstGpu) {
  ClusterView view = MakeView({ShardedNode("g1", 2, {4, 4})});
  SchedulePlan plan = RunPass(view, {ShardJob(1, 0, 1), ShardJob(2, 1, 1)});
  ASSERT_EQ(plan.starts.size(), 2u);
  for (uint64_t id : {1u, 2u}) {
    const JobStart* start = StartOf(plan, id);
    ASSERT_NE(start, nullptr);
    EXPECT_EQ(start->shares, (std::vector<GpuShare>{{0, 1}})) << id;
    EXPECT_EQ(start->gpu_indices, (std::vector<std::vector<int32_t>>{{}})) << id;
  }
}

TEST(Shards, AWholeGpuJobTakesAGpuNoShardJobUses) {
  ClusterView view = MakeView({ShardedNode("g1", 2, {4, 4})});
  view.running.push_back(RunningShards(50, 0, 1, 10000));
  PendingJob whole = MakeJob(1, 0, 1, 1);
  SchedulePlan plan = RunPass(view, {whole, ShardJob(2, 0, 4)});
  const JobStart* gpu_job = StartOf(plan, 1);
  ASSERT_NE(gpu_job, nullptr);
  EXPECT_EQ(gpu_job->gpu_indices, (std::vector<std::vector<int32_t>>{{1}}));
  // GPU 0 has 3 shards left and GPU 1 is held whole: 4 shards do not fit.
  EXPECT_EQ(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, {whole, ShardJob(2, 0, 4)}, 2), "Resources");
}

TEST(Shards, AGpuShardedInThisPassIsNotGivenWholeInIt) {
  ClusterView view = MakeView({ShardedNode("g1", 1, {4})});
  std::vector<PendingJob> pending = {ShardJob(1, 0, 1), MakeJob(2, 0, 1, 1)};
  SchedulePlan plan = RunPass(view, pending);
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 2), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "Resources");
}

TEST(Shards, AWholeGpuJobWaitsForTheLastShardJobOfTheGpu) {
  ClusterView view = MakeView({ShardedNode("g1", 1, {4})});
  view.running.push_back(RunningShards(50, 0, 1, 100));
  view.running.push_back(RunningShards(51, 0, 2, 500));
  std::vector<PendingJob> pending = {MakeJob(1, 0, 1, 1)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  // Planned when the shard job that ends last gives the GPU back, not before.
  ASSERT_EQ(plan.reservations.size(), 1u);
  EXPECT_EQ(plan.reservations[0].start, kNow + 500);
}

TEST(Shards, ShardsMoveOnToTheNextGpuWithEnoughFree) {
  ClusterView view = MakeView({ShardedNode("g1", 2, {4, 4})});
  view.running.push_back(RunningShards(50, 0, 3, 10000));
  SchedulePlan plan = RunPass(view, {ShardJob(1, 0, 2), ShardJob(2, 0, 1)});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->shares, (std::vector<GpuShare>{{1, 2}}));
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 2)->shares, (std::vector<GpuShare>{{0, 1}}));  // first fit
}

TEST(Shards, NoShardsOnAGpuHeldWhole) {
  ClusterView view = MakeView({ShardedNode("g1", 1, {4})});
  view.running.push_back(MakeRunning(50, 1, {0}, 1, {{0}}, 0, 10000));
  std::vector<PendingJob> pending = {ShardJob(1, 0, 1)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
}

TEST(Shards, MoreShardsThanAnyOneGpuHasNeverFit) {
  // Eight shards on the node, four a GPU: a job's shards come from one GPU.
  ClusterView view = MakeView({ShardedNode("g1", 2, {4, 4}), MakeNode("c1", 8)});
  std::vector<PendingJob> pending = {ShardJob(1, 0, 5)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "BadConstraints");
}

TEST(Shards, MultiNodeJobTakesShardsOnEveryNode) {
  ClusterView view = MakeView({ShardedNode("g1", 1, {2}), ShardedNode("g2", 1, {2})});
  PendingJob job = ShardJob(1, 0, 2);
  job.num_nodes = 2;
  SchedulePlan plan = RunPass(view, {job});
  const JobStart* start = StartOf(plan, 1);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->nodes, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(start->shares, (std::vector<GpuShare>{{0, 2}, {0, 2}}));
}

TEST(Shards, AGpuReservationKeepsShardJobsOffItsGpus) {
  ClusterView view = MakeView({ShardedNode("g1", 1, {4})});
  SchedResv resv;
  resv.name = "gpus";
  resv.nodes = {0};
  resv.gpus = {1};
  resv.windows = {{0, kNow + 100000}};
  view.resvs.push_back(resv);
  std::vector<PendingJob> pending = {ShardJob(1, 0, 1)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
}

TEST(Shards, ValidateViewCatchesOverShardedAndWholeHeldGpus) {
  ClusterView view = MakeView({ShardedNode("g1", 2, {2, 2})});
  view.running.push_back(RunningShards(50, 0, 2, 100));
  view.running.push_back(RunningShards(51, 0, 1, 100));
  EXPECT_FALSE(ValidateView(view).ok());
  view.running.pop_back();
  view.running.push_back(MakeRunning(52, 1, {0}, 1, {{1}}, 0, 100));
  view.running.push_back(RunningShards(53, 1, 1, 100));
  EXPECT_FALSE(ValidateView(view).ok());
  view.running.pop_back();
  EXPECT_TRUE(ValidateView(view).ok());
}

// Fenced shards (gres.conf Flags=fence) run under MPS: another user's go to
// a GPU no one else shares, or wait; one user's still pack.
TEST(Shards, FencedShardsKeepAGpuToOneUser) {
  SchedNode node = ShardedNode("g1", 2, {4, 4});
  node.share_fenced = true;
  ClusterView view = MakeView({node});
  SchedulePlan plan = RunPass(view, {ShardJob(1, 0, 1), ShardJob(2, 1, 1), ShardJob(3, 0, 1)});
  ASSERT_EQ(plan.starts.size(), 3u);
  EXPECT_EQ(StartOf(plan, 1)->shares, (std::vector<GpuShare>{{0, 1}}));
  EXPECT_EQ(StartOf(plan, 2)->shares, (std::vector<GpuShare>{{1, 1}}));
  EXPECT_EQ(StartOf(plan, 3)->shares, (std::vector<GpuShare>{{0, 1}}));

  SchedNode one_gpu = ShardedNode("g1", 1, {4});
  one_gpu.share_fenced = true;
  view = MakeView({one_gpu});
  RunningJob first = RunningShards(50, 0, 1, 600);
  first.user = 1;
  view.running.push_back(first);
  std::vector<PendingJob> pending = {ShardJob(1, 0, 1), ShardJob(2, 1, 1)};
  plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  ASSERT_NE(StartOf(plan, 2), nullptr);
}

SchedNode MpsNode(const std::string& name) {
  SchedNode node = ShardedNode(name, 2, {100, 100});
  node.share_kind = GpuShareKind::kMps;
  return node;
}

PendingJob MpsJob(uint64_t id, int32_t user, int32_t share) {
  PendingJob job = ShardJob(id, user, share);
  job.share_kind = GpuShareKind::kMps;
  return job;
}

TEST(Mps, OneUsersJobsShareTheGpuInMpsUse) {
  ClusterView view = MakeView({MpsNode("g1")});
  SchedulePlan plan = RunPass(view, {MpsJob(1, 0, 60), MpsJob(2, 0, 40), MpsJob(3, 0, 10)});
  ASSERT_NE(StartOf(plan, 1), nullptr);
  ASSERT_NE(StartOf(plan, 2), nullptr);
  EXPECT_EQ(StartOf(plan, 1)->shares, (std::vector<GpuShare>{{0, 60}}));
  EXPECT_EQ(StartOf(plan, 2)->shares, (std::vector<GpuShare>{{0, 40}}));
  // GPU 0 is full, and MPS stays on the GPU already in MPS use (one_sharing).
  EXPECT_EQ(StartOf(plan, 3), nullptr);
}

TEST(Mps, AnotherUsersJobWaitsForTheFirstUsersToEnd) {
  ClusterView view = MakeView({MpsNode("g1")});
  RunningJob first = MakeRunning(50, 1, {0}, 1, {{}}, kNow, 600);
  first.shares = {{0, 50}};
  view.running.push_back(first);
  std::vector<PendingJob> pending = {MpsJob(1, 0, 50), MpsJob(2, 1, 50)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(StartOf(plan, 1), nullptr);  // user 0, while user 1 holds the MPS GPU
  EXPECT_EQ(ReasonOf(plan, pending, 1), "Resources");
  ASSERT_NE(StartOf(plan, 2), nullptr);  // user 1's own
  EXPECT_EQ(StartOf(plan, 2)->shares, (std::vector<GpuShare>{{0, 50}}));
  view.running.clear();
  plan = RunPass(view, {MpsJob(1, 0, 50)});
  EXPECT_NE(StartOf(plan, 1), nullptr);
}

TEST(Mps, SharesOfOneKindOnlyOnNodesOfThatKind) {
  ClusterView view = MakeView({ShardedNode("s1", 1, {4})});
  std::vector<PendingJob> pending = {MpsJob(1, 0, 1)};
  SchedulePlan plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 1), "BadConstraints");
  view = MakeView({MpsNode("m1")});
  pending = {ShardJob(2, 0, 1)};
  plan = RunPass(view, pending);
  EXPECT_EQ(ReasonOf(plan, pending, 2), "BadConstraints");
}

}  // namespace
}  // namespace skiff::ctld
