// sdiag through the real daemons (issue 31: Prometheus exporters scrape it):
// its counters move with submissions, RPCs are counted by Slurm's message
// names and by user, --reset is root's (and SlurmUser's and admins') only,
// with Slurm's error for anyone else, and --json parses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kUser[] = "sdiaguser";

class SdiagTest : public SharedClusterTest<SdiagTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options = NodesWithoutGpus(2, 2);
    // A PrologSlurmctld, so that scriptd's calls are timed too.
    options.extra_config = "PrologSlurmctld=/bin/true\n";
    StartCluster(options);
  }

  static std::string Sdiag(const std::string& args = "") {
    CommandResult r = cluster_->Run("sdiag " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  // The number after `label` on its line of `text` ("Jobs submitted: 3"); -1
  // when there is no such line.
  static int64_t Figure(const std::string& text, const std::string& label) {
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      line = absl::StripLeadingAsciiWhitespace(line);
      if (!absl::ConsumePrefix(&line, label)) continue;
      int64_t value = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value)) return value;
    }
    return -1;
  }
  // The count of the RPC line of `name` (a message type or a user); -1 if none.
  static int64_t RpcCount(const std::string& text, const std::string& name) {
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      line = absl::StripLeadingAsciiWhitespace(line);
      if (!absl::ConsumePrefix(&line, name) || !absl::StartsWith(line, " ")) continue;
      const size_t at = line.find("count:");
      if (at == absl::string_view::npos) continue;
      int64_t value = 0;
      const absl::string_view rest = line.substr(at + 6);
      if (absl::SimpleAtoi(rest.substr(0, rest.find(' ')), &value)) return value;
    }
    return -1;
  }
};

TEST_F(SdiagTest, CountersMoveWithSubmissionsAndRpcs) {
  const std::string before = Sdiag();
  ASSERT_NE(before.find("sdiag output at "), std::string::npos) << before;
  const int64_t submitted = Figure(before, "Jobs submitted:");
  ASSERT_GE(submitted, 0) << before;
  const int64_t submits = std::max<int64_t>(0, RpcCount(before, "REQUEST_SUBMIT_BATCH_JOB"));

  for (int i = 0; i < 3; ++i) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch -o /dev/null --wrap true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CommandResult r = cluster_->Run("squeue");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const std::string after = Sdiag();
  EXPECT_EQ(Figure(after, "Jobs submitted:"), submitted + 3) << after;
  EXPECT_EQ(RpcCount(after, "REQUEST_SUBMIT_BATCH_JOB"), submits + 3) << after;
  EXPECT_GE(RpcCount(after, "REQUEST_JOB_INFO"), 1) << after;
  EXPECT_GE(RpcCount(after, "REQUEST_STATS_INFO"), 1) << after;  // the first sdiag
  EXPECT_GE(RpcCount(after, "root"), 5) << after;
  // The nodes registered and report in, as root.
  EXPECT_GE(RpcCount(after, "MESSAGE_NODE_REGISTRATION_STATUS"), 2) << after;
  EXPECT_NE(after.find("\nMain schedule statistics (microseconds):\n"), std::string::npos);
  EXPECT_NE(after.find("\nPending RPC statistics\n\tNo pending RPCs\n"), std::string::npos);
  // The jobs run and end: the scheduler's passes and the completions are counted.
  ASSERT_TRUE(Eventually(60, [&] { return Figure(Sdiag(), "Jobs completed:") >= 3; })) << Sdiag();
  const std::string done = Sdiag();
  EXPECT_GE(Figure(done, "Jobs started:"), 3) << done;
  EXPECT_GE(Figure(done, "Total cycles:"), 1) << done;
}

