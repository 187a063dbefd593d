#include "ctld/launch_retry.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

TEST(LaunchRetryTest, AnUnreachableOrSilentNodeIsTriedAgainOtherFailuresAreNot) {
  EXPECT_TRUE(LaunchMayPassLater(absl::UnavailableError("Connection refused")));
  EXPECT_TRUE(LaunchMayPassLater(absl::DeadlineExceededError("Deadline Exceeded")));
  EXPECT_FALSE(LaunchMayPassLater(absl::InvalidArgumentError("job_id must be given")));
  EXPECT_FALSE(LaunchMayPassLater(absl::PermissionDeniedError("not ctld")));
  EXPECT_FALSE(LaunchMayPassLater(absl::UnauthenticatedError("bad credential")));
  EXPECT_FALSE(LaunchMayPassLater(absl::OkStatus()));
}

TEST(LaunchRetryTest, TheBackoffDoublesUpToItsCap) {
  const absl::Status down = absl::UnavailableError("Connection refused");
  EXPECT_EQ(NextLaunchAttemptMs(down, 1, 0, 300), 250);
  EXPECT_EQ(NextLaunchAttemptMs(down, 2, 0, 300), 500);
  EXPECT_EQ(NextLaunchAttemptMs(down, 3, 1, 300), 1000);
  EXPECT_EQ(NextLaunchAttemptMs(down, 4, 2, 300), 2000);
  EXPECT_EQ(NextLaunchAttemptMs(down, 5, 4, 300), 4000);
  EXPECT_EQ(NextLaunchAttemptMs(down, 6, 8, 300), 4000);
  EXPECT_EQ(NextLaunchAttemptMs(down, 1000, 200, 300), 4000);
}

TEST(LaunchRetryTest, ANodeUnreachableForSlurmdTimeoutIsGivenUpOn) {
  const absl::Status down = absl::UnavailableError("Connection refused");
  EXPECT_TRUE(NextLaunchAttemptMs(down, 30, 299, 300).has_value());
  EXPECT_FALSE(NextLaunchAttemptMs(down, 31, 300, 300).has_value());
  EXPECT_FALSE(NextLaunchAttemptMs(down, 1, 0, 0).has_value());
}

TEST(LaunchRetryTest, AFailureRetryingCannotMendIsGivenUpOnAtOnce) {
  EXPECT_FALSE(NextLaunchAttemptMs(absl::InvalidArgumentError("bad"), 1, 0, 300).has_value());
  EXPECT_FALSE(NextLaunchAttemptMs(absl::PermissionDeniedError("no"), 1, 0, 300).has_value());
}

}  // namespace
}  // namespace skiff::ctld
