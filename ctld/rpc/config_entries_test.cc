#include "ctld/rpc/config_entries.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

// The keys of a real Slurm 22.05 `scontrol show config` with
// PriorityType=priority/basic (/work/shared/reference/scontrol_show_config_full.txt),
// in its order.
const std::vector<std::string> kSlurmKeys = {
    "AccountingStorageBackupHost",
    "AccountingStorageEnforce",
    "AccountingStorageHost",
    "AccountingStorageExternalHost",
    "AccountingStorageParameters",
    "AccountingStoragePort",
    "AccountingStorageTRES",
    "AccountingStorageType",
    "AccountingStorageUser",
    "AccountingStoreFlags",
    "AcctGatherEnergyType",
    "AcctGatherFilesystemType",
    "AcctGatherInterconnectType",
    "AcctGatherNodeFreq",
    "AcctGatherProfileType",
    "AllowSpecResourcesUsage",
    "AuthAltTypes",
    "AuthAltParameters",
    "AuthInfo",
    "AuthType",
    "BatchStartTimeout",
    "BcastExclude",
    "BcastParameters",
    "BOOT_TIME",
    "BurstBufferType",
    "CliFilterPlugins",
    "ClusterName",
    "CommunicationParameters",
    "CompleteWait",
    "CoreSpecPlugin",
    "CpuFreqDef",
    "CpuFreqGovernors",
    "CredType",
    "DebugFlags",
    "DefMemPerNode",  // the reference sets DefMemPerCPU; unset, Slurm names this key
    "DependencyParameters",
    "DisableRootJobs",
    "EioTimeout",
    "EnforcePartLimits",
    "Epilog",
    "EpilogMsgTime",
    "EpilogSlurmctld",
    "ExtSensorsType",
    "ExtSensorsFreq",
    "FederationParameters",
    "FirstJobId",
    "GetEnvTimeout",
    "GresTypes",
    "GpuFreqDef",
    "GroupUpdateForce",
    "GroupUpdateTime",
    "HASH_VAL",
    "HealthCheckInterval",
    "HealthCheckNodeState",
    "HealthCheckProgram",
    "InactiveLimit",
    "InteractiveStepOptions",
    "JobAcctGatherFrequency",
    "JobAcctGatherType",
    "JobAcctGatherParams",
    "JobCompHost",
    "JobCompLoc",
    "JobCompPort",
    "JobCompType",
    "JobCompUser",
    "JobContainerType",
    "JobCredentialPrivateKey",
    "JobCredentialPublicCertificate",
    "JobDefaults",
    "JobFileAppend",
    "JobRequeue",
    "JobSubmitPlugins",
    "KillOnBadExit",
    "KillWait",
    "LaunchParameters",
    "LaunchType",
    "Licenses",
    "LogTimeFormat",
    "MailDomain",
    "MailProg",
    "MaxArraySize",
    "MaxDBDMsgs",
    "MaxJobCount",
    "MaxJobId",
    "MaxMemPerNode",
    "MaxNodeCount",
    "MaxStepCount",
    "MaxTasksPerNode",
    "MCSPlugin",
    "MCSParameters",
    "MessageTimeout",
    "MinJobAge",
    "MpiDefault",
    "MpiParams",
    "MULTIPLE_SLURMD",
    "NEXT_JOB_ID",
    "NodeFeaturesPlugins",
    "OverTimeLimit",
    "PluginDir",
    "PlugStackConfig",
    "PowerParameters",
    "PowerPlugin",
    "PreemptMode",
    "PreemptType",
    "PreemptExemptTime",
    "PrEpParameters",
    "PrEpPlugins",
    "PriorityParameters",
    "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin",
    "PriorityType",
    "PrivateData",
    "ProctrackType",
    "Prolog",
    "PrologEpilogTimeout",
    "PrologSlurmctld",
    "PrologFlags",
    "PropagatePrioProcess",
    "PropagateResourceLimits",
    "PropagateResourceLimitsExcept",
    "RebootProgram",
    "ReconfigFlags",
    "RequeueExit",
    "RequeueExitHold",
    "ResumeFailProgram",
    "ResumeProgram",
    "ResumeRate",
    "ResumeTimeout",
    "ResvEpilog",
    "ResvOverRun",
    "ResvProlog",
    "ReturnToService",
    "RoutePlugin",
    "SchedulerParameters",
    "SchedulerTimeSlice",
    "SchedulerType",
    "ScronParameters",
    "SelectType",
    "SelectTypeParameters",
    "SlurmUser",
    "SlurmctldAddr",
    "SlurmctldDebug",
    "SlurmctldHost[0]",
    "SlurmctldLogFile",
    "SlurmctldPort",
    "SlurmctldSyslogDebug",
    "SlurmctldPrimaryOffProg",
    "SlurmctldPrimaryOnProg",
    "SlurmctldTimeout",
    "SlurmctldParameters",
    "SlurmdDebug",
    "SlurmdLogFile",
    "SlurmdParameters",
    "SlurmdPidFile",
    "SlurmdPort",
    "SlurmdSpoolDir",
    "SlurmdSyslogDebug",
    "SlurmdTimeout",
    "SlurmdUser",
    "SlurmSchedLogFile",
    "SlurmSchedLogLevel",
    "SlurmctldPidFile",
    "SlurmctldPlugstack",
    "SLURM_CONF",
    "SLURM_VERSION",
    "SrunEpilog",
    "SrunPortRange",
    "SrunProlog",
    "StateSaveLocation",
    "SuspendExcNodes",
    "SuspendExcParts",
    "SuspendProgram",
    "SuspendRate",
    "SuspendTime",
    "SuspendTimeout",
    "SwitchParameters",
    "SwitchType",
    "TaskEpilog",
    "TaskPlugin",
    "TaskPluginParam",
    "TaskProlog",
    "TCPTimeout",
    "TmpFS",
    "TopologyParam",
    "TopologyPlugin",
    "TrackWCKey",
    "TreeWidth",
    "UsePam",
    "UnkillableStepProgram",
    "UnkillableStepTimeout",
    "VSizeFactor",
    "WaitTime",
    "X11Parameters",
};

