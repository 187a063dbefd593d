// Where a job's tasks go, through the real daemons, on four 2-CPU nodes: the
// shape of shared/slurm-anchor, whose Slurm 22.05 gave every expected value
// below (each batch job's SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE,
// SLURM_JOB_CPUS_PER_NODE, and the node each `srun -l` task ran on).
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class PlacementTest : public SharedClusterTest<PlacementTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() == 0) StartCluster(NodesWithoutGpus(4, 2));
  }

  void SetUp() override { SetUpAsRoot({"skiffalice"}); }

  // Runs a batch job with `args` and returns what it printed: "NL=.. TPN=..
  // CPN=..", then each srun task's "rank: node" in rank order.
  static std::string Layout(const std::string& args, bool with_srun = true) {
    const std::string out = absl::StrCat(cluster_->dir(), "/home/skiffalice/layout-", ++count_);
    CommandResult r = cluster_->RunAs(
        "skiffalice",
        absl::StrCat(
            "sbatch -t 5 -o ", out, " ", args,
            " --wrap='echo \"NL=$SLURM_JOB_NODELIST TPN=$SLURM_TASKS_PER_NODE "
            "CPN=$SLURM_JOB_CPUS_PER_NODE\"; ",
            with_srun ? "srun -l printenv SLURMD_NODENAME | sort -n | tr \"\\n\" \" \"; " : "",
            "echo END'"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return r.err;
    EXPECT_TRUE(Eventually(60, [&] { return ReadFile(out).find("END") != std::string::npos; }))
        << args << ": " << ReadFile(out) << cluster_->Run("squeue; scontrol show job").out;
    std::string text = ReadFile(out);
    const size_t end = text.find("END");
    return end == std::string::npos ? text : text.substr(0, end);
  }

  static int count_;
};

int PlacementTest::count_ = 0;

TEST_F(PlacementTest, EightTasksSpreadOverFourTwoCpuNodes) {
  EXPECT_EQ(Layout("-n 8"),
            "NL=n[1-4] TPN=2(x4) CPN=2(x4)\n"
            "0: n1 1: n1 2: n2 3: n2 4: n3 5: n3 6: n4 7: n4 ");
}

TEST_F(PlacementTest, TasksSpreadOverAsFewNodesAsHoldThem) {
  EXPECT_EQ(Layout("-n 3"), "NL=n[1-2] TPN=2,1 CPN=2,1\n0: n1 1: n1 2: n2 ");
  EXPECT_EQ(Layout("-N 2 -n 3"), "NL=n[1-2] TPN=2,1 CPN=2,1\n0: n1 1: n1 2: n2 ");
  EXPECT_EQ(Layout("-n 3 -c 2"), "NL=n[1-3] TPN=1(x3) CPN=2(x3)\n0: n1 1: n2 2: n3 ");
  EXPECT_EQ(Layout("-n 2 --ntasks-per-node=1"), "NL=n[1-2] TPN=1(x2) CPN=1(x2)\n0: n1 1: n2 ");
  EXPECT_EQ(Layout("--mincpus=2 -n 2"), "NL=n1 TPN=2 CPN=2\n0: n1 1: n1 ");
}

TEST_F(PlacementTest, NodeRangesFillToTheirTop) {
  EXPECT_EQ(Layout("-N 1-3 -n 4"), "NL=n[1-3] TPN=2,1(x2) CPN=2,1(x2)\n0: n1 1: n1 2: n2 3: n3 ");
  EXPECT_EQ(Layout("-N -3 -n 2"), "NL=n[1-2] TPN=1(x2) CPN=1(x2)\n0: n1 1: n2 ");
  EXPECT_EQ(Layout("-n 2 --spread-job"), "NL=n[1-2] TPN=1(x2) CPN=1(x2)\n0: n1 1: n2 ");
}

TEST_F(PlacementTest, OvercommitAndExclusive) {
  // srun in it overcommits too (SLURM_OVERCOMMIT=1 in the job's environment).
  EXPECT_EQ(Layout("-O -N 2 -n 6"),
            "NL=n[1-2] TPN=3(x2) CPN=1(x2)\n0: n1 1: n1 2: n1 3: n2 4: n2 5: n2 ");
  EXPECT_EQ(Layout("--exclusive -n 3"), "NL=n[1-2] TPN=2,1 CPN=2(x2)\n0: n1 1: n1 2: n2 ");
}

TEST_F(PlacementTest, BestFitPutsASmallJobBesideARunningOne) {
  CommandResult busy =
      cluster_->RunAs("skiffalice", "sbatch --parsable -w n2 -n 1 --wrap='sleep 300'");
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  const std::string id(absl::StripAsciiWhitespace(busy.out));
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Run("squeue -h -o %T -j " + id).out.find("RUNNING") != std::string::npos;
  }));
  EXPECT_EQ(Layout("-n 1"), "NL=n2 TPN=1 CPN=1\n0: n2 ");
  EXPECT_EQ(Layout("-n 3"), "NL=n[1-2] TPN=2,1 CPN=2,1\n0: n1 1: n1 2: n2 ");
  cluster_->Run("scancel " + id);
  ASSERT_TRUE(Eventually(60, [&] { return cluster_->Run("squeue -h").out.empty(); }));
}

