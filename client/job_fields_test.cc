#include "client/job_fields.h"

#include "gtest/gtest.h"

namespace skiff::client {
namespace {

TEST(JobTresText, CountsPerNodeGresAndGpusOverTheJobsNodes) {
  v1::JobInfo job;
  job.set_num_nodes(2);
  job.set_num_cpus(8);
  job.set_mem_per_node_mb(1024);
  job.mutable_spec()->add_gres("gpu:a100:1");
  job.mutable_spec()->set_gpus_per_node("a100:1");
  job.mutable_spec()->set_gpus("3");
  job.mutable_spec()->set_burst_buffer("#BB_LUA pool=fast capacity=2G");
  // gres/gpu: 1 per node from --gres and 1 from --gpus-per-node on 2 nodes, 3 from -G.
  EXPECT_EQ(JobTresText(job), "cpu=8,mem=2G,node=2,billing=8,bb/lua=2G,gres/gpu=7");
}

TEST(JobTresText, GpusPerTaskCountForEveryTask) {
  v1::JobInfo job;
  job.set_num_cpus(4);
  job.mutable_spec()->set_ntasks(2);
  job.mutable_spec()->set_gpus_per_task("a100:1");
  EXPECT_EQ(JobTresText(job), "cpu=4,node=1,billing=4,gres/gpu=2");
  job.mutable_spec()->set_gpus("4");  // -G gave the total
  EXPECT_EQ(JobTresText(job), "cpu=4,node=1,billing=4,gres/gpu=4");
}

TEST(JobTresText, APendingJobCountsWhatItAsksFor) {
  v1::JobInfo job;
  job.mutable_spec()->set_min_nodes(3);
  job.mutable_spec()->set_mem_per_cpu_mb(100);
  EXPECT_EQ(JobNumNodes(job), 3);
  EXPECT_EQ(JobNumCpus(job), 1);
  EXPECT_EQ(JobTotalMemoryMb(job), 100u);
  EXPECT_EQ(JobTresText(job), "cpu=1,mem=100M,node=3,billing=1");
}

TEST(JobDependencyText, MarksEachJobAndKeepsCtldsMarkedText) {
  v1::JobInfo job;
  EXPECT_EQ(JobDependencyText(job), "(null)");
  job.set_dependency("afterok:1:2");
  EXPECT_EQ(JobDependencyText(job), "afterok:1(unfulfilled),afterok:2(unfulfilled)");
  job.set_dependency("afterany:4?afterok:5");
  job.set_state_reason("DependencyNeverSatisfied");
  EXPECT_EQ(JobDependencyText(job), "afterany:4(failed)?afterok:5(failed)");
  job.set_dependency("afterok:7(failed)");
  EXPECT_EQ(JobDependencyText(job), "afterok:7(failed)");
}

}  // namespace
}  // namespace skiff::client
