#include "common/users.h"

#include <gtest/gtest.h>

#include <algorithm>

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

TEST(IdNameCache, KeepsANameForItsTimeAndAMissForLess) {
  int64_t now = 1000;
  int lookups = 0;
  std::optional<std::string> answer = "alice";
  IdNameCache cache(
      [&](uint32_t) {
        ++lookups;
        return answer;
      },
      [&] { return now; }, /*ttl_ms=*/60'000, /*miss_ttl_ms=*/5'000);
  EXPECT_EQ(cache.Name(1001), "alice");
  answer = "renamed";
  now += 59'999;
  EXPECT_EQ(cache.Name(1001), "alice");
  EXPECT_EQ(lookups, 1);
  now += 1;
  EXPECT_EQ(cache.Name(1001), "renamed");
  EXPECT_EQ(lookups, 2);

  answer = std::nullopt;
  EXPECT_EQ(cache.Name(1002), "1002");
  answer = "bob";
  now += 4'999;
  EXPECT_EQ(cache.Name(1002), "1002");
  now += 1;
  EXPECT_EQ(cache.Name(1002), "bob");
  EXPECT_EQ(lookups, 4);
}

TEST(IdNameCache, SystemCachesNameRoot) {
  EXPECT_EQ(UserNames().Name(0), "root");
  EXPECT_EQ(GroupNames().Name(0), "root");
}

}  // namespace
}  // namespace skiff

namespace skiff {
namespace {

TEST(GroupsOfUser, HoldsTheGivenGroupAndTheUsersOthers) {
  const std::vector<gid_t> groups = GroupsOfUser("root", 0);
  ASSERT_FALSE(groups.empty());
  EXPECT_NE(std::find(groups.begin(), groups.end(), 0), groups.end());
  // A gid the user is not a member of is still there: it is the one asked for.
  const std::vector<gid_t> with = GroupsOfUser("root", 4242);
  EXPECT_NE(std::find(with.begin(), with.end(), 4242u), with.end());
}

}  // namespace
}  // namespace skiff
