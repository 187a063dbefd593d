#include "noded/cgroup/cgroup_plan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

SkiffConfig WithCgroups(const std::string& task_plugin = "task/affinity,task/cgroup") {
  SkiffConfig config;
  config.proctrack_type = "proctrack/cgroup";
  config.task_plugin = task_plugin;
  return config;
}

CgroupConfig AllConstrained() {
  CgroupConfig conf;
  conf.constrain_cores = true;
  conf.constrain_ram_space = true;
  conf.constrain_swap_space = true;
  conf.constrain_devices = true;
  conf.allowed_ram_space = 50;
  return conf;
}

TEST(CgroupSettings, DisabledWithoutProctrackCgroupSaysWhy) {
  SkiffConfig config;
  CgroupSettings s = CgroupSettingsFromConfig(config, AllConstrained());
  EXPECT_FALSE(s.enabled);
  EXPECT_THAT(s.disabled_why, HasSubstr("ProctrackType=proctrack/pgid"));
}

TEST(CgroupSettings, DisabledByCgroupPluginDisabled) {
  CgroupConfig conf = AllConstrained();
  conf.plugin = "disabled";
  CgroupSettings s = CgroupSettingsFromConfig(WithCgroups(), conf);
  EXPECT_FALSE(s.enabled);
  EXPECT_THAT(s.disabled_why, HasSubstr("CgroupPlugin=disabled"));
}

TEST(CgroupSettings, ConstraintsNeedTaskCgroup) {
  CgroupSettings tracked = CgroupSettingsFromConfig(WithCgroups("task/affinity"), AllConstrained());
  EXPECT_TRUE(tracked.enabled);
  EXPECT_FALSE(tracked.constrain_cores || tracked.constrain_ram || tracked.constrain_swap ||
               tracked.constrain_devices);
  CgroupSettings confined = CgroupSettingsFromConfig(WithCgroups(), AllConstrained());
  EXPECT_TRUE(confined.constrain_cores && confined.constrain_ram && confined.constrain_swap &&
              confined.constrain_devices);
  EXPECT_EQ(confined.allowed_ram_percent, 50);
}

TEST(CgroupSettings, NoCgroupConfMeansSlurmDefaults) {
  CgroupSettings s = CgroupSettingsFromConfig(WithCgroups(), std::nullopt);
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.mountpoint, "/sys/fs/cgroup");
  EXPECT_FALSE(s.constrain_ram);
  EXPECT_EQ(s.allowed_ram_percent, 100);
}

TEST(CgroupPaths, IncludeNodeName) {
  EXPECT_EQ(NodeCgroupRelPath("n1"), "skiff/n1");
  EXPECT_EQ(JobCgroupRelPath("n1", 42), "skiff/n1/job_42");
}

TEST(MemoryLimits, AllowedRamSpaceIsAPercentOfTheAllocation) {
  CgroupSettings s;
  s.allowed_ram_percent = 150;
  EXPECT_EQ(RamLimitBytes(s, 100), 150ull * 1024 * 1024);
  s.allowed_ram_percent = 100;
  EXPECT_EQ(RamLimitBytes(s, 100), 100ull * 1024 * 1024);
  EXPECT_EQ(RamLimitBytes(s, 0), 0u) << "no --mem: no limit";
}

TEST(MemoryLimits, NeverBelowMinRamSpace) {
  CgroupSettings s;
  s.allowed_ram_percent = 10;
  EXPECT_EQ(RamLimitBytes(s, 100), 30ull * 1024 * 1024);
}

TEST(MemoryLimits, AtMostMaxRamPercentOfTheNode) {
  CgroupSettings s;
  s.allowed_ram_percent = 200;
  s.node_real_memory_mb = 1000;
  s.max_ram_percent = 50;
  EXPECT_EQ(RamLimitBytes(s, 800), 500ull * 1024 * 1024);
  EXPECT_EQ(RamLimitBytes(s, 100), 200ull * 1024 * 1024);
  s.allowed_swap_percent = 100;
  s.max_swap_percent = 10;
  EXPECT_EQ(RamSwapLimitBytes(s, 800), 600ull * 1024 * 1024);
}

TEST(MemoryLimits, SwapAddsAllowedSwapSpace) {
  CgroupSettings s;
  s.allowed_swap_percent = 0;
  EXPECT_EQ(RamSwapLimitBytes(s, 100), 100ull * 1024 * 1024);
  s.allowed_swap_percent = 50;
  EXPECT_EQ(RamSwapLimitBytes(s, 100), 150ull * 1024 * 1024);
  EXPECT_EQ(RamSwapLimitBytes(s, 0), 0u);
}

TEST(ChooseCpuIds, TakesTheLowestFreeIds) {
  EXPECT_THAT(ChooseCpuIds(2, 8, {}), ElementsAre(0, 1));
  EXPECT_THAT(ChooseCpuIds(2, 8, {0, 2}), ElementsAre(1, 3));
  EXPECT_THAT(ChooseCpuIds(3, 4, {1}), ElementsAre(0, 2, 3));
}

