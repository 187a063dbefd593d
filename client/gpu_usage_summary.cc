#include "client/gpu_usage_summary.h"

#include <cmath>

namespace skiff::client {

double GpuUtilAverage(const v1::GpuUsage& gpu) {
  return gpu.samples() > 0 ? static_cast<double>(gpu.util_sum()) / gpu.samples() : 0;
}

GpuUsageSummary SummarizeGpuUsage(const google::protobuf::RepeatedPtrField<v1::GpuUsage>& gpus) {
  GpuUsageSummary s;
  double util = 0;
  double memory_mib = 0;
  uint64_t energy_mj = 0;
  for (const v1::GpuUsage& gpu : gpus) {
    if (gpu.samples() > 0 || gpu.memory_samples() > 0) s.measured = true;
    util += GpuUtilAverage(gpu);
    s.util_max += gpu.util_max();
    if (gpu.memory_samples() > 0) {
      memory_mib += static_cast<double>(gpu.memory_sum_mib()) / gpu.memory_samples();
    }
    s.memory_max += gpu.memory_max_bytes();
    energy_mj += gpu.energy_mj();
  }
  s.util_ave = std::llround(util);
  s.memory_ave = static_cast<uint64_t>(std::llround(memory_mib * 1024 * 1024));
  s.energy_joules = energy_mj / 1000;
  return s;
}

}  // namespace skiff::client
