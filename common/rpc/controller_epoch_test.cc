#include "common/rpc/controller_epoch.h"

#include <gtest/gtest.h>

namespace skiff {
namespace {

TEST(ControllerEpochTest, RoundTripsAndRefusesGarbage) {
  const ControllerEpoch epoch{0xcdb1f2a3e4d5c6b7ULL, 4711};
  EXPECT_EQ(FormatControllerEpoch(epoch), "cdb1f2a3e4d5c6b7.4711");
  absl::StatusOr<ControllerEpoch> back = ParseControllerEpoch("cdb1f2a3e4d5c6b7.4711");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cluster, epoch.cluster);
  EXPECT_EQ(back->revision, 4711);
  for (const char* bad :
       {"", "12", ".5", "ab.", "ab.-3", "ab.0", "zz.5", "ab.5x", "ab.5.6", "11112222333344445.5"}) {
    EXPECT_FALSE(ParseControllerEpoch(bad).ok()) << bad;
  }
}

TEST(ControllerFenceTest, AnOlderControllerOfTheSameClusterIsRefused) {
  ControllerFence fence;
  EXPECT_TRUE(fence.Admit("").ok());  // no etcd: nothing to fence
  EXPECT_EQ(fence.Highest(), "");
  EXPECT_TRUE(fence.Admit("a1.10").ok());
  EXPECT_TRUE(fence.Admit("a1.10").ok());  // the same controller, again
  EXPECT_TRUE(fence.Admit("a1.25").ok());  // a newer one takes over
  EXPECT_EQ(fence.Highest(), "a1.25");
  absl::Status old = fence.Admit("a1.10");
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(std::string(old.message()),
            "a deposed controller's call (its epoch a1.10; the serving controller's is a1.25): "
            "refused");
  EXPECT_TRUE(fence.Admit("").ok());
  EXPECT_EQ(fence.Admit("nonsense").code(), absl::StatusCode::kInvalidArgument);
  // etcd set up again: its revisions start over, and its controller is taken.
  EXPECT_TRUE(fence.Admit("b2.3").ok());
  EXPECT_EQ(fence.Highest(), "b2.3");
  EXPECT_FALSE(fence.Admit("b2.2").ok());
}

}  // namespace
}  // namespace skiff
