#include "noded/node_scripts.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace skiff::noded {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(NodeScripts, PrologAndEpilogGetSlurmsVariables) {
  LaunchSpec spec;
  spec.job_id = 42;
  spec.uid = 1001;
  spec.gid = 1002;
  spec.user_name = "alice";
  spec.node_name = "n3";
  spec.environment = {{"SLURM_JOB_PARTITION", "gpu"},
                      {"SLURM_JOB_NODELIST", "n3"},
                      {"CUDA_VISIBLE_DEVICES", "1"},
                      {"SECRET_TOKEN", "x"}};
  const std::vector<std::string> prolog = NodeScriptEnvironment(spec, "prolog_slurmd");
  for (const char* entry :
       {"SLURM_JOB_ID=42", "SLURM_JOB_UID=1001", "SLURM_JOB_GID=1002", "SLURM_JOB_USER=alice",
        "SLURMD_NODENAME=n3", "SLURM_SCRIPT_CONTEXT=prolog_slurmd", "SLURM_JOB_PARTITION=gpu",
        "SLURM_JOB_NODELIST=n3", "CUDA_VISIBLE_DEVICES=1"}) {
    EXPECT_TRUE(Has(prolog, entry)) << entry;
  }
  EXPECT_FALSE(Has(prolog, "SECRET_TOKEN=x"));  // not the user's whole environment
  const std::vector<std::string> epilog = NodeScriptEnvironment(spec, "epilog_slurmd", "3:0");
  EXPECT_TRUE(Has(epilog, "SLURM_SCRIPT_CONTEXT=epilog_slurmd"));
  EXPECT_TRUE(Has(epilog, "SLURM_JOB_EXIT_CODE2=3:0"));
}

TEST(NodeScripts, FailuresSayHowAndWhat) {
  CapturedRun run;
  run.ok = true;
  EXPECT_EQ(NodeScriptFailure(run, 30), "");
  run.ok = false;
  run.exit_code = 3;
  run.output = "\n  scratch is full  \nmore\n";
  EXPECT_EQ(NodeScriptFailure(run, 30), "exit code 3: scratch is full");
  run.output = "";
  run.exit_code = 128 + 9;
  EXPECT_EQ(NodeScriptFailure(run, 30), "killed by signal 9");
  run.timed_out = true;
  EXPECT_EQ(NodeScriptFailure(run, 30), "killed after 30 s (PrologEpilogTimeout)");
  EXPECT_EQ(NodeScriptTimeout(30), std::chrono::seconds(30));
  EXPECT_EQ(NodeScriptTimeout(0), std::chrono::hours(24));
  EXPECT_EQ(NodeScriptTimeout(65534), std::chrono::hours(24));  // Slurm's "unlimited"
}

TEST(NodeScripts, TaskPrologLinesShapeTheEnvironment) {
  const TaskPrologOutput out = ParseTaskPrologOutput(
      "export SCRATCH=/scratch/42\nunset DISPLAY\nprint hello from the prolog\n"
      "export BAD\nexport  OMP_NUM_THREADS=4  \nnoise\n");
  ASSERT_EQ(out.exports.size(), 2u);
  EXPECT_EQ(out.exports[0], (std::pair<std::string, std::string>{"SCRATCH", "/scratch/42"}));
  EXPECT_EQ(out.exports[1], (std::pair<std::string, std::string>{"OMP_NUM_THREADS", "4"}));
  EXPECT_EQ(out.unsets, std::vector<std::string>{"DISPLAY"});
  EXPECT_EQ(out.print, "hello from the prolog\n");
  std::vector<std::string> env = {"DISPLAY=:0", "OMP_NUM_THREADS=1", "HOME=/home/a"};
  ApplyTaskProlog(out, &env);
  EXPECT_EQ(env,
            (std::vector<std::string>{"OMP_NUM_THREADS=4", "HOME=/home/a", "SCRATCH=/scratch/42"}));
}

}  // namespace
}  // namespace skiff::noded
