// The values of a node and of a partition that sinfo both groups records by
// and prints, read the same way in sinfo_records.cc and sinfo_print.cc.
// Internal to //cli/sinfo:sinfo_format.
#ifndef SKIFF_CLI_SINFO_SINFO_VALUES_H_
#define SKIFF_CLI_SINFO_SINFO_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_join.h"
#include "proto/ctld.pb.h"

namespace skiff::cli::sinfo_internal {

// A value that may be C's NULL, which glibc prints as "(null)".
using Text = std::optional<std::string>;

inline constexpr uint32_t kInfinite = 0xffffffff;

inline Text JoinOrNull(const google::protobuf::RepeatedPtrField<std::string>& values) {
  if (values.empty()) return std::nullopt;
  return absl::StrJoin(values, ",");
}

// The node's reason uid, when ctld knows it.
inline std::optional<uint32_t> ReasonUid(const v1::NodeInfo& node) {
  if (node.reason().empty() || !node.has_reason_uid()) return std::nullopt;
  return node.reason_uid();
}

inline std::string GroupsOf(const v1::PartitionInfo& p) {
  return absl::StrJoin(p.allow_groups(), ",");
}

}  // namespace skiff::cli::sinfo_internal

#endif  // SKIFF_CLI_SINFO_SINFO_VALUES_H_
