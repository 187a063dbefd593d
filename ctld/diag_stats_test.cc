#include "ctld/diag_stats.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

constexpr int64_t kStart = 1'700'000'000;  // 22:13:20 UTC

TEST(DiagStatsTest, CountsRpcsByTypeAndUserInFirstSeenOrderRootFirst) {
  DiagStats stats(kStart);
  const RpcType info{"REQUEST_JOB_INFO", 2003};
  const RpcType submit{"REQUEST_SUBMIT_BATCH_JOB", 4003};
  stats.RpcStarted();
  stats.RpcFinished(submit, 1001, 300);
  stats.RpcStarted();
  stats.RpcFinished(info, 1001, 100);
  stats.RpcStarted();
  stats.RpcFinished(info, 1002, 50);
  const DiagStats::Snapshot s = stats.Get(kStart + 5);
  EXPECT_EQ(s.req_time, kStart + 5);
  EXPECT_EQ(s.req_time_start, kStart);
  EXPECT_EQ(s.server_thread_count, 0u);
  ASSERT_EQ(s.rpcs_by_type.size(), 2u);
  EXPECT_EQ(s.rpcs_by_type[0].type.name, "REQUEST_SUBMIT_BATCH_JOB");
  EXPECT_EQ(s.rpcs_by_type[0].count, 1u);
  EXPECT_EQ(s.rpcs_by_type[1].type.id, 2003u);
  EXPECT_EQ(s.rpcs_by_type[1].count, 2u);
  EXPECT_EQ(s.rpcs_by_type[1].total_micros, 150u);
  // slurmctld's table keeps root's entry first even before root calls.
  ASSERT_EQ(s.rpcs_by_user.size(), 3u);
  EXPECT_EQ(s.rpcs_by_user[0].uid, 0u);
  EXPECT_EQ(s.rpcs_by_user[0].count, 0u);
  EXPECT_EQ(s.rpcs_by_user[1].uid, 1001u);
  EXPECT_EQ(s.rpcs_by_user[1].count, 2u);
  EXPECT_EQ(s.rpcs_by_user[1].total_micros, 400u);
  EXPECT_EQ(s.rpcs_by_user[2].uid, 1002u);
}

TEST(DiagStatsTest, CallsInProgressAreServerThreadsAndUnauthenticatedOnesAreNotCounted) {
  DiagStats stats(kStart);
  stats.RpcStarted();
  stats.RpcStarted();
  EXPECT_EQ(stats.Get(kStart).server_thread_count, 2u);
  stats.RpcFinished({"REQUEST_PING", 1008}, -1, 10);
  const DiagStats::Snapshot s = stats.Get(kStart);
  EXPECT_EQ(s.server_thread_count, 1u);
  EXPECT_TRUE(s.rpcs_by_type.empty());
}

TEST(DiagStatsTest, CyclesKeepLastMaxSumAndDepth) {
  DiagStats stats(kStart);
  stats.MainCycle(40, 3, 5);
  stats.MainCycle(10, 1, 2);
  stats.BackfillCycle({kStart + 1, 200, 4, 2, 6, 0});
  stats.BackfillCycle({kStart + 2, 100, 2, 1, 3, 0});
  const DiagStats::Snapshot s = stats.Get(kStart + 3);
  EXPECT_EQ(s.schedule_cycle_last, 10u);
  EXPECT_EQ(s.schedule_cycle_max, 40u);
  EXPECT_EQ(s.schedule_cycle_sum, 50u);
  EXPECT_EQ(s.schedule_cycle_counter, 2u);
  EXPECT_EQ(s.schedule_cycle_depth, 4u);
  EXPECT_EQ(s.schedule_queue_len, 2u);
  EXPECT_EQ(s.bf_cycle_counter, 2u);
  EXPECT_EQ(s.bf_cycle_last, 100u);
  EXPECT_EQ(s.bf_cycle_max, 200u);
  EXPECT_EQ(s.bf_cycle_sum, 300u);
  EXPECT_EQ(s.bf_last_depth, 2u);
  EXPECT_EQ(s.bf_last_depth_try, 1u);
  EXPECT_EQ(s.bf_depth_sum, 6u);
  EXPECT_EQ(s.bf_depth_try_sum, 3u);
  EXPECT_EQ(s.bf_queue_len, 3u);
  EXPECT_EQ(s.bf_queue_len_sum, 9u);
  EXPECT_EQ(s.bf_when_last_cycle, kStart + 2);
}

