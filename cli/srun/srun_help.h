// srun's help texts: Slurm 22.05's (src/srun/libsrun/opt.c _help and _usage), byte for byte, with
// the options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SRUN_SRUN_HELP_H_
#define SKIFF_CLI_SRUN_SRUN_HELP_H_

#include <string>

namespace skiff::cli {

// What --help prints.
std::string SrunHelp();

// What --usage prints: Slurm's synopsis, unmarked.
std::string SrunUsage();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_SRUN_HELP_H_
