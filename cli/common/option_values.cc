#include "cli/common/option_values.h"

#include <strings.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/gpu_bind_check.h"
#include "cli/common/sbatch_options.h"
#include "cli/common/task_distribution.h"
#include "common/checked_math.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

// Slurm's parse_int (src/common/proc_args.c) over a count: digits only, at
// most INT_MAX (a larger one is refused, as sbatch's counts are, rather than
// wrapped), above zero when `positive`; it exits 1.
std::optional<OptionValueError> ParseIntError(const std::string& name, const std::string& value,
                                              bool positive) {
  int n = 0;
  const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
  if (digits && absl::SimpleAtoi(value, &n) && (!positive || n > 0)) return std::nullopt;
  return OptionValueError{absl::StrCat("Invalid numeric value \"", value, "\" for ", name, "."), 1};
}

// Slurm's _str_to_nodes: strtol's number (-1 without digits), then a K or M
// multiplier (1024, 1048576). nullopt when what follows is not blank.
std::optional<int64_t> NodeCount(const std::string& text) {
  const char* start = text.c_str();
  char* end = nullptr;
  int64_t n = strtol(start, &end, 10);
  if (end == start) {
    n = -1;
  } else {
    if (*end == 'k' || *end == 'K') n *= 1024, ++end;
    if (*end == 'm' || *end == 'M') n *= 1024 * 1024, ++end;
  }
  for (; *end != '\0'; ++end) {
    if (!isspace(static_cast<unsigned char>(*end))) return std::nullopt;
  }
  return n;
}

// Slurm's verify_node_count: "N", "MIN-MAX" or "-MAX" (MIN 1).
std::optional<OptionValueError> NodesError(const std::string& value) {
  auto not_a_count = [](const std::string& part) {
    return OptionValueError{absl::StrCat("\"", part, "\" is not a valid node count"), 255};
  };
  int64_t min = 0, max = 0;
  if (const size_t dash = value.find('-'); dash != std::string::npos) {
    const std::string min_text = value.substr(0, dash), max_text = value.substr(dash + 1);
    std::optional<int64_t> lo = NodeCount(min_text);
    if (!lo) return not_a_count(min_text);
    min = *lo < 0 ? 1 : *lo;
    std::optional<int64_t> hi = NodeCount(max_text);
    if (!hi) return not_a_count(max_text);
    max = *hi;
  } else {
    std::optional<int64_t> n = NodeCount(value);
    if (!n || *n < 0) return not_a_count(value);
    min = max = *n;
  }
  if (max != 0 && max < min) {
    return OptionValueError{
        absl::StrCat("Maximum node count ", max, " is less than minimum node count ", min), 255};
  }
  return std::nullopt;
}

}  // namespace

