// The scheduler through the real daemons: QOS limits, preemption, arrays with
// a throttle, and dependency chains. One cluster for the suite: 4 nodes with 4
// CPUs; n2-n4 have 2 fake GPUs each; n4 is also in a best-effort and a
// high-priority partition (the seed's default/besteffort setup), n3 in a
// partition with GraceTime and one that preempts it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class SchedulerTest : public SharedClusterTest<SchedulerTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options = NodesWithGpus(4, 3);
    options.extra_config =
        "PreemptType=preempt/partition_prio\n"
        "PreemptMode=REQUEUE\n"
        "KillWait=1\n"
        "PartitionName=besteffort Nodes=n4 PriorityTier=1 PreemptMode=REQUEUE "
        "MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP\n"
        "PartitionName=high Nodes=n4 PriorityTier=10 MaxTime=1-00:00:00 "
        "DefaultTime=01:00:00 State=UP\n"
        "PartitionName=graceful Nodes=n3 PriorityTier=1 PreemptMode=REQUEUE GraceTime=5 "
        "MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP\n"
        "PartitionName=urgent Nodes=n3 PriorityTier=10 MaxTime=1-00:00:00 "
        "DefaultTime=01:00:00 State=UP\n";
    StartCluster(options);
  }

  void SetUp() override { SetUpAsRoot({"skiffalice"}); }

  // "ID STATE REASON" per job of the user, by id ("%i %T %r").
  static std::map<std::string, std::pair<std::string, std::string>> Queue(const std::string& args) {
    std::map<std::string, std::pair<std::string, std::string>> out;
    CommandResult r = cluster_->Run("squeue -h -r -o '%i %T %r' " + args);
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (f.size() >= 3) out[f[0]] = {f[1], f[2]};
    }
    return out;
  }

  static int CountState(const std::map<std::string, std::pair<std::string, std::string>>& q,
                        const std::string& state) {
    return static_cast<int>(
        std::count_if(q.begin(), q.end(), [&](const auto& e) { return e.second.first == state; }));
  }

  // scontrol's Key=value for one job, "" when absent.
  static std::string JobField(uint64_t id, const std::string& key) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, key);
  }
};

