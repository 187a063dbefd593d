#include "common/time_format.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

// Debian builds Abseil with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW
// is 0), which does not convert from std::string_view implicitly.
absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

absl::Status DurationError(std::string_view text, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid time limit \"", AsAbsl(text), "\": ", AsAbsl(problem)));
}

// Adds field * unit to *total, refusing anything that would not fit in int64_t.
bool AddScaled(int64_t field, int64_t unit, int64_t* total) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (field > kMax / unit) return false;
  int64_t scaled = field * unit;
  if (*total > kMax - scaled) return false;
  *total += scaled;
  return true;
}

}  // namespace

absl::StatusOr<int64_t> ParseDuration(std::string_view text) {
  if (text.empty()) return DurationError(text, "empty");
  if (absl::EqualsIgnoreCase(AsAbsl(text), "UNLIMITED") ||
      absl::EqualsIgnoreCase(AsAbsl(text), "INFINITE")) {
    return kInfiniteDuration;
  }
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '-' && c != ':') {
      return DurationError(text, "only digits, '-' and ':' are allowed");
    }
  }

  // "D-rest" or just "rest"; the day part, when present, must lead.
  std::string_view days_text;
  std::string_view rest = text;
  bool has_days = false;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    if (dash == 0) return DurationError(text, "negative durations are not allowed");
    has_days = true;
    days_text = text.substr(0, dash);
    rest = text.substr(dash + 1);
    if (rest.find('-') != std::string_view::npos) {
      return DurationError(text, "more than one '-'");
    }
    if (days_text.find(':') != std::string_view::npos) {
      return DurationError(text, "'-' must follow the day count");
    }
  }

  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    size_t colon = rest.find(':', start);
    if (colon == std::string_view::npos) {
      fields.push_back(rest.substr(start));
      break;
    }
    fields.push_back(rest.substr(start, colon - start));
    start = colon + 1;
  }
  if (fields.size() > 3) return DurationError(text, "too many ':' fields");
  if (has_days) fields.insert(fields.begin(), days_text);

  std::vector<int64_t> values;
  for (std::string_view field : fields) {
    if (field.empty()) return DurationError(text, "empty field");
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || ptr != field.data() + field.size()) {
      return DurationError(text, "number too large");
    }
    values.push_back(value);
  }

  // Units of each field, by form. As in Slurm, fields after the first are not range
  // checked: "0:90" is 90 seconds and "1-30" is 54 hours, so scripts written for
  // Slurm keep working.
  std::vector<int64_t> units;
  if (has_days) {
    units = {kDay, kHour, kMinute, 1};  // D-HH[:MM[:SS]]
  } else if (values.size() == 3) {
    units = {kHour, kMinute, 1};  // HH:MM:SS
  } else {
    units = {kMinute, 1};  // MM[:SS]
  }
  int64_t total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!AddScaled(values[i], units[i], &total)) {
      return DurationError(text, "too large");
    }
  }
  return total;
}

std::string FormatElapsed(int64_t seconds) {
  if (seconds == kInfiniteDuration) return "UNLIMITED";
  if (seconds < 0) return "INVALID";  // Slurm's word for a negative interval.
  int64_t days = seconds / kDay;
  int64_t hours = seconds / kHour % 24;
  int64_t minutes = seconds / kMinute % 60;
  int64_t secs = seconds % 60;
  char buffer[64];
  if (days > 0) {
    std::snprintf(buffer, sizeof(buffer), "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  } else if (hours > 0) {
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld", static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  }
  return buffer;
}

std::string FormatTimeLimit(int64_t seconds) {
  if (seconds == kInfiniteDuration) return "UNLIMITED";
  if (seconds < 0) return "INVALID";
  int64_t days = seconds / kDay;
  int64_t hours = seconds / kHour % 24;
  int64_t minutes = seconds / kMinute % 60;
  int64_t secs = seconds % 60;
  char buffer[64];
  if (days > 0) {
    std::snprintf(buffer, sizeof(buffer), "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%02lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  }
  return buffer;
}

std::string FormatTimestamp(int64_t unix_seconds) {
  static_assert(sizeof(std::time_t) >= sizeof(int64_t), "time_t must hold int64_t");
  if (unix_seconds == 0) return "Unknown";
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  // localtime_r fails for years beyond int's range; there is nothing to print then.
  if (localtime_r(&t, &tm) == nullptr) return "Unknown";
  char buffer[64];
  if (std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
    return "Unknown";
  }
  return buffer;
}

}  // namespace skiff
