#include "cli/sstat/sstat_format.h"

#include "gtest/gtest.h"

namespace skiff::cli {
namespace {

v1::TaskUsage Task(int id, const std::string& node, double cpu, uint64_t rss, uint64_t read) {
  v1::TaskUsage t;
  t.set_task_id(id);
  t.set_node(node);
  t.set_cpu_seconds(cpu);
  t.set_rss_bytes(rss);
  t.set_max_rss_bytes(rss);
  t.set_vmsize_bytes(rss * 4);
  t.set_max_vmsize_bytes(rss * 4);
  t.set_pages(3);
  t.set_read_bytes(read);
  t.add_pids(100 + id);
  return t;
}

SstatStep TwoTasks() {
  SstatStep step;
  step.id = "42.0";
  step.usage.set_ntasks(2);
  step.usage.set_node_list("n[1-2]");
  *step.usage.add_tasks() = Task(0, "n1", 65.4, 4 * 1024 * 1024, 0);
  *step.usage.add_tasks() = Task(1, "n2", 5, 1236992, 1);
  return step;
}

TEST(SstatSize, SlurmsExactConversion) {
  EXPECT_EQ(SstatSize(0), "0");
  EXPECT_EQ(SstatSize(4194304), "4M");
  EXPECT_EQ(SstatSize(1236992), "1208K");
  EXPECT_EQ(SstatSize(1000), "1000");
  EXPECT_EQ(SstatSize(2715648), "2652K");
  EXPECT_EQ(SstatSize(1.5), "1.50");
}

TEST(SstatCpuTime, SlurmsElapsedForm) {
  EXPECT_EQ(SstatCpuTime(0), "00:00:00");
  EXPECT_EQ(SstatCpuTime(65), "00:01:05");
  EXPECT_EQ(SstatCpuTime(7200), "02:00:00");
  EXPECT_EQ(SstatCpuTime(90000), "1-01:00:00");
}

TEST(FormatSstat, AveragesMaximaAndWhereTheyAre) {
  absl::StatusOr<std::vector<SstatField>> fields = ParseSstatFormat(
      "JobID,NTasks,AveCPU,MinCPU,MinCPUNode,MaxRSS,MaxRSSNode,MaxRSSTask,"
      "AveRSS,MaxDiskRead,Nodelist,Pids");
  ASSERT_TRUE(fields.ok()) << fields.status();
  PrintFieldsLayout parsable;
  parsable.parsable2 = true;
  EXPECT_EQ(FormatSstat({TwoTasks()}, *fields, parsable),
            "JobID|NTasks|AveCPU|MinCPU|MinCPUNode|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|"
            "MaxDiskRead|Nodelist|Pids\n"
            "42.0|2|00:00:35|00:00:05|n2|4M|n1|0|2652K|1.00M|n[1-2]|100,101\n");
}

TEST(FormatSstat, TheBatchStepsSampledGpusAreInputTres) {
  SstatStep batch;
  batch.id = "42.batch";
  batch.usage.set_ntasks(1);
  *batch.usage.add_tasks() = Task(0, "n1", 1, 1024 * 1024, 0);
  v1::GpuUsage* gpu = batch.usage.add_gpus();
  gpu->set_samples(4);
  gpu->set_util_sum(200);
  gpu->set_util_max(90);
  gpu->set_memory_samples(4);
  gpu->set_memory_sum_mib(4096);
  gpu->set_memory_max_bytes(2ull << 30);
  absl::StatusOr<std::vector<SstatField>> fields =
      ParseSstatFormat("TRESUsageInAve,TRESUsageInMax");
  ASSERT_TRUE(fields.ok()) << fields.status();
  PrintFieldsLayout parsable;
  parsable.parsable2 = true;
  parsable.no_header = true;
  EXPECT_EQ(
      FormatSstat({batch}, *fields, parsable),
      "cpu=00:00:01,energy=0,fs/disk=0,gres/gpumem=1G,gres/gpuutil=50,mem=1M,pages=3,vmem=4M|"
      "cpu=00:00:01,energy=0,fs/disk=0,gres/gpumem=2G,gres/gpuutil=90,mem=1M,pages=3,vmem=4M\n");
}

TEST(FormatSstat, FixedWidthColumnsAsSlurm) {
  absl::StatusOr<std::vector<SstatField>> fields = ParseSstatFormat("jobid,maxrss,avecpu%12");
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ(FormatSstat({TwoTasks()}, *fields, {}),
            "JobID            MaxRSS       AveCPU \n"
            "------------ ---------- ------------ \n"
            "42.0                 4M     00:00:35 \n");
}

TEST(ParseSstatFormat, PrefixesAndUnknownFields) {
  absl::StatusOr<std::vector<SstatField>> fields = ParseSstatFormat("maxrssn,tresusageinmaxn");
  ASSERT_TRUE(fields.ok());
  EXPECT_EQ((*fields)[0].name, "MaxRSSNode");
  EXPECT_EQ((*fields)[1].name, "TRESUsageInMaxNode");
  EXPECT_EQ(ParseSstatFormat("bogus").status().message(), "Invalid field requested: \"bogus\"");
  EXPECT_TRUE(ParseSstatFormat(kSstatDefaultFields).ok());
}

}  // namespace
}  // namespace skiff::cli
