#include "cli/common/defined_options.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

// How Slurm shows an option's value back (its get_func). An option not listed
// shows its value as given, or "set" when it is a flag.
enum class Display {
  kInteger,    // "%d"; a flag means 1 (-I, -K without a value)
  kMegabytes,  // mbytes_to_str
  kDuration,   // mins2time_str
  kTimestamp,  // slurm_make_time_str
  kNodes,      // "N" or "MIN-MAX"
  kExclusive,  // "exclusive", "user", "mcs", "oversubscribe"
  kSignal,     // signal_opts_to_cmdline
  kMailType,   // print_mail_type
  kOpenMode,   // "a" or "t"
  kGres,       // each entry "gres:NAME..."
  kChdir,      // absolute
  kRequeue,    // the option's own name
  kSetUnset,   // "set", or "unset" for "off"/"no" (--no-kill=off)
};

const std::map<std::string_view, Display>& DisplayTable() {
  static const auto* const table = new std::map<std::string_view, Display>{
      {"begin", Display::kTimestamp},
      {"chdir", Display::kChdir},
      {"cores-per-socket", Display::kInteger},
      {"cpus-per-gpu", Display::kInteger},
      {"cpus-per-task", Display::kInteger},
      {"deadline", Display::kTimestamp},
      {"exclusive", Display::kExclusive},
      {"gres", Display::kGres},
      {"immediate", Display::kInteger},
      {"jobid", Display::kInteger},
      {"kill-on-bad-exit", Display::kInteger},
      {"mail-type", Display::kMailType},
      {"mem", Display::kMegabytes},
      {"mem-per-cpu", Display::kMegabytes},
      {"mem-per-gpu", Display::kMegabytes},
      {"mincpus", Display::kInteger},
      {"nice", Display::kInteger},
      {"no-kill", Display::kSetUnset},
      {"no-requeue", Display::kRequeue},
      {"nodes", Display::kNodes},
      {"ntasks", Display::kInteger},
      {"ntasks-per-core", Display::kInteger},
      {"ntasks-per-gpu", Display::kInteger},
      {"ntasks-per-node", Display::kInteger},
      {"ntasks-per-socket", Display::kInteger},
      {"open-mode", Display::kOpenMode},
      {"oversubscribe", Display::kExclusive},
      {"priority", Display::kInteger},
      {"requeue", Display::kRequeue},
      {"signal", Display::kSignal},
      {"sockets-per-node", Display::kInteger},
      {"tasks-per-node", Display::kInteger},
      {"threads-per-core", Display::kInteger},
      {"time", Display::kDuration},
      {"time-min", Display::kDuration},
      {"tmp", Display::kMegabytes},
      {"wait-all-nodes", Display::kInteger},
  };
  return *table;
}

std::string IntegerText(const std::optional<std::string>& value) {
  if (!value) return "1";
  int64_t n = 0;
  return absl::SimpleAtoi(*value, &n) ? absl::StrCat(n) : *value;
}

// Slurm's str_to_mbytes rounds a K size up to whole MB ("1500K" is 2).
std::string MegabytesText(const std::string& value) {
  absl::StatusOr<uint64_t> bytes = ParseSize(value, kMiB);
  return bytes.ok() ? SlurmMegabytesText(*bytes / kMiB + (*bytes % kMiB != 0 ? 1 : 0)) : value;
}

std::string DurationText(const std::string& value) {
  absl::StatusOr<int64_t> seconds = ParseDuration(value);
  if (!seconds.ok()) return value;
  if (*seconds == kInfiniteDuration) return "UNLIMITED";
  return FormatTimeLimit((*seconds + 59) / 60 * 60);  // Slurm rounds up to minutes
}

std::string NodesText(const std::string& value) {
  std::vector<std::string> range = absl::StrSplit(value, '-');
  int min = 0, max = 0;
  if (range.size() == 2 && absl::SimpleAtoi(range[0], &min) && absl::SimpleAtoi(range[1], &max)) {
    return min == max ? absl::StrCat(min) : absl::StrCat(min, "-", max);
  }
  return range.size() == 1 && absl::SimpleAtoi(value, &min) ? absl::StrCat(min) : value;
}

// "[{R|B}:]SIG[@TIME]", TIME shown only when it is not Slurm's 60.
std::string SignalText(const std::string& value) {
  std::string rest = value;
  std::string prefix;
  if (size_t colon = rest.find(':'); colon != std::string::npos) {
    const std::string flags = absl::AsciiStrToUpper(rest.substr(0, colon));
    if (flags == "R" || flags == "B") prefix = flags + ":";
    rest.erase(0, colon + 1);
  }
  std::string time;
  if (size_t at = rest.find('@'); at != std::string::npos) {
    int seconds = 0;
    if (absl::SimpleAtoi(rest.substr(at + 1), &seconds) && seconds != 60) {
      time = absl::StrCat("@", seconds);
    }
    rest.resize(at);
  }
  absl::StatusOr<int> number = client::ParseSignal(rest);
  if (!number.ok()) return value;
  return absl::StrCat(prefix, client::SignalName(*number), time);
}

