// sbcast's help texts: Slurm 22.05's (src/sbcast/opts.c _help and _usage), byte
// for byte, with what Skiff accepts and ignores marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SBCAST_SBCAST_HELP_H_
#define SKIFF_CLI_SBCAST_SBCAST_HELP_H_

#include <string>

namespace skiff::cli {

// What --help prints.
std::string SbcastHelp();

// What --usage prints: Slurm's synopsis, unmarked.
std::string SbcastUsage();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SBCAST_SBCAST_HELP_H_
