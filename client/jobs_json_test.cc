#include "client/jobs_json.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

TEST(SqueueJson, PendingJobHasV0038KeysWithSlurmsDefaults) {
  v1::JobInfo job;
  job.set_job_id(42);
  job.mutable_spec()->set_name("waiting");
  job.set_partition("debug");
  job.set_account("lab");
  job.set_state(v1::PENDING);
  job.set_state_reason("Resources");
  job.set_time_limit(3600);
  job.set_user_id(0);
  job.set_user_name("root");
  job.set_group_name("root");
  job.set_num_nodes(1);
  job.set_num_cpus(2);
  job.set_priority(7);
  job.set_array_task_id(-1);
  job.set_expected_start(5000);
  std::string text = SqueueJson({&job}, "skiff").Dump();
  EXPECT_NE(text.find("\"meta\": {"), std::string::npos);
  EXPECT_NE(text.find("\"jobs\": [\n    {\n      \"account\": \"lab\",\n      \"accrue_time\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"array_task_id\": null"), std::string::npos);
  EXPECT_NE(text.find("\"job_state\": \"PENDING\""), std::string::npos);
  EXPECT_NE(text.find("\"state_reason\": \"Resources\""), std::string::npos);
  EXPECT_NE(text.find("\"time_limit\": 60"), std::string::npos);  // minutes, as Slurm
  EXPECT_NE(text.find("\"start_time\": 5000"), std::string::npos);
  EXPECT_NE(text.find("\"cluster\": \"skiff\""), std::string::npos);
  EXPECT_EQ(text.find("\"job_resources\""), std::string::npos);  // only once allocated
  EXPECT_NE(text.find("\"current_working_directory\": null\n    }\n  ]\n}"), std::string::npos);
}

TEST(SqueueJson, RunningJobShowsItsResourcesAndUnlimitedTimeAsNull) {
  v1::JobInfo job;
  job.set_job_id(7);
  job.set_state(v1::RUNNING);
  job.set_start_time(100);
  job.set_time_limit(-1);
  job.add_nodes("n1");
  job.add_nodes("n2");
  job.set_num_nodes(2);
  job.set_num_cpus(4);
  job.set_mem_per_node_mb(1000);
  Json json = SqueueJobJson(job, "c");
  std::string text = json.Dump();
  EXPECT_NE(text.find("\"job_resources\": {\n    \"nodes\": \"n[1-2]\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"time_limit\": null"), std::string::npos);
  EXPECT_NE(text.find("\"tres_alloc_str\": \"cpu=4,mem=2000M,node=2,billing=4\""),
            std::string::npos);
}

TEST(SqueueJson, ContainerIsTheBundleOrNull) {
  v1::JobInfo job;
  job.set_job_id(3);
  EXPECT_NE(SqueueJobJson(job, "c").Dump().find("\"container\": null"), std::string::npos);
  job.mutable_spec()->mutable_container()->set_bundle("/srv/oci/alpine");
  EXPECT_NE(SqueueJobJson(job, "c").Dump().find("\"container\": \"/srv/oci/alpine\""),
            std::string::npos);
}

TEST(SqueueJson, WrittenAJobAtATimeIsTheSameDocument) {
  std::vector<v1::JobInfo> jobs(3);
  std::vector<const v1::JobInfo*> pointers;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].set_job_id(10 + i);
    jobs[i].set_state(i == 1 ? v1::RUNNING : v1::PENDING);
    jobs[i].add_nodes("n1");
    pointers.push_back(&jobs[i]);
  }
  for (size_t n : {0, 1, 3}) {
    std::vector<const v1::JobInfo*> some(pointers.begin(), pointers.begin() + n);
    std::string written;
    WriteSqueueJson(some, "skiff", [&](std::string_view piece) { written.append(piece); });
    EXPECT_EQ(written, SqueueJson(some, "skiff").Dump()) << n;
  }
}

}  // namespace
}  // namespace skiff::client
