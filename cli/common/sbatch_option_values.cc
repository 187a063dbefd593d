// The checks and conversions of single sbatch option values (counts, memory,
// --array, --mail-type, -w/-x, --export, --begin) that BuildSubmission applies.
#include <time.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/common/sbatch_options.h"
#include "cli/common/sbatch_options_internal.h"
#include "client/job_text.h"
#include "common/hostlist.h"
#include "common/size.h"

namespace skiff::cli {
namespace {

// Splits on `sep`, keeping empty pieces.
std::vector<std::string> SplitKeepEmpty(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool AllDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// The names in a Slurm host file: one entry per line, each a name or hostlist
// expression (commas allowed), "name*N" meaning the name N times, '#' starting a
// comment unless escaped as "\#".
absl::StatusOr<std::vector<std::string>> NamesInHostFile(const std::string& text,
                                                         const std::string& path) {
  std::vector<std::string> names;
  int lineno = 0;
  for (std::string line : SplitKeepEmpty(text, '\n')) {
    ++lineno;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] != '#') continue;
      if (i > 0 && line[i - 1] == '\\') {
        line.erase(i - 1, 1);
        --i;
        continue;
      }
      line.resize(i);
      break;
    }
    std::string entry(absl::StripAsciiWhitespace(line));
    if (entry.empty()) continue;
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(entry);
    if (!expanded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid hostfile ", path, " contents on line ", lineno, ": ", entry));
    }
    for (std::string& name : *expanded) {
      if (size_t star = name.find('*'); star != std::string::npos) name.resize(star);
      names.push_back(std::move(name));
    }
  }
  return names;
}

// Seconds in a --begin unit; 0 for an unknown unit.
int64_t BeginUnit(const std::string& unit) {
  static const std::pair<const char*, int64_t> kUnits[] = {
      {"", 1},         {"s", 1},        {"sec", 1},     {"secs", 1},      {"second", 1},
      {"seconds", 1},  {"m", 60},       {"min", 60},    {"mins", 60},     {"minute", 60},
      {"minutes", 60}, {"h", 3600},     {"hour", 3600}, {"hours", 3600},  {"d", 86400},
      {"day", 86400},  {"days", 86400}, {"w", 604800},  {"week", 604800}, {"weeks", 604800},
  };
  for (const auto& [name, seconds] : kUnits) {
    if (unit == name) return seconds;
  }
  return 0;
}

// Parses "HH:MM[:SS]" into *h *m *s.
bool ParseClock(const std::string& text, int* h, int* m, int* s) {
  char tail = 0;
  *s = 0;
  int n = std::sscanf(text.c_str(), "%2d:%2d:%2d%c", h, m, s, &tail);
  if (n == 2) {
    n = std::sscanf(text.c_str(), "%2d:%2d%c", h, m, &tail);
    if (n != 2) return false;
  } else if (n != 3) {
    return false;
  }
  return *h >= 0 && *h < 24 && *m >= 0 && *m < 60 && *s >= 0 && *s < 60;
}

}  // namespace

namespace sbatch_internal {

absl::Status BadSpecification(const std::string& option) {
  return absl::InvalidArgumentError(absl::StrCat("Invalid ", option, " specification"));
}

absl::Status BadValue(const std::string& option, const std::string& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid ", option, " specification: '", value, "'"));
}

std::optional<int64_t> PositiveInt(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return std::nullopt;
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0 || value > INT32_MAX) {
    return std::nullopt;
  }
  return value;
}

absl::StatusOr<int32_t> CountOption(const std::string& option, const std::string& value) {
  std::optional<int64_t> n = PositiveInt(value);
  if (!n) {
    // Slurm's parse_int exits 1 (FailedPrecondition: SbatchExitCode).
    return absl::FailedPreconditionError(
        absl::StrCat("Invalid numeric value \"", value, "\" for ", option, "."));
  }
  return static_cast<int32_t>(*n);
}

absl::StatusOr<uint64_t> MemoryOption(const std::string& option, const std::string& value) {
  absl::StatusOr<uint64_t> bytes = ParseSize(value, kMiB);
  if (!bytes.ok()) return BadSpecification(option);
  return *bytes / kMiB + (*bytes % kMiB != 0 ? 1 : 0);
}

