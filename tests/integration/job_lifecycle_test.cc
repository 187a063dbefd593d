// Batch jobs through the real daemons: sbatch -> ctld -> scriptd (prolog) ->
// noded -> the job as its user -> scriptd (epilog) -> done, and who may touch
// whose job. Runs as root (CI does) and creates two test users.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// "Submitted batch job 12" -> 12; 0 when the output is not that.
uint64_t JobIdFrom(const CommandResult& result) {
  std::smatch match;
  static const std::regex kSubmitted("Submitted batch job ([0-9]+)");
  if (!std::regex_search(result.out, match, kSubmitted)) return 0;
  return std::stoull(match[1]);
}

class JobLifecycleTest : public SharedClusterTest<JobLifecycleTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options = NodesWithGpus(4, 2);
    // Prolog and epilog append "<context> <job id> <parent pid>" to a file.
    options.extra_config =
        "PrologSlurmctld=@DIR@/etc/ctld_script.sh\n"
        "EpilogSlurmctld=@DIR@/etc/ctld_script.sh\n"
        "KillWait=2\n";
    StartCluster(options);
    if (HasFatalFailure()) return;
    const std::string dir = cluster_->dir();
    std::ofstream(dir + "/etc/ctld_script.sh")
        << "#!/bin/sh\n"
        << "echo \"$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID $PPID\" >> " << dir
        << "/log/ctld_scripts.txt\n";
    ASSERT_EQ(RunShell("chmod 755 " + dir + "/etc/ctld_script.sh").exit_code, 0);
  }

  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ASSERT_NE(cluster_, nullptr);
    auto alice = cluster_->EnsureUser("skiffalice");
    auto bob = cluster_->EnsureUser("skiffbob");
    ASSERT_TRUE(alice.ok()) << alice.status();
    ASSERT_TRUE(bob.ok()) << bob.status();
    alice_uid_ = *alice;
  }

  // Waits until `scontrol show job` shows `state`; returns the last output.
  std::string WaitForState(uint64_t id, const std::string& state, int seconds = 30) {
    std::string last;
    Eventually(seconds, [&] {
      last = cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
      return last.find("JobState=" + state + " ") != std::string::npos;
    });
    return last;
  }

  uid_t alice_uid_ = 0;
};

TEST_F(JobLifecycleTest, JobRunsAsItsUserWithSlurmEnvironment) {
  const std::string home = cluster_->dir() + "/home/skiffalice";
  std::ofstream(home + "/env_job.sh") << "#!/bin/bash\n"
                                      << "#SBATCH -J envjob\n"
                                      << "#SBATCH -o env-%j.out\n"
                                      << "echo uid=$(id -u)\n"
                                      << "env | grep -E '^(SLURM|CUDA)' | sort\n";
  CommandResult submit =
      cluster_->RunAs("skiffalice", "sbatch -p gpu --gres=gpu:2 -n 2 --mem=100 env_job.sh");
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out;
  const std::string shown = WaitForState(id, "COMPLETED");
  ASSERT_NE(shown.find("JobState=COMPLETED"), std::string::npos) << shown;

  const std::string output = ReadFile(absl::StrCat(home, "/env-", id, ".out"));
  const std::string id_text = absl::StrCat(id);
  EXPECT_NE(output.find(absl::StrCat("uid=", alice_uid_, "\n")), std::string::npos) << output;
  const std::vector<std::string> expected = {"SLURM_JOB_ID=" + id_text,
                                             std::string("SLURM_JOB_NAME=envjob"),
                                             std::string("SLURM_JOB_NODELIST=n3"),
                                             std::string("SLURM_NNODES=1"),
                                             std::string("SLURM_NTASKS=2"),
                                             std::string("SLURM_CPUS_ON_NODE=2"),
                                             std::string("SLURM_MEM_PER_NODE=100"),
                                             "SLURM_SUBMIT_DIR=" + home,
                                             std::string("SLURM_JOB_PARTITION=gpu"),
                                             std::string("SLURM_JOB_QOS=normal"),
                                             std::string("SLURM_JOB_USER=skiffalice"),
                                             absl::StrCat("SLURM_JOB_UID=", alice_uid_),
                                             std::string("SLURM_CLUSTER_NAME=skiff-local"),
                                             std::string("SLURM_JOB_GPUS=0,1"),
                                             std::string("CUDA_VISIBLE_DEVICES=0,1")};
  for (const std::string& line : expected) {
    EXPECT_NE(output.find(line + "\n"), std::string::npos) << "missing " << line << " in\n"
                                                           << output;
  }
  EXPECT_NE(output.find("SLURM_SUBMIT_HOST="), std::string::npos) << output;
  EXPECT_NE(output.find("SLURM_TASKS_PER_NODE=2\n"), std::string::npos) << output;
  // Never SLURM_CONF: a real Slurm client on the host would read skiff.conf.
  EXPECT_EQ(output.find("SLURM_CONF="), std::string::npos) << output;
}

