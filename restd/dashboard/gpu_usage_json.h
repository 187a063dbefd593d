// GET /skiff/v1/gpu_usage's answer (skiff_paths.h): each job's sampled GPUs as
// ctld sent them to the caller (their own jobs; every job for operators),
// for the dashboard's job rows. Pure.
#ifndef SKIFF_RESTD_DASHBOARD_GPU_USAGE_JSON_H_
#define SKIFF_RESTD_DASHBOARD_GPU_USAGE_JSON_H_

#include "client/json_writer.h"
#include "proto/ctld.pb.h"

namespace skiff::restd {

// {"jobs": [{"job_id", "user_name", "account", "gpus": [{"node", "index",
// "samples", "utilization_average" (percent, 2 decimals), "utilization_peak",
// "memory_peak_bytes", "memory_total_bytes", "energy_joules"}]}]}: only jobs
// with a sampled GPU; a figure not measured is absent.
client::Json GpuUsageJson(const v1::GetJobsReply& jobs);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_GPU_USAGE_JSON_H_