std::string Absolute(const std::string& path, const std::string& base) {
  if (path.empty() || path[0] == '/') return path;
  if (path == ".") return base;
  std::string rel = path;
  while (rel.size() > 2 && rel.compare(0, 2, "./") == 0) rel.erase(0, 2);
  if (base.empty() || base.back() == '/') return base + rel;
  return base + "/" + rel;
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

absl::Status GpuCountOption(const std::string& option, const std::string& value, bool list) {
  std::vector<std::string> items = list ? SplitKeepEmpty(value, ',') : std::vector{value};
  for (const std::string& item : items) {
    std::vector<std::string> parts = SplitKeepEmpty(item, ':');
    if (parts.size() > 2 || !PositiveInt(parts.back()) || parts.front().empty()) {
      return BadValue(option, value);
    }
  }
  return absl::OkStatus();
}

absl::Status ArrayOption(const std::string& value) {
  std::string indexes = value;
  if (size_t pct = value.find('%'); pct != std::string::npos) {
    indexes = value.substr(0, pct);
    if (!AllDigits(value.substr(pct + 1))) return BadValue("--array", value);
  }
  for (const std::string& item : SplitKeepEmpty(indexes, ',')) {
    std::string range = item, step;
    if (size_t colon = item.find(':'); colon != std::string::npos) {
      range = item.substr(0, colon);
      step = item.substr(colon + 1);
      if (!PositiveInt(step) || range.find('-') == std::string::npos) {
        return BadValue("--array", value);
      }
    }
    std::vector<std::string> bounds = SplitKeepEmpty(range, '-');
    if (bounds.size() > 2 || !AllDigits(bounds.front()) || !AllDigits(bounds.back()) ||
        bounds.front().size() > 9 || bounds.back().size() > 9 ||
        std::stoll(bounds.back()) < std::stoll(bounds.front())) {
      return BadValue("--array", value);
    }
  }
  return absl::OkStatus();
}

absl::Status MailTypeOption(const std::string& value) {
  static const std::set<std::string> kTypes = {
      "NONE",           "BEGIN",         "END",           "FAIL",
      "REQUEUE",        "ALL",           "STAGE_OUT",     "TIME_LIMIT",
      "TIME_LIMIT_90",  "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS",
      "INVALID_DEPEND",
  };
  std::vector<std::string> items = client::SplitCommaList(value);
  bool ok = !items.empty() && std::all_of(items.begin(), items.end(), [](const std::string& t) {
    return kTypes.count(absl::AsciiStrToUpper(t)) != 0;
  });
  if (!ok) return BadSpecification("--mail-type");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> NodeListOption(const std::string& option,
                                                        const std::string& value,
                                                        const SubmitContext& context) {
  std::vector<std::string> names;
  if (value.find('/') != std::string::npos) {
    absl::StatusOr<std::string> text = context.read_file
                                           ? context.read_file(Absolute(value, context.cwd))
                                           : absl::UnavailableError("no file reader");
    if (!text.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Unable to read the node file of ", option, ", ", value, ": ", text.status().message()));
    }
    absl::StatusOr<std::vector<std::string>> read = NamesInHostFile(*text, value);
    if (!read.ok()) return absl::FailedPreconditionError(read.status().message());
    if (read->empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("The node file of ", option, ", ", value, ", names no nodes"));
    }
    names = std::move(*read);
  } else {
    absl::StatusOr<std::vector<std::string>> expanded = ExpandHostlist(value);
    if (!expanded.ok() || expanded->empty()) return BadValue(option, value);
    names = std::move(*expanded);
  }
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& name : names) {
    if (seen.insert(name).second) unique.push_back(std::move(name));
  }
  return unique;
}

absl::Status FillEnvironment(const std::string& mode, const SubmitContext& context,
                             v1::JobSpec* spec) {
  auto* env = spec->mutable_environment();
  std::string upper = absl::AsciiStrToUpper(mode);
  if (upper == "ALL") {
    env->insert(context.environment.begin(), context.environment.end());
    return absl::OkStatus();
  }
  for (const auto& [name, value] : context.environment) {
    if (StartsWith(name, "SLURM_")) (*env)[name] = value;
  }
  if (upper == "NONE") return absl::OkStatus();
  std::vector<std::string> items = client::SplitCommaList(mode);
  if (items.empty()) return BadValue("--export", mode);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    if (i == 0 && absl::AsciiStrToUpper(item) == "ALL") {
      env->insert(context.environment.begin(), context.environment.end());
      continue;
    }
    if (absl::AsciiStrToUpper(item) == "NONE" || absl::AsciiStrToUpper(item) == "ALL") {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid --export specification: '", mode, "': ", item,
                       " may only stand alone (ALL may also lead a list)"));
    }
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (name.empty()) return BadValue("--export", mode);
    if (eq == std::string::npos) {
      auto it = context.environment.find(name);
      if (it != context.environment.end()) (*env)[name] = it->second;
    } else {
      (*env)[name] = item.substr(eq + 1);
    }
  }
  return absl::OkStatus();
}

}  // namespace sbatch_internal

absl::Status CheckTmpOption(const std::string& value) {
  return sbatch_internal::MemoryOption("--tmp", value).status();
}

