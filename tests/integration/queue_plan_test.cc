// The queue as Slurm 22.05 shows it (checked against shared/slurm-anchor with
// the same jobs): priority/basic's first come, first served numbers, a released
// job last in line, backfill's planned start and nodes for waiting jobs, and
// EligibleTime/AccrueTime Unknown while a job is held or waits on a dependency;
// a failed job's Reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class QueuePlanTest : public SharedClusterTest<QueuePlanTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options = NodesWithoutGpus(2, 2);
    options.extra_config = "PriorityType=priority/basic\n";
    StartCluster(options);
  }

  static std::string Submit(const std::string& args) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable -o /dev/null " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripTrailingAsciiWhitespace(r.out));
  }
  static std::string Show(const std::string& id) {
    return cluster_->Run("scontrol show job " + id).out;
  }
  static std::string Field(const std::string& id, const std::string& key) {
    return ScontrolField(Show(id), key);
  }
};

TEST_F(QueuePlanTest, FailedJobsReasonIsNonZeroExitCode) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable -W -o /dev/null --wrap 'exit 3'");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(r.out));
  EXPECT_EQ(Field(id, "JobState"), "FAILED");
  EXPECT_EQ(Field(id, "Reason"), "NonZeroExitCode");
  cluster_->Run("scancel -u root");
}

TEST_F(QueuePlanTest, BasicPrioritiesBackfillPlanAndEligibility) {
  // Both nodes busy for ten minutes.
  const std::string busy1 = Submit("-N1 -n2 -t 10 --wrap 'sleep 600'");
  const std::string busy2 = Submit("-N1 -n2 -t 10 --wrap 'sleep 600'");
  ASSERT_TRUE(Eventually(30, [&] {
    return Field(busy1, "JobState") == "RUNNING" && Field(busy2, "JobState") == "RUNNING";
  }));
  const std::string wide = Submit("-N2 -n4 -t 5 --wrap 'sleep 100'");
  const std::string held = Submit("-H -n1 -t 5 --wrap 'sleep 100'");
  const std::string dep = Submit("-d afterok:" + busy1 + " -n1 -t 5 --wrap 'sleep 100'");
  const std::string small = Submit("-n1 -t 5 --wrap 'sleep 100'");

  // priority/basic: 4294901759 for the first job, one less for each after; a
  // held job has 0 and no place in line yet.
  auto priority = [&](const std::string& id) { return Field(id, "Priority"); };
  const int64_t top = std::stoll(priority(busy1));
  EXPECT_LE(top, 4294901759);  // less the jobs submitted before (other tests')
  EXPECT_GT(top, 4294901759 - 10);
  EXPECT_EQ(priority(busy2), absl::StrCat(top - 1));
  EXPECT_EQ(priority(wide), absl::StrCat(top - 2));
  EXPECT_EQ(priority(held), "0");
  EXPECT_EQ(priority(dep), absl::StrCat(top - 3));
  EXPECT_EQ(priority(small), absl::StrCat(top - 4));

  // Backfill plans the waiting jobs: a start time and nodes, in scontrol and
  // in squeue --start.
  ASSERT_TRUE(Eventually(30, [&] { return Field(wide, "SchedNodeList") == "n[1-2]"; }))
      << Show(wide);
  const std::string shown = Show(wide);
  EXPECT_NE(ScontrolField(shown, "StartTime"), "Unknown") << shown;
  EXPECT_TRUE(absl::StrContains(shown, " Scheduler=Backfill")) << shown;
  EXPECT_TRUE(absl::StrContains(shown, "\n   NumNodes=2-2 NumCPUs=4 NumTasks=4 ")) << shown;
  const std::string start = cluster_->Run("squeue --start -h -o '%i %S %Y' -j " + wide).out;
  EXPECT_EQ(start, absl::StrCat(wide, " ", ScontrolField(shown, "StartTime"), " n[1-2]\n"));

  // Held and dependent jobs are not eligible yet.
  for (const std::string& id : {held, dep}) {
    const std::string text = Show(id);
    EXPECT_EQ(ScontrolField(text, "EligibleTime"), "Unknown") << text;
    EXPECT_EQ(ScontrolField(text, "AccrueTime"), "Unknown") << text;
    EXPECT_EQ(ScontrolField(text, "StartTime"), "Unknown") << text;
  }
  EXPECT_EQ(cluster_->Run("squeue --start -h -o '%i %S' -j " + held).out, held + " N/A\n");
  EXPECT_NE(Field(small, "EligibleTime"), "Unknown");

  // Released, the held job goes to the end of the line.
  ASSERT_EQ(cluster_->Run("scontrol release " + held).exit_code, 0);
  EXPECT_EQ(priority(held), absl::StrCat(top - 5));
  EXPECT_TRUE(Eventually(30, [&] { return Field(held, "EligibleTime") != "Unknown"; }))
      << Show(held);
  EXPECT_EQ(cluster_->Run("squeue -h -t PD -o %i").out,
            absl::StrCat(wide, "\n", dep, "\n", small, "\n", held, "\n"));
  cluster_->Run("scancel -u root");
}

}  // namespace
}  // namespace skiff::testing
