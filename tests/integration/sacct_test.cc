// sacct through the real daemons: what a workflow manager polling job states
// sees, the batch step rows, cancelled and failed jobs, arrays, and errors.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class SacctTest : public SharedClusterTest<SacctTest> {
 protected:
  static void SetUpTestSuite() { StartCluster(NodesWithoutGpus(2)); }

  std::string Submit(const std::string& args) {
    const CommandResult r = cluster_->Run("sbatch --parsable " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripTrailingAsciiWhitespace(r.out));
  }

  std::string Sacct(const std::string& args) {
    const CommandResult r = cluster_->Run("sacct " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
};

TEST_F(SacctTest, APollerSeesEveryStateAJobPassesThrough) {
  const std::string id = Submit("-H -J polled --wrap 'sleep 3'");
  std::vector<std::string> seen;
  auto poll = [&] {
    const std::string out = Sacct("-P -n --format=JobIdRaw,State -j " + id);
    for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> cells = absl::StrSplit(line, '|');
      if (cells.size() == 2 && cells[0] == id && (seen.empty() || seen.back() != cells[1])) {
        seen.push_back(cells[1]);
      }
    }
    return !seen.empty() && seen.back() == "COMPLETED";
  };
  poll();
  ASSERT_EQ(cluster_->Run("scontrol release " + id).exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return poll();
  }));
  EXPECT_EQ(seen, (std::vector<std::string>{"PENDING", "RUNNING", "COMPLETED"}));
  EXPECT_EQ(Sacct("-X --parsable2 --noheader --format=JobIdRaw,State --name polled"),
            id + "|COMPLETED\n");
  // The batch step is a row of its own.
  EXPECT_EQ(Sacct("-P -n -o JobID,JobName,State,ExitCode -j " + id),
            absl::StrCat(id, "|polled|COMPLETED|0:0\n", id, ".batch|batch|COMPLETED|0:0\n"));
  EXPECT_EQ(Sacct("-P -n -o JobID,State -j " + id + ".batch"), id + ".batch|COMPLETED\n");
}

TEST_F(SacctTest, FailedAndCancelledJobsShowAsSlurmShowsThem) {
  const std::string failed = Submit("--wrap 'exit 3'");
  const std::string cancelled = Submit("--wrap 'sleep 60'");
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Sacct("-X -n -P -o State -j " + cancelled), "RUNNING");
  }));
  ASSERT_EQ(cluster_->Run("scancel " + cancelled).exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Sacct("-X -n -P -o State -j " + failed + "," + cancelled),
                             "FAILED\nCANCELLED by 0");
  }));
  ASSERT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Sacct("-n -P -o JobID,State,ExitCode -j " + cancelled),
                             ".batch|CANCELLED|0:15");
  }));
  EXPECT_EQ(Sacct("-n -P -o JobID,State,ExitCode -j " + failed),
            absl::StrCat(failed, "|FAILED|3:0\n", failed, ".batch|FAILED|3:0\n"));
  EXPECT_EQ(Sacct("-n -P -o JobID,State,ExitCode -j " + cancelled),
            absl::StrCat(cancelled, "|CANCELLED by 0|0:0\n", cancelled, ".batch|CANCELLED|0:15\n"));
  // -s CA: cancelled today (with -s, -E defaults to -S, as in Slurm); the failed job is not.
  const std::string ca = Sacct("-X -n -P -s CA -S today -E now -o JobIDRaw");
  EXPECT_TRUE(absl::StrContains(ca, cancelled + "\n")) << ca;
  EXPECT_FALSE(absl::StrContains(ca, failed + "\n")) << ca;
  // The default view: fixed columns.
  const std::string table = Sacct("-j " + cancelled);
  EXPECT_TRUE(absl::StartsWith(
      table,
      "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
      "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"))
      << table;
  EXPECT_TRUE(absl::StrContains(table, "CANCELLED+      0:0 \n")) << table;
}

TEST_F(SacctTest, ArrayTasksAndErrors) {
  const std::string id = Submit("--array=1-3 --wrap true");
  ASSERT_TRUE(Eventually(30, [&] {
    return Sacct("-X -n -P -o JobID,State -j " + id) ==
           absl::StrCat(id, "_1|COMPLETED\n", id, "_2|COMPLETED\n", id, "_3|COMPLETED\n");
  })) << Sacct("-X -n -P -o JobID,State -j " + id);
  EXPECT_EQ(Sacct("-X -n -P -o JobID -j " + id + "_2"), id + "_2\n");

  CommandResult bad = cluster_->Run("sacct -o JobID,Foo");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "sacct: error: Invalid field requested: \"Foo\"\n");
  bad = cluster_->Run("sacct -s nosuch");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "sacct: fatal: unrecognized job state value 'nosuch'\n");
  bad = cluster_->Run("sacct -S notatime");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "sacct: error: Invalid time specification 'notatime'\n");
  bad = cluster_->Run("sacct --bogus");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(bad.err, "unrecognized option '--bogus'")) << bad.err;
  // --json: Slurm's envelope and the jobs.
  const std::string json = Sacct("--json -j " + id);
  EXPECT_TRUE(absl::StrContains(json, "\"jobs\": [")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"working_directory\"")) << json;
}

}  // namespace
}  // namespace skiff::testing
