#include "noded/gpu/nvml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "noded/hardware.h"

namespace skiff::noded {
namespace {

// The fake library from //tests/fake_nvml, in this test's runfiles.
std::string FakeLibrary() {
  const char* dir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return std::string(dir ? dir : ".") + "/" + (workspace ? workspace : "skiff") +
         "/tests/fake_nvml/libnvidia-ml.so.1";
}

TEST(Nvml, FindsTheGpusThroughTheLibrary) {
  absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus(FakeLibrary());
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].minor, 0u);
  EXPECT_EQ((*gpus)[1].minor, 3u);
  EXPECT_EQ((*gpus)[1].name, "NVIDIA A100-SXM4-40GB");
}

TEST(Nvml, AMissingLibraryIsUnavailableNamingIt) {
  absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus("libnvidia-ml-absent.so.1");
  EXPECT_EQ(gpus.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(gpus.status().message().find("cannot load libnvidia-ml-absent.so.1"),
            std::string::npos);
}

TEST(Nvml, ReadsEachGpusUtilisationMemoryEnergyAndProcesses) {
  const std::string state = std::string(getenv("TEST_TMPDIR")) + "/nvml.state";
  std::ofstream(state) << "gpu minor=0 name=NVIDIA_H100 util=37 memtotal=81920 memused=1024 "
                          "energy=5000\n"
                          "gpu minor=5 util=0\n"
                          "process gpu=0 pid=1234 mem=512\n"
                          "process gpu=0 pid=1235 mem=256\n";
  setenv("SKIFF_FAKE_NVML_STATE", state.c_str(), 1);
  absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Open(FakeLibrary());
  ASSERT_TRUE(nvml.ok()) << nvml.status();
  absl::StatusOr<std::vector<GpuReading>> readings = (*nvml)->Read();
  ASSERT_TRUE(readings.ok()) << readings.status();
  ASSERT_EQ(readings->size(), 2u);
  const GpuReading& gpu = (*readings)[0];
  EXPECT_EQ(gpu.minor, 0u);
  EXPECT_EQ(gpu.util_percent, 37u);
  EXPECT_EQ(gpu.memory_used_bytes, 1024ull << 20);
  EXPECT_EQ(gpu.memory_total_bytes, 81920ull << 20);
  EXPECT_EQ(gpu.energy_mj, 5000u);
  ASSERT_TRUE(gpu.processes.has_value());
  ASSERT_EQ(gpu.processes->size(), 2u);
  EXPECT_EQ((*gpu.processes)[1].pid, 1235);
  EXPECT_EQ((*gpu.processes)[1].used_bytes, 256ull << 20);
  EXPECT_EQ((*readings)[1].minor, 5u);
  EXPECT_TRUE((*readings)[1].processes.has_value());
  EXPECT_TRUE((*readings)[1].processes->empty());
  absl::StatusOr<std::vector<DetectedGpu>> gpus = (*nvml)->Gpus();
  ASSERT_TRUE(gpus.ok());
  EXPECT_EQ((*gpus)[0].name, "NVIDIA H100");
  unsetenv("SKIFF_FAKE_NVML_STATE");
}

TEST(Nvml, ReadsEccCountsXidEventsOnceAndLostGpus) {
  const std::string state = std::string(getenv("TEST_TMPDIR")) + "/faults.state";
  std::ofstream(state) << "gpu minor=0 ecc=2\ngpu minor=1 lost=1\nxid gpu=0 code=79\n";
  setenv("SKIFF_FAKE_NVML_STATE", state.c_str(), 1);
  absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Open(FakeLibrary());
  ASSERT_TRUE(nvml.ok()) << nvml.status();
  absl::StatusOr<std::vector<GpuReading>> readings = (*nvml)->Read();
  ASSERT_TRUE(readings.ok()) << readings.status();
  ASSERT_EQ(readings->size(), 2u);
  EXPECT_EQ((*readings)[0].uncorrected_ecc, 2u);
  EXPECT_EQ((*readings)[0].xids, (std::vector<uint64_t>{79}));
  EXPECT_TRUE((*readings)[1].lost);
  EXPECT_NE((*readings)[1].error.find("GPU is lost"), std::string::npos);
  readings = (*nvml)->Read();
  ASSERT_TRUE(readings.ok());
  EXPECT_TRUE((*readings)[0].xids.empty()) << "an event is delivered once";
  unsetenv("SKIFF_FAKE_NVML_STATE");
}

TEST(Nvml, TypesAreSlurmsLowerCaseNames) {
  EXPECT_EQ(NvmlGpuType("NVIDIA A100-SXM4-40GB"), "nvidia_a100-sxm4-40gb");
  EXPECT_EQ(NvmlGpuType("Tesla V100-SXM2-16GB"), "tesla_v100-sxm2-16gb");
}

TEST(Nvml, DetectedGpusReplaceGresConfsGpuLinesAndTakeTheConfiguredType) {
  NodeConfig node;
  node.name = "g1";
  node.gres = {{"gpu", "a100", 2}};
  GresConfig conf;  // no File= lines
  const std::vector<DetectedGpu> detected = {{0, "NVIDIA A100-SXM4-40GB"},
                                             {3, "NVIDIA A100-SXM4-40GB"}};
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(node, conf, &detected);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->size(), 1u);
  EXPECT_EQ((*gres)[0].name, "gpu");
  EXPECT_EQ((*gres)[0].type, "a100");
  EXPECT_EQ((*gres)[0].count, 2);
  EXPECT_EQ(UnitFiles((*gres)[0]), (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia3"}));
  // A type NVML's name does not contain: NVML's own type.
  node.gres = {{"gpu", "h100", 2}};
  gres = CollectNodeGres(node, conf, &detected);
  ASSERT_TRUE(gres.ok());
  EXPECT_EQ((*gres)[0].type, "nvidia_a100-sxm4-40gb");
}

TEST(Nvml, AGpuInMigModeIsItsMigDevices) {
  const std::string state = std::string(getenv("TEST_TMPDIR")) + "/mig.state";
  std::ofstream(state) << "gpu minor=0 name=NVIDIA_A100-SXM4-40GB\n"
                          "gpu minor=1 name=NVIDIA_A100-SXM4-40GB uuid=GPU-abc mig=1\n"
                          "mig gpu=1 gi=1 ci=0 slices=3 memory=20096 uuid=MIG-one\n"
                          "mig gpu=1 gi=2 ci=0 slices=3 memory=20096 uuid=MIG-two\n";
  setenv("SKIFF_FAKE_NVML_STATE", state.c_str(), 1);
  absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus(FakeLibrary());
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_TRUE((*gpus)[0].migs.empty());
  const DetectedGpu& gpu = (*gpus)[1];
  EXPECT_EQ(gpu.uuid, "GPU-abc");
  ASSERT_EQ(gpu.migs.size(), 2u);
  EXPECT_EQ(gpu.migs[1].gpu_instance, 2u);
  EXPECT_EQ(gpu.migs[1].compute_instance, 0u);
  EXPECT_EQ(gpu.migs[1].slices, 3u);
  EXPECT_EQ(gpu.migs[1].memory_mb, 20096u);
  EXPECT_EQ(gpu.migs[0].cuda_name, "MIG-one");

  // A driver before 470.42.01: CUDA names a MIG device by its GPU and instances.
  setenv("SKIFF_FAKE_NVML_DRIVER", "460.91.03", 1);
  gpus = DetectNvmlGpus(FakeLibrary());
  unsetenv("SKIFF_FAKE_NVML_DRIVER");
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  EXPECT_EQ((*gpus)[1].migs[1].cuda_name, "MIG-GPU-abc/2/0");

  // MIG mode without a MIG device is refused, as Slurm's slurmd refuses it.
  std::ofstream(state) << "gpu minor=1 mig=1\n";
  gpus = DetectNvmlGpus(FakeLibrary());
  unsetenv("SKIFF_FAKE_NVML_STATE");
  ASSERT_FALSE(gpus.ok());
  EXPECT_NE(gpus.status().message().find("GPU /dev/nvidia1 is in MIG mode but has no MIG devices"),
            std::string::npos)
      << gpus.status();
}

}  // namespace
}  // namespace skiff::noded
