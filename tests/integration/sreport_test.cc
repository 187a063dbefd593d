// sreport through the real daemons: jobs of two users in a two-level account
// tree run, then cluster Utilization, AccountUtilizationByUser and user
// TopUsage must agree with what sacct says the jobs used (CPUTimeRAW, all
// inside the report's window). Runs as root: it creates test users.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

class SreportTest : public ::testing::Test {
 protected:
  void SetUp() override { StartCluster(/*gpu_nodes=*/0); }

  // A cluster of 2 nodes, the last `gpu_nodes` with 2 fake GPUs, that enforces
  // associations, with alice and bob.
  void StartCluster(int gpu_nodes) {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    LocalCluster::Options options = NodesWithGpus(2, gpu_nodes);
    options.extra_config = "AccountingStorageEnforce=associations\nClusterName=lab\n";
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    EnsureUsers(*cluster_, {kAlice, kBob});
  }

  void Ok(const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
  }

  // sreport as of an hour from now, so that Slurm's rounding of the window's
  // end to the nearest hour never leaves the jobs just run outside it (and
  // start=now-2hours end=now, relative to that, an hour before now, starts before them).
  CommandResult Sreport(const std::string& args) {
    return cluster_->Run(
        absl::StrCat("SKIFF_SREPORT_NOW=", time(nullptr) + 3600, " sreport ", args));
  }

  std::unique_ptr<LocalCluster> cluster_;
};

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST_F(SreportTest, ReportsAgreeWithWhatSacctSaysTheJobsUsed) {
  Ok("sacctmgr -i add account research");
  Ok("sacctmgr -i add account physics parent=research");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=research"));
  Ok(absl::StrCat("sacctmgr -i add user ", kBob, " account=physics"));
  // Three jobs at once; sbatch --wait returns when each has ended.
  const CommandResult alice =
      cluster_->RunAs(kAlice,
                      "{ sbatch --wait -o /dev/null -A research -n 2 --wrap 'sleep 3' & "
                      "sbatch --wait -o /dev/null -A research -n 1 --wrap 'sleep 2' & wait; }");
  ASSERT_EQ(alice.exit_code, 0) << alice.err;
  const CommandResult bob =
      cluster_->RunAs(kBob, "sbatch --wait -o /dev/null -A physics -n 1 --wrap 'sleep 4'");
  ASSERT_EQ(bob.exit_code, 0) << bob.err;

  // What sacct says: CPU-seconds per account and user.
  const CommandResult sacct =
      cluster_->Run("sacct -a -X -P -n -S now-1hour --format=Account,User,CPUTimeRAW");
  ASSERT_EQ(sacct.exit_code, 0) << sacct.err;
  std::map<std::string, int64_t> used;
  int64_t total = 0;
  for (const std::string& line : Lines(sacct.out)) {
    std::vector<std::string> f = absl::StrSplit(line, '|');
    ASSERT_EQ(f.size(), 3u) << line;
    int64_t seconds = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[2], &seconds)) << line;
    used[f[0] + "|" + f[1]] += seconds;
    total += seconds;
  }
  ASSERT_EQ(used.size(), 2u) << sacct.out;
  const int64_t alice_used = used[absl::StrCat("research|", kAlice)];
  const int64_t bob_used = used[absl::StrCat("physics|", kBob)];
  // Record times are whole seconds: a 'sleep 3' may show 2 or 4 elapsed.
  EXPECT_EQ(Lines(sacct.out).size(), 3u) << sacct.out << alice.err;
  EXPECT_GE(alice_used, 2 * 2 + 1) << sacct.out;
  EXPECT_GE(bob_used, 3) << sacct.out;

  // The tree, each account counting its subtree; seconds, parsable.
  const CommandResult by_user = Sreport(
      "-t Seconds -P -n cluster AccountUtilizationByUser start=now-2hours end=now "
      "format=Account,Login,Used");
  ASSERT_EQ(by_user.exit_code, 0) << by_user.err;
  EXPECT_EQ(by_user.out, absl::StrCat("root||", total, "\nresearch||", total, "\nresearch|", kAlice,
                                      "|", alice_used, "\nphysics||", bob_used, "\nphysics|", kBob,
                                      "|", bob_used, "\n"));

  // Top users, the largest first.
  const CommandResult top =
      Sreport("-t Seconds -P -n user TopUsage start=now-2hours end=now format=Login,Account,Used");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(top.out, absl::StrCat(kAlice, "|research|", alice_used, "\n", kBob, "|physics|",
                                  bob_used, "\n"));

  // Utilization: allocated is the jobs' sum; reported is every CPU over the
  // window (the header says which).
  const CommandResult utilization =
      Sreport("-t Seconds -P cluster Utilization start=now-2hours end=now");
  ASSERT_EQ(utilization.exit_code, 0) << utilization.err;
  const std::vector<std::string> lines = Lines(utilization.out);
  ASSERT_EQ(lines.size(), 6u) << utilization.out;
  EXPECT_EQ(lines[0], std::string(80, '-'));
  EXPECT_EQ(lines[2], "Usage reported in CPU Seconds");
  EXPECT_EQ(lines[4], "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported");
  std::vector<std::string> cells = absl::StrSplit(lines[5], '|');
  ASSERT_EQ(cells.size(), 7u) << lines[5];
  EXPECT_EQ(cells[0], "lab");
  EXPECT_EQ(cells[1], absl::StrCat(total));
  int64_t idle = 0, planned = 0, reported = 0;
  ASSERT_TRUE(absl::SimpleAtoi(cells[4], &idle));
  ASSERT_TRUE(absl::SimpleAtoi(cells[5], &planned));
  ASSERT_TRUE(absl::SimpleAtoi(cells[6], &reported));
  EXPECT_EQ(idle + planned + total, reported);
  const CommandResult cpus = cluster_->Run("sinfo -h -o %C");
  std::vector<std::string> counts = absl::StrSplit(absl::StripAsciiWhitespace(cpus.out), '/');
  ASSERT_EQ(counts.size(), 4u) << cpus.out;
  int64_t total_cpus = 0;
  ASSERT_TRUE(absl::SimpleAtoi(counts[3], &total_cpus));
  EXPECT_EQ(reported % (total_cpus * 3600), 0) << reported;  // whole hours of every CPU

  // Percentages of the whole; a user filter keeps only that user's lines.
  const CommandResult percent = Sreport(absl::StrCat(
      "-t Percent -P -n cluster AccountUtilizationByUser start=now-2hours end=now users=", kBob,
      " format=Login,Used"));
  ASSERT_EQ(percent.exit_code, 0) << percent.err;
  char expected[64];
  snprintf(expected, sizeof expected, "%s|%.2lf%%\n", kBob,
           100.0 * static_cast<double>(bob_used) / static_cast<double>(reported));
  EXPECT_EQ(percent.out, expected);

  // Bad input: Slurm's words and exit code 1.
  const CommandResult bad = Sreport("cluster Bogus");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(Lines(bad.err).at(0), "Not valid report Bogus");
  const CommandResult option = Sreport("--bogus cluster Utilization");
  EXPECT_EQ(option.exit_code, 1);
  EXPECT_EQ(
      option.err,
      "sreport: unrecognized option '--bogus'\nTry \"sreport --help\" for more information\n");
}

