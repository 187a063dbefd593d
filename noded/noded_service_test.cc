#include "noded/noded_service.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

TEST(LaunchSpecFromProto, CopiesEveryRequestField) {
  v1::LaunchJobRequest request;
  request.set_job_id(42);
  request.set_uid(1000);
  request.set_gid(100);
  request.set_user_name("alice");
  request.set_script("#!/bin/sh\n");
  request.add_argv("a");
  request.add_argv("b");
  (*request.mutable_environment())["SLURM_JOB_ID"] = "42";
  request.set_work_dir("/home/alice");
  request.set_stdout_path("/home/alice/slurm-42.out");
  request.set_stderr_path("/home/alice/slurm-42.err");
  request.set_stdin_path("/home/alice/in");
  request.set_time_limit(600);
  request.set_cpus(3);
  request.set_memory_mb(2048);
  request.add_gpu_indices(1);
  request.add_gpu_indices(3);

  const LaunchSpec spec = LaunchSpecFromProto(request);
  EXPECT_EQ(spec.job_id, 42u);
  EXPECT_EQ(spec.uid, 1000u);
  EXPECT_EQ(spec.gid, 100u);
  EXPECT_EQ(spec.user_name, "alice");
  EXPECT_EQ(spec.argv, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(spec.environment.at("SLURM_JOB_ID"), "42");
  EXPECT_EQ(spec.work_dir, "/home/alice");
  EXPECT_EQ(spec.stdout_path, "/home/alice/slurm-42.out");
  EXPECT_EQ(spec.stderr_path, "/home/alice/slurm-42.err");
  EXPECT_EQ(spec.stdin_path, "/home/alice/in");
  EXPECT_EQ(spec.time_limit, 600);
  EXPECT_EQ(spec.cpus, 3);
  EXPECT_EQ(spec.memory_mb, 2048u);
  EXPECT_EQ(spec.gpu_indices, (std::vector<int32_t>{1, 3}));
  EXPECT_TRUE(spec.groups.empty());  // resolved by the job manager
  EXPECT_EQ(spec.node_name, "");
}

}  // namespace
}  // namespace skiff::noded
