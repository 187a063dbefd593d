#include "lua/user_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

constexpr uid_t kUser = 65534;  // nobody
constexpr gid_t kGroup = 65534;
constexpr uid_t kOtherUser = 54321;

// A fresh root-owned directory under /tmp: TEST_TMPDIR's ancestors are
// Bazel's, whose modes this test does not control.
class MakeUserDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to give directories away";
    char pattern[] = "/tmp/user_dir_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    if (!root_.empty()) (void)system(absl::StrCat("rm -rf '", root_, "'").c_str());
  }

  static struct stat Stat(const std::string& path) {
    struct stat st = {};
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return st;
  }

  std::string root_;
};

TEST_F(MakeUserDirTest, CreatesThePrivateDirectoryAndGivesItToTheUser) {
  const std::string dir = root_ + "/job_1";
  ASSERT_TRUE(MakeUserDir(dir, kUser, kGroup, 0700).ok());
  const struct stat st = Stat(dir);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_uid, kUser);
  EXPECT_EQ(st.st_gid, kGroup);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(MakeUserDirTest, ASecondCallReusesTheUsersDirectory) {
  const std::string dir = root_ + "/job_2";
  ASSERT_TRUE(MakeUserDir(dir, kUser, kGroup, 0700).ok());
  EXPECT_TRUE(MakeUserDir(dir, kUser, kGroup, 0700).ok());
  EXPECT_EQ(Stat(dir).st_uid, kUser);
}

TEST_F(MakeUserDirTest, APlantedLinkIsRefusedAndItsTargetLeftAlone) {
  // Another user's private directory, and a link to it named as the job's.
  const std::string victim = root_ + "/victim";
  ASSERT_EQ(mkdir(victim.c_str(), 0700), 0);
  ASSERT_EQ(chown(victim.c_str(), kOtherUser, kOtherUser), 0);
  ASSERT_EQ(chmod(root_.c_str(), 01777), 0);  // as a shared BB_ROOT is
  const std::string dir = root_ + "/job_3";
  ASSERT_EQ(symlink(victim.c_str(), dir.c_str()), 0);

  const absl::Status status = MakeUserDir(dir, kUser, kGroup, 0700);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("symbolic link"), std::string::npos) << status;
  const struct stat st = Stat(victim);
  EXPECT_EQ(st.st_uid, kOtherUser);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_TRUE(S_ISLNK(Stat(dir).st_mode));
}

TEST_F(MakeUserDirTest, AnotherUsersDirectoryIsNeverGivenAway) {
  const std::string dir = root_ + "/job_4";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(chown(dir.c_str(), kOtherUser, kOtherUser), 0);
  const absl::Status status = MakeUserDir(dir, kUser, kGroup, 0700);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("belongs to uid 54321"), std::string::npos) << status;
  const struct stat st = Stat(dir);
  EXPECT_EQ(st.st_uid, kOtherUser);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
}

TEST_F(MakeUserDirTest, AParentOthersCanRearrangeIsRefused) {
  const std::string open_parent = root_ + "/open";
  ASSERT_EQ(mkdir(open_parent.c_str(), 0777), 0);
  ASSERT_EQ(chmod(open_parent.c_str(), 0777), 0);
  absl::Status status = MakeUserDir(open_parent + "/job_5", kUser, kGroup, 0700);
  EXPECT_NE(status.message().find("writable by others without the sticky bit"), std::string::npos)
      << status;

  const std::string users_parent = root_ + "/users";
  ASSERT_EQ(mkdir(users_parent.c_str(), 0755), 0);
  ASSERT_EQ(chown(users_parent.c_str(), kOtherUser, kOtherUser), 0);
  status = MakeUserDir(users_parent + "/job_6", kUser, kGroup, 0700);
  EXPECT_NE(status.message().find("owned by uid 54321"), std::string::npos) << status;

  // Nothing was created in either.
  EXPECT_NE(access((open_parent + "/job_5").c_str(), F_OK), 0);
  EXPECT_NE(access((users_parent + "/job_6").c_str(), F_OK), 0);
}

TEST_F(MakeUserDirTest, AStickyParentAndAnAdminsLinkToTheParentAreFine) {
  const std::string shared = root_ + "/shared";
  ASSERT_EQ(mkdir(shared.c_str(), 0755), 0);
  ASSERT_EQ(chmod(shared.c_str(), 01777), 0);
  const std::string link = root_ + "/bb";
  ASSERT_EQ(symlink(shared.c_str(), link.c_str()), 0);
  ASSERT_TRUE(MakeUserDir(link + "/job_7", kUser, kGroup, 0700).ok());
  EXPECT_EQ(Stat(shared + "/job_7").st_uid, kUser);
}

TEST_F(MakeUserDirTest, ARelativePathOrNoNameIsInvalid) {
  EXPECT_EQ(MakeUserDir("bb/job_8", kUser, kGroup, 0700).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeUserDir(root_ + "/..", kUser, kGroup, 0700).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace skiff
