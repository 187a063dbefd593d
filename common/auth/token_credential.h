// A JSON Web Token sent as a command's credential, as Slurm's auth/jwt
// alternative type: a command run with SLURM_JWT=TOKEN in its environment
// sends "jwt:" + TOKEN in the usual credential metadata instead of a munge
// credential, and needs no munged. Verifying one is ctld's and restd's
// (jwt_authenticator.h); this side holds no key and no cryptography, so the
// commands link no OpenSSL (whose shared libraries cost every command ~5 ms
// at start, issue 48).
//
// Thread-safe.
#ifndef SKIFF_COMMON_AUTH_TOKEN_CREDENTIAL_H_
#define SKIFF_COMMON_AUTH_TOKEN_CREDENTIAL_H_

#include <string>
#include <utility>

#include "common/auth/authenticator.h"

namespace skiff {

inline constexpr char kJwtCredentialPrefix[] = "jwt:";
inline constexpr char kJwtEnvironmentVariable[] = "SLURM_JWT";

class TokenCredential final : public Authenticator {
 public:
  explicit TokenCredential(std::string token) : token_(std::move(token)) {}
  absl::StatusOr<std::string> CreateCredential() override;
  absl::StatusOr<Identity> VerifyCredential(const std::string& credential) override;

 private:
  const std::string token_;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_TOKEN_CREDENTIAL_H_
