// "An acknowledgement means stored", through the real daemons: ctld's state
// directory on a full 2 MB tmpfs refuses work with the real cause instead of
// acknowledging it, rewrites no history on restart, and carries on once space is
// freed; a node whose spool directory fills up still records a job's real end.
// Also: scontrol update is all or nothing, and Comment= is kept.
// Runs as root (mount, CI does).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class DurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root (mount)";
    StartLocalCluster(NodesWithoutGpus(2), &cluster_);
  }

  void TearDown() override {
    if (cluster_ == nullptr) return;
    cluster_->Down();
    if (!mount_.empty()) RunShell("umount -l " + mount_);
    cluster_.reset();
  }

  std::string Show(uint64_t id) {
    return cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  }

  bool Finished(uint64_t id) {
    const std::string state = ScontrolField(Show(id), "JobState");
    return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" ||
           state == "NODE_FAIL" || state == "TIMEOUT" || state == "OUT_OF_MEMORY";
  }

  std::unique_ptr<LocalCluster> cluster_;
  std::string mount_;
};

TEST_F(DurabilityTest, FullStateDirectoryRefusesWithTheRealCauseAndRecovers) {
  // Move ctld's state onto a 2 MB tmpfs.
  const std::string dir = cluster_->dir();
  mount_ = dir + "/statefs";
  ASSERT_EQ(cluster_->Down().exit_code, 0);
  const CommandResult mounted =
      RunShell(absl::StrCat("mkdir -p ", mount_, " && mount -t tmpfs -o size=2m tmpfs ", mount_));
  if (mounted.exit_code != 0) {
    mount_.clear();
    GTEST_SKIP() << "cannot mount a tmpfs here: " << mounted.err;
  }
  ASSERT_EQ(RunShell(absl::StrCat("cp -a ", dir, "/state/ctld/. ", mount_,
                                  "/ && echo "
                                  "StateSaveLocation=",
                                  mount_, " >> ", dir, "/etc/skiff.conf"))
                .exit_code,
            0);
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }));

  const CommandResult done = cluster_->Run("sbatch --wrap true");
  const std::vector<uint64_t> first = SubmittedJobIds(done.out);
  ASSERT_EQ(first.size(), 1u) << done.err;
  ASSERT_TRUE(
      Eventually(30, [&] { return ScontrolField(Show(first[0]), "JobState") == "COMPLETED"; }));
  const CommandResult held_submit = cluster_->Run("sbatch --hold -t 5 --wrap true");
  const std::vector<uint64_t> held = SubmittedJobIds(held_submit.out);
  ASSERT_EQ(held.size(), 1u) << held_submit.err;

  // Fill the filesystem. SQLite may still reuse pages of its WAL for a while,
  // so submit until it cannot: every answer must be either a stored job or the
  // real cause, never a false acknowledgement or a "connect failure".
  RunShell(absl::StrCat("dd if=/dev/zero of=", mount_, "/filler bs=4k 2>/dev/null"));
  std::vector<uint64_t> acknowledged;
  bool refused = false;
  for (int i = 0; i < 200 && !refused; ++i) {
    const CommandResult r = cluster_->Run("sbatch --hold --wrap true");
    if (r.exit_code == 0) {
      const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
      ASSERT_EQ(ids.size(), 1u) << r.out;
      acknowledged.push_back(ids[0]);
      continue;
    }
    refused = true;
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("sbatch: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("full"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("connect failure"), std::string::npos) << r.err;
  }
  ASSERT_TRUE(refused) << "200 submissions stored on a full 2 MB filesystem?";

  // Neither a release nor a cancel is acknowledged unless stored.
  const CommandResult release = cluster_->Run(absl::StrCat("scontrol release ", held[0]));
  if (release.exit_code != 0) {
    EXPECT_EQ(ScontrolField(Show(held[0]), "JobState"), "PENDING");
    EXPECT_NE(Show(held[0]).find("JobHeldUser"), std::string::npos)
        << "a refused release must not take effect";
  }

  // A restart rewrites no history: the finished job stays finished, and every
  // acknowledged job is still there.
  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  ASSERT_EQ(RunShell(absl::StrCat("rm -f ", mount_, "/filler")).exit_code, 0);
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }));
  EXPECT_EQ(ScontrolField(Show(first[0]), "JobState"), "COMPLETED");
  for (uint64_t id : acknowledged) {
    EXPECT_EQ(ScontrolField(Show(id), "JobState"), "PENDING") << "JobId=" << id;
  }
  const std::string release_state = ScontrolField(Show(held[0]), "JobState");
  if (release.exit_code == 0) {
    EXPECT_EQ(Show(held[0]).find("JobHeldUser"), std::string::npos)
        << "an acknowledged release was lost";
  }

  // Space is back: everything proceeds.
  const CommandResult after = cluster_->Run("sbatch --wrap true");
  const std::vector<uint64_t> later = SubmittedJobIds(after.out);
  ASSERT_EQ(later.size(), 1u) << after.err;
  ASSERT_TRUE(
      Eventually(30, [&] { return ScontrolField(Show(later[0]), "JobState") == "COMPLETED"; }));
  (void)release_state;
}

