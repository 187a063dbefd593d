// How many connections restd holds open, in all and per peer (issue 47,
// item 10), so that one peer cannot take every connection and lock the
// others out. A peer is a user where the kernel names one (the uid of a
// Unix-socket peer, or of a TCP peer on this host's loopback), else the
// remote IP address: see HttpServer.
//
// Pure; thread-compatible: the server guards it with its own mutex.
#ifndef SKIFF_RESTD_HTTP_CONNECTION_QUOTA_H_
#define SKIFF_RESTD_HTTP_CONNECTION_QUOTA_H_

#include <map>
#include <string>

namespace skiff::restd {

class ConnectionQuota {
 public:
  enum class Verdict { kAdmitted, kPeerFull, kServerFull };

  // REQUIRES: 0 < max_per_peer; 0 < max_total.
  ConnectionQuota(int max_total, int max_per_peer)
      : max_total_(max_total), max_per_peer_(max_per_peer) {}

  // Counts a new connection of `peer` when both caps allow it.
  Verdict Admit(const std::string& peer);
  // REQUIRES: a connection of `peer` was admitted and not yet released.
  void Release(const std::string& peer);

  int total() const { return total_; }
  int of(const std::string& peer) const;
  int max_per_peer() const { return max_per_peer_; }

 private:
  const int max_total_;
  const int max_per_peer_;
  int total_ = 0;
  std::map<std::string, int> per_peer_;  // only peers with a connection open
};

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_HTTP_CONNECTION_QUOTA_H_
