// Fetches ctld's config files (Ctld.GetConfigFiles) for configless nodes and
// login hosts (common/config/configless.h). Stateless; thread-safe.
#ifndef SKIFF_COMMON_RPC_CONFIG_FETCH_H_
#define SKIFF_COMMON_RPC_CONFIG_FETCH_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/config/configless.h"

namespace skiff {

// Asks ctld at `target` ("host:port") for its files, with a munge credential
// from `auth`, waiting at most `timeout_seconds` (connecting included): a
// direct call first (common/rpc/http2), gRPC's channel where ctld does not
// accept the connection at once. The
// names are checked (CheckConfigFileName) and the hash recomputed. Unavailable
// names the target when ctld cannot be reached; FailedPrecondition carries
// ctld's refusal when configless is not enabled there.
absl::StatusOr<ConfigFileSet> FetchConfigFiles(const std::string& target, Authenticator& auth,
                                               int timeout_seconds);

// The munge socket a configless process uses before it has a config:
// $SKIFF_MUNGE_SOCKET, else munge's default (empty).
std::string ConfiglessMungeSocket();

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CONFIG_FETCH_H_
