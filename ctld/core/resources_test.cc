#include "ctld/core/resources.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
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

TEST(ShareFits, EveryAmountMustFit) {
  const Share room{4, 1000, 2};
  EXPECT_TRUE(ShareFits({4, 1000, 2}, room));
  EXPECT_TRUE(ShareFits({0, 0, 0}, room));
  EXPECT_FALSE(ShareFits({5, 1, 0}, room));
  EXPECT_FALSE(ShareFits({1, 1001, 0}, room));
  EXPECT_FALSE(ShareFits({1, 1, 3}, room));
}

TEST(NodeCapacity, TotalAndFreeGpus) {
  NodeCapacity node = MakeNode("n1", 8, 4);
  node.gpu_owner[1] = 42;
  EXPECT_EQ(node.FreeGpus(), 3);
  const Share total = node.Total();
  EXPECT_EQ(total.cpus, 8);
  EXPECT_EQ(total.mem, 1000);
  EXPECT_EQ(total.gpus, 4);
}

TEST(SpreadShares, EvenlyWithTheRemainderOnTheLastGpus) {
  EXPECT_EQ(SpreadShares(8, 2), (std::vector<int32_t>{4, 4}));
  EXPECT_EQ(SpreadShares(10, 4), (std::vector<int32_t>{2, 2, 3, 3}));
  EXPECT_EQ(SpreadShares(1, 2), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(SpreadShares(5, 0), (std::vector<int32_t>{}));
}

TEST(NodeCapacity, AShardedGpuIsNotFreeWhole) {
  NodeCapacity node = MakeNode("n1", 8, 2);
  node.gpu_shares = {4, 4};
  node.share_holds.push_back({7, {1, 2}});
  node.share_holds.push_back({8, {1, 1}});
  EXPECT_EQ(node.SharesUsed(1), 3);
  EXPECT_EQ(node.SharesUsed(0), 0);
  EXPECT_EQ(node.FreeGpus(), 1);
  EXPECT_EQ(node.Total().shares, 8);
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
  JobRequest unknown_type = ok;
  unknown_type.gpus_per_node = 1;
  unknown_type.gpu_type = "abc";  // --gres=gpu:abc
  EXPECT_EQ(CheckSatisfiable(unknown_type, nodes).message(),
            "Invalid generic resource (gres) specification");
  JobRequest all_excluded = ok;
  all_excluded.exclude = {"n1", "n2"};
  EXPECT_EQ(CheckSatisfiable(all_excluded, nodes).message(),
            "Requested node configuration is not available");
  JobRequest two_gpus = ok;
  two_gpus.gpus_per_node = 2;
  EXPECT_TRUE(CheckSatisfiable(two_gpus, nodes).ok());
}

// --tmp is a floor on each node's TmpDisk, refused with Slurm's two lines
// when nodes that would otherwise do lack the disk (Slurm 22.05 on the
// anchor: "Temporary disk specification can not be satisfied", then
// "Batch job submission failed: Requested node configuration is not available").
TEST(CheckSatisfiable, TmpDiskIsAFloorOnEveryNodeOfTheJob) {
  std::vector<NodeCapacity> nodes = {MakeNode("n1", 4), MakeNode("n2", 4), MakeNode("n3", 4)};
  nodes[0].tmp_disk_mb = 1024;
  nodes[1].tmp_disk_mb = 2048;
  JobRequest request;
  request.partition = "debug";
  request.min_tmp_disk_mb = 2048;  // --tmp=2G: n2 only
  EXPECT_TRUE(CheckSatisfiable(request, nodes).ok());
  constexpr char kBadTmpDisk[] =
      "Temporary disk specification can not be satisfied\n"
      "Requested node configuration is not available";
  JobRequest two_nodes = request;
  two_nodes.num_nodes = 2;
  EXPECT_EQ(CheckSatisfiable(two_nodes, nodes).message(), kBadTmpDisk);
  JobRequest too_big = request;
  too_big.min_tmp_disk_mb = 2049;
  EXPECT_EQ(CheckSatisfiable(too_big, nodes).message(), kBadTmpDisk);
  // -w of a node without the disk.
  JobRequest on_n1 = request;
  on_n1.nodelist = {"n1"};
  EXPECT_EQ(CheckSatisfiable(on_n1, nodes).message(), kBadTmpDisk);
  // A node too small in CPUs says so without the disk's line.
  JobRequest too_many_cpus = request;
  too_many_cpus.min_tmp_disk_mb = 0;
  too_many_cpus.cpus_per_task = 8;
  EXPECT_EQ(CheckSatisfiable(too_many_cpus, nodes).message(),
            "Requested node configuration is not available");
  // Two jobs' --tmp never add up: it is not an amount a job takes.
  JobRequest one_gig = request;
  one_gig.min_tmp_disk_mb = 1024;
  one_gig.num_nodes = 2;
  EXPECT_TRUE(CheckSatisfiable(one_gig, nodes).ok());
}

// -B, --sockets-per-node, ...: floors on each node's layout; when no node of
// the partition meets them, Slurm's cons_tres refuses the job at submit.
TEST(CheckSatisfiable, TopologyIsAFloorOnEachNodesLayout) {
  std::vector<NodeCapacity> nodes = {MakeNode("n1", 4), MakeNode("n2", 4)};
  nodes[0].layout = {1, 4, 1};
  nodes[1].layout = {2, 1, 2};
  JobRequest request;
  request.partition = "debug";
  request.min_topology = {2, 0, 0};  // -B 2: n2 only
  EXPECT_TRUE(CheckSatisfiable(request, nodes).ok());
  JobRequest both = request;
  both.num_nodes = 2;
  EXPECT_EQ(CheckSatisfiable(both, nodes).message(),
            "Requested node configuration is not available");
  JobRequest cores = request;
  cores.min_topology = {0, 4, 0};  // --cores-per-socket=4: n1 only
  EXPECT_TRUE(CheckSatisfiable(cores, nodes).ok());
  cores.nodelist = {"n2"};
  EXPECT_EQ(CheckSatisfiable(cores, nodes).message(),
            "Requested node configuration is not available");
  JobRequest none = request;
  none.min_topology = {2, 2, 0};  // no node has both
  EXPECT_EQ(CheckSatisfiable(none, nodes).message(),
            "Requested node configuration is not available");
}

TEST(CheckSatisfiable, RejectsARequiredNodeThatCouldNeverHoldTheJob) {
  std::vector<NodeCapacity> nodes = {MakeNode("n1", 4), MakeNode("n2", 4, 2)};
  JobRequest gpu_on_cpu_node;
  gpu_on_cpu_node.partition = "debug";
  gpu_on_cpu_node.gpus_per_node = 1;
  gpu_on_cpu_node.nodelist = {"n1"};  // sbatch -w n1 --gres=gpu:1
  EXPECT_EQ(CheckSatisfiable(gpu_on_cpu_node, nodes).message(),
            "Requested node configuration is not available");
  JobRequest gpu_on_gpu_node = gpu_on_cpu_node;
  gpu_on_gpu_node.nodelist = {"n2"};
  EXPECT_TRUE(CheckSatisfiable(gpu_on_gpu_node, nodes).ok());
}

}  // namespace
}  // namespace skiff::ctld
