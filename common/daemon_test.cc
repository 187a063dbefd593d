#include "common/daemon.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace skiff {
namespace {

std::string TmpDir() { return std::string(getenv("TEST_TMPDIR")); }

TEST(MakeDirs, CreatesNestedDirectoriesAndIsIdempotent) {
  const std::string path = TmpDir() + "/a/b/c";
  ASSERT_TRUE(MakeDirs(path).ok());
  ASSERT_TRUE(MakeDirs(path).ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

TEST(MakeDirs, FailsWhenAFileIsInTheWay) {
  const std::string file = TmpDir() + "/plain";
  std::ofstream(file) << "x";
  absl::Status status = MakeDirs(file + "/sub");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(file), std::string_view::npos);
}

TEST(WritePidFile, WritesOwnPid) {
  const std::string path = TmpDir() + "/d.pid";
  ASSERT_TRUE(WritePidFile(path).ok());
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  EXPECT_EQ(pid, getpid());
}

TEST(SubstituteNodeName, ReplacesEveryPercentN) {
  EXPECT_EQ(SubstituteNodeName("/var/log/%n/noded-%n.log", "gpu01"),
            "/var/log/gpu01/noded-gpu01.log");
  EXPECT_EQ(SubstituteNodeName("/plain", "n1"), "/plain");
}

}  // namespace
}  // namespace skiff