// scontrol's host-list helpers, and "show jobid" as Slurm's synonym for "show job".
TEST_F(JobLifecycleTest, ScontrolShowsHostnamesHostlistsAndJobid) {
  CommandResult names = cluster_->Run("scontrol show hostnames 'n[1-4]'");
  EXPECT_EQ(names.exit_code, 0) << names.err;
  EXPECT_EQ(names.out, "n1\nn2\nn3\nn4\n");
  EXPECT_EQ(cluster_->Run("scontrol show hostlist n3,n1,n2").out, "n[3,1-2]\n");
  EXPECT_EQ(cluster_->Run("scontrol show hostlistsorted n3,n1,n2").out, "n[1-3]\n");
  const CommandResult bad = cluster_->Run("scontrol show hostnames 'n[1-'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "Invalid hostlist: n[1-\n");
  // Inside a job, the job's own nodes by default.
  CommandResult inside = cluster_->Run("SLURM_NODELIST='n[2-3]' scontrol show hostnames");
  EXPECT_EQ(inside.out, "n2\nn3\n");

  const uint64_t id = JobIdFrom(cluster_->Run("sbatch -o /dev/null --wrap=true"));
  ASSERT_NE(id, 0u);
  const std::string shown = cluster_->Run(absl::StrCat("scontrol show jobid ", id)).out;
  EXPECT_NE(shown.find(absl::StrCat("JobId=", id, " ")), std::string::npos) << shown;
}

TEST_F(JobLifecycleTest, PrologAndEpilogRunInScriptdNotInCtld) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch --wrap='true'");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  WaitForState(id, "COMPLETED");
  const std::string log = ReadFile(cluster_->dir() + "/log/ctld_scripts.txt");
  std::smatch prolog, epilog;
  ASSERT_TRUE(std::regex_search(log, prolog,
                                std::regex(absl::StrCat("prolog_slurmctld ", id, " ([0-9]+)"))))
      << log;
  ASSERT_TRUE(std::regex_search(log, epilog,
                                std::regex(absl::StrCat("epilog_slurmctld ", id, " ([0-9]+)"))))
      << log;
  const pid_t ctld = cluster_->Pid("ctld");
  const pid_t prolog_parent = std::stoi(prolog[1]);
  EXPECT_NE(prolog_parent, ctld) << "ctld must never fork scripts itself";
  // The prolog's parent is scriptd, and scriptd's parent is ctld.
  const std::string stat = ReadFile(absl::StrCat("/proc/", prolog_parent, "/stat"));
  if (!stat.empty()) {  // scriptd still running
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    EXPECT_EQ(ppid, ctld);
    EXPECT_NE(ReadFile(absl::StrCat("/proc/", prolog_parent, "/cmdline")).find("scriptd"),
              std::string::npos);
  }
}

TEST_F(JobLifecycleTest, OtherUsersCannotCancelOrHoldButRootCan) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch --wrap='sleep 300'");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  WaitForState(id, "RUNNING");

  CommandResult cancel = cluster_->RunAs("skiffbob", absl::StrCat("scancel ", id));
  EXPECT_EQ(cancel.exit_code, 210) << cancel.err;
  EXPECT_NE(cancel.err.find("Access/permission denied"), std::string::npos) << cancel.err;
  CommandResult hold = cluster_->RunAs("skiffbob", absl::StrCat("scontrol hold ", id));
  EXPECT_NE(hold.exit_code, 0);
  // Both were refused before anything changed: the job runs on.
  const std::string after = cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_NE(after.find("JobState=RUNNING"), std::string::npos) << after;

  CommandResult root_cancel = cluster_->Run(absl::StrCat("scancel ", id));
  EXPECT_EQ(root_cancel.exit_code, 0) << root_cancel.err;
  EXPECT_NE(WaitForState(id, "CANCELLED").find("JobState=CANCELLED"), std::string::npos);
}

TEST_F(JobLifecycleTest, UserCanHoldAndReleaseOwnPendingJob) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch --hold --wrap='true'");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  EXPECT_NE(WaitForState(id, "PENDING").find("Reason=JobHeldUser"), std::string::npos);
  CommandResult release = cluster_->RunAs("skiffalice", absl::StrCat("scontrol release ", id));
  EXPECT_EQ(release.exit_code, 0) << release.err;
  EXPECT_NE(WaitForState(id, "COMPLETED").find("JobState=COMPLETED"), std::string::npos);
}

TEST_F(JobLifecycleTest, TimeLimitEndsJobInTimeout) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch -t 0:02 --wrap='sleep 300'");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  EXPECT_NE(WaitForState(id, "TIMEOUT", 30).find("JobState=TIMEOUT"), std::string::npos);
}

TEST_F(JobLifecycleTest, FailingScriptIsFailedWithItsExitCode) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch --wrap='exit 7'");
  const uint64_t id = JobIdFrom(submit);
  ASSERT_GT(id, 0u) << submit.out << submit.err;
  const std::string shown = WaitForState(id, "FAILED");
  EXPECT_NE(shown.find("ExitCode=7:0"), std::string::npos) << shown;
}

TEST_F(JobLifecycleTest, ImpossibleRequestIsRejectedAtSubmit) {
  CommandResult submit = cluster_->RunAs("skiffalice", "sbatch -p gpu --gres=gpu:3 --wrap=true");
  EXPECT_EQ(submit.exit_code, 1);
  EXPECT_NE(submit.err.find("Requested node configuration is not available"), std::string::npos)
      << submit.err;
}

}  // namespace
}  // namespace skiff::testing
