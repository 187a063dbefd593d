#include "cli/common/gpu_bind_check.h"

#include <strings.h>

#include <cctype>
#include <climits>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::cli {
namespace {

// Slurm's tres_bind_verify_cmdline over "gpu:VALUE" (src/common/tres_bind.c):
// [verbose,] then closest, none (their first letter is enough), map_gpu:LIST,
// mask_gpu:LIST (hexadecimal), per_task:N or single:N; ';' separates more.
bool ValidNumber(const std::string& text) {
  const long n = strtol(text.c_str(), nullptr, 0);
  return n >= 0 && n != LONG_MAX;
}
bool ValidNumberList(const std::string& text, bool hex) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::string token(item);
    if (hex && token.rfind("0x", 0) == 0) token = token.substr(2);
    for (char c : token) {
      const bool digit = hex ? isxdigit(static_cast<unsigned char>(c)) != 0
                             : isdigit(static_cast<unsigned char>(c)) != 0;
      if (!digit && c != '*') return false;
    }
    char* end = nullptr;
    long n = strtol(token.c_str(), &end, hex ? 16 : 10);
    if (n < 0 || n == LONG_MAX || (*end != '\0' && *end != '*')) return false;
    if (*end == '*') {
      n = strtol(end + 1, &end, 0);
      if (n < 0 || n == LONG_MAX || *end != '\0') return false;
    }
  }
  return true;
}
bool ValidGpuBind(std::string bind) {
  if (strncasecmp(bind.c_str(), "verbose,", 8) == 0) bind = bind.substr(8);
  auto starts = [&](const char* prefix, size_t n) {
    return strncasecmp(bind.c_str(), prefix, n) == 0;
  };
  if (starts("closest", 1) || starts("none", 1)) return true;
  if (starts("map_gpu:", 8)) return ValidNumberList(bind.substr(8), false);
  if (starts("mask_gpu:", 9)) return ValidNumberList(bind.substr(9), true);
  if (starts("per_task:", 9)) return ValidNumber(bind.substr(9));
  if (starts("single:", 7)) return ValidNumber(bind.substr(7));
  return false;
}
bool ValidTresBind(const std::string& text) {
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    const size_t colon = item.find(':');
    if (colon == absl::string_view::npos || item.substr(0, colon) != "gpu" ||
        !ValidGpuBind(std::string(item.substr(colon + 1)))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> GpuBindError(const std::string& value) {
  if (ValidTresBind("gpu:" + value)) return std::nullopt;
  return absl::StrCat("Invalid --gpu-bind argument: gpu:", value);
}

}  // namespace skiff::cli