// Slurm's parse_mail_type, then print_mail_type's order.
std::string MailTypeText(const std::string& value) {
  enum : unsigned {
    kArrayTasks = 1 << 0,
    kInvalidDepend = 1 << 1,
    kBegin = 1 << 2,
    kEnd = 1 << 3,
    kFail = 1 << 4,
    kRequeue = 1 << 5,
    kStageOut = 1 << 6,
    kTime50 = 1 << 7,
    kTime80 = 1 << 8,
    kTime90 = 1 << 9,
    kTime100 = 1 << 10,
  };
  static const auto* const kWords = new std::map<std::string, unsigned>{
      {"ARRAY_TASKS", kArrayTasks},
      {"INVALID_DEPEND", kInvalidDepend},
      {"BEGIN", kBegin},
      {"END", kEnd},
      {"FAIL", kFail},
      {"REQUEUE", kRequeue},
      {"STAGE_OUT", kStageOut},
      {"TIME_LIMIT_50", kTime50},
      {"TIME_LIMIT_80", kTime80},
      {"TIME_LIMIT_90", kTime90},
      {"TIME_LIMIT", kTime100},
      {"ALL", kInvalidDepend | kBegin | kEnd | kFail | kRequeue | kStageOut},
  };
  unsigned bits = 0;
  for (absl::string_view word : absl::StrSplit(value, ',')) {
    const std::string upper = absl::AsciiStrToUpper(word);
    if (upper == "NONE") return "NONE";
    if (auto it = kWords->find(upper); it != kWords->end()) bits |= it->second;
  }
  if (bits == 0) return value;
  constexpr std::pair<unsigned, const char*> kShown[] = {
      {kArrayTasks, "ARRAY_TASKS"},
      {kInvalidDepend, "INVALID_DEPEND"},
      {kBegin, "BEGIN"},
      {kEnd, "END"},
      {kFail, "FAIL"},
      {kRequeue, "REQUEUE"},
      {kStageOut, "STAGE_OUT"},
      {kTime50, "TIME_LIMIT_50"},
      {kTime80, "TIME_LIMIT_80"},
      {kTime90, "TIME_LIMIT_90"},
      {kTime100, "TIME_LIMIT"},
  };
  std::vector<std::string> words;
  for (const auto& [bit, word] : kShown) {
    if (bits & bit) words.push_back(word);
  }
  return absl::StrJoin(words, ",");
}

std::string GresText(const std::string& value) {
  std::vector<std::string> entries;
  for (absl::string_view entry : absl::StrSplit(value, ',')) {
    entries.push_back(absl::StartsWith(entry, "gres:") ? std::string(entry)
                                                       : absl::StrCat("gres:", entry));
  }
  return absl::StrJoin(entries, ",");
}

std::string DisplayedValue(const GivenOption& option, const GivenContext& context) {
  auto it = DisplayTable().find(option.name);
  if (it == DisplayTable().end()) return option.value.value_or("set");
  const std::string value = option.value.value_or("");
  switch (it->second) {
    case Display::kInteger:
      return IntegerText(option.value);
    case Display::kMegabytes:
      return MegabytesText(value);
    case Display::kDuration:
      return DurationText(value);
    case Display::kTimestamp: {
      absl::StatusOr<int64_t> when = ParseSlurmTime(value, context.now, /*past=*/false);
      return when.ok() ? FormatTimestamp(*when) : value;
    }
    case Display::kNodes:
      return NodesText(value);
    case Display::kExclusive:
      // -s and --exclusive show their one value; -s alone is "oversubscribe".
      if (option.name == "oversubscribe" && !option.value) return "oversubscribe";
      return value.empty() ? "exclusive" : value;
    case Display::kSignal:
      return SignalText(value);
    case Display::kMailType:
      return MailTypeText(value);
    case Display::kOpenMode:
      if (!value.empty() && (value[0] == 'a' || value[0] == 'A')) return "a";
      if (!value.empty() && (value[0] == 't' || value[0] == 'T')) return "t";
      return value;
    case Display::kGres:
      return GresText(value);
    case Display::kChdir:
      if (value.empty() || value[0] == '/') return value;
      return absl::StrCat(context.cwd, context.cwd.empty() || context.cwd.back() == '/' ? "" : "/",
                          value);
    case Display::kRequeue:
      return option.name;
    case Display::kSetUnset:
      return absl::EqualsIgnoreCase(value, "off") || absl::EqualsIgnoreCase(value, "no") ? "unset"
                                                                                         : "set";
  }
  return value;
}

}  // namespace

