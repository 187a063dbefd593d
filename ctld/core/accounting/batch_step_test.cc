#include "ctld/core/accounting/batch_step.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

Job Launched(JobState state) {
  Job job;
  job.id = 7;
  job.state = state;
  job.start_time = 110;
  job.end_time = state == JobState::kRunning ? 0 : 200;
  job.nodes = {"n1", "n2"};
  job.cpus_by_node = {2, 4};
  job.mem_by_node_mb = {100, 100};
  job.gpu_indices = {0};
  return job;
}

TEST(BatchStep, RunsOnTheFirstNodeWithItsShare) {
  const StepRecord batch = BatchStep(Launched(JobState::kRunning), 5);
  EXPECT_EQ(batch.step_id, "batch");
  EXPECT_EQ(batch.name, "batch");
  EXPECT_EQ(batch.state, "RUNNING");
  EXPECT_EQ(batch.node_list, "n1");
  EXPECT_EQ(batch.num_nodes, 1);
  EXPECT_EQ(batch.ntasks, 1);
  EXPECT_EQ(batch.alloc_cpus, 2);
  EXPECT_EQ(batch.alloc_tres, "cpu=2,gres/gpu=1,mem=100M,node=1");
  EXPECT_EQ(batch.suspended, 5);
  EXPECT_FALSE(batch.has_usage);
}

TEST(BatchStep, EndedFromOutsideIsCancelledBySigtermAndOomBySignal125) {
  const StepRecord timeout = BatchStep(Launched(JobState::kTimeout), 0);
  EXPECT_EQ(timeout.state, "CANCELLED");
  EXPECT_EQ(timeout.exit_code, 0);
  EXPECT_EQ(timeout.exit_signal, 15);
  EXPECT_EQ(timeout.end_time, 200);
  const StepRecord oom = BatchStep(Launched(JobState::kOutOfMemory), 0);
  EXPECT_EQ(oom.state, "OUT_OF_MEMORY");
  EXPECT_EQ(oom.exit_signal, 125);
}

TEST(BatchStep, CompletingJobShowsItsComingStateAndMeasuredUsage) {
  Job job = Launched(JobState::kCompleting);
  job.final_state = JobState::kFailed;
  job.exit_code = 3;
  job.batch_usage.measured = true;
  job.batch_usage.user_cpu_usec = 1000;
  job.batch_usage.max_rss_kb = 2048;
  const StepRecord batch = BatchStep(job, 0);
  EXPECT_EQ(batch.state, "FAILED");
  EXPECT_EQ(batch.exit_code, 3);
  EXPECT_TRUE(batch.has_usage);
  EXPECT_EQ(batch.user_cpu_usec, 1000);
  EXPECT_EQ(batch.ave_rss_kb, 2048);  // one task
  EXPECT_EQ(batch.max_rss_node, "n1");
}

}  // namespace
}  // namespace skiff::ctld
