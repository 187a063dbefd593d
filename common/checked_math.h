// Arithmetic on numbers users give: task and CPU counts, memory sizes, GPU
// counts, array sizes, time limits. A product or sum that does not fit its type
// is reported (Checked*) or pinned to the type's bound (Saturating*), never
// wrapped: `srun -n 4 -c 1073741824` must not become 4 tasks on 0 CPUs.
//
// And the limits Slurm 22.05 puts on such numbers, where Skiff needs the same.
// Header-only and pure; thread-safe.
#ifndef SKIFF_COMMON_CHECKED_MATH_H_
#define SKIFF_COMMON_CHECKED_MATH_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace skiff {

// a * b, or nullopt when it does not fit T.
template <typename T>
std::optional<T> CheckedMul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a + b, or nullopt when it does not fit T.
template <typename T>
std::optional<T> CheckedAdd(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a * b, or T's max (min when the true product is negative) when it does not
// fit: for derived amounts that are then compared against a capacity, which a
// pinned value never fits.
template <typename T>
T SaturatingMul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (!__builtin_mul_overflow(a, b, &out)) return out;
  return ((a < 0) != (b < 0)) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}

// a + b, pinned to T's bounds.
template <typename T>
T SaturatingAdd(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T out;
  if (!__builtin_add_overflow(a, b, &out)) return out;
  return b < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}

// `value` as To, pinned to To's bounds (an unsigned 2^64-1 MB is not -1 MB).
template <typename To, typename From>
To SaturatingCast(From value) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  To out;
  if (!__builtin_add_overflow(value, From{0}, &out)) return out;
  return value < 0 ? std::numeric_limits<To>::min() : std::numeric_limits<To>::max();
}

// ---- Slurm 22.05's limits ---------------------------------------------------

// Tasks of one step per node: slurm.conf's MaxTasksPerNode, default 512
// (DEFAULT_MAX_TASKS_PER_NODE). Slurm's step manager refuses a step with more
// than nodes x MaxTasksPerNode tasks with ESLURM_BAD_TASK_COUNT
// (src/slurmctld/step_mgr.c, step_create). Skiff does not read MaxTasksPerNode.
inline constexpr int64_t kMaxTasksPerNode = 512;
inline constexpr char kBadTaskCount[] = "Task count specification invalid";

// Memory sizes: Slurm keeps a job's memory as a uint64 of MB whose top bit
// flags "per CPU" (MEM_PER_CPU, 0x8000000000000000), so no size reaches 2^63 MB.
inline constexpr uint64_t kMaxMemoryMb = (uint64_t{1} << 63) - 1;

// Time limits: Slurm keeps minutes in a uint32 whose top values are NO_VAL
// (0xfffffffe) and INFINITE (0xffffffff); the largest finite limit is
// 0xfffffffd minutes. Skiff keeps seconds.
inline constexpr int64_t kMaxTimeLimitSeconds = int64_t{0xfffffffd} * 60;

}  // namespace skiff

#endif  // SKIFF_COMMON_CHECKED_MATH_H_
