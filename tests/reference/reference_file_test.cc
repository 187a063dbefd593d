#include "tests/reference/reference_file.h"

#include <gtest/gtest.h>

namespace skiff::reference {
namespace {

Side SlurmSide() {
  Side side;
  side.root = "/srv/slurm";
  side.host = "vm";
  side.product = "slurm-wlm";
  side.versions = {"22.05.8"};
  side.user_uid = "1001";
  side.user_gid = "1002";
  side.first_job_id = 15373;
  return side;
}

TEST(ParseReferenceTest, ReadsUserCommandOutputAndExitCode) {
  const ReferenceFile file =
      ParseReference("# as alice\n$ scancel 15391 \nscancel: error: Kill job error\n[exit 210]\n");
  EXPECT_EQ(file.user, "alice");
  EXPECT_EQ(file.command, "scancel 15391");
  EXPECT_EQ(file.output, "scancel: error: Kill job error\n");
  EXPECT_EQ(file.exit_code, 210);
}

TEST(ParseReferenceTest, KeepsTrailingBlanksAndEmptyLinesOfTheOutput) {
  const ReferenceFile file = ParseReference("$ squeue \nA  \n\nB\n[exit 0]\n");
  EXPECT_EQ(file.user, "root");
  EXPECT_EQ(file.output, "A  \n\nB\n");
}

TEST(ParseReferenceTest, FileWithoutCommandOrExitHasNone) {
  const ReferenceFile file = ParseReference("Name=lua DefaultPool=(null)\n");
  EXPECT_EQ(file.command, "");
  EXPECT_EQ(file.exit_code, -1);
}

TEST(NormalizeTest, JobIdsNumberedByFirstAppearanceWithinTheRange) {
  EXPECT_EQ(Normalize("15400_[1-5] 15395 15400_1 15395\n", SlurmSide()), "J1_[1-5] J2 J1_1 J2\n");
  EXPECT_EQ(Normalize("15380.batch 15381.0\n", SlurmSide()), "J1.batch J2.0\n");
  // Outside the range: a port, a count, an id before the first.
  EXPECT_EQ(Normalize("16817 2 15372\n", SlurmSide()), "16817 2 15372\n");
}

TEST(NormalizeTest, BasicPrioritiesNumberedByFirstAppearance) {
  EXPECT_EQ(Normalize("Priority=4294899367 0 4294899366 4294899367\n", SlurmSide()),
            "Priority=P1 0 P2 P1\n");
}

TEST(NormalizeTest, SameJobsInOrderCompareEqualAcrossNumberings) {
  Side skiff = SlurmSide();
  skiff.first_job_id = 100;
  EXPECT_EQ(Normalize("15391 wide\n15392 gpubb\n", SlurmSide()),
            Normalize("100 wide\n103 gpubb\n", skiff));
  EXPECT_NE(Normalize("15391 wide\n15392 gpubb\n", SlurmSide()),
            Normalize("103 gpubb\n100 wide\n", skiff));
}

TEST(NormalizeTest, DatesAndCtimeLines) {
  EXPECT_EQ(Normalize("SubmitTime=2026-11-22T05:14:46 x\nSun Nov 22 05:14:50 2026\n", SlurmSide()),
            "SubmitTime=TIME x\nDATE\n");
}

TEST(NormalizeTest, ElapsedTimesButNotTimeLimits) {
  EXPECT_EQ(Normalize("RunTime=00:00:06 TimeLimit=01:00:00\n", SlurmSide()),
            "RunTime=ELAPSED TimeLimit=01:00:00\n");
  EXPECT_EQ(Normalize("  R       0:06      2 n[1-2]\n", SlurmSide()),
            "  R       ELAPSED      2 n[1-2]\n");
  EXPECT_EQ(Normalize("up 1-00:00:00 4 ExitCode=0:15\n", SlurmSide()),
            "up 1-00:00:00 4 ExitCode=0:15\n");
}

TEST(NormalizeTest, RootHostVersionAndProduct) {
  EXPECT_EQ(
      Normalize("WorkDir=/srv/slurm/jobs NodeHostName=vm vmem Version=22.05.8\n", SlurmSide()),
      "WorkDir=ROOT/jobs NodeHostName=HOST vmem Version=VERSION\n");
  EXPECT_EQ(Normalize("slurm-wlm 22.05.8\n", SlurmSide()), "PRODUCT VERSION\n");
  EXPECT_EQ(Normalize("SLURM_VERSION           = 22.05.8\n", SlurmSide()),
            "SLURM_VERSION           = VERSION\n");
}

TEST(NormalizeTest, PidsPortsMeasurementsAndUid) {
  EXPECT_EQ(Normalize("SLURM_TASK_PID=29010\nAllocNode:Sid=localhost:5370\n", SlurmSide()),
            "SLURM_TASK_PID=PID\nAllocNode:Sid=HOST:SID\n");
  EXPECT_EQ(Normalize("NodeHostName=n1 Port=1\n", SlurmSide()), "NodeHostName=HOST Port=PORT\n");
  EXPECT_EQ(
      Normalize("NodeAddr=127.0.0.1 Port=16901\nSlurmctldPort           = 16817\n", SlurmSide()),
      "NodeAddr=127.0.0.1 Port=PORT\nSlurmctldPort           = PORT\n");
  EXPECT_EQ(Normalize("SLURM_WORKING_CLUSTER=lab:127.0.0.1:16817:9728:109\n", SlurmSide()),
            "SLURM_WORKING_CLUSTER=lab:127.0.0.1:PORT:9728:109\n");
  EXPECT_EQ(Normalize("CPULoad=1.12 FreeMem=23461\n   OS=Linux 6.1 #1 SMP \n", SlurmSide()),
            "CPULoad=LOAD FreeMem=MEM\n   OS=OS\n");
  EXPECT_EQ(Normalize("UserId=alice(1001) GroupId=root(0)\nSLURM_JOB_UID=1001\n", SlurmSide()),
            "UserId=alice(UID) GroupId=root(0)\nSLURM_JOB_UID=UID\n");
  EXPECT_EQ(Normalize("GroupId=alice(1002)\nSLURM_JOB_GID=1002\n", SlurmSide()),
            "GroupId=alice(UID)\nSLURM_JOB_GID=UID\n");
}

TEST(StateSequenceTest, DistinctStatesInOrderWithoutTimesOrPurge) {
  EXPECT_EQ(
      StateSequence("# comment\n  0.01s JobState=PENDING Reason=None \n"
                    "  0.61s JobState=RUNNING Reason=None \n"
                    "  0.70s JobState=RUNNING Reason=None \n"
                    " 28.71s (job record purged)\n"),
      (std::vector<std::string>{"JobState=PENDING Reason=None", "JobState=RUNNING Reason=None"}));
}

TEST(LineDiffTest, ListsOnlyTheLinesThatDiffer) {
  EXPECT_EQ(LineDiff("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(LineDiff("a\nb\nc\n", "a\nB\nc\n"), "- b\n+ B\n");
}

}  // namespace
}  // namespace skiff::reference
