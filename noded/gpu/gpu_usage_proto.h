// GpuUse -> v1::GpuUsage, for the job's end report, the heartbeat and sstat.
#ifndef SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_
#define SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_

#include "noded/job_report.h"
#include "proto/types.pb.h"

namespace skiff::noded {

// `node` stays unset (ctld knows which node reports).
void GpuUseToProto(const GpuUse& gpu, v1::GpuUsage* out);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_
