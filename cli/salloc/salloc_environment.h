// salloc's input environment variables (salloc(1) "INPUT ENVIRONMENT
// VARIABLES"; Slurm 22.05's src/salloc/opt.c env_vars): SALLOC_PARTITION,
// SALLOC_ACCOUNT, SALLOC_TIMELIMIT, ... Slurm applies each set variable as its
// option before reading the command line, so the command line wins and a bad
// value is refused with the option's own message. Pure; thread-safe.
#ifndef SKIFF_CLI_SALLOC_SALLOC_ENVIRONMENT_H_
#define SKIFF_CLI_SALLOC_SALLOC_ENVIRONMENT_H_

#include <map>
#include <string>
#include <vector>

namespace skiff::cli {

// The options the variables of `env` stand for, as arguments to put before
// the command line ("--partition=gpu", "--overcommit", "-v"), in Slurm's
// table order. A variable for a value (SALLOC_PARTITION) is left out when
// empty; a flag (SALLOC_OVERCOMMIT) counts when set at all.
// SALLOC_CONTAINER is --container (cli/common/container_options.h reads it).
std::vector<std::string> SallocEnvironmentOptions(const std::map<std::string, std::string>& env);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SALLOC_SALLOC_ENVIRONMENT_H_