TEST(ChooseCpuIds, OverbookedNodeStillGivesCountIds) {
  EXPECT_THAT(ChooseCpuIds(3, 4, {0, 1, 2}), ElementsAre(0, 1, 3));
  EXPECT_THAT(ChooseCpuIds(2, 2, {0, 1}), ElementsAre(0, 1));
}

TEST(ChooseCpuIds, NothingForNoCpus) {
  EXPECT_THAT(ChooseCpuIds(0, 4, {}), IsEmpty());
  EXPECT_THAT(ChooseCpuIds(2, 0, {}), IsEmpty());
}

TEST(MapToHostCpus, WrapsAroundFewerRealCores) {
  EXPECT_THAT(MapToHostCpus({0, 1}, {0, 1, 2, 3}), ElementsAre(0, 1));
  EXPECT_THAT(MapToHostCpus({2, 3}, {0, 1}), ElementsAre(0, 1));
  EXPECT_THAT(MapToHostCpus({0, 2}, {0, 1}), ElementsAre(0));
  EXPECT_THAT(MapToHostCpus({1}, {4, 6}), ElementsAre(6));
  EXPECT_THAT(MapToHostCpus({1}, {}), IsEmpty());
}

TEST(CpuList, FormatsRanges) {
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList({3}), "3");
  EXPECT_EQ(FormatCpuList({5, 0, 1, 2, 2}), "0-2,5");
  EXPECT_EQ(FormatCpuList({0, 2, 4, 5}), "0,2,4-5");
}

TEST(CpuList, ParsesTheKernelsFormat) {
  EXPECT_THAT(*ParseCpuList("0-2,5\n"), ElementsAre(0, 1, 2, 5));
  EXPECT_THAT(*ParseCpuList("\n"), IsEmpty());
  EXPECT_THAT(*ParseCpuList("7"), ElementsAre(7));
  EXPECT_FALSE(ParseCpuList("1-x").ok());
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("a").ok());
}

TEST(Devices, DeniesTheGpusNotAllocated) {
  const std::vector<std::vector<DeviceNumber>> gpus = {
      {{'c', 195, 0}}, {{'c', 195, 1}}, {{'c', 195, 2}}};
  EXPECT_THAT(DeniedDevices(gpus, {1}),
              ElementsAre(DeviceNumber{'c', 195, 0}, DeviceNumber{'c', 195, 2}));
  EXPECT_THAT(DeniedDevices(gpus, {0, 1, 2}), IsEmpty());
  EXPECT_EQ(DeniedDevices(gpus, {}).size(), 3u);
  EXPECT_EQ(DeniedDevices(gpus, {7}).size(), 3u) << "an unknown index allows nothing";
}

TEST(Devices, ADeviceSharedWithAnAllowedGpuStaysAllowed) {
  const std::vector<std::vector<DeviceNumber>> gpus = {{{'c', 1, 7}}, {{'c', 1, 7}}};
  EXPECT_THAT(DeniedDevices(gpus, {0}), IsEmpty());
}

// Two MIG devices of one GPU: each job may open the GPU's file and its own
// two capability devices, never the other device's.
TEST(Devices, AMigDeviceAllowsItsGpuAndItsOwnCapabilitiesOnly) {
  const DeviceNumber gpu{'c', 195, 1};
  const std::vector<std::vector<DeviceNumber>> migs = {{gpu, {'c', 237, 21}, {'c', 237, 22}},
                                                       {gpu, {'c', 237, 30}, {'c', 237, 31}}};
  EXPECT_THAT(DeniedDevices(migs, {0}),
              ElementsAre(DeviceNumber{'c', 237, 30}, DeviceNumber{'c', 237, 31}));
  EXPECT_THAT(DeniedDevices(migs, {1}),
              ElementsAre(DeviceNumber{'c', 237, 21}, DeviceNumber{'c', 237, 22}));
  EXPECT_THAT(DeniedDevices(migs, {}),
              ElementsAre(gpu, DeviceNumber{'c', 237, 21}, DeviceNumber{'c', 237, 22},
                          DeviceNumber{'c', 237, 30}, DeviceNumber{'c', 237, 31}));
}

TEST(Devices, RuleFormat) { EXPECT_EQ(DeviceRule({'c', 195, 3}), "c 195:3 rwm"); }

TEST(OomMessage, IsSlurms) {
  EXPECT_EQ(OomMessage(42, 1),
            "slurmstepd: error: Detected 1 oom_kill event in StepId=42.batch. Some of the step "
            "tasks have been OOM Killed.\n");
  EXPECT_THAT(OomMessage(7, 3), HasSubstr("Detected 3 oom_kill events in StepId=7.batch."));
}

}  // namespace
}  // namespace skiff::noded
