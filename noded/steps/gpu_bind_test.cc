// --gpu-bind's per-task binding as Slurm 22.05's gres plugin computes it, on
// a node whose step holds GPUs 1, 2 and 3 (of 0-3).
#include "noded/steps/gpu_bind.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

using Gpus = std::vector<int>;
const Gpus kStep = {1, 2, 3};

TEST(GpuBind, MapGivesEachTaskItsGpuRepeatingTheList) {
  EXPECT_EQ(BoundGpus("map_gpu:3,1", kStep, 0), Gpus{3});
  EXPECT_EQ(BoundGpus("map_gpu:3,1", kStep, 1), Gpus{1});
  EXPECT_EQ(BoundGpus("map_gpu:3,1", kStep, 2), Gpus{3}) << "the list starts over";
  EXPECT_EQ(BoundGpus("map_gpu:1*2,2*2", kStep, 1), Gpus{1});
  EXPECT_EQ(BoundGpus("map_gpu:1*2,2*2", kStep, 2), Gpus{2});
  EXPECT_EQ(BoundGpus("MAP_GPU:2", kStep, 5), Gpus{2});
}

TEST(GpuBind, AGpuOutsideTheStepFallsBackToItsFirst) {
  EXPECT_EQ(BoundGpus("map_gpu:0", kStep, 0), Gpus{1});
  EXPECT_EQ(BoundGpus("mask_gpu:0x1", kStep, 0), Gpus{1});
}

TEST(GpuBind, MaskGivesEachTaskTheGpusOfItsBits) {
  EXPECT_EQ(BoundGpus("mask_gpu:0x6,0x8", kStep, 0), (Gpus{1, 2}));
  EXPECT_EQ(BoundGpus("mask_gpu:0x6,0x8", kStep, 1), Gpus{3});
  EXPECT_EQ(BoundGpus("mask_gpu:0xF", kStep, 7), (Gpus{1, 2, 3})) << "ANDed with the step's";
  EXPECT_EQ(BoundGpus("mask_gpu:12", kStep, 0), (Gpus{2, 3})) << "decimal too, as strtol";
}

TEST(GpuBind, ClosestIsEveryGpuAndSingleSpreadsTasksInBlocks) {
  EXPECT_EQ(BoundGpus("closest", kStep, 4), kStep);
  EXPECT_EQ(BoundGpus("single:2", kStep, 0), Gpus{1});
  EXPECT_EQ(BoundGpus("single:2", kStep, 1), Gpus{1});
  EXPECT_EQ(BoundGpus("single:2", kStep, 2), Gpus{2});
  EXPECT_EQ(BoundGpus("single:2", kStep, 5), Gpus{3});
  EXPECT_EQ(BoundGpus("single:2", kStep, 6), Gpus{1}) << "round again";
  EXPECT_EQ(BoundGpus("single:0", kStep, 1), Gpus{2}) << "Slurm reads 0 as 1";
}

TEST(GpuBind, OtherKindsAndNoGpusLeaveTheStepsGpus) {
  EXPECT_FALSE(IsTaskGpuBind("none"));
  EXPECT_FALSE(IsTaskGpuBind("per_task:1"));
  EXPECT_FALSE(IsTaskGpuBind(""));
  EXPECT_EQ(BoundGpus("none", kStep, 0), kStep);
  EXPECT_EQ(BoundGpus("map_gpu:0", {}, 0), Gpus{});
}

}  // namespace
}  // namespace skiff::noded
