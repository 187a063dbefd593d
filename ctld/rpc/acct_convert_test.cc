#include "ctld/rpc/acct_convert.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

Job Finished(uint64_t id, JobState state) {
  Job job;
  job.id = id;
  job.uid = 1000;
  job.gid = 1000;
  job.user_name = "alice";
  job.group_name = "alice";
  job.name = "train";
  job.account = "research";
  job.qos = "normal";
  job.request.partition = "gpu";
  job.request.mem_per_node_mb = 100;
  job.request.gpus_per_node = 1;
  job.request.time_limit = 600;
  job.state = state;
  job.submit_time = 100;
  job.eligible_time = 100;
  job.start_time = 110;
  job.end_time = 200;
  job.nodes = {"n1"};
  job.cpus_by_node = {1};
  job.mem_by_node_mb = {100};
  job.gpu_indices = {0};
  job.gpus_by_node = {{0}};
  job.launched = true;
  job.work_dir = "/home/alice";
  return job;
}

TEST(AcctConvert, TresStringsAreSortedByNameWithBurstBufferFirst) {
  Job job = Finished(1, JobState::kCompleted);
  job.bb_directives = "#BB_LUA pool=p capacity=2G";
  job.bb_size = 2ull << 30;
  EXPECT_EQ(AcctReqTres(job), "billing=1,cpu=1,gres/gpu=1,mem=100M,node=1");
  EXPECT_EQ(AcctAllocTres(job), "bb/lua=2G,billing=1,cpu=1,gres/gpu=1,mem=100M,node=1");
  job.nodes.clear();
  EXPECT_EQ(AcctAllocTres(job), "");
}

TEST(AcctConvert, CancelledRunningJobHasABatchStepKilledBySigterm) {
  Job job = Finished(15392, JobState::kCancelled);
  job.cancelled_by = 0;
  job.exit_signal = 0;
  v1::AcctJob record = ToAcctJob(job, /*with_steps=*/true, "lab", 300);
  EXPECT_EQ(record.state(), "CANCELLED");
  EXPECT_TRUE(record.cancelled_by_known());
  EXPECT_EQ(record.cancelled_by(), 0u);
  EXPECT_EQ(record.exit_code(), 0);
  EXPECT_EQ(record.exit_signal(), 0);
  ASSERT_EQ(record.steps_size(), 1);
  const v1::AcctStep& batch = record.steps(0);
  EXPECT_EQ(batch.step_id(), "batch");
  EXPECT_EQ(batch.state(), "CANCELLED");
  EXPECT_EQ(batch.exit_signal(), 15);
  EXPECT_EQ(batch.alloc_tres(), "cpu=1,gres/gpu=1,mem=100M,node=1");
  EXPECT_EQ(record.node_list(), "n1");
  EXPECT_EQ(record.work_dir(), "/home/alice");
  EXPECT_EQ(record.cluster(), "lab");
}

TEST(AcctConvert, FailedJobKeepsItsExitCodeOnJobAndBatch) {
  Job job = Finished(15380, JobState::kFailed);
  job.exit_code = 3;
  v1::AcctJob record = ToAcctJob(job, true, "lab", 300);
  EXPECT_EQ(record.state(), "FAILED");
  EXPECT_EQ(record.exit_code(), 3);
  ASSERT_EQ(record.steps_size(), 1);
  EXPECT_EQ(record.steps(0).state(), "FAILED");
  EXPECT_EQ(record.steps(0).exit_code(), 3);
  EXPECT_EQ(ToAcctJob(job, false, "lab", 300).steps_size(), 0);
}

TEST(AcctConvert, NeverLaunchedJobHasNoBatchStepAndRequestedCpus) {
  Job job = Finished(15395, JobState::kCancelled);
  job.launched = false;
  job.nodes.clear();
  job.start_time = 0;
  job.request.ntasks = 2;
  v1::AcctJob record = ToAcctJob(job, true, "lab", 300);
  EXPECT_EQ(record.steps_size(), 0);
  EXPECT_EQ(record.alloc_cpus(), 2);
  EXPECT_EQ(record.node_list(), "");
  EXPECT_FALSE(record.cancelled_by_known());  // no canceller recorded
}

