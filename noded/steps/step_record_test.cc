#include "noded/steps/step_record.h"

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

StepGrant TwoNodeGrant() {
  StepGrant grant;
  grant.step_id = 3;
  grant.nodes = {{"n1", "a:1", 4, 1000, {0, 1}}, {"n2", "a:2", 4, 1000, {0}}};
  StepNodeShare first;
  first.node = 0;
  first.task_ids = {0, 1};
  first.cpus = 2;
  first.memory_mb = 512;
  first.gpus = {1};
  StepNodeShare second;
  second.node = 1;
  second.task_ids = {2};
  second.cpus = 1;
  second.memory_mb = 512;
  grant.share.nodes = {first, second};
  return grant;
}

TEST(StepRecordTest, StartNamesTheStepAfterItsCommandAndSumsItsShare) {
  v1::StepRequest request;
  request.add_argv("/usr/bin/hostname");
  request.set_ntasks(3);
  request.set_srun_host("login");
  request.set_srun_pid(77);
  const v1::AcctStep record = StepRecordAtStart(request, TwoNodeGrant(), 1000);
  EXPECT_EQ(record.step_id(), "3");
  EXPECT_EQ(record.name(), "hostname");
  EXPECT_EQ(record.state(), "RUNNING");
  EXPECT_EQ(record.start_time(), 1000);
  EXPECT_EQ(record.end_time(), 0);
  EXPECT_EQ(record.alloc_cpus(), 3);
  EXPECT_EQ(record.num_nodes(), 2);
  EXPECT_EQ(record.node_list(), "n[1-2]");
  EXPECT_EQ(record.ntasks(), 3);
  EXPECT_EQ(record.alloc_tres(), "cpu=3,gres/gpu=1,mem=1G,node=2");
  EXPECT_EQ(record.srun_host(), "login");
  request.set_name("train");
  EXPECT_EQ(StepRecordAtStart(request, TwoNodeGrant(), 1000).name(), "train");
}

TEST(StepRecordTest, EndStateFromTheTasks) {
  v1::AcctStep record;
  record.set_start_time(100);
  StepOutcome ok;
  ok.Add(0, 0, false);
  FinishStepRecord(ok, 150, &record);
  EXPECT_EQ(record.state(), "COMPLETED");
  EXPECT_EQ(record.end_time(), 150);

  StepOutcome bad;
  bad.Add(0, 0, false);
  bad.Add(4, 0, false);
  bad.Add(2, 0, false);
  FinishStepRecord(bad, 150, &record);
  EXPECT_EQ(record.state(), "FAILED");
  EXPECT_EQ(record.exit_code(), 4);

  StepOutcome late;
  late.Add(0, 15, false);
  late.timed_out = true;
  late.cancelled = true;  // a time limit wins over the cancel it causes
  FinishStepRecord(late, 150, &record);
  EXPECT_EQ(record.state(), "TIMEOUT");

  StepOutcome killed;
  killed.Add(0, 9, false);
  killed.cancelled = true;
  FinishStepRecord(killed, 90, &record);
  EXPECT_EQ(record.state(), "CANCELLED");
  EXPECT_EQ(record.exit_signal(), 9);
  EXPECT_EQ(record.end_time(), 100);  // never before its start
}

TEST(StepRecordTest, UsageSumsCpuAndKeepsTheLargestTasksMemory) {
  v1::AcctStep record;
  StepOutcome none;
  none.Add(0, 0, false);
  FinishStepRecord(none, 150, &record);
  EXPECT_FALSE(record.has_usage());  // no task reported usage: not measured
  StepOutcome used;
  used.AddUsage(0, "n1", 1500000, 250000, 2048);
  used.AddUsage(1, "n2", 500000, 250000, 4096);
  used.AddUsage(2, "n2", 0, 0, 0);
  FinishStepRecord(used, 150, &record);
  EXPECT_TRUE(record.has_usage());
  EXPECT_EQ(record.user_cpu_usec(), 2000000);
  EXPECT_EQ(record.system_cpu_usec(), 500000);
  EXPECT_EQ(record.max_rss_kb(), 4096);
  EXPECT_EQ(record.max_rss_node(), "n2");
  EXPECT_EQ(record.max_rss_task(), 1);
  EXPECT_EQ(record.ave_rss_kb(), 2048);
}

}  // namespace
}  // namespace skiff::noded
