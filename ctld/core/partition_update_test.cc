#include "ctld/core/partition_update.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

SkiffConfig TwoPartitions() {
  SkiffConfig config;
  for (const char* name : {"n1", "n2", "n3"}) {
    NodeConfig node;
    node.name = name;
    config.nodes.push_back(node);
  }
  PartitionConfig batch;
  batch.name = "batch";
  batch.nodes = {"n1", "n2"};
  batch.is_default = true;
  batch.max_time = 3600;
  PartitionConfig gpu;
  gpu.name = "gpu";
  gpu.nodes = {"n3"};
  config.partitions = {batch, gpu};
  return config;
}

TEST(PartitionUpdateTest, SetsTheKeysAndRecordsSkiffConfsValueAsBase) {
  const SkiffConfig file = TwoPartitions();
  absl::StatusOr<PartitionUpdate> update = ApplyPartitionUpdate(
      file, file, {}, "batch", {{"maxtime", "2:00:00"}, {"State", "down"}, {"Nodes", "n[1-3]"}});
  ASSERT_TRUE(update.ok()) << update.status();
  const PartitionConfig* batch = update->config.FindPartition("batch");
  EXPECT_EQ(batch->max_time, 7200);
  EXPECT_EQ(batch->state, "DOWN");
  EXPECT_EQ(batch->nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(update->override.size(), 3u);
  EXPECT_EQ(update->override[0].key, "MaxTime");
  EXPECT_EQ(update->override[0].base, "3600");
  EXPECT_EQ(update->override[1].base, "UP");
}

TEST(PartitionUpdateTest, SettingSkiffConfsValueAgainDropsTheOverride) {
  const SkiffConfig file = TwoPartitions();
  absl::StatusOr<PartitionUpdate> down =
      ApplyPartitionUpdate(file, file, {}, "batch", {{"State", "DOWN"}});
  ASSERT_TRUE(down.ok());
  absl::StatusOr<PartitionUpdate> up =
      ApplyPartitionUpdate(down->config, file, down->override, "batch", {{"State", "UP"}});
  ASSERT_TRUE(up.ok());
  EXPECT_TRUE(up->override.empty());
  EXPECT_EQ(up->config.FindPartition("batch")->state, "UP");
}

TEST(PartitionUpdateTest, BadValuesGetSlurmsWording) {
  const SkiffConfig file = TwoPartitions();
  EXPECT_EQ(ApplyPartitionUpdate(file, file, {}, "nope", {{"State", "UP"}}).status().message(),
            "Invalid partition name specified");
  EXPECT_EQ(
      ApplyPartitionUpdate(file, file, {}, "batch", {{"State", "sideways"}}).status().message(),
      "Invalid input: State=sideways\n"
      "Acceptable State values are UP, DOWN, DRAIN and INACTIVE");
  EXPECT_EQ(ApplyPartitionUpdate(file, file, {}, "batch", {{"MaxTime", "abc"}}).status().message(),
            "Invalid input: MaxTime=abc");
  EXPECT_EQ(ApplyPartitionUpdate(file, file, {}, "batch", {{"Nodes", "zz1"}}).status().message(),
            "Invalid node name specified");
  EXPECT_EQ(ApplyPartitionUpdate(file, file, {}, "batch", {{"Weight", "3"}}).status().message(),
            "Update of this parameter is not supported: Weight=3\nRequest aborted");
}

TEST(PartitionUpdateTest, DefaultYesTakesDefaultFromTheOthers) {
  const SkiffConfig file = TwoPartitions();
  absl::StatusOr<PartitionUpdate> update =
      ApplyPartitionUpdate(file, file, {}, "gpu", {{"Default", "YES"}});
  ASSERT_TRUE(update.ok());
  EXPECT_EQ(update->config.DefaultPartition()->name, "gpu");
  EXPECT_FALSE(update->config.FindPartition("batch")->is_default);
}

TEST(PartitionUpdateTest, OverridesSurviveUnlessSkiffConfChangedTheKey) {
  SkiffConfig file = TwoPartitions();
  PartitionOverrides stored = {
      {"batch", {{"MaxTime", "60", "3600"}, {"State", "DOWN", "UP"}}},
      {"gone", {{"State", "DOWN", "UP"}}},
  };
  file.partitions[0].max_time = 600;  // the admin edited MaxTime in skiff.conf
  std::vector<std::string> notes;
  SkiffConfig applied = ApplyPartitionOverrides(file, stored, &notes);
  EXPECT_EQ(applied.FindPartition("batch")->max_time, 600);
  EXPECT_EQ(applied.FindPartition("batch")->state, "DOWN");
  ASSERT_EQ(stored.size(), 1u);
  ASSERT_EQ(stored["batch"].size(), 1u);
  EXPECT_EQ(stored["batch"][0].key, "State");
  EXPECT_EQ(notes.size(), 2u);
}

TEST(PartitionUpdateTest, OverridesRoundTripThroughTheBlob) {
  std::vector<PartitionOverride> overrides = {{"MaxTime", "1:00:00", "3600"},
                                              {"AllowAccounts", "a,b", "ALL"}};
  std::vector<PartitionOverride> back =
      DecodePartitionOverrides(EncodePartitionOverrides(overrides));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].value, "a,b");
  EXPECT_EQ(back[1].base, "ALL");
}

}  // namespace
}  // namespace skiff::ctld
