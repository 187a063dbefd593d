// sstat's help texts: Slurm 22.05's (src/sstat/options.c _help_msg and _usage), byte for byte, with
// the options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SSTAT_SSTAT_HELP_H_
#define SKIFF_CLI_SSTAT_SSTAT_HELP_H_

#include <string>

namespace skiff::cli {

// What --help prints.
std::string SstatHelp();

// What --usage prints: Slurm's synopsis, unmarked.
std::string SstatUsage();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SSTAT_SSTAT_HELP_H_
