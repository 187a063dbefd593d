#include "common/rpc/connection_guard.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

std::vector<int> Fds(const std::vector<ConnectionGuard::Tracked>& tracked) {
  std::vector<int> fds;
  for (const auto& t : tracked) fds.push_back(t.fd);
  return fds;
}

ConnectionLimits Small() {
  ConnectionLimits limits;
  limits.max_connections = 6;
  limits.max_unauthenticated = 4;
  limits.max_unauthenticated_per_peer = 2;
  limits.unauthenticated_ms = 3000;
  return limits;
}

TEST(ConnectionGuard, APeersIdleConnectionsGiveWayToItsNewOnes) {
  ConnectionGuard guard(Small());
  EXPECT_TRUE(guard.Accept(10, 1, "a", 0).admitted);
  EXPECT_TRUE(guard.Accept(11, 2, "a", 1).admitted);
  ConnectionGuard::Admission third = guard.Accept(12, 3, "a", 2);
  EXPECT_TRUE(third.admitted);
  EXPECT_EQ(Fds(third.evict), std::vector<int>{10});  // a's oldest idle one
  EXPECT_EQ(third.evict[0].id, 1u);
  EXPECT_EQ(guard.unauthenticated(), 2);
}

TEST(ConnectionGuard, AClientSendingItsRequestOutlivesSilentConnectionsFromItsAddress) {
  ConnectionGuard guard(Small());
  auto spoke = [](int fd) { return fd == 10; };  // 10 has sent its first bytes
  guard.Accept(10, 1, "a", 0, spoke);
  guard.Accept(11, 2, "a", 1, spoke);
  ConnectionGuard::Admission third = guard.Accept(12, 3, "a", 2, spoke);
  EXPECT_EQ(Fds(third.evict), std::vector<int>{11});  // the silent one, though newer
  ConnectionGuard::Admission fourth =
      guard.Accept(13, 4, "a", 3, [](int fd) { return fd == 10 || fd == 12; });
  EXPECT_EQ(Fds(fourth.evict), std::vector<int>{10});  // all spoke: the oldest
}

TEST(ConnectionGuard, TheUnauthenticatedCapEvictsTheOldestFromAnyone) {
  ConnectionGuard guard(Small());
  guard.Accept(10, 1, "a", 0);
  guard.Accept(11, 2, "b", 1);
  guard.Accept(12, 3, "c", 2);
  guard.Accept(13, 4, "d", 3);
  ConnectionGuard::Admission fifth = guard.Accept(14, 5, "e", 4);
  EXPECT_TRUE(fifth.admitted);
  EXPECT_EQ(Fds(fifth.evict), std::vector<int>{10});
}

TEST(ConnectionGuard, AuthenticatedConnectionsAreNeverEvictedAndAFullGuardRefuses) {
  ConnectionGuard guard(Small());
  for (int fd = 10; fd < 16; ++fd) {
    ASSERT_TRUE(guard.Accept(fd, fd, "node" + std::to_string(fd), fd).admitted);
    guard.Authenticated(fd);
  }
  ConnectionGuard::Admission full = guard.Accept(20, 20, "flood", 100);
  EXPECT_FALSE(full.admitted);
  EXPECT_TRUE(full.evict.empty());
  EXPECT_EQ(guard.tracked().size(), 6u);
  guard.Closed(10);
  EXPECT_TRUE(guard.Accept(20, 20, "flood", 101).admitted);
}

TEST(ConnectionGuard, IdleConnectionsExpireAndAuthenticatedOnesDoNot) {
  ConnectionGuard guard(Small());
  guard.Accept(10, 1, "a", 0);
  guard.Accept(11, 2, "b", 1000);
  guard.Authenticated(10);
  EXPECT_TRUE(guard.Expired(3999).empty());
  EXPECT_EQ(guard.Expired(4000), std::vector<int>{11});
  // A reused fd number is a new connection.
  guard.Accept(11, 9, "c", 5000);
  EXPECT_TRUE(guard.Expired(5001).empty());
  EXPECT_EQ(guard.tracked().at(11).id, 9u);
}

}  // namespace
}  // namespace skiff
