#include "noded/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/file_io_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const char* name : {"/f", "/f.tmp"}) unlink((dir_ + name).c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_;
};

TEST_F(FileIoTest, WriteFileAtomicallyCreatesAndReplaces) {
  const std::string path = dir_ + "/f";
  ASSERT_TRUE(WriteFileAtomically(path, "first\n", 0644).ok());
  EXPECT_EQ(*ReadFile(path), "first\n");
  // Replacing exchanges the names and removes the old file: nothing is left
  // under the temporary name, and the new content has the new mode.
  ASSERT_TRUE(WriteFileAtomically(path, "second, longer\n", 0600).ok());
  EXPECT_EQ(*ReadFile(path), "second, longer\n");
  EXPECT_NE(access((path + ".tmp").c_str(), F_OK), 0);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(WriteFileAtomically(path, "", 0644).ok());
  EXPECT_EQ(*ReadFile(path), "");
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"f"});
}

TEST_F(FileIoTest, WriteFileAtomicallyReportsAMissingDirectory) {
  absl::Status s = WriteFileAtomically(dir_ + "/no/such/f", "x", 0644);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("cannot create"), std::string::npos) << s;
}

}  // namespace
}  // namespace skiff::noded