namespace {

// Slurm's get_resource_arg_range over one part of -B: strtol's number with a
// K or M multiplier, then "-MAX" (above zero). The minimum as text, or "*"
// for a part that is empty or "*" (every value).
absl::StatusOr<std::string> ExtraNodeInfoPart(const std::string& part, const char* what) {
  if (part.empty() || part[0] == '*') return std::string("*");
  auto bad = [&] {  // get_resource_arg_range exits 1 (SbatchExitCode)
    return absl::FailedPreconditionError(
        absl::StrCat("Invalid numeric value \"", part, "\" for ", what, "."));
  };
  // One number: digits (strtol's; none is 0), a multiplier; nullopt past INT_MAX.
  auto number = [](const char*& p) -> std::optional<int64_t> {
    int64_t n = 0;
    while (*p >= '0' && *p <= '9') {
      n = n * 10 + (*p++ - '0');
      if (n > INT32_MAX) return std::nullopt;
    }
    if (*p == 'k' || *p == 'K')
      n *= 1024, ++p;
    else if (*p == 'm' || *p == 'M')
      n *= 1048576, ++p;
    if (n > INT32_MAX) return std::nullopt;
    return n;
  };
  const char* p = part.c_str();
  std::optional<int64_t> min = number(p);
  if (!min || (*p != '\0' && *p != '-')) return bad();
  if (*p == '-') {
    ++p;
    std::optional<int64_t> max = number(p);
    if (!max || *max <= 0 || (*p != '\0' && *p != '-')) return bad();
  }
  return absl::StrCat(*min);
}

}  // namespace

absl::StatusOr<std::array<std::string, 3>> ExtraNodeInfoFloors(const std::string& value) {
  static constexpr const char* kWhat[] = {"first arg of -B", "second arg of -B", "third arg of -B"};
  std::array<std::string, 3> floors = {"*", "*", "*"};
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t colon = value.find(':', start);
    const std::string part =
        value.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    absl::StatusOr<std::string> floor = ExtraNodeInfoPart(part, kWhat[i]);
    if (!floor.ok()) return floor.status();
    floors[i] = *floor;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return floors;
}

absl::StatusOr<int32_t> TopologyFloorOption(const std::string& option, const std::string& value) {
  if (value == "*") return 0;  // -B's "every value"
  return sbatch_internal::CountOption(option, value);
}

absl::StatusOr<bool> ParseNoKillOption(const std::string& value) {
  if (absl::EqualsIgnoreCase(value, "set")) return true;
  if (absl::EqualsIgnoreCase(value, "off") || absl::EqualsIgnoreCase(value, "no")) return false;
  return sbatch_internal::BadSpecification("--no-kill");
}

using sbatch_internal::PositiveInt;
using sbatch_internal::StartsWith;

absl::StatusOr<int64_t> ParseBeginTime(std::string_view text_in, int64_t now) {
  std::string text = absl::AsciiStrToLower(std::string(text_in));
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid --begin specification: '", std::string(text_in), "'"));
  };
  time_t now_t = static_cast<time_t>(now);
  struct tm today;
  localtime_r(&now_t, &today);
  // A local wall-clock time on the day `day` (0 = today) from now.
  auto at = [&](int day, int h, int m, int s) {
    struct tm t = today;
    t.tm_mday += day;
    t.tm_hour = h;
    t.tm_min = m;
    t.tm_sec = s;
    t.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&t));
  };
  // Today at h:m:s, or tomorrow when that has passed.
  auto next = [&](int h, int m, int s) {
    int64_t t = at(0, h, m, s);
    return t < now ? at(1, h, m, s) : t;
  };
  if (text == "now") return now;
  if (text == "today") return at(0, 0, 0, 0);
  if (text == "tomorrow") return at(1, 0, 0, 0);
  if (text == "midnight") return at(1, 0, 0, 0);
  if (text == "noon") return next(12, 0, 0);
  if (text == "teatime") return next(16, 0, 0);
  if (StartsWith(text, "now+")) {
    std::string rest = text.substr(4);
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
      ++digits;
    }
    std::optional<int64_t> count = PositiveInt(rest.substr(0, digits));
    int64_t unit = BeginUnit(rest.substr(digits));
    if (!count || unit == 0) return bad();
    return now + *count * unit;
  }
  int h = 0, m = 0, s = 0;
  if (ParseClock(text, &h, &m, &s)) return next(h, m, s);
  // YYYY-MM-DD[THH:MM[:SS]]
  h = m = s = 0;  // ParseClock may have written part of a failed match
  int year = 0, month = 0, day = 0;
  char tail = 0;
  std::string date = text.substr(0, text.find('t'));
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &year, &month, &day, &tail) != 3 ||
      date.size() != 10 || month < 1 || month > 12 || day < 1 || day > 31) {
    return bad();
  }
  if (size_t t_pos = text.find('t'); t_pos != std::string::npos) {
    if (!ParseClock(text.substr(t_pos + 1), &h, &m, &s)) return bad();
  }
  struct tm t = {};
  t.tm_year = year - 1900;
  t.tm_mon = month - 1;
  t.tm_mday = day;
  t.tm_hour = h;
  t.tm_min = m;
  t.tm_sec = s;
  t.tm_isdst = -1;
  time_t result = mktime(&t);
  if (result == static_cast<time_t>(-1) || t.tm_mday != day) return bad();
  return static_cast<int64_t>(result);
}

}  // namespace skiff::cli
