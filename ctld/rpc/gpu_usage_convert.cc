#include "ctld/rpc/gpu_usage_convert.h"

namespace skiff::ctld {

GpuUsage GpuUsageFromProto(const v1::GpuUsage& in) {
  GpuUsage out;
  out.node = in.node();
  out.index = in.index();
  out.samples = in.samples();
  out.util_sum = in.util_sum();
  out.util_max = in.util_max();
  out.memory_samples = in.memory_samples();
  out.memory_sum_mib = in.memory_sum_mib();
  out.memory_max_bytes = in.memory_max_bytes();
  out.memory_total_bytes = in.memory_total_bytes();
  out.energy_mj = in.energy_mj();
  return out;
}

void GpuUsageToProto(const GpuUsage& in, v1::GpuUsage* out) {
  out->set_node(in.node);
  out->set_index(in.index);
  out->set_samples(in.samples);
  out->set_util_sum(in.util_sum);
  out->set_util_max(in.util_max);
  out->set_memory_samples(in.memory_samples);
  out->set_memory_sum_mib(in.memory_sum_mib);
  out->set_memory_max_bytes(in.memory_max_bytes);
  out->set_memory_total_bytes(in.memory_total_bytes);
  out->set_energy_mj(in.energy_mj);
}

}  // namespace skiff::ctld
