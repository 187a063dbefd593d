#include "noded/nvml.h"

#include <gtest/gtest.h>

#include <cstdlib>

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
  EXPECT_EQ((*gres)[0].files, (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia3"}));
  // A type NVML's name does not contain: NVML's own type.
  node.gres = {{"gpu", "h100", 2}};
  gres = CollectNodeGres(node, conf, &detected);
  ASSERT_TRUE(gres.ok());
  EXPECT_EQ((*gres)[0].type, "nvidia_a100-sxm4-40gb");
}

}  // namespace
}  // namespace skiff::noded
