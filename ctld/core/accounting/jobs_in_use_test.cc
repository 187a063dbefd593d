#include "ctld/core/accounting/jobs_in_use.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

Job Running(const std::string& account, const std::string& user, int nodes, int cpus) {
  Job job;
  job.account = account;
  job.user_name = user;
  job.qos = "normal";
  job.state = JobState::kRunning;
  for (int i = 0; i < nodes; ++i) {
    job.nodes.push_back("n" + std::to_string(i));
    job.gpus_by_node.push_back({0});
  }
  job.cpus_by_node.assign(job.nodes.size(), cpus);
  job.mem_by_node_mb.assign(job.nodes.size(), 100);
  job.start_time = 1000;
  job.request.time_limit = 600;
  return job;
}

TEST(JobsInUseTest, RunningAndPendingJobsCountUpTheTree) {
  Job a = Running("physics", "alice", 2, 4);
  Job b;  // pending
  b.account = "physics";
  b.user_name = "bob";
  b.qos = "high";
  b.state = JobState::kPending;
  Job done = Running("physics", "alice", 1, 1);
  done.state = JobState::kCompleted;
  const std::map<std::string, std::string> parents = {
      {"root", ""}, {"research", "root"}, {"physics", "research"}};
  JobsInUseTables tables = CountJobsInUse({&a, &b, &done}, parents, /*now=*/1100);

  const JobsInUse& alice = tables.by_assoc.at(AssocKey::User("physics", "alice"));
  EXPECT_EQ(alice.running_jobs, 1);
  EXPECT_EQ(alice.submitted_jobs, 1);
  EXPECT_EQ(alice.running_tres.cpu, 8);
  EXPECT_EQ(alice.running_tres.mem_mb, 200);
  EXPECT_EQ(alice.running_tres.node, 2);
  EXPECT_EQ(alice.running_tres.gpu, 2);
  EXPECT_EQ(alice.running_tres_secs.cpu, 8 * 500);  // 500 s of the limit left
  const JobsInUse& bob = tables.by_assoc.at(AssocKey::User("physics", "bob"));
  EXPECT_EQ(bob.running_jobs, 0);
  EXPECT_EQ(bob.submitted_jobs, 1);
  // Nothing running: no TRES counted (the reply still carries them, as 0:
  // acct_convert_test's JobsInUseAlwaysCarryTheirTres).
  EXPECT_EQ(bob.running_tres, TresSpec{});
  for (const char* account : {"physics", "research", "root"}) {
    EXPECT_EQ(tables.by_assoc.at(AssocKey::Account(account)).running_jobs, 1) << account;
    EXPECT_EQ(tables.by_assoc.at(AssocKey::Account(account)).submitted_jobs, 2) << account;
    EXPECT_EQ(tables.by_assoc.at(AssocKey::Account(account)).running_tres.cpu, 8) << account;
  }
  EXPECT_EQ(tables.by_qos.at(QosKey{"normal", ""}).running_jobs, 1);
  EXPECT_EQ(tables.by_qos.at(QosKey{"high", ""}).submitted_jobs, 1);
  EXPECT_EQ(tables.by_qos.at(QosKey{"normal", "alice"}).running_tres.cpu, 8);
  EXPECT_EQ(tables.by_qos.count(QosKey{"normal", "bob"}), 0u);
  EXPECT_EQ(tables.by_assoc.size(), 5u);
}

}  // namespace
}  // namespace skiff::ctld
