// JSON Web Tokens as credentials, as Slurm's auth/jwt alternative type:
//  - a command run with SLURM_JWT=TOKEN in its environment sends the token
//    instead of a munge credential (TokenCredential, token_credential.h), and
//    needs no munged;
//  - ctld's service for the commands, with AuthAltTypes=auth/jwt, takes such
//    a token as the identity of the user it names (JwtOrMungeAuthenticator),
//    and any other credential as munge's.
// A token is sent as "jwt:" + TOKEN in the usual credential metadata.
//
// Thread-safe.
#ifndef SKIFF_COMMON_AUTH_JWT_AUTHENTICATOR_H_
#define SKIFF_COMMON_AUTH_JWT_AUTHENTICATOR_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/auth/authenticator.h"
#include "common/auth/token_credential.h"

namespace skiff {

class JwtOrMungeAuthenticator final : public Authenticator {
 public:
  // The uid and gid of a user name (the user database); nullopt if unknown.
  using UserLookup = std::function<std::optional<Identity>(const std::string& name)>;
  using Clock = std::function<int64_t()>;
  // `munge` must outlive this. Empty `lookup` and `now`: getpwnam_r and time().
  JwtOrMungeAuthenticator(Authenticator& munge, std::string key, UserLookup lookup = {},
                          Clock now = {});
  absl::StatusOr<std::string> CreateCredential() override;
  // Unauthenticated for a token that does not verify ("invalid token: token
  // expired", ...) or names a user this host does not know.
  absl::StatusOr<Identity> VerifyCredential(const std::string& credential) override;

 private:
  Authenticator& munge_;
  const std::string key_;
  UserLookup lookup_;
  Clock now_;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_JWT_AUTHENTICATOR_H_
