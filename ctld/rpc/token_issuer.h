// scontrol token: who may have a JSON Web Token for whom, for how long, as
// slurmctld's _slurm_rpc_auth_token decides (AuthAltTypes=auth/jwt,
// AuthAltParameters' max_token_lifespan and disable_token_creation), and the
// token itself (common/auth/jwt.h).
//
// Lifespans (issue 47): a user's token lasts at most max_token_lifespan, or
// kMaxUserTokenLifespan when that is not set; root and SlurmUser may ask for
// up to kMaxTokenLifespan ("infinite"); past that, or below zero, the request
// is refused naming lifespan.
//
// Pure: the key is read at ctld's start (main), and CheckJwtKeyFile judges the
// file it came from. Thread-safe (const).
#ifndef SKIFF_CTLD_RPC_TOKEN_ISSUER_H_
#define SKIFF_CTLD_RPC_TOKEN_ISSUER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::ctld {

// A user's token lasts at most a day unless max_token_lifespan says otherwise:
// a stolen token is then worth a day, and a user renews theirs daily.
inline constexpr int64_t kMaxUserTokenLifespan = 24 * 3600;
// What scontrol sends for lifespan=infinite (Slurm's INFINITE - 1, 68 years):
// the longest any token lasts, so that no expiry overflows.
inline constexpr int64_t kMaxTokenLifespan = 2147483646;

// The shortest key ctld takes (HS256's own key size): a shorter one is found by
// brute force from any token it signed.
inline constexpr int64_t kMinJwtKeyBytes = 32;
inline constexpr int64_t kMaxJwtKeyBytes = 1 << 20;

// What fstat says of AuthAltParameters=jwt_key's file.
struct JwtKeyFile {
  bool regular = true;
  mode_t mode = 0600;  // permission bits
  uid_t owner = 0;
  int64_t size = 0;
};

// OK for a regular file of kMinJwtKeyBytes to kMaxJwtKeyBytes, owned by root or
// `slurm_user`, that group and others can neither read nor write (whoever reads
// the key can make anyone's token, root's too). FailedPrecondition
// "AuthAltParameters: jwt_key PATH ..." saying what is wrong and what to do.
absl::Status CheckJwtKeyFile(const std::string& path, const JwtKeyFile& file, uid_t slurm_user);

struct TokenSettings {
  bool enabled = false;      // AuthAltTypes=auth/jwt, and its key was read
  std::string key;           // jwt_key's bytes
  int64_t max_lifespan = 0;  // max_token_lifespan; 0 = none
  bool disable_creation = false;
};

struct TokenCaller {
  std::string name;         // "" when the caller's uid has no user name
  bool slurm_user = false;  // root or SlurmUser (Slurm's validate_slurm_user)
};

class TokenIssuer {
 public:
  explicit TokenIssuer(TokenSettings settings) : settings_(std::move(settings)) {}

  // A token for `username` ("" = the caller) lasting `lifespan` seconds (0 =
  // the default), issued at `now`. Errors with Slurm's texts:
  //   FailedPrecondition "Required plugin type not loaded or initialized"
  //   PermissionDenied   "Access/permission denied" (disable_token_creation)
  //   PermissionDenied   "Invalid user id" (someone else's name, or none)
  //   InvalidArgument    "Requested time limit is invalid (missing or exceeds some limit):
  //                       lifespan=N ..." (below zero, past the caller's cap, past
  //                       kMaxTokenLifespan)
  absl::StatusOr<std::string> Issue(const TokenCaller& caller, const std::string& username,
                                    int64_t lifespan, int64_t now) const;

  const TokenSettings& settings() const { return settings_; }

 private:
  TokenSettings settings_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_TOKEN_ISSUER_H_
