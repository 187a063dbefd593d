#include "common/truncate.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff {
namespace {

TEST(TruncateMessage, ShortTextIsUnchanged) {
  EXPECT_EQ(TruncateMessage("stage_in failed"), "stage_in failed");
  EXPECT_EQ(TruncateMessage(std::string(kMaxMessageBytes, 'x')),
            std::string(kMaxMessageBytes, 'x'));
}

TEST(TruncateMessage, LongTextKeepsItsStartAndSaysHowLongItWas) {
  const std::string huge(4 << 20, 'x');
  const std::string cut = TruncateMessage(huge);
  EXPECT_EQ(cut, std::string(kMaxMessageBytes, 'x') + " ... (truncated, 4194304 bytes in all)");
}

TEST(TruncateMessage, NeverSplitsAUtf8Character) {
  // "é" is two bytes: 3 ASCII bytes then é straddles the 4-byte limit.
  EXPECT_EQ(TruncateMessage("abcé and more", 4), "abc ... (truncated, 14 bytes in all)");
  EXPECT_EQ(TruncateMessage("abcé and more", 5), "abcé ... (truncated, 14 bytes in all)");
}

}  // namespace
}  // namespace skiff
