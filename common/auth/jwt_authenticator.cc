#include "common/auth/jwt_authenticator.h"

#include <pwd.h>

#include <cstring>
#include <ctime>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/auth/jwt.h"

namespace skiff {
namespace {

std::optional<Identity> LookUpUser(const std::string& name) {
  std::vector<char> buffer(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return std::nullopt;
  }
  return Identity{pw.pw_uid, pw.pw_gid};
}

}  // namespace

JwtOrMungeAuthenticator::JwtOrMungeAuthenticator(Authenticator& munge, std::string key,
                                                 UserLookup lookup, Clock now)
    : munge_(munge),
      key_(std::move(key)),
      lookup_(lookup ? std::move(lookup) : UserLookup(LookUpUser)),
      now_(now ? std::move(now) : Clock([] { return static_cast<int64_t>(time(nullptr)); })) {}

absl::StatusOr<std::string> JwtOrMungeAuthenticator::CreateCredential() {
  return munge_.CreateCredential();
}

absl::StatusOr<Identity> JwtOrMungeAuthenticator::VerifyCredential(const std::string& credential) {
  if (!absl::StartsWith(credential, kJwtCredentialPrefix)) {
    return munge_.VerifyCredential(credential);
  }
  absl::StatusOr<JwtClaims> claims =
      VerifyJwt(key_, absl::string_view(credential).substr(strlen(kJwtCredentialPrefix)), now_());
  if (!claims.ok()) {
    return absl::UnauthenticatedError(absl::StrCat("invalid token: ", claims.status().message()));
  }
  std::optional<Identity> who = lookup_(claims->username);
  if (!who) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid token: user ", claims->username, " is unknown here"));
  }
  return *who;
}

}  // namespace skiff
