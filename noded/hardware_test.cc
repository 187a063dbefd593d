#include "noded/hardware.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace skiff::noded {
namespace {

std::string MakeFakeDevice(const std::string& name) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << "";
  return path;
}

TEST(DetectHardware, SeesAtLeastOneCpuAndSomeMemory) {
  Hardware hw = DetectHardware();
  EXPECT_GE(hw.cpus, 1);
  EXPECT_GT(hw.real_memory_mb, 0u);
  EXPECT_GT(hw.boot_time, 0);
  EXPECT_FALSE(hw.arch.empty());
}

// As slurmd's get_cpu_load and get_free_mem: the 5-minute load x 100, MemFree in MB.
TEST(NodeLoad, IsTheFiveMinuteLoadTimesHundredAndFreeMegabytes) {
  const NodeLoad load = NodeLoadFrom(/*1.5 x 65536*/ 98304, /*pages*/ 2048, /*page*/ 4096);
  EXPECT_EQ(load.cpu_load, 150u);
  EXPECT_EQ(load.free_memory_mb, 8u);
  EXPECT_EQ(NodeLoadFrom(0, 3u << 20, 1).free_memory_mb, 3u);
  std::optional<NodeLoad> now = ReadNodeLoad();
  ASSERT_TRUE(now.has_value());
  EXPECT_GT(now->free_memory_mb, 0u);
}

TEST(CollectNodeGres, GroupsDevicesForThisNodeOnly) {
  NodeConfig node;
  node.name = "n3";
  node.gres = {{"gpu", "", 2}};
  GresConfig conf;
  GresDevice mine;
  mine.node_names = {"n3"};
  mine.name = "gpu";
  mine.files = {MakeFakeDevice("nvidia0"), MakeFakeDevice("nvidia1")};
  mine.count = 2;
  GresDevice other = mine;
  other.node_names = {"n4"};
  conf.devices = {mine, other};
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(node, conf);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->size(), 1u);
  EXPECT_EQ((*gres)[0].count, 2);
  EXPECT_EQ((*gres)[0].files, mine.files);
}

TEST(CollectNodeGres, MissingDeviceFileIsAnErrorNamingIt) {
  NodeConfig node;
  node.name = "n3";
  GresConfig conf;
  GresDevice device;
  device.name = "gpu";
  device.files = {"/nonexistent/nvidia7"};
  device.count = 1;
  conf.devices = {device};
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(node, conf);
  ASSERT_FALSE(gres.ok());
  EXPECT_NE(gres.status().message().find("/nonexistent/nvidia7"), std::string_view::npos);
}

TEST(CollectNodeGres, ConfiguredGresWithoutDevicesIsReportedByCount) {
  NodeConfig node;
  node.name = "n1";
  node.gres = {{"gpu", "a100", 4}};
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(node, GresConfig{});
  ASSERT_TRUE(gres.ok());
  ASSERT_EQ(gres->size(), 1u);
  EXPECT_EQ((*gres)[0].type, "a100");
  EXPECT_EQ((*gres)[0].count, 4);
  EXPECT_TRUE((*gres)[0].files.empty());
}

}  // namespace
}  // namespace skiff::noded