TEST_F(PlacementTest, ContiguousTakesNeighbouringNodesOnly) {
  // n2 full: n1 and n3 are free but not neighbours.
  CommandResult busy =
      cluster_->RunAs("skiffalice", "sbatch --parsable -w n2 -n 2 --wrap='sleep 300'");
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  const std::string id(absl::StripAsciiWhitespace(busy.out));
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Run("squeue -h -o %T -j " + id).out.find("RUNNING") != std::string::npos;
  }));
  EXPECT_EQ(Layout("-N 2", false), "NL=n[1,3] TPN=1(x2) CPN=1(x2)\n");
  EXPECT_EQ(Layout("-N 2 --contiguous", false), "NL=n[3-4] TPN=1(x2) CPN=1(x2)\n");
  EXPECT_EQ(Layout("-n 3 --contiguous"), "NL=n[3-4] TPN=2,1 CPN=2,1\n0: n3 1: n3 2: n4 ");
  // Three free nodes, no three in a row: it waits, and says it asked.
  CommandResult wide =
      cluster_->RunAs("skiffalice", "sbatch --parsable -N 3 --contiguous -o /dev/null --wrap=true");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const std::string wide_id(absl::StripAsciiWhitespace(wide.out));
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StartsWith(cluster_->Run("squeue -h -o '%t %r %O' -j " + wide_id).out,
                            "PD Resources 1");
  })) << cluster_->Run("squeue -j " + wide_id).out;
  EXPECT_NE(cluster_->Run("scontrol show job " + wide_id).out.find(" Contiguous=1 "),
            std::string::npos);
  cluster_->Run("scancel " + id);
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster_->Run("sacct -n -X -P -o State -j " + wide_id).out == "COMPLETED\n";
  })) << cluster_->Run("scontrol show job " + wide_id).out;
  ASSERT_TRUE(Eventually(60, [&] { return cluster_->Run("squeue -h").out.empty(); }));
}

TEST_F(PlacementTest, SrunAndSallocSpreadTasksToo) {
  CommandResult srun =
      cluster_->RunAs("skiffalice", "srun -n 3 -l printenv SLURMD_NODENAME | sort -n");
  EXPECT_EQ(srun.exit_code, 0) << srun.err;
  EXPECT_EQ(srun.out, "0: n1\n1: n1\n2: n2\n");
  CommandResult salloc = cluster_->RunAs(
      "skiffalice", "salloc -n 3 bash -c 'echo $SLURM_JOB_NODELIST $SLURM_TASKS_PER_NODE'");
  EXPECT_EQ(salloc.exit_code, 0) << salloc.err;
  // Two nodes, 2+1 (which two depends on whether srun's job above has let go
  // of n1 yet).
  EXPECT_NE(salloc.out.find("] 2,1\n"), std::string::npos) << salloc.out << salloc.err;
  // More tasks than the partition's CPUs: refused at submit, as Slurm.
  CommandResult big = cluster_->RunAs("skiffalice", "sbatch -n 9 --wrap=true");
  EXPECT_NE(big.exit_code, 0);
  EXPECT_NE(big.err.find("More processors requested than permitted"), std::string::npos) << big.err;
}

}  // namespace
}  // namespace skiff::testing
