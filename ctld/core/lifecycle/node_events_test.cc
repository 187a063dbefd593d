// Node events: a node going down under its jobs, and drains stored with the
// event that set them.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

TEST_F(LifecycleTest, NodeDownRequeuesOrFailsAndAPreemptedJobRequeues) {
  SubmitRequest fail = Request(2);
  fail.requeue = false;
  const uint64_t a = Submit(Request(2));
  const uint64_t b = Submit(fail);
  Drive(Schedule());
  ASSERT_EQ(StateOf(a), JobState::kRunning);
  ASSERT_EQ(StateOf(b), JobState::kRunning);
  std::vector<NodeChange> changes;
  Drive(Store(core_->UpdateNodes({"n1", "n2"}, "DOWN", "test", 0, now_, &changes)));
  EXPECT_EQ(StateOf(a), JobState::kPending);
  EXPECT_EQ(core_->Find(a)->restart_count, 1);
  EXPECT_EQ(StateOf(b), JobState::kNodeFail);
  EXPECT_EQ(store_[b].state, JobState::kNodeFail);
}

// -k/--no-kill: a node other than the batch host fails under a running job
// of several nodes; the job keeps running on the others and the failed node
// leaves its allocation (Slurm's kill_running_job_by_node_name with
// kill_on_node_fail = 0), stored before it is acknowledged.
TEST_F(LifecycleTest, NoKillJobLosesTheFailedNodeAndKeepsRunning) {
  SubmitRequest no_kill = Request(1);
  no_kill.min_nodes = 2;
  no_kill.no_kill = true;
  const uint64_t id = Submit(no_kill);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  ASSERT_EQ(core_->Find(id)->nodes, (std::vector<std::string>{"n1", "n2"}));
  std::vector<NodeChange> changes;
  Effects down = Store(core_->UpdateNodes({"n2"}, "DOWN", "dead", 0, now_, &changes));
  const Job& job = *core_->Find(id);
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.restart_count, 0);
  EXPECT_EQ(job.nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(job.cpus_by_node, std::vector<int>{1});
  EXPECT_EQ(job.mem_by_node_mb.size(), 1u);
  EXPECT_EQ(job.tasks_by_node.size(), 1u);
  EXPECT_EQ(job.gpus_by_node.size(), 1u);
  EXPECT_EQ(job.cpu_ids_by_node.size(), 1u);
  EXPECT_EQ(store_[id].nodes, std::vector<std::string>{"n1"});
  EXPECT_NE(absl::StrJoin(down.log, "\n")
                .find("Removing failed node n2 from JobId=" + std::to_string(id)),
            std::string::npos)
      << absl::StrJoin(down.log, "\n");
  for (const Intent& intent : down.intents) {
    EXPECT_FALSE(std::holds_alternative<TerminateIntent>(intent)) << "the job is not stopped";
  }
  EXPECT_EQ(core_->state().nodes().Find("n2")->alloc_cpus, 0);
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 1);
  // It ends as any job, giving back what it still holds.
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 0);
}

// What --no-kill does not cover: the batch host itself (the script is gone),
// a one-node job, and a job without -k: requeued (or NODE_FAIL) as before.
TEST_F(LifecycleTest, NoKillDoesNotKeepAJobWhoseBatchHostOrOnlyNodeFailed) {
  SubmitRequest two = Request(1);
  two.min_nodes = 2;
  two.no_kill = true;
  const uint64_t batch_host_fails = Submit(two);
  Drive(Schedule());
  ASSERT_EQ(StateOf(batch_host_fails), JobState::kRunning);
  std::vector<NodeChange> changes;
  Drive(Store(core_->UpdateNodes({"n1"}, "DOWN", "dead", 0, now_, &changes)));
  EXPECT_EQ(StateOf(batch_host_fails), JobState::kPending);
  EXPECT_EQ(core_->Find(batch_host_fails)->restart_count, 1);
  changes.clear();
  Store(core_->UpdateNodes({"n1"}, "RESUME", "", 0, now_, &changes));

  SubmitRequest one = Request(1);
  one.no_kill = true;
  one.nodelist = {"n2"};
  one.requeue = false;
  const uint64_t only_node = Submit(one);
  Drive(Schedule());
  ASSERT_EQ(StateOf(only_node), JobState::kRunning);
  changes.clear();
  Drive(Store(core_->UpdateNodes({"n2"}, "DOWN", "dead", 0, now_, &changes)));
  EXPECT_EQ(StateOf(only_node), JobState::kNodeFail);

  Job running;
  running.no_kill = true;
  running.state = JobState::kRunning;
  running.nodes = {"n1", "n2"};
  EXPECT_TRUE(Lifecycle::KeepsRunningWithout(running, "n2"));
  EXPECT_FALSE(Lifecycle::KeepsRunningWithout(running, "n1"));
  running.no_kill = false;
  EXPECT_FALSE(Lifecycle::KeepsRunningWithout(running, "n2"));
  running.no_kill = true;
  running.state = JobState::kConfiguring;  // as Slurm: not while configuring
  EXPECT_FALSE(Lifecycle::KeepsRunningWithout(running, "n2"));
  running.state = JobState::kSuspended;
  EXPECT_TRUE(Lifecycle::KeepsRunningWithout(running, "n2"));
  running.final_state = JobState::kCancelled;  // being cancelled: it ends as it was
  EXPECT_FALSE(Lifecycle::KeepsRunningWithout(running, "n2"));
}

TEST_F(LifecycleTest, NodeDrainsAreStoredWithTheEventAndDeletedOnResume) {
  std::vector<NodeChange> changes;
  Effects drained = Store(core_->UpdateNodes({"n1"}, "DRAIN", "bad fan", 0, now_, &changes));
  ASSERT_EQ(drained.records.size(), 1u);
  const auto* drain = std::get_if<NodeAdminChange>(&drained.records[0]);
  ASSERT_NE(drain, nullptr);
  EXPECT_EQ(drain->node, "n1");
  EXPECT_EQ(drain->state.reason, "bad fan");
  changes.clear();
  Effects resumed = Store(core_->UpdateNodes({"n1"}, "RESUME", "", 0, now_, &changes));
  ASSERT_EQ(resumed.records.size(), 1u);
  const auto* resume = std::get_if<NodeAdminChange>(&resumed.records[0]);
  ASSERT_NE(resume, nullptr);
  EXPECT_TRUE(resume->state.empty());  // the record goes
  // Registering again changes no admin state: nothing stored.
  NodeRegistration reg;
  reg.node_name = "n2";
  reg.cpus = 2;
  reg.real_memory_mb = 1000;
  std::vector<uint64_t> terminate;
  changes.clear();
  EXPECT_TRUE(Store(core_->RegisterNode(reg, {}, now_, &terminate, &changes)).records.empty());
}

}  // namespace
}  // namespace skiff::ctld
