#include "noded/file_broadcast.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

// nobody: a user that owns nothing here.
constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class FileBroadcastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/file_broadcast_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    // Anyone may create here; the files' owners show who created them.
    ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  }
  void TearDown() override {
    std::string rm = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(system(rm.c_str()), 0);
  }
  FileOwner Me() const { return {getuid(), getgid(), {}}; }
  std::string dir_;
};

TEST(BadDestinationTest, NamesWhatIsWrongWithAPath) {
  EXPECT_EQ(BadDestination("/tmp/prog"), "");
  EXPECT_NE(BadDestination("prog"), "");
  EXPECT_NE(BadDestination(""), "");
  EXPECT_EQ(BadDestination("/tmp/"), "Target filename cannot be a directory.");
  EXPECT_NE(BadDestination(std::string("/tmp/a\0b", 8)), "");
  EXPECT_NE(BadDestination("/" + std::string(5000, 'a')), "");
}

TEST_F(FileBroadcastTest, WritesTheBytesAndGivesTheSourcesMode) {
  const std::string path = dir_ + "/copy";
  CopyError error;
  auto copy = BroadcastCopy::Open(Me(), path, false, false, &error);
  ASSERT_NE(copy, nullptr) << error.text;
  ASSERT_TRUE(copy->Write("hello ", &error));
  ASSERT_TRUE(copy->Write("world\n", &error));
  EXPECT_EQ(copy->written(), 12u);
  ASSERT_TRUE(copy->Finish(0100751, std::nullopt, &error)) << error.text;
  EXPECT_EQ(Slurp(path), "hello world\n");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
}

TEST_F(FileBroadcastTest, AnExistingFileIsRefusedWithoutForceAndReplacedWithIt) {
  const std::string path = dir_ + "/exists";
  std::ofstream(path) << "old contents, longer than the new\n";
  CopyError error;
  EXPECT_EQ(BroadcastCopy::Open(Me(), path, false, false, &error), nullptr);
  EXPECT_EQ(error.error_number, EEXIST);
  EXPECT_EQ(error.text, "File exists");

  auto copy = BroadcastCopy::Open(Me(), path, true, false, &error);
  ASSERT_NE(copy, nullptr) << error.text;
  ASSERT_TRUE(copy->Write("new\n", &error));
  ASSERT_TRUE(copy->Finish(0644, std::nullopt, &error));
  EXPECT_EQ(Slurp(path), "new\n");
}

TEST_F(FileBroadcastTest, PreserveSetsTheTimes) {
  const std::string path = dir_ + "/timed";
  CopyError error;
  auto copy = BroadcastCopy::Open(Me(), path, false, false, &error);
  ASSERT_NE(copy, nullptr);
  ASSERT_TRUE(copy->Write("x", &error));
  ASSERT_TRUE(copy->Finish(0600, FileTimes{1000000000, 1100000000}, &error)) << error.text;
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_atime, 1000000000);
  EXPECT_EQ(st.st_mtime, 1100000000);
}

TEST_F(FileBroadcastTest, ADirectoryOrAMissingParentIsTheSystemsError) {
  CopyError error;
  EXPECT_EQ(BroadcastCopy::Open(Me(), dir_ + "/no/such/dir/f", false, false, &error), nullptr);
  EXPECT_EQ(error.error_number, ENOENT);
  EXPECT_EQ(error.text, "No such file or directory");
  EXPECT_EQ(BroadcastCopy::Open(Me(), dir_, true, false, &error), nullptr);
  EXPECT_EQ(error.error_number, EISDIR);
}

