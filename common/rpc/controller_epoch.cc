#include "common/rpc/controller_epoch.h"

#include <cinttypes>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace skiff {

std::string FormatControllerEpoch(const ControllerEpoch& epoch) {
  char cluster[17];
  snprintf(cluster, sizeof(cluster), "%" PRIx64, epoch.cluster);
  return absl::StrCat(cluster, ".", epoch.revision);
}

absl::StatusOr<ControllerEpoch> ParseControllerEpoch(const std::string& text) {
  const size_t dot = text.find('.');
  ControllerEpoch epoch;
  if (dot == std::string::npos || dot == 0 || dot > 16 ||
      !absl::SimpleHexAtoi(text.substr(0, dot), &epoch.cluster) ||
      !absl::SimpleAtoi(text.substr(dot + 1), &epoch.revision) || epoch.revision <= 0 ||
      text.find_first_not_of("0123456789abcdef.") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("controller epoch '", text.substr(0, 64), "' is not CLUSTER.REVISION"));
  }
  return epoch;
}

absl::Status ControllerFence::Admit(const std::string& epoch_text) {
  if (epoch_text.empty()) return absl::OkStatus();
  absl::StatusOr<ControllerEpoch> epoch = ParseControllerEpoch(epoch_text);
  if (!epoch.ok()) return epoch.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (highest_ && highest_->cluster == epoch->cluster && epoch->revision < highest_->revision) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a deposed controller's call (its epoch ", epoch_text, "; the serving controller's is ",
        FormatControllerEpoch(*highest_), "): refused"));
  }
  highest_ = *epoch;
  return absl::OkStatus();
}

std::string ControllerFence::Highest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return highest_ ? FormatControllerEpoch(*highest_) : "";
}

}  // namespace skiff
