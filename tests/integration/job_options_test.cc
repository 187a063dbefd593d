// Options that change a job's resources (issue 49), through the real daemons
// on four 2-CPU nodes (the shape of shared/slurm-anchor): --tmp against each
// node's TmpDisk, -s/--oversubscribe as shown, -k/--no-kill when a node
// fails, -L against the cluster's Licenses=. Expected texts are Slurm 22.05's on the anchor.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class JobOptionsTest : public SharedClusterTest<JobOptionsTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    StartCluster(NodesWithoutGpus(4, 2));
    if (HasFatalFailure()) return;
    // TmpDisk=1G on n3 and 2G on n4; n2 is "fast"; two sockets of one core on n2, one core
    // of two threads on n4 (the others: one socket of two cores). A NodeName
    // line changes only with a restart (scontrol reconfigure refuses it), as
    // in Slurm.
    ASSERT_EQ(cluster_->Down().exit_code, 0);
    const std::string conf = absl::StrReplaceAll(
        ReadFile(cluster_->conf_path()),
        {{"\nNodeName=n2 ", "\nNodeName=n2 Sockets=2 CoresPerSocket=1 Features=fast "},
         {"\nNodeName=n3 ", "\nNodeName=n3 TmpDisk=1024 "},
         {"\nNodeName=n4 ", "\nNodeName=n4 TmpDisk=2G CoresPerSocket=1 ThreadsPerCore=2 "}});
    // Two MATLAB seats and one Fluent licence for the whole cluster.
    std::ofstream(cluster_->conf_path()) << conf << "\nLicenses=matlab:2,fluent\n";
    const CommandResult up = cluster_->Up();
    ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  }

  void SetUp() override { SetUpAsRoot({"skiffalice"}); }

  // Cancels skiffalice's jobs and waits until they have left the queue: the
  // next test places jobs on particular nodes, which a job still completing
  // would hold.
  void TearDown() override {
    if (cluster_ == nullptr) return;
    cluster_->Run("scancel -u skiffalice");
    EXPECT_TRUE(Eventually(60, [] { return cluster_->Run("squeue -h -u skiffalice").out.empty(); }))
        << cluster_->Run("squeue -u skiffalice").out;
  }

  // Submits as skiffalice; the job id, or 0 (with a failure) when refused.
  static uint64_t Submit(const std::string& args) {
    const CommandResult r =
        cluster_->RunAs("skiffalice", "sbatch --parsable -t 5 -o /dev/null " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    EXPECT_EQ(r.err, "") << args;  // no "is not supported by Skiff" warning
    uint64_t id = 0;
    return absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id) ? id : 0;
  }

  static std::string Field(uint64_t job, const std::string& key) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", job)).out, key);
  }

  // The job's NodeList once it runs ("" if it never does within 30 s).
  static std::string NodesOnceRunning(uint64_t job) {
    std::string nodes;
    Eventually(30, [&] {
      if (Field(job, "JobState") != "RUNNING") return false;
      nodes = Field(job, "NodeList");
      return true;
    });
    return nodes;
  }
};

