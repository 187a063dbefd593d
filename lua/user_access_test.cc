#include "lua/user_access.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

constexpr uid_t kUser = 65534;  // nobody
constexpr gid_t kGroup = 65534;
constexpr gid_t kOtherGroup = 54321;

class UserCanReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to make files the user cannot read";
    char pattern[] = "/tmp/user_access_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (!root_.empty()) (void)system(absl::StrCat("rm -rf '", root_, "'").c_str());
  }
  std::string File(const std::string& name, mode_t mode, gid_t group = 0) {
    const std::string path = root_ + "/" + name;
    std::ofstream(path) << "data\n";
    EXPECT_EQ(chown(path.c_str(), 0, group), 0);
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }
  std::string root_;
};

TEST_F(UserCanReadFileTest, ModesDecideForOwnerGroupAndOthers) {
  EXPECT_TRUE(UserCanReadFile(File("public", 0644), kUser, kGroup));
  EXPECT_FALSE(UserCanReadFile(File("secret", 0600), kUser, kGroup));
  EXPECT_TRUE(UserCanReadFile(File("group", 0640, kGroup), kUser, kGroup));
  EXPECT_FALSE(UserCanReadFile(File("other_group", 0640, kOtherGroup), kUser, kGroup));
  const std::string own = File("own", 0400);
  ASSERT_EQ(chown(own.c_str(), kUser, kGroup), 0);
  EXPECT_TRUE(UserCanReadFile(own, kUser, kGroup));
  EXPECT_TRUE(UserCanReadFile(File("root_only", 0600), 0, 0));
}

TEST_F(UserCanReadFileTest, AFifoADirectoryOrNothingIsNotAReadableFile) {
  const std::string fifo = root_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  EXPECT_FALSE(UserCanReadFile(fifo, kUser, kGroup));  // and did not block
  EXPECT_FALSE(UserCanReadFile(fifo, 0, 0));
  EXPECT_FALSE(UserCanReadFile(root_, kUser, kGroup));
  EXPECT_FALSE(UserCanReadFile(root_ + "/missing", kUser, kGroup));
  EXPECT_FALSE(UserCanReadFile("relative/path", kUser, kGroup));
}

TEST_F(UserCanReadFileTest, ADirectoryTheUserCannotSearchHidesWhatIsInIt) {
  const std::string closed = root_ + "/closed";
  ASSERT_EQ(mkdir(closed.c_str(), 0700), 0);
  const std::string inside = closed + "/public";
  std::ofstream(inside) << "data\n";
  ASSERT_EQ(chmod(inside.c_str(), 0644), 0);
  EXPECT_FALSE(UserCanReadFile(inside, kUser, kGroup));
  // Nor through a link from somewhere the user can search.
  const std::string link = root_ + "/link";
  ASSERT_EQ(symlink(inside.c_str(), link.c_str()), 0);
  EXPECT_FALSE(UserCanReadFile(link, kUser, kGroup));
  ASSERT_EQ(chmod(closed.c_str(), 0711), 0);
  EXPECT_TRUE(UserCanReadFile(link, kUser, kGroup));
}

}  // namespace
}  // namespace skiff
