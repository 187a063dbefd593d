// The checks SkiffParser runs once every skiff.conf line is read: settings
// weighed against each other (timeouts, preemption, addresses, GresTypes,
// memory defaults) and the partitions completed with the cluster's defaults.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/config/skiff_conf_keys.h"
#include "common/config/skiff_conf_parser.h"

namespace skiff {
namespace config_internal {

absl::Status SkiffParser::Finish() {
  if (config_.ctld_host.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AsAbsl(file_name_),
                     ": SlurmctldHost: missing (name the controller, e.g. SlurmctldHost=head)"));
  }
  if (config_.ctld_addr.empty()) config_.ctld_addr = config_.ctld_host;
  // SlurmctldAddr (or ControlAddr) is where the first controller serves.
  config_.ctld_hosts.front().addr = config_.ctld_addr;
  if (config_.etcd_endpoints.empty() && config_.ctld_hosts.size() > 1) {
    for (size_t i = 1; i < config_.ctld_hosts.size(); ++i) {
      config_.warnings.push_back(absl::StrCat(
          global_.standby_lines[i - 1], ": SlurmctldHost: backup controller \"",
          config_.ctld_hosts[i].name,
          "\" ignored: a standby follows the primary through etcd (name it in EtcdEndpoints=)"));
    }
    config_.ctld_hosts.resize(1);
  }
  for (NodeConfig& node : config_.nodes) {
    if (node.port == 0) node.port = config_.slurmd_port;
  }
  const int tls_files = !config_.etcd_ca_file.empty() + !config_.etcd_cert_file.empty() +
                        !config_.etcd_key_file.empty();
  if (tls_files != 0 && tls_files != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        AsAbsl(file_name_),
        ": EtcdCAFile, EtcdCertFile, EtcdKeyFile: set all three (TLS to etcd) or none"));
  }
  absl::Status status = CheckNodeTimeouts();
  if (status.ok()) status = CheckPreemption();
  if (status.ok()) status = CheckNodeAddresses();
  if (status.ok()) status = CheckGresTypes();
  if (!status.ok()) return status;
  WarnMixedGpuTypes();
  return FinishPartitions();
}

// "HeartbeatInterval=30", with " (the default)" when the file does not set it.
std::string SkiffParser::Described(std::string_view key, int64_t value) const {
  return absl::StrCat(AsAbsl(key), "=", value,
                      GlobalKeyLine(key) == nullptr ? " (the default)" : "");
}

// ctld marks a node DOWN once it has been silent for SlurmdTimeout, and noded
// speaks every HeartbeatInterval: a timeout that is not longer than the interval
// takes every healthy node DOWN between two heartbeats.
absl::Status SkiffParser::CheckNodeTimeouts() {
  const int64_t timeout = config_.slurmd_timeout;
  const int64_t heartbeat = config_.heartbeat_interval;
  const LogicalLine* timeout_line = GlobalKeyLine("SlurmdTimeout");
  const LogicalLine* heartbeat_line = GlobalKeyLine("HeartbeatInterval");
  if (timeout == 0) {
    return LineError(*timeout_line, WrittenKey(*timeout_line, "SlurmdTimeout"),
                     absl::StrCat("0 (Slurm's \"never mark silent nodes DOWN\") is not "
                                  "supported by Skiff; give a timeout greater than ",
                                  Described("HeartbeatInterval", heartbeat)));
  }
  if (timeout <= heartbeat) {
    const std::string what = absl::StrCat("SlurmdTimeout=", timeout,
                                          " must be greater than HeartbeatInterval=", heartbeat,
                                          " (nodes would be marked DOWN between heartbeats); ");
    if (timeout_line != nullptr) {
      return LineError(*timeout_line, WrittenKey(*timeout_line, "SlurmdTimeout"),
                       absl::StrCat(what, "raise SlurmdTimeout or lower HeartbeatInterval"));
    }
    return LineError(*heartbeat_line, WrittenKey(*heartbeat_line, "HeartbeatInterval"),
                     absl::StrCat(what, "lower HeartbeatInterval or set a larger SlurmdTimeout",
                                  " (the default is ", timeout, ")"));
  }
  if (timeout <= 2 * heartbeat) {
    const LogicalLine& line = timeout_line != nullptr ? *timeout_line : *heartbeat_line;
    config_.warnings.push_back(LineWarning(
        line, WrittenKey(line, timeout_line != nullptr ? "SlurmdTimeout" : "HeartbeatInterval"),
        absl::StrCat(Described("SlurmdTimeout", timeout), " is at most twice ",
                     Described("HeartbeatInterval", heartbeat),
                     ": one missed heartbeat marks a node DOWN")));
  }
  return absl::OkStatus();
}

