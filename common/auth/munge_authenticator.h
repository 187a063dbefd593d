// Authenticator backed by the munge daemon (libmunge), as Slurm's auth/munge.
#ifndef SKIFF_COMMON_AUTH_MUNGE_AUTHENTICATOR_H_
#define SKIFF_COMMON_AUTH_MUNGE_AUTHENTICATOR_H_

#include <string>

#include "common/auth/authenticator.h"

namespace skiff {

class MungeAuthenticator : public Authenticator {
 public:
  // `socket_path` is munged's socket (AuthInfo=socket=PATH); empty uses munge's
  // compiled-in default. Cheap: no connection is made until a call.
  explicit MungeAuthenticator(std::string socket_path);

  absl::StatusOr<std::string> CreateCredential() override;
  absl::StatusOr<Identity> VerifyCredential(const std::string& credential) override;

 private:
  const std::string socket_path_;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_MUNGE_AUTHENTICATOR_H_