std::vector<std::string> Keys(const SkiffConfig& config) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : ConfigEntries(config, {})) keys.push_back(key);
  return keys;
}

std::string Value(const SkiffConfig& config, const std::string& key) {
  for (const auto& [k, value] : ConfigEntries(config, {})) {
    if (k == key) return value;
  }
  return "<missing>";
}

TEST(ConfigEntriesTest, ListsEverySlurmKeyInSlurmsOrder) {
  SkiffConfig config;
  config.priority_type = "priority/basic";
  EXPECT_EQ(Keys(config), kSlurmKeys);
}

TEST(ConfigEntriesTest, MultifactorAddsItsKeysAroundPriorityType) {
  SkiffConfig config;
  EXPECT_EQ(config.priority_type, "priority/basic") << "Slurm 22.05's default";
  config.priority_type = "priority/multifactor";
  std::vector<std::string> keys = Keys(config);
  EXPECT_EQ(keys.size(), kSlurmKeys.size() + 14);
  auto dampening = std::find(keys.begin(), keys.end(), "FairShareDampeningFactor");
  ASSERT_NE(dampening, keys.end());
  EXPECT_EQ(*(dampening - 1), "ExtSensorsFreq");
  EXPECT_EQ(Value(config, "FairShareDampeningFactor"), "1");
  auto at = std::find(keys.begin(), keys.end(), "PriorityDecayHalfLife");
  ASSERT_NE(at, keys.end());
  EXPECT_EQ(*(at - 1), "PrioritySiteFactorPlugin");
  EXPECT_EQ(*(at + 6), "PriorityType");
  EXPECT_EQ(*(at + 14), "PrivateData");
  EXPECT_EQ(Value(config, "PriorityDecayHalfLife"), "7-00:00:00");
}

