#include "cli/common/allocation.h"

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

TEST(AllocationEnvironment, AsSallocSetsIt) {
  v1::JobInfo job;
  job.set_job_id(12);
  job.mutable_spec()->set_name("bash");
  job.mutable_spec()->set_ntasks(5);
  job.mutable_spec()->set_cpus_per_task(2);
  job.add_nodes("n1");
  job.add_nodes("n2");
  job.set_num_cpus(12);
  job.set_mem_per_node_mb(1000);
  job.set_partition("gpu");
  job.set_account("lab");
  job.set_stepmgr_address("10.0.0.1:6818");
  std::map<std::string, std::string> env = AllocationEnvironment(job, "lab", "/home/a", "login1");
  EXPECT_EQ(env["SLURM_JOB_ID"], "12");
  EXPECT_EQ(env["SLURM_JOB_NODELIST"], "n[1-2]");
  EXPECT_EQ(env["SLURM_NNODES"], "2");
  EXPECT_EQ(env["SLURM_JOB_CPUS_PER_NODE"], "6(x2)");
  EXPECT_EQ(env["SLURM_NTASKS"], "5");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "3,2");
  EXPECT_EQ(env["SLURM_CPUS_PER_TASK"], "2");
  EXPECT_EQ(env["SLURM_MEM_PER_NODE"], "1000");
  EXPECT_EQ(env["SLURM_JOB_PARTITION"], "gpu");
  EXPECT_EQ(env["SLURM_SUBMIT_HOST"], "login1");
  EXPECT_EQ(env["SLURM_STEPMGR"], "n1");
  EXPECT_EQ(env["SKIFF_STEPMGR_ADDR"], "10.0.0.1:6818");
}

// -I's value, as Slurm's arg_set_immediate (DEFAULT_IMMEDIATE is 1) and parse_int.
TEST(ImmediateSeconds, BareIsOneAndNumbersAreSeconds) {
  EXPECT_EQ(*ImmediateSeconds(""), 1);
  EXPECT_EQ(*ImmediateSeconds("30"), 30);
  EXPECT_EQ(*ImmediateSeconds("0"), 0);
  EXPECT_EQ(ImmediateSeconds("x").status().message(), "Invalid numeric value \"x\" for immediate.");
  EXPECT_FALSE(ImmediateSeconds("-2").ok());
}

}  // namespace
}  // namespace skiff::cli
