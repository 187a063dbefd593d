#include "common/time_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <string>

#include "common/garbage_fuzz.h"

namespace skiff {
namespace {

constexpr int64_t kMinute = 60;
constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 86400;

struct DurationCase {
  std::string text;
  int64_t seconds;
};

TEST(ParseDurationTest, ParsesSlurmForms) {
  const DurationCase cases[] = {
      {"0", 0},
      {"5", 5 * kMinute},  // A bare number is minutes.
      {"90", 90 * kMinute},
      {"100000", 100000 * kMinute},
      {"5:30", 5 * kMinute + 30},
      {"1:02:03", kHour + 2 * kMinute + 3},
      {"01:02:03", kHour + 2 * kMinute + 3},
      {"2-3", 2 * kDay + 3 * kHour},
      {"2-03:04", 2 * kDay + 3 * kHour + 4 * kMinute},
      {"2-03:04:05", 2 * kDay + 3 * kHour + 4 * kMinute + 5},
      {"0-00:00:01", 1},
      {"0:90", 90},  // Like Slurm, later fields are not range checked.
      {"1-30", kDay + 30 * kHour},
      {"UNLIMITED", kInfiniteDuration},
      {"unlimited", kInfiniteDuration},
      {"Infinite", kInfiniteDuration},
      {"INFINITE", kInfiniteDuration},
      {"153722867280912930", 153722867280912930 * kMinute},  // Largest in range.
      {"106751991167300-15", 106751991167300 * kDay + 15 * kHour},
  };
  for (const DurationCase& c : cases) {
    absl::StatusOr<int64_t> got = ParseDuration(c.text);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(*got, c.seconds) << c.text;
  }
}

TEST(ParseDurationTest, RejectsMalformedText) {
  const std::string cases[] = {
      "",
      "-1",
      "-5",
      "+5",
      "5m",
      "abc",
      "1:2:3:4",
      "1--2",
      "5-",
      "-",
      ":",
      "1:",
      ":30",
      "1::2",
      "1-2:3:4:5",
      "1:2-3",
      " 5",
      "5 ",
      "1.5",
      "unlimitedx",
      "1-2-3",
      "99999999999999999999",
      "153722867280912931",  // Minutes overflow int64 seconds.
      "106751991167300-16",  // Days overflow once hours are added.
  };
  for (const std::string& text : cases) {
    absl::StatusOr<int64_t> got = ParseDuration(text);
    ASSERT_FALSE(got.ok()) << "\"" << text << "\" gave " << *got;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(got.status().message().find("\"" + text + "\""), std::string::npos) << got.status();
  }
}

struct FormatCase {
  int64_t seconds;
  std::string text;
};

TEST(FormatElapsedTest, FormatsLikeSqueueTime) {
  const FormatCase cases[] = {
      {0, "0:00"},
      {7, "0:07"},
      {65, "1:05"},
      {307, "5:07"},
      {3599, "59:59"},
      {3600, "1:00:00"},
      {3723, "1:02:03"},
      {kDay - 1, "23:59:59"},
      {kDay, "1-00:00:00"},
      {2 * kDay + 3 * kHour + 4 * kMinute + 5, "2-03:04:05"},
      {1000 * kDay, "1000-00:00:00"},
      {kInfiniteDuration, "UNLIMITED"},
      {-2, "INVALID"},
  };
  for (const FormatCase& c : cases) {
    EXPECT_EQ(FormatElapsed(c.seconds), c.text) << c.seconds;
  }
}

TEST(FormatTimeLimitTest, FormatsLikeScontrolTimeLimit) {
  const FormatCase cases[] = {
      {0, "00:00:00"},
      {300, "00:05:00"},
      {3723, "01:02:03"},
      {kDay, "1-00:00:00"},
      {2 * kDay + 3 * kHour + 4 * kMinute + 5, "2-03:04:05"},
      {kInfiniteDuration, "UNLIMITED"},
      {-2, "INVALID"},
  };
  for (const FormatCase& c : cases) {
    EXPECT_EQ(FormatTimeLimit(c.seconds), c.text) << c.seconds;
  }
}

TEST(FormatTimeLimitTest, ParsesBackToTheSameDuration) {
  for (int64_t seconds : {int64_t{0}, int64_t{59}, int64_t{300}, int64_t{3723}, kDay,
                          2 * kDay + 3 * kHour + 4 * kMinute + 5, kInfiniteDuration}) {
    absl::StatusOr<int64_t> parsed = ParseDuration(FormatTimeLimit(seconds));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, seconds);
  }
}

// Local time is process-wide state; pin it so expectations hold on any machine.
class FormatTimestampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    had_tz_ = tz != nullptr;
    if (had_tz_) old_tz_ = tz;
  }
  void TearDown() override {
    if (had_tz_) {
      setenv("TZ", old_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  static void UseZone(const char* tz) {
    setenv("TZ", tz, 1);
    tzset();
  }

 private:
  bool had_tz_ = false;
  std::string old_tz_;
};

TEST_F(FormatTimestampTest, FormatsInUtc) {
  UseZone("UTC0");
  EXPECT_EQ(FormatTimestamp(1), "1970-01-01T00:00:01");
  EXPECT_EQ(FormatTimestamp(1795324449), "2026-11-22T05:14:09");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31T23:59:59");
}

TEST_F(FormatTimestampTest, FormatsInLocalTime) {
  UseZone("EST5");  // Fixed UTC-5, no daylight saving.
  EXPECT_EQ(FormatTimestamp(1795324449), "2026-11-22T00:14:09");
}

TEST_F(FormatTimestampTest, PrintsUnknownForZero) {
  UseZone("UTC0");
  EXPECT_EQ(FormatTimestamp(0), "Unknown");
}

TEST_F(FormatTimestampTest, PrintsUnknownForUnrepresentableYears) {
  UseZone("UTC0");
  EXPECT_EQ(FormatTimestamp(std::numeric_limits<int64_t>::max()), "Unknown");
  EXPECT_EQ(FormatTimestamp(std::numeric_limits<int64_t>::min()), "Unknown");
}

TEST(ParseDurationFuzzTest, NeverCrashesOnGarbage) {
  const int valid = skiff::testing::ParseGarbage(
      "[]-,:0123456789abcGMK-:0123456789", 20,
      [](const std::string& text) { return ParseDuration(text); },
      [](const std::string& text, int64_t got) {
        EXPECT_TRUE(got >= 0 || got == kInfiniteDuration) << text;
        // Anything accepted must print and parse back to the same value.
        absl::StatusOr<int64_t> again = ParseDuration(FormatTimeLimit(got));
        ASSERT_TRUE(again.ok()) << text << ": " << again.status();
        EXPECT_EQ(*again, got) << text;
      });
  EXPECT_GT(valid, 100);  // The generator must reach the success path too.
}

TEST_F(FormatTimestampTest, ParsesSlurmTimesForSacctWindows) {
  UseZone("UTC0");
  const int64_t now = 1795324449;  // 2026-11-22T05:14:09, a Sunday
  auto t = [&](const char* text, bool past = true) {
    absl::StatusOr<int64_t> parsed = ParseSlurmTime(text, now, past);
    return parsed.ok() ? FormatTimestamp(*parsed) : std::string(parsed.status().message());
  };
  EXPECT_EQ(t("2026-11-22T05:14:02"), "2026-11-22T05:14:02");
  EXPECT_EQ(t("2026-11-01"), "2026-11-01T00:00:00");
  EXPECT_EQ(t("now-1days"), "2026-11-21T05:14:09");
  EXPECT_EQ(t("now-2h"), "2026-11-22T03:14:09");
  EXPECT_EQ(t("now+30"), "2026-11-22T05:14:39");
  EXPECT_EQ(t("now"), "2026-11-22T05:14:09");
  EXPECT_EQ(t("midnight"), "2026-11-22T00:00:00");
  EXPECT_EQ(t("midnight", false), "2026-11-23T00:00:00");
  EXPECT_EQ(t("today"), "2026-11-22T00:00:00");
  EXPECT_EQ(t("04:00"), "2026-11-22T04:00:00");
  EXPECT_EQ(t("06:00"), "2026-11-21T06:00:00");  // still to come today: yesterday's
  EXPECT_EQ(t("06:00", false), "2026-11-22T06:00:00");
  EXPECT_EQ(t("2:30pm"), "2026-11-21T14:30:00");
  EXPECT_EQ(t("1120"), "2026-11-20T00:00:00");
  EXPECT_EQ(t("112025"), "2025-11-20T00:00:00");
  EXPECT_EQ(t("11/20"), "2026-11-20T00:00:00");
  EXPECT_EQ(t("11/20/25"), "2025-11-20T00:00:00");
  EXPECT_EQ(t("11.20.2025"), "2025-11-20T00:00:00");
  EXPECT_EQ(t("11/20-10:30"), "2026-11-20T10:30:00");
  EXPECT_EQ(t("yesterday"), "Invalid time specification 'yesterday'");
  EXPECT_EQ(t("2026-13-01"), "Invalid time specification '2026-13-01'");
  EXPECT_EQ(t("02/31"), "Invalid time specification '02/31'");
  EXPECT_EQ(t("now-1fortnights"), "Invalid time specification 'now-1fortnights'");
  EXPECT_EQ(t("25:00"), "Invalid time specification '25:00'");
}

}  // namespace
}  // namespace skiff