// Skiff's own sections (issue 48): each job's start and end overheads, and
// each scriptd call by name, counted as the jobs go through.
TEST_F(SdiagTest, JobOverheadsAndScriptdCallsAreTimed) {
  const std::string before = Sdiag();
  const int64_t starts = RpcCount(before, "Start (allocated to launched)");
  const int64_t ends = RpcCount(before, "End (ended on node to final state)");
  ASSERT_GE(starts, 0) << before;
  ASSERT_GE(ends, 0) << before;
  const int64_t prologs = std::max<int64_t>(0, RpcCount(before, "PrologSlurmctld"));
  const int64_t completed = Figure(before, "Jobs completed:");
  for (int i = 0; i < 2; ++i) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch -o /dev/null --wrap true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_TRUE(Eventually(60, [&] {
    const std::string now = Sdiag();
    return Figure(now, "Jobs completed:") >= completed + 2 &&
           RpcCount(now, "End (ended on node to final state)") >= ends + 2;
  })) << Sdiag();
  const std::string after = Sdiag();
  EXPECT_GE(RpcCount(after, "Start (allocated to launched)"), starts + 2) << after;
  EXPECT_GE(RpcCount(after, "PrologSlurmctld"), prologs + 2) << after;
  EXPECT_NE(after.find("\nJob overhead statistics (microseconds)\n"), std::string::npos) << after;
  EXPECT_NE(after.find("\nScript daemon call statistics (microseconds)\n"), std::string::npos)
      << after;
}

TEST_F(SdiagTest, JsonParses) {
  CommandResult r = cluster_->Run(
      "sdiag --json | python3 -c 'import json,sys; d=json.load(sys.stdin); "
      "s=d[\"statistics\"]; print(s[\"jobs_submitted\"] >= 0, len(s[\"rpcs_by_message_type\"]) > "
      "0, "
      "s[\"rpcs_by_user\"][0][\"user\"])'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "True True root\n");
}

TEST_F(SdiagTest, ResetByRootZeroesAndOthersAreRefused) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create a test user";
  ASSERT_TRUE(cluster_->EnsureUser(kUser).ok());
  CommandResult job = cluster_->Run("cd /tmp && sbatch -o /dev/null --wrap true");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  // The user's own calls are counted under their name.
  CommandResult user_sdiag = cluster_->RunAs(kUser, "sdiag");
  ASSERT_EQ(user_sdiag.exit_code, 0) << user_sdiag.err;
  EXPECT_GE(RpcCount(Sdiag(), kUser), 1);

  CommandResult refused = cluster_->RunAs(kUser, "sdiag --reset");
  EXPECT_EQ(refused.exit_code, 255);
  EXPECT_EQ(refused.err, "slurm_reset_statistics: Access/permission denied\n");
  EXPECT_EQ(refused.out, "");
  EXPECT_GE(Figure(Sdiag(), "Jobs submitted:"), 1) << "a refused reset changes nothing";

  CommandResult reset = cluster_->Run("sdiag -r");
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(reset.out, "Reset scheduling statistics\n");
  const std::string after = Sdiag();
  EXPECT_EQ(Figure(after, "Jobs submitted:"), 0) << after;
  EXPECT_EQ(Figure(after, "Jobs started:"), 0) << after;
  EXPECT_EQ(RpcCount(after, "REQUEST_SUBMIT_BATCH_JOB"), -1) << after;
  EXPECT_EQ(RpcCount(after, kUser), -1) << after;
  // Only the reset itself (and perhaps a heartbeat) since.
  EXPECT_EQ(RpcCount(after, "REQUEST_STATS_INFO"), 1) << after;
}

TEST_F(SdiagTest, OptionsAsSlurms) {
  CommandResult usage = cluster_->Run("sdiag --usage");
  EXPECT_EQ(usage.exit_code, 0);
  EXPECT_EQ(usage.out, "Usage: sdiag [-M cluster] [-aritT]\n");
  CommandResult help = cluster_->Run("sdiag --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(help.out, "Usage: sdiag [OPTIONS]\n  -a, --all")) << help.out;
  CommandResult bad = cluster_->Run("sdiag -x");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "sdiag: invalid option -- 'x'\nTry \"sdiag --help\" for more information\n");
  CommandResult other = cluster_->Run("sdiag -M elsewhere");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("sdiag: error: Skiff has no multi-cluster support"), std::string::npos)
      << other.err;
  CommandResult sorted = cluster_->Run("sdiag -i && sdiag -t && sdiag -T && sdiag -a");
  EXPECT_EQ(sorted.exit_code, 0) << sorted.err;
}

}  // namespace
}  // namespace skiff::testing