// Planned (Slurm's "Reserved" before 22.05): the CPU time eligible jobs
// waited, as sacct's ResvCPURAW says each job waited, up to the idle time.
TEST_F(SreportTest, PlannedIsTheCpuTimeEligibleJobsWaited) {
  Ok("sacctmgr -i add account research");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=research"));
  const CommandResult holder =
      cluster_->RunAs(kAlice, "sbatch --parsable -o /dev/null --exclusive -N 2 --wrap 'sleep 4'");
  ASSERT_EQ(holder.exit_code, 0) << holder.err;
  const std::string holder_id(absl::StripAsciiWhitespace(holder.out));
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(cluster_->Run("scontrol show job " + holder_id).out,
                             "JobState=RUNNING");
  }));
  // Waits for the holder's nodes.
  const CommandResult waiter =
      cluster_->RunAs(kAlice, "sbatch --wait -o /dev/null -n 1 --wrap true");
  ASSERT_EQ(waiter.exit_code, 0) << waiter.err;
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h -o %i").out.empty(); }));
  const CommandResult sacct =
      cluster_->Run("sacct -a -X -P -n -S now-1hour --format=JobID,ResvCPURAW");
  ASSERT_EQ(sacct.exit_code, 0) << sacct.err;
  int64_t waited = 0;
  for (const std::string& line : Lines(sacct.out)) {
    std::vector<std::string> f = absl::StrSplit(line, '|');
    ASSERT_EQ(f.size(), 2u) << line;
    int64_t seconds = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[1], &seconds)) << line;
    waited += seconds;
  }
  EXPECT_GE(waited, 2) << sacct.out;  // the waiter, behind a 4 s job
  // format=Reserved is Planned (format=Planned is PLND Down, as in Slurm).
  const CommandResult planned = Sreport(
      "-t Seconds -P -n cluster Utilization start=now-2hours end=now "
      "format=Reserved,OverCommitted");
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_EQ(planned.out, absl::StrCat(waited, "|0\n")) << sacct.out;
}

