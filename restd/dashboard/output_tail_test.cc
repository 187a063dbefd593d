#include "restd/dashboard/output_tail.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace skiff::restd {
namespace {

TEST(ParseTailLinesTest, DefaultsWhenAbsent) { EXPECT_EQ(*ParseTailLines(""), kDefaultTailLines); }

TEST(ParseTailLinesTest, CapsAtTheMaximum) {
  EXPECT_EQ(*ParseTailLines("5"), 5);
  EXPECT_EQ(*ParseTailLines("1000"), 1000);
  EXPECT_EQ(*ParseTailLines("1001"), kMaxTailLines);
  EXPECT_EQ(*ParseTailLines("99999999999"), kMaxTailLines);
}

TEST(ParseTailLinesTest, RefusesWhatIsNotAPositiveNumber) {
  for (const char* bad : {"0", "-3", "ten", "5x", " "}) {
    EXPECT_EQ(ParseTailLines(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(TailReadOffsetTest, ReadsAtMostTheLastMiB) {
  EXPECT_EQ(TailReadOffset(0), 0);
  EXPECT_EQ(TailReadOffset(kMaxTailBytes), 0);
  EXPECT_EQ(TailReadOffset(kMaxTailBytes + 10), 10);
}

TEST(TailOfTest, FinalNewlineEndsTheLastLine) {
  const OutputTail tail = TailOf("one\ntwo\nthree\n", 0, 2);
  EXPECT_EQ(tail.text, "two\nthree\n");
  EXPECT_TRUE(tail.truncated);
}

TEST(TailOfTest, LastLineWithoutNewlineCounts) {
  const OutputTail tail = TailOf("one\ntwo\nthree", 0, 2);
  EXPECT_EQ(tail.text, "two\nthree");
  EXPECT_TRUE(tail.truncated);
}

TEST(TailOfTest, FewerLinesThanAskedGivesTheWholeFile) {
  const OutputTail tail = TailOf("one\ntwo\n", 0, 10);
  EXPECT_EQ(tail.text, "one\ntwo\n");
  EXPECT_FALSE(tail.truncated);
}

TEST(TailOfTest, ExactlyTheFilesLinesIsNotTruncated) {
  const OutputTail tail = TailOf("one\ntwo\n", 0, 2);
  EXPECT_EQ(tail.text, "one\ntwo\n");
  EXPECT_FALSE(tail.truncated);
}

TEST(TailOfTest, EmptyLinesAreLines) {
  EXPECT_EQ(TailOf("a\n\n\n", 0, 2).text, "\n\n");
  EXPECT_EQ(TailOf("\n", 0, 1).text, "\n");
}

TEST(TailOfTest, EmptyFileGivesNothing) {
  const OutputTail tail = TailOf("", 0, 5);
  EXPECT_EQ(tail.text, "");
  EXPECT_FALSE(tail.truncated);
}

TEST(TailOfTest, WindowAfterTheFilesStartMarksItsCutFirstLine) {
  // The window begins mid-line: every line is asked for, the cut one shows,
  // and the answer says earlier output is missing.
  const OutputTail tail = TailOf("ird line\nfourth\n", 1 << 20, 10);
  EXPECT_EQ(tail.text, "ird line\nfourth\n");
  EXPECT_TRUE(tail.truncated);
}

TEST(TailOfTest, OneHugeLineIsShownFromTheWindow) {
  const std::string window(kMaxTailBytes, 'x');
  const OutputTail tail = TailOf(window, 5, 3);
  EXPECT_EQ(tail.text.size(), kMaxTailBytes);
  EXPECT_TRUE(tail.truncated);
}

TEST(TailOfTest, ThousandLinesOfManyMore) {
  std::string window;
  for (int i = 0; i < 5000; ++i) window += std::to_string(i) + "\n";
  const OutputTail tail = TailOf(window, 0, kMaxTailLines);
  EXPECT_EQ(tail.text.substr(0, 5), "4000\n");
  EXPECT_EQ(std::count(tail.text.begin(), tail.text.end(), '\n'), kMaxTailLines);
  EXPECT_TRUE(tail.truncated);
}

}  // namespace
}  // namespace skiff::restd
