// Slurm's "%[.][-][width]<letter>" output formats (squeue -o, sprio -o, ...):
// the parsing every such command shares. Which letters exist, and what they
// print, stays with each command. Pure; thread-safe.
#ifndef SKIFF_CLI_COMMON_PERCENT_FORMAT_H_
#define SKIFF_CLI_COMMON_PERCENT_FORMAT_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::cli {

struct PercentFormatItem {
  std::string literal;  // set for text between fields; field == 0 then
  char field = 0;       // the letter after '%'
  int width = 0;        // 0 = as wide as the value, never truncated
  bool right = false;   // '.' before the width: right-justify
};

// Parses "%.18i %9P %j" into items; "%%" is a literal '%', a '-' flag is
// accepted and means the default (left) justification. Error: InvalidArgument
// "Invalid job format specification: <letter>" for a letter `known` rejects,
// or a '%' at the end.
absl::StatusOr<std::vector<PercentFormatItem>> ParsePercentFormat(
    std::string_view format, const std::function<bool(char)>& known);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_PERCENT_FORMAT_H_
