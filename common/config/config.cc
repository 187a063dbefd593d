// ParseSkiffConfig's reading of skiff.conf line by line (SkiffParser's line
// methods) and the rest of config.h's API. The key tables are skiff_conf_*.cc's.
#include "common/config/config.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/kv_parser.h"
#include "common/config/skiff_conf_keys.h"
#include "common/config/skiff_conf_parser.h"
#include "common/time_format.h"

namespace skiff {
namespace config_internal {
namespace {

// More nodes than any real cluster; stops "NodeName=n[1-9999999]" eating memory.
constexpr size_t kMaxNodes = 1 << 18;

// Line kinds that Slurm has but Skiff does not implement: the whole line is
// skipped with one warning.
bool IsUnsupportedLineKind(std::string_view first_key) {
  for (std::string_view kind : {"NodeSet", "DownNodes", "FrontendName", "SwitchName"}) {
    if (EqualsIgnoreCase(first_key, kind)) return true;
  }
  return false;
}

// For a key that belongs on another kind of skiff.conf line, why it is wrong here.
std::string MisplacedReason(std::string_view key, std::string_view line_kind) {
  if (EqualsIgnoreCase(key, "NodeName") || EqualsIgnoreCase(key, "PartitionName")) {
    return "must be the first key on its line";
  }
  std::vector<std::string> homes;
  if (line_kind != "NodeName" && NodeKeys().Find(key) != nullptr) homes.push_back("NodeName");
  if (line_kind != "PartitionName" && PartitionKeys().Find(key) != nullptr) {
    homes.push_back("PartitionName");
  }
  if (line_kind != "global" && GlobalKeys().Find(key) != nullptr) {
    return line_kind == "NodeName" ? "not valid on a NodeName line (it is a cluster-wide key)"
                                   : "not valid on a PartitionName line (it is a cluster-wide key)";
  }
  if (homes.empty()) return "";
  return absl::StrCat("only valid on a ", absl::StrJoin(homes, " or "), " line");
}

}  // namespace

absl::Status SkiffParser::ParseLine(size_t index) {
  const LogicalLine& line = lines_[index];
  const std::string& first = line.pairs.front().key;
  if (EqualsIgnoreCase(first, "NodeName")) return ParseNodeLine(index);
  if (EqualsIgnoreCase(first, "PartitionName")) return ParsePartitionLine(index);
  if (IsUnsupportedLineKind(first) && line.pairs.front().has_equals) {
    config_.warnings.push_back(
        absl::StrCat(line.file, ":", line.line, ": ", first, ": line kind not supported, ignored"));
    return absl::OkStatus();
  }
  global_.line = &line;
  PairContext context{"", &config_.warnings,
                      [](std::string_view key) { return MisplacedReason(key, "global"); }};
  absl::Status status = ApplyPairs(line, GlobalKeys(), context, global_);
  if (!status.ok()) return status;
  for (const config_internal::KeyValue& pair : line.pairs) {
    if (const auto* spec = GlobalKeys().Find(pair.key)) {
      global_.key_lines[std::string(spec->name)] = &line;
    }
  }
  return absl::OkStatus();
}

absl::Status SkiffParser::ParseNodeLine(size_t index) {
  const LogicalLine& line = lines_[index];
  NodeLine parsed = node_defaults_;
  parsed.names.clear();
  PairContext context{absl::StrCat(" (NodeName=", line.pairs.front().value, ")"), &config_.warnings,
                      [](std::string_view key) { return MisplacedReason(key, "NodeName"); }};
  absl::Status status = ApplyPairs(line, NodeKeys(), context, parsed);
  if (!status.ok()) return status;
  if (EqualsIgnoreCase(parsed.names, "DEFAULT")) {
    if (!parsed.addrs.empty() || !parsed.hostnames.empty()) {
      std::string key = WrittenKey(line, parsed.addrs.empty() ? "NodeHostname" : "NodeAddr");
      return LineError(line, key, "not allowed with NodeName=DEFAULT (it names one node)");
    }
    node_defaults_ = std::move(parsed);
    return absl::OkStatus();
  }
  return AddNodes(index, parsed, context.suffix);
}

// NodeAddr/NodeHostname, when given, pair up with the expanded names.
absl::StatusOr<std::vector<std::string>> SkiffParser::ExpandAlongside(
    const LogicalLine& line, std::string_view canonical, const std::string& value,
    const std::vector<std::string>& names, const std::string& suffix) {
  if (value.empty()) return names;
  std::string key = WrittenKey(line, canonical);
  absl::StatusOr<std::vector<std::string>> expanded = Expand(value);
  if (!expanded.ok()) return LineError(line, key, std::string(expanded.status().message()));
  if (expanded->size() != names.size()) {
    return LineError(line, key,
                     absl::StrCat(Quoted(value), " names ", expanded->size(), " hosts for ",
                                  names.size(), " nodes", suffix));
  }
  return expanded;
}

absl::Status SkiffParser::AddNodes(size_t index, const NodeLine& parsed,
                                   const std::string& suffix) {
  const LogicalLine& line = lines_[index];
  std::string name_key = line.pairs.front().key;
  absl::StatusOr<std::vector<std::string>> names = Expand(parsed.names);
  if (!names.ok()) return LineError(line, name_key, std::string(names.status().message()));
  if (config_.nodes.size() + names->size() > kMaxNodes) {
    return LineError(line, name_key, absl::StrCat("more than ", kMaxNodes, " nodes in all"));
  }
  auto addrs = ExpandAlongside(line, "NodeAddr", parsed.addrs, *names, suffix);
  if (!addrs.ok()) return addrs.status();
  auto hostnames = ExpandAlongside(line, "NodeHostname", parsed.hostnames, *names, suffix);
  if (!hostnames.ok()) return hostnames.status();

  NodeConfig node = parsed.node;
  if (!parsed.cpus_set) {
    node.cpus = node.sockets * std::max(node.cores_per_socket, 1) * node.threads_per_core;
  } else {
    WarnIfCpusDisagreeWithTopology(line, node, suffix);
  }
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    auto [it, inserted] = node_lines_by_name_.emplace(name, index);
    if (!inserted) {
      const LogicalLine& first = lines_[it->second];
      return LineError(line, name_key,
                       absl::StrCat("duplicate node ", Quoted(name), " (first defined at ",
                                    first.file, ":", first.line, ")"));
    }
    node.name = name;
    node.addr = (*addrs)[i];
    node.hostname = (*hostnames)[i];
    config_.nodes.push_back(node);
    node_line_index_.push_back(index);
  }
  return absl::OkStatus();
}

// Slurm accepts CPUs equal to Sockets, Sockets*CoresPerSocket or the full
// product, and otherwise logs an error and resets CPUs to the product. Skiff
// keeps the CPUs it is given (a lab may mean it), but says so.
void SkiffParser::WarnIfCpusDisagreeWithTopology(const LogicalLine& line, const NodeConfig& node,
                                                 const std::string& suffix) {
  if (node.cores_per_socket == 0) return;  // no topology given
  const int64_t sockets = node.sockets;
  const int64_t cores = sockets * node.cores_per_socket;
  const int64_t threads = cores * node.threads_per_core;
  if (node.cpus == sockets || node.cpus == cores || node.cpus == threads) return;
  config_.warnings.push_back(LineWarning(
      line, WrittenKey(line, "CPUs"),
      absl::StrCat("CPUs=", node.cpus, " matches none of Sockets (", sockets,
                   "), Sockets*CoresPerSocket (", cores,
                   ") and Sockets*CoresPerSocket*ThreadsPerCore (", threads, "); Skiff uses ",
                   node.cpus, " where Slurm would reset it to ", threads, suffix)));
}

absl::Status SkiffParser::ParsePartitionLine(size_t index) {
  const LogicalLine& line = lines_[index];
  PartitionLine parsed = partition_defaults_;
  parsed.partition.name.clear();
  PairContext context{absl::StrCat(" (PartitionName=", line.pairs.front().value, ")"),
                      &config_.warnings,
                      [](std::string_view key) { return MisplacedReason(key, "PartitionName"); }};
  absl::Status status = ApplyPairs(line, PartitionKeys(), context, parsed);
  if (!status.ok()) return status;
  if (EqualsIgnoreCase(parsed.partition.name, "DEFAULT")) {
    partition_defaults_ = std::move(parsed);
    return absl::OkStatus();
  }
  return AddPartition(index, std::move(parsed), context.suffix);
}

absl::Status SkiffParser::AddPartition(size_t index, PartitionLine parsed,
                                       const std::string& suffix) {
  const LogicalLine& line = lines_[index];
  const PartitionConfig& partition = parsed.partition;
  if (partition.default_time != kInfiniteDuration && partition.max_time != kInfiniteDuration &&
      partition.default_time > partition.max_time) {
    return LineError(line, WrittenKey(line, "DefaultTime"),
                     absl::StrCat("exceeds MaxTime", suffix));
  }
  if (partition.max_nodes != -1 && partition.min_nodes > partition.max_nodes) {
    return LineError(line, WrittenKey(line, "MinNodes"),
                     absl::StrCat(partition.min_nodes, " exceeds MaxNodes=", partition.max_nodes,
                                  " (no job could run here)", suffix));
  }
  // Slurm: "Both AllowAccounts and DenyAccounts are defined, DenyAccounts will be
  // ignored"; likewise for QOS.
  if (!partition.allow_accounts.empty() && !partition.deny_accounts.empty()) {
    config_.warnings.push_back(
        LineWarning(line, WrittenKey(line, "DenyAccounts"),
                    absl::StrCat("ignored because AllowAccounts is also set (keep one)", suffix)));
    parsed.partition.deny_accounts.clear();
  }
  if (!partition.allow_qos.empty() && !partition.deny_qos.empty()) {
    config_.warnings.push_back(
        LineWarning(line, WrittenKey(line, "DenyQos"),
                    absl::StrCat("ignored because AllowQos is also set (keep one)", suffix)));
    parsed.partition.deny_qos.clear();
  }
  if (parsed.preempt_mode_set) WarnIfSuspend(line, partition.preempt_mode, suffix);
  for (size_t i = 0; i < config_.partitions.size(); ++i) {
    const PartitionConfig& other = config_.partitions[i];
    const LogicalLine& other_line = lines_[partition_origins_[i].line_index];
    if (other.name == partition.name) {
      return LineError(
          line, line.pairs.front().key,
          absl::StrCat("duplicate partition ", Quoted(partition.name), " (first defined at ",
                       other_line.file, ":", other_line.line, ")"));
    }
    if (other.is_default && partition.is_default) {
      return LineError(
          line, WrittenKey(line, "Default"),
          absl::StrCat("partition ", Quoted(other.name), " (", other_line.file, ":",
                       other_line.line, ") is already the default; only one may be", suffix));
    }
  }
  partition_origins_.push_back({index, parsed.all_nodes, parsed.preempt_mode_set});
  config_.partitions.push_back(std::move(parsed.partition));
  return absl::OkStatus();
}

// Skiff's scheduler has no suspend: SUSPEND reads as OFF (see ParsePreemptMode in
// ctld), and an admin who asked for it should hear that.
void SkiffParser::WarnIfSuspend(const LogicalLine& line, const std::string& preempt_mode,
                                const std::string& suffix) {
  if (PreemptModeBase(preempt_mode) != "SUSPEND") return;
  config_.warnings.push_back(LineWarning(
      line, WrittenKey(line, "PreemptMode"),
      absl::StrCat("SUSPEND is not implemented by Skiff; jobs are not preempted this way "
                   "(use REQUEUE or CANCEL)",
                   suffix)));
}

}  // namespace config_internal

