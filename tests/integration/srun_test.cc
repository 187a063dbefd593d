// srun and salloc as Slurm 22.05's, through the real daemons: their refusals
// of option values (texts and exit codes), --multi-prog with -O and -l, -i/-o/-e
// naming one task or none, and --slurmd-debug's lines from the step's nodes.
// Each expected text is what Slurm 22.05's srun or salloc printed for the same
// command on the anchor (../shared/slurm-anchor).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class SrunTest : public SharedClusterTest<SrunTest> {
 protected:
  static void SetUpTestSuite() {
    StartCluster(NodesWithoutGpus(2));
    if (HasFatalFailure()) return;
    const std::string dir = cluster_->dir();
    cluster_->Run("printf '%s\\n' '0 echo first' '1 echo second' > " + dir + "/two.conf");
    cluster_->Run("printf '%s\\n' '0-3 echo task %t' > " + dir + "/four.conf");
  }
  // Runs `script` as a batch job with `options` and waits for its end; returns
  // its output (stdout and stderr together).
  std::string RunJob(const std::string& options, const std::string& script) {
    const std::string out = absl::StrCat(cluster_->dir(), "/job-", ++jobs_, ".out");
    const std::string file = absl::StrCat(cluster_->dir(), "/job-", jobs_, ".sh");
    cluster_->Run(absl::StrCat("printf '%s\\n' '#!/bin/bash' > ", file, " && cat >> ", file,
                               " <<'EOS'\n", script, "\nEOS"));
    cluster_->Run(absl::StrCat("cd /tmp && sbatch --wait -o ", out, " ", options, " ", file));
    return ReadFile(out);
  }

  static std::vector<std::string> SortedLines(const std::string& text) {
    std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  static int jobs_;
};

int SrunTest::jobs_ = 0;

TEST_F(SrunTest, OptionValueErrorsAreSlurmsWordsAndExitCodes) {
  struct Case {
    std::string command;
    std::string err;
    int exit_code;
  };
  const std::vector<Case> cases = {
      // slurm_process_option's refusals: 255.
      {"srun --mem=abc true", "srun: error: Invalid --mem specification\n", 255},
      {"srun --mem-per-cpu=x true", "srun: error: Invalid --mem-per-cpu specification\n", 255},
      {"srun -N x true", "srun: error: \"x\" is not a valid node count\n", 255},
      {"srun -N 3-1 true", "srun: error: Maximum node count 1 is less than minimum node count 3\n",
       255},
      {"srun -t bad true", "srun: error: Invalid --time specification\n", 255},
      {"srun --gpu-bind=bad true", "srun: error: Invalid --gpu-bind argument: gpu:bad\n", 255},
      {"srun --mem=abc -c x true", "srun: error: Invalid --mem specification\n", 255},
      {"srun -m round true", "srun: error: Invalid --distribution specification\n", 255},
      {"srun -m plane=0 true", "srun: error: Invalid --distribution specification\n", 255},
      {"srun --signal=FOO true", "srun: error: Invalid --signal specification\n", 255},
      {"srun --gres-flags=loose true", "srun: error: Invalid --gres-flags specification\n", 255},
      // parse_int's: 1.
      {"srun -c x true", "srun: error: Invalid numeric value \"x\" for --cpus-per-task.\n", 1},
      {"srun -n 0 true", "srun: error: Invalid numeric value \"0\" for --ntasks.\n", 1},
      {"srun -W x true", "srun: error: Invalid numeric value \"x\" for --wait.\n", 1},
      {"srun -T x true", "srun: error: Invalid numeric value \"x\" for --threads.\n", 1},
      {"srun -Ix true", "srun: error: Invalid numeric value \"x\" for immediate.\n", 1},
      {"srun --kill-on-bad-exit=x true",
       "srun: error: Invalid numeric value \"x\" for --kill-on-bad-exit.\n", 1},
      {"srun -c x --mem=abc true",
       "srun: error: Invalid numeric value \"x\" for --cpus-per-task.\n", 1},
      // getopt's: 255.
      {"srun --foo true",
       "srun: unrecognized option '--foo'\nTry \"srun --help\" for more "
       "information\n",
       255},
      {"salloc --mem=abc true", "salloc: error: Invalid --mem specification\n", 255},
      {"salloc -N x true", "salloc: error: \"x\" is not a valid node count\n", 255},
      {"salloc -t bad true", "salloc: error: Invalid --time specification\n", 255},
      {"salloc --exclusive=bad true", "salloc: error: Invalid --exclusive specification\n", 255},
      {"salloc -c x true", "salloc: error: Invalid numeric value \"x\" for --cpus-per-task.\n", 1},
      {"salloc -Ix true", "salloc: error: Invalid numeric value \"x\" for immediate.\n", 1},
      {"salloc -m round true", "salloc: error: Invalid --distribution specification\n", 255},
      {"salloc --signal=USR1@x true", "salloc: error: Invalid --signal specification\n", 255},
      {"salloc --wait-all-nodes=2 true", "salloc: error: Invalid --wait-all-nodes specification\n",
       255},
      {"salloc --wait-all-nodes=x true",
       "salloc: error: Invalid numeric value \"x\" for --wait-all-nodes.\n", 1},
      {"salloc --foo true",
       "salloc: unrecognized option '--foo'\nTry \"salloc --help\" for more "
       "information\n",
       255},
  };
  for (const Case& c : cases) {
    const CommandResult r = cluster_->Run(c.command);
    EXPECT_EQ(r.err, c.err) << c.command;
    EXPECT_EQ(r.exit_code, c.exit_code) << c.command;
    EXPECT_EQ(r.out, "") << c.command;
  }
  // Inside an allocation too, before the step is asked for.
  const std::string out = RunJob("-n1",
                                 "srun --mem=abc true; echo rc=$?\n"
                                 "srun -N x true; echo rc=$?\n"
                                 "srun -c x true; echo rc=$?");
  EXPECT_EQ(out,
            "srun: error: Invalid --mem specification\nrc=255\n"
            "srun: error: \"x\" is not a valid node count\nrc=255\n"
            "srun: error: Invalid numeric value \"x\" for --cpus-per-task.\nrc=1\n");
}

