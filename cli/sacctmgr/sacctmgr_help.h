// sacctmgr's help texts: Slurm 22.05's (src/sacctmgr/sacctmgr.c _usage), byte for byte, with the
// options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SACCTMGR_SACCTMGR_HELP_H_
#define SKIFF_CLI_SACCTMGR_SACCTMGR_HELP_H_

#include <string>

namespace skiff::cli {

// What --help, --usage and "help" print.
std::string SacctmgrHelp();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SACCTMGR_SACCTMGR_HELP_H_
