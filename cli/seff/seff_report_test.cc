#include "cli/seff/seff_report.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

v1::AcctJob FinishedJob() {
  v1::AcctJob job;
  job.set_job_id(42);
  job.set_cluster("lab");
  job.set_user("alice");
  job.set_group("staff");
  job.set_state("COMPLETED");
  job.set_alloc_cpus(4);
  job.set_alloc_nodes(1);
  job.set_req_mem_mb(1000);
  job.set_start_time(1000);
  job.set_end_time(1000 + 3600);
  v1::AcctStep* batch = job.add_steps();
  batch->set_step_id("batch");
  batch->set_ntasks(1);
  batch->set_has_usage(true);
  batch->set_user_cpu_usec(3000 * 1000000LL + 600000);
  batch->set_system_cpu_usec(600 * 1000000LL);
  batch->set_max_rss_kb(512 * 1024);
  return job;
}

TEST(SeffReport, PrintsSlurmsCpuAndMemoryLinesForAJobWithoutGpus) {
  EXPECT_EQ(SeffReport(FinishedJob(), 0, false),
            "Job ID: 42\n"
            "Cluster: lab\n"
            "User/Group: alice/staff\n"
            "State: COMPLETED (exit code 0)\n"
            "Nodes: 1\n"
            "Cores per node: 4\n"
            "CPU Utilized: 01:00:01\n"
            "CPU Efficiency: 25.01% of 04:00:00 core-walltime\n"
            "Job Wall-clock time: 01:00:00\n"
            "Memory Utilized: 512.00 MB\n"
            "Memory Efficiency: 51.20% of 1000.00 MB\n");
}

TEST(SeffReport, AddsEachSampledGpuAndTheGpuHours) {
  v1::AcctJob job = FinishedJob();
  job.set_alloc_tres("billing=4,cpu=4,gres/gpu=2,mem=1000M,node=1");
  v1::GpuUsage* gpu = job.add_gpus();
  gpu->set_node("n3");
  gpu->set_index(0);
  gpu->set_samples(4);
  gpu->set_util_sum(300);
  gpu->set_util_max(90);
  gpu->set_memory_samples(4);
  gpu->set_memory_max_bytes(2ull << 30);
  gpu->set_memory_total_bytes(40ull << 30);
  gpu->set_energy_mj(720000000);
  gpu = job.add_gpus();
  gpu->set_node("n3");
  gpu->set_index(1);
  gpu->set_samples(4);
  const std::string report = SeffReport(job, 0, false);
  EXPECT_NE(report.find("Memory Efficiency: 51.20% of 1000.00 MB\n"
                        "GPUs: 2\n"
                        "GPU 0 on n3: utilisation 75.00% average, 90% peak; "
                        "memory 2.00 GB peak of 40.00 GB (5.00%)\n"
                        "GPU 1 on n3: utilisation 0.00% average, 0% peak\n"
                        "GPU-hours: 0.75 used of 2.00 held (37.50%)\n"
                        "GPU energy: 720000 J\n"),
            std::string::npos)
      << report;
}

TEST(SeffReport, SaysWhenAGpuJobsGpusWereNotSampled) {
  v1::AcctJob job = FinishedJob();
  job.set_alloc_tres("cpu=4,gres/gpu=1,node=1");
  EXPECT_NE(SeffReport(job, 0, false).find("GPUs: 1\nGPU usage: not sampled"), std::string::npos);
}

TEST(SeffReport, PendingRunningAndArrayJobsAsSeffPrintsThem) {
  v1::AcctJob job = FinishedJob();
  job.set_state("PENDING");
  job.set_alloc_cpus(1);
  job.set_array_job_id(40);
  job.set_array_task_id(2);
  EXPECT_EQ(SeffReport(job, 0, false),
            "Job ID: 42\n"
            "Array Job ID: 40_2\n"
            "Cluster: lab\n"
            "User/Group: alice/staff\n"
            "State: PENDING\n"
            "Cores: 1\n"
            "Efficiency not available for jobs in the PENDING state.\n");
  job.set_state("RUNNING");
  job.set_end_time(0);
  const std::string running = SeffReport(job, 1000 + 90000, false);
  EXPECT_NE(running.find("Job Wall-clock time: 1-01:00:00\n"), std::string::npos) << running;
  EXPECT_NE(running.find("WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n"),
            std::string::npos);
}

TEST(SeffReport, SizesAndTimesAsSeffWritesThem) {
  EXPECT_EQ(SeffKbytes(0), "0.00 MB");
  EXPECT_EQ(SeffKbytes(512), "512.00 KB");
  EXPECT_EQ(SeffKbytes(1536 * 1024), "1.50 GB");
  EXPECT_EQ(SeffTime(59), "00:00:59");
  EXPECT_EQ(SeffTime(86400 + 3661), "1-01:01:01");
}

}  // namespace
}  // namespace skiff::cli
