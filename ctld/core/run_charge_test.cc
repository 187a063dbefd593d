#include "ctld/core/run_charge.h"

#include <gtest/gtest.h>

#include <limits>

#include "ctld/core/job.h"

namespace skiff::ctld {
namespace {

TEST(RunChargeTest, ARunMayLastItsLimitThenOverTimeLimitThenKillWait) {
  EXPECT_EQ(MaxRunSeconds(300, 0, 150), 450);  // issue 32: 5 minutes + KillWait
  EXPECT_EQ(MaxRunSeconds(300, 2, 30), 300 + 120 + 30);
  EXPECT_EQ(MaxRunSeconds(300, 0, 0), 300);
}

TEST(RunChargeTest, OverTimeLimitUnlimitedIsNoGraceAsEnforced) {
  EXPECT_EQ(OverTimeSeconds(-1), 0);
  EXPECT_EQ(OverTimeSeconds(0), 0);
  EXPECT_EQ(OverTimeSeconds(3), 180);
  EXPECT_EQ(MaxRunSeconds(60, -1, 10), 70);
}

TEST(RunChargeTest, NoTimeLimitMeansNoMaximum) {
  EXPECT_EQ(MaxRunSeconds(kUnlimited, 5, 30), kUnlimited);
}

TEST(RunChargeTest, AHugeLimitIsPinnedNotWrapped) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(MaxRunSeconds(max - 10, 1, 30), max);
}

TEST(RunChargeTest, ARunIsChargedWhatItHeldIncludingTheKillWaitTail) {
  // Limit 300, KillWait 150: the job ignored SIGTERM and was killed at 450.
  EXPECT_EQ(ChargedSeconds(1000, 1450, 0, MaxRunSeconds(300, 0, 150)), 450);
  // One that ended early is charged what it ran.
  EXPECT_EQ(ChargedSeconds(1000, 1042, 0, MaxRunSeconds(300, 0, 150)), 42);
}

TEST(RunChargeTest, TimeSuspendedIsNotCharged) {
  EXPECT_EQ(ChargedSeconds(1000, 1100, 40, 450), 60);
  // Suspended through its limit: the limit waited, so the cap does too.
  EXPECT_EQ(ChargedSeconds(1000, 1600, 150, 450), 450);
}

TEST(RunChargeTest, HearingOfTheEndLateChargesNoMoreThanWasReserved) {
  // ctld was down when the job was killed at 450 and heard of it at 900.
  EXPECT_EQ(ChargedSeconds(1000, 1900, 0, 450), 450);
  EXPECT_EQ(ChargedSeconds(1000, 1900, 0, kUnlimited), 900);
}

TEST(RunChargeTest, AClockThatWentBackChargesNothing) {
  EXPECT_EQ(ChargedSeconds(1000, 990, 0, 450), 0);
  EXPECT_EQ(ChargedSeconds(1000, 1010, 20, 450), 0);
}

TEST(RunChargeTest, TheSigkillFallsAtTheDeadlineHoweverLateTheSigterm) {
  // Limit (and grace) ran out at 1300, KillWait 150: SIGKILL due at 1450.
  EXPECT_EQ(KillWaitLeft(1300, 150, 1300), 150);
  EXPECT_EQ(KillWaitLeft(1300, 150, 1301), 149);  // the once-a-second check was late
  EXPECT_EQ(KillWaitLeft(1300, 150, 1440), 10);   // a ctld restart resends it
  EXPECT_EQ(KillWaitLeft(1300, 150, 2000), 0);
  EXPECT_EQ(KillWaitLeft(1300, 150, 1200), 150);  // told early (scancel): all of it
}

}  // namespace
}  // namespace skiff::ctld
