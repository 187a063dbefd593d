// Fetches ctld's config files (Ctld.GetConfigFiles) for configless nodes and
// login hosts (common/config/configless.h), from one controller or the first
// of several that serves. Stateless; thread-safe.
#ifndef SKIFF_COMMON_RPC_CONFIG_FETCH_H_
#define SKIFF_COMMON_RPC_CONFIG_FETCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/config/configless.h"

namespace skiff {

// Asks ctld at `target` ("host:port") for its files, with a munge credential
// from `auth`, waiting at most `timeout_seconds` (connecting included): a
// direct call first (common/rpc/http2), gRPC's channel where ctld does not
// accept the connection at once. The
// names are checked (CheckConfigFileName) and the hash recomputed. Unavailable
// names the target when ctld cannot be reached, and says so when it is a
// standby controller (common/rpc/standby.h); FailedPrecondition carries
// ctld's refusal when configless is not enabled there.
absl::StatusOr<ConfigFileSet> FetchConfigFiles(const std::string& target, Authenticator& auth,
                                               int timeout_seconds);

// What FetchConfigFromControllers fetched, and from which controller.
struct FetchedConfig {
  ConfigFileSet files;
  std::string target;  // "host:port" of the controller that served them
};

// Slurm's list of controllers (`--conf-server a,b`, SLURM_CONF_SERVER, every
// SRV record): each of `targets` in turn, in rounds a moment apart until
// `timeout_seconds`, passing over at once one that cannot be reached (a
// refused or unanswered connection) or stands by, and the first serving
// controller's files. A serving controller's own refusal (configless not
// enabled, a refused credential) is the answer, as no other one serves. One
// target: FetchConfigFiles, its errors unchanged. With several, Unavailable
// names each target and what it answered last. REQUIRES: `targets` not empty.
absl::StatusOr<FetchedConfig> FetchConfigFromControllers(const std::vector<std::string>& targets,
                                                         Authenticator& auth, int timeout_seconds);

// The munge socket a configless process uses before it has a config:
// $SKIFF_MUNGE_SOCKET, else munge's default (empty).
std::string ConfiglessMungeSocket();

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CONFIG_FETCH_H_
