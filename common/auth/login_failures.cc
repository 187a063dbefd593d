#include "common/auth/login_failures.h"

#include "absl/strings/str_cat.h"

namespace skiff {

std::string LoginFailureLog::Address(std::string_view peer) {
  for (std::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (peer.substr(0, scheme.size()) != scheme) continue;
    std::string_view rest = peer.substr(scheme.size());
    const size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos) rest = rest.substr(0, colon);
    if (rest.size() >= 2 && rest.front() == '[' && rest.back() == ']') {
      rest = rest.substr(1, rest.size() - 2);
    }
    return std::string(rest);
  }
  return std::string(peer);
}

std::optional<std::string> LoginFailureLog::Refused(std::string_view peer, std::string_view why,
                                                    int64_t now) {
  const std::string address = Address(peer);
  int64_t unreported = 0;
  {
    absl::MutexLock lock(&mu_);
    if (peers_.size() >= kMaxPeers && peers_.count(address) == 0) peers_.clear();
    auto [it, first] = peers_.try_emplace(address);
    PeerState& state = it->second;
    if (!first && now - state.last_reported < interval_) {
      ++state.unreported;
      return std::nullopt;
    }
    unreported = state.unreported;
    state.last_reported = now;
    state.unreported = 0;
  }
  std::string line = absl::StrCat("refused a request from ", address, ": ", std::string(why));
  if (unreported > 0) {
    absl::StrAppend(&line, " (and ", unreported, " more from there since the last report)");
  }
  return line;
}

}  // namespace skiff
