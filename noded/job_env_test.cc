#include "noded/job_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

using testing::Contains;
using testing::Not;

LaunchSpec Spec() {
  LaunchSpec spec;
  spec.job_id = 15374;
  spec.node_name = "n4";
  spec.cpus = 2;
  spec.environment = {{"SLURM_JOB_ID", "15374"}, {"PATH", "/usr/bin"}, {"HOME", "/root"}};
  return spec;
}

TEST(JobEnvironment, AddsTheNodeLocalSlurmVariables) {
  std::vector<std::string> env = BuildJobEnvironment(Spec(), 29009);
  for (const char* expected :
       {"SLURMD_NODENAME=n4", "SLURM_NODEID=0", "SLURM_PROCID=0", "SLURM_LOCALID=0",
        "SLURM_GTIDS=0", "SLURM_TASK_PID=29009", "SLURM_CPUS_ON_NODE=2"}) {
    EXPECT_THAT(env, Contains(expected));
  }
}

TEST(JobEnvironment, KeepsTheRequestEnvironment) {
  std::vector<std::string> env = BuildJobEnvironment(Spec(), 1);
  EXPECT_THAT(env, Contains("SLURM_JOB_ID=15374"));
  EXPECT_THAT(env, Contains("PATH=/usr/bin"));
  EXPECT_THAT(env, Contains("HOME=/root"));
}

TEST(JobEnvironment, NodeValuesOverrideTheRequest) {
  LaunchSpec spec = Spec();
  spec.environment["SLURMD_NODENAME"] = "submit-host";
  spec.environment["SLURM_PROCID"] = "7";
  std::vector<std::string> env = BuildJobEnvironment(spec, 1);
  EXPECT_THAT(env, Contains("SLURMD_NODENAME=n4"));
  EXPECT_THAT(env, Not(Contains("SLURMD_NODENAME=submit-host")));
  EXPECT_THAT(env, Contains("SLURM_PROCID=0"));
}

// As in /work/shared/reference/job_env_gres_gpu2.txt (Slurm 22.05, --gres=gpu:2).
TEST(JobEnvironment, TwoGpusMatchSlurm) {
  LaunchSpec spec = Spec();
  spec.gpu_indices = {0, 1};
  std::vector<std::string> env = BuildJobEnvironment(spec, 1);
  EXPECT_THAT(env, Contains("CUDA_VISIBLE_DEVICES=0,1"));
  EXPECT_THAT(env, Contains("GPU_DEVICE_ORDINAL=0,1"));
  EXPECT_THAT(env, Contains("SLURM_JOB_GPUS=0,1"));
  EXPECT_THAT(env, Contains("SLURM_GPUS_ON_NODE=2"));
}

// A MIG device: CUDA_VISIBLE_DEVICES names it by its MIG UUID (Slurm's
// gres/gpu with AutoDetect=nvml); SLURM_JOB_GPUS keeps the index.
TEST(JobEnvironment, AMigDeviceIsNamedForCuda) {
  LaunchSpec spec = Spec();
  spec.gpu_indices = {1};
  spec.gpu_cuda_names = {"MIG-0", "MIG-1b2c"};
  std::vector<std::string> env = BuildJobEnvironment(spec, 1);
  EXPECT_THAT(env, Contains("CUDA_VISIBLE_DEVICES=MIG-1b2c"));
  EXPECT_THAT(env, Contains("GPU_DEVICE_ORDINAL=MIG-1b2c"));
  EXPECT_THAT(env, Contains("SLURM_JOB_GPUS=1"));
  EXPECT_THAT(env, Contains("SLURM_GPUS_ON_NODE=1"));
}

TEST(JobEnvironment, OneGpuListsItsIndex) {
  LaunchSpec spec = Spec();
  spec.gpu_indices = {1};
  std::vector<std::string> env = BuildJobEnvironment(spec, 1);
  EXPECT_THAT(env, Contains("CUDA_VISIBLE_DEVICES=1"));
  EXPECT_THAT(env, Contains("SLURM_JOB_GPUS=1"));
  EXPECT_THAT(env, Contains("SLURM_GPUS_ON_NODE=1"));
}

TEST(JobEnvironment, NoGpusRemovesGpuVariablesFromTheSubmitEnvironment) {
  LaunchSpec spec = Spec();
  spec.environment["CUDA_VISIBLE_DEVICES"] = "0,1,2,3";
  spec.environment["GPU_DEVICE_ORDINAL"] = "0";
  std::vector<std::string> env = BuildJobEnvironment(spec, 1);
  for (const std::string& e : env) {
    EXPECT_EQ(e.find("CUDA_VISIBLE_DEVICES="), std::string::npos) << e;
    EXPECT_EQ(e.find("GPU_DEVICE_ORDINAL="), std::string::npos) << e;
    EXPECT_EQ(e.find("SLURM_JOB_GPUS="), std::string::npos) << e;
    EXPECT_EQ(e.find("SLURM_GPUS_ON_NODE="), std::string::npos) << e;
  }
}

TEST(JobEnvironment, IsSortedByName) {
  std::vector<std::string> env = BuildJobEnvironment(Spec(), 1);
  EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

}  // namespace
}  // namespace skiff::noded
