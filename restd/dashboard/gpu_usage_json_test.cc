#include "restd/dashboard/gpu_usage_json.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

// As restd writes it: compact, a whole double with its point.
std::string Text(const client::Json& json) { return json.Text({false, true}); }

TEST(GpuUsageJsonTest, OnlySampledGpusWithTheFiguresMeasured) {
  v1::GetJobsReply reply;
  v1::JobInfo* busy = reply.add_jobs();
  busy->set_job_id(7);
  busy->set_user_name("alice");
  busy->set_account("lab");
  v1::GpuUsage* gpu = busy->add_gpus();
  gpu->set_node("n3");
  gpu->set_index(1);
  gpu->set_samples(3);
  gpu->set_util_sum(200);  // 66.666...%
  gpu->set_util_max(90);
  gpu->set_memory_samples(3);
  gpu->set_memory_max_bytes(6ull << 30);
  gpu->set_memory_total_bytes(40ull << 30);
  gpu->set_energy_mj(12345678);
  // Utilisation without memory figures (a GPU whose driver has no process list).
  v1::GpuUsage* other = busy->add_gpus();
  other->set_node("n4");
  other->set_index(0);
  other->set_samples(1);
  other->set_util_sum(5);
  other->set_util_max(5);
  // A job whose GPU was not sampled yet, and one without GPUs: left out.
  v1::JobInfo* unsampled = reply.add_jobs();
  unsampled->set_job_id(8);
  unsampled->add_gpus()->set_node("n3");
  reply.add_jobs()->set_job_id(9);

  EXPECT_EQ(Text(GpuUsageJson(reply)),
            "{\"jobs\":[{\"job_id\":7,\"user_name\":\"alice\",\"account\":\"lab\",\"gpus\":["
            "{\"node\":\"n3\",\"index\":1,\"samples\":3,\"utilization_average\":66.67,"
            "\"utilization_peak\":90,\"memory_peak_bytes\":6442450944,"
            "\"memory_total_bytes\":42949672960,\"energy_joules\":12345},"
            "{\"node\":\"n4\",\"index\":0,\"samples\":1,\"utilization_average\":5.0,"
            "\"utilization_peak\":5}]}]}");
}

TEST(GpuUsageJsonTest, NoJobsIsAnEmptyList) {
  EXPECT_EQ(Text(GpuUsageJson(v1::GetJobsReply())), "{\"jobs\":[]}");
}

}  // namespace
}  // namespace skiff::restd
