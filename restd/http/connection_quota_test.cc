// restd's connections per peer and in all (issue 47, item 10).
#include "restd/http/connection_quota.h"

#include <gtest/gtest.h>

namespace skiff::restd {
namespace {

using Verdict = ConnectionQuota::Verdict;

TEST(ConnectionQuotaTest, OnePeerGetsItsShareAndNoMore) {
  ConnectionQuota quota(10, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kPeerFull);
  EXPECT_EQ(quota.of("uid 1000"), 3);
  // Another user, and another address, are still let in.
  EXPECT_EQ(quota.Admit("uid 1001"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("ip 10.0.0.7"), Verdict::kAdmitted);
  EXPECT_EQ(quota.total(), 5);
}

TEST(ConnectionQuotaTest, AReleasedConnectionMakesRoomAgain) {
  ConnectionQuota quota(10, 2);
  EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kPeerFull);
  quota.Release("uid 1000");
  EXPECT_EQ(quota.of("uid 1000"), 1);
  EXPECT_EQ(quota.Admit("uid 1000"), Verdict::kAdmitted);
  quota.Release("uid 1000");
  quota.Release("uid 1000");
  EXPECT_EQ(quota.of("uid 1000"), 0);
  EXPECT_EQ(quota.total(), 0);
}

TEST(ConnectionQuotaTest, TheServerCapHoldsAcrossPeers) {
  ConnectionQuota quota(4, 3);
  EXPECT_EQ(quota.Admit("a"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("b"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("c"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("d"), Verdict::kAdmitted);
  EXPECT_EQ(quota.Admit("e"), Verdict::kServerFull);
  EXPECT_EQ(quota.of("e"), 0);
  quota.Release("a");
  EXPECT_EQ(quota.Admit("e"), Verdict::kAdmitted);
}

}  // namespace
}  // namespace skiff::restd
