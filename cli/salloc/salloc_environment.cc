#include "cli/salloc/salloc_environment.h"

namespace skiff::cli {
namespace {

enum class Takes { kValue, kFlag, kOptionalValue };

struct EnvironmentOption {
  const char* variable;
  const char* option;  // long name; "-v" for SALLOC_DEBUG
  Takes takes;
};

// Slurm 22.05's table, less the variables of options salloc does not have
// (SALLOC_CLUSTERS, SALLOC_CORE_SPEC, SALLOC_HINT, SALLOC_PROFILE, ...: their
// options are refused on the command line too, so are the variables, by being
// left unread as Slurm leaves unknown ones).
constexpr EnvironmentOption kVariables[] = {
    {"SALLOC_ACCOUNT", "--account", Takes::kValue},
    {"SALLOC_CONSTRAINT", "--constraint", Takes::kValue},
    {"SALLOC_CPUS_PER_GPU", "--cpus-per-gpu", Takes::kValue},
    {"SALLOC_DEBUG", "-v", Takes::kFlag},
    {"SALLOC_EXCLUSIVE", "--exclusive", Takes::kOptionalValue},
    {"SALLOC_GPUS", "--gpus", Takes::kValue},
    {"SALLOC_GPU_BIND", "--gpu-bind", Takes::kValue},
    {"SALLOC_GPUS_PER_NODE", "--gpus-per-node", Takes::kValue},
    {"SALLOC_GPUS_PER_TASK", "--gpus-per-task", Takes::kValue},
    {"SALLOC_GRES", "--gres", Takes::kValue},
    {"SALLOC_IMMEDIATE", "--immediate", Takes::kOptionalValue},
    {"SALLOC_MEM_PER_CPU", "--mem-per-cpu", Takes::kValue},
    {"SALLOC_MEM_PER_GPU", "--mem-per-gpu", Takes::kValue},
    {"SALLOC_MEM_PER_NODE", "--mem", Takes::kValue},
    {"SALLOC_NO_KILL", "--no-kill", Takes::kOptionalValue},
    {"SALLOC_OVERCOMMIT", "--overcommit", Takes::kFlag},
    {"SALLOC_PARTITION", "--partition", Takes::kValue},
    {"SALLOC_QOS", "--qos", Takes::kValue},
    {"SALLOC_RESERVATION", "--reservation", Takes::kValue},
    {"SALLOC_SPREAD_JOB", "--spread-job", Takes::kFlag},
    {"SALLOC_THREADS_PER_CORE", "--threads-per-core", Takes::kValue},
    {"SALLOC_TIMELIMIT", "--time", Takes::kValue},
    {"SALLOC_USE_MIN_NODES", "--use-min-nodes", Takes::kFlag},
};

}  // namespace

std::vector<std::string> SallocEnvironmentOptions(const std::map<std::string, std::string>& env) {
  std::vector<std::string> args;
  for (const EnvironmentOption& v : kVariables) {
    auto it = env.find(v.variable);
    if (it == env.end()) continue;
    const std::string& value = it->second;
    switch (v.takes) {
      case Takes::kFlag:
        args.push_back(v.option);
        break;
      case Takes::kValue:
        if (!value.empty()) args.push_back(std::string(v.option) + "=" + value);
        break;
      case Takes::kOptionalValue:  // set but empty: the bare option
        args.push_back(value.empty() ? std::string(v.option) : std::string(v.option) + "=" + value);
        break;
    }
  }
  return args;
}

}  // namespace skiff::cli
