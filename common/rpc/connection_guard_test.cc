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

TEST(ConnectionGuard, PrivilegedConnectionsAreNeverEvictedAndAGuardFullOfThemRefuses) {
  ConnectionGuard guard(Small());
  for (int fd = 10; fd < 16; ++fd) {
    ASSERT_TRUE(guard.Accept(fd, fd, "node" + std::to_string(fd), fd).admitted);
    EXPECT_TRUE(guard.Authenticated(fd, 0, true).empty());
  }
  ConnectionGuard::Admission full = guard.Accept(20, 20, "flood", 100);
  EXPECT_FALSE(full.admitted);
  EXPECT_TRUE(full.evict.empty());
  EXPECT_EQ(guard.tracked().size(), 6u);
  guard.Closed(10);
  EXPECT_TRUE(guard.Accept(20, 20, "flood", 101).admitted);
}

// One user with a valid credential on every connection filled ctld's table, and
// root's sinfo was refused: a user past the cap loses their own oldest.
TEST(ConnectionGuard, AUserPastTheirCapLosesTheirOwnOldestConnection) {
  ConnectionLimits limits = Small();
  limits.max_per_user = 2;
  ConnectionGuard guard(limits);
  for (int fd = 10; fd < 13; ++fd) {
    ASSERT_TRUE(guard.Accept(fd, fd, "a", fd).admitted);
    if (fd < 12) {
      EXPECT_TRUE(guard.Authenticated(fd, 1000, false).empty());
    }
  }
  std::vector<ConnectionGuard::Tracked> evicted = guard.Authenticated(12, 1000, false);
  EXPECT_EQ(Fds(evicted), std::vector<int>{10});
  EXPECT_EQ(evicted[0].id, 10u);
  // Another user, and root, are not counted with them.
  ASSERT_TRUE(guard.Accept(13, 13, "a", 13).admitted);
  EXPECT_TRUE(guard.Authenticated(13, 1001, false).empty());
  ASSERT_TRUE(guard.Accept(14, 14, "a", 14).admitted);
  EXPECT_TRUE(guard.Authenticated(14, 0, true).empty());
  // A second credential on a connection changes nothing.
  EXPECT_TRUE(guard.Authenticated(13, 1000, false).empty());
  EXPECT_EQ(guard.tracked().at(13).uid, 1001u);
}

TEST(ConnectionGuard, AFullTableMakesRoomFromTheUserHoldingTheMost) {
  ConnectionGuard guard(Small());  // 6 connections, max_per_user large
  const uint32_t owner[] = {1000, 1000, 1001, 1000, 0, 1001};
  for (int k = 0; k < 6; ++k) {
    ASSERT_TRUE(guard.Accept(10 + k, 10 + k, "a", k).admitted);
    guard.Authenticated(10 + k, owner[k], owner[k] == 0);
  }
  ConnectionGuard::Admission root = guard.Accept(20, 20, "b", 100);
  EXPECT_TRUE(root.admitted);
  EXPECT_EQ(Fds(root.evict), std::vector<int>{10});  // 1000's oldest: 1000 holds three
  guard.Authenticated(20, 0, true);
  ConnectionGuard::Admission next = guard.Accept(21, 21, "b", 101);
  EXPECT_EQ(Fds(next.evict), std::vector<int>{11});  // 1000 and 1001 hold two: either's oldest
}

TEST(ConnectionGuard, IdleConnectionsExpireAndAuthenticatedOnesDoNot) {
  ConnectionGuard guard(Small());
  guard.Accept(10, 1, "a", 0);
  guard.Accept(11, 2, "b", 1000);
  guard.Authenticated(10, 1000, false);
  EXPECT_TRUE(guard.Expired(3999).empty());
  EXPECT_EQ(guard.Expired(4000), std::vector<int>{11});
  // A reused fd number is a new connection.
  guard.Accept(11, 9, "c", 5000);
  EXPECT_TRUE(guard.Expired(5001).empty());
  EXPECT_EQ(guard.tracked().at(11).id, 9u);
}

}  // namespace
}  // namespace skiff
