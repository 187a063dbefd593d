#include "ctld/state/state_marker.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::ctld {
namespace {

class StateMarkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = std::string(getenv("TEST_TMPDIR")) + "/state.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  bool Exists(const std::string& name) const { return access(Path(name).c_str(), F_OK) == 0; }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
  }
  std::string dir_;
};

TEST_F(StateMarkerTest, AFirstStartAndAnUpgradeFromBeforeTheMarkerAreFine) {
  EXPECT_TRUE(CheckStateNotLost(dir_).ok());  // nothing yet
  Write("ctld.db", "SQLite format 3");        // a database older than the marker
  EXPECT_TRUE(CheckStateNotLost(dir_).ok());
  ASSERT_TRUE(MarkStateKept(dir_).ok());
  EXPECT_TRUE(Exists("ctld.state"));
  EXPECT_TRUE(MarkStateKept(dir_).ok());  // once is enough; again is harmless
  EXPECT_TRUE(CheckStateNotLost(dir_).ok());
}

TEST_F(StateMarkerTest, AMissingOrEmptyDatabaseAfterTheMarkerIsRefusedWithTheWaysOn) {
  ASSERT_TRUE(MarkStateKept(dir_).ok());
  absl::Status missing = CheckStateNotLost(dir_);
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.message().find("ctld.db is missing"), std::string::npos) << missing;
  EXPECT_NE(missing.message().find("ctld -c"), std::string::npos) << missing;
  Write("ctld.db", "");
  absl::Status empty = CheckStateNotLost(dir_);
  EXPECT_NE(empty.message().find("ctld.db is empty"), std::string::npos) << empty;
}

TEST_F(StateMarkerTest, ClearingMovesTheDatabaseAsideAndDeletesNothing) {
  Write("ctld.db", "jobs");
  Write("ctld.db-wal", "wal");
  absl::StatusOr<std::string> aside = ClearState(dir_, 1234);
  ASSERT_TRUE(aside.ok()) << aside.status();
  EXPECT_EQ(*aside, Path("ctld.db.cleared-1234"));
  EXPECT_FALSE(Exists("ctld.db"));
  EXPECT_FALSE(Exists("ctld.db-wal"));
  EXPECT_TRUE(Exists("ctld.db.cleared-1234"));
  EXPECT_TRUE(Exists("ctld.db.cleared-1234-wal"));
  absl::StatusOr<std::string> none = ClearState(dir_, 1235);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "");
}

}  // namespace
}  // namespace skiff::ctld