// Advance reservations as Slurm's rollup counts them: a MAINT reservation's
// time is PLND Down; another's is Allocated, with the time of the jobs that
// ran in it counted once (still in their user's line); an IGNORE_JOBS one's
// not at all; a deleted one counts until it was deleted.
TEST_F(SreportTest, ReservationTimeIsAllocatedOrPlannedDown) {
  Ok("sacctmgr -i add account research");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=research"));
  // Over already (a reservation may start up to 10 minutes back): 3 minutes each.
  Ok("scontrol create reservation ReservationName=fix StartTime=now-9minutes Duration=3 "
     "Nodes=n1 Users=root Flags=MAINT");
  Ok("scontrol create reservation ReservationName=held StartTime=now-9minutes Duration=3 "
     "Nodes=n2 Users=root");
  Ok("scontrol create reservation ReservationName=ignored StartTime=now-5minutes Duration=3 "
     "Nodes=n1,n2 Users=root Flags=IGNORE_JOBS");
  // One in force now, with a job of 4 CPUs for 3 s in it, deleted afterwards.
  Ok(
      absl::StrCat("scontrol create reservation ReservationName=live StartTime=now Duration=60 "
                   "Nodes=n2 Users=",
                   kAlice));
  const CommandResult shown = cluster_->Run("scontrol -o show res live");
  const size_t at = shown.out.find("StartTime=");
  ASSERT_NE(at, std::string::npos) << shown.out;
  const std::string start_text = shown.out.substr(at + 10, 19);  // YYYY-MM-DDTHH:MM:SS
  int64_t live_start = 0;
  ASSERT_TRUE(absl::SimpleAtoi(
      absl::StripAsciiWhitespace(cluster_->Run("date -d " + start_text + " +%s").out), &live_start))
      << start_text;
  const CommandResult job = cluster_->RunAs(
      kAlice, "sbatch --wait --reservation=live -t 5 --exclusive -o /dev/null --wrap 'sleep 3'");
  ASSERT_EQ(job.exit_code, 0) << job.out << job.err;
  const int64_t before_delete = time(nullptr);
  Ok("scontrol delete ReservationName=live");
  const int64_t after_delete = time(nullptr) + 1;  // ctld's clock may have turned the second

  const CommandResult utilization = Sreport(
      "-t Seconds -P -n cluster Utilization start=now-2hours end=now "
      "format=Allocated,PlannedDown");
  ASSERT_EQ(utilization.exit_code, 0) << utilization.err;
  std::vector<std::string> cells = absl::StrSplit(absl::StripAsciiWhitespace(utilization.out), '|');
  ASSERT_EQ(cells.size(), 2u) << utilization.out;
  int64_t allocated = 0;
  ASSERT_TRUE(absl::SimpleAtoi(cells[0], &allocated)) << utilization.out;
  EXPECT_EQ(cells[1], "720") << utilization.out;  // fix: 4 CPUs x 180 s
  // held's 720, and live's 4 CPUs from its start to its delete; the job's 12
  // CPU-seconds are inside that (counted twice, they would be above it).
  EXPECT_GE(allocated, 720 + 4 * (before_delete - live_start)) << utilization.out;
  EXPECT_LE(allocated, 720 + 4 * (after_delete - live_start)) << utilization.out;
  const CommandResult by_user = Sreport(
      "-t Seconds -P -n cluster AccountUtilizationByUser start=now-2hours end=now "
      "format=Login,Used");
  ASSERT_EQ(by_user.exit_code, 0) << by_user.err;
  bool found = false;
  for (const std::string& line : Lines(by_user.out)) {
    std::vector<std::string> f = absl::StrSplit(line, '|');
    int64_t used = 0;
    if (f.size() == 2 && f[0] == kAlice && absl::SimpleAtoi(f[1], &used)) {
      found = true;
      EXPECT_GE(used, 12) << by_user.out;
    }
  }
  EXPECT_TRUE(found) << by_user.out;
}