// Slurm's own checks (read_config.c): preemption needs both a PreemptType and a
// PreemptMode, and cluster-wide SUSPEND needs GANG.
absl::Status SkiffParser::CheckPreemption() {
  const std::string mode = PreemptModeBase(config_.preempt_mode);
  const LogicalLine* mode_line = GlobalKeyLine("PreemptMode");
  const LogicalLine* type_line = GlobalKeyLine("PreemptType");
  if (config_.preempt_mode == "SUSPEND") {
    return LineError(*mode_line, WrittenKey(*mode_line, "PreemptMode"),
                     "SUSPEND requires GANG too (write PreemptMode=SUSPEND,GANG)");
  }
  if (config_.preempt_type == "preempt/none" && mode != "OFF") {
    return LineError(*mode_line, WrittenKey(*mode_line, "PreemptMode"),
                     absl::StrCat(mode,
                                  " needs PreemptType=preempt/partition_prio or preempt/qos "
                                  "(PreemptType is preempt/none",
                                  type_line != nullptr ? "" : ", the default",
                                  "); set one, or write PreemptMode=OFF"));
  }
  if (config_.preempt_type != "preempt/none" && mode == "OFF") {
    return LineError(*type_line, WrittenKey(*type_line, "PreemptType"),
                     absl::StrCat(config_.preempt_type, " needs PreemptMode=CANCEL, REQUEUE or ",
                                  "SUSPEND,GANG (PreemptMode is ", config_.preempt_mode,
                                  mode_line != nullptr ? "" : ", the default", ")"));
  }
  if (mode_line != nullptr) WarnIfSuspend(*mode_line, config_.preempt_mode, "");
  return absl::OkStatus();
}

// Each noded listens on its NodeAddr:Port, and ctld on SlurmctldAddr:SlurmctldPort;
// two daemons cannot share one.
absl::Status SkiffParser::CheckNodeAddresses() const {
  std::map<std::string, size_t> users;  // "addr:port" -> node index
  for (size_t i = 0; i < config_.nodes.size(); ++i) {
    const NodeConfig& node = config_.nodes[i];
    const LogicalLine& line = lines_[node_line_index_[i]];
    std::string key = "NodeName";
    for (std::string_view written : {"NodeAddr", "Port"}) {
      for (const config_internal::KeyValue& pair : line.pairs) {
        if (EqualsIgnoreCase(pair.key, written)) key = pair.key;
      }
    }
    const std::string address = absl::StrCat(node.addr, ":", node.port);
    if (node.addr == config_.ctld_addr && node.port == config_.ctld_port) {
      return LineError(line, key,
                       absl::StrCat(address, " is ctld's address (SlurmctldHost, SlurmctldPort)",
                                    "; give NodeName=", node.name, " another Port="));
    }
    auto [it, inserted] = users.emplace(address, i);
    if (inserted) continue;
    const NodeConfig& first = config_.nodes[it->second];
    const LogicalLine& first_line = lines_[node_line_index_[it->second]];
    return LineError(
        line, key,
        absl::StrCat(address, " is already NodeName=", first.name, "'s (", first_line.file, ":",
                     first_line.line,
                     "); nodes on one address need their own Port= (NodeName=", node.name, ")"));
  }
  return absl::OkStatus();
}

