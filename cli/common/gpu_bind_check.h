// --gpu-bind's grammar, as Slurm's tres_bind_verify_cmdline checks "gpu:VALUE"
// (src/common/tres_bind.c) when sbatch, salloc and srun read the option.
// Pure; thread-safe.
#ifndef SKIFF_CLI_COMMON_GPU_BIND_CHECK_H_
#define SKIFF_CLI_COMMON_GPU_BIND_CHECK_H_

#include <optional>
#include <string>

namespace skiff::cli {

// Slurm's "Invalid --gpu-bind argument: gpu:VALUE" for a value it refuses;
// nullopt for one it takes.
std::optional<std::string> GpuBindError(const std::string& value);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_GPU_BIND_CHECK_H_
