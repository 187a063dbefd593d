#include "scriptd/run_journal.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scriptd/process_groups.h"
#include "spdlog/sinks/null_sink.h"

namespace skiff::scriptd {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

class RunJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = getenv("TEST_TMPDIR");
    path_ = std::string(tmp != nullptr ? tmp : "/tmp") + "/journal-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    unlink(path_.c_str());
  }

  std::unique_ptr<RunJournal> Open(int64_t now = 1000) {
    auto journal = RunJournal::Open(path_, now, logger_);
    EXPECT_TRUE(journal.ok()) << journal.status();
    return journal.ok() ? std::move(*journal) : nullptr;
  }

  std::string path_;
  spdlog::logger logger_{"test", std::make_shared<spdlog::sinks::null_sink_mt>()};
};

TEST_F(RunJournalTest, AGroupStartedAndNotEndedIsALeftoverForTheNextScriptd) {
  {
    auto journal = Open();
    journal->ChildStarted("prolog-1-0", 4242);
    journal->ChildStarted("prolog-2-0", 4343);
    journal->ChildEnded("prolog-1-0");
  }
  auto next = Open();
  EXPECT_THAT(next->leftovers(),
              ElementsAre(AllOf(Field(&RunJournal::Leftover::request_id, "prolog-2-0"),
                                Field(&RunJournal::Leftover::pgid, 4343))));
  // Once compacted (the leftovers are dead), the one after that has none.
  ASSERT_TRUE(next->Compact().ok());
  next.reset();
  EXPECT_TRUE(Open()->leftovers().empty());
}

TEST_F(RunJournalTest, ARecordedResultSurvivesRestartsAndCompaction) {
  Open()->RecordResult("epilog-7-0", std::string("reply\0bytes\n", 12), 1000);
  auto journal = Open(1100);
  ASSERT_TRUE(journal->Result("epilog-7-0").has_value());
  EXPECT_EQ(*journal->Result("epilog-7-0"), std::string("reply\0bytes\n", 12));
  EXPECT_FALSE(journal->Result("epilog-8-0").has_value());
  ASSERT_TRUE(journal->Compact().ok());
  journal.reset();
  EXPECT_TRUE(Open(1200)->Result("epilog-7-0").has_value());
}

TEST_F(RunJournalTest, OldResultsArePrunedAtOpen) {
  Open()->RecordResult("prolog-1-0", "old", 1000);
  EXPECT_FALSE(Open(1000 + RunJournal::kKeepResults + 1)->Result("prolog-1-0").has_value());
}

TEST_F(RunJournalTest, ATornLastLineIsIgnored) {
  Open()->RecordResult("prolog-1-0", "whole", 1000);
  std::ofstream(path_, std::ios::app) << "S prolog-9-0 123";  // no newline: cut off
  auto journal = Open();
  EXPECT_TRUE(journal->leftovers().empty());
  EXPECT_EQ(journal->Result("prolog-1-0").value_or(""), "whole");
}

TEST_F(RunJournalTest, RequestIdsWithSpacesAreNotJournaled) {
  EXPECT_FALSE(RunJournal::Journalable("a b"));
  EXPECT_FALSE(RunJournal::Journalable(""));
  EXPECT_TRUE(RunJournal::Journalable("prolog-1-0"));
  Open()->RecordResult("bad id\nD x 1 eA==", "x", 1000);
  EXPECT_FALSE(Open()->Result("x").has_value());
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && line[paren + 2] != 'Z';
}

// A script whose parent died: its group (a shell and the sleeps it started, one
// in a subshell) is killed whole, and nothing outside the group is touched.
TEST_F(RunJournalTest, KillGroupLeftoversKillsTheWholeGroupAndNothingElse) {
  const std::string pid_file = path_ + ".pids";
  const pid_t leader = fork();
  ASSERT_GE(leader, 0);
  if (leader == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c",
          ("(sleep 60; true) & sleep 60 & echo $! > " + pid_file + ".tmp; mv " + pid_file +
           ".tmp " + pid_file + "; wait")
              .c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(leader, leader);
  const pid_t bystander = fork();
  ASSERT_GE(bystander, 0);
  if (bystander == 0) {
    execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_t sleep_pid = 0;
  for (int i = 0; i < 250 && sleep_pid == 0; ++i) {
    std::ifstream in(pid_file);
    in >> sleep_pid;
    if (sleep_pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(sleep_pid, 0);
  const uint64_t start = ProcessStartTicks(leader).value_or(0);
  ASSERT_GT(start, 0u);

  EXPECT_GE(KillGroupLeftovers(leader, start), 3);  // sh, the subshell, the sleeps
  waitpid(leader, nullptr, 0);
  for (int i = 0; i < 100 && Alive(sleep_pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(Alive(sleep_pid));
  EXPECT_TRUE(Alive(bystander));
  kill(bystander, SIGKILL);
  waitpid(bystander, nullptr, 0);
}

TEST_F(RunJournalTest, AGroupStartedBeforeTheRecordedLeaderIsNotKilled) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(child, child);
  const uint64_t start = ProcessStartTicks(child).value_or(0);
  // As if the group id had been reused by a group older than the record: spare it.
  EXPECT_EQ(KillGroupLeftovers(child, start + 1000000), 0);
  EXPECT_TRUE(Alive(child));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace skiff::scriptd
