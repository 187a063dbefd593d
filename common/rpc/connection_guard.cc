#include "common/rpc/connection_guard.h"

#include <algorithm>
#include <map>

namespace skiff {

int ConnectionGuard::unauthenticated() const {
  return static_cast<int>(std::count_if(tracked_.begin(), tracked_.end(),
                                        [](const auto& e) { return !e.second.authenticated; }));
}

int ConnectionGuard::OldestUnauthenticated(const std::string& peer,
                                           const std::function<bool(int)>& spoke) const {
  int oldest = -1, oldest_silent = -1;
  int64_t oldest_ms = 0, oldest_silent_ms = 0;
  for (const auto& [fd, t] : tracked_) {
    if (t.authenticated || (!peer.empty() && t.peer != peer)) continue;
    if (oldest < 0 || t.accepted_ms < oldest_ms) {
      oldest = fd;
      oldest_ms = t.accepted_ms;
    }
    if ((!spoke || !spoke(fd)) && (oldest_silent < 0 || t.accepted_ms < oldest_silent_ms)) {
      oldest_silent = fd;
      oldest_silent_ms = t.accepted_ms;
    }
  }
  return oldest_silent >= 0 ? oldest_silent : oldest;
}

int ConnectionGuard::OldestOfUser(uint32_t uid, int except) const {
  int oldest = -1;
  int64_t oldest_ms = 0;
  for (const auto& [fd, t] : tracked_) {
    if (!t.authenticated || t.privileged || t.uid != uid || fd == except) continue;
    if (oldest < 0 || t.accepted_ms < oldest_ms) {
      oldest = fd;
      oldest_ms = t.accepted_ms;
    }
  }
  return oldest;
}

int ConnectionGuard::OldestOfTheHeaviestUser() const {
  std::map<uint32_t, int> held;
  for (const auto& [fd, t] : tracked_) {
    if (t.authenticated && !t.privileged) ++held[t.uid];
  }
  const auto heaviest = std::max_element(
      held.begin(), held.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return heaviest == held.end() ? -1 : OldestOfUser(heaviest->first, -1);
}

ConnectionGuard::Admission ConnectionGuard::Accept(int fd, uint64_t id, const std::string& peer,
                                                   int64_t now_ms,
                                                   const std::function<bool(int)>& spoke) {
  tracked_.erase(fd);  // the number was reused: that connection is gone
  Admission admission;
  auto evict = [&](int victim) {
    admission.evict.push_back(tracked_.at(victim));
    tracked_.erase(victim);
  };
  int from_peer = 0;
  for (const auto& [other, t] : tracked_) {
    if (!t.authenticated && t.peer == peer) ++from_peer;
  }
  if (from_peer >= limits_.max_unauthenticated_per_peer) {
    const int victim = OldestUnauthenticated(peer, spoke);
    if (victim >= 0) evict(victim);
  }
  if (unauthenticated() >= limits_.max_unauthenticated) {
    const int victim = OldestUnauthenticated("", spoke);
    if (victim >= 0) evict(victim);
  }
  if (static_cast<int>(tracked_.size()) >= limits_.max_connections) {
    int victim = OldestUnauthenticated("", spoke);
    if (victim < 0) victim = OldestOfTheHeaviestUser();
    if (victim < 0) return admission;  // full of privileged connections: refuse
    evict(victim);
  }
  tracked_[fd] = Tracked{fd, id, peer, false, now_ms};
  admission.admitted = true;
  return admission;
}

std::vector<ConnectionGuard::Tracked> ConnectionGuard::Authenticated(int fd, uint32_t uid,
                                                                     bool privileged) {
  std::vector<Tracked> evicted;
  auto it = tracked_.find(fd);
  if (it == tracked_.end() || it->second.authenticated) return evicted;
  it->second.authenticated = true;
  it->second.uid = uid;
  it->second.privileged = privileged;
  if (privileged) return evicted;
  int held = 0;
  for (const auto& [other, t] : tracked_) {
    if (t.authenticated && !t.privileged && t.uid == uid) ++held;
  }
  for (; held > limits_.max_per_user; --held) {
    const int victim = OldestOfUser(uid, fd);
    if (victim < 0) break;
    evicted.push_back(tracked_.at(victim));
    tracked_.erase(victim);
  }
  return evicted;
}

void ConnectionGuard::Closed(int fd) { tracked_.erase(fd); }

std::vector<int> ConnectionGuard::Expired(int64_t now_ms) const {
  std::vector<int> expired;
  for (const auto& [fd, t] : tracked_) {
    if (!t.authenticated && now_ms - t.accepted_ms >= limits_.unauthenticated_ms) {
      expired.push_back(fd);
    }
  }
  return expired;
}

}  // namespace skiff
