#include "common/tres_usage.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/size.h"

namespace skiff {
namespace {

// 1..8 for the base TRES, 9 for every other.
int BaseRank(const std::string& name) {
  for (size_t i = 0; i < std::size(kBaseTres); ++i) {
    if (name == kBaseTres[i]) return static_cast<int>(i) + 1;
  }
  return static_cast<int>(std::size(kBaseTres)) + 1;
}

std::string Number(double value) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.15g", value);
  return buf;
}

}  // namespace

bool TresBefore(const std::string& a, const std::string& b) {
  const int ra = BaseRank(a), rb = BaseRank(b);
  if (ra != rb) return ra < rb;
  return a < b;
}

TresCounts RunTres(int64_t cpus, uint64_t mem_mb, int64_t nodes, double billing,
                   const std::map<std::string, int64_t>& gpus_by_type, int64_t shards,
                   int64_t mps) {
  TresCounts counts;
  counts["cpu"] = static_cast<double>(cpus);
  if (mem_mb > 0) counts["mem"] = static_cast<double>(mem_mb);
  counts["node"] = static_cast<double>(nodes);
  counts["billing"] = billing > 0 ? std::floor(billing) : 0;
  int64_t gpus = 0;
  for (const auto& [type, count] : gpus_by_type) {
    if (count <= 0) continue;
    gpus += count;
    if (!type.empty()) counts["gres/gpu:" + type] += static_cast<double>(count);
  }
  if (gpus > 0) counts["gres/gpu"] = static_cast<double>(gpus);
  if (shards > 0) counts["gres/shard"] = static_cast<double>(shards);
  if (mps > 0) counts["gres/mps"] = static_cast<double>(mps);
  return counts;
}

std::string EncodeTres(const TresCounts& counts) {
  return absl::StrJoin(counts, ",", [](std::string* out, const auto& entry) {
    absl::StrAppend(out, entry.first, "=", Number(entry.second));
  });
}

absl::StatusOr<TresCounts> DecodeTres(const std::string& text) {
  TresCounts counts;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("TRES entry '", entry, "' is not NAME=COUNT"));
    }
    const std::string value(entry.substr(eq + 1));
    char* end = nullptr;
    const double count = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') {
      return absl::InvalidArgumentError(absl::StrCat("TRES entry '", entry, "' has no number"));
    }
    counts[std::string(entry.substr(0, eq))] = count;
  }
  return counts;
}

std::string FormatTresForSacct(const TresCounts& counts) {
  return absl::StrJoin(counts, ",", [](std::string* out, const auto& entry) {
    const auto whole = static_cast<uint64_t>(entry.second > 0 ? std::llround(entry.second) : 0);
    absl::StrAppend(out, entry.first, "=",
                    entry.first == "mem" ? FormatSize(whole * kMiB) : absl::StrCat(whole));
  });
}

void AddTresUsage(const TresCounts& counts, double seconds, TresCounts* usage) {
  for (const auto& [name, count] : counts) (*usage)[name] += count * seconds;
}

}  // namespace skiff
