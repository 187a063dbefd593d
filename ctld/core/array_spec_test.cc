#include "ctld/core/array_spec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

std::vector<uint32_t> Range(uint32_t first, uint32_t last, uint32_t step = 1) {
  std::vector<uint32_t> out;
  for (uint32_t id = first; id <= last; id += step) out.push_back(id);
  return out;
}

ArraySpec MustParse(const std::string& text, int64_t max = kDefaultMaxArraySize) {
  absl::StatusOr<ArraySpec> spec = ParseArraySpec(text, max);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  return spec.ok() ? *spec : ArraySpec{};
}

std::string ErrorOf(const std::string& text, int64_t max = kDefaultMaxArraySize) {
  absl::StatusOr<ArraySpec> spec = ParseArraySpec(text, max);
  if (spec.ok()) return "ok";
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(spec.status().message());
}

TEST(ParseArraySpec, RangeListStepAndThrottle) {
  EXPECT_EQ(MustParse("1-100").task_ids, Range(1, 100));
  EXPECT_EQ(MustParse("1-100").max_running, 0u);
  EXPECT_EQ(MustParse("0-15:4").task_ids, (std::vector<uint32_t>{0, 4, 8, 12}));
  EXPECT_EQ(MustParse("1,3,5").task_ids, (std::vector<uint32_t>{1, 3, 5}));
  EXPECT_EQ(MustParse("1-5,10").task_ids, (std::vector<uint32_t>{1, 2, 3, 4, 5, 10}));
  const ArraySpec throttled = MustParse("1-100%10");
  EXPECT_EQ(throttled.task_ids, Range(1, 100));
  EXPECT_EQ(throttled.max_running, 10u);
  EXPECT_EQ(MustParse("7").task_ids, (std::vector<uint32_t>{7}));
  EXPECT_EQ(MustParse("0").task_ids, (std::vector<uint32_t>{0}));
  EXPECT_EQ(MustParse("1-7:2").task_ids, (std::vector<uint32_t>{1, 3, 5, 7}));
}

// Every task keeps the throttle as an int32 (ArrayTaskThrottle): one past it
// came back negative, and a step past the index range must not wrap the walk.
TEST(ParseArraySpec, ThrottleAndStepNeverWrap) {
  EXPECT_EQ(MustParse("1-3%2147483647").max_running, 2147483647u);
  EXPECT_EQ(ErrorOf("1-3%2147483648"),
            "Invalid job array specification: '%2147483648': the running-task limit must be at "
            "most 2147483647");
  EXPECT_EQ(MustParse("0-1000:9999999999").task_ids, (std::vector<uint32_t>{0}));
}

TEST(ParseArraySpec, SortsAndDeduplicatesOverlaps) {
  EXPECT_EQ(MustParse("10,1-3,2,0-6:3").task_ids, (std::vector<uint32_t>{0, 1, 2, 3, 6, 10}));
}

TEST(ParseArraySpec, StepLargerThanRangeKeepsFirst) {
  EXPECT_EQ(MustParse("3-5:10").task_ids, (std::vector<uint32_t>{3}));
}

TEST(ParseArraySpec, AcceptsSqueueBrackets) {
  EXPECT_EQ(MustParse("[1-5]").task_ids, Range(1, 5));
  EXPECT_EQ(MustParse("[1-5]%2").max_running, 2u);
  EXPECT_EQ(MustParse("[1-5%2]").max_running, 2u);
  EXPECT_EQ(MustParse("[1,3]").task_ids, (std::vector<uint32_t>{1, 3}));
}

TEST(ParseArraySpec, MaxArraySizeBoundIsExclusive) {
  EXPECT_EQ(MustParse("1000").task_ids, (std::vector<uint32_t>{1000}));
  EXPECT_EQ(ErrorOf("1001"),
            "Invalid job array specification: index 1001 is not below MaxArraySize=1001");
  EXPECT_EQ(ErrorOf("0-1001"),
            "Invalid job array specification: index 1001 is not below MaxArraySize=1001");
  EXPECT_EQ(MustParse("0-9", 10).task_ids.size(), 10u);
  EXPECT_NE(ErrorOf("10", 10), "ok");
  EXPECT_EQ(MustParse("0", 1).task_ids, (std::vector<uint32_t>{0}));
  EXPECT_EQ(MustParse("4000000", kMaxMaxArraySize).task_ids, (std::vector<uint32_t>{4000000}));
  EXPECT_NE(ErrorOf("4000001", kMaxMaxArraySize), "ok");
}

TEST(ParseArraySpec, StepThatOvershootsLastIsFine) {
  // 0-1000:7 stops at 994 even though 1001 would come next.
  const ArraySpec spec = MustParse("0-1000:7");
  EXPECT_EQ(spec.task_ids.back(), 994u);
}

