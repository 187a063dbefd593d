#include "ctld/rpc/config_entries.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/time_format.h"

namespace skiff {
namespace {

std::string OrNull(const std::string& value) { return value.empty() ? "(null)" : value; }
std::string Seconds(int64_t value) { return absl::StrCat(value, " sec"); }

std::string Map(const std::map<std::string, std::string>& values) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : values) {
    parts.push_back(value.empty() ? key : absl::StrCat(key, "=", value));
  }
  return parts.empty() ? "(null)" : absl::StrJoin(parts, ",");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ConfigEntries(const SkiffConfig& c,
                                                               int64_t boot_time) {
  // Alphabetical like Slurm's listing; only what Skiff implements.
  return {
      {"AuthInfo", c.auth_socket.empty() ? "(null)" : absl::StrCat("socket=", c.auth_socket)},
      {"AuthType", c.auth_type},
      {"BOOT_TIME", FormatTimestamp(boot_time)},
      {"BurstBufferType", OrNull(c.burst_buffer_type)},
      {"ClusterName", c.cluster_name},
      {"DisableRootJobs", c.disable_root_jobs ? "Yes" : "No"},
      {"EpilogSlurmctld", OrNull(c.epilog_ctld)},
      {"FirstJobId", absl::StrCat(c.first_job_id)},
      {"GresTypes", c.gres_types.empty() ? "(null)" : absl::StrJoin(c.gres_types, ",")},
      {"HeartbeatInterval", Seconds(c.heartbeat_interval)},
      {"JobRequeue", c.job_requeue ? "1" : "0"},
      {"KillWait", Seconds(c.kill_wait)},
      {"MailProg", OrNull(c.mail_prog)},
      {"MaxArraySize", absl::StrCat(c.max_array_size)},
      {"MaxJobCount", absl::StrCat(c.max_job_count)},
      {"MessageTimeout", Seconds(c.message_timeout)},
      {"MinJobAge", Seconds(c.min_job_age)},
      {"OverTimeLimit",
       c.over_time_limit < 0 ? "UNLIMITED" : absl::StrCat(c.over_time_limit, " min")},
      {"PreemptMode", c.preempt_mode},
      {"PreemptType", c.preempt_type},
      {"PriorityDecayHalfLife", FormatTimeLimit(c.priority_decay_half_life)},
      {"PriorityMaxAge", FormatTimeLimit(c.priority_max_age)},
      {"PriorityType", c.priority_type},
      {"PriorityWeightAge", absl::StrCat(c.priority_weight_age)},
      {"PriorityWeightFairshare", absl::StrCat(c.priority_weight_fairshare)},
      {"PriorityWeightJobSize", absl::StrCat(c.priority_weight_job_size)},
      {"PriorityWeightPartition", absl::StrCat(c.priority_weight_partition)},
      {"PriorityWeightQOS", absl::StrCat(c.priority_weight_qos)},
      {"PriorityWeightTRES", "(null)"},
      {"PrivateData", c.private_data.empty() ? "none" : absl::StrJoin(c.private_data, ",")},
      {"PrologEpilogTimeout", absl::StrCat(c.prolog_epilog_timeout)},
      {"PrologSlurmctld", OrNull(c.prolog_ctld)},
      {"ReturnToService", absl::StrCat(c.return_to_service)},
      {"SchedulerParameters", Map(c.scheduler_parameters)},
      {"SlurmUser", c.slurm_user},
      {"SlurmctldAddr", OrNull(c.ctld_addr)},
      {"SlurmctldDebug", c.ctld_debug},
      {"SlurmctldHost[0]",
       c.ctld_addr.empty() ? c.ctld_host : absl::StrCat(c.ctld_host, "(", c.ctld_addr, ")")},
      {"SlurmctldLogFile", OrNull(c.ctld_log_file)},
      {"SlurmctldPidFile", OrNull(c.ctld_pid_file)},
      {"SlurmctldPort", absl::StrCat(c.ctld_port)},
      {"SlurmdDebug", c.slurmd_debug},
      {"SlurmdLogFile", OrNull(c.slurmd_log_file)},
      {"SlurmdParameters", Map(c.slurmd_parameters)},
      {"SlurmdPidFile", OrNull(c.slurmd_pid_file)},
      {"SlurmdPort", absl::StrCat(c.slurmd_port)},
      {"SlurmdSpoolDir", c.slurmd_spool_dir},
      {"SlurmdTimeout", Seconds(c.slurmd_timeout)},
      {"StateSaveLocation", c.state_save_location},
  };
}

}  // namespace skiff
