// SkiffParser: turns skiff.conf's logical lines into a SkiffConfig. Reading the
// lines is config.cc's; the checks run once every line is read are
// skiff_conf_checks.cc's. Internal to //common/config.
#ifndef SKIFF_COMMON_CONFIG_SKIFF_CONF_PARSER_H_
#define SKIFF_COMMON_CONFIG_SKIFF_CONF_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/config/skiff_conf_keys.h"

namespace skiff {
namespace config_internal {

class SkiffParser {
 public:
  SkiffParser(const std::vector<LogicalLine>& lines, std::string_view file_name)
      : lines_(lines), file_name_(file_name), global_{config_, config_.warnings} {}

  absl::StatusOr<SkiffConfig> Parse() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      absl::Status status = ParseLine(i);
      if (!status.ok()) return status;
    }
    absl::Status status = Finish();
    if (!status.ok()) return status;
    return std::move(config_);
  }

 private:
  struct PartitionOrigin {
    size_t line_index;
    bool all_nodes;
    bool preempt_mode_set;
  };

  // ---- Reading the lines (config.cc).

  absl::Status ParseLine(size_t index);
  absl::Status ParseNodeLine(size_t index);
  absl::StatusOr<std::vector<std::string>> ExpandAlongside(const LogicalLine& line,
                                                           std::string_view canonical,
                                                           const std::string& value,
                                                           const std::vector<std::string>& names,
                                                           const std::string& suffix);
  absl::Status AddNodes(size_t index, const NodeLine& parsed, const std::string& suffix);
  void WarnIfCpusDisagreeWithTopology(const LogicalLine& line, const NodeConfig& node,
                                      const std::string& suffix);
  absl::Status ParsePartitionLine(size_t index);
  absl::Status AddPartition(size_t index, PartitionLine parsed, const std::string& suffix);
  void WarnIfSuspend(const LogicalLine& line, const std::string& preempt_mode,
                     const std::string& suffix);

  // The line that last set global key `canonical`, or nullptr when it has its default.
  const LogicalLine* GlobalKeyLine(std::string_view canonical) const {
    auto it = global_.key_lines.find(std::string(canonical));
    return it == global_.key_lines.end() ? nullptr : it->second;
  }

  // ---- Once every line is read (skiff_conf_checks.cc).

  absl::Status Finish();
  std::string Described(std::string_view key, int64_t value) const;
  absl::Status CheckNodeTimeouts();
  absl::Status CheckPreemption();
  absl::Status CheckNodeAddresses() const;
  absl::Status CheckGresTypes() const;
  void WarnMixedGpuTypes();
  bool IsKnownGres(std::string_view name) const;
  static std::string MemoryLimitsClash(uint64_t default_mb, uint64_t max_mb);
  absl::Status CheckMemoryDefaults(const LogicalLine& line, const PartitionConfig& partition);
  void DropRepeatedNodes(const LogicalLine& line, PartitionConfig& partition);
  absl::Status FinishPartitions();

  const std::vector<LogicalLine>& lines_;
  std::string_view file_name_;
  SkiffConfig config_;
  GlobalState global_;
  NodeLine node_defaults_;
  PartitionLine partition_defaults_;
  std::map<std::string, size_t> node_lines_by_name_;  // name -> index into lines_
  std::vector<size_t> node_line_index_;               // parallel to config_.nodes
  std::vector<PartitionOrigin> partition_origins_;    // parallel to config_.partitions
};

}  // namespace config_internal
}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_SKIFF_CONF_PARSER_H_
