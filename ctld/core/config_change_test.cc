#include "ctld/core/config_change.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

SkiffConfig Small() {
  SkiffConfig config;
  NodeConfig node;
  node.name = "n1";
  node.cpus = 4;
  config.nodes = {node};
  PartitionConfig batch;
  batch.name = "batch";
  batch.nodes = {"n1"};
  config.partitions = {batch};
  return config;
}

TEST(ConfigChangeTest, PartitionChangesApplyAndPortsWaitForARestart) {
  const SkiffConfig running = Small();
  SkiffConfig next = Small();
  next.partitions[0].max_time = 60;
  next.ctld_port = 7000;
  ConfigChange change = PrepareReconfigure(running, next, {"batch"});
  ASSERT_TRUE(change.refused.ok());
  EXPECT_EQ(next.partitions[0].max_time, 60);
  EXPECT_EQ(next.ctld_port, running.ctld_port);
  ASSERT_EQ(change.notes.size(), 1u);
  EXPECT_EQ(change.notes[0].rfind("SlurmctldPort changed in skiff.conf: requires restart", 0), 0u);
}

TEST(ConfigChangeTest, ChangedNodesAreRefused) {
  const SkiffConfig running = Small();
  SkiffConfig next = Small();
  next.nodes[0].cpus = 8;
  ConfigChange change = PrepareReconfigure(running, next, {});
  EXPECT_EQ(change.refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(change.refused.message().find("n1"), absl::string_view::npos);
}

TEST(ConfigChangeTest, RemovingAPartitionWithJobsIsRefused) {
  const SkiffConfig running = Small();
  SkiffConfig next = Small();
  next.partitions.clear();
  EXPECT_FALSE(PrepareReconfigure(running, next, {"batch"}).refused.ok());
  SkiffConfig again = Small();
  again.partitions.clear();
  EXPECT_TRUE(PrepareReconfigure(running, again, {}).refused.ok());
}

}  // namespace
}  // namespace skiff::ctld
