#include "common/checked_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace skiff {
namespace {

TEST(CheckedMathTest, ProductsThatFitAreExact) {
  EXPECT_EQ(CheckedMul<int>(65535, 32768), 2147450880);
  EXPECT_EQ(CheckedMul<int64_t>(65536, 65536), int64_t{1} << 32);
  EXPECT_EQ(CheckedMul<uint64_t>(0, std::numeric_limits<uint64_t>::max()), 0u);
  EXPECT_EQ(CheckedAdd<int>(2147483646, 1), 2147483647);
}

TEST(CheckedMathTest, ProductsThatWrapAreRefused) {
  // The cases: tasks x CPUs per task at 2^32.
  EXPECT_EQ(CheckedMul<int>(65536, 65536), std::nullopt);
  EXPECT_EQ(CheckedMul<int>(4, 1073741824), std::nullopt);
  EXPECT_EQ(CheckedMul<uint32_t>(4, 1073741824), std::nullopt);
  EXPECT_EQ(CheckedMul<uint64_t>(uint64_t{1} << 44, uint64_t{1} << 20), std::nullopt);
  EXPECT_EQ(CheckedMul<int>(-65536, 65536), std::nullopt);
  EXPECT_EQ(CheckedAdd<int>(2147483647, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd<int64_t>(std::numeric_limits<int64_t>::min(), -1), std::nullopt);
  EXPECT_EQ(CheckedAdd<uint64_t>(std::numeric_limits<uint64_t>::max(), 1), std::nullopt);
}

TEST(CheckedMathTest, SaturatingArithmeticPinsToTheBound) {
  EXPECT_EQ(SaturatingMul<int>(65536, 65536), std::numeric_limits<int>::max());
  EXPECT_EQ(SaturatingMul<int>(-65536, 65536), std::numeric_limits<int>::min());
  EXPECT_EQ(SaturatingMul<uint64_t>(uint64_t{1} << 40, uint64_t{1} << 40),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(SaturatingMul<int>(3, 7), 21);
  EXPECT_EQ(SaturatingAdd<int>(std::numeric_limits<int>::max(), 5),
            std::numeric_limits<int>::max());
  EXPECT_EQ(SaturatingAdd<int>(std::numeric_limits<int>::min(), -5),
            std::numeric_limits<int>::min());
  EXPECT_EQ(SaturatingAdd<int>(2, 3), 5);
}

TEST(CheckedMathTest, SaturatingCastNeverChangesSign) {
  EXPECT_EQ(SaturatingCast<int64_t>(std::numeric_limits<uint64_t>::max()),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(SaturatingCast<int>(int64_t{1} << 32), std::numeric_limits<int>::max());
  EXPECT_EQ(SaturatingCast<int>(-(int64_t{1} << 32)), std::numeric_limits<int>::min());
  EXPECT_EQ(SaturatingCast<uint32_t>(-1), 0u);
  EXPECT_EQ(SaturatingCast<int>(int64_t{42}), 42);
}

TEST(CheckedMathTest, SlurmsLimits) {
  EXPECT_EQ(kMaxTasksPerNode, 512);
  EXPECT_EQ(kMaxTimeLimitSeconds, int64_t{4294967293} * 60);
  EXPECT_EQ(kMaxMemoryMb, uint64_t{0x7fffffffffffffff});
}

}  // namespace
}  // namespace skiff