TEST(AcctConvert, CompletingShowsItsFinalStateAndConfiguringShowsRunning) {
  Job job = Finished(3, JobState::kCompleting);
  job.final_state = JobState::kFailed;
  EXPECT_EQ(AcctStateName(job), "FAILED");
  job.state = JobState::kConfiguring;
  EXPECT_EQ(AcctStateName(job), "RUNNING");
}

TEST(AcctConvert, SelectsByIdArrayTaskUserAndWindow) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {}, 1000};
  Job plain = Finished(10, JobState::kCompleted);
  Job task = Finished(12, JobState::kCompleted);
  task.array_job_id = 11;
  task.array_task_id = 3;
  EXPECT_TRUE(AcctSelected(plain, selection));

  v1::AcctJobSelector* selector = request.add_jobs();
  selector->set_job_id(11);
  selector->set_array_task_id(-1);
  EXPECT_FALSE(AcctSelected(plain, selection));
  EXPECT_TRUE(AcctSelected(task, selection));
  selector->set_array_task_id(4);
  EXPECT_FALSE(AcctSelected(task, selection));
  selector->set_array_task_id(3);
  EXPECT_TRUE(AcctSelected(task, selection));
  request.clear_jobs();

  request.add_uids(1001);
  EXPECT_FALSE(AcctSelected(plain, selection));
  request.clear_uids();
  request.add_accounts("RESEARCH");  // any case
  EXPECT_TRUE(AcctSelected(plain, selection));

  request.set_window_start(201);  // ended at 200: before the window
  EXPECT_FALSE(AcctSelected(plain, selection));
  request.set_window_start(150);
  EXPECT_TRUE(AcctSelected(plain, selection));
  selection.window_end = 99;  // submitted at 100: after the window
  EXPECT_FALSE(AcctSelected(plain, selection));
}

TEST(AcctConvert, StatesMatchWhatTheJobWasDuringTheWindow) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {}, 1000};
  Job job = Finished(10, JobState::kCompleted);  // pending 100-110, running 110-200
  request.add_states("RUNNING");
  request.set_window_start(150);
  EXPECT_TRUE(AcctSelected(job, selection));
  request.set_window_start(250);
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("PENDING");
  request.set_window_start(105);
  EXPECT_TRUE(AcctSelected(job, selection));
  request.set_window_start(120);
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("COMPLETED");
  request.set_window_start(0);
  EXPECT_TRUE(AcctSelected(job, selection));
  selection.window_end = 150;  // ended at 200, after the window
  EXPECT_FALSE(AcctSelected(job, selection));
  request.clear_states();
  request.add_states("CANCELLED");
  selection.window_end = 1000;
  EXPECT_FALSE(AcctSelected(job, selection));
}

TEST(AcctConvert, StepSelectorsNameOnlyThoseSteps) {
  v1::GetAccountingRequest request;
  Job job = Finished(10, JobState::kCompleted);
  v1::AcctJobSelector* selector = request.add_jobs();
  selector->set_job_id(10);
  selector->set_array_task_id(-1);
  selector->set_step("batch");
  EXPECT_EQ(AcctSelectedSteps(job, request), std::vector<std::string>{"batch"});
  v1::AcctJobSelector* whole = request.add_jobs();
  whole->set_job_id(10);
  whole->set_array_task_id(-1);
  EXPECT_TRUE(AcctSelectedSteps(job, request).empty());
}

TEST(AcctConvert, NodeFilterMatchesAnyAllocatedNode) {
  v1::GetAccountingRequest request;
  AcctSelection selection{&request, {"n2"}, 1000};
  Job job = Finished(10, JobState::kCompleted);
  EXPECT_FALSE(AcctSelected(job, selection));
  job.nodes = {"n1", "n2"};
  EXPECT_TRUE(AcctSelected(job, selection));
}

}  // namespace
}  // namespace skiff
