#include "cli/srun/srun_command_line.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace skiff::cli {
namespace {

SrunCommandLine Parse(std::vector<std::string> args,
                      const std::map<std::string, std::string>& env) {
  args.insert(args.begin(), "srun");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  SrunCommandLine line;
  EXPECT_EQ(ParseSrunCommandLine(static_cast<int>(argv.size()), argv.data(), env, &line), -1);
  return line;
}

std::vector<std::string> Block(const std::vector<std::string>& args,
                               const std::map<std::string, std::string>& env) {
  return DefinedOptionsBlock(SrunGivenOptions(Parse(args, env), env), {0, "/tmp"});
}

// Both blocks are Slurm 22.05's srun's for the same command (../shared/slurm-anchor).
TEST(SrunGivenOptions, TheCommandLinesOptions) {
  EXPECT_EQ(Block({"-v", "-n3", "-l", "hostname"}, {}),
            (std::vector<std::string>{
                "defined options",
                "-------------------- --------------------",
                "label               : set",
                "ntasks              : 3",
                "verbose             : 1",
                "-------------------- --------------------",
                "end of defined options",
            }));
  EXPECT_EQ(
      Block({"-v", "-t", "5", "--mem=100", "-c1", "-J", "foo", "-p", "debug", "--mpi=none", "-o",
             "/dev/null", "-e", "/dev/null", "--exclusive", "--gpus-per-node=0", "-N1", "true"},
            {}),
      (std::vector<std::string>{
          "defined options",
          "-------------------- --------------------",
          "cpus-per-task       : 1",
          "error               : /dev/null",
          "exclusive           : exclusive",
          "gpus-per-node       : 0",
          "job-name            : foo",
          "mem                 : 100",
          "mpi                 : none",
          "nodes               : 1",
          "output              : /dev/null",
          "partition           : debug",
          "time                : 00:05:00",
          "verbose             : 1",
          "-------------------- --------------------",
          "end of defined options",
      }));
}

TEST(SrunGivenOptions, InsideAnAllocationItsVariablesToo) {
  const std::map<std::string, std::string> env = {
      {"SLURM_JOB_ID", "256"}, {"SLURM_JOB_NAME", "interactive"}, {"SLURM_NNODES", "1"},
      {"SLURM_NTASKS", "2"},   {"SLURM_JOB_NODELIST", "n1"},      {"SLURM_CPUS_PER_TASK", "1"},
  };
  EXPECT_EQ(Block({"-v", "true"}, env), (std::vector<std::string>{
                                            "defined options",
                                            "-------------------- --------------------",
                                            "(null)              : n1",
                                            "jobid               : 256",
                                            "job-name            : interactive",
                                            "nodes               : 1",
                                            "ntasks              : 2",
                                            "verbose             : 1",
                                            "-------------------- --------------------",
                                            "end of defined options",
                                        }));
  // The command line's count over the allocation's.
  const std::vector<std::string> block = Block({"-v", "-n1", "true"}, env);
  EXPECT_NE(std::find(block.begin(), block.end(), "ntasks              : 1"), block.end());
}

// Slurm's log_string2num, then srun's cap ("Using srun's max debug increment
// of 4" on the anchor for debug5 and for a word it does not know).
TEST(SlurmdDebugIncrement, NumbersAndNamesUpToDebug2) {
  bool capped = true;
  EXPECT_EQ(SlurmdDebugIncrement("2", &capped), 2);
  EXPECT_FALSE(capped);
  EXPECT_EQ(SlurmdDebugIncrement("verbose", &capped), 4);
  EXPECT_FALSE(capped);
  EXPECT_EQ(SlurmdDebugIncrement("QUIET", &capped), 0);
  EXPECT_EQ(SlurmdDebugIncrement("3x", &capped), 3);  // atoi's
  EXPECT_EQ(SlurmdDebugIncrement("debug5", &capped), 4);
  EXPECT_TRUE(capped);
  EXPECT_EQ(SlurmdDebugIncrement("x", &capped), 4);
  EXPECT_TRUE(capped);
  EXPECT_EQ(SlurmdDebugIncrement("7", &capped), 4);
  EXPECT_TRUE(capped);
}

int ParseExit(std::vector<std::string> args, SrunCommandLine* line) {
  args.insert(args.begin(), "srun");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseSrunCommandLine(static_cast<int>(argv.size()), argv.data(), {}, line);
}

TEST(ParseSrunCommandLine, CountsAndOptionalValuesAsSlurmReadsThem) {
  SrunCommandLine line;
  ASSERT_EQ(
      ParseExit({"-n3", "-c", "2", "--gpus-per-task=a100:1", "-K0", "-W", "0", "true"}, &line), -1);
  EXPECT_EQ(line.args.ntasks, 3);
  EXPECT_EQ(line.args.cpus_per_task, 2);
  EXPECT_EQ(line.args.gpus_per_task, 1);
  EXPECT_FALSE(line.args.kill_on_bad_exit);
  EXPECT_EQ(line.args.wait, 0);
  line = SrunCommandLine();
  ASSERT_EQ(ParseExit({"-K", "true"}, &line), -1);
  EXPECT_TRUE(line.args.kill_on_bad_exit);
  // Refusals: Slurm's exit codes (the texts are option_values_test's).
  line = SrunCommandLine();
  EXPECT_EQ(ParseExit({"-c", "x", "true"}, &line), 1);
  line = SrunCommandLine();
  EXPECT_EQ(ParseExit({"--mem=abc", "true"}, &line), 255);
  line = SrunCommandLine();
  EXPECT_EQ(ParseExit({"--bogus", "true"}, &line), 255);
  line = SrunCommandLine();
  EXPECT_EQ(ParseExit({"--gpus-per-task=x", "true"}, &line), 1);
}

}  // namespace
}  // namespace skiff::cli