using config_internal::EqualsIgnoreCase;
using config_internal::LogicalLine;
using config_internal::PartitionKeys;
using config_internal::PartitionLine;

// ---------------------------------------------------------------------------
// Public API.

absl::Status SetPartitionKey(const SkiffConfig& config, std::string_view key,
                             std::string_view value, PartitionConfig& partition) {
  const config_internal::KeySpec<PartitionLine>* spec = PartitionKeys().Find(key);
  if (spec == nullptr || EqualsIgnoreCase(key, "PartitionName")) {
    return absl::NotFoundError(absl::StrCat(std::string(key), ": not a PartitionName key"));
  }
  PartitionLine line;
  line.partition = partition;
  if (absl::Status status = spec->set(value, line); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(spec->name), ": ", status.message()));
  }
  if (line.all_nodes) {
    line.partition.nodes.clear();
    for (const NodeConfig& node : config.nodes) line.partition.nodes.push_back(node.name);
  }
  if (EqualsIgnoreCase(key, "Nodes")) {
    for (const std::string& name : line.partition.nodes) {
      if (config.FindNode(name) == nullptr) {
        return absl::NotFoundError(absl::StrCat("Nodes: node ", name, " is not defined"));
      }
    }
  }
  partition = std::move(line.partition);
  return absl::OkStatus();
}

