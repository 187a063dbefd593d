// sshare's help texts: Slurm 22.05's (src/sshare/sshare.c _help_msg), byte for byte, with the
// options and commands Skiff does not support marked (cli/common/help_text.h).
#ifndef SKIFF_CLI_SSHARE_SSHARE_HELP_H_
#define SKIFF_CLI_SSHARE_SSHARE_HELP_H_

#include <string>

namespace skiff::cli {

// What --help, --usage print.
std::string SshareHelp();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SSHARE_SSHARE_HELP_H_
