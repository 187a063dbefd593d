#include "client/gpu_usage_summary.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

v1::GpuUsage Gpu(int64_t samples, int64_t util_sum, int util_max, uint64_t memory_sum_mib,
                 uint64_t memory_max_mib, uint64_t energy_mj) {
  v1::GpuUsage g;
  g.set_samples(samples);
  g.set_util_sum(util_sum);
  g.set_util_max(util_max);
  g.set_memory_samples(samples);
  g.set_memory_sum_mib(memory_sum_mib);
  g.set_memory_max_bytes(memory_max_mib << 20);
  g.set_energy_mj(energy_mj);
  return g;
}

TEST(GpuUsageSummary, SumsTheGpusAveragesAndPeaksAsSlurmSumsATasksGpus) {
  google::protobuf::RepeatedPtrField<v1::GpuUsage> gpus;
  *gpus.Add() = Gpu(4, 200, 90, 4096, 2048, 120000);  // 50 % and 1 GiB on average
  *gpus.Add() = Gpu(4, 10, 5, 400, 100, 1500);        // 2.5 %, 100 MiB
  const GpuUsageSummary s = SummarizeGpuUsage(gpus);
  EXPECT_TRUE(s.measured);
  EXPECT_EQ(s.util_ave, 53);  // 52.5 rounded
  EXPECT_EQ(s.util_max, 95);
  EXPECT_EQ(s.memory_ave, 1124ull << 20);
  EXPECT_EQ(s.memory_max, 2148ull << 20);
  EXPECT_EQ(s.energy_joules, 121u);
  EXPECT_DOUBLE_EQ(GpuUtilAverage(gpus[1]), 2.5);
}

TEST(GpuUsageSummary, NoSamplesIsNotMeasured) {
  google::protobuf::RepeatedPtrField<v1::GpuUsage> gpus;
  EXPECT_FALSE(SummarizeGpuUsage(gpus).measured);
  *gpus.Add() = Gpu(0, 0, 0, 0, 0, 0);
  EXPECT_FALSE(SummarizeGpuUsage(gpus).measured);
  EXPECT_EQ(GpuUtilAverage(gpus[0]), 0);
}

}  // namespace
}  // namespace skiff::client
