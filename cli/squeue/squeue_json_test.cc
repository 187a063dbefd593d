#include "cli/squeue/squeue_json.h"

#include <gtest/gtest.h>

namespace skiff {
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

}  // namespace
}  // namespace skiff
