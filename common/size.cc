#include "common/size.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

// Debian builds Abseil with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW
// is 0), which does not convert from std::string_view implicitly.
absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

constexpr uint64_t kPiB = kTiB * 1024;

struct Suffix {
  std::string_view name;
  uint64_t multiplier;
};

// Matched case-insensitively and whole, so "KiB" and "KB" never shadow each other.
constexpr Suffix kSuffixes[] = {
    {"B", 1},
    {"K", kKiB},
    {"KiB", kKiB},
    {"KB", 1000ULL},
    {"M", kMiB},
    {"MiB", kMiB},
    {"MB", 1000ULL * 1000},
    {"G", kGiB},
    {"GiB", kGiB},
    {"GB", 1000ULL * 1000 * 1000},
    {"T", kTiB},
    {"TiB", kTiB},
    {"TB", 1000ULL * 1000 * 1000 * 1000},
    {"P", kPiB},
    {"PiB", kPiB},
    {"PB", 1000ULL * 1000 * 1000 * 1000 * 1000},
};

absl::Status SizeError(std::string_view text, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid size \"", AsAbsl(text), "\": ", AsAbsl(problem)));
}

}  // namespace

absl::StatusOr<uint64_t> ParseSize(std::string_view text, uint64_t default_unit) {
  if (text.empty()) return SizeError(text, "empty");
  size_t digits = 0;
  while (digits < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) {
    if (text.front() == '-') return SizeError(text, "negative sizes are not allowed");
    return SizeError(text, "expected a number");
  }
  std::string_view suffix = text.substr(digits);
  if (!suffix.empty() && suffix.front() == '.') {
    return SizeError(text, "fractional sizes are not allowed");
  }

  uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || ptr != text.data() + digits) {
    return SizeError(text, "number too large");
  }

  uint64_t multiplier = default_unit;
  if (!suffix.empty()) {
    bool found = false;
    for (const Suffix& known : kSuffixes) {
      if (absl::EqualsIgnoreCase(AsAbsl(suffix), AsAbsl(known.name))) {
        multiplier = known.multiplier;
        found = true;
        break;
      }
    }
    if (!found) {
      return SizeError(text, absl::StrCat("unknown suffix \"", AsAbsl(suffix), "\""));
    }
  }
  if (multiplier != 0 && number > std::numeric_limits<uint64_t>::max() / multiplier) {
    return SizeError(text, "too large");
  }
  return number * multiplier;
}

std::string FormatSize(uint64_t bytes) {
  // Stop at P: ParseSize knows no larger suffix, and output should parse back.
  constexpr char kUnits[] = {'K', 'M', 'G', 'T', 'P'};
  if (bytes == 0 || bytes % kKiB != 0) return std::to_string(bytes);
  uint64_t value = bytes;
  int unit = -1;
  while (unit + 1 < static_cast<int>(sizeof(kUnits)) && value % kKiB == 0) {
    value /= kKiB;
    ++unit;
  }
  return absl::StrCat(value, std::string(1, kUnits[unit]));
}

uint64_t BytesToMiB(uint64_t bytes) { return bytes / kMiB; }

}  // namespace skiff