// A ctld.db that is missing or empty where ctld has stored state before (its
// ctld.state marker) is a lost database, not a new cluster: ctld refuses to
// start rather than reuse job ids, and `ctld -c` is the explicit fresh start,
// which moves the old database aside.
TEST_F(DurabilityTest, ALostDatabaseIsRefusedUntilTheAdminAsksForAFreshStart) {
  const std::string dir = cluster_->dir();
  const std::string state = dir + "/state/ctld";
  const CommandResult first = cluster_->Run("sbatch --wrap true");
  const std::vector<uint64_t> ids = SubmittedJobIds(first.out);
  ASSERT_EQ(ids.size(), 1u) << first.err;
  ASSERT_TRUE(Eventually(30, [&] { return Finished(ids[0]); })) << Show(ids[0]);

  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_EQ(kill(ctld, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return kill(ctld, 0) != 0; }));
  ASSERT_EQ(RunShell(absl::StrCat(": > ", state, "/ctld.db && rm -f ", state, "/ctld.db-wal ",
                                  state, "/ctld.db-shm"))
                .exit_code,
            0);
  const CommandResult refused = cluster_->Up();
  EXPECT_NE(refused.exit_code, 0);
  const std::string out = cluster_->Log("ctld.out");
  EXPECT_NE(out.find(state + "/ctld.db is empty"), std::string::npos) << out;
  EXPECT_NE(out.find("ctld -c"), std::string::npos) << out;
  EXPECT_NE(cluster_->Run("sinfo -h").exit_code, 0) << "ctld must not be serving";

  // The admin's fresh start, as skiff up starts ctld but with -c.
  ASSERT_EQ(RunShell(absl::StrCat("cd ", dir, " && { setsid bin/ctld -f etc/skiff.conf -c ",
                                  "> log/ctld-c.out 2>&1 < /dev/null & echo $! > run/ctld.pid; }"))
                .exit_code,
            0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }))
      << cluster_->Log("ctld-c.out");
  EXPECT_EQ(cluster_->Run("squeue -h -t all").out, "");
  EXPECT_EQ(RunShell(absl::StrCat("ls ", state, " | grep -c '^ctld.db.cleared-[0-9]*$'")).out,
            "1\n");
  const CommandResult again = cluster_->Run("sbatch -H --wrap true");
  ASSERT_EQ(SubmittedJobIds(again.out).size(), 1u) << again.err;

  // From then on a plain restart finds its database.
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  const CommandResult restarted = cluster_->Up();
  EXPECT_EQ(restarted.exit_code, 0) << restarted.err << cluster_->Log("ctld.out");
  EXPECT_EQ(cluster_->Run("squeue -h -o %i").out,
            absl::StrCat(SubmittedJobIds(again.out)[0], "\n"));
}