TEST_F(SrunTest, VersionHelpAndUsageAsBefore) {
  const CommandResult version = cluster_->Run("srun --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(version.out, "skiff ")) << version.out;
  const CommandResult help = cluster_->Run("srun --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(
      absl::StartsWith(help.out, "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]"))
      << help.out;
  const CommandResult usage = cluster_->Run("srun --usage");
  EXPECT_EQ(usage.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(usage.out, "Usage: srun [-N nnodes] [-n ntasks]")) << usage.out;
}

// Without -n (or the job's count) the file gives the task count, as Slurm's
// srun reads it; -O lets four tasks share the job's one CPU.
TEST_F(SrunTest, MultiProgWithOvercommitAndLabelRunsEveryTask) {
  const std::string dir = cluster_->dir();
  const CommandResult own =
      cluster_->Run("cd /tmp && srun -O -l --multi-prog " + dir + "/two.conf");
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(SortedLines(own.out), (std::vector<std::string>{"0: first", "1: second"})) << own.err;

  const std::string out = RunJob("-N1", "srun -O -l --multi-prog " + dir +
                                            "/four.conf | sort; echo rc=$?\n"
                                            "srun --overcommit --label --multi-prog " +
                                            dir + "/two.conf | sort");
  EXPECT_EQ(out, "0: task 0\n1: task 1\n2: task 2\n3: task 3\nrc=0\n0: first\n1: second\n");
  // A count given is kept, and the file must fit it.
  const CommandResult fixed =
      cluster_->Run("cd /tmp && srun -n1 --multi-prog " + dir + "/two.conf");
  EXPECT_EQ(fixed.exit_code, 1);
  EXPECT_EQ(fixed.err,
            "srun: error: Invalid task id, 1 >= ntasks\n"
            "srun: error: Line 2 of configuration file " +
                dir + "/two.conf invalid\n");
}

TEST_F(SrunTest, InputOutputAndErrorForOneTaskOrNone) {
  const std::string both = " sh -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'";
  // stdin to task 1 alone; the others read nothing.
  CommandResult r = cluster_->Run(
      "printf 'a\\nb\\n' | srun -N2 -n3 -l --input=1 sh -c 'echo task $SLURM_PROCID got: $(cat)'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(SortedLines(r.out),
            (std::vector<std::string>{"0: task 0 got:", "1: task 1 got: a b", "2: task 2 got:"}));
  // -o 1 alone: task 1's stdout and stderr (which shares it), on srun's stdout.
  r = cluster_->Run("srun -N2 -n3 -l --output=1" + both);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1: out 1\n1: err 1\n");
  EXPECT_EQ(r.err, "");
  // -e 2: every task's stdout, task 2's stderr.
  r = cluster_->Run("srun -N2 -n3 -l --error=2" + both);
  EXPECT_EQ(SortedLines(r.out), (std::vector<std::string>{"0: out 0", "1: out 1", "2: out 2"}));
  EXPECT_EQ(r.err, "2: err 2\n");
  // -o 1 -e all: task 1's stdout, every task's stderr.
  r = cluster_->Run("srun -N2 -n3 -l --output=1 --error=all" + both);
  EXPECT_EQ(r.out, "1: out 1\n");
  EXPECT_EQ(SortedLines(r.err), (std::vector<std::string>{"0: err 0", "1: err 1", "2: err 2"}));
  // none: discarded.
  r = cluster_->Run("srun -N2 -n3 -l --output=none --error=1" + both);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "1: err 1\n");
  r = cluster_->Run("srun -n2 -l --output=none" + both);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out + r.err, "");
  r = cluster_->Run("echo hi | srun -n2 -l --input=none sh -c 'echo got: $(cat)'");
  EXPECT_EQ(SortedLines(r.out), (std::vector<std::string>{"0: got:", "1: got:"}));
}

