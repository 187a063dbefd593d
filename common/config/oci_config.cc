// ParseOciConfig: oci.conf with Slurm 24.05's keys and checks
// (src/common/oci_config.c), through the shared kv_parser machinery.
#include <regex.h>

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"

namespace skiff {
namespace {

using config_internal::ApplyPairs;
using config_internal::Invalid;
using config_internal::KeyTable;
using config_internal::LineWarning;
using config_internal::LogicalLine;
using config_internal::PairContext;
using config_internal::Quoted;
using config_internal::SetBool;
using config_internal::SetString;

struct OciState {
  OciConfig& config;
  const LogicalLine* line = nullptr;
};

// Slurm's CreateEnvFile words, old and new.
absl::Status SetCreateEnvFile(std::string_view value, std::string& out) {
  const std::string word = absl::AsciiStrToLower(config_internal::AsAbsl(value));
  if (word == "null" || word == "true" || word == "y" || word == "yes" || word == "1") {
    out = "null";
  } else if (word == "newline") {
    out = "newline";
  } else if (word == "disabled" || word == "false" || word == "n" || word == "no" || word == "0") {
    out = "disabled";
  } else {
    return Invalid(absl::StrCat(Quoted(value), " is not null, newline or disabled"));
  }
  return absl::OkStatus();
}

// An extended regular expression, as Slurm compiles it (regcomp REG_EXTENDED).
absl::Status SetRegex(std::string_view value, std::string& out) {
  regex_t compiled;
  const std::string pattern(value);
  const int rc = regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char message[256];
    regerror(rc, &compiled, message, sizeof(message));
    return Invalid(
        absl::StrCat(Quoted(value), " is not an extended regular expression: ", message));
  }
  regfree(&compiled);
  out = pattern;
  return absl::OkStatus();
}

absl::Status Ignored(OciState& s, std::string_view key, std::string_view what) {
  s.config.warnings.push_back(LineWarning(*s.line, key, what));
  return absl::OkStatus();
}

const KeyTable<OciState>& OciKeys() {
  using S = OciState;
  static const auto* const kTable = new KeyTable<OciState>{
      {
          {"ContainerPath",
           [](std::string_view v, S& s) { return SetString(v, s.config.container_path); }},
          {"CreateEnvFile",
           [](std::string_view v, S& s) { return SetCreateEnvFile(v, s.config.create_env_file); }},
          {"DisableHooks",
           [](std::string_view v, S& s) {
             s.config.disable_hooks =
                 absl::StrSplit(config_internal::AsAbsl(v), ',', absl::SkipEmpty());
             return absl::OkStatus();
           }},
          {"EnvExclude",
           [](std::string_view v, S& s) { return SetRegex(v, s.config.env_exclude); }},
          {"RunTimeEnvExclude",
           [](std::string_view v, S& s) { return SetRegex(v, s.config.run_time_env_exclude); }},
          {"MountSpoolDir",
           [](std::string_view v, S& s) { return SetString(v, s.config.mount_spool_dir); }},
          {"IgnoreFileConfigJson",
           [](std::string_view v, S& s) { return SetBool(v, s.config.ignore_file_config_json); }},
          {"DisableCleanup",
           [](std::string_view v, S& s) { return SetBool(v, s.config.disable_cleanup); }},
          {"RunTimeCreate",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_create); }},
          {"RunTimeDelete",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_delete); }},
          {"RunTimeKill",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_kill); }},
          {"RunTimeQuery",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_query); }},
          {"RunTimeRun",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_run); }},
          {"RunTimeStart",
           [](std::string_view v, S& s) { return SetString(v, s.config.run_time_start); }},
          // scrun's (Slurm's own docker-like front end), which Skiff does not have.
          {"SrunPath",
           [](std::string_view, S& s) { return Ignored(s, "SrunPath", "for scrun; ignored"); }},
          {"SrunArgs",
           [](std::string_view, S& s) { return Ignored(s, "SrunArgs", "for scrun; ignored"); }},
          // Slurm's logging levels while it runs containers; noded logs as it always does.
          {"StdIODebug",
           [](std::string_view, S& s) { return Ignored(s, "StdIODebug", "ignored by noded"); }},
          {"SyslogDebug",
           [](std::string_view, S& s) { return Ignored(s, "SyslogDebug", "ignored by noded"); }},
          {"FileDebug",
           [](std::string_view, S& s) { return Ignored(s, "FileDebug", "ignored by noded"); }},
          {"DebugFlags",
           [](std::string_view, S& s) { return Ignored(s, "DebugFlags", "ignored by noded"); }},
      },
      /*ignored=*/{},
      /*unsupported=*/{},
      /*strict=*/true,
  };
  return *kTable;
}

}  // namespace

OciConfig DefaultOciConfig(OciRuntime runtime) {
  OciConfig config;
  // Both take the same command line for these (Slurm's oci.conf examples).
  const std::string program = runtime == OciRuntime::kRunc ? "runc" : "crun";
  const std::string run = absl::StrCat(program, " --rootless=true --root=%m/", program);
  const std::string id = "%n.%u.%j.%s.%t";
  config.run_time_query = absl::StrCat(run, " state ", id);
  config.run_time_kill = absl::StrCat(run, " kill -a ", id);
  config.run_time_delete = absl::StrCat(run, " delete --force ", id);
  config.run_time_run = absl::StrCat(run, " run --bundle %b ", id);
  return config;
}

absl::StatusOr<OciConfig> ParseOciConfig(std::string_view text, std::string_view file_name,
                                         const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  OciConfig config;
  OciState state{config};
  for (const LogicalLine& line : *lines) {
    state.line = &line;
    PairContext context{"", &config.warnings, nullptr};
    if (absl::Status status = ApplyPairs(line, OciKeys(), context, state); !status.ok()) {
      return status;
    }
  }
  if (config.ignore_file_config_json) return config;  // the site fakes a runtime: no checks
  const OciConfig& c = config;
  const bool any = !c.run_time_create.empty() || !c.run_time_delete.empty() ||
                   !c.run_time_kill.empty() || !c.run_time_query.empty() ||
                   !c.run_time_run.empty() || !c.run_time_start.empty();
  const bool create_start = !c.run_time_create.empty() && !c.run_time_delete.empty() &&
                            !c.run_time_kill.empty() && !c.run_time_query.empty() &&
                            c.run_time_run.empty() && !c.run_time_start.empty();
  const bool run = c.run_time_create.empty() && !c.run_time_delete.empty() &&
                   !c.run_time_kill.empty() && !c.run_time_run.empty() && c.run_time_start.empty();
  if (!any) {
    return absl::InvalidArgumentError(
        absl::StrCat(config_internal::AsAbsl(file_name),
                     ": no RunTime* keys: set RunTimeRun, RunTimeKill and RunTimeDelete (or "
                     "RunTimeCreate, RunTimeStart, RunTimeQuery, RunTimeKill and RunTimeDelete)"));
  }
  if (!create_start && !run) {
    return absl::InvalidArgumentError(absl::StrCat(
        config_internal::AsAbsl(file_name),
        ": RunTimeRun and RunTimeCreate/RunTimeStart are mutually exclusive, and the other "
        "RunTime* keys must be set: RunTimeKill and RunTimeDelete with RunTimeRun; "
        "RunTimeQuery, RunTimeKill and RunTimeDelete with RunTimeCreate/RunTimeStart"));
  }
  return config;
}

}  // namespace skiff
