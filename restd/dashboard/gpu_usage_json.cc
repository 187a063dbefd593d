#include "restd/dashboard/gpu_usage_json.h"

#include <cmath>

#include "client/gpu_usage_summary.h"

namespace skiff::restd {

client::Json GpuUsageJson(const v1::GetJobsReply& jobs) {
  using client::Json;
  Json list = Json::Array();
  for (const v1::JobInfo& job : jobs.jobs()) {
    Json gpus = Json::Array();
    for (const v1::GpuUsage& gpu : job.gpus()) {
      if (gpu.samples() == 0 && gpu.memory_samples() == 0) continue;
      Json entry = Json::Object();
      entry.Add("node", gpu.node());
      entry.Add("index", gpu.index());
      entry.Add("samples", gpu.samples());
      if (gpu.samples() > 0) {
        entry.Add("utilization_average", std::round(client::GpuUtilAverage(gpu) * 100) / 100);
        entry.Add("utilization_peak", gpu.util_max());
      }
      if (gpu.memory_samples() > 0) entry.Add("memory_peak_bytes", gpu.memory_max_bytes());
      if (gpu.memory_total_bytes() > 0) entry.Add("memory_total_bytes", gpu.memory_total_bytes());
      if (gpu.energy_mj() > 0) entry.Add("energy_joules", gpu.energy_mj() / 1000);
      gpus.Push(std::move(entry));
    }
    if (gpus.size() == 0) continue;
    Json record = Json::Object();
    record.Add("job_id", job.job_id());
    record.Add("user_name", job.user_name());
    record.Add("account", job.account());
    record.Add("gpus", std::move(gpus));
    list.Push(std::move(record));
  }
  return {{"jobs", std::move(list)}};
}

}  // namespace skiff::restd
