#include "common/tres.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/size.h"

namespace skiff {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

absl::Status Bad(std::string_view what, std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(what), " in TRES specification '", std::string(text), "'"));
}

// A non-negative whole number; false on anything else or overflow.
bool ParseCount(std::string_view digits, int64_t* value) {
  if (digits.empty()) return false;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

// "10G" -> 10240; a bare number is MiB; kibibytes round up to whole MiB.
absl::StatusOr<int64_t> ParseMemMb(std::string_view value, std::string_view text) {
  int64_t multiplier_kib = 1024;  // per unit, in KiB
  if (!value.empty() && std::isalpha(static_cast<unsigned char>(value.back()))) {
    switch (absl::ascii_toupper(value.back())) {
      case 'K':
        multiplier_kib = 1;
        break;
      case 'M':
        multiplier_kib = 1024;
        break;
      case 'G':
        multiplier_kib = 1024 * 1024;
        break;
      case 'T':
        multiplier_kib = int64_t{1024} * 1024 * 1024;
        break;
      default:
        return Bad(absl::StrCat("Unknown memory suffix '", std::string(1, value.back()),
                                "' (use K, M, G or T)"),
                   text);
    }
    value.remove_suffix(1);
  }
  int64_t count = 0;
  if (!ParseCount(value, &count)) {
    return Bad(absl::StrCat("Invalid mem value '", std::string(value), "'"), text);
  }
  if (count > std::numeric_limits<int64_t>::max() / multiplier_kib) {
    return Bad("mem value too large", text);
  }
  int64_t kib = count * multiplier_kib;
  return kib / 1024 + (kib % 1024 != 0 ? 1 : 0);
}

}  // namespace

absl::StatusOr<TresLimits> ParseTres(std::string_view text) {
  TresLimits limits;
  if (Trim(text).empty()) {
    return absl::InvalidArgumentError("Empty TRES specification");
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view entry = Trim(text.substr(start, comma - start));
    start = comma + 1;
    if (entry.empty()) continue;
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      return Bad(absl::StrCat("Missing '=' after '", std::string(entry), "'"), text);
    }
    std::string name(Trim(entry.substr(0, eq)));
    absl::AsciiStrToLower(&name);
    std::string_view value = Trim(entry.substr(eq + 1));

    std::optional<int64_t>* slot = nullptr;
    if (name == "cpu") {
      slot = &limits.cpu;
    } else if (name == "mem") {
      slot = &limits.mem_mb;
    } else if (name == "node") {
      slot = &limits.node;
    } else if (name == "gres/gpu") {
      slot = &limits.gpu;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown TRES name '", std::string(Trim(entry.substr(0, eq))), "' in '",
                       std::string(text), "' (Skiff knows cpu, mem, node and gres/gpu)"));
    }
    if (value == "-1") {
      *slot = kTresClear;
      continue;
    }
    if (slot == &limits.mem_mb) {
      absl::StatusOr<int64_t> mb = ParseMemMb(value, text);
      if (!mb.ok()) return mb.status();
      *slot = *mb;
      continue;
    }
    int64_t count = 0;
    if (!ParseCount(value, &count)) {
      return Bad(absl::StrCat("Invalid ", name, " value '", std::string(value), "'"), text);
    }
    *slot = count;
  }
  if (limits.empty()) return absl::InvalidArgumentError("Empty TRES specification");
  return limits;
}

std::string FormatTres(const TresLimits& limits) {
  std::vector<std::string> parts;
  auto add = [&](const char* name, const std::optional<int64_t>& value, bool memory) {
    if (!value || *value < 0) return;
    std::string text = absl::StrCat(*value);
    // FormatSize works in bytes; beyond 2^40 MiB that would overflow, so such a
    // (nonsensical) limit prints in MiB.
    if (memory) text = *value < (int64_t{1} << 40) ? FormatSize(*value * kMiB) : text + "M";
    parts.push_back(absl::StrCat(name, "=", text));
  };
  add("cpu", limits.cpu, false);
  add("mem", limits.mem_mb, true);
  add("node", limits.node, false);
  add("gres/gpu", limits.gpu, false);
  return absl::StrJoin(parts, ",");
}

}  // namespace skiff