TEST_F(JobOptionsTest, TmpPlacesAJobOnlyOnNodesWithThatMuchTmpDisk) {
  const uint64_t one_gig = Submit("--tmp=1G -c 2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(one_gig), "n3");
  EXPECT_EQ(Field(one_gig, "MinTmpDiskNode"), "1G");
  const uint64_t two_gig = Submit("--tmp=2048 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(two_gig), "n4");
  // n4 has one CPU left; n1 and n2 are idle but lack the disk: it waits.
  const uint64_t waits = Submit("--tmp=2G -c 2 --wrap=true");
  EXPECT_TRUE(Eventually(20, [&] { return Field(waits, "Reason") == "Resources"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", waits)).out;
  EXPECT_EQ(Field(waits, "JobState"), "PENDING");
  EXPECT_EQ(Field(waits, "MinTmpDiskNode"), "2G");
  // The same shape without --tmp runs on an idle node at once.
  const uint64_t plain = Submit("-c 2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(plain), "n1");
  EXPECT_EQ(Field(plain, "MinTmpDiskNode"), "0");
  EXPECT_EQ(cluster_->Run(absl::StrCat("squeue -h -o '%d' -j ", two_gig)).out, "2G\n");
}

TEST_F(JobOptionsTest, EveryNodeOfTheJobHasTheTmpDisk) {
  const uint64_t two = Submit("-N 2 --tmp=1G --wrap='sleep 30'");
  EXPECT_EQ(NodesOnceRunning(two), "n[3-4]");
  // As #SBATCH directive too.
  const CommandResult r = cluster_->RunAs(
      "skiffalice",
      "printf '#!/bin/sh\\n#SBATCH --tmp=1500M -o /dev/null -t 5\\nsleep 30\\n' > tmp.sh && "
      "sbatch --parsable tmp.sh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t directive = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &directive)) << r.out;
  EXPECT_EQ(Field(directive, "MinTmpDiskNode"), "1500M");
  // n3 (1G) is not enough; n4 is busy with the first job's share, which
  // leaves a CPU: the job runs there.
  EXPECT_EQ(NodesOnceRunning(directive), "n4");
}

// Slurm 22.05 on the anchor (TmpDisk=0 everywhere) answers `sbatch --tmp=10`
// with these two lines and exits 1; salloc and srun say it in their words.
TEST_F(JobOptionsTest, TmpNoNodeOfThePartitionHasIsRefusedAtSubmit) {
  CommandResult r = cluster_->RunAs("skiffalice", "sbatch --tmp=3G -o /dev/null --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: Temporary disk specification can not be satisfied\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  r = cluster_->RunAs("skiffalice", "sbatch -N 3 --tmp=1G -o /dev/null --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Temporary disk specification can not be satisfied"), std::string::npos)
      << r.err;
  r = cluster_->RunAs("skiffalice", "salloc --tmp=3G true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Requested node configuration is not available"), std::string::npos)
      << r.err;
  r = cluster_->RunAs("skiffalice", "srun --tmp=3G true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Requested node configuration is not available"), std::string::npos)
      << r.err;
}

TEST_F(JobOptionsTest, SallocAndSrunAllocationsHonourTmp) {
  CommandResult r = cluster_->RunAs("skiffalice", "salloc -Q --tmp=2G printenv SLURM_JOB_NODELIST");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n4\n");
  EXPECT_EQ(r.err, "");
  r = cluster_->RunAs("skiffalice", "srun --tmp=1G -N 2 printenv SLURMD_NODENAME | sort");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n3\nn4\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(JobOptionsTest, VerboseShowsTmpAsSlurm) {
  const CommandResult r =
      cluster_->RunAs("skiffalice", "sbatch -v --tmp=2048 -H -o /dev/null --wrap=true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sbatch: tmp                 : 2G\n"), std::string::npos) << r.err;
}

// -B S[:C[:T]], --sockets-per-node, --cores-per-socket and --threads-per-core
// choose nodes whose layout has at least that many, as Slurm's cons_tres; the
// floors show in scontrol show job (ReqB:S:C:T, Socks/Node) and squeue %z.
TEST_F(JobOptionsTest, NodeLayoutOptionsChooseNodesWithThatLayout) {
  const uint64_t sockets = Submit("-B 2 -c 2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(sockets), "n2");
  EXPECT_EQ(Field(sockets, "Socks/Node"), "2");
  EXPECT_EQ(Field(sockets, "ReqB:S:C:T"), "0:0:*:*");
  const uint64_t threads = Submit("--threads-per-core=2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(threads), "n4");
  EXPECT_EQ(Field(threads, "ReqB:S:C:T"), "0:0:*:2");
  // n2 (its one-core sockets) and n4 (its one core) are out: n1 and n3.
  const uint64_t cores = Submit("-N 2 --cores-per-socket=2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(cores), "n[1,3]");
  const CommandResult squeue = cluster_->Run(
      absl::StrCat("squeue -h -o '%i %z' -j ", sockets, ",", threads, ",", cores, " | sort"));
  EXPECT_EQ(squeue.out, absl::StrCat(sockets, " 2:*:*\n", threads, " *:*:2\n", cores, " *:2:*\n"));
  // A second -B 2 job waits for n2 rather than take another node.
  const uint64_t waits = Submit("-B 2:1 --wrap=true");
  EXPECT_TRUE(Eventually(20, [&] { return Field(waits, "Reason") == "Resources"; }))
      << Field(waits, "JobState") << " " << Field(waits, "NodeList");
  // salloc and srun allocations too.
  cluster_->Run("scancel -u skiffalice");
  CommandResult r = cluster_->RunAs("skiffalice", "salloc -Q -B 2 printenv SLURM_JOB_NODELIST");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n2\n");
  r = cluster_->RunAs("skiffalice", "srun --threads-per-core=2 printenv SLURMD_NODENAME");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n4\n");
}

// No node of the partition has the layout: refused at submit as Slurm 22.05
// refuses it; a bad value as Slurm's option parser does (exit 1).
TEST_F(JobOptionsTest, NodeLayoutNoNodeHasIsRefusedAtSubmit) {
  CommandResult r = cluster_->RunAs("skiffalice", "sbatch -B 4 -o /dev/null --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  r = cluster_->RunAs("skiffalice", "salloc -B 2:2 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Requested node configuration is not available"), std::string::npos)
      << r.err;
  r = cluster_->RunAs("skiffalice", "srun -B 2:x true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "srun: error: Invalid numeric value \"x\" for second arg of -B.\n");
  r = cluster_->RunAs("skiffalice", "salloc --sockets-per-node=0 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "salloc: error: Invalid numeric value \"0\" for --sockets-per-node.\n");
}

// -s is kept and shown as Slurm 22.05 shows it (the anchor: OverSubscribe=OK
// by default, YES with -s, NO with --exclusive, USER with --exclusive=user;
// -s and --exclusive are one setting, the later wins).
TEST_F(JobOptionsTest, OversubscribeIsShownAsSlurmShowsIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "OK"},
      {"-s", "YES"},
      {"--oversubscribe", "YES"},
      {"--exclusive", "NO"},
      {"-s --exclusive", "NO"},
      {"--exclusive -s", "YES"},
      {"--exclusive=user", "USER"},
  };
  for (const auto& [args, shown] : cases) {
    const CommandResult r =
        cluster_->RunAs("skiffalice", "sbatch --parsable -H -o /dev/null " + args + " --wrap=true");
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    uint64_t id = 0;
    ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) << r.out;
    EXPECT_EQ(Field(id, "OverSubscribe"), shown) << args;
    EXPECT_EQ(cluster_->Run(absl::StrCat("squeue -h -o %h -j ", id)).out, shown + "\n") << args;
    if (args != "--exclusive=user") EXPECT_EQ(r.err, "") << args;
  }
  CommandResult v =
      cluster_->RunAs("skiffalice", "sbatch -v -s --exclusive -H -o /dev/null --wrap=true");
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.err.find("sbatch: exclusive           : exclusive\n"
                       "sbatch: hold                : set\n"),
            std::string::npos)
      << v.err;
  EXPECT_NE(v.err.find("sbatch: oversubscribe       : exclusive\n"), std::string::npos) << v.err;
  // salloc's and srun's own allocations.
  v = cluster_->RunAs("skiffalice",
                      "salloc -Q -s sh -c 'scontrol show job $SLURM_JOB_ID' | "
                      "grep -o 'OverSubscribe=[A-Z]*'");
  EXPECT_EQ(v.out, "OverSubscribe=YES\n") << v.err;
  v = cluster_->RunAs("skiffalice",
                      "srun --exclusive -s sh -c 'scontrol show job $SLURM_JOB_ID' | "
                      "grep -o 'OverSubscribe=[A-Z]*'");
  EXPECT_EQ(v.out, "OverSubscribe=YES\n") << v.err;
}

// -k: n2 stops answering under two running jobs on n[1-2]; the one with -k
// keeps running on n1 (its batch host) without n2, the other is requeued, as
// in Slurm 22.05 (kill_running_job_by_node_name).
TEST_F(JobOptionsTest, NoKillJobKeepsRunningWithoutItsFailedNode) {
  const uint64_t kept = Submit("-k -N 2 -w n[1-2] --wrap='sleep 300'");
  const uint64_t requeued = Submit("-N 2 -w n[1-2] --wrap='sleep 300'");
  ASSERT_EQ(NodesOnceRunning(kept), "n[1-2]");
  ASSERT_EQ(NodesOnceRunning(requeued), "n[1-2]");
  EXPECT_EQ(Field(kept, "NumCPUs"), "2");
  const pid_t noded = cluster_->Pid("noded-n2");
  ASSERT_GT(noded, 0);
  kill(noded, SIGKILL);
  // SlurmdTimeout=30 in the cluster's skiff.conf.
  const bool down = Eventually(90, [&] {
    return cluster_->Run("sinfo -h -n n2 -o %t").out.find("down") != std::string::npos;
  });
  EXPECT_TRUE(down) << cluster_->Run("sinfo -N").out;
  EXPECT_TRUE(Eventually(20, [&] { return Field(kept, "NodeList") == "n1"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", kept)).out;
  EXPECT_EQ(Field(kept, "JobState"), "RUNNING");
  EXPECT_EQ(Field(kept, "NumNodes"), "1");
  EXPECT_EQ(Field(kept, "NumCPUs"), "1");
  EXPECT_EQ(Field(kept, "Restarts"), "0");
  EXPECT_NE(
      cluster_->Log("ctld.log").find(absl::StrCat("Removing failed node n2 from JobId=", kept)),
      std::string::npos);
  EXPECT_EQ(Field(requeued, "Restarts"), "1");
  // Still running a while later: nothing stopped its script on n1.
  sleep(3);
  EXPECT_EQ(Field(kept, "JobState"), "RUNNING");
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", kept)).exit_code, 0);
  EXPECT_TRUE(Eventually(30, [&] { return Field(kept, "JobState") == "CANCELLED"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", kept)).out;
  // n2 comes back when its noded does (ReturnToService=1).
  ASSERT_EQ(cluster_->Up().exit_code, 0);
}

// salloc reads SALLOC_* as Slurm's salloc does (salloc(1) "INPUT ENVIRONMENT
// VARIABLES"): each is its option, read before the command line, which wins;
// a bad value is refused with the option's own message.
TEST_F(JobOptionsTest, SallocReadsItsInputEnvironment) {
  const std::string show = " sh -c 'echo $SLURM_JOB_NODELIST; scontrol show job $SLURM_JOB_ID'";
  CommandResult r = cluster_->RunAs(
      "skiffalice", "SALLOC_TIMELIMIT=7 SALLOC_THREADS_PER_CORE=2 salloc -Q" + show);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 3), "n4\n") << r.out;
  EXPECT_NE(r.out.find(" TimeLimit=00:07:00 "), std::string::npos) << r.out;
  r = cluster_->RunAs("skiffalice", "SALLOC_TIMELIMIT=7 salloc -Q -t 9" + show);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" TimeLimit=00:09:00 "), std::string::npos) << r.out;
  r = cluster_->RunAs("skiffalice", "SALLOC_PARTITION=nosuch salloc true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Invalid partition name specified"), std::string::npos) << r.err;
  r = cluster_->RunAs("skiffalice", "SALLOC_TIMELIMIT=abc salloc true");
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "salloc: error: Invalid --time specification\n");
}

// -L/--licenses (sbatch, salloc, srun) against Licenses=: held while a job
// runs, waited for with Reason=Licenses without holding up other jobs,
// refused at submit beyond what is configured, shown by scontrol show job
// and licenses and by squeue %W / -L, changed by scontrol update.
TEST_F(JobOptionsTest, LicensesAreHeldWhileAJobRunsAndWaitedForWithReasonLicenses) {
  const uint64_t both = Submit("-L matlab:2 --wrap='sleep 120'");
  EXPECT_NE(NodesOnceRunning(both), "");
  EXPECT_EQ(Field(both, "Licenses"), "matlab:2");
  EXPECT_EQ(cluster_->Run("scontrol show licenses").out,
            "LicenseName=fluent\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n"
            "LicenseName=matlab\n    Total=2 Used=2 Free=0 Reserved=0 Remote=no\n");
  EXPECT_EQ(cluster_->Run("scontrol -o show lic matlab").out,
            "LicenseName=matlab Total=2 Used=2 Free=0 Reserved=0 Remote=no\n");
  const uint64_t waits = Submit("--licenses=matlab --wrap=true");
  EXPECT_TRUE(Eventually(20, [&] { return Field(waits, "Reason") == "Licenses"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", waits)).out;
  // A later job short of nothing starts past it.
  const uint64_t fluent = Submit("-L fluent --wrap='sleep 120'");
  EXPECT_NE(NodesOnceRunning(fluent), "");
  EXPECT_EQ(cluster_->Run("squeue -h -L matlab -o '%i %W' -S i").out,
            absl::StrCat(both, " matlab:2\n", waits, " matlab\n"));
  // Beyond Licenses=, a name it lacks, or not the grammar: Slurm's refusal.
  for (const char* bad : {"matlab:3", "ansys", "matlab:x", "matlab,fluent:2"}) {
    const CommandResult r =
        cluster_->RunAs("skiffalice", absl::StrCat("sbatch -L '", bad, "' --wrap=true"));
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_EQ(r.err, "sbatch: error: Batch job submission failed: Invalid license specification\n")
        << bad;
  }
  // A pending job's licenses change by scontrol update, checked as at submit.
  CommandResult r = cluster_->RunAs(
      "skiffalice", absl::StrCat("scontrol update JobId=", waits, " Licenses=matlab:3"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Invalid license specification"), std::string::npos) << r.err;
  r = cluster_->RunAs("skiffalice",
                      absl::StrCat("scontrol update JobId=", waits, " Licenses=matlab:1,fluent"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(waits, "Licenses"), "matlab:1,fluent");
  // The first job ends: the waiting one still lacks the fluent licence the
  // third holds; once that ends too, it runs.
  cluster_->Run(absl::StrCat("scancel ", both));
  EXPECT_TRUE(Eventually(30, [&] { return Field(both, "JobState") == "CANCELLED"; }));
  EXPECT_EQ(Field(waits, "JobState"), "PENDING");
  EXPECT_EQ(Field(waits, "Reason"), "Licenses");
  cluster_->Run(absl::StrCat("scancel ", fluent));
  EXPECT_TRUE(Eventually(30, [&] {
    const std::string state = Field(waits, "JobState");
    return state == "RUNNING" || state == "COMPLETED";
  })) << cluster_->Run(absl::StrCat("scontrol show job ", waits)).out;
  // salloc and srun take -L for their allocations.
  r = cluster_->RunAs("skiffalice", "salloc -Q -L fluent sh -c 'scontrol show job $SLURM_JOB_ID'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" Licenses=fluent "), std::string::npos) << r.out;
  r = cluster_->RunAs("skiffalice", "srun -L matlab:2 sh -c 'scontrol show job $SLURM_JOB_ID' ");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" Licenses=matlab:2 "), std::string::npos) << r.out;
  r = cluster_->RunAs("skiffalice", "srun -L ansys true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Invalid license specification"), std::string::npos) << r.err;
}

// --prefer (sbatch, salloc, srun): the preferred features' nodes while one is
// free, then wherever the job fits; shown as Slurm shows it (Prefer=).
TEST_F(JobOptionsTest, PreferredFeaturesAreTriedFirst) {
  // (--wait-all-nodes and --gres-flags: taken without a warning; every node
  // is up when allocated, and no GPU is far from a CPU.)
  const uint64_t first = Submit(
      "--prefer=fast -c 2 --wait-all-nodes=1 --gres-flags=enforce-binding --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(first), "n2");
  EXPECT_EQ(Field(first, "Prefer"), "fast");
  const uint64_t second = Submit("--prefer=fast -c 2 --wrap='sleep 60'");
  EXPECT_EQ(NodesOnceRunning(second), "n1") << "n2 is taken: any node will do";
  const CommandResult r =
      cluster_->RunAs("skiffalice", "srun --prefer=fast -c 1 printenv SLURMD_NODENAME");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "n3\n");
}

// --time-min: where a job's time limit does not fit before a planned job's
// start, backfill starts it with the longest limit that does, from its
// --time-min up, and shows it so (TimeLimit=, TimeMin=); a job whose
// --time-min does not fit waits.
TEST_F(JobOptionsTest, TimeMinLetsBackfillShortenTheTimeLimit) {
  const uint64_t first = Submit("-c 2 -t 3 --wrap='sleep 300'");
  EXPECT_NE(NodesOnceRunning(first), "");
  const uint64_t wide = Submit("-N 4 -c 2 -t 5 --wrap=true");  // planned at the first's end
  EXPECT_TRUE(Eventually(20, [&] { return Field(wide, "Reason") == "Resources"; }));
  const uint64_t waits = Submit("-c 2 -t 30 --time-min=10 --wrap='sleep 300'");
  const uint64_t shrinks = Submit("-c 2 -t 30 --time-min=1 --wrap='sleep 300'");
  EXPECT_NE(NodesOnceRunning(shrinks), "");
  const std::string limit = Field(shrinks, "TimeLimit");
  // Whole minutes up to the first job's end (3 minutes from its start).
  EXPECT_TRUE(limit == "00:03:00" || limit == "00:02:00" || limit == "00:01:00") << limit;
  EXPECT_EQ(Field(shrinks, "TimeMin"), "00:01:00");
  EXPECT_EQ(Field(waits, "JobState"), "PENDING");
  EXPECT_EQ(Field(waits, "TimeLimit"), "00:30:00");
  EXPECT_EQ(Field(waits, "TimeMin"), "00:10:00");
  EXPECT_EQ(Field(first, "TimeMin"), "N/A");
  const CommandResult r = cluster_->RunAs("skiffalice", "sbatch -t 5 --time-min=6 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Invalid time-min specification (exceeds "
            "job's time or other limits)\n");
}

}  // namespace
}  // namespace skiff::testing
