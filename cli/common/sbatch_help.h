// sbatch's help texts: Slurm 22.05's (src/sbatch/opt.c _help and _usage), byte for byte, with the
// options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_COMMON_SBATCH_HELP_H_
#define SKIFF_CLI_COMMON_SBATCH_HELP_H_

#include <string>

namespace skiff::cli {

// What --help prints.
std::string SbatchHelp();

// What --usage prints: Slurm's synopsis, unmarked.
std::string SbatchUsage();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_SBATCH_HELP_H_
