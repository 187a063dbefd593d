#include "common/users.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(Users, RootResolvesBothWays) {
  EXPECT_EQ(UserName(0), "root");
  EXPECT_EQ(GroupName(0), "root");
  EXPECT_EQ(UidOf("root"), 0u);
}

TEST(Users, UnknownIdsFallBackToNumbers) {
  EXPECT_EQ(UserName(4000000001u), "4000000001");
  EXPECT_EQ(UidOf("4000000001"), 4000000001u);
  EXPECT_FALSE(UidOf("no-such-user-here").has_value());
  EXPECT_FALSE(UidOf("").has_value());
}

}  // namespace
}  // namespace skiff
