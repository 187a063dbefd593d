#include "ctld/rpc/config_entries.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/time_format.h"

namespace skiff::ctld {
namespace {

constexpr char kNull[] = "(null)";

using ConfigPair = std::pair<std::string, std::string>;

std::string OrNull(const std::string& value) { return value.empty() ? kNull : value; }

// AuthAltParameters as Slurm keeps it: the options as written, in one line.
std::string AuthAltParameters(const SkiffConfig& c) {
  std::vector<std::string> parts;
  if (!c.jwt_key.empty()) parts.push_back(absl::StrCat("jwt_key=", c.jwt_key));
  if (c.max_token_lifespan > 0) {
    parts.push_back(absl::StrCat("max_token_lifespan=", c.max_token_lifespan));
  }
  if (c.disable_token_creation) parts.push_back("disable_token_creation");
  return parts.empty() ? kNull : absl::StrJoin(parts, ",");
}
std::string Seconds(int64_t value) { return absl::StrCat(value, " sec"); }

std::string Map(const std::map<std::string, std::string>& values) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : values) {
    parts.push_back(value.empty() ? key : absl::StrCat(key, "=", value));
  }
  return parts.empty() ? kNull : absl::StrJoin(parts, ",");
}

// Slurm's default TRES list, with the burst-buffer plugin's and the
// configured gres (Skiff accounts them all).
std::string AccountingTres(const SkiffConfig& c) {
  std::string tres = "cpu,mem,energy,node,billing,fs/disk,vmem,pages";
  if (c.burst_buffer_type == "burst_buffer/lua") absl::StrAppend(&tres, ",bb/lua");
  std::vector<std::string> gres = c.gres_types;
  if (std::find(gres.begin(), gres.end(), "gpu") == gres.end()) gres.insert(gres.begin(), "gpu");
  for (const std::string& g : gres) absl::StrAppend(&tres, ",gres/", g);
  return tres;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ConfigEntries(const SkiffConfig& c,
                                                               const ConfigContext& context) {
  const std::string slurm_user = absl::StrCat(c.slurm_user, "(", context.slurm_user_uid, ")");
  std::vector<std::pair<std::string, std::string>> e = {
      // Accounting lives in ctld's own database; Skiff enforces associations,
      // QOS and their limits as slurmdbd with these settings does.
      {"AccountingStorageBackupHost", kNull},
      {"AccountingStorageEnforce", EnforcementText(c.accounting_storage_enforce)},
      {"AccountingStorageHost", c.ctld_host},
      {"AccountingStorageExternalHost", kNull},
      {"AccountingStorageParameters", kNull},
      {"AccountingStoragePort", absl::StrCat(c.ctld_port)},
      {"AccountingStorageTRES", AccountingTres(c)},
      {"AccountingStorageType", "accounting_storage/slurmdbd"},
      {"AccountingStorageUser", "N/A"},
      {"AccountingStoreFlags", kNull},
      {"AcctGatherEnergyType", "acct_gather_energy/none"},
      {"AcctGatherFilesystemType", "acct_gather_filesystem/none"},
      {"AcctGatherInterconnectType", "acct_gather_interconnect/none"},
      {"AcctGatherNodeFreq", "0 sec"},
      {"AcctGatherProfileType", "acct_gather_profile/none"},
      {"AllowSpecResourcesUsage", "No"},
      {"AuthAltTypes", c.auth_jwt ? "auth/jwt" : kNull},
      {"AuthAltParameters", AuthAltParameters(c)},
      {"AuthInfo", c.auth_socket.empty() ? kNull : absl::StrCat("socket=", c.auth_socket)},
      {"AuthType", c.auth_type},
      {"BatchStartTimeout", "10 sec"},
      {"BcastExclude", "/lib,/usr/lib,/lib64,/usr/lib64"},
      {"BcastParameters", kNull},
      {"BOOT_TIME", FormatTimestamp(context.boot_time)},
      {"BurstBufferType", OrNull(c.burst_buffer_type)},
      {"CliFilterPlugins", kNull},
      {"ClusterName", c.cluster_name},
      {"CommunicationParameters", kNull},
      {"CompleteWait", "0 sec"},
      {"CoreSpecPlugin", "core_spec/none"},
      {"CpuFreqDef", "Unknown"},
      {"CpuFreqGovernors", "OnDemand,Performance,UserSpace"},
      {"CredType", "cred/munge"},
      {"DebugFlags", kNull},
      // Slurm prints the one that is set: DefMemPerCPU, else DefMemPerNode.
      c.def_mem_per_cpu_mb != 0 ? ConfigPair{"DefMemPerCPU", absl::StrCat(c.def_mem_per_cpu_mb)}
                                : ConfigPair{"DefMemPerNode", "UNLIMITED"},
      {"DependencyParameters", kNull},
      {"DisableRootJobs", c.disable_root_jobs ? "Yes" : "No"},
      {"EioTimeout", "60"},
      {"EnforcePartLimits", "ALL"},  // Skiff refuses over-limit submissions
      {"Epilog", OrNull(c.epilog)},
      {"EpilogMsgTime", "2000 usec"},
      {"EpilogSlurmctld", OrNull(c.epilog_ctld)},
      {"ExtSensorsType", "ext_sensors/none"},
      {"ExtSensorsFreq", "0 sec"},
      {"FederationParameters", kNull},
      {"FirstJobId", absl::StrCat(c.first_job_id)},
      {"GetEnvTimeout", "2 sec"},
      {"GresTypes", c.gres_types.empty() ? kNull : absl::StrJoin(c.gres_types, ",")},
      {"GpuFreqDef", "high,memory=high"},
      {"GroupUpdateForce", "1"},
      {"GroupUpdateTime", "600 sec"},
      {"HASH_VAL", "Match"},
      {"HealthCheckInterval", absl::StrCat(c.health_check_interval, " sec")},
      {"HealthCheckNodeState", c.health_check_node_state},
      {"HealthCheckProgram", OrNull(c.health_check_program)},
      {"InactiveLimit", "0 sec"},
      {"InteractiveStepOptions", "--interactive --preserve-env --pty $SHELL"},
      {"JobAcctGatherFrequency", c.job_acct_gather_frequency_text},
      {"JobAcctGatherType", "jobacct_gather/none"},
      {"JobAcctGatherParams", kNull},
      {"JobCompHost", "localhost"},
      {"JobCompLoc", "/var/log/slurm_jobcomp.log"},
      {"JobCompPort", "0"},
      {"JobCompType", "jobcomp/none"},
      {"JobCompUser", "root"},
      {"JobContainerType", "job_container/none"},
      {"JobCredentialPrivateKey", kNull},
      {"JobCredentialPublicCertificate", kNull},
      {"JobDefaults", kNull},
      {"JobFileAppend", "0"},
      {"JobRequeue", c.job_requeue ? "1" : "0"},
      {"JobSubmitPlugins", kNull},
      {"KillOnBadExit", "0"},
      {"KillWait", Seconds(c.kill_wait)},
      {"LaunchParameters", kNull},
      {"LaunchType", "launch/slurm"},
      {"Licenses", OrNull(c.licenses_text)},
      {"LogTimeFormat", "iso8601_ms"},
      {"MailDomain", kNull},
      // Unset, Skiff sends no mail (docs/compatibility.md), and says so.
      {"MailProg", OrNull(c.mail_prog)},
      {"MaxArraySize", absl::StrCat(c.max_array_size)},
      // Slurm's formula: the most messages slurmctld queues for slurmdbd.
      {"MaxDBDMsgs", absl::StrCat(std::max<int64_t>(
                         10000, c.max_job_count * 2 + static_cast<int64_t>(c.nodes.size()) * 4))},
      {"MaxJobCount", absl::StrCat(c.max_job_count)},
      {"MaxJobId", "67043328"},
      c.max_mem_per_cpu_mb != 0 ? ConfigPair{"MaxMemPerCPU", absl::StrCat(c.max_mem_per_cpu_mb)}
                                : ConfigPair{"MaxMemPerNode", "UNLIMITED"},
      {"MaxNodeCount", absl::StrCat(c.nodes.size())},
      {"MaxStepCount", "40000"},
      {"MaxTasksPerNode", "512"},
      {"MCSPlugin", "mcs/none"},
      {"MCSParameters", kNull},
      {"MessageTimeout", Seconds(c.message_timeout)},
      {"MinJobAge", Seconds(c.min_job_age)},
      {"MpiDefault", "none"},
      {"MpiParams", kNull},
      // Several noded may serve one host (each with its own NodeName and port).
      {"MULTIPLE_SLURMD", "Yes"},
      {"NEXT_JOB_ID", absl::StrCat(context.next_job_id)},
      {"NodeFeaturesPlugins", kNull},
      {"OverTimeLimit",
       c.over_time_limit < 0 ? "UNLIMITED" : absl::StrCat(c.over_time_limit, " min")},
      {"PluginDir", "/usr/lib/x86_64-linux-gnu/slurm-wlm"},
      {"PlugStackConfig", kNull},
      {"PowerParameters", kNull},
      {"PowerPlugin", ""},
      {"PreemptMode", c.preempt_mode},
      {"PreemptType", c.preempt_type},
      {"PreemptExemptTime", "00:00:00"},
      {"PrEpParameters", kNull},
      {"PrEpPlugins", "prep/script"},
      {"PriorityParameters", kNull},
      {"PrioritySiteFactorParameters", kNull},
      {"PrioritySiteFactorPlugin", kNull},
  };
  if (c.priority_type == "priority/basic") {
    e.push_back({"PriorityType", c.priority_type});
  } else {
    // Slurm prints this one only for multifactor, after ExtSensorsFreq.
    auto ext = std::find_if(e.begin(), e.end(),
                            [](const auto& kv) { return kv.first == "ExtSensorsFreq"; });
    e.insert(ext + 1, {"FairShareDampeningFactor", "1"});
    std::vector<std::pair<std::string, std::string>> multifactor = {
        {"PriorityDecayHalfLife", FormatTimeLimit(c.priority_decay_half_life)},
        {"PriorityCalcPeriod", "00:05:00"},
        {"PriorityFavorSmall", "No"},
        {"PriorityFlags", ""},
        {"PriorityMaxAge", FormatTimeLimit(c.priority_max_age)},
        {"PriorityUsageResetPeriod", "NONE"},
        {"PriorityType", c.priority_type},
        {"PriorityWeightAge", absl::StrCat(c.priority_weight_age)},
        {"PriorityWeightAssoc", "0"},
        {"PriorityWeightFairShare", absl::StrCat(c.priority_weight_fairshare)},
        {"PriorityWeightJobSize", absl::StrCat(c.priority_weight_job_size)},
        {"PriorityWeightPartition", absl::StrCat(c.priority_weight_partition)},
        {"PriorityWeightQOS", absl::StrCat(c.priority_weight_qos)},
        {"PriorityWeightTRES", OrNull(c.priority_weight_tres)},
    };
    e.insert(e.end(), multifactor.begin(), multifactor.end());
  }
  std::vector<std::pair<std::string, std::string>> rest = {
      {"PrivateData", PrivateDataText(c.private_data)},
      {"ProctrackType", c.proctrack_type},
      {"Prolog", OrNull(c.prolog)},
      {"PrologEpilogTimeout", absl::StrCat(c.prolog_epilog_timeout)},
      {"PrologSlurmctld", OrNull(c.prolog_ctld)},
      {"PrologFlags", kNull},
      {"PropagatePrioProcess", "0"},
      {"PropagateResourceLimits", "ALL"},
      {"PropagateResourceLimitsExcept", kNull},
      {"RebootProgram", kNull},
      {"ReconfigFlags", kNull},
      {"RequeueExit", kNull},
      {"RequeueExitHold", kNull},
      {"ResumeFailProgram", kNull},
      {"ResumeProgram", kNull},
      {"ResumeRate", "300 nodes/min"},
      {"ResumeTimeout", "60 sec"},
      {"ResvEpilog", kNull},
      {"ResvOverRun", "0 min"},
      {"ResvProlog", kNull},
      {"ReturnToService", absl::StrCat(c.return_to_service)},
      {"RoutePlugin", "route/default"},
      {"SchedulerParameters", Map(c.scheduler_parameters.as_written)},
      {"SchedulerTimeSlice", "30 sec"},
      {"SchedulerType", "sched/backfill"},
      {"ScronParameters", kNull},
      {"SelectType", "select/cons_tres"},
      {"SelectTypeParameters", "CR_CPU_MEMORY"},
      {"SlurmUser", slurm_user},
      // Only when configured: Slurm prints (null) for SlurmctldHost's address.
      {"SlurmctldAddr", OrNull(c.slurmctld_addr)},
      {"SlurmctldDebug", c.ctld_debug},
      {"SlurmctldHost[0]",
       c.ctld_addr.empty() ? c.ctld_host : absl::StrCat(c.ctld_host, "(", c.ctld_addr, ")")},
      {"SlurmctldLogFile", OrNull(c.ctld_log_file)},
      {"SlurmctldPort", absl::StrCat(c.ctld_port)},
      {"SlurmctldSyslogDebug", kNull},
      {"SlurmctldPrimaryOffProg", kNull},
      {"SlurmctldPrimaryOnProg", kNull},
      // With etcd, the serving controller's lease (issue 53); Slurm's default else.
      {"SlurmctldTimeout", absl::StrCat(!c.etcd_endpoints.empty() ? c.ControllerLeaseSeconds()
                                        : c.slurmctld_timeout > 0 ? c.slurmctld_timeout
                                                                  : 120,
                                        " sec")},
      {"SlurmctldParameters", Map(c.slurmctld_parameters.as_written)},
      {"SlurmdDebug", c.slurmd_debug},
      {"SlurmdLogFile", OrNull(c.slurmd_log_file)},
      {"SlurmdParameters", Map(c.slurmd_parameters.as_written)},
      {"SlurmdPidFile", OrNull(c.slurmd_pid_file)},
      {"SlurmdPort", absl::StrCat(c.slurmd_port)},
      {"SlurmdSpoolDir", c.slurmd_spool_dir},
      {"SlurmdSyslogDebug", kNull},
      {"SlurmdTimeout", Seconds(c.slurmd_timeout)},
      {"SlurmdUser", "root(0)"},
      {"SlurmSchedLogFile", kNull},
      {"SlurmSchedLogLevel", "0"},
      {"SlurmctldPidFile", OrNull(c.ctld_pid_file)},
      {"SlurmctldPlugstack", kNull},
      {"SLURM_CONF", context.conf_path},
      {"SLURM_VERSION", "22.05.8"},
      {"SrunEpilog", kNull},
      {"SrunPortRange", "0-0"},
      {"SrunProlog", kNull},
      {"StateSaveLocation", c.state_save_location},
      {"SuspendExcNodes", kNull},
      {"SuspendExcParts", kNull},
      {"SuspendProgram", kNull},
      {"SuspendRate", "60 nodes/min"},
      {"SuspendTime", "INFINITE"},
      {"SuspendTimeout", "30 sec"},
      {"SwitchParameters", kNull},
      {"SwitchType", "switch/none"},
      {"TaskEpilog", OrNull(c.task_epilog)},
      {"TaskPlugin", c.task_plugin.empty() ? "task/none" : c.task_plugin},
      {"TaskPluginParam", "(null type)"},
      {"TaskProlog", OrNull(c.task_prolog)},
      {"TCPTimeout", "2 sec"},
      {"TmpFS", "/tmp"},
      {"TopologyParam", kNull},
      {"TopologyPlugin", "topology/none"},
      {"TrackWCKey", "No"},
      {"TreeWidth", "50"},
      {"UsePam", "No"},
      {"UnkillableStepProgram", kNull},
      {"UnkillableStepTimeout", "60 sec"},
      {"VSizeFactor", "0 percent"},
      {"WaitTime", "0 sec"},
      {"X11Parameters", kNull},
  };
  // The standby controllers (issue 53), after the first, as Slurm lists backups.
  auto first = std::find_if(rest.begin(), rest.end(),
                            [](const auto& entry) { return entry.first == "SlurmctldHost[0]"; });
  std::vector<std::pair<std::string, std::string>> standbys;
  for (size_t i = 1; i < c.ctld_hosts.size(); ++i) {
    const ControllerHost& host = c.ctld_hosts[i];
    standbys.emplace_back(
        absl::StrCat("SlurmctldHost[", i, "]"),
        host.addr == host.name ? host.name : absl::StrCat(host.name, "(", host.addr, ")"));
  }
  if (first != rest.end()) rest.insert(first + 1, standbys.begin(), standbys.end());
  e.insert(e.end(), rest.begin(), rest.end());
  return e;
}

}  // namespace skiff::ctld
