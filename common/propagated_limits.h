// The resource limits Slurm's srun hands its tasks (PropagateResourceLimits=ALL):
// srun puts each soft limit in its environment as SLURM_RLIMIT_<NAME>, and the
// node applies it to every task (noded/steps/step_env.h). Pure data.
#ifndef SKIFF_COMMON_PROPAGATED_LIMITS_H_
#define SKIFF_COMMON_PROPAGATED_LIMITS_H_

#include <sys/resource.h>

#include <utility>

namespace skiff {

inline constexpr std::pair<const char*, int> kPropagatedLimits[] = {
    {"CPU", RLIMIT_CPU},     {"FSIZE", RLIMIT_FSIZE},   {"DATA", RLIMIT_DATA},
    {"STACK", RLIMIT_STACK}, {"CORE", RLIMIT_CORE},     {"RSS", RLIMIT_RSS},
    {"NPROC", RLIMIT_NPROC}, {"NOFILE", RLIMIT_NOFILE}, {"MEMLOCK", RLIMIT_MEMLOCK},
    {"AS", RLIMIT_AS}};

}  // namespace skiff

#endif  // SKIFF_COMMON_PROPAGATED_LIMITS_H_
