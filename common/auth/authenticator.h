// Who is calling: credentials that one process creates and another verifies.
//
// Skiff authenticates every RPC with munge (MungeAuthenticator); tests of code
// above this interface may use a fake. Implementations are thread-safe.
#ifndef SKIFF_COMMON_AUTH_AUTHENTICATOR_H_
#define SKIFF_COMMON_AUTH_AUTHENTICATOR_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace skiff {

// The verified identity of a caller.
struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;

  // A fresh credential for the calling process's uid/gid. Munge credentials may
  // be decoded once only, so make one per call. Unavailable when munged is not
  // reachable.
  virtual absl::StatusOr<std::string> CreateCredential() = 0;

  // Verifies a credential and returns who made it. Unauthenticated for a missing,
  // forged, expired or replayed credential; the message says which.
  virtual absl::StatusOr<Identity> VerifyCredential(const std::string& credential) = 0;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_AUTHENTICATOR_H_
