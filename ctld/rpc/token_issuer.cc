#include "ctld/rpc/token_issuer.h"

#include <algorithm>

#include "common/auth/jwt.h"

namespace skiff::ctld {

absl::StatusOr<std::string> TokenIssuer::Issue(const TokenCaller& caller,
                                               const std::string& username, int64_t lifespan,
                                               int64_t now) const {
  if (settings_.disable_creation && !caller.slurm_user) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  if (!settings_.enabled) {
    return absl::FailedPreconditionError("Required plugin type not loaded or initialized");
  }
  std::string subject = username;
  if (subject.empty()) {
    if (caller.name.empty()) return absl::PermissionDeniedError("Invalid user id");
    subject = caller.name;
  } else if (!caller.slurm_user && subject != caller.name) {
    return absl::PermissionDeniedError("Invalid user id");
  }
  if (lifespan < 0) {
    return absl::InvalidArgumentError(
        "Requested time limit is invalid (missing or exceeds some limit)");
  }
  if (lifespan == 0) {
    lifespan = settings_.max_lifespan > 0 ? std::min(kDefaultTokenLifespan, settings_.max_lifespan)
                                          : kDefaultTokenLifespan;
  } else if (!caller.slurm_user && settings_.max_lifespan > 0 &&
             lifespan > settings_.max_lifespan) {
    return absl::InvalidArgumentError(
        "Requested time limit is invalid (missing or exceeds some limit)");
  }
  return MakeJwt(settings_.key, subject, now, lifespan);
}

}  // namespace skiff::ctld
