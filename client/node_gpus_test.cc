#include "client/node_gpus.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

v1::Gres* AddGres(v1::NodeInfo& node, const std::string& name, const std::string& type,
                  int64_t count) {
  v1::Gres* gres = node.add_gres();
  gres->set_name(name);
  gres->set_type(type);
  gres->set_count(count);
  return gres;
}

TEST(NodeGpusTest, IndicesCountAcrossTheGpuEntriesInOrder) {
  v1::NodeInfo node;
  AddGres(node, "gpu", "a100", 2);
  AddGres(node, "nic", "", 1);  // not a GPU: no index
  AddGres(node, "gpu", "v100", 3);
  for (int index : {1, 2, 4}) node.add_alloc_gpu_indices(index);
  const std::vector<NodeGpuEntry> entries = NodeGpuEntries(node);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].type, "a100");
  EXPECT_EQ(entries[0].count, 2);
  EXPECT_EQ(entries[0].held, 1);  // index 1
  EXPECT_EQ(entries[1].type, "v100");
  EXPECT_EQ(entries[1].count, 3);
  EXPECT_EQ(entries[1].held, 2);  // indices 2 and 4
}

TEST(NodeGpusTest, ANodeWithoutGpusHasNoEntries) {
  v1::NodeInfo node;
  AddGres(node, "nic", "", 1);
  EXPECT_TRUE(NodeGpuEntries(node).empty());
}

// Slurm's GresUsed of shards: the GPUs with a shard in use (one bit a GPU).
TEST(NodeGpusTest, GresUsedOfShardsCountsTheGpusWithAShardInUse) {
  v1::NodeInfo node;
  AddGres(node, "gpu", "", 3);
  AddGres(node, "shard", "", 12);
  for (int shards : {2, 0, 1}) node.add_alloc_gpu_shares(shards);
  node.add_alloc_gpu_indices(1);
  EXPECT_EQ(NodeGresUsedString(node), "gpu:1,shard:(null):2(IDX:0,2)");
  node.clear_alloc_gpu_shares();
  EXPECT_EQ(NodeGresUsedString(node), "gpu:1,shard:(null):0(IDX:N/A)");
  v1::NodeInfo mps;
  AddGres(mps, "gpu", "", 2);
  AddGres(mps, "mps", "", 200);
  for (int share : {0, 75}) mps.add_alloc_gpu_shares(share);
  EXPECT_EQ(NodeGresUsedString(mps), "gpu:0,mps:(null):1(IDX:1)");
  // A GPU with a share in use is in use, for sstatus and /metrics.
  ASSERT_EQ(NodeGpuEntries(mps).size(), 1u);
  EXPECT_EQ(NodeGpuEntries(mps)[0].held, 1);
}

TEST(IndexRanges, FoldsConsecutiveIndices) {
  EXPECT_EQ(IndexRanges({0, 1, 3}), "0-1,3");
  EXPECT_EQ(IndexRanges({2}), "2");
}

}  // namespace
}  // namespace skiff::client
