// The command's own environment as a map, for the commands that read Slurm's
// input variables (srun, sbcast) and pass them on.
#ifndef SKIFF_CLI_COMMON_ENVIRONMENT_H_
#define SKIFF_CLI_COMMON_ENVIRONMENT_H_

#include <map>
#include <string>

namespace skiff::cli {

// NAME -> value for every NAME=value in environ (entries without '=' or with
// an empty name are skipped).
std::map<std::string, std::string> ProcessEnvironment();

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_ENVIRONMENT_H_
