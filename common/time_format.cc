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
#include "absl/strings/str_split.h"

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

namespace {

// "HH:MM[:SS][AM|PM]" (lower case text).
bool ParseClockOfDay(const std::string& text, int* h, int* m, int* s) {
  std::string clock = text;
  int add = 0;
  if (clock.size() > 2 &&
      (clock.substr(clock.size() - 2) == "am" || clock.substr(clock.size() - 2) == "pm")) {
    add = clock.substr(clock.size() - 2) == "pm" ? 12 : 0;
    clock = clock.substr(0, clock.size() - 2);
  }
  int hh = 0, mm = 0, ss = 0;
  char extra = 0;
  const int n = std::sscanf(clock.c_str(), "%2d:%2d:%2d%c", &hh, &mm, &ss, &extra);
  if (n != 2 && n != 3) return false;
  if (clock.find_first_not_of("0123456789:") != std::string::npos) return false;
  if (add != 0 || (text.size() > 2 && text.substr(text.size() - 2) == "am")) {
    if (hh < 1 || hh > 12) return false;
    hh = hh % 12 + add;
  }
  if (hh > 23 || mm > 59 || ss > 59) return false;
  *h = hh;
  *m = mm;
  *s = n == 3 ? ss : 0;
  return true;
}

}  // namespace

absl::StatusOr<int64_t> ParseSlurmTime(std::string_view text_in, int64_t now, bool past) {
  const std::string text = absl::AsciiStrToLower(std::string(text_in));
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid time specification '", std::string(text_in), "'"));
  };
  time_t now_t = static_cast<time_t>(now);
  struct tm today;
  localtime_r(&now_t, &today);
  auto at = [&](int year, int month, int mday, int h, int m, int s) {
    struct tm t = {};
    t.tm_year = year - 1900;
    t.tm_mon = month - 1;
    t.tm_mday = mday;
    t.tm_hour = h;
    t.tm_min = m;
    t.tm_sec = s;
    t.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&t));
  };
  const int year = today.tm_year + 1900, month = today.tm_mon + 1, mday = today.tm_mday;
  // A time of day without a date: today, moved a day toward `past`.
  auto of_day = [&](int h, int m, int s) {
    int64_t t = at(year, month, mday, h, m, s);
    if (past && t > now) t = at(year, month, mday - 1, h, m, s);
    if (!past && t < now) t = at(year, month, mday + 1, h, m, s);
    return t;
  };
  if (text.empty()) return bad();
  if (text == "today") return at(year, month, mday, 0, 0, 0);
  if (text == "tomorrow") return at(year, month, mday + 1, 0, 0, 0);
  if (text == "midnight")
    return past ? at(year, month, mday, 0, 0, 0) : at(year, month, mday + 1, 0, 0, 0);
  if (text == "noon") return of_day(12, 0, 0);
  if (text == "teatime") return of_day(16, 0, 0);
  if (text.rfind("now", 0) == 0) {
    if (text.size() == 3) return now;
    const char sign = text[3];
    if (sign != '+' && sign != '-') return bad();
    size_t i = 4;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == 4 || i - 4 > 9) return bad();
    const int64_t count = std::stoll(text.substr(4, i - 4));
    const std::string unit = text.substr(i);
    int64_t seconds = 1;
    auto is = [&](const char* word) {
      return !unit.empty() && std::string(word).rfind(unit, 0) == 0;
    };
    if (unit.empty() || is("seconds")) {
      seconds = 1;
    } else if (is("minutes")) {
      seconds = 60;
    } else if (is("hours")) {
      seconds = 3600;
    } else if (is("days")) {
      seconds = 86400;
    } else if (is("weeks")) {
      seconds = 7 * 86400;
    } else {
      return bad();
    }
    return sign == '+' ? now + count * seconds : now - count * seconds;
  }
  int h = 0, m = 0, s = 0;
  if (ParseClockOfDay(text, &h, &m, &s)) return of_day(h, m, s);
  // A date, then optionally a time after 'T' or '-'.
  std::string date = text, clock;
  if (size_t t = text.find('t'); t != std::string::npos) {
    date = text.substr(0, t);
    clock = text.substr(t + 1);
  } else if (text.find('/') != std::string::npos || text.find('.') != std::string::npos) {
    if (size_t dash = text.find('-'); dash != std::string::npos) {
      date = text.substr(0, dash);
      clock = text.substr(dash + 1);
    }
  }
  if (!clock.empty() && !ParseClockOfDay(clock, &h, &m, &s)) return bad();
  int y = year, mo = 0, d = 0;
  char extra = 0;
  auto full_year = [](int yy) { return yy < 100 ? 2000 + yy : yy; };
  if (date.size() == 10 && std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &extra) == 3) {
  } else if ((date.find('/') != std::string::npos || date.find('.') != std::string::npos)) {
    const char sep = date.find('/') != std::string::npos ? '/' : '.';
    std::vector<std::string> parts = absl::StrSplit(date, sep);
    if (parts.size() < 2 || parts.size() > 3) return bad();
    for (const std::string& part : parts) {
      if (part.empty() || part.size() > 4 ||
          part.find_first_not_of("0123456789") != std::string::npos) {
        return bad();
      }
    }
    mo = std::stoi(parts[0]);
    d = std::stoi(parts[1]);
    if (parts.size() == 3) y = full_year(std::stoi(parts[2]));
  } else if ((date.size() == 4 || date.size() == 6) &&
             date.find_first_not_of("0123456789") == std::string::npos) {
    mo = std::stoi(date.substr(0, 2));
    d = std::stoi(date.substr(2, 2));
    if (date.size() == 6) y = full_year(std::stoi(date.substr(4, 2)));
  } else {
    return bad();
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return bad();
  const int64_t result = at(y, mo, d, h, m, s);
  time_t check_t = static_cast<time_t>(result);
  struct tm check;
  localtime_r(&check_t, &check);
  if (check.tm_mday != d) return bad();  // 02/31
  return result;
}

}  // namespace skiff
