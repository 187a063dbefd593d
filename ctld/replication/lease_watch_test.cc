#include "ctld/replication/lease_watch.h"

#include <gtest/gtest.h>

namespace skiff::ctld::replication {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(LeaseWatch, SafeUntilTheTtlAfterTheLastAnsweredRenewalWasSentLessAMargin) {
  const LeaseWatch::Clock::time_point t0{};
  LeaseWatch watch(seconds(5), t0);
  EXPECT_EQ(watch.SafeUntil(), t0 + seconds(4));  // a fifth of 5 s
  EXPECT_FALSE(watch.Expired(t0 + milliseconds(3999)));
  EXPECT_TRUE(watch.Expired(t0 + seconds(4)));
  EXPECT_EQ(watch.RenewEvery(), milliseconds(1000));

  watch.Renewed(t0 + seconds(3));
  EXPECT_EQ(watch.SafeUntil(), t0 + seconds(7));
  // An answer to an older renewal, arriving late, does not move it back.
  watch.Renewed(t0 + seconds(1));
  EXPECT_EQ(watch.SafeUntil(), t0 + seconds(7));
}

TEST(LeaseWatch, TheMarginIsHalfASecondAtLeastAndTwoSecondsAtMost) {
  const LeaseWatch::Clock::time_point t0{};
  EXPECT_EQ(LeaseWatch(seconds(2), t0).SafeUntil(), t0 + milliseconds(1500));
  EXPECT_EQ(LeaseWatch(seconds(120), t0).SafeUntil(), t0 + seconds(118));
}

}  // namespace
}  // namespace skiff::ctld::replication
