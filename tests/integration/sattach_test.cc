// sattach through the real daemons: a step started by srun on two nodes, then
// sattach from another shell, as Slurm's sattach: the layout, a copy of the
// output from then on (-l, --output-filter), stdin to the tasks
// (--input-filter), the tasks' exit codes, and refusals for another user's
// step and for a step that does not run.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class SattachTest : public SharedClusterTest<SattachTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options;
    options.nodes = 2;
    StartCluster(options);
  }

  std::string Path(const std::string& name) const { return cluster_->dir() + "/" + name; }

  // Starts `command` in the background, its output and exit code in files
  // NAME.out, NAME.err and NAME.rc.
  void Background(const std::string& name, const std::string& command) {
    cluster_->Run(absl::StrCat("(setsid bash -c ", ShellQuoteForTest(command), " </dev/null >",
                               Path(name + ".out"), " 2>", Path(name + ".err"), "; echo $? >",
                               Path(name + ".rc"), ") </dev/null >/dev/null 2>&1 &"));
  }
  static std::string ShellQuoteForTest(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  bool Ended(const std::string& name) {
    return Eventually(120, [&] { return !ReadFile(Path(name + ".rc")).empty(); });
  }

  // The job id of the running job named `name`.
  std::string RunningJob(const std::string& name) {
    std::string id;
    Eventually(60, [&] {
      id = cluster_->Run(absl::StrCat("squeue -h -t R -n ", name, " -o %i")).out;
      while (!id.empty() && id.back() == '\n') id.pop_back();
      return !id.empty();
    });
    return id;
  }
};

TEST_F(SattachTest, FollowsAStepsOutputLabelledFiltersItAndEndsWithItsExitCode) {
  const std::string stop = Path("stop-1");
  // Three tasks on two nodes tick until told to stop, then end with their rank.
  Background("srun1",
             absl::StrCat("cd ", cluster_->dir(),
                          " && srun -J follow -N2 -n3 bash -c 'while [ ! -e ", stop,
                          " ]; do echo tick-$SLURM_PROCID; sleep 0.2; done; echo "
                          "bye-$SLURM_PROCID; echo err-$SLURM_PROCID >&2; exit $SLURM_PROCID'"));
  const std::string job = RunningJob("follow");
  ASSERT_FALSE(job.empty());
  const std::string step = job + ".0";
  CommandResult layout;
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           layout = cluster_->Run("sattach --layout " + step);
                           return layout.exit_code == 0;
                         }))
      << layout.out << layout.err;
  EXPECT_EQ(layout.out,
            "Job step layout:\n\t3 tasks, 2 nodes (n[1-2])\n\n"
            "\tNode 0 (n1), 2 task(s): 0 1 \n"
            "\tNode 1 (n2), 1 task(s): 2 \n");

  Background("all", "sattach -l " + step);
  Background("one", "sattach --output-filter=2 " + step);
  // Both are attached once each has seen ticks from the tasks it shows.
  ASSERT_TRUE(Eventually(
      60,
      [&] {
        const std::string all = ReadFile(Path("all.out")), one = ReadFile(Path("one.out"));
        return absl::StrContains(all, "0: tick-0") && absl::StrContains(all, "1: tick-1") &&
               absl::StrContains(all, "2: tick-2") && absl::StrContains(one, "tick-2");
      }))
      << ReadFile(Path("all.out")) << ReadFile(Path("all.err"));
  cluster_->Run("touch " + stop);
  ASSERT_TRUE(Ended("all") && Ended("one") && Ended("srun1"));

  const std::string all = ReadFile(Path("all.out"));
  for (int t = 0; t < 3; ++t) {
    EXPECT_TRUE(absl::StrContains(all, absl::StrCat(t, ": bye-", t, "\n"))) << all;
  }
  const std::string all_err = ReadFile(Path("all.err"));
  EXPECT_TRUE(absl::StrContains(all_err, "2: err-2\n")) << all_err;
  EXPECT_TRUE(absl::StrContains(all_err, "sattach: error: task 1 exited with exit code 1\n"))
      << all_err;
  EXPECT_TRUE(absl::StrContains(all_err, "sattach: error: task 2 exited with exit code 2\n"))
      << all_err;
  EXPECT_EQ(ReadFile(Path("all.rc")), "2\n");

  // --output-filter=2: task 2's stdout and (following it) stderr only, unlabelled.
  const std::string one = ReadFile(Path("one.out"));
  EXPECT_TRUE(absl::StrContains(one, "bye-2\n")) << one;
  EXPECT_FALSE(absl::StrContains(one, "-0\n") || absl::StrContains(one, "-1\n")) << one;
  EXPECT_TRUE(absl::StrContains(ReadFile(Path("one.err")), "err-2\n"));
  EXPECT_FALSE(absl::StrContains(ReadFile(Path("one.err")), "err-0"));

  // srun saw everything too: sattach only watched.
  const std::string srun_out = ReadFile(Path("srun1.out"));
  for (int t = 0; t < 3; ++t) EXPECT_TRUE(absl::StrContains(srun_out, absl::StrCat("bye-", t)));
}

