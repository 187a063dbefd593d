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

}  // namespace
}  // namespace skiff::cli