// Slurm's slurmstepd logs to the first task's stderr at error + the increment:
// at 2 (verbose) its tasks' starts and ends, as the anchor's srun printed:
//   slurmstepd-n1: debug levels are stderr='verbose', logfile='error', syslog='fatal'
//   slurmstepd-n1: starting 1 tasks
//   slurmstepd-n1: task 0 (27587) started 2026-12-03T12:11:13
//   slurmstepd-n1: task 0 (27587) exited with exit code 0.
TEST_F(SrunTest, SlurmdDebugShowsTheNodesLinesAboutItsTasks) {
  CommandResult r = cluster_->Run("srun -N1 --slurmd-debug=2 sh -c 'exit 3'");
  EXPECT_EQ(r.exit_code, 3);
  const std::vector<std::string> lines = absl::StrSplit(r.err, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 4u) << r.err;
  EXPECT_TRUE(std::regex_match(
      lines[0], std::regex("slurmstepd: debug levels are stderr='verbose', logfile='[a-z0-9]+', "
                           "syslog='quiet'")))
      << r.err;
  EXPECT_EQ(lines[1], "slurmstepd: starting 1 tasks");
  EXPECT_TRUE(std::regex_match(lines[2],
                               std::regex("slurmstepd: task 0 \\([0-9]+\\) started "
                                          "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")))
      << r.err;
  EXPECT_TRUE(std::regex_match(lines[3], std::regex("slurmstepd: task 0 \\([0-9]+\\) exited with "
                                                    "exit code 3\\.")))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, ": task 0: Exited with exit code 3")) << r.err;
  // The default (0) and 1 (info) add nothing.
  r = cluster_->Run("srun -N1 --slurmd-debug=1 true");
  EXPECT_EQ(r.err, "");
  // Past srun's most (4: debug2), said as Slurm's srun says it; labelled,
  // each node's lines come as its first task's.
  r = cluster_->Run("srun -N2 -n2 -l --slurmd-debug=debug5 true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.err, "srun: Using srun's max debug increment of 4\n")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "0: slurmstepd: debug levels are stderr='debug2'")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "1: slurmstepd: starting 1 tasks")) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("1: slurmstepd: task 1 \\([0-9]+\\) exited "
                                                  "with exit code 0\\.")))
      << r.err;
  // A discarded stderr takes them with it (srun -o 1: task 0's is /dev/null).
  r = cluster_->Run("srun -N2 -n2 -l -o 1 --slurmd-debug=2 true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(absl::StrContains(r.out + r.err, "0: slurmstepd")) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "1: slurmstepd: starting 1 tasks")) << r.out;
}