std::optional<OptionValueError> CheckOptionValue(const std::string& name,
                                                 const std::string& value) {
  // parse_int's, positive.
  for (const char* count :
       {"cpus-per-task", "ntasks", "ntasks-per-node", "mincpus", "cpus-per-gpu", "threads",
        "sockets-per-node", "cores-per-socket", "threads-per-core"}) {
    if (name == count) return ParseIntError("--" + name, value, true);
  }
  // parse_int's, zero allowed. -I names itself without dashes, as Slurm's.
  if (name == "wait" || name == "kill-on-bad-exit") return ParseIntError("--" + name, value, false);
  if (name == "immediate") return ParseIntError("immediate", value, false);
  if (name == "mem" || name == "mem-per-cpu" || name == "mem-per-gpu") {
    if (ParseSize(value, kMiB).ok()) return std::nullopt;
    return OptionValueError{absl::StrCat("Invalid --", name, " specification"), 255};
  }
  if (name == "nodes") return NodesError(value);
  if (name == "distribution") {
    // A bare "plane" takes its size from SLURM_DIST_PLANESIZE, checked where
    // the environment is read (BuildStepRequest, BuildSubmission).
    if (ParseTaskDistribution(value, std::string("1")).ok()) return std::nullopt;
    return OptionValueError{"Invalid --distribution specification", 255};
  }
  if (name == "gres-flags") {
    if (strcasecmp(value.c_str(), "disable-binding") == 0 ||
        strcasecmp(value.c_str(), "enforce-binding") == 0) {
      return std::nullopt;
    }
    return OptionValueError{"Invalid --gres-flags specification", 255};
  }
  if (name == "wait-all-nodes") {
    if (std::optional<OptionValueError> bad = ParseIntError("--wait-all-nodes", value, false)) {
      return bad;
    }
    if (std::stoll(value.substr(0, 18)) > 1 || value.size() > 18) {
      return OptionValueError{"Invalid --wait-all-nodes specification", 255};
    }
    return std::nullopt;
  }
  if (name == "signal") {
    absl::Status signal = ParseSignalOption(value).status();
    if (signal.ok()) return std::nullopt;
    return OptionValueError{std::string(signal.message()), 255};
  }
  if (name == "time") {
    absl::StatusOr<int64_t> seconds = ParseDuration(value);
    if (seconds.ok() && *seconds <= kMaxTimeLimitSeconds) return std::nullopt;
    return OptionValueError{"Invalid --time specification", 255};
  }
  if (name == "begin") {
    absl::Status begin = ParseBeginTime(value, 0).status();
    if (begin.ok()) return std::nullopt;
    return OptionValueError{std::string(begin.message()), 255};
  }
  if (name == "exclusive") {
    // salloc's and sbatch's --exclusive[=user|mcs|exclusive|oversubscribe].
    for (const char* mode : {"exclusive", "user", "mcs", "oversubscribe"}) {
      if (strcasecmp(value.c_str(), mode) == 0) return std::nullopt;
    }
    return OptionValueError{"Invalid --exclusive specification", 255};
  }
  if (name == "extra-node-info") {
    absl::StatusOr<std::array<std::string, 3>> floors = ExtraNodeInfoFloors(value);
    if (floors.ok()) return std::nullopt;
    return OptionValueError{std::string(floors.status().message()), 1};  // get_resource_arg_range
  }
  if (name == "gpu-bind") {
    if (value.empty()) return std::nullopt;
    if (std::optional<std::string> bad = GpuBindError(value)) return OptionValueError{*bad, 255};
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<OptionValueError> CheckParsedOptionValues(
    const CLI::App& app, const std::map<std::string, const std::optional<std::string>*>& values) {
  for (const CLI::Option* option : app.parse_order()) {
    if (option->get_lnames().empty()) continue;
    const std::string& name = option->get_lnames().front();
    auto value = values.find(name);
    if (value == values.end() || !*value->second) continue;
    // A bare -I, -K or --exclusive: no value to check.
    if ((name == "immediate" || name == "kill-on-bad-exit" || name == "exclusive") &&
        (*value->second)->empty()) {
      continue;
    }
    if (std::optional<OptionValueError> bad = CheckOptionValue(name, **value->second)) return bad;
  }
  return std::nullopt;
}

void ApplyTopologyOptions(const CLI::App& app, const TopologyOptionValues& given,
                          std::optional<std::string>* sockets_per_node,
                          std::optional<std::string>* cores_per_socket,
                          std::optional<std::string>* threads_per_core) {
  for (const CLI::Option* option : app.parse_order()) {
    if (option->get_lnames().empty()) continue;
    const std::string& name = option->get_lnames().front();
    if (name == "extra-node-info" && given.extra_node_info) {
      absl::StatusOr<std::array<std::string, 3>> floors =
          ExtraNodeInfoFloors(*given.extra_node_info);
      if (!floors.ok()) continue;  // refused by CheckParsedOptionValues first
      *sockets_per_node = (*floors)[0];
      *cores_per_socket = (*floors)[1];
      *threads_per_core = (*floors)[2];
    } else if (name == "sockets-per-node") {
      *sockets_per_node = given.sockets_per_node;
    } else if (name == "cores-per-socket") {
      *cores_per_socket = given.cores_per_socket;
    } else if (name == "threads-per-core") {
      *threads_per_core = given.threads_per_core;
    }
  }
}

}  // namespace skiff::cli
