#include "ctld/rpc/token_issuer.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/auth/jwt.h"

namespace skiff::ctld {
namespace {

absl::Status BadLifespan(int64_t lifespan, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Requested time limit is invalid (missing or exceeds some limit): lifespan=",
      lifespan == kMaxTokenLifespan ? std::string("infinite") : absl::StrCat(lifespan), " ", why));
}

}  // namespace

absl::Status CheckJwtKeyFile(const std::string& path, const JwtKeyFile& file, uid_t slurm_user) {
  const std::string what = absl::StrCat("AuthAltParameters: jwt_key ", path, " ");
  if (!file.regular) return absl::FailedPreconditionError(what + "is not a regular file");
  if ((file.mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(file.mode & 07777));
    return absl::FailedPreconditionError(
        absl::StrCat(what, "is open to group or other users (mode ", mode,
                     "): whoever reads it can make a token for any user, root included. chmod 600 ",
                     path, ", and make a new key if others could read this one"));
  }
  if (file.owner != 0 && file.owner != slurm_user) {
    return absl::FailedPreconditionError(absl::StrCat(what, "is owned by uid ", file.owner,
                                                      ": only root or SlurmUser (uid ", slurm_user,
                                                      ") may own the token key"));
  }
  if (file.size < kMinJwtKeyBytes) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, "is ", file.size, " bytes long: a key shorter than ", kMinJwtKeyBytes,
                     " bytes is found by brute force from any token. Make one of random bytes: dd "
                     "if=/dev/random of=",
                     path, " bs=32 count=1"));
  }
  if (file.size > kMaxJwtKeyBytes) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, "is ", file.size, " bytes long: a key is at most ", kMaxJwtKeyBytes, " bytes"));
  }
  return absl::OkStatus();
}

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
  if (lifespan < 0) return BadLifespan(lifespan, "is below zero");
  if (lifespan > kMaxTokenLifespan) {
    return BadLifespan(lifespan, absl::StrCat("is longer than any token may last (",
                                              kMaxTokenLifespan, " s, lifespan=infinite)"));
  }
  // Users as Slurm's max_token_lifespan says, and at most a day without it;
  // root and SlurmUser as they ask (Slurm's validate_slurm_user).
  const int64_t user_cap =
      settings_.max_lifespan > 0 ? settings_.max_lifespan : kMaxUserTokenLifespan;
  if (lifespan == 0) {
    lifespan = std::min(kDefaultTokenLifespan, user_cap);
  } else if (!caller.slurm_user && lifespan > user_cap) {
    return BadLifespan(
        lifespan, absl::StrCat("is longer than the ", user_cap, " s a user's token may last (",
                               settings_.max_lifespan > 0 ? "AuthAltParameters=max_token_lifespan"
                                                          : "without max_token_lifespan, a day",
                               "); only root and SlurmUser may ask for longer"));
  }
  return MakeJwt(settings_.key, subject, now, lifespan);
}

}  // namespace skiff::ctld