// GPU-hours: a 2-GPU job's GPU time in sacct's AllocTRES, in every sreport
// report with -T and in sshare's GrpTRESRaw, against its elapsed time; fair
// share bills the GPUs (./skiff up's TRESBillingWeights: a GPU as 2 of the 4
// CPUs of a node).
class SreportGpuTest : public SreportTest {
 protected:
  void SetUp() override { StartCluster(/*gpu_nodes=*/1); }  // n2: 2 fake GPUs

  // sshare's RawUsage (fair share's billing-seconds) of `user` in research.
  int64_t RawUsage(const std::string& user) {
    const CommandResult share = cluster_->Run("sshare -a -P -n -A research -o User,RawUsage");
    for (const std::string& line : Lines(share.out)) {
      std::vector<std::string> cells = absl::StrSplit(line, '|');
      int64_t value = 0;
      if (cells.size() == 2 && cells[0] == user && absl::SimpleAtoi(cells[1], &value)) return value;
    }
    ADD_FAILURE() << "no RawUsage for " << user << " in\n" << share.out << share.err;
    return -1;
  }
};

TEST_F(SreportGpuTest, GpuJobsGpuTimeShowsInSacctAndEveryReport) {
  Ok("sacctmgr -i add account research");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=research"));
  const CommandResult job =
      cluster_->RunAs(kAlice,
                      "sbatch --parsable --wait -o /dev/null -A research -p gpu -n 1 --gres=gpu:2 "
                      "--wrap 'sleep 30'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const std::string id(absl::StripAsciiWhitespace(job.out));

  const CommandResult sacct =
      cluster_->Run("sacct -X -P -n -j " + id + " --format=AllocTRES,ElapsedRaw,ReqTRES");
  ASSERT_EQ(sacct.exit_code, 0) << sacct.err;
  std::vector<std::string> f = absl::StrSplit(absl::StripAsciiWhitespace(sacct.out), '|');
  ASSERT_EQ(f.size(), 3u) << sacct.out;
  // billing = 1 CPU x 1.0 + 2 GPUs x 2.0, allocated and requested alike.
  EXPECT_TRUE(absl::StartsWith(f[0], "billing=5,cpu=1,gres/gpu=2,")) << f[0];
  EXPECT_TRUE(absl::EndsWith(f[0], ",node=1")) << f[0];
  EXPECT_TRUE(absl::StartsWith(f[2], "billing=5,cpu=1,gres/gpu=2,")) << f[2];
  int64_t elapsed = 0;
  ASSERT_TRUE(absl::SimpleAtoi(f[1], &elapsed)) << sacct.out;
  ASSERT_GT(elapsed, 0);
  const int64_t gpu_seconds = 2 * elapsed;

  const CommandResult by_user = Sreport(
      "-T gres/gpu -t Seconds -P -n cluster AccountUtilizationByUser start=now-2hours end=now "
      "format=Account,Login,TresName,Used");
  ASSERT_EQ(by_user.exit_code, 0) << by_user.err;
  EXPECT_EQ(by_user.out,
            absl::StrCat("root||gres/gpu|", gpu_seconds, "\nresearch||gres/gpu|", gpu_seconds,
                         "\nresearch|", kAlice, "|gres/gpu|", gpu_seconds, "\n"));

  const CommandResult by_account = Sreport(
      "-T cpu,gres/gpu -t Seconds -P -n cluster UserUtilizationByAccount start=now-2hours "
      "end=now format=Login,Account,TresName,Used");
  ASSERT_EQ(by_account.exit_code, 0) << by_account.err;
  EXPECT_EQ(by_account.out, absl::StrCat(kAlice, "|research|cpu|", elapsed, "\n", kAlice,
                                         "|research|gres/gpu|", gpu_seconds, "\n"));

  const CommandResult top = Sreport(
      "-T gres/gpu,billing -t Seconds -P -n user TopUsage start=now-2hours end=now "
      "format=Login,TresName,Used");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(top.out, absl::StrCat(kAlice, "|gres/gpu|", gpu_seconds, "\n", kAlice, "|billing|",
                                  5 * elapsed, "\n"));

  // Utilization: a line per TRES with the cluster's count of it; the GPUs'
  // reported time is whole hours of the cluster's 2 GPUs.
  const CommandResult utilization = Sreport(
      "-T cpu,gres/gpu -t Seconds -P cluster Utilization start=now-2hours end=now "
      "format=Cluster,TresName,TresCount,Allocated,Reported");
  ASSERT_EQ(utilization.exit_code, 0) << utilization.err;
  const std::vector<std::string> lines = Lines(utilization.out);
  ASSERT_EQ(lines.size(), 7u) << utilization.out;
  EXPECT_EQ(lines[2], "Usage reported in TRES Seconds");
  EXPECT_EQ(lines[4], "Cluster|TRES Name|TRES Count|Allocated|Reported");
  EXPECT_TRUE(absl::StartsWith(lines[5], absl::StrCat("lab|cpu|8|", elapsed, "|"))) << lines[5];
  std::vector<std::string> gpu = absl::StrSplit(lines[6], '|');
  ASSERT_EQ(gpu.size(), 5u) << lines[6];
  EXPECT_EQ(gpu[1], "gres/gpu");
  EXPECT_EQ(gpu[2], "2");
  EXPECT_EQ(gpu[3], absl::StrCat(gpu_seconds));
  int64_t reported = 0;
  ASSERT_TRUE(absl::SimpleAtoi(gpu[4], &reported));
  EXPECT_GT(reported, 0);
  EXPECT_EQ(reported % (2 * 3600), 0) << reported;

  // ALL: every TRES the cluster has, in Slurm's order.
  const CommandResult all =
      Sreport("-T ALL -P -n cluster Utilization start=now-2hours end=now format=TresName");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, "cpu\nmem\nenergy\nnode\nbilling\nfs/disk\nvmem\npages\ngres/gpu\n");

  // sshare: GrpTRESRaw in GPU-minutes (2 GPUs x 30 s or more: 1 or more),
  // and fair share's RawUsage counts the GPUs through billing (5 x seconds).
  const CommandResult share = cluster_->Run(
      absl::StrCat("sshare -P -n -u ", kAlice, " -A research -o Account,User,GrpTRESRaw,RawUsage"));
  ASSERT_EQ(share.exit_code, 0) << share.err;
  std::vector<std::string> mine;
  for (const std::string& line : Lines(share.out)) {
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    if (cells.size() == 4 && cells[1] == kAlice) mine = cells;
  }
  ASSERT_EQ(mine.size(), 4u) << share.out;
  EXPECT_TRUE(absl::StrContains(mine[2], absl::StrCat(",gres/gpu=", gpu_seconds / 60))) << mine[2];
  EXPECT_TRUE(absl::StartsWith(mine[2], absl::StrCat("cpu=", elapsed / 60, ","))) << mine[2];
  int64_t raw_usage = 0;
  ASSERT_TRUE(absl::SimpleAtoi(mine[3], &raw_usage)) << share.out;
  EXPECT_NEAR(raw_usage, 5 * elapsed, 1) << share.out;

  // No TRES it knows: Slurm's fatal.
  const CommandResult bad = Sreport("-T gres/fpga cluster Utilization");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, "sreport: fatal: No valid TRES given\n");
}

