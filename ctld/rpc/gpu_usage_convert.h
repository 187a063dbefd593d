// GpuUsage <-> v1::GpuUsage: a job's GPUs as its node reports them, as the
// job record keeps them and as sacct and seff read them. Pure.
#ifndef SKIFF_CTLD_RPC_GPU_USAGE_CONVERT_H_
#define SKIFF_CTLD_RPC_GPU_USAGE_CONVERT_H_

#include "ctld/core/job.h"
#include "proto/types.pb.h"

namespace skiff::ctld {

GpuUsage GpuUsageFromProto(const v1::GpuUsage& in);
void GpuUsageToProto(const GpuUsage& in, v1::GpuUsage* out);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_GPU_USAGE_CONVERT_H_
