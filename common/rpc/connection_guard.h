// ConnectionGuard: which accepted connections a daemon keeps, as pure
// bookkeeping (no sockets, no clock, no threads), so that a flood of idle or
// unauthenticated connections can neither exhaust the daemon's descriptors nor
// crowd out its nodes and admins.
//
// Rules:
// - At most `max_connections` at once. A connection is authenticated once it
//   has carried a request with a valid credential, as a user (its uid) who is
//   privileged (root, SlurmUser: admins and every node daemon) or not.
// - One unprivileged user holds at most `max_per_user` authenticated
//   connections: past that, the user's own oldest one is closed. When the
//   table is full, a new connection first takes an unauthenticated one's place
//   (below), else the oldest connection of the unprivileged user who holds the
//   most: whoever hoards connections loses them, and root, SlurmUser and the
//   nodes always get in. Privileged connections are never evicted; a table
//   full of them refuses.
// - Unauthenticated connections are capped at `max_unauthenticated` in all and
//   `max_unauthenticated_per_peer` from one address. A new connection that finds
//   either cap reached evicts the oldest unauthenticated one it competes with,
//   preferring those that have not sent a byte (the `spoke` predicate): whoever
//   holds connections open without sending a request loses them to whoever
//   connects to send one, and a client that is sending its first request is
//   not pushed out by a flood of silent connections from its own address.
// - An unauthenticated connection is closed `unauthenticated_ms` after accept.
//
// Not thread-safe: GuardedServer (guarded_server.h) owns one under its mutex.
#ifndef SKIFF_COMMON_RPC_CONNECTION_GUARD_H_
#define SKIFF_COMMON_RPC_CONNECTION_GUARD_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace skiff {

struct ConnectionLimits {
  int max_connections = 4096;
  int max_unauthenticated = 256;
  int max_unauthenticated_per_peer = 64;
  int64_t unauthenticated_ms = 3000;
  int max_per_user = 512;
};

class ConnectionGuard {
 public:
  explicit ConnectionGuard(ConnectionLimits limits) : limits_(limits) {}

  struct Tracked {
    int fd = 0;
    uint64_t id = 0;  // what the caller uses to tell the same socket from a reused fd
    std::string peer;
    bool authenticated = false;
    int64_t accepted_ms = 0;
    uint32_t uid = 0;         // once authenticated
    bool privileged = false;  // once authenticated
  };
  struct Admission {
    bool admitted = false;
    std::vector<Tracked> evict;  // unauthenticated connections to close for it (forgotten)
  };
  // A connection from `peer` (an address without port) accepted as `fd`.
  // An fd already tracked is a new connection: the old one is forgotten.
  // `spoke(fd)` says whether a tracked connection has sent anything (null:
  // none has).
  Admission Accept(int fd, uint64_t id, const std::string& peer, int64_t now_ms,
                   const std::function<bool(int)>& spoke = nullptr);

  // `fd` carried a request with a valid credential of `uid`. Returns the
  // connections to close for it (forgotten): the user's oldest, when an
  // unprivileged user goes past max_per_user. Unknown fds are ignored; a
  // connection keeps the identity of its first credential.
  std::vector<Tracked> Authenticated(int fd, uint32_t uid, bool privileged);

  // `fd` was closed (by the server, or after eviction).
  void Closed(int fd);

  // Unauthenticated connections whose time is up at `now_ms` (they stay tracked
  // until Closed).
  std::vector<int> Expired(int64_t now_ms) const;

  const std::map<int, Tracked>& tracked() const { return tracked_; }
  int unauthenticated() const;

 private:
  // The oldest unauthenticated connection (from `peer`, or from anyone when
  // empty), a silent one if there is any; -1 when there is none.
  int OldestUnauthenticated(const std::string& peer, const std::function<bool(int)>& spoke) const;
  // The oldest authenticated connection of the unprivileged user holding the
  // most; -1 when there is none.
  int OldestOfTheHeaviestUser() const;
  // The oldest authenticated connection of `uid` other than `except`; -1 if none.
  int OldestOfUser(uint32_t uid, int except) const;

  ConnectionLimits limits_;
  std::map<int, Tracked> tracked_;
};

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_CONNECTION_GUARD_H_