TEST_F(SattachTest, TypesIntoTheStepsTasksAllOrOne) {
  const std::string done = Path("done-2");
  // srun's own stdin stays open and silent, so the tasks read only what
  // sattach sends them.
  Background("srun2", absl::StrCat("cd ", cluster_->dir(), " && (while [ ! -e ", done,
                                   " ]; do sleep 0.2; done) | srun -J typed -N2 -n2 -l bash -c "
                                   "'read line; echo \"$SLURM_PROCID read $line\"'"));
  const std::string job = RunningJob("typed");
  ASSERT_FALSE(job.empty());
  const std::string step = job + ".0";
  ASSERT_TRUE(
      Eventually(60, [&] { return cluster_->Run("sattach --layout " + step).exit_code == 0; }));
  Background("in1", "printf 'one\\n' | sattach --input-filter=1 " + step);
  // Task 1 got "one"; task 0 still waits for a line.
  ASSERT_TRUE(Eventually(
      60, [&] { return absl::StrContains(ReadFile(Path("srun2.out")), "1: 1 read one"); }))
      << ReadFile(Path("srun2.out")) << ReadFile(Path("srun2.err"));
  EXPECT_FALSE(absl::StrContains(ReadFile(Path("srun2.out")), "0: 0 read"));
  CommandResult second = cluster_->Run("printf 'two\\n' | sattach -l " + step);
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(absl::StrContains(second.out, "0: 0 read two\n")) << second.out;
  cluster_->Run("touch " + done);
  ASSERT_TRUE(Ended("srun2") && Ended("in1"));
  EXPECT_EQ(ReadFile(Path("srun2.rc")), "0\n") << ReadFile(Path("srun2.err"));
  EXPECT_EQ(ReadFile(Path("in1.rc")), "0\n") << ReadFile(Path("in1.err"));
}

TEST_F(SattachTest, RefusesAnotherUsersStepAndOneThatDoesNotRun) {
  ASSERT_TRUE(cluster_->EnsureUser("skiffsat").ok());
  const std::string stop = Path("stop-3");
  Background("srun3",
             absl::StrCat("cd ", cluster_->dir(), " && srun -J mine bash -c 'while [ ! -e ", stop,
                          " ]; do sleep 0.2; done'"));
  const std::string job = RunningJob("mine");
  ASSERT_FALSE(job.empty());
  ASSERT_TRUE(Eventually(
      60, [&] { return cluster_->Run("sattach --layout " + job + ".0").exit_code == 0; }));

  CommandResult other = cluster_->RunAs("skiffsat", "sattach " + job + ".0");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "sattach: error: Could not get job step info: Access/permission denied\n");

  CommandResult no_step = cluster_->Run("sattach " + job + ".7");
  EXPECT_EQ(no_step.exit_code, 1);
  EXPECT_EQ(no_step.err, "sattach: error: Could not get job step info: Invalid job id specified\n");
  CommandResult no_job = cluster_->Run("sattach 987654.0");
  EXPECT_EQ(no_job.exit_code, 1);
  EXPECT_EQ(no_job.err, "sattach: error: Could not get job step info: Invalid job id specified\n");
  CommandResult no_stepid = cluster_->Run("sattach " + job);
  EXPECT_EQ(no_stepid.exit_code, 1);
  EXPECT_EQ(no_stepid.err, "sattach: error: Failed to parse stepid from command line options\n");
  EXPECT_EQ(no_stepid.out, "Usage: sattach [options] <jobid.stepid>\n");

  cluster_->Run("touch " + stop);
  ASSERT_TRUE(Ended("srun3"));
  CommandResult ended = cluster_->Run("sattach " + job + ".0");
  EXPECT_EQ(ended.exit_code, 1);
  EXPECT_TRUE(absl::StartsWith(ended.err, "sattach: error: Could not get job step info: "))
      << ended.err;
}

}  // namespace
}  // namespace skiff::testing
