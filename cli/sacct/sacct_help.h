// sacct's help texts: Slurm 22.05's (src/sacct/options.c _help_msg and _usage), byte for byte, with
// the options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SACCT_SACCT_HELP_H_
#define SKIFF_CLI_SACCT_SACCT_HELP_H_

#include <string>

namespace skiff::cli {

// What --help prints.
std::string SacctHelp();

// What --usage prints: Slurm's synopsis, unmarked.
std::string SacctUsage();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCT_SACCT_HELP_H_
