#include "common/size.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "common/garbage_fuzz.h"

namespace skiff {
namespace {

constexpr uint64_t kPiB = kTiB * 1024;

struct ParseCase {
  std::string text;
  uint64_t default_unit;
  uint64_t bytes;
};

TEST(ParseSizeTest, ParsesSuffixes) {
  const ParseCase cases[] = {
      {"0", kMiB, 0},
      {"0G", kMiB, 0},
      {"100", kMiB, 100 * kMiB},  // A bare number takes the default unit.
      {"100", 1, 100},
      {"100", kGiB, 100 * kGiB},
      {"500M", kMiB, 500 * kMiB},
      {"500m", kMiB, 500 * kMiB},
      {"4G", kMiB, 4 * kGiB},
      {"4g", 1, 4 * kGiB},
      {"1T", kMiB, kTiB},
      {"2P", kMiB, 2 * kPiB},
      {"10GiB", kMiB, 10 * kGiB},
      {"10gib", kMiB, 10 * kGiB},
      {"1K", kMiB, 1024},
      {"1KiB", kMiB, 1024},
      {"1MiB", kMiB, kMiB},
      {"1TiB", kMiB, kTiB},
      {"1PiB", kMiB, kPiB},
      {"1KB", kMiB, 1000},
      {"1kb", kMiB, 1000},
      {"2MB", kMiB, 2000000},
      {"3GB", kMiB, 3000000000},
      {"4TB", kMiB, 4000000000000},
      {"5PB", kMiB, 5000000000000000},
      {"7B", kMiB, 7},
      {"7b", kMiB, 7},
      {"007M", kMiB, 7 * kMiB},
      {"18446744073709551615B", kMiB, std::numeric_limits<uint64_t>::max()},
      {"16383P", kMiB, 16383 * kPiB},  // 16384P is 2^64 and overflows.
  };
  for (const ParseCase& c : cases) {
    absl::StatusOr<uint64_t> got = ParseSize(c.text, c.default_unit);
    ASSERT_TRUE(got.ok()) << c.text << ": " << got.status();
    EXPECT_EQ(*got, c.bytes) << c.text;
  }
}

TEST(ParseSizeTest, RejectsMalformedText) {
  const std::string cases[] = {
      "",
      "-1",
      "+1",
      "1.5G",
      "1.",
      ".5",
      "4X",
      "G",
      "M500",
      "1 G",
      " 1",
      "1G ",
      "1GG",
      "1iB",
      "1Gi",
      "1GBB",
      "1KIBB",
      "0x10",
      "1e3",
      "99999999999999999999T",  // Number itself overflows.
      "18446744073709551616",   // One past uint64_t max, even with unit 1.
      "16384P",                 // 2^64 bytes.
      "17179869184G",           // 2^64 bytes.
      "18446744073709551615",   // Fine as bytes, overflows as MiB.
  };
  for (const std::string& text : cases) {
    absl::StatusOr<uint64_t> got = ParseSize(text, kMiB);
    ASSERT_FALSE(got.ok()) << "\"" << text << "\" gave " << *got;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(got.status().message().find("\"" + text + "\""), std::string::npos) << got.status();
  }
}

TEST(ParseSizeTest, RejectsOverflowWithDefaultUnitOfBytes) {
  EXPECT_FALSE(ParseSize("18446744073709551616", 1).ok());
  absl::StatusOr<uint64_t> max = ParseSize("18446744073709551615", 1);
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(*max, std::numeric_limits<uint64_t>::max());
}

struct FormatCase {
  uint64_t bytes;
  std::string text;
};

TEST(FormatSizeTest, UsesLargestExactUnit) {
  const FormatCase cases[] = {
      {0, "0"},
      {1, "1"},
      {1023, "1023"},
      {1024, "1K"},
      {1536, "1536"},
      {1536 * 1024, "1536K"},
      {524288000, "500M"},
      {4294967296, "4G"},
      {kTiB, "1T"},
      {3 * kPiB, "3P"},
      {1024 * kPiB, "1024P"},  // No suffix beyond P, so the output parses back.
      {std::numeric_limits<uint64_t>::max(), "18446744073709551615"},
  };
  for (const FormatCase& c : cases) {
    EXPECT_EQ(FormatSize(c.bytes), c.text) << c.bytes;
  }
}

TEST(FormatSizeTest, ParsesBackWithByteDefault) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1536}, kMiB, 500 * kMiB, 4 * kGiB, 1024 * kPiB,
                         std::numeric_limits<uint64_t>::max() - 1023}) {
    absl::StatusOr<uint64_t> parsed = ParseSize(FormatSize(bytes), 1);
    ASSERT_TRUE(parsed.ok()) << FormatSize(bytes) << ": " << parsed.status();
    EXPECT_EQ(*parsed, bytes);
  }
}

TEST(BytesToMiBTest, RoundsDown) {
  EXPECT_EQ(BytesToMiB(0), 0u);
  EXPECT_EQ(BytesToMiB(kMiB - 1), 0u);
  EXPECT_EQ(BytesToMiB(kMiB), 1u);
  EXPECT_EQ(BytesToMiB(500 * kMiB + 12345), 500u);
  EXPECT_EQ(BytesToMiB(4 * kGiB), 4096u);
}

TEST(ParseSizeFuzzTest, NeverCrashesOnGarbage) {
  const int valid = skiff::testing::ParseGarbage(
      "[]-,:0123456789abcGMKiBTP0123456789GMK", 16,
      [](const std::string& text) { return ParseSize(text, kMiB); },
      [](const std::string& text, uint64_t got) {
        // Whatever parsed must print and parse back to the same byte count.
        absl::StatusOr<uint64_t> again = ParseSize(FormatSize(got), 1);
        ASSERT_TRUE(again.ok()) << text << ": " << again.status();
        EXPECT_EQ(*again, got) << text;
      });
  EXPECT_GT(valid, 100);  // The generator must reach the success path too.
}

}  // namespace
}  // namespace skiff
