#include "noded/recovery.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff::noded {
namespace {

const char kDir[] = "/var/spool/skiff/d/n1/job42";

std::string Cmdline(std::initializer_list<std::string> argv) {
  std::string out;
  for (const std::string& a : argv) {
    out += a;
    out.push_back('\0');
  }
  return out;
}

std::string LiveShepherd() { return Cmdline({"/usr/lib/skiff/shepherd", kDir, "--ready-fd=7"}); }

TEST(Recovery, StatusFileMeansFinishedWithItsResult) {
  JobDirSnapshot snapshot;
  snapshot.status = FormatJobStatus(JobResult{3, 0, ""});
  snapshot.pids = FormatJobPids(JobPids{100, 101, 101});
  snapshot.shepherd_cmdline = LiveShepherd();  // still exiting: the status wins
  Adoption a = DecideAdoption(kDir, snapshot);
  EXPECT_EQ(a.kind, Adoption::kFinished);
  EXPECT_EQ(a.result.exit_code, 3);
  EXPECT_EQ(a.result.failure, "");
}

TEST(Recovery, LiveShepherdMeansRunning) {
  JobDirSnapshot snapshot;
  snapshot.pids = FormatJobPids(JobPids{100, 101, 101});
  snapshot.shepherd_cmdline = LiveShepherd();
  Adoption a = DecideAdoption(kDir, snapshot);
  EXPECT_EQ(a.kind, Adoption::kRunning);
  EXPECT_EQ(a.pids.shepherd_pid, 100);
  EXPECT_EQ(a.pids.job_pgid, 101);
}

TEST(Recovery, RecycledShepherdPidMeansLost) {
  JobDirSnapshot snapshot;
  snapshot.pids = FormatJobPids(JobPids{100, 101, 101});
  snapshot.shepherd_cmdline = Cmdline({"/usr/bin/sleep", "100"});
  Adoption a = DecideAdoption(kDir, snapshot);
  EXPECT_EQ(a.kind, Adoption::kFinished);
  EXPECT_EQ(a.result.failure, kShepherdLost);
  EXPECT_NE(a.result.exit_code, 0);
}

TEST(Recovery, ShepherdOfAnotherJobMeansLost) {
  JobDirSnapshot snapshot;
  snapshot.pids = FormatJobPids(JobPids{100, 101, 101});
  snapshot.shepherd_cmdline = Cmdline({"/usr/lib/skiff/shepherd", "/var/spool/skiff/d/n1/job421"});
  EXPECT_EQ(DecideAdoption(kDir, snapshot).result.failure, kShepherdLost);
}

TEST(Recovery, DeadShepherdWithoutStatusMeansLost) {
  JobDirSnapshot snapshot;
  snapshot.pids = FormatJobPids(JobPids{100, 101, 101});
  Adoption a = DecideAdoption(kDir, snapshot);
  EXPECT_EQ(a.kind, Adoption::kFinished);
  EXPECT_EQ(a.result.failure, kShepherdLost);
}

TEST(Recovery, NoPidsFileMeansLost) {
  JobDirSnapshot snapshot;
  snapshot.shepherd_cmdline = LiveShepherd();
  EXPECT_EQ(DecideAdoption(kDir, snapshot).result.failure, kShepherdLost);
}

TEST(Recovery, UnreadableStatusIsAFailureThatSaysSo) {
  JobDirSnapshot snapshot;
  snapshot.status = "garbage";
  Adoption a = DecideAdoption(kDir, snapshot);
  EXPECT_EQ(a.kind, Adoption::kFinished);
  EXPECT_NE(a.result.failure.find("unreadable status file"), std::string::npos);
}

TEST(ShepherdCmdline, MatchesOnlyAShepherdForThatDirectory) {
  EXPECT_TRUE(IsShepherdCmdline(LiveShepherd(), kDir));
  EXPECT_TRUE(IsShepherdCmdline(Cmdline({"shepherd", kDir}), kDir));
  EXPECT_FALSE(IsShepherdCmdline("", kDir));
  EXPECT_FALSE(IsShepherdCmdline(Cmdline({"/bin/bash", kDir}), kDir));
  EXPECT_FALSE(IsShepherdCmdline(Cmdline({"/usr/lib/skiff/shepherd"}), kDir));
  EXPECT_FALSE(IsShepherdCmdline(Cmdline({"/shepherd/bin/bash", kDir}), kDir));
}

}  // namespace
}  // namespace skiff::noded
