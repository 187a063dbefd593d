// sinfo's command line, read as Slurm 22.05's parse_command_line reads it
// (src/sinfo/opts.c): options applied in the order given (an error stops at
// the option that caused it), SINFO_* environment variables first, then the
// checks and the default format of the options chosen.
//
// The caller (main) parses argv with getopt's rules (cli/common/getopt_args.h)
// and passes the options in command-line order. Pure; thread-safe.
#ifndef SKIFF_CLI_SINFO_SINFO_OPTIONS_H_
#define SKIFF_CLI_SINFO_SINFO_OPTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/sinfo/sinfo_format.h"

namespace skiff::cli {

// One option as given: its long name ("format", "iterate"; "M" for -M) and
// its value (empty for flags).
using SinfoArg = std::pair<std::string, std::string>;

// The long option names sinfo accepts with the short letter of each (0 for
// long-only ones) and whether it takes a value: the table main declares.
struct SinfoOptionSpec {
  const char* long_name;
  char short_name;
  bool takes_value;
};
const std::vector<SinfoOptionSpec>& SinfoOptionSpecs();

struct SinfoCommand {
  // >= 0: print `out` and `err` and exit with this code; -1: go on.
  int exit_code = -1;
  std::string out;  // stdout before anything else (--help, --usage, -V, -v's dump)
  std::string err;  // stderr before anything else (format warnings)

  SinfoView view;
  bool json = false;          // --json: Slurm's data dump instead of the table
  bool reservations = false;  // -T
  int iterate = 0;            // -i seconds, 0: once
  bool print_date = false;    // the timestamp line before each report
  // -n naming exactly one node: Slurm loads that node alone, and an unknown
  // name is an error ("slurm_load_node: Invalid node name specified").
  std::optional<std::string> single_node;
};

// `args` in command-line order; `env` holds SINFO_ALL, SINFO_PARTITION,
// SINFO_SORT and SINFO_FORMAT when set.
SinfoCommand ResolveSinfoCommand(const std::vector<SinfoArg>& args,
                                 const std::map<std::string, std::string>& env);

// Slurm's --help and --usage texts.
std::string SinfoHelpText();
std::string SinfoUsageText();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SINFO_SINFO_OPTIONS_H_
