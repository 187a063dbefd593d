#include "noded/container/user_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

class UserFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ =
        absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", "/user_files_XXXXXX");
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    fd_ = open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    close(fd_);
    chmod(dir_.c_str(), 0700);
    (void)RemoveTreePath(dir_);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(absl::StrCat(dir_, "/", name)) << text;
  }
  bool Exists(const std::string& name) {
    struct stat st {};
    return lstat(absl::StrCat(dir_, "/", name).c_str(), &st) == 0;
  }
  std::string dir_;
  int fd_ = -1;
};

TEST_F(UserFilesTest, ReadsARegularFileUnderItsCap) {
  Write("config", "{}");
  absl::StatusOr<std::string> text = ReadRegularFileAt(fd_, "config", 10, "config");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "{}");
}

TEST_F(UserFilesTest, RefusesALinkAFifoAndAFileOverItsCap) {
  ASSERT_EQ(symlinkat("/dev/zero", fd_, "link"), 0);
  ASSERT_EQ(mkfifoat(fd_, "fifo", 0600), 0);
  Write("big", std::string(11, 'x'));
  const absl::Status link = ReadRegularFileAt(fd_, "link", 10, "stage/link").status();
  EXPECT_TRUE(absl::StrContains(link.message(), "stage/link is a link, not a regular file"))
      << link;
  // Opened without blocking: no writer is needed for the refusal.
  const absl::Status fifo = ReadRegularFileAt(fd_, "fifo", 10, "stage/fifo").status();
  EXPECT_TRUE(absl::StrContains(fifo.message(), "stage/fifo is not a regular file")) << fifo;
  const absl::Status big = ReadRegularFileAt(fd_, "big", 10, "stage/big").status();
  EXPECT_TRUE(absl::StrContains(big.message(), "has 11 bytes, more than the 10 allowed")) << big;
}

TEST_F(UserFilesTest, CopyChecksTheBudgetAndReturnsTheSha256) {
  Write("blob", "abc");
  ASSERT_EQ(mkdirat(fd_, "to", 0700), 0);
  const int to = open(absl::StrCat(dir_, "/to").c_str(), O_RDONLY | O_DIRECTORY);
  uint64_t budget = 10;
  absl::StatusOr<std::string> hex = CopyRegularFileAt(fd_, "blob", to, &budget, "blob");
  ASSERT_TRUE(hex.ok()) << hex.status();
  EXPECT_EQ(*hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(budget, 7u);
  uint64_t small = 2;
  Write("blob2", "abc");
  EXPECT_FALSE(CopyRegularFileAt(fd_, "blob2", to, &small, "blob2").ok());
  close(to);
}

// A link inside the tree is removed, never followed: what it points at stays.
TEST_F(UserFilesTest, RemovingATreeRemovesLinksNotWhatTheyPointAt) {
  ASSERT_EQ(mkdirat(fd_, "outside", 0700), 0);
  Write("outside/keep", "x");
  ASSERT_EQ(mkdirat(fd_, "tree", 0700), 0);
  ASSERT_EQ(mkdirat(fd_, "tree/sub", 0700), 0);
  Write("tree/sub/file", "y");
  ASSERT_EQ(
      symlink(absl::StrCat(dir_, "/outside").c_str(), absl::StrCat(dir_, "/tree/sub/link").c_str()),
      0);
  // An owner's read-only directory is opened up and emptied too.
  ASSERT_EQ(mkdirat(fd_, "tree/ro", 0700), 0);
  Write("tree/ro/file", "z");
  ASSERT_EQ(chmod(absl::StrCat(dir_, "/tree/ro").c_str(), 0555), 0);
  const absl::Status removed = RemoveTreeAt(fd_, "tree");
  EXPECT_TRUE(removed.ok()) << removed;
  EXPECT_FALSE(Exists("tree"));
  EXPECT_TRUE(Exists("outside/keep"));
}

TEST_F(UserFilesTest, RemovingAMissingTreeIsNoError) {
  EXPECT_TRUE(RemoveTreeAt(fd_, "nosuch").ok());
  EXPECT_TRUE(RemoveTreePath(absl::StrCat(dir_, "/nosuch/deeper")).ok());
}

}  // namespace
}  // namespace skiff::noded
