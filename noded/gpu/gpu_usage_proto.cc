#include "noded/gpu/gpu_usage_proto.h"

namespace skiff::noded {

void GpuUseToProto(const GpuUse& gpu, v1::GpuUsage* out) {
  out->set_index(gpu.index);
  out->set_samples(gpu.samples);
  out->set_util_sum(gpu.util_sum);
  out->set_util_max(gpu.util_max);
  out->set_memory_samples(gpu.memory_samples);
  out->set_memory_sum_mib(gpu.memory_sum_mib);
  out->set_memory_max_bytes(gpu.memory_max_bytes);
  out->set_memory_total_bytes(gpu.memory_total_bytes);
  out->set_energy_mj(gpu.EnergyMj());
}

}  // namespace skiff::noded