TEST(DiagStatsTest, ResetZeroesCountersAndRpcsButKeepsWhatSlurmKeeps) {
  DiagStats stats(kStart);
  stats.JobsSubmitted(3);
  JobTally tally;
  tally.started = 2;
  tally.backfilled = 1;
  tally.completed = 1;
  tally.canceled = 1;
  tally.failed = 1;
  stats.CountJobs(tally);
  stats.SetJobStates(4, 2, kStart + 1);
  stats.MainCycle(40, 3, 5);
  stats.BackfillCycle({kStart + 1, 200, 4, 2, 6, 0});
  stats.RpcStarted();
  stats.RpcFinished({"REQUEST_PING", 1008}, 1001, 10);
  DiagStats::Snapshot s = stats.Get(kStart + 2);
  EXPECT_EQ(s.jobs_submitted, 3u);
  EXPECT_EQ(s.jobs_started, 2u);
  EXPECT_EQ(s.bf_backfilled_jobs, 1u);
  EXPECT_EQ(s.bf_last_backfilled_jobs, 1u);

  stats.Reset(kStart + 10);
  s = stats.Get(kStart + 11);
  EXPECT_EQ(s.req_time_start, kStart + 10);
  EXPECT_EQ(s.jobs_submitted, 0u);
  EXPECT_EQ(s.jobs_started, 0u);
  EXPECT_EQ(s.jobs_completed, 0u);
  EXPECT_EQ(s.jobs_canceled, 0u);
  EXPECT_EQ(s.jobs_failed, 0u);
  EXPECT_EQ(s.bf_backfilled_jobs, 0u);
  EXPECT_EQ(s.bf_last_backfilled_jobs, 0u);
  EXPECT_EQ(s.schedule_cycle_counter, 0u);
  EXPECT_EQ(s.bf_cycle_counter, 0u);
  EXPECT_TRUE(s.rpcs_by_type.empty());
  ASSERT_EQ(s.rpcs_by_user.size(), 1u);  // root's entry, zeroed
  EXPECT_EQ(s.rpcs_by_user[0].count, 0u);
  // Kept: the last cycle's time and queue, the state counts, backfill's last start.
  EXPECT_EQ(s.schedule_cycle_last, 40u);
  EXPECT_EQ(s.schedule_queue_len, 5u);
  EXPECT_EQ(s.jobs_pending, 4u);
  EXPECT_EQ(s.jobs_running, 2u);
  EXPECT_EQ(s.bf_when_last_cycle, kStart + 1);
}

TEST(DiagStatsTest, DailyResetAtMidnightKeepsRpcsAndBackfilledTotal) {
  DiagStats stats(kStart);
  JobTally tally;
  tally.backfilled = 2;
  stats.CountJobs(tally);
  stats.JobsSubmitted(1);
  stats.RpcStarted();
  stats.RpcFinished({"REQUEST_PING", 1008}, 0, 10);
  const int64_t midnight = kStart - (kStart % 86400) + 86400;
  EXPECT_FALSE(stats.DailyReset(midnight - 1));
  EXPECT_TRUE(stats.DailyReset(midnight + 5));
  EXPECT_FALSE(stats.DailyReset(midnight + 6));
  const DiagStats::Snapshot s = stats.Get(midnight + 6);
  EXPECT_EQ(s.req_time_start, midnight + 5);
  EXPECT_EQ(s.jobs_submitted, 0u);
  EXPECT_EQ(s.bf_backfilled_jobs, 2u);
  EXPECT_EQ(s.bf_last_backfilled_jobs, 0u);
  ASSERT_EQ(s.rpcs_by_type.size(), 1u);
  EXPECT_EQ(s.rpcs_by_user[0].count, 1u);
}