int64_t SkiffConfig::FenceLeaseSeconds() const {
  const int64_t margin = std::max<int64_t>(2, slurmd_timeout / 5);
  return std::max(slurmd_timeout - margin, heartbeat_interval + 1);
}

int64_t SkiffConfig::ControllerLeaseSeconds() const {
  return slurmctld_timeout > 0 ? slurmctld_timeout : kDefaultLeaseSeconds;
}

std::vector<std::string> SkiffConfig::CtldTargets() const {
  std::vector<std::string> targets;
  for (const ControllerHost& host : ctld_hosts) {
    targets.push_back(absl::StrCat(host.addr, ":", ctld_port));
  }
  // A config built in code, not parsed, names one controller.
  if (targets.empty()) {
    targets.push_back(absl::StrCat(ctld_addr.empty() ? ctld_host : ctld_addr, ":", ctld_port));
  }
  return targets;
}

std::string ControllerMode(size_t index, size_t count) {
  if (index == 0) return "primary";
  if (index == 1 && count == 2) return "backup";
  return absl::StrCat("backup", index);
}

std::string ScriptTooLarge(uint64_t script_bytes, int64_t max_script_size) {
  return absl::StrCat(
      "Pathname of a file, directory or other parameter too long (the batch script "
      "has ",
      script_bytes, " bytes; SchedulerParameters=max_script_size allows ", max_script_size, ")");
}

const NodeConfig* SkiffConfig::FindNode(std::string_view name) const {
  for (const NodeConfig& node : nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

const PartitionConfig* SkiffConfig::FindPartition(std::string_view name) const {
  for (const PartitionConfig& partition : partitions) {
    if (partition.name == name) return &partition;
  }
  return nullptr;
}

const PartitionConfig* SkiffConfig::DefaultPartition() const {
  for (const PartitionConfig& partition : partitions) {
    if (partition.is_default) return &partition;
  }
  return nullptr;
}

absl::StatusOr<SkiffConfig> ParseSkiffConfig(std::string_view text, std::string_view file_name,
                                             const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  return config_internal::SkiffParser(*lines, file_name).Parse();
}

}  // namespace skiff
