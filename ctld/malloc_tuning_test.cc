#include "ctld/malloc_tuning.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

TEST(TunablesWithoutThreadCachesTest, UnsetOrEmptyGetsOnlyTheCacheSetting) {
  EXPECT_EQ(TunablesWithoutThreadCaches(nullptr), "glibc.malloc.tcache_count=0");
  EXPECT_EQ(TunablesWithoutThreadCaches(""), "glibc.malloc.tcache_count=0");
}

TEST(TunablesWithoutThreadCachesTest, AnAdminsOtherTunablesAreKept) {
  EXPECT_EQ(TunablesWithoutThreadCaches("glibc.malloc.arena_max=4"),
            "glibc.malloc.arena_max=4:glibc.malloc.tcache_count=0");
}

TEST(TunablesWithoutThreadCachesTest, AnAdminsOwnCacheSettingWins) {
  EXPECT_EQ(TunablesWithoutThreadCaches("glibc.malloc.tcache_count=7"), std::nullopt);
  EXPECT_EQ(TunablesWithoutThreadCaches("glibc.malloc.arena_max=4:glibc.malloc.tcache_count=0"),
            std::nullopt);
}

}  // namespace
}  // namespace skiff::ctld
