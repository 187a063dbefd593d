#include "ctld/core/config_change.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::ctld {
namespace {

bool SameGres(const std::vector<GresCount>& a, const std::vector<GresCount>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].count != b[i].count) {
      return false;
    }
  }
  return true;
}

bool SameNode(const NodeConfig& a, const NodeConfig& b) {
  return a.name == b.name && a.addr == b.addr && a.hostname == b.hostname && a.port == b.port &&
         a.cpus == b.cpus && a.sockets == b.sockets && a.cores_per_socket == b.cores_per_socket &&
         a.threads_per_core == b.threads_per_core && a.real_memory_mb == b.real_memory_mb &&
         a.tmp_disk_mb == b.tmp_disk_mb && a.weight == b.weight && SameGres(a.gres, b.gres) &&
         a.features == b.features;
}

// Puts `field` of `next` back to its running value when it differs.
template <typename T>
void Keep(const char* key, const T& running, T& next, std::vector<std::string>& notes) {
  if (running == next) return;
  notes.push_back(absl::StrCat(key, " changed in skiff.conf: requires restart (ctld keeps ",
                               "its running value until then)"));
  next = running;
}

}  // namespace

ConfigChange PrepareReconfigure(const SkiffConfig& running, SkiffConfig& next,
                                const std::set<std::string>& busy_partitions) {
  ConfigChange change;
  std::vector<std::string> changed_nodes;
  for (const NodeConfig& node : running.nodes) {
    const NodeConfig* now = next.FindNode(node.name);
    if (now == nullptr || !SameNode(node, *now)) changed_nodes.push_back(node.name);
  }
  for (const NodeConfig& node : next.nodes) {
    if (running.FindNode(node.name) == nullptr) changed_nodes.push_back(node.name);
  }
  if (!changed_nodes.empty()) {
    change.refused = absl::FailedPreconditionError(
        absl::StrCat("NodeName definitions changed (", absl::StrJoin(changed_nodes, ","),
                     "): requires restart of ctld; nothing was reconfigured"));
    return change;
  }
  std::vector<std::string> removed;
  for (const std::string& name : busy_partitions) {
    if (running.FindPartition(name) != nullptr && next.FindPartition(name) == nullptr) {
      removed.push_back(name);
    }
  }
  if (!removed.empty()) {
    change.refused = absl::FailedPreconditionError(
        absl::StrCat("PartitionName=", absl::StrJoin(removed, ","),
                     " removed from skiff.conf while jobs are in it; nothing was reconfigured"));
    return change;
  }
  std::vector<std::string>& n = change.notes;
  Keep("ClusterName", running.cluster_name, next.cluster_name, n);
  Keep("SlurmctldHost", running.ctld_host, next.ctld_host, n);
  Keep("SlurmctldAddr", running.ctld_addr, next.ctld_addr, n);
  Keep("SlurmctldPort", running.ctld_port, next.ctld_port, n);
  Keep("SlurmdPort", running.slurmd_port, next.slurmd_port, n);
  Keep("SlurmUser", running.slurm_user, next.slurm_user, n);
  Keep("SkiffOperators", running.operators, next.operators, n);
  Keep("StateSaveLocation", running.state_save_location, next.state_save_location, n);
  Keep("SlurmdSpoolDir", running.slurmd_spool_dir, next.slurmd_spool_dir, n);
  Keep("SlurmctldLogFile", running.ctld_log_file, next.ctld_log_file, n);
  Keep("SlurmctldDebug", running.ctld_debug, next.ctld_debug, n);
  Keep("SlurmctldPidFile", running.ctld_pid_file, next.ctld_pid_file, n);
  Keep("ScriptdSocket", running.scriptd_socket, next.scriptd_socket, n);
  Keep("SlurmdTimeout", running.slurmd_timeout, next.slurmd_timeout, n);
  Keep("HeartbeatInterval", running.heartbeat_interval, next.heartbeat_interval, n);
  Keep("MessageTimeout", running.message_timeout, next.message_timeout, n);
  Keep("AuthType", running.auth_type, next.auth_type, n);
  Keep("AuthInfo", running.auth_socket, next.auth_socket, n);
  Keep("BurstBufferType", running.burst_buffer_type, next.burst_buffer_type, n);
  Keep("GresTypes", running.gres_types, next.gres_types, n);
  Keep("SchedulerParameters", running.scheduler_parameters, next.scheduler_parameters, n);
  Keep("SlurmdParameters", running.slurmd_parameters, next.slurmd_parameters, n);
  Keep("SlurmctldParameters", running.slurmctld_parameters, next.slurmctld_parameters, n);
  Keep("PreemptType", running.preempt_type, next.preempt_type, n);
  Keep("PreemptMode", running.preempt_mode, next.preempt_mode, n);
  Keep("PriorityType", running.priority_type, next.priority_type, n);
  Keep("PriorityDecayHalfLife", running.priority_decay_half_life, next.priority_decay_half_life, n);
  Keep("PriorityMaxAge", running.priority_max_age, next.priority_max_age, n);
  Keep("PriorityWeightAge", running.priority_weight_age, next.priority_weight_age, n);
  Keep("PriorityWeightFairshare", running.priority_weight_fairshare, next.priority_weight_fairshare,
       n);
  Keep("PriorityWeightJobSize", running.priority_weight_job_size, next.priority_weight_job_size, n);
  Keep("PriorityWeightPartition", running.priority_weight_partition, next.priority_weight_partition,
       n);
  Keep("PriorityWeightQOS", running.priority_weight_qos, next.priority_weight_qos, n);
  Keep("PriorityWeightTRES", running.priority_weight_tres, next.priority_weight_tres, n);
  next.priority_tres_weights = running.priority_tres_weights;  // parsed from the text kept
  Keep("FirstJobId", running.first_job_id, next.first_job_id, n);
  return change;
}

}  // namespace skiff::ctld
