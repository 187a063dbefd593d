#include "restd/http/connection_quota.h"

#include <cassert>

namespace skiff::restd {

ConnectionQuota::Verdict ConnectionQuota::Admit(const std::string& peer) {
  int& held = per_peer_[peer];
  if (held >= max_per_peer_) return Verdict::kPeerFull;
  if (total_ >= max_total_) {
    if (held == 0) per_peer_.erase(peer);
    return Verdict::kServerFull;
  }
  ++held;
  ++total_;
  return Verdict::kAdmitted;
}

void ConnectionQuota::Release(const std::string& peer) {
  auto it = per_peer_.find(peer);
  assert(it != per_peer_.end() && it->second > 0 && total_ > 0);
  if (it == per_peer_.end()) return;
  --total_;
  if (--it->second == 0) per_peer_.erase(it);
}

int ConnectionQuota::of(const std::string& peer) const {
  auto it = per_peer_.find(peer);
  return it == per_peer_.end() ? 0 : it->second;
}

}  // namespace skiff::restd
