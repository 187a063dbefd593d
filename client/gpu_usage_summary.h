// A finished (or running) job's sampled GPUs summed up as Slurm's TRES and as
// seff's lines (sacct, sstat, seff, restd's job records): gres/gpuutil in percent and gres/gpumem
// in bytes, summed over the job's GPUs as Slurm sums them over a task's, and the GPU energy. Pure.
#ifndef SKIFF_CLIENT_GPU_USAGE_SUMMARY_H_
#define SKIFF_CLIENT_GPU_USAGE_SUMMARY_H_

#include <cstdint>
#include <string>

#include "google/protobuf/repeated_ptr_field.h"
#include "proto/types.pb.h"

namespace skiff::client {

struct GpuUsageSummary {
  bool measured = false;    // at least one sample of one GPU
  int64_t util_ave = 0;     // the GPUs' average utilisations, summed (percent)
  int64_t util_max = 0;     // their peaks, summed: never below the true joint peak
  uint64_t memory_ave = 0;  // bytes, the GPUs' averages summed
  uint64_t memory_max = 0;  // bytes, their peaks summed
  uint64_t energy_joules = 0;
};

GpuUsageSummary SummarizeGpuUsage(const google::protobuf::RepeatedPtrField<v1::GpuUsage>& gpus);

// One GPU's average utilisation in percent (0 without samples).
double GpuUtilAverage(const v1::GpuUsage& gpu);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_GPU_USAGE_SUMMARY_H_