TEST(ConfigEntriesTest, UnusedKeysShowSlurmsDefaults) {
  SkiffConfig config;
  EXPECT_EQ(Value(config, "SchedulerTimeSlice"), "30 sec");
  EXPECT_EQ(Value(config, "SchedulerType"), "sched/backfill");
  EXPECT_EQ(Value(config, "MaxJobId"), "67043328");
  EXPECT_EQ(Value(config, "SuspendTime"), "INFINITE");
  EXPECT_EQ(Value(config, "TaskPluginParam"), "(null type)");
  EXPECT_EQ(Value(config, "TaskPlugin"), "task/none");
  EXPECT_EQ(Value(config, "ProctrackType"), "proctrack/pgid");
  config.proctrack_type = "proctrack/cgroup";
  config.task_plugin = "task/cgroup";
  EXPECT_EQ(Value(config, "ProctrackType"), "proctrack/cgroup");
  EXPECT_EQ(Value(config, "TaskPlugin"), "task/cgroup");
}

TEST(ConfigEntriesTest, ConfiguredValuesComeFromTheConfig) {
  SkiffConfig config;
  config.cluster_name = "lab";
  config.kill_wait = 5;
  config.burst_buffer_type = "burst_buffer/lua";
  config.gres_types = {"gpu"};
  ConfigContext context;
  context.next_job_id = 15373;
  context.conf_path = "/etc/skiff/skiff.conf";
  std::map<std::string, std::string> values;
  for (const auto& [k, v] : ConfigEntries(config, context)) values[k] = v;
  EXPECT_EQ(values["ClusterName"], "lab");
  EXPECT_EQ(values["KillWait"], "5 sec");
  EXPECT_EQ(values["NEXT_JOB_ID"], "15373");
  EXPECT_EQ(values["SLURM_CONF"], "/etc/skiff/skiff.conf");
  EXPECT_EQ(values["SlurmUser"], "root(0)");
  EXPECT_EQ(values["AccountingStorageTRES"],
            "cpu,mem,energy,node,billing,fs/disk,vmem,pages,bb/lua,gres/gpu");
}

// Issue 53: the standbys after the first controller, as Slurm lists
// backups; SlurmctldTimeout as configured, the lease's with etcd.
TEST(ConfigEntriesTest, StandbyControllersAndTheirTimeout) {
  SkiffConfig config;
  EXPECT_EQ(Value(config, "SlurmctldTimeout"), "120 sec");
  config.slurmctld_timeout = 60;
  EXPECT_EQ(Value(config, "SlurmctldTimeout"), "60 sec");
  config.slurmctld_timeout = 0;
  config.ctld_host = "head";
  config.ctld_hosts = {{"head", "head"}, {"head2", "10.0.0.2"}};
  config.etcd_endpoints = {"10.0.0.1:2379"};
  EXPECT_EQ(Value(config, "SlurmctldTimeout"), "5 sec");
  std::vector<std::string> keys = Keys(config);
  auto at = std::find(keys.begin(), keys.end(), "SlurmctldHost[0]");
  ASSERT_NE(at, keys.end());
  EXPECT_EQ(*(at + 1), "SlurmctldHost[1]");
  EXPECT_EQ(*(at + 2), "SlurmctldLogFile");
  EXPECT_EQ(Value(config, "SlurmctldHost[1]"), "head2(10.0.0.2)");
}

TEST(ConfigEntriesTest, DefMemPerCpuReplacesDefMemPerNodeWhenSet) {
  SkiffConfig config;
  EXPECT_EQ(Value(config, "DefMemPerNode"), "UNLIMITED");
  EXPECT_EQ(Value(config, "MaxMemPerNode"), "UNLIMITED");
  config.def_mem_per_cpu_mb = 100;
  config.max_mem_per_cpu_mb = 4096;
  std::vector<std::string> keys = Keys(config);
  EXPECT_EQ(Value(config, "DefMemPerCPU"), "100");
  EXPECT_EQ(Value(config, "DefMemPerNode"), "<missing>");
  EXPECT_EQ(Value(config, "MaxMemPerCPU"), "4096");
  EXPECT_EQ(Value(config, "MaxMemPerNode"), "<missing>");
  // In DefMemPerNode's place, as Slurm prints it.
  auto at = std::find(keys.begin(), keys.end(), "DefMemPerCPU");
  ASSERT_NE(at, keys.end());
  EXPECT_EQ(*(at - 1), "DebugFlags");
}

}  // namespace
}  // namespace skiff::ctld
