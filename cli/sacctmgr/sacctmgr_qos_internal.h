// What the sacctmgr_qos library's files share: Slurm's way with command-line
// words (sacctmgr_qos.cc) and the `show qos` fields (sacctmgr_qos_table.cc).
// Internal to //cli/sacctmgr:sacctmgr_qos.
#ifndef SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_INTERNAL_H_
#define SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_INTERNAL_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli::sacctmgr_qos_internal {

// ---- Words (sacctmgr_qos.cc) ---------------------------------------------------

std::string Lower(std::string_view text);

// Slurm's abbreviation rule (xstrncasecmp(name, word, MAX(len, min))): `word` is a
// prefix of `name`, any case, at least `min` characters long.
bool Abbreviates(std::string_view word, std::string_view name, size_t min);

std::vector<std::string> SplitList(std::string_view text);

absl::Status Invalid(std::string message);

// ---- show qos (sacctmgr_qos_table.cc) ------------------------------------------

// One field of Slurm's sacctmgr field table.
struct FieldSpec;

struct Field {
  const FieldSpec* spec;
  int len;  // Slurm's field->len: negative = left-justified
};

// The field a format= entry names ("Prio", "Name%20" with a width).
// Error: InvalidArgument "Unknown field 'X'".
absl::StatusOr<Field> ResolveField(const std::string& text);

std::string TresText(const v1::Tres& tres);

}  // namespace skiff::cli::sacctmgr_qos_internal

#endif  // SKIFF_CLI_SACCTMGR_SACCTMGR_QOS_INTERNAL_H_