TEST_F(FileBroadcastTest, SendLibsMakesTheLibrariesDirectory) {
  const std::string path = dir_ + "/prog";
  CopyError error;
  auto copy = BroadcastCopy::Open(Me(), path, false, true, &error);
  ASSERT_NE(copy, nullptr) << error.text;
  struct stat st {};
  ASSERT_EQ(stat((path + "_libs").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  copy.reset();
  // Again: the file and the directory exist; -f reuses both.
  EXPECT_EQ(BroadcastCopy::Open(Me(), path, false, true, &error), nullptr);
  EXPECT_NE(BroadcastCopy::Open(Me(), path, true, true, &error), nullptr) << error.text;
}

// The copy is made by the owner: created as them where they may write,
// refused where they may not (root's directory, mode 0755).
TEST_F(FileBroadcastTest, TheCopyIsTheOwnersAndOnlyWhereTheyMayWrite) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const FileOwner nobody{kNobody, kNogroup, {}};
  const std::string path = dir_ + "/theirs";
  CopyError error;
  auto copy = BroadcastCopy::Open(nobody, path, false, false, &error);
  ASSERT_NE(copy, nullptr) << error.text;
  ASSERT_TRUE(copy->Write("data", &error));
  ASSERT_TRUE(copy->Finish(0640, FileTimes{1, 2}, &error)) << error.text;
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_gid, kNogroup);
  EXPECT_EQ(st.st_mode & 07777, 0640u);

  const std::string closed = dir_ + "/roots";
  ASSERT_EQ(mkdir(closed.c_str(), 0755), 0);
  EXPECT_EQ(BroadcastCopy::Open(nobody, closed + "/f", false, false, &error), nullptr);
  EXPECT_EQ(error.error_number, EACCES);
  EXPECT_EQ(error.text, "Permission denied");
  // -f does not let them replace root's file either.
  const std::string roots_file = dir_ + "/roots_file";
  std::ofstream(roots_file) << "root's\n";
  ASSERT_EQ(chmod(roots_file.c_str(), 0644), 0);
  EXPECT_EQ(BroadcastCopy::Open(nobody, roots_file, true, false, &error), nullptr);
  EXPECT_EQ(error.error_number, EACCES);
  EXPECT_EQ(Slurp(roots_file), "root's\n");
}

// Issue 47, item 15: a FIFO opened for writing waited for a reader and held
// the thread; a link was followed. Both are refused at once, -f or not, and
// the copy that follows still works.
TEST_F(FileBroadcastTest, AFifoALinkOrADeviceIsRefusedAtOnce) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  CopyError error;
  EXPECT_EQ(BroadcastCopy::Open(Me(), fifo, true, false, &error), nullptr);
  EXPECT_EQ(error.error_number, EINVAL);
  EXPECT_EQ(error.text, "`" + fifo + "` is not a regular file");
  // With a reader waiting the open succeeds; fstat refuses it.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  error = {};
  EXPECT_EQ(BroadcastCopy::Open(Me(), fifo, true, false, &error), nullptr);
  EXPECT_EQ(error.text, "`" + fifo + "` is not a regular file");
  close(reader);

  const std::string link = dir_ + "/link";
  std::ofstream(dir_ + "/target") << "mine\n";
  ASSERT_EQ(symlink("target", link.c_str()), 0);
  error = {};
  EXPECT_EQ(BroadcastCopy::Open(Me(), link, true, false, &error), nullptr);
  EXPECT_EQ(error.error_number, ELOOP);
  EXPECT_EQ(error.text, "`" + link + "` is a symbolic link");
  EXPECT_EQ(Slurp(dir_ + "/target"), "mine\n");

  error = {};
  EXPECT_EQ(BroadcastCopy::Open(Me(), "/dev/null", true, false, &error), nullptr);
  EXPECT_EQ(error.text, "`/dev/null` is not a regular file");

  // The regular file after them: written, and blocking as before.
  auto copy = BroadcastCopy::Open(Me(), dir_ + "/after", false, false, &error);
  ASSERT_NE(copy, nullptr) << error.text;
  ASSERT_TRUE(copy->Write("ok\n", &error));
  ASSERT_TRUE(copy->Finish(0644, std::nullopt, &error)) << error.text;
  EXPECT_EQ(Slurp(dir_ + "/after"), "ok\n");
}

}  // namespace
}  // namespace skiff::noded
