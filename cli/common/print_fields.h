// Slurm's print_fields tables (sacct, sstat, sacctmgr -P...): fixed-width
// columns, right-aligned unless the width is negative, a value longer than its
// column cut with a '+' in its last place, a header with a line of dashes; or,
// parsable, the values joined by a delimiter ('|' after every field with -p,
// between fields with -P). Pure.
#ifndef SKIFF_CLI_COMMON_PRINT_FIELDS_H_
#define SKIFF_CLI_COMMON_PRINT_FIELDS_H_

#include <string>
#include <vector>

namespace skiff::cli {

struct PrintFieldsLayout {
  bool no_header = false;  // -n
  bool parsable = false;   // -p: delimiter after every field
  bool parsable2 = false;  // -P: delimiter between fields
  std::string delimiter;   // empty = '|'
};

// A --format list as Slurm's print_fields commands take it: "jobid,state%20"
// -> {("jobid", 0), ("state", 20)}; items trimmed, empty ones skipped; width 0
// when not given (or not a number).
struct FieldRequest {
  std::string name;
  int width = 0;
};
std::vector<FieldRequest> SplitFieldList(const std::string& format);

// One line, newline-terminated. `widths` parallels `cells`; `cut` marks values
// cut to their width with '+' (the header is never cut so).
std::string PrintFieldsLine(const std::vector<std::string>& cells, const std::vector<int>& widths,
                            const PrintFieldsLayout& layout, bool cut = true);

// The header: names, then (fixed-width only) the dashes; "" with no_header.
std::string PrintFieldsHeader(const std::vector<std::string>& names, const std::vector<int>& widths,
                              const PrintFieldsLayout& layout);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_PRINT_FIELDS_H_