// Fair share orders users by GPU time: bob's CPU job uses three times the
// CPU time of alice's GPU job, yet alice's 2 GPUs make her usage the larger.
TEST_F(SreportGpuTest, FairShareCountsGpuTimeOverCpuTime) {
  Ok("sacctmgr -i add account research");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, ",", kBob, " account=research"));
  const CommandResult alice = cluster_->RunAs(
      kAlice, "sbatch --wait -o /dev/null -A research -p gpu -n 1 --gres=gpu:2 --wrap 'sleep 10'");
  ASSERT_EQ(alice.exit_code, 0) << alice.err;
  const CommandResult bob = cluster_->RunAs(
      kBob, "sbatch --wait -o /dev/null -A research -p debug -w n1 -n 3 --wrap 'sleep 10'");
  ASSERT_EQ(bob.exit_code, 0) << bob.err;
  const CommandResult cpu = Sreport(
      absl::StrCat("-t Seconds -P -n cluster UserUtilizationByAccount start=now-2hours end=now "
                   "format=Login,Used"));
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  // By CPU time bob comes first ...
  ASSERT_EQ(Lines(cpu.out).size(), 2u) << cpu.out;
  EXPECT_TRUE(absl::StartsWith(Lines(cpu.out)[0], absl::StrCat(kBob, "|"))) << cpu.out;
  // ... by fair share's usage (billing: 1 CPU + 2 GPUs x 2 against 3 CPUs), alice.
  EXPECT_GT(RawUsage(kAlice), RawUsage(kBob));
}

}  // namespace
}  // namespace skiff::testing
