#include "common/unique_fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <utility>

namespace skiff {
namespace {

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFdTest, ClosesWhatItHoldsWhenDestroyedResetOrMovedOnto) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    UniqueFd read_end(fds[0]);
    UniqueFd write_end(fds[1]);
    read_end = std::move(write_end);  // closes fds[0], takes fds[1]
    EXPECT_FALSE(IsOpen(fds[0]));
    EXPECT_EQ(read_end.get(), fds[1]);
    EXPECT_EQ(write_end.get(), -1);
    read_end.Reset(-1);
    EXPECT_FALSE(IsOpen(fds[1]));
  }
  ASSERT_EQ(pipe(fds), 0);
  { UniqueFd held(fds[0]); }
  EXPECT_FALSE(IsOpen(fds[0]));
  UniqueFd closed(fds[1]);
  closed.Close();
  EXPECT_FALSE(IsOpen(fds[1]));
  EXPECT_EQ(closed.get(), -1);
}

TEST(UniqueFdTest, ReleaseHandsTheDescriptorOverOpen) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  int released = -1;
  {
    UniqueFd held(fds[0]);
    released = held.Release();
    EXPECT_EQ(held.get(), -1);
  }
  EXPECT_EQ(released, fds[0]);
  EXPECT_TRUE(IsOpen(fds[0]));
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace skiff
