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
  EXPECT_EQ(UnitFiles((*gres)[0]), mine.files);
}

// MIG devices by hand (MultipleFiles=): each line one device with its files.
TEST(CollectNodeGres, AMultipleFilesLineIsOneDevice) {
  NodeConfig node;
  node.name = "n3";
  GresConfig conf;
  GresDevice mig;
  mig.name = "gpu";
  mig.type = "3g.20gb";
  mig.multiple_files = true;
  mig.count = 1;
  mig.files = {MakeFakeDevice("nvidia0"), MakeFakeDevice("cap21"), MakeFakeDevice("cap22")};
  GresDevice other = mig;
  other.files = {mig.files[0], MakeFakeDevice("cap30"), MakeFakeDevice("cap31")};
  conf.devices = {mig, other};
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(node, conf);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->size(), 1u);
  EXPECT_EQ((*gres)[0].count, 2);
  ASSERT_EQ((*gres)[0].units.size(), 2u);
  EXPECT_EQ((*gres)[0].units[1].files, other.files);
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
  EXPECT_TRUE((*gres)[0].units.empty());
}

// A GPU in MIG mode registers as its MIG devices: typed as Slurm types them
// (or as Gres= names them), each with its GPU's file and its two capability
// devices from the driver's mig-minors table, and its name for CUDA.
TEST(CollectNodeGres, AGpuInMigModeIsItsMigDevices) {
  const std::string minors = std::string(getenv("TEST_TMPDIR")) + "/mig-minors";
  std::ofstream(minors) << "config 1\nmonitor 2\n"
                           "gpu1/gi1/access 147\ngpu1/gi1/ci0/access 148\n"
                           "gpu1/gi2/access 156\ngpu1/gi2/ci0/access 157\n";
  DetectedGpu whole{0, "NVIDIA A100-SXM4-40GB", "GPU-0", {}};
  DetectedGpu mig{1, "NVIDIA A100-SXM4-40GB", "GPU-1", {}};
  mig.migs = {{1, 0, 3, 20096, "MIG-one"}, {2, 0, 3, 20096, "MIG-two"}};
  const std::vector<DetectedGpu> detected = {whole, mig};
  NodeConfig node;
  node.name = "g1";
  absl::StatusOr<std::vector<NodeGres>> gres =
      CollectNodeGres(node, GresConfig{}, &detected, minors);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->size(), 2u);
  EXPECT_EQ((*gres)[0].type, "nvidia_a100-sxm4-40gb");
  EXPECT_EQ((*gres)[1].type, "nvidia_a100-sxm4-40gb_3g.20gb");
  EXPECT_EQ((*gres)[1].count, 2);
  EXPECT_EQ(UnitFiles((*gres)[1]),
            (std::vector<std::string>{
                "/dev/nvidia1,/dev/nvidia-caps/nvidia-cap147,/dev/nvidia-caps/nvidia-cap148",
                "/dev/nvidia1,/dev/nvidia-caps/nvidia-cap156,/dev/nvidia-caps/nvidia-cap157"}));
  EXPECT_EQ((*gres)[1].units[1].cuda_name, "MIG-two");
  EXPECT_EQ((*gres)[0].units[0].cuda_name, "");

  // Slurm's own spelling in Gres= names them, and so does the profile alone.
  for (const char* type : {"a100_3g.20gb", "3g.20gb"}) {
    node.gres = {{"gpu", type, 2}};
    const std::vector<DetectedGpu> only_mig = {mig};
    gres = CollectNodeGres(node, GresConfig{}, &only_mig, minors);
    ASSERT_TRUE(gres.ok()) << gres.status();
    ASSERT_EQ(gres->size(), 1u);
    EXPECT_EQ((*gres)[0].type, type);
  }
  // On a node with whole GPUs and MIG devices, each gets the type naming it best.
  node.gres = {{"gpu", "a100", 1}, {"gpu", "a100_3g.20gb", 2}};
  gres = CollectNodeGres(node, GresConfig{}, &detected, minors);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->size(), 2u);
  EXPECT_EQ((*gres)[0].type, "a100");
  EXPECT_EQ((*gres)[1].type, "a100_3g.20gb");
  // Another profile's name does not.
  node.gres = {{"gpu", "a100_1g.5gb", 2}};
  const std::vector<DetectedGpu> only_mig = {mig};
  gres = CollectNodeGres(node, GresConfig{}, &only_mig, minors);
  ASSERT_TRUE(gres.ok()) << gres.status();
  EXPECT_EQ((*gres)[0].type, "nvidia_a100-sxm4-40gb_3g.20gb");

  // Without the driver's table, or without the device's lines in it: an error naming them.
  gres = CollectNodeGres(node, GresConfig{}, &only_mig, "/nonexistent/mig-minors");
  ASSERT_FALSE(gres.ok());
  EXPECT_NE(gres.status().message().find("/nonexistent/mig-minors cannot be read"),
            std::string::npos)
      << gres.status();
  std::ofstream(minors) << "gpu1/gi1/access 147\n";
  gres = CollectNodeGres(node, GresConfig{}, &only_mig, minors);
  ASSERT_FALSE(gres.ok());
  EXPECT_EQ(gres.status().message(),
            "GPU /dev/nvidia1 MIG device GI 1 CI 0: no gpu1/gi1/ci0/access line in "
            "/proc/driver/nvidia-caps/mig-minors");
}

}  // namespace
}  // namespace skiff::noded
