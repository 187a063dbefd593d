// Refused logins, logged by the daemon that refused them, without letting a
// flood of bad credentials flood the log.
//
// Per peer address (the port is dropped: every connection has its own), the
// first refusal is reported at once and later ones at most once per interval,
// with the count of those not reported in between. Thread-safe; time is an
// argument.
#ifndef SKIFF_COMMON_AUTH_LOGIN_FAILURES_H_
#define SKIFF_COMMON_AUTH_LOGIN_FAILURES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace skiff {

class LoginFailureLog {
 public:
  explicit LoginFailureLog(int64_t interval_seconds = 10) : interval_(interval_seconds) {}

  // Records a refusal from `peer` (gRPC's "ipv4:127.0.0.1:40312") for `why`;
  // returns the line to log, or nothing while that peer is rate-limited.
  std::optional<std::string> Refused(std::string_view peer, std::string_view why, int64_t now);

  // "ipv4:127.0.0.1:40312" -> "127.0.0.1"; "ipv6:[::1]:5" -> "::1"; else as is.
  static std::string Address(std::string_view peer);

 private:
  struct PeerState {
    int64_t last_reported = 0;
    int64_t unreported = 0;
  };
  // Bounds memory under a flood from many addresses: past this many peers the
  // table starts over (at worst a few extra lines).
  static constexpr size_t kMaxPeers = 4096;

  const int64_t interval_;
  absl::Mutex mu_;
  std::map<std::string, PeerState> peers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff

#endif  // SKIFF_COMMON_AUTH_LOGIN_FAILURES_H_
