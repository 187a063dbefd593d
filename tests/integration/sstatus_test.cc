// sstatus through the real daemons (issue 36's scenario): a user allowed a QOS
// capped at 4 GPUs per user runs a 2-GPU job in it; sstatus, as that user, shows
// the cluster's GPU usage and free nodes, the cap and the job. The cluster: 4
// nodes with 4 CPUs, n3 and n4 with 2 fake GPUs each, associations and QOS
// enforced. Runs as root: it creates a test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/hostlist.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";

class SstatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    LocalCluster::Options options;  // 4 nodes, the last 2 with 2 GPUs each
    options.extra_config =
        "ClusterName=titanic\n"
        "AccountingStorageEnforce=associations,limits,qos\n";
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
    ASSERT_TRUE(cluster_->EnsureUser(kAlice).ok());
  }

  // Runs `command` as root, expecting success; returns its stdout.
  std::string Ok(const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
    return r.out;
  }

  std::unique_ptr<LocalCluster> cluster_;
};

TEST_F(SstatusTest, ShowsAUsersGpuJobAgainstItsQosCap) {
  Ok("sacctmgr -i add qos gpu4 set MaxTRESPerUser=gres/gpu=4");
  Ok("sacctmgr -i add account lab");
  Ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab qos=normal,gpu4"));

  const CommandResult submit = cluster_->RunAs(
      kAlice, "sbatch -p gpu --qos=gpu4 --gres=gpu:2 -J inception -t 5 --wrap='sleep 300'");
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out;
  const std::string id = absl::StrCat(ids[0]);
  std::string node;
  ASSERT_TRUE(Eventually(30, [&] {
    const CommandResult q = cluster_->Run("squeue -h -j " + id + " -o '%T %N'");
    node = std::string(absl::StripPrefix(absl::StripTrailingAsciiWhitespace(q.out), "RUNNING "));
    return absl::StartsWith(q.out, "RUNNING ");
  })) << cluster_->Run("squeue -j " + id).out;

  // The nodes other than the job's are free (idle, nothing allocated).
  std::vector<std::string> free;
  for (const char* name : {"n1", "n2", "n3", "n4"}) {
    if (name != node) free.push_back(name);
  }
  const CommandResult status = cluster_->RunAs(kAlice, "sstatus");
  std::cout << "sstatus as " << kAlice << ":\n" << status.out;
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const std::string expected_head = absl::StrCat(
      "titanic status:\n"
      "GPU Usage: 2/4\n"
      "Free Nodes: 3/4: ",
      CompressHostlist(free),
      "\n"
      "=====\n"
      "Job details for user skiffalice:\n"
      "Using 2/4 GPUs allowed on gpu4 queue.\n"
      "\n"
      "Partition\tJobID\tJobName\tState\tReqGRES\tCPUTime\n"
      "-----\t-----\t-----\t-----\t-----\t-----\n");
  ASSERT_TRUE(absl::StartsWith(status.out, expected_head)) << status.out;
  // One row: the job, its CPU time (1 CPU x the seconds it has run) in sacct's form.
  const std::string row = status.out.substr(expected_head.size());
  EXPECT_TRUE(std::regex_match(
      row, std::regex("gpu\t" + id + "\tinception\tRUNNING\tgpu:2\t00:0[0-9]:[0-5][0-9]\n")))
      << row;

  // Root asks about alice with -u and gets the same; JSON holds the same numbers.
  EXPECT_EQ(cluster_->Run(absl::StrCat("sstatus -u ", kAlice)).out.substr(0, expected_head.size()),
            expected_head);
  const std::string json = cluster_->RunAs(kAlice, "sstatus --json").out;
  for (const std::string& piece :
       {std::string("\"cluster\": \"titanic\""), std::string("\"allocated\": 2"),
        std::string("\"name\": \"gpu4\""), std::string("\"used\": 2"), std::string("\"limit\": 4"),
        absl::StrCat("\"job_id\": \"", id, "\"")}) {
    EXPECT_TRUE(absl::StrContains(json, piece)) << piece << "\n" << json;
  }

  // Root has no GPU-capped QOS and no job.
  const std::string root = Ok("sstatus");
  EXPECT_TRUE(absl::StrContains(root, "Job details for user root:\nUsing 0 GPUs (no GPU limit).\n"))
      << root;

  // Errors in Slurm's form.
  const CommandResult bad = cluster_->Run("sstatus --bogus");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(absl::StartsWith(bad.err, "sstatus: error: unrecognized option '--bogus'\n"))
      << bad.err;
  cluster_->Run("scancel " + id);
}

}  // namespace
}  // namespace skiff::testing
