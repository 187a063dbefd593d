#include "ctld/core/first_fit.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace skiff {
namespace {

NodeCapacity MakeNode(const std::string& name, int cpus, int gpus = 0) {
  NodeCapacity node;
  node.name = name;
  node.usable = true;
  node.cpus = cpus;
  node.memory_mb = 1000;
  node.gpu_owner.assign(gpus, 0);
  node.partitions = {"debug"};
  return node;
}

std::vector<PartitionConfig> Partitions() {
  PartitionConfig debug;
  debug.name = "debug";
  return {debug};
}

Job MakeJob(uint64_t id, int cpus = 1, int gpus = 0, int nodes = 1) {
  Job job;
  job.id = id;
  job.request.partition = "debug";
  job.request.cpus_per_task = cpus;
  job.request.gpus_per_node = gpus;
  job.request.num_nodes = nodes;
  return job;
}

TEST(ScheduleFirstFit, PlacesJobsOnFirstNodeWithRoom) {
  Job a = MakeJob(1, 2), b = MakeJob(2, 2), c = MakeJob(3, 2);
  ScheduleResult result =
      ScheduleFirstFit({MakeNode("n1", 4), MakeNode("n2", 4)}, {&a, &b, &c}, Partitions(), 0);
  ASSERT_EQ(result.placements.size(), 3u);
  EXPECT_EQ(result.placements[0].nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(result.placements[1].nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(result.placements[2].nodes, std::vector<std::string>{"n2"});
}

TEST(ScheduleFirstFit, JobThatDoesNotFitNowPendsOnResources) {
  Job a = MakeJob(1, 4), b = MakeJob(2, 1);
  ScheduleResult result = ScheduleFirstFit({MakeNode("n1", 4)}, {&a, &b}, Partitions(), 0);
  ASSERT_EQ(result.placements.size(), 1u);
  ASSERT_EQ(result.pending.size(), 1u);
  EXPECT_EQ(result.pending[0].job_id, 2u);
  EXPECT_EQ(result.pending[0].reason, "Resources");
}

TEST(ScheduleFirstFit, HeldAndFutureJobsKeepTheirReasons) {
  Job held = MakeJob(1), admin = MakeJob(2), later = MakeJob(3);
  held.held = true;
  admin.held = true;
  admin.held_by_admin = true;
  later.request.begin_time = 100;
  ScheduleResult result =
      ScheduleFirstFit({MakeNode("n1", 4)}, {&held, &admin, &later}, Partitions(), 50);
  EXPECT_TRUE(result.placements.empty());
  ASSERT_EQ(result.pending.size(), 3u);
  EXPECT_EQ(result.pending[0].reason, "JobHeldUser");
  EXPECT_EQ(result.pending[1].reason, "JobHeldAdmin");
  EXPECT_EQ(result.pending[2].reason, "BeginTime");
}

TEST(ScheduleFirstFit, UnusableNodesGiveSlurmsNodesUnavailableReason) {
  NodeCapacity down = MakeNode("n1", 4);
  down.usable = false;
  Job a = MakeJob(1);
  ScheduleResult result = ScheduleFirstFit({down}, {&a}, Partitions(), 0);
  ASSERT_EQ(result.pending.size(), 1u);
  EXPECT_EQ(result.pending[0].reason, kNodesUnavailable);
}

TEST(ScheduleFirstFit, DownPartitionHoldsItsJobs) {
  std::vector<PartitionConfig> partitions = Partitions();
  partitions[0].state = "DOWN";
  Job a = MakeJob(1);
  ScheduleResult result = ScheduleFirstFit({MakeNode("n1", 4)}, {&a}, partitions, 0);
  ASSERT_EQ(result.pending.size(), 1u);
  EXPECT_EQ(result.pending[0].reason, "PartitionDown");
}

TEST(ScheduleFirstFit, MultiNodeJobTakesDistinctNodes) {
  Job a = MakeJob(1, 1, 0, 2);
  ScheduleResult result =
      ScheduleFirstFit({MakeNode("n1", 2), MakeNode("n2", 2)}, {&a}, Partitions(), 0);
  ASSERT_EQ(result.placements.size(), 1u);
  EXPECT_EQ(result.placements[0].nodes, (std::vector<std::string>{"n1", "n2"}));
}

TEST(ScheduleFirstFit, GpusAreNeverDoubleBooked) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<NodeCapacity> nodes = {MakeNode("n1", 64, 2), MakeNode("n2", 64, 4)};
    std::vector<Job> jobs;
    for (uint64_t id = 1; id <= 12; ++id) jobs.push_back(MakeJob(id, 1, 1 + rng() % 3));
    std::vector<const Job*> pending;
    for (const Job& job : jobs) pending.push_back(&job);
    ScheduleResult result = ScheduleFirstFit(nodes, pending, Partitions(), 0);
    std::set<std::pair<std::string, int>> used;
    int total = 0;
    for (const Placement& p : result.placements) {
      const Job& job = jobs[p.job_id - 1];
      ASSERT_EQ(p.gpu_indices[0].size(), static_cast<size_t>(job.request.gpus_per_node));
      for (int gpu : p.gpu_indices[0]) {
        EXPECT_TRUE(used.insert({p.nodes[0], gpu}).second) << "GPU booked twice";
        ++total;
      }
    }
    EXPECT_LE(total, 6);
  }
}

TEST(CheckSatisfiable, RejectsWhatNoNodeCanEverHold) {
  std::vector<NodeCapacity> nodes = {MakeNode("n1", 4), MakeNode("n2", 4, 2)};
  JobRequest ok;
  ok.partition = "debug";
  EXPECT_TRUE(CheckSatisfiable(ok, nodes).ok());
  JobRequest too_many_cpus = ok;
  too_many_cpus.cpus_per_task = 8;
  EXPECT_EQ(CheckSatisfiable(too_many_cpus, nodes).message(),
            "Requested node configuration is not available");
  JobRequest too_many_nodes = ok;
  too_many_nodes.num_nodes = 3;
  EXPECT_EQ(CheckSatisfiable(too_many_nodes, nodes).message(),
            "More processors requested than permitted");
  JobRequest too_many_gpus = ok;
  too_many_gpus.gpus_per_node = 3;
  EXPECT_FALSE(CheckSatisfiable(too_many_gpus, nodes).ok());
  JobRequest two_gpus = ok;
  two_gpus.gpus_per_node = 2;
  EXPECT_TRUE(CheckSatisfiable(two_gpus, nodes).ok());
}

}  // namespace
}  // namespace skiff