TEST(ParseArraySpec, RejectsBadSpecsWithSlurmText) {
  for (const std::string bad :
       {"",     "10-1",   "1-10:0",  "1-",          "-5",       "a",       "1-b",   "1,,3",  ",1",
        "1,",   "1-10%",  "1-10%0",  "1-10%x",      "%4",       "1:2",     "1-2-3", "1 - 3", "[1-5",
        "1-5]", "[1-5]x", "[[1-5]]", "99999999999", "1-10%2%3", "1-10:-1", "+1",    "0x10"}) {
    const std::string error = ErrorOf(bad);
    EXPECT_EQ(error.rfind("Invalid job array specification: ", 0), 0u)
        << "'" << bad << "' -> " << error;
  }
}

TEST(ParseArraySpec, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(ErrorOf("10-1"),
            "Invalid job array specification: '10-1': the range ends before it starts");
  EXPECT_EQ(ErrorOf("1-10:0"),
            "Invalid job array specification: '1-10:0': the step must be a number above 0");
  EXPECT_EQ(
      ErrorOf("1-10%0"),
      "Invalid job array specification: '%0': the running-task limit must be a number above 0");
  EXPECT_EQ(ErrorOf(""), "Invalid job array specification: no array indices given");
  // A limit that is a number, only too large, is not "not a number above 0".
  EXPECT_EQ(ErrorOf("0-3%99999999999"),
            "Invalid job array specification: '%99999999999': the running-task limit must be at "
            "most 2147483647");
  EXPECT_EQ(ErrorOf("0-3%2147483648"),
            "Invalid job array specification: '%2147483648': the running-task limit must be at "
            "most 2147483647");
  EXPECT_EQ(
      ErrorOf("0-3%x"),
      "Invalid job array specification: '%x': the running-task limit must be a number above 0");
}

TEST(FormatTaskIds, SlurmCompactText) {
  EXPECT_EQ(FormatTaskIds(Range(8, 100)), "8-100");
  EXPECT_EQ(FormatTaskIds({1, 3, 5}), "1,3,5");
  EXPECT_EQ(FormatTaskIds({0, 4, 8, 12}), "0-12:4");
  EXPECT_EQ(FormatTaskIds({1, 2, 3, 4, 5, 10}), "1-5,10");
  EXPECT_EQ(FormatTaskIds(Range(8, 100), 10), "8-100%10");
  EXPECT_EQ(FormatTaskIds({7}), "7");
  EXPECT_EQ(FormatTaskIds({}), "");
  EXPECT_EQ(FormatTaskIds({3, 4}), "3-4");
}

TEST(FormatTaskIds, StepOnlyWhenSpanOverTenAndGapsEqual) {
  // Span exactly 10: Slurm prints the list.
  EXPECT_EQ(FormatTaskIds({0, 5, 10}), "0,5,10");
  // Span 11: stepped.
  EXPECT_EQ(FormatTaskIds({1, 12}), "1-12:11");
  EXPECT_EQ(FormatTaskIds({0, 3, 6, 9, 12}), "0-12:3");
  // Unequal gaps: ranges.
  EXPECT_EQ(FormatTaskIds({0, 4, 8, 13}), "0,4,8,13");
  // Adjacent first two: never a step, even if the rest is regular.
  EXPECT_EQ(FormatTaskIds(Range(0, 20)), "0-20");
  EXPECT_EQ(FormatTaskIds(Range(0, 96, 4), 3), "0-96:4%3");
}

TEST(FormatArrayJobId, SqueueBracketedForm) {
  EXPECT_EQ(FormatArrayJobId(123, Range(8, 100), 10), "123_[8-100%10]");
  EXPECT_EQ(FormatArrayJobId(15400, Range(1, 5)), "15400_[1-5]");
  EXPECT_EQ(FormatArrayTaskId(15400, 3), "15400_3");
}

TEST(ArraySpecRoundTrip, FormatThenParseGivesTheSameIds) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint32_t> ids;
    const int pattern = static_cast<int>(rng() % 3);
    if (pattern == 0) {
      const uint32_t first = rng() % 200, step = 1 + rng() % 9, count = 1 + rng() % 30;
      for (uint32_t k = 0; k < count; ++k) ids.push_back(first + k * step);
    } else {
      for (uint32_t id = 0; id < 300; ++id) {
        if (rng() % (pattern == 1 ? 2 : 9) == 0) ids.push_back(id);
      }
      if (ids.empty()) ids.push_back(rng() % 300);
    }
    const uint32_t throttle = rng() % 3 == 0 ? 1 + rng() % 50 : 0;
    const std::string text = FormatTaskIds(ids, throttle);
    const ArraySpec spec = MustParse(text);
    EXPECT_EQ(spec.task_ids, ids) << text;
    EXPECT_EQ(spec.max_running, throttle) << text;
  }
}

}  // namespace
}  // namespace skiff::ctld
