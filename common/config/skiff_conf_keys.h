// skiff.conf's three kinds of line as their key tables fill them (NodeName,
// PartitionName, the cluster-wide keys) and the tables themselves. Internal to
// //common/config: the parser (skiff_conf_parser.h) and SetPartitionKey read them.
#ifndef SKIFF_COMMON_CONFIG_SKIFF_CONF_KEYS_H_
#define SKIFF_COMMON_CONFIG_SKIFF_CONF_KEYS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"

namespace skiff {
namespace config_internal {

// One NodeName line before it is expanded into nodes. NodeName=DEFAULT lines
// build the template every later line starts from.
struct NodeLine {
  NodeConfig node;
  std::string names;      // NodeName= as written
  std::string addrs;      // NodeAddr= as written, "" = the names
  std::string hostnames;  // NodeHostname= as written, "" = the names
  bool cpus_set = false;  // else CPUs = Sockets * CoresPerSocket * ThreadsPerCore
};

// The NodeName line's keys (skiff_conf_nodes.cc).
const KeyTable<NodeLine>& NodeKeys();

// One PartitionName line before it is checked against the others.
struct PartitionLine {
  PartitionConfig partition;
  bool all_nodes = false;         // Nodes=ALL, resolved once every node is known
  bool preempt_mode_set = false;  // else the cluster's PreemptMode applies
};

// The PartitionName line's keys (skiff_conf_partitions.cc).
const KeyTable<PartitionLine>& PartitionKeys();

// PreemptMode is one mode (OFF, CANCEL, REQUEUE, SUSPEND) plus optional GANG and
// WITHIN: "SUSPEND,GANG" is valid Slurm, "CANCEL,REQUEUE" is not. The mode is
// stored first ("GANG,REQUEUE" becomes "REQUEUE,GANG") because readers take the
// first component as the mode.
absl::Status SetPreemptMode(std::string_view value, std::string& out);

// The mode part of a stored PreemptMode: "REQUEUE" for "REQUEUE,GANG", "OFF" for
// "GANG" alone.
std::string PreemptModeBase(const std::string& stored);

// What the cluster-wide keys set, and what the parser keeps of them for later.
struct GlobalState {
  SkiffConfig& config;
  std::vector<std::string>& warnings;
  const LogicalLine* line = nullptr;  // the line being applied, for warnings
  // Canonical key -> the last line that set it, for errors that weigh one key
  // against another once the whole file is read.
  std::map<std::string, const LogicalLine*> key_lines{};
  bool ctld_host_set = false;
  // "file:line" of each later SlurmctldHost line (a standby's), for the
  // warning when no EtcdEndpoints keeps them.
  std::vector<std::string> standby_lines{};
  // Cluster-wide defaults for partitions that do not set their own.
  uint64_t def_mem_per_cpu_mb = 0;
  uint64_t max_mem_per_cpu_mb = 0;
};

// The cluster-wide keys (skiff_conf_globals.cc).
const KeyTable<GlobalState>& GlobalKeys();

}  // namespace config_internal
}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_SKIFF_CONF_KEYS_H_