absl::Status SkiffParser::CheckGresTypes() const {
  for (size_t i = 0; i < config_.nodes.size(); ++i) {
    bool shard = false, mps = false, gpu = false;
    for (const GresCount& gres : config_.nodes[i].gres) {
      shard |= EqualsIgnoreCase(gres.name, "shard");
      mps |= EqualsIgnoreCase(gres.name, "mps");
      gpu |= EqualsIgnoreCase(gres.name, "gpu") && gres.count > 0;
      if (IsKnownGres(gres.name)) continue;
      const LogicalLine& line = lines_[node_line_index_[i]];
      return LineError(line, WrittenKey(line, "Gres"),
                       absl::StrCat(Quoted(gres.name), " is not in GresTypes (NodeName=",
                                    line.pairs.front().value, ")"));
    }
    // Shards and MPS share a node's GPUs: one way a node (Slurm keeps one
    // shared gres a GPU), and only with GPUs to share.
    const LogicalLine& line = lines_[node_line_index_[i]];
    if (shard && mps) {
      return LineError(
          line, WrittenKey(line, "Gres"),
          absl::StrCat("shard and mps on one node (NodeName=", line.pairs.front().value,
                       "): a node shares its GPUs one way; choose one"));
    }
    if ((shard || mps) && !gpu) {
      return LineError(line, WrittenKey(line, "Gres"),
                       absl::StrCat(shard ? "shard" : "mps", " without gpu (NodeName=",
                                    line.pairs.front().value, "): they share the node's GPUs"));
    }
  }
  return absl::OkStatus();
}

// Slurm counts a node's GPUs per type (gpu:a100:1,gpu:a100_3g.20gb:2: a
// whole GPU beside MIG devices); ctld keeps one GPU type per node so far, the
// last one given, so such a node is scheduled as that many GPUs of that type.
// Said once, where the node is defined, rather than left to surprise.
void SkiffParser::WarnMixedGpuTypes() {
  for (size_t i = 0; i < config_.nodes.size(); ++i) {
    std::vector<std::string> types;
    int64_t count = 0;
    for (const GresCount& gres : config_.nodes[i].gres) {
      if (!EqualsIgnoreCase(gres.name, "gpu")) continue;
      count += gres.count;
      const std::string type = gres.type.empty() ? "(untyped)" : gres.type;
      if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
    }
    if (types.size() < 2) continue;
    const LogicalLine& line = lines_[node_line_index_[i]];
    config_.warnings.push_back(LineWarning(
        line, WrittenKey(line, "Gres"),
        absl::StrCat("GPUs of ", types.size(), " types (", absl::StrJoin(types, ", "),
                     ") on NodeName=", line.pairs.front().value,
                     ": Skiff schedules a node's GPUs as one type for now, so these are ", count,
                     " GPUs of type ", types.back(), " (docs/compatibility.md)")));
  }
}

bool SkiffParser::IsKnownGres(std::string_view name) const {
  if (EqualsIgnoreCase(name, "gpu")) return true;
  for (const std::string& type : config_.gres_types) {
    if (EqualsIgnoreCase(type, name)) return true;
  }
  return false;
}

std::string SkiffParser::MemoryLimitsClash(uint64_t default_mb, uint64_t max_mb) {
  return absl::StrCat("DefMemPerCPU=", default_mb, " exceeds MaxMemPerCPU=", max_mb,
                      " (MiB); the default must fit under the limit");
}