TEST(DiagStatsTest, ScriptCallsAreTimedByNameInFirstSeenOrderAndResetClearsThem) {
  DiagStats stats(1000);
  stats.ScriptFinished("PrologSlurmctld", 3000);
  stats.ScriptFinished("slurm_bb_setup", 40000);
  stats.ScriptFinished("PrologSlurmctld", 5000);
  stats.ScriptFinished("slurm_bb_setup", -7);  // a clock step back counts as 0
  DiagStats::Snapshot s = stats.Get(1001);
  ASSERT_EQ(s.scripts.size(), 2u);
  EXPECT_EQ(s.scripts[0].name, "PrologSlurmctld");
  EXPECT_EQ(s.scripts[0].count, 2u);
  EXPECT_EQ(s.scripts[0].total_micros, 8000u);
  EXPECT_EQ(s.scripts[0].max_micros, 5000u);
  EXPECT_EQ(s.scripts[1].name, "slurm_bb_setup");
  EXPECT_EQ(s.scripts[1].count, 2u);
  EXPECT_EQ(s.scripts[1].total_micros, 40000u);
  stats.Reset(1002);
  EXPECT_TRUE(stats.Get(1003).scripts.empty());
  stats.ScriptFinished("EpilogSlurmctld", 10);
  s = stats.Get(1004);
  ASSERT_EQ(s.scripts.size(), 1u);
  EXPECT_EQ(s.scripts[0].name, "EpilogSlurmctld");
}

TEST(DiagStatsTest, JobOverheadsRunFromAllocationToLaunchAndFromEndToFinalState) {
  DiagStats stats(1000);
  using S = JobState;
  // Job 1: allocated at 100, launched at 350, ended on its node at 1000,
  // completed at 1600. Job 2: allocated, then requeued before its launch.
  stats.JobTransitions({{1, S::kPending, S::kConfiguring}, {2, S::kPending, S::kConfiguring}}, 100);
  stats.JobTransitions({{1, S::kConfiguring, S::kRunning}}, 350);
  stats.JobTransitions({{2, S::kConfiguring, S::kPending}}, 400);
  stats.JobTransitions({{2, S::kConfiguring, S::kRunning}}, 500);  // no start known: not counted
  stats.JobTransitions({{1, S::kRunning, S::kCompleting}}, 1000);
  stats.JobTransitions({{1, S::kCompleting, S::kCompleted}}, 1600);
  // Job 3: cancelled while pending: no overhead at all.
  stats.JobTransitions({{3, S::kPending, S::kCancelled}}, 1700);
  DiagStats::Snapshot s = stats.Get(1001);
  EXPECT_EQ(s.job_start.count, 1u);
  EXPECT_EQ(s.job_start.total_micros, 250u);
  EXPECT_EQ(s.job_start.max_micros, 250u);
  EXPECT_EQ(s.job_end.count, 1u);
  EXPECT_EQ(s.job_end.total_micros, 600u);
  // Job 4: two jobs' ends in one event; the longer is the max.
  stats.JobTransitions({{4, S::kRunning, S::kCompleting}, {5, S::kRunning, S::kCompleting}}, 2000);
  stats.JobTransitions({{4, S::kCompleting, S::kFailed}, {5, S::kCompleting, S::kTimeout}}, 2900);
  s = stats.Get(1002);
  EXPECT_EQ(s.job_end.count, 3u);
  EXPECT_EQ(s.job_end.total_micros, 600u + 900u + 900u);
  EXPECT_EQ(s.job_end.max_micros, 900u);
  stats.Reset(1003);
  s = stats.Get(1004);
  EXPECT_EQ(s.job_start.count, 0u);
  EXPECT_EQ(s.job_end.count, 0u);
}

}  // namespace
}  // namespace skiff::ctld
