// Trackable-resource (TRES) limit strings as sacctmgr takes and prints them:
// "cpu=4,mem=10G,node=2,gres/gpu=4".
//
// Skiff tracks four TRES: cpu, mem (in MiB), node and gres/gpu. A value of -1
// clears a limit (sacctmgr's spelling of "no limit"). Pure functions, thread-safe.
#ifndef SKIFF_COMMON_TRES_H_
#define SKIFF_COMMON_TRES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace skiff {

// Value that clears a limit, as in "MaxTRESPerUser=cpu=-1".
inline constexpr int64_t kTresClear = -1;

// Limits named in one TRES string. Unset = not named; kTresClear = named as -1.
struct TresLimits {
  std::optional<int64_t> cpu;
  std::optional<int64_t> mem_mb;  // mebibytes
  std::optional<int64_t> node;
  std::optional<int64_t> gpu;  // gres/gpu

  bool empty() const { return !cpu && !mem_mb && !node && !gpu; }
  bool operator==(const TresLimits& other) const {
    return cpu == other.cpu && mem_mb == other.mem_mb && node == other.node && gpu == other.gpu;
  }
};

// Parses "cpu=4,gres/gpu=4,mem=10G,node=2". Names are case-insensitive; mem takes
// a K, M, G or T suffix (powers of 1024, default M; kibibytes round up to whole
// MiB). A later entry for the same TRES wins, as in Slurm. Whitespace around
// entries is ignored.
// Errors (InvalidArgument): empty text or entry without '=', an unknown TRES name
// ("Unknown TRES name 'gres/fpga' in ..."), a value that is not a non-negative
// whole number (or -1), an unknown mem suffix, overflow.
absl::StatusOr<TresLimits> ParseTres(std::string_view text);

// The limits as sacctmgr prints them, in Slurm's TRES order (cpu, mem, node,
// gres/gpu): "cpu=4,mem=10G,node=2,gres/gpu=4". Memory uses the largest exact
// unit (10240 -> "10G", 1536 -> "1536M"). Unset and cleared (-1) entries are
// left out, so no limits at all give "".
std::string FormatTres(const TresLimits& limits);

}  // namespace skiff

#endif  // SKIFF_COMMON_TRES_H_
