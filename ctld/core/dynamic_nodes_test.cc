#include "ctld/core/dynamic_nodes.h"

#include <gtest/gtest.h>

#include "ctld/core/node_table.h"

namespace skiff::ctld {
namespace {

NodeConfig Joined(const std::string& name) {
  NodeConfig node;
  node.name = name;
  node.hostname = name;
  node.cpus = 8;
  node.real_memory_mb = 15000;
  node.sockets = 1;
  node.cores_per_socket = 8;
  return node;
}

SkiffConfig Base() {
  SkiffConfig config;
  NodeConfig n1;
  n1.name = "n1";
  config.nodes = {n1};
  PartitionConfig all;
  all.name = "all";
  all.all_nodes = true;
  all.nodes = {"n1"};
  PartitionConfig some;
  some.name = "some";
  some.nodes = {"n1"};
  config.partitions = {all, some};
  return config;
}

TEST(DynamicNodes, RecordRoundTrips) {
  NodeConfig node = Joined("gpu01");
  node.gres = {{"gpu", "a100", 2}, {"gpu", "", 1}};
  node.addr = "10.0.0.7";
  node.port = 6818;
  const std::string blob = EncodeDynamicNode(node);
  EXPECT_EQ(blob, "CPUs=8 RealMemory=15000 Gres=gpu:a100:2,gpu:1 NodeAddr=10.0.0.7 Port=6818");
  absl::StatusOr<NodeConfig> back = DecodeDynamicNode("gpu01", blob);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->name, "gpu01");
  EXPECT_EQ(back->cpus, 8);
  EXPECT_EQ(back->real_memory_mb, 15000u);
  ASSERT_EQ(back->gres.size(), 2u);
  EXPECT_EQ(back->gres[0].type, "a100");
  EXPECT_EQ(back->gres[0].count, 2);
  EXPECT_EQ(back->gres[1].type, "");
  EXPECT_EQ(back->addr, "10.0.0.7");
  EXPECT_EQ(back->port, 6818);
  EXPECT_EQ(EncodeDynamicNode(*back), blob);
}

TEST(DynamicNodes, BrokenRecordIsDataLossNamingTheNode) {
  for (const char* blob : {"", "CPUs=4", "CPUs=x RealMemory=1", "CPUs=4 RealMemory=1 Port=0",
                           "CPUs=4 RealMemory=1 Gres=gpu", "CPUs=4 RealMemory=1 Bogus=1", "CPUs"}) {
    absl::StatusOr<NodeConfig> node = DecodeDynamicNode("n9", blob);
    ASSERT_FALSE(node.ok()) << blob;
    EXPECT_EQ(node.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(node.status().message().find("'n9'"), absl::string_view::npos);
  }
}

TEST(DynamicNodes, JoinedNodesGoIntoNodesAllPartitionsOnly) {
  std::vector<std::string> notes;
  SkiffConfig config = WithDynamicNodes(Base(), {Joined("n7"), Joined("n8")}, &notes);
  EXPECT_TRUE(notes.empty());
  ASSERT_EQ(config.nodes.size(), 3u);
  EXPECT_EQ(config.nodes[1].name, "n7");
  EXPECT_EQ(config.FindPartition("all")->nodes, (std::vector<std::string>{"n1", "n7", "n8"}));
  EXPECT_EQ(config.FindPartition("some")->nodes, (std::vector<std::string>{"n1"}));
}

TEST(DynamicNodes, SkiffConfWinsOverAJoinedNodeOfTheSameName) {
  std::vector<std::string> notes;
  SkiffConfig config = WithDynamicNodes(Base(), {Joined("n1")}, &notes);
  ASSERT_EQ(config.nodes.size(), 1u);
  EXPECT_EQ(config.nodes[0].cpus, 1);  // skiff.conf's
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("NodeName=n1"), std::string::npos);
}

TEST(DynamicNodes, ADeletedNodeLeavesTheConfigurationAndTheTable) {
  const SkiffConfig joined = WithDynamicNodes(Base(), {Joined("n7"), Joined("n8")}, nullptr);
  NodeTable table(joined);
  ASSERT_NE(table.Find("n7"), nullptr);
  const SkiffConfig without = WithoutNodes(joined, {"n7"});
  EXPECT_EQ(without.FindNode("n7"), nullptr);
  EXPECT_EQ(without.FindPartition("all")->nodes, (std::vector<std::string>{"n1", "n8"}));
  EXPECT_EQ(table.DropNodesNotIn(without), 1u);
  EXPECT_EQ(table.DropNodesNotIn(without), 0u);
  EXPECT_EQ(table.Find("n7"), nullptr);
  ASSERT_NE(table.Find("n8"), nullptr) << "the index follows the shift";
  EXPECT_EQ(table.Find("n8")->config.name, "n8");
  EXPECT_EQ(table.nodes().size(), 2u);
}

TEST(DynamicNodes, NodeTableTakesJoinedNodesAtRunTime) {
  const SkiffConfig base = Base();
  NodeTable table(base);
  const SkiffConfig joined = WithDynamicNodes(base, {Joined("n7")}, nullptr);
  EXPECT_EQ(table.AddMissingNodes(joined), 1u);
  EXPECT_EQ(table.AddMissingNodes(joined), 0u);  // once
  table.SetPartitions(joined);
  const Node* n7 = table.Find("n7");
  ASSERT_NE(n7, nullptr);
  EXPECT_EQ(n7->config.cpus, 8);
  EXPECT_EQ(n7->state, NodeBaseState::kUnknown);
  EXPECT_EQ(n7->partitions, std::vector<std::string>{"all"});
  NodeRegistration reg;
  reg.node_name = "n7";
  reg.cpus = 8;
  reg.real_memory_mb = 15000;
  ASSERT_TRUE(table.Register(reg, 100, false, nullptr).ok());
  EXPECT_EQ(table.Find("n7")->state, NodeBaseState::kIdle);
  EXPECT_EQ(table.Find("n1")->partitions, (std::vector<std::string>{"all", "some"}));
}

}  // namespace
}  // namespace skiff::ctld
