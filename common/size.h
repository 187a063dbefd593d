// Memory and storage sizes as Slurm writes them: "500M", "4G", "1T", "10GiB", "1K".
//
// Pure functions, thread-safe. All results are bytes (uint64_t).
#ifndef SKIFF_COMMON_SIZE_H_
#define SKIFF_COMMON_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace skiff {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = kKiB * 1024;
inline constexpr uint64_t kGiB = kMiB * 1024;
inline constexpr uint64_t kTiB = kGiB * 1024;

// Parses a size. A bare number is in default_unit bytes (Slurm's --mem and
// RealMemory use MiB, so callers pass kMiB). Suffixes, case-insensitive:
//   K, KiB, M, MiB, G, GiB, T, TiB, P, PiB   powers of 1024
//   KB, MB, GB, TB, PB                        powers of 1000 (as burst buffers use)
//   B                                         bytes
// Errors: InvalidArgument for empty text, negative or fractional numbers, an
// unknown suffix or overflow; the message quotes the text.
absl::StatusOr<uint64_t> ParseSize(std::string_view text, uint64_t default_unit);

// Bytes in the largest 1024-power unit that divides them exactly, with Slurm's
// single-letter suffix: 4294967296 -> "4G", 524288000 -> "500M", 1536 -> "1536"
// (bytes not divisible by 1024 print bare), 0 -> "0". The largest suffix is P, so
// the output always parses back with ParseSize(text, 1).
std::string FormatSize(uint64_t bytes);

// Whole mebibytes as Slurm prints memory (scontrol RealMemory=, sinfo MEMORY):
// bytes / kMiB, rounded down.
uint64_t BytesToMiB(uint64_t bytes);

}  // namespace skiff

#endif  // SKIFF_COMMON_SIZE_H_