// -m as Slurm's first level lays tasks out: sbatch -m leaves it for the
// job's sruns (SLURM_DISTRIBUTION), srun -m wins; each task sees the name.
TEST_F(SrunTest, DistributionDealsTaskIdsOverTheNodes) {
  const std::string out = RunJob("-N2 --ntasks-per-node=2 -m cyclic",
                                 "srun -l printenv SLURMD_NODENAME | sort\n"
                                 "srun -l -m block printenv SLURMD_NODENAME | sort\n"
                                 "srun -l -n3 -m plane=1 printenv SLURMD_NODENAME | sort\n"
                                 "srun -n1 printenv SLURM_DISTRIBUTION\n"
                                 "srun -n1 -m block:cyclic printenv SLURM_DISTRIBUTION\n"
                                 "srun -n1 -m plane=2 printenv SLURM_DIST_PLANESIZE\n"
                                 "srun -m arbitrary true; echo rc=$?");
  EXPECT_EQ(out,
            "0: n1\n1: n2\n2: n1\n3: n2\n"
            "0: n1\n1: n1\n2: n2\n3: n2\n"
            "0: n1\n1: n2\n2: n1\n"
            "cyclic\nblock:cyclic\n2\n"
            "srun: error: --distribution=arbitrary is not supported by Skiff (tasks are laid out "
            "block, cyclic or plane=N over the step's nodes)\nrc=1\n");
  // Outside a job: the default, named as Slurm names it.
  const CommandResult r = cluster_->Run("srun -N2 -n2 -l printenv SLURM_DISTRIBUTION");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(SortedLines(r.out), (std::vector<std::string>{"0: block", "1: block"}));
}

// srun --signal outside a job is its allocation's, as sbatch's: the step's
// tasks hear it that long before the time limit.
TEST_F(SrunTest, SignalWarnsTheStepBeforeTheAllocationsTimeLimit) {
  const CommandResult r = cluster_->Run(
      "srun -t 1 --signal=USR1@55 bash -c 'trap \"echo got USR1; exit 0\" USR1; "
      "sleep 50 & wait'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "got USR1\n") << r.err;
}

// The allocation options srun and salloc share with sbatch: an allocation
// srun or salloc makes carries them, as Slurm's.
TEST_F(SrunTest, AllocationOptionsAsSbatchs) {
  const std::string show = " sh -c 'scontrol show job $SLURM_JOB_ID'";
  for (const std::string command : {"srun -N1", "salloc -Q -N1"}) {
    const CommandResult r = cluster_->Run(
        command + " --comment=nightly --mail-type=END --mail-user=lab@example.org --nice=5 " +
        "-t 10 --deadline=now+1hour --priority=77 --signal=USR1@30" + show);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    for (const char* field : {"Comment=nightly", "MailType=END", "MailUser=lab@example.org",
                              " Nice=5 ", " Priority=77 "}) {
      EXPECT_TRUE(absl::StrContains(r.out, field)) << command << ": " << field << "\n" << r.out;
    }
    EXPECT_FALSE(absl::StrContains(r.out, "Deadline=N/A")) << command << "\n" << r.out;
  }
  // srun -d: the allocation waits for its dependency, as sbatch's.
  const CommandResult r = cluster_->Run("srun -d afterok:999999 true");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(r.err, "Job dependency problem")) << r.err;
}

}  // namespace
}  // namespace skiff::testing