// DefMemPerCPU above MaxMemPerCPU: reported where the partition sets one of them,
// else where the cluster-wide value is set.
absl::Status SkiffParser::CheckMemoryDefaults(const LogicalLine& line,
                                              const PartitionConfig& partition) {
  const uint64_t default_mb = partition.def_mem_per_cpu_mb;
  const uint64_t max_mb = partition.max_mem_per_cpu_mb;
  if (max_mb == 0 || default_mb <= max_mb) return absl::OkStatus();
  const std::string suffix = absl::StrCat(" (PartitionName=", partition.name, ")");
  for (std::string_view key : {"DefMemPerCPU", "MaxMemPerCPU"}) {
    for (const config_internal::KeyValue& pair : line.pairs) {
      if (EqualsIgnoreCase(pair.key, key)) {
        return LineError(line, pair.key, MemoryLimitsClash(default_mb, max_mb) + suffix);
      }
    }
  }
  for (std::string_view key : {"DefMemPerCPU", "MaxMemPerCPU"}) {
    if (const LogicalLine* global = GlobalKeyLine(key)) {
      return LineError(*global, WrittenKey(*global, key),
                       MemoryLimitsClash(default_mb, max_mb) + suffix);
    }
  }
  return LineError(line, "DefMemPerCPU", MemoryLimitsClash(default_mb, max_mb) + suffix);
}

// Slurm keeps partition nodes in a bitmap, so a name listed twice counts once;
// so it does here, with a warning (it is usually an overlapping range).
void SkiffParser::DropRepeatedNodes(const LogicalLine& line, PartitionConfig& partition) {
  std::set<std::string> seen;
  std::vector<std::string> unique;
  for (std::string& name : partition.nodes) {
    if (seen.insert(name).second) {
      unique.push_back(std::move(name));
      continue;
    }
    config_.warnings.push_back(LineWarning(
        line, WrittenKey(line, "Nodes"),
        absl::StrCat(Quoted(name), " is listed more than once; counted once (PartitionName=",
                     partition.name, ")")));
  }
  partition.nodes = std::move(unique);
}

absl::Status SkiffParser::FinishPartitions() {
  config_.def_mem_per_cpu_mb = global_.def_mem_per_cpu_mb;
  config_.max_mem_per_cpu_mb = global_.max_mem_per_cpu_mb;
  if (global_.max_mem_per_cpu_mb != 0 && global_.def_mem_per_cpu_mb > global_.max_mem_per_cpu_mb) {
    const LogicalLine& line = *GlobalKeyLine("DefMemPerCPU");
    return LineError(line, WrittenKey(line, "DefMemPerCPU"),
                     MemoryLimitsClash(global_.def_mem_per_cpu_mb, global_.max_mem_per_cpu_mb));
  }
  for (size_t i = 0; i < config_.partitions.size(); ++i) {
    PartitionConfig& partition = config_.partitions[i];
    const PartitionOrigin& origin = partition_origins_[i];
    const LogicalLine& line = lines_[origin.line_index];
    if (origin.all_nodes) {
      partition.nodes.clear();
      for (const NodeConfig& node : config_.nodes) partition.nodes.push_back(node.name);
    }
    for (const std::string& name : partition.nodes) {
      if (node_lines_by_name_.count(name) == 0) {
        return LineError(
            line, WrittenKey(line, "Nodes"),
            absl::StrCat("unknown node ", Quoted(name), " (PartitionName=", partition.name, ")"));
      }
    }
    if (!origin.preempt_mode_set) partition.preempt_mode = config_.preempt_mode;
    if (partition.def_mem_per_cpu_mb == 0) {
      partition.def_mem_per_cpu_mb = global_.def_mem_per_cpu_mb;
    }
    if (partition.max_mem_per_cpu_mb == 0) {
      partition.max_mem_per_cpu_mb = global_.max_mem_per_cpu_mb;
    }
    if (absl::Status status = CheckMemoryDefaults(line, partition); !status.ok()) return status;
    DropRepeatedNodes(line, partition);
  }
  return absl::OkStatus();
}

}  // namespace config_internal
}  // namespace skiff
