// ParseBurstBufferConfig: burst_buffer.conf as Slurm's burst_buffer/lua reads it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/size.h"

namespace skiff {
namespace {

using config_internal::ApplyPairs;
using config_internal::AsAbsl;
using config_internal::EqualsIgnoreCase;
using config_internal::Invalid;
using config_internal::KeyTable;
using config_internal::kMaxInt;
using config_internal::kMaxUint32;
using config_internal::LineWarning;
using config_internal::LogicalLine;
using config_internal::PairContext;
using config_internal::ParseInteger;
using config_internal::Quoted;
using config_internal::SetChoice;
using config_internal::SetInt;
using config_internal::SetString;
using config_internal::SplitList;

// Slurm's burst_buffer/lua caps these timeouts at 24 days (seconds * 1000 must fit
// a 32-bit int) and clamps larger values with an error message.
constexpr int64_t kMaxLuaTimeout = 24 * 24 * 3600;

// The burst_buffer.conf being built, and the line being applied (for warnings).
struct BurstBufferState {
  BurstBufferConfig& config;
  const LogicalLine* line = nullptr;

  void Warn(std::string_view key, std::string_view what) {
    config.warnings.push_back(LineWarning(*line, key, what));
  }
};

absl::Status SetUsers(std::string_view value, const std::vector<std::string>& other,
                      std::string_view other_key, std::vector<std::string>& out,
                      BurstBufferState& b) {
  if (!other.empty()) {
    return Invalid(absl::StrCat("cannot be combined with ", AsAbsl(other_key)));
  }
  out = SplitList(value, ":,");
  b.config.users_origin = absl::StrCat(
      b.line->file, ":", b.line->line, ": ",
      config_internal::WrittenKey(*b.line, other_key == "DenyUsers" ? "AllowUsers" : "DenyUsers"));
  return absl::OkStatus();
}

// Seconds, as Slurm's 32-bit field holds them; above kMaxLuaTimeout Slurm's lua
// plugin clamps with an error message, and so does Skiff with a warning.
absl::Status SetLuaTimeout(std::string_view value, std::string_view key, BurstBufferState& b,
                           int64_t& out) {
  absl::Status status = SetInt(value, 1, kMaxUint32, out);
  if (status.ok() && out > kMaxLuaTimeout) {
    b.Warn(key, absl::StrCat(out, " exceeds the burst_buffer/lua maximum of ", kMaxLuaTimeout,
                             " seconds (24 days); ", kMaxLuaTimeout, " is used"));
    out = kMaxLuaTimeout;
  }
  return status;
}

// Flags as Slurm's burst_buffer/lua reads them: EnablePersistent and EmulateCray
// mean nothing there and Slurm drops them with an error message.
absl::Status SetBurstBufferFlags(std::string_view value, BurstBufferState& b) {
  std::vector<std::string> flags;
  for (const std::string& item : SplitList(value, ",")) {
    std::string flag;
    absl::Status status = SetChoice(
        item,
        {"DisablePersistent", "EmulateCray", "EnablePersistent", "PrivateData", "TeardownFailure"},
        flag);
    if (!status.ok()) return Invalid(absl::StrCat("unknown flag: ", status.message()));
    if (flag == "EnablePersistent") {
      b.Warn("Flags",
             "EnablePersistent: burst_buffer/lua has no persistent buffers; DisablePersistent "
             "is used");
      flag = "DisablePersistent";
    } else if (flag == "EmulateCray") {
      b.Warn("Flags", "EmulateCray is for burst_buffer/datawarp only; ignored");
      continue;
    }
    if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
  }
  b.config.flags = std::move(flags);
  return absl::OkStatus();
}

// Scripts write the directive after one '#' ("#BB_LUA"), so it is one word
// without a '#' of its own.
absl::Status SetDirective(std::string_view value, std::string& out) {
  if (value.empty()) return Invalid("must not be empty");
  if (value.front() == '#') {
    std::string_view word = value.substr(1);
    return Invalid(absl::StrCat(Quoted(value), ": write it without the '#' (Directive=",
                                AsAbsl(word), ", and scripts use #", AsAbsl(word), ")"));
  }
  if (value.find_first_of(" \t#") != std::string_view::npos) {
    return Invalid(absl::StrCat(Quoted(value), " must be one word (no spaces or '#')"));
  }
  return SetString(value, out);
}

// Granularity=<size>[n]: not used by burst_buffer/lua, but a value Slurm cannot
// read is still a mistake. A trailing 'n' counts nodes; otherwise bytes, with
// Slurm's size suffixes.
absl::Status CheckGranularity(std::string_view value) {
  if (!value.empty() && (value.back() == 'n' || value.back() == 'N')) {
    absl::StatusOr<int64_t> nodes = ParseInteger(value.substr(0, value.size() - 1), 1, kMaxInt);
    return nodes.ok() ? absl::OkStatus()
                      : Invalid(absl::StrCat(Quoted(value), " is not a node count such as 2n"));
  }
  absl::StatusOr<uint64_t> bytes = ParseSize(value, 1);
  if (!bytes.ok()) return bytes.status();
  if (*bytes == 0) return Invalid(absl::StrCat(Quoted(value), " must be greater than 0"));
  return absl::OkStatus();
}

const KeyTable<BurstBufferState>& BurstBufferKeys() {
  using B = BurstBufferState;
  static const auto* const kTable = new KeyTable<BurstBufferState>{
      {
          {"Directive",
           [](std::string_view v, B& b) { return SetDirective(v, b.config.directive); }},
          {"StageInTimeout",
           [](std::string_view v, B& b) {
             return SetLuaTimeout(v, "StageInTimeout", b, b.config.stage_in_timeout);
           }},
          {"StageOutTimeout",
           [](std::string_view v, B& b) {
             return SetLuaTimeout(v, "StageOutTimeout", b, b.config.stage_out_timeout);
           }},
          {"ValidateTimeout",
           [](std::string_view v, B& b) {
             return SetInt(v, 1, kMaxUint32, b.config.validate_timeout);
           }},
          {"OtherTimeout",
           [](std::string_view v, B& b) {
             return SetLuaTimeout(v, "OtherTimeout", b, b.config.other_timeout);
           }},
          {"PollInterval", [](std::string_view v,
                              B& b) { return SetInt(v, 1, kMaxUint32, b.config.poll_interval); }},
          {"Flags", SetBurstBufferFlags},
          {"AllowUsers",
           [](std::string_view v, B& b) {
             return SetUsers(v, b.config.deny_users, "DenyUsers", b.config.allow_users, b);
           }},
          {"DenyUsers",
           [](std::string_view v, B& b) {
             return SetUsers(v, b.config.allow_users, "AllowUsers", b.config.deny_users, b);
           }},
          {"DefaultPool",
           [](std::string_view v, B& b) { return SetString(v, b.config.default_pool); }},
          {"Granularity", [](std::string_view v, B&) { return CheckGranularity(v); }},
          // Slurm's burst_buffer/lua drops these with an error message.
          {"GetSysState",
           [](std::string_view, B& b) {
             b.Warn("GetSysState", "not used by burst_buffer/lua; ignored");
             return absl::OkStatus();
           }},
          {"GetSysStatus",
           [](std::string_view, B& b) {
             b.Warn("GetSysStatus", "not used by burst_buffer/lua; ignored");
             return absl::OkStatus();
           }},
      },
      // burst_buffer/datawarp and generic options.
      {"AltPool", "CreateBuffer", "DestroyBuffer", "Pools", "StartStageIn", "StartStageOut",
       "StopStageIn", "StopStageOut"},
      /*unsupported=*/{},
      /*strict=*/false,
  };
  return *kTable;
}

}  // namespace

bool BurstBufferConfig::HasFlag(std::string_view flag) const {
  for (const std::string& have : flags) {
    if (EqualsIgnoreCase(have, flag)) return true;
  }
  return false;
}

absl::Status CheckBurstBufferUsers(const BurstBufferConfig& config,
                                   const std::function<bool(const std::string&)>& user_exists) {
  for (const std::vector<std::string>* users : {&config.allow_users, &config.deny_users}) {
    for (const std::string& user : *users) {
      if (user_exists(user)) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(config.users_origin, ": no such user ", Quoted(user),
                       " (Slurm would ignore it; correct the name or remove it)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<BurstBufferConfig> ParseBurstBufferConfig(std::string_view text,
                                                         std::string_view file_name,
                                                         const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  BurstBufferConfig config;
  BurstBufferState state{config};
  for (const LogicalLine& line : *lines) {
    state.line = &line;
    PairContext context{"", &config.warnings, nullptr};
    absl::Status status = ApplyPairs(line, BurstBufferKeys(), context, state);
    if (!status.ok()) return status;
  }
  return config;
}

}  // namespace skiff
