// Until when a controller may act on its etcd lease (issue 53). Pure.
//
// etcd ends a lease `ttl` after it last renewed it, by its own clock; the
// holder cannot know when etcd received a renewal, only when it sent it, which
// was earlier. So the lease is surely alive until `ttl` after the last answered
// renewal was sent, less a margin for the two clocks' rates: past that the
// serving controller stops, before a standby can win the lease's key.
#ifndef SKIFF_CTLD_REPLICATION_LEASE_WATCH_H_
#define SKIFF_CTLD_REPLICATION_LEASE_WATCH_H_

#include <algorithm>
#include <chrono>

namespace skiff::ctld::replication {

class LeaseWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // `granted_sent`: when the request that granted the lease was sent.
  LeaseWatch(std::chrono::milliseconds ttl, Clock::time_point granted_sent)
      : ttl_(ttl), last_renewal_sent_(granted_sent) {}

  // A renewal sent at `sent` was answered with the lease alive.
  void Renewed(Clock::time_point sent) { last_renewal_sent_ = std::max(last_renewal_sent_, sent); }

  // The last moment the holder may still act as the lease's holder.
  Clock::time_point SafeUntil() const { return last_renewal_sent_ + ttl_ - Margin(); }
  bool Expired(Clock::time_point now) const { return now >= SafeUntil(); }

  // How often to renew: four tries within each safe period.
  std::chrono::milliseconds RenewEvery() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>((ttl_ - Margin()) / 4);
  }

 private:
  // A fifth of the lease, at least half a second, at most 2 s.
  std::chrono::milliseconds Margin() const {
    return std::clamp<std::chrono::milliseconds>(ttl_ / 5, std::chrono::milliseconds(500),
                                                 std::chrono::seconds(2));
  }

  const std::chrono::milliseconds ttl_;
  Clock::time_point last_renewal_sent_;
};

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_LEASE_WATCH_H_
