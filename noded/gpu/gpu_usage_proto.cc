#include "noded/gpu/gpu_usage_proto.h"

namespace skiff::noded {

void GpuUseToProto(const GpuUse& gpu, v1::GpuUsage* out) {
  if (!gpu.node.empty()) out->set_node(gpu.node);
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

GpuUse GpuUseFromProto(const v1::GpuUsage& in) {
  GpuUse gpu;
  gpu.node = in.node();
  gpu.index = in.index();
  gpu.samples = in.samples();
  gpu.util_sum = in.util_sum();
  gpu.util_max = in.util_max();
  gpu.memory_samples = in.memory_samples();
  gpu.memory_sum_mib = in.memory_sum_mib();
  gpu.memory_max_bytes = in.memory_max_bytes();
  gpu.memory_total_bytes = in.memory_total_bytes();
  if (in.energy_mj() > 0) {  // the counter's difference is all that travels
    gpu.energy_first_mj = 0;
    gpu.energy_last_mj = in.energy_mj();
  }
  return gpu;
}

}  // namespace skiff::noded
