// scontrol token: who may have a JSON Web Token for whom, for how long, as
// slurmctld's _slurm_rpc_auth_token decides (AuthAltTypes=auth/jwt,
// AuthAltParameters' max_token_lifespan and disable_token_creation), and the
// token itself (common/auth/jwt.h).
//
// Pure: the key is read at ctld's start (main). Thread-safe (const).
#ifndef SKIFF_CTLD_RPC_TOKEN_ISSUER_H_
#define SKIFF_CTLD_RPC_TOKEN_ISSUER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::ctld {

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
  //   InvalidArgument    "Requested time limit is invalid (missing or exceeds some limit)"
  absl::StatusOr<std::string> Issue(const TokenCaller& caller, const std::string& username,
                                    int64_t lifespan, int64_t now) const;

 private:
  TokenSettings settings_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_TOKEN_ISSUER_H_
