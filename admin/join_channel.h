// The channel to ctld's join port (docs/decisions.md, "Init and join"): TLS
// that trusts one certificate, the one whose key has the pin the node was
// given (in its join token, then in its node key file). `skiff join` joins
// over it; `skiff key fetch` and noded fetch the munge key again over it.
#ifndef SKIFF_ADMIN_JOIN_CHANNEL_H_
#define SKIFF_ADMIN_JOIN_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace skiff::cli {

// ctld's join port when HOST has no :PORT (and `skiff init`'s join_port).
inline constexpr int kDefaultJoinPort = 6820;

struct HostPort {
  std::string host;
  int port = 0;
};
// "head", "head:6820", "10.0.0.1:6820", "[fd00::1]:6820". InvalidArgument
// names the text.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text, int default_port);
// "head:6820", "[fd00::1]:6820".
std::string FormatHostPort(const std::string& host, int port);

// OK when the certificate the controller presented has the token's pin; else
// FailedPrecondition saying both and that nothing was sent.
absl::Status CheckPin(const std::string& presented, const std::string& expected,
                      const std::string& where);

// Looks at the certificate the server at `target` presents, trusting nothing,
// checks its key against `pin` (CheckPin), and only then opens the gRPC
// channel whose one trusted root is that certificate. Unavailable "cannot
// reach the controller at HOST:PORT" when nothing answers in time.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenPinnedJoinChannel(const HostPort& target,
                                                                     const std::string& pin,
                                                                     int timeout_seconds);

// A join port call's status as the tool reports it: UNAVAILABLE and
// DEADLINE_EXCEEDED say the controller was not reached; others are ctld's words.
absl::Status JoinCallStatus(const grpc::Status& status, const std::string& where);

}  // namespace skiff::cli

#endif  // SKIFF_ADMIN_JOIN_CHANNEL_H_
