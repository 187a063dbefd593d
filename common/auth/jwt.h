// JSON Web Tokens as Slurm's auth/jwt makes and checks them (HS256 with the
// cluster's jwt_key): what `scontrol token` hands out and the REST daemon
// accepts in X-SLURM-USER-TOKEN. The claims are Slurm's: "iat" and "exp"
// (unix seconds) and "sun" ("[s]lurm [u]ser[n]ame"; "username" is accepted
// when "sun" is absent, as Slurm does).
//
// Pure; thread-safe.
#ifndef SKIFF_COMMON_AUTH_JWT_H_
#define SKIFF_COMMON_AUTH_JWT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace skiff {

// Slurm's default lifespan of a token (DEFAULT_AUTH_TOKEN_LIFESPAN), seconds.
inline constexpr int64_t kDefaultTokenLifespan = 1800;

struct JwtClaims {
  std::string username;
  int64_t issued_at = 0;
  int64_t expires_at = 0;
};

// A token for `username`, valid from `now` for `lifespan` seconds, signed with
// `key` (HMAC-SHA256).
std::string MakeJwt(absl::string_view key, const std::string& username, int64_t now,
                    int64_t lifespan);

// The claims of `token` when it is well formed, HS256, signed with `key` and
// not expired at `now`. Unauthenticated otherwise, saying which: "malformed
// token", "unsupported alg=...", "bad signature", "token expired", "no
// username in token".
absl::StatusOr<JwtClaims> VerifyJwt(absl::string_view key, absl::string_view token, int64_t now);

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_JWT_H_
