#include "noded/gpu/gpu_usage.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff::noded {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

GpuReading Reading(unsigned minor, unsigned util, std::vector<GpuProcess> processes,
                   uint64_t energy_mj) {
  GpuReading r;
  r.minor = minor;
  r.util_percent = util;
  r.memory_used_bytes = 9000 * kMiB;  // the device's: not the job's when processes are listed
  r.memory_total_bytes = 40960 * kMiB;
  r.processes = std::move(processes);
  r.energy_mj = energy_mj;
  return r;
}

TEST(GpuUsage, SamplesAddUpUtilisationTheJobsMemoryAndEnergy) {
  const std::map<pid_t, uint64_t> jobs = {{100, 7}, {101, 7}, {200, 8}};
  GpuUse use;
  use.index = 1;
  AddReading(Reading(3, 40, {{100, 1024 * kMiB}, {101, 512 * kMiB}, {200, 4096 * kMiB}}, 5000), 7,
             jobs, &use);
  AddReading(Reading(3, 100, {{100, 2048 * kMiB}}, 65000), 7, jobs, &use);
  EXPECT_EQ(use.index, 1);
  EXPECT_EQ(use.minor, 3u);
  EXPECT_EQ(use.samples, 2);
  EXPECT_EQ(use.util_sum, 140);
  EXPECT_EQ(use.util_max, 100);
  EXPECT_EQ(use.memory_samples, 2);
  EXPECT_EQ(use.memory_sum_mib, 1536u + 2048u);  // job 8's process is not job 7's
  EXPECT_EQ(use.memory_max_bytes, 2048 * kMiB);
  EXPECT_EQ(use.memory_total_bytes, 40960 * kMiB);
  EXPECT_EQ(use.EnergyMj(), 60000u);
}

TEST(GpuUsage, WithoutAProcessListTheGpusUsedMemoryIsTheHoldersAndMissingFiguresAreSkipped) {
  GpuReading r;
  r.minor = 0;
  r.memory_used_bytes = 300 * kMiB;
  GpuUse use;
  AddReading(r, 7, {}, &use);
  EXPECT_EQ(use.samples, 0);  // no utilisation figure
  EXPECT_EQ(use.memory_samples, 1);
  EXPECT_EQ(use.memory_max_bytes, 300 * kMiB);
  EXPECT_EQ(use.EnergyMj(), 0u);  // no counter
  r.error = "nvmlDeviceGetMinorNumber: GPU is lost";
  AddReading(r, 7, {}, &use);
  EXPECT_EQ(use.memory_samples, 1);
}

TEST(GpuUsage, StraysAreProcessesOfNoJobOrOfAJobThatDoesNotHoldTheGpu) {
  const std::vector<GpuReading> readings = {Reading(0, 0, {{100, 1}, {300, 1}}, 0),
                                            Reading(1, 0, {{200, 1}}, 0)};
  const std::map<unsigned, std::vector<uint64_t>> holders = {{0, {7}}};
  const std::map<pid_t, uint64_t> jobs = {{100, 7}, {200, 7}};
  EXPECT_EQ(StrayGpuProcesses(readings, holders, jobs),
            (std::vector<StrayGpuProcess>{{0, 300, 0}, {1, 200, 7}}));
  // Two jobs on MIG devices of GPU 0: each one's processes are its own.
  const std::map<unsigned, std::vector<uint64_t>> mig = {{0, {7, 8}}};
  EXPECT_EQ(StrayGpuProcesses(readings, mig, {{100, 7}, {300, 8}}),
            (std::vector<StrayGpuProcess>{{1, 200, 0}}));
}

TEST(GpuUsage, AProcessIsItsCgroupsJobElseItsEnvironmentsOnlyOnItsOwnNode) {
  EXPECT_EQ(JobOfProcess("n3", "0::/skiff/n3/job_42\n", ""), 42u);
  EXPECT_EQ(JobOfProcess("n3", "4:memory:/skiff/n3/job_42/step_0\n", ""), 42u);
  EXPECT_EQ(JobOfProcess("n3", "0::/skiff/n3/job_42x\n", ""), std::nullopt);
  EXPECT_EQ(JobOfProcess("n3", "0::/skiff/n33/job_42\n", ""), std::nullopt);
  EXPECT_EQ(JobOfProcess("n3", "0::/user.slice\n", std::string("A=1\0SLURM_JOB_ID=9\0", 19)), 9u);
  EXPECT_EQ(JobOfProcess("n3", "0::/user.slice\n", std::string("SLURM_JOB_IDX=9\0", 16)),
            std::nullopt);
}

TEST(GpuUsage, DeviceFilesNameTheirMinor) {
  EXPECT_EQ(DeviceFileMinor("/dev/nvidia3"), 3u);
  EXPECT_EQ(DeviceFileMinor("/tmp/c/dev/n4/nvidia12"), 12u);
  EXPECT_EQ(DeviceFileMinor("/dev/dri/card"), std::nullopt);
}

TEST(GpuUsage, TheJobDirectorysFileRoundTripsAndRefusesGarbage) {
  GpuUse a;
  a.index = 0;
  a.minor = 3;
  a.samples = 4;
  a.util_sum = 170;
  a.util_max = 90;
  a.memory_samples = 4;
  a.memory_sum_mib = 4096;
  a.memory_max_bytes = 2048 * kMiB;
  a.memory_total_bytes = 40960 * kMiB;
  a.energy_first_mj = 10;
  a.energy_last_mj = 99;
  GpuUse b;
  b.index = 1;
  absl::StatusOr<std::vector<GpuUse>> back = ParseGpuUses(FormatGpuUses({a, b}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, (std::vector<GpuUse>{a, b}));
  EXPECT_FALSE(ParseGpuUses("gpu index=x\n").ok());
}

}  // namespace
}  // namespace skiff::noded
