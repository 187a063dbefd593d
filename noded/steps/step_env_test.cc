#include "noded/steps/step_env.h"

#include <sys/resource.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

using ::testing::Contains;
using ::testing::Not;

TEST(StepEnvironment, StepWideVariablesAsSrunSetsThem) {
  std::map<std::string, std::string> env{{"HOME", "/home/a"}, {"SLURM_JOB_ID", "7"}};
  AddStepEnvironment({7, 2, 5, {"n1", "n2", "n3"}, {2, 2, 1}, 0}, &env);
  EXPECT_EQ(env["SLURM_STEP_ID"], "2");
  EXPECT_EQ(env["SLURM_STEPID"], "2");
  EXPECT_EQ(env["SLURM_NTASKS"], "5");
  EXPECT_EQ(env["SLURM_STEP_NUM_TASKS"], "5");
  EXPECT_EQ(env["SLURM_STEP_NODELIST"], "n[1-3]");
  EXPECT_EQ(env["SLURM_STEP_NUM_NODES"], "3");
  EXPECT_EQ(env["SLURM_STEP_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_EQ(env["HOME"], "/home/a");
  EXPECT_EQ(env.count("SLURM_CPUS_PER_TASK"), 0u);
  EXPECT_EQ(env.count("SLURM_DISTRIBUTION"), 0u);

  StepFacts plane{7, 3, 4, {"n1", "n2"}, {2, 2}, 0};
  plane.distribution = "plane";
  plane.plane_size = 2;
  AddStepEnvironment(plane, &env);
  EXPECT_EQ(env["SLURM_DISTRIBUTION"], "plane");
  EXPECT_EQ(env["SLURM_DIST_PLANESIZE"], "2");
}

TEST(StepEnvironment, TaskVariablesAndGpus) {
  std::map<std::string, std::string> step{{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}, {"A", "b"}};
  std::vector<std::string> env = TaskEnvironment(step, {"n2", 1, {2, 3}, 2, {3}}, 3, 1);
  EXPECT_THAT(env, Contains("SLURMD_NODENAME=n2"));
  EXPECT_THAT(env, Contains("SLURM_NODEID=1"));
  EXPECT_THAT(env, Contains("SLURM_PROCID=3"));
  EXPECT_THAT(env, Contains("SLURM_LOCALID=1"));
  EXPECT_THAT(env, Contains("SLURM_GTIDS=2,3"));
  EXPECT_THAT(env, Contains("CUDA_VISIBLE_DEVICES=3"));
  EXPECT_THAT(env, Contains("SLURM_STEP_GPUS=3"));
  std::vector<std::string> none = TaskEnvironment(step, {"n2", 1, {2}, 1, {}}, 2, 0);
  EXPECT_THAT(none, Not(Contains("CUDA_VISIBLE_DEVICES=0,1,2,3")));
  EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

TEST(StepEnvironment, AGpuBindMapWinsOverGpusPerTask) {
  // --gpus-per-task=1 --gpu-bind=map_gpu:6,4: the map decides.
  TaskNodeFacts node{"n1", 0, {0, 1}, 2, {4, 6}, 1, "map_gpu:6,4"};
  EXPECT_THAT(TaskEnvironment({}, node, 0, 0), Contains("CUDA_VISIBLE_DEVICES=6"));
  EXPECT_THAT(TaskEnvironment({}, node, 1, 1), Contains("CUDA_VISIBLE_DEVICES=4"));
  EXPECT_THAT(TaskEnvironment({}, node, 1, 1), Contains("SLURM_STEP_GPUS=4,6"));
}

// MIG devices (GPUs 1 and 2 of the node): CUDA's variables name them as CUDA
// does, SLURM_STEP_GPUS keeps the indices, as Slurm's gres/gpu sets them.
TEST(StepEnvironment, MigDevicesAreNamedForCuda) {
  TaskNodeFacts node{"n1", 0, {0, 1}, 2, {1, 2}, 1, "", {"", "MIG-a", "MIG-b"}};
  EXPECT_THAT(TaskEnvironment({}, node, 0, 0), Contains("CUDA_VISIBLE_DEVICES=MIG-a"));
  EXPECT_THAT(TaskEnvironment({}, node, 1, 1), Contains("GPU_DEVICE_ORDINAL=MIG-b"));
  EXPECT_THAT(TaskEnvironment({}, node, 1, 1), Contains("SLURM_STEP_GPUS=1,2"));
}

TEST(StepEnvironment, GpusPerTaskBindEachTaskToItsOwnGpus) {
  // Two tasks with one GPU each on GPUs 4 and 6 of the node (--gpus-per-task=1).
  TaskNodeFacts node{"n1", 0, {0, 1}, 2, {4, 6}, 1};
  std::vector<std::string> first = TaskEnvironment({}, node, 0, 0);
  std::vector<std::string> second = TaskEnvironment({}, node, 1, 1);
  EXPECT_THAT(first, Contains("CUDA_VISIBLE_DEVICES=4"));
  EXPECT_THAT(first, Contains("GPU_DEVICE_ORDINAL=4"));
  EXPECT_THAT(second, Contains("CUDA_VISIBLE_DEVICES=6"));
  EXPECT_THAT(second, Contains("SLURM_STEP_GPUS=4,6"));  // the step's, on every task
  // Fewer GPUs than the tasks' (an older step manager's grant): all of them.
  node.gpus = {4};
  EXPECT_THAT(TaskEnvironment({}, node, 1, 1), Contains("CUDA_VISIBLE_DEVICES=4"));
}

TEST(StepEnvironment, TopologySrunAddressAndLimitsAsSlurms) {
  StepFacts facts;
  facts.job_id = 7;
  facts.nodes = {"n1"};
  facts.tasks_per_node = {1};
  facts.srun_address = "10.0.0.5";
  std::map<std::string, std::string> step{{"SLURM_UMASK", "0027"},
                                          {"SLURM_RLIMIT_NOFILE", "555"},
                                          {"SLURM_RLIMIT_CORE", "0"},
                                          {"SLURM_RLIMIT_BOGUS", "1"},
                                          {"SLURM_RLIMIT_AS", "x"}};
  AddStepEnvironment(facts, &step);
  EXPECT_EQ(step["SLURM_LAUNCH_NODE_IPADDR"], "10.0.0.5");
  EXPECT_EQ(step["SLURM_SRUN_COMM_HOST"], "10.0.0.5");
  std::vector<std::string> env = TaskEnvironment(step, {"n1", 0, {0}, 1, {}}, 0, 0);
  EXPECT_THAT(env, Contains("SLURM_TOPOLOGY_ADDR=n1"));
  EXPECT_THAT(env, Contains("SLURM_TOPOLOGY_ADDR_PATTERN=node"));
  EXPECT_THAT(env, Contains("SLURM_UMASK=0027"));
  for (const std::string& kv : env) EXPECT_EQ(kv.rfind("SLURM_RLIMIT_", 0), std::string::npos);
  const TaskLimits limits = TaskLimitsFrom(step);
  EXPECT_EQ(limits.umask, 027);
  EXPECT_EQ(limits.rlimits,
            (std::vector<std::pair<int, uint64_t>>{{RLIMIT_CORE, 0}, {RLIMIT_NOFILE, 555}}));
  EXPECT_EQ(TaskLimitsFrom({{"SLURM_UMASK", "99"}}).umask, -1);
}

TEST(ExpandIoPatternTest, SlurmsLetters) {
  IoPatternFacts facts;
  facts.job_id = 42;
  facts.step_id = 3;
  facts.task_id = 7;
  facts.node_id = 1;
  facts.node_name = "n2";
  facts.user = "alice";
  facts.job_name = "train";
  EXPECT_EQ(ExpandIoPattern("out-%j.%s-%t-%n-%N.txt", facts), "out-42.3-7-1-n2.txt");
  EXPECT_EQ(ExpandIoPattern("%J_%u_%x_%%_%3t", facts), "42.3_alice_train_%_007");
  EXPECT_EQ(ExpandIoPattern("plain", facts), "plain");
  EXPECT_EQ(ExpandIoPattern("odd%q%", facts), "odd%q%");
}

}  // namespace
}  // namespace skiff::noded
