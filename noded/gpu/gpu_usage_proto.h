// GpuUse <-> v1::GpuUsage, for the job's end report, the heartbeat, sstat and
// a multi-node job's other nodes (Noded.EndJobOnNode).
#ifndef SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_
#define SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_

#include "noded/job_report.h"
#include "proto/types.pb.h"

namespace skiff::noded {

// `node` stays unset for this node's GPUs (ctld knows which node reports).
void GpuUseToProto(const GpuUse& gpu, v1::GpuUsage* out);
// Another node's GPU, as its noded sent it: the energy as a counter from 0.
GpuUse GpuUseFromProto(const v1::GpuUsage& in);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_GPU_USAGE_PROTO_H_