TEST_F(SchedulerTest, QosGpuLimitRunsExactlyFourAndStartsTheRestAsTheyFinish) {
  CommandResult add = cluster_->Run("sacctmgr -i add qos gpu4 MaxTRESPerUser=gres/gpu=4");
  ASSERT_EQ(add.exit_code, 0) << add.out << add.err;
  CommandResult show = cluster_->Run("sacctmgr -n -P show qos gpu4 format=Name,MaxTRESPU");
  EXPECT_NE(show.out.find("gres/gpu=4"), std::string::npos) << show.out << show.err;
  // An ordinary user may not change QOS.
  CommandResult denied =
      cluster_->RunAs("skiffalice", "sacctmgr -i modify qos gpu4 set Priority=5");
  EXPECT_NE(denied.exit_code, 0);

  std::vector<uint64_t> ids;
  for (int i = 0; i < 6; ++i) {
    CommandResult r = cluster_->RunAs(
        "skiffalice", "sbatch -p gpu --qos=gpu4 --gres=gpu:1 -t 5 --wrap='sleep 6'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<uint64_t> got = SubmittedJobIds(r.out);
    ASSERT_EQ(got.size(), 1u);
    ids.push_back(got[0]);
  }
  const std::string filter = absl::StrCat("-u skiffalice -p gpu");
  // The last submission may be read before the pass that gives it its reason.
  int limited = 0;
  std::string last_queue;
  ASSERT_TRUE(Eventually(30, [&] {
    auto q = Queue(filter);
    limited = 0;
    last_queue.clear();
    for (const auto& [id, entry] : q) {
      absl::StrAppend(&last_queue, id, " ", entry.first, " ", entry.second, "\n");
      if (entry.first == "PENDING" && entry.second == "QOSMaxGRESPerUser") ++limited;
    }
    return CountState(q, "RUNNING") == 4 && limited == 2;
  })) << last_queue;
  // Never more than 4 at once, and the last two start as the first finish.
  int max_running = 0;
  ASSERT_TRUE(Eventually(90, [&] {
    auto now = Queue(filter);
    max_running = std::max(max_running, CountState(now, "RUNNING"));
    return now.empty();
  }));
  EXPECT_LE(max_running, 4);
  for (uint64_t id : ids) EXPECT_EQ(JobField(id, "JobState"), "COMPLETED") << id;
}

TEST_F(SchedulerTest, ArrayThrottleNeverRunsMoreThanFiveAndEachTaskSeesItsIndex) {
  CommandResult r = cluster_->RunAs(
      "skiffalice",
      "sbatch --array=1-20%5 -p debug -t 5 -o arr_%A_%a.out "
      "--wrap='echo $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT; sleep 2'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint64_t> got = SubmittedJobIds(r.out);
  ASSERT_EQ(got.size(), 1u);
  const uint64_t array_id = got[0];
  // Collapsed in squeue while pending.
  CommandResult collapsed = cluster_->Run(absl::StrCat("squeue -h -o %i -j ", array_id));
  EXPECT_NE(collapsed.out.find(absl::StrCat(array_id, "_[")), std::string::npos) << collapsed.out;
  int max_running = 0;
  int seen_running = 0;
  ASSERT_TRUE(Eventually(120, [&] {
    // With -j squeue shows finished jobs too: only the active ones count.
    auto q = Queue(absl::StrCat("-t PD,CF,R,CG -j ", array_id));
    const int running = CountState(q, "RUNNING");
    max_running = std::max(max_running, running);
    seen_running += running;
    return q.empty();
  }));
  EXPECT_LE(max_running, 5);
  EXPECT_GT(seen_running, 0);
  const std::string home = cluster_->dir() + "/home/skiffalice/";
  for (int task = 1; task <= 20; ++task) {
    EXPECT_EQ(ReadFile(absl::StrCat(home, "arr_", array_id, "_", task, ".out")),
              absl::StrCat(array_id, " ", task, " 20\n"))
        << "task " << task;
  }
}

TEST_F(SchedulerTest, AfterOkChainRunsInOrderAndFailedParentNeverSatisfies) {
  const std::string log = cluster_->dir() + "/home/skiffalice/chain.txt";
  CommandResult a =
      cluster_->RunAs("skiffalice", "sbatch -p debug -t 5 --wrap='sleep 2; echo A >> chain.txt'");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const uint64_t a_id = SubmittedJobIds(a.out).at(0);
  CommandResult b = cluster_->RunAs(
      "skiffalice",
      absl::StrCat("sbatch -p debug -t 5 -d afterok:", a_id, " --wrap='echo B >> chain.txt'"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const uint64_t b_id = SubmittedJobIds(b.out).at(0);
  CommandResult c =
      cluster_->RunAs("skiffalice", absl::StrCat("sbatch -p debug -t 5 --dependency=afterok:", b_id,
                                                 " --wrap='echo C >> chain.txt'"));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const uint64_t c_id = SubmittedJobIds(c.out).at(0);
  EXPECT_TRUE(Eventually(30, [&] { return JobField(c_id, "Reason") == "Dependency"; }));
  ASSERT_TRUE(Eventually(60, [&] { return JobField(c_id, "JobState") == "COMPLETED"; }));
  EXPECT_EQ(ReadFile(log), "A\nB\nC\n");

  CommandResult bad = cluster_->RunAs("skiffalice", "sbatch -p debug -t 5 --wrap='exit 3'");
  const uint64_t bad_id = SubmittedJobIds(bad.out).at(0);
  CommandResult after_bad = cluster_->RunAs(
      "skiffalice",
      absl::StrCat("sbatch -p debug -t 5 -d afterok:", bad_id, " --wrap='echo never'"));
  const uint64_t after_id = SubmittedJobIds(after_bad.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] {
    return JobField(after_id, "Reason") == "DependencyNeverSatisfied";
  })) << cluster_->Run(absl::StrCat("scontrol show job ", after_id)).out;
  EXPECT_EQ(JobField(after_id, "Dependency"), absl::StrCat("afterok:", bad_id, "(failed)"));
  EXPECT_EQ(JobField(after_id, "JobState"), "PENDING");
  EXPECT_EQ(cluster_->RunAs("skiffalice", absl::StrCat("scancel ", after_id)).exit_code, 0);

  // A dependency on a job that does not exist is refused at submit.
  CommandResult unknown =
      cluster_->RunAs("skiffalice", "sbatch -p debug -d afterok:999999 --wrap='true'");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("Job dependency problem"), std::string::npos) << unknown.err;
}

TEST_F(SchedulerTest, HighPriorityPartitionPreemptsAndRequeuesBestEffortJobs) {
  std::vector<uint64_t> victims;
  for (int i = 0; i < 2; ++i) {
    CommandResult r =
        cluster_->RunAs("skiffalice", "sbatch -p besteffort --gres=gpu:1 -t 10 --wrap='sleep 300'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    victims.push_back(SubmittedJobIds(r.out).at(0));
  }
  for (uint64_t id : victims) {
    ASSERT_TRUE(Eventually(30, [&] { return JobField(id, "JobState") == "RUNNING"; })) << id;
  }
  CommandResult high = cluster_->Run("sbatch -p high --gres=gpu:2 -t 5 --wrap='sleep 3'");
  ASSERT_EQ(high.exit_code, 0) << high.err;
  const uint64_t high_id = SubmittedJobIds(high.out).at(0);
  ASSERT_TRUE(Eventually(40, [&] {
    const std::string state = JobField(high_id, "JobState");
    return state == "RUNNING" || state == "COMPLETED";
  })) << cluster_->Run("squeue").out;
  for (uint64_t id : victims) {
    // Requeued (not cancelled): pending again or already restarted, with a restart counted.
    EXPECT_TRUE(Eventually(20, [&] { return JobField(id, "Restarts") == "1"; }))
        << cluster_->Run(absl::StrCat("scontrol show job ", id)).out << cluster_->Log("ctld.log");
    const std::string state = JobField(id, "JobState");
    EXPECT_TRUE(state == "PENDING" || state == "RUNNING" || state == "CONFIGURING") << state;
  }
  ASSERT_TRUE(Eventually(30, [&] { return JobField(high_id, "JobState") == "COMPLETED"; }));
  // The best-effort jobs get the GPUs back once the high-priority job is done.
  for (uint64_t id : victims) {
    EXPECT_TRUE(Eventually(30, [&] { return JobField(id, "JobState") == "RUNNING"; })) << id;
  }
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", victims[0], " ", victims[1])).exit_code, 0);
}

// Issue 34 item 5: warned before preemption too. A job preempted from a
// partition with GraceTime=5 gets its own --signal at once and is requeued
// only when the grace is over; and scontrol update TimeLimit= moves the
// time-limit warning with the limit.
TEST_F(SchedulerTest, APreemptedJobHearsItsSignalBeforeItsGraceTimeEnds) {
  const std::string home = absl::StrCat(cluster_->dir(), "/home/skiffalice");
  // The batch shell notes USR1 and keeps running until it is stopped.
  const std::string script =
      "#!/bin/bash\n"
      "trap 'date +%s > usr1.$SLURM_JOB_ID' USR1\n"
      "while true; do sleep 1 & wait; done\n";
  std::ofstream(home + "/checkpointing.sh") << script;
  cluster_->Run("chown skiffalice " + home + "/checkpointing.sh");
  CommandResult r =
      cluster_->RunAs("skiffalice", "sbatch -p graceful -t 10 --signal=B:USR1@30 checkpointing.sh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t victim = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(victim, "JobState") == "RUNNING"; }));

  CommandResult urgent = cluster_->Run("sbatch -p urgent --exclusive -t 5 --wrap 'sleep 1'");
  ASSERT_EQ(urgent.exit_code, 0) << urgent.err;
  const std::string marker = absl::StrCat(home, "/usr1.", victim);
  ASSERT_TRUE(Eventually(30, [&] { return !ReadFile(marker).empty(); }))
      << cluster_->Log("ctld.log");
  EXPECT_TRUE(Eventually(40, [&] { return JobField(victim, "Restarts") == "1"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", victim)).out;
  const std::string log = cluster_->Log("ctld.log");
  EXPECT_TRUE(absl::StrContains(
      log, absl::StrCat("JobId=", victim, " sent signal 10, stopped 5s from now (GraceTime)")))
      << log;
  EXPECT_TRUE(absl::StrContains(log, absl::StrCat("JobId=", victim, " GraceTime over")));
  cluster_->Run(absl::StrCat("scancel ", victim));

  // A 10-minute job warned 50 s before its end, cut to 1 minute: warned 10 s in.
  r = cluster_->RunAs("skiffalice", "sbatch -t 10 --signal=B:USR1@50 checkpointing.sh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t cut = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(cut, "JobState") == "RUNNING"; }));
  ASSERT_EQ(cluster_->Run(absl::StrCat("scontrol update JobId=", cut, " TimeLimit=1")).exit_code,
            0);
  EXPECT_TRUE(Eventually(40, [&] { return !ReadFile(absl::StrCat(home, "/usr1.", cut)).empty(); }))
      << cluster_->Log("ctld.log");
  cluster_->Run(absl::StrCat("scancel ", cut));
}

// Issue 34 item 6: squeue --explain (and scontrol explain job) says why a pending job waits and
// when it would start, naming the job that holds its node.
TEST_F(SchedulerTest, ExplainSaysWhyAJobWaitsAndWhichJobHoldsItsNode) {
  CommandResult r =
      cluster_->RunAs("skiffalice", "sbatch -p graceful --exclusive -t 20 --wrap 'sleep 300'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t holder = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(holder, "JobState") == "RUNNING"; }));
  r = cluster_->RunAs("skiffalice", "sbatch -p graceful --gres=gpu:2 -t 5 -J waiter --wrap true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t waiter = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(waiter, "Reason") == "Resources"; }))
      << cluster_->Run("squeue").out;
  const CommandResult explained =
      cluster_->RunAs("skiffalice", absl::StrCat("squeue --explain ", waiter));
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_TRUE(absl::StartsWith(
      explained.out, absl::StrCat("Job ", waiter,
                                  " (waiter) is pending (Resources): the nodes it could use are "
                                  "busy. It asks for 1 node with 1 CPU, 2 GPUs for 5 minutes in "
                                  "partition graceful. Its nodes are busy: n3 until ")))
      << explained.out;
  EXPECT_TRUE(absl::StrContains(explained.out, absl::StrCat("(job ", holder, ")")))
      << explained.out;
  EXPECT_TRUE(absl::StrContains(explained.out,
                                "If no job ahead of it took them first, it would "
                                "start at "))
      << explained.out;
  // scontrol's form says the same.
  const CommandResult scontrol =
      cluster_->RunAs("skiffalice", absl::StrCat("scontrol explain job ", waiter));
  ASSERT_EQ(scontrol.exit_code, 0) << scontrol.err;
  EXPECT_TRUE(absl::StartsWith(scontrol.out, absl::StrCat("Job ", waiter, " (waiter) is pending")))
      << scontrol.out;
  for (const char* command : {"squeue --explain 999999", "scontrol explain job 999999"}) {
    const CommandResult unknown = cluster_->Run(command);
    EXPECT_EQ(unknown.exit_code, 1) << command;
    EXPECT_EQ(unknown.err, "slurm_load_jobs error: Invalid job id specified\n") << command;
  }
  const CommandResult running = cluster_->Run(absl::StrCat("squeue --explain ", holder));
  EXPECT_TRUE(absl::StrContains(running.out, "is RUNNING, not pending")) << running.out;
  cluster_->Run(absl::StrCat("scancel ", holder, " ", waiter));
}

}  // namespace
}  // namespace skiff::testing
