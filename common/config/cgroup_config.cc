// ParseCgroupConfig: cgroup.conf with Slurm's keys, defaults and complaints
// (src/interfaces/cgroup.c), through the shared kv_parser machinery.
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"

namespace skiff {
namespace {

using config_internal::ApplyPairs;
using config_internal::EqualsIgnoreCase;
using config_internal::Invalid;
using config_internal::KeyTable;
using config_internal::kMaxInt64;
using config_internal::kMaxUint32;
using config_internal::LineError;
using config_internal::LineWarning;
using config_internal::LogicalLine;
using config_internal::PairContext;
using config_internal::ParseNumber;
using config_internal::Quoted;
using config_internal::SetAbsolutePath;
using config_internal::SetBool;
using config_internal::SetChoice;
using config_internal::SetInt;
using config_internal::SetMiB;

// Slurm's own bound on MemorySwappiness, which it enforces by lowering.
constexpr int64_t kMaxSwappiness = 100;

// The cgroup.conf being built, the line being applied and where each key was last
// set (for the checks that weigh keys against CgroupPlugin once the file is read).
struct CgroupState {
  CgroupConfig& config;
  const LogicalLine* line = nullptr;
  std::map<std::string, const LogicalLine*> key_lines{};

  void Warn(std::string_view key, std::string_view what) {
    config.warnings.push_back(LineWarning(*line, key, what));
  }
};

// A percentage: at least 0, or above 0 where 0 would leave jobs no memory.
absl::Status SetPercent(std::string_view value, bool zero_allowed, double max, double& out) {
  absl::StatusOr<double> number = ParseNumber(value);
  if (!number.ok()) return number.status();
  if (*number < 0 || (*number == 0 && !zero_allowed)) {
    return Invalid(absl::StrCat(Quoted(value), zero_allowed ? " must not be negative"
                                                            : " must be greater than 0 (percent)"));
  }
  if (*number > max) return Invalid(absl::StrCat(Quoted(value), " must be at most ", max));
  out = *number;
  return absl::OkStatus();
}

constexpr double kNoPercentLimit = std::numeric_limits<double>::infinity();

absl::Status SetMountpoint(std::string_view value, std::string& out) {
  absl::Status status = SetAbsolutePath(value, out);
  // Slurm drops one trailing '/' so that paths join cleanly.
  if (status.ok() && out.size() > 1 && out.back() == '/') out.pop_back();
  return status;
}

absl::Status SetSwappiness(std::string_view value, CgroupState& c) {
  absl::Status status = SetInt(value, 0, kMaxInt64, c.config.memory_swappiness);
  if (status.ok() && c.config.memory_swappiness > kMaxSwappiness) {
    c.Warn("MemorySwappiness", absl::StrCat(c.config.memory_swappiness,
                                            " is too high (0 to 100); 100 is used, as in Slurm"));
    c.config.memory_swappiness = kMaxSwappiness;
  }
  return status;
}

// A key Slurm still reads but ignores: the value is not checked, the line is.
absl::Status Obsolete(CgroupState& c, std::string_view key, std::string_view what) {
  c.Warn(key, what);
  return absl::OkStatus();
}

const KeyTable<CgroupState>& CgroupKeys() {
  using C = CgroupState;
  static const auto* const kTable = new KeyTable<CgroupState>{
      {
          {"CgroupPlugin",
           [](std::string_view v, C& c) {
             return SetChoice(v, {"autodetect", "cgroup/v1", "cgroup/v2", "disabled"},
                              c.config.plugin);
           }},
          {"CgroupMountpoint",
           [](std::string_view v, C& c) { return SetMountpoint(v, c.config.mountpoint); }},
          {"ConstrainCores",
           [](std::string_view v, C& c) { return SetBool(v, c.config.constrain_cores); }},
          {"ConstrainDevices",
           [](std::string_view v, C& c) { return SetBool(v, c.config.constrain_devices); }},
          {"ConstrainRAMSpace",
           [](std::string_view v, C& c) { return SetBool(v, c.config.constrain_ram_space); }},
          {"ConstrainSwapSpace",
           [](std::string_view v, C& c) { return SetBool(v, c.config.constrain_swap_space); }},
          {"AllowedRAMSpace",
           [](std::string_view v, C& c) {
             return SetPercent(v, false, kNoPercentLimit, c.config.allowed_ram_space);
           }},
          {"AllowedSwapSpace",
           [](std::string_view v, C& c) {
             return SetPercent(v, true, kNoPercentLimit, c.config.allowed_swap_space);
           }},
          {"MaxRAMPercent",
           [](std::string_view v, C& c) {
             return SetPercent(v, false, kNoPercentLimit, c.config.max_ram_percent);
           }},
          {"MaxSwapPercent",
           [](std::string_view v, C& c) {
             return SetPercent(v, true, 100, c.config.max_swap_percent);
           }},
          // Megabytes, as Slurm reads it; a size suffix ("1G") is accepted too, as
          // for RealMemory.
          {"MinRAMSpace",
           [](std::string_view v, C& c) { return SetMiB(v, 0, c.config.min_ram_space_mb); }},
          {"MemorySwappiness", SetSwappiness},
          {"IgnoreSystemd",
           [](std::string_view v, C& c) { return SetBool(v, c.config.ignore_systemd); }},
          {"IgnoreSystemdOnFailure",
           [](std::string_view v, C& c) { return SetBool(v, c.config.ignore_systemd_on_failure); }},
          {"EnableControllers",
           [](std::string_view v, C& c) { return SetBool(v, c.config.enable_controllers); }},
          {"SignalChildrenProcesses",
           [](std::string_view v, C& c) { return SetBool(v, c.config.signal_children_processes); }},
          {"SystemdTimeout",
           [](std::string_view v, C& c) {
             return SetInt(v, 1, kMaxUint32, c.config.systemd_timeout_ms);
           }},
          // Slurm: "The option "CgroupAutomount" is defunct, please remove it".
          {"CgroupAutomount",
           [](std::string_view, C& c) {
             return Obsolete(c, "CgroupAutomount",
                             "defunct in Slurm (the system mounts cgroups); remove it");
           }},
          // Slurm: "AllowedDevicesFile option is obsolete, please remove it".
          {"AllowedDevicesFile",
           [](std::string_view, C& c) {
             return Obsolete(c, "AllowedDevicesFile",
                             "obsolete in Slurm (devices come from gres.conf); remove it");
           }},
          // Still in Slurm's key table, never read.
          {"MemoryLimitEnforcement",
           [](std::string_view, C& c) {
             return Obsolete(c, "MemoryLimitEnforcement", "obsolete in Slurm; ignored, remove it");
           }},
          {"MemoryLimitThreshold",
           [](std::string_view, C& c) {
             return Obsolete(c, "MemoryLimitThreshold", "obsolete in Slurm; ignored, remove it");
           }},
      },
      /*ignored=*/{},
      /*unsupported=*/{},
      /*strict=*/true,
  };
  return *kTable;
}

// Keys Slurm no longer accepts at all: it refuses to start, so Skiff does too,
// saying what to do instead.
std::string_view RemovedKeyAdvice(std::string_view key) {
  struct Removed {
    std::string_view key;
    std::string_view advice;
  };
  static constexpr Removed kRemoved[] = {
      {"CgroupReleaseAgentDir", "support was removed from Slurm; delete this line"},
      {"TaskAffinity",
       "removed from Slurm (set TaskPlugin=task/affinity in slurm.conf); delete this line"},
      {"ConstrainKmemSpace", "kernel memory limits were removed from Slurm; delete this line"},
      {"AllowedKmemSpace", "kernel memory limits were removed from Slurm; delete this line"},
      {"MaxKmemPercent", "kernel memory limits were removed from Slurm; delete this line"},
      {"MinKmemSpace", "kernel memory limits were removed from Slurm; delete this line"},
  };
  for (const Removed& removed : kRemoved) {
    if (EqualsIgnoreCase(removed.key, key)) return removed.advice;
  }
  return "";
}

// Keys that only one cgroup version reads: set with CgroupPlugin naming the other,
// they do nothing, and Slurm says nothing.
void WarnAboutOtherVersionKeys(CgroupState& state) {
  struct VersionKey {
    std::string_view key;
    std::string_view applies_to;
  };
  static constexpr VersionKey kVersionKeys[] = {
      {"IgnoreSystemd", "cgroup/v2"},     {"IgnoreSystemdOnFailure", "cgroup/v2"},
      {"EnableControllers", "cgroup/v2"}, {"SystemdTimeout", "cgroup/v2"},
      {"MemorySwappiness", "cgroup/v1"},
  };
  const std::string& plugin = state.config.plugin;
  if (plugin != "cgroup/v1" && plugin != "cgroup/v2") return;  // autodetect may use either
  for (const VersionKey& version_key : kVersionKeys) {
    if (version_key.applies_to == plugin) continue;
    auto it = state.key_lines.find(std::string(version_key.key));
    if (it == state.key_lines.end()) continue;
    state.config.warnings.push_back(LineWarning(
        *it->second, version_key.key,
        absl::StrCat("only applies to ", config_internal::AsAbsl(version_key.applies_to),
                     "; ignored with CgroupPlugin=", plugin)));
  }
}

}  // namespace

absl::StatusOr<CgroupConfig> ParseCgroupConfig(std::string_view text, std::string_view file_name,
                                               const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  CgroupConfig config;
  CgroupState state{config};
  for (const LogicalLine& line : *lines) {
    for (const config_internal::KeyValue& pair : line.pairs) {
      std::string_view advice = RemovedKeyAdvice(pair.key);
      if (!advice.empty()) return LineError(line, pair.key, advice);
    }
    state.line = &line;
    PairContext context{"", &config.warnings, nullptr};
    absl::Status status = ApplyPairs(line, CgroupKeys(), context, state);
    if (!status.ok()) return status;
    for (const config_internal::KeyValue& pair : line.pairs) {
      if (const auto* spec = CgroupKeys().Find(pair.key)) {
        state.key_lines[std::string(spec->name)] = &line;
      }
    }
  }
  // As in Slurm, IgnoreSystemd=yes implies IgnoreSystemdOnFailure=yes.
  if (config.ignore_systemd) config.ignore_systemd_on_failure = true;
  WarnAboutOtherVersionKeys(state);
  return config;
}

}  // namespace skiff