const std::vector<std::string>& SlurmOptionOrder() {
  static const std::vector<std::string>* const order = new std::vector<std::string>{
      "(null)",
      "accel-bind",
      "account",
      "acctg-freq",
      "(null)",
      "array",
      "argv",
      "batch",
      "bcast",
      "bcast-exclude",
      "begin",
      "bell",
      "bb",
      "bbf",
      "cluster-constraint",
      "chdir",
      "cluster",
      "clusters",
      "comment",
      "compress",
      "container",
      "context",
      "contiguous",
      "constraint",
      "core-spec",
      "cores-per-socket",
      "cpu-bind",
      "cpu_bind",
      "cpu-freq",
      "cpus-per-gpu",
      "cpus-per-task",
      "deadline",
      "debugger-test",
      "delay-boot",
      "environment",
      "dependency",
      "disable-status",
      "distribution",
      "epilog",
      "error",
      "exact",
      "exclude",
      "exclusive",
      "export",
      "export-file",
      "extra-node-info",
      "get-user-env",
      "gid",
      "gpu-bind",
      "gpu-freq",
      "gpus",
      "gpus-per-node",
      "gpus-per-socket",
      "gpus-per-task",
      "gres",
      "gres-flags",
      "help",
      "het-group",
      "hint",
      "hold",
      "ignore-pbs",
      "immediate",
      "input",
      "interactive",
      "jobid",
      "job-name",
      "kill-command",
      "kill-on-bad-exit",
      "kill-on-invalid-dep",
      "label",
      "licenses",
      "mail-type",
      "mail-user",
      "threads",
      "mcs-label",
      "mem",
      "mem-bind",
      "mem-per-cpu",
      "mem-per-gpu",
      "mincpus",
      "mpi",
      "msg-timeout",
      "multi-prog",
      "network",
      "nice",
      "no-allocate",
      "no-bell",
      "no-kill",
      "no-shell",
      "no-requeue",
      "nodefile",
      "nodelist",
      "nodes",
      "ntasks",
      "ntasks-per-core",
      "ntasks-per-gpu",
      "ntasks-per-node",
      "ntasks-per-socket",
      "ntasks-per-tres",
      "open-mode",
      "output",
      "overcommit",
      "overlap",
      "oversubscribe",
      "pack-group",
      "parsable",
      "partition",
      "power",
      "prefer",
      "preserve-env",
      "priority",
      "profile",
      "prolog",
      "propagate",
      "pty",
      "qos",
      "quiet",
      "quit-on-interrupt",
      "reboot",
      "relative",
      "requeue",
      "reservation",
      "resv-ports",
      "send-libs",
      "signal",
      "slurmd-debug",
      "sockets-per-node",
      "spread-job",
      "switches",
      "task-epilog",
      "task-prolog",
      "tasks-per-node",
      "test-only",
      "thread-spec",
      "threads-per-core",
      "time",
      "time-min",
      "tmp",
      "uid",
      "unbuffered",
      "use-min-nodes",
      "verbose",
      "version",
      "usage",
      "wait",
      "wait-all-nodes",
      "wckey",
      "whole",
      "wrap",
      "x11",
  };
  return *order;
}

std::string SlurmMegabytesText(uint64_t megabytes) {
  constexpr char kUnits[] = "MGTP?";
  size_t unit = 0;
  for (; kUnits[unit] != '?'; ++unit) {
    if (megabytes != 0 && megabytes % 1024 != 0) break;
    megabytes /= 1024;
  }
  if (kUnits[unit] == 'M') return absl::StrCat(megabytes);
  return absl::StrCat(megabytes, std::string(1, kUnits[unit]));
}

std::vector<std::string> DefinedOptionsBlock(const std::vector<GivenOption>& given,
                                             const GivenContext& context) {
  std::map<size_t, std::string> lines;  // by the option's place in Slurm's table
  for (const GivenOption& option : given) {
    const std::vector<std::string>& order = SlurmOptionOrder();
    const auto place = std::find(order.begin(), order.end(), option.name);
    if (place == order.end()) continue;  // not one of Slurm's: not shown
    char name[32];
    std::snprintf(name, sizeof(name), "%-20s", option.name.c_str());
    lines[static_cast<size_t>(place - order.begin())] =
        absl::StrCat(name, ": ", DisplayedValue(option, context));
  }
  std::vector<std::string> block = {"defined options", "-------------------- --------------------"};
  for (auto& [place, line] : lines) block.push_back(std::move(line));
  block.push_back("-------------------- --------------------");
  block.push_back("end of defined options");
  return block;
}

}  // namespace skiff::cli
