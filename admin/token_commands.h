// `skiff token create [--ttl]`, `skiff token list` (and the reload of `skiff
// key rotate`): ctld's JoinTokens service on its own port, with a munge
// credential (root and SlurmUser only).
#ifndef SKIFF_ADMIN_TOKEN_COMMANDS_H_
#define SKIFF_ADMIN_TOKEN_COMMANDS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/join.pb.h"

namespace skiff::cli {

// `conf_path` as the commands take it (-f, else $SKIFF_CONF, /etc/skiff/skiff.conf).
// `wait_seconds`: how long ctld may take to answer (skiff init waits for a
// ctld it has just started). 0 = MessageTimeout.
absl::StatusOr<v1::CreateJoinTokenReply> CreateToken(const std::string& conf_path,
                                                     int64_t ttl_seconds, int wait_seconds = 0);
absl::StatusOr<v1::ListJoinTokensReply> ListTokens(const std::string& conf_path);
// ctld reads its copy of the munge key again (skiff key rotate).
absl::StatusOr<v1::ReloadMungeKeyReply> ReloadCtldMungeKey(const std::string& conf_path);

// What `skiff token create` prints: the command to run on each node.
std::string FormatCreatedToken(const v1::CreateJoinTokenReply& reply, int64_t now);
// `skiff token list`'s table.
std::string FormatTokenList(const v1::ListJoinTokensReply& reply);
// "59m", "2h", "3d", "40s".
std::string ShortDuration(int64_t seconds);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_TOKEN_COMMANDS_H_
