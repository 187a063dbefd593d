#include "common/billing.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {

absl::StatusOr<BillingWeights> ParseBillingWeights(const std::string& text) {
  BillingWeights weights;
  if (text.empty()) return weights;
  weights.set = true;
  for (absl::string_view raw : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    const std::string entry(absl::StripAsciiWhitespace(raw));
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("TRESBillingWeights: '", entry, "' is not NAME=WEIGHT"));
    }
    const std::string name = absl::AsciiStrToLower(entry.substr(0, eq));
    std::string value = entry.substr(eq + 1);
    double per_mib_factor = 1.0;  // Mem without a suffix: per MiB
    if (name == "mem") {
      const char unit = static_cast<char>(absl::ascii_toupper(value.back()));
      if (unit == 'K' || unit == 'M' || unit == 'G' || unit == 'T') {
        value.pop_back();
        per_mib_factor = unit == 'K'   ? 1024.0
                         : unit == 'M' ? 1.0
                         : unit == 'G' ? 1.0 / 1024
                                       : 1.0 / (1024.0 * 1024);
      }
    }
    char* end = nullptr;
    const double weight = std::strtod(value.c_str(), &end);
    if (value.empty() || end == nullptr || *end != '\0' || weight < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("TRESBillingWeights: '", entry, "' has no valid weight"));
    }
    if (name == "cpu") {
      weights.cpu = weight;
    } else if (name == "mem") {
      weights.mem_per_gb = weight * per_mib_factor * 1024.0;
    } else if (name == "node") {
      weights.node = weight;
    } else if (name == "gres/gpu" || absl::StartsWith(name, "gres/gpu:")) {
      weights.gpu = weight;
    } else if (name == "gres/shard") {
      weights.shard = weight;
    } else if (name == "gres/mps") {
      weights.mps = weight;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("TRESBillingWeights: unknown TRES '", entry.substr(0, eq),
                       "' (CPU, Mem, Node, GRES/gpu, GRES/shard, GRES/mps)"));
    }
  }
  return weights;
}

double Billing(const BillingWeights& weights, int64_t cpus, uint64_t mem_mb, int64_t gpus,
               int64_t nodes, int64_t shards, int64_t mps) {
  if (!weights.set) return static_cast<double>(cpus);
  const double billing =
      weights.cpu * static_cast<double>(cpus) +
      weights.mem_per_gb * static_cast<double>(mem_mb) / 1024.0 +
      weights.gpu * static_cast<double>(gpus) + weights.shard * static_cast<double>(shards) +
      weights.mps * static_cast<double>(mps) + weights.node * static_cast<double>(nodes);
  return billing < 0 ? 0 : billing;
}

}  // namespace skiff
