#include "cli/common/task_distribution.h"

#include <climits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::cli {
namespace {

constexpr char kInvalid[] = "Invalid --distribution specification";

absl::Status Invalid() { return absl::InvalidArgumentError(kInvalid); }

// ",pack" / ",nopack" (Slurm's _parse_dist_flag), appended to the name as
// set_distribution writes it.
bool AddFlag(const std::string& flag, TaskDistribution* out) {
  const std::string lower = absl::AsciiStrToLower(flag);
  if (lower != "pack" && lower != "nopack") return false;
  out->name += (out->name.empty() ? "" : ",") + lower;
  return true;
}

// Slurm's _parse_plane_dist: "plane=N", or "plane" with SLURM_DIST_PLANESIZE;
// N from 1 to INT_MAX.
absl::StatusOr<TaskDistribution> Plane(const std::string& text,
                                       const std::optional<std::string>& plane_size_env) {
  std::string size;
  if (const size_t eq = text.find('='); eq != std::string::npos) {
    size = text.substr(eq + 1);
  } else if (plane_size_env) {
    size = *plane_size_env;
  }
  // Slurm reads the number up to its end, so "plane=4,pack" has no valid size.
  int64_t n = 0;
  if (size.empty() || size.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(size, &n) || n <= 0 || n > INT_MAX) {
    return Invalid();  // Slurm logs "Invalid plane size or size not specified" first
  }
  TaskDistribution out;
  out.nodes = TaskDistribution::Nodes::kPlane;
  out.plane_size = static_cast<int>(n);
  out.name = "plane";
  return out;
}

}  // namespace

absl::StatusOr<TaskDistribution> ParseTaskDistribution(
    const std::string& text, const std::optional<std::string>& plane_size_env) {
  if (absl::StartsWithIgnoreCase(text, "plane")) return Plane(text, plane_size_env);
  if (text.empty() || text[0] == ',') return Invalid();
  const size_t comma = text.find(',');
  const std::string base = text.substr(0, comma);
  const std::string flag = comma == std::string::npos ? "" : text.substr(comma + 1);
  // Up to three levels; "*" is block, cyclic, then the socket level's.
  std::vector<std::string> levels;
  for (absl::string_view token : absl::StrSplit(base, ':', absl::SkipEmpty())) {
    if (levels.size() == 3) return Invalid();
    std::string level = absl::AsciiStrToLower(token);
    if (level == "*") level = levels.empty() ? "block" : levels.size() == 1 ? "cyclic" : levels[1];
    levels.push_back(level);
  }
  if (levels.empty()) return Invalid();
  TaskDistribution out;
  const std::string& nodes = levels[0];
  if (levels.size() == 1 && (nodes == "arbitrary" || nodes == "hostfile")) {
    out.nodes = TaskDistribution::Nodes::kArbitrary;
    out.name = "arbitrary";
  } else if (nodes == "block" || nodes == "cyclic") {
    for (size_t i = 1; i < levels.size(); ++i) {
      if (levels[i] != "block" && levels[i] != "cyclic" && levels[i] != "fcyclic") {
        return Invalid();
      }
    }
    out.nodes =
        nodes == "block" ? TaskDistribution::Nodes::kBlock : TaskDistribution::Nodes::kCyclic;
    out.name = absl::StrJoin(levels, ":");
  } else if (levels.size() == 1 && AddFlag(nodes, &out)) {
    // "pack" or "nopack" alone: the default layout.
  } else {
    return Invalid();
  }
  if (!flag.empty() && !AddFlag(flag, &out)) return Invalid();
  return out;
}

}  // namespace skiff::cli
