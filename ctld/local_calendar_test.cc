#include "ctld/local_calendar.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace skiff::ctld {
namespace {

// New York: EST (UTC-5) until 2026-03-08 07:00 UTC, EDT (UTC-4) after.
class NewYork : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "America/New_York", 1);
    tzset();
  }
  void TearDown() override {
    unsetenv("TZ");
    tzset();
  }
};

constexpr int64_t kSat7Mar2026At9Est = 1772892000;  // 2026-03-07 09:00 EST = 14:00 UTC

TEST_F(NewYork, AddDaysKeepsTheLocalHourAcrossTheSpringChange) {
  const LocalResvCalendar calendar;
  // 09:00 EDT on Sunday is 13:00 UTC: 23 hours later, not 24.
  EXPECT_EQ(calendar.AddDays(kSat7Mar2026At9Est, 1), kSat7Mar2026At9Est + 23 * 3600);
  EXPECT_EQ(calendar.AddDays(kSat7Mar2026At9Est, 7), kSat7Mar2026At9Est + 7 * 86400 - 3600);
  EXPECT_EQ(calendar.WeekDay(kSat7Mar2026At9Est), 6);
  EXPECT_EQ(calendar.WeekDay(calendar.AddDays(kSat7Mar2026At9Est, 2)), 1);
}

TEST_F(NewYork, DailyReservationKeepsNineOClockLocal) {
  AdvanceReservation resv;
  resv.start = kSat7Mar2026At9Est;
  resv.end = resv.start + 3600;
  resv.flags = kResvDaily;
  const ResvWindow sunday = WindowAt(resv, resv.end, LocalCalendar());
  EXPECT_EQ(sunday.start, kSat7Mar2026At9Est + 23 * 3600);
  EXPECT_EQ(sunday.end - sunday.start, 3600);
}

}  // namespace
}  // namespace skiff::ctld