TEST_F(DurabilityTest, UpdateIsAllOrNothingAndCommentIsKept) {
  const CommandResult submitted = cluster_->Run("sbatch --hold -t 30 --wrap true");
  const std::vector<uint64_t> ids = SubmittedJobIds(submitted.out);
  ASSERT_EQ(ids.size(), 1u) << submitted.err;
  const uint64_t id = ids[0];

  const CommandResult partial =
      cluster_->Run(absl::StrCat("scontrol update JobId=", id, " TimeLimit=10 QOS=nosuch"));
  EXPECT_NE(partial.exit_code, 0);
  EXPECT_NE(partial.err.find("Invalid qos specification"), std::string::npos) << partial.err;
  EXPECT_EQ(ScontrolField(Show(id), "TimeLimit"), "00:30:00") << "half an update was applied";

  ASSERT_EQ(
      cluster_->Run(absl::StrCat("scontrol update JobId=", id, " Comment=rerun_of_41")).exit_code,
      0);
  EXPECT_NE(Show(id).find("Comment=rerun_of_41"), std::string::npos) << Show(id);

  // Stored, not just in memory: it survives a restart of ctld.
  const pid_t ctld = cluster_->Pid("ctld");
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }));
  EXPECT_NE(Show(id).find("Comment=rerun_of_41"), std::string::npos) << Show(id);
}

TEST_F(DurabilityTest, FullNodeSpoolNeverTurnsASuccessIntoAFailure) {
  // Put n1's SlurmdSpoolDir on a 1 MB tmpfs.
  const std::string dir = cluster_->dir();
  const std::string spool = dir + "/state/noded/n1";
  ASSERT_EQ(cluster_->Down().exit_code, 0);
  const CommandResult mounted = RunShell(absl::StrCat(
      "mkdir -p ", spool, " && mv ", spool, " ", spool, ".old && mkdir ", spool,
      " && mount -t tmpfs -o size=1m tmpfs ", spool, " && cp -a ", spool, ".old/. ", spool, "/"));
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs here: " << mounted.err;
  mount_ = spool;
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h").exit_code == 0; }));
  const std::string fill = absl::StrCat("dd if=/dev/zero of=", spool, "/filler bs=4k 2>/dev/null");

  // The job fills the spool and exits 0: the space its shepherd set aside at
  // start records its end.
  const CommandResult first = cluster_->Run(
      absl::StrCat("sbatch -w n1 -o ", dir, "/fill1.out --wrap '", fill, "; exit 0'"));
  const std::vector<uint64_t> one = SubmittedJobIds(first.out);
  ASSERT_EQ(one.size(), 1u) << first.err;
  ASSERT_TRUE(Eventually(30, [&] { return Finished(one[0]); }));
  EXPECT_EQ(ScontrolField(Show(one[0]), "JobState"), "COMPLETED") << Show(one[0]);
  EXPECT_EQ(ScontrolField(Show(one[0]), "ExitCode"), "0:0");
  ASSERT_EQ(RunShell(absl::StrCat("rm -f ", spool, "/filler")).exit_code, 0);

  // This one also takes the reserve: the end cannot be recorded. The job stays
  // RUNNING (not FAILED, not NODE_FAIL), its owner is told why in its output,
  // and once space is freed it completes with its real exit code.
  const std::string out = dir + "/fill2.out";
  const CommandResult second = cluster_->Run(absl::StrCat(
      "sbatch -w n1 -o ", out, " --wrap '", fill, "; rm -f ", spool,
      "/job*/status.reserve; dd if=/dev/zero of=", spool, "/filler2 bs=4k 2>/dev/null; exit 3'"));
  const std::vector<uint64_t> two = SubmittedJobIds(second.out);
  ASSERT_EQ(two.size(), 1u) << second.err;
  ASSERT_TRUE(Eventually(30, [&] {
    return RunShell("cat " + out).out.find("cannot be recorded in SlurmdSpoolDir") !=
           std::string::npos;
  })) << RunShell("cat " + out).out;
  sleep(2);
  EXPECT_EQ(ScontrolField(Show(two[0]), "JobState"), "RUNNING") << Show(two[0]);
  ASSERT_EQ(RunShell(absl::StrCat("rm -f ", spool, "/filler ", spool, "/filler2")).exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return Finished(two[0]); }));
  EXPECT_EQ(ScontrolField(Show(two[0]), "JobState"), "FAILED") << Show(two[0]);
  EXPECT_EQ(ScontrolField(Show(two[0]), "ExitCode"), "3:0")
      << "the job's own exit code, not a node failure";
  EXPECT_EQ(ScontrolField(Show(two[0]), "Restarts"), "0");
}

}  // namespace
}  // namespace skiff::testing
