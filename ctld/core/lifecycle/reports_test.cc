// Reports from nodes and the dispatcher: failed launches, node scripts that
// fail, fenced runs, OOM kills, and reports that make no sense.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

// Fails every launch the effects ask for, blaming `blame`.
class LaunchFailureTest : public LifecycleTest {
 protected:
  void FailLaunches(const Effects& effects, Lifecycle::LaunchBlame blame) {
    for (const Intent& intent : effects.intents) {
      if (const auto* launch = std::get_if<LaunchIntent>(&intent)) {
        Effects next =
            Store(core_->LaunchDone(launch->job.id, launch->job.restart_count,
                                    absl::UnavailableError("connection refused"), now_, blame));
        for (const Intent& follow : next.intents) {
          if (const auto* stop = std::get_if<TerminateIntent>(&follow)) {
            terminated_.push_back(stop->job_id);
          }
        }
      }
    }
  }
  const Node& NodeNamed(const std::string& name) { return *core_->state().nodes().Find(name); }
};

TEST_F(LaunchFailureTest, ANodesFailedLaunchDrainsItAndRequeuesTheJob) {
  SubmitRequest no_requeue = Request(2);
  no_requeue.requeue = false;
  const uint64_t a = Submit(Request(2));
  const uint64_t b = Submit(no_requeue);
  FailLaunches(Schedule(), Lifecycle::LaunchBlame::kNode);

  EXPECT_EQ(StateOf(a), JobState::kPending);
  EXPECT_EQ(core_->Find(a)->restart_count, 1);
  EXPECT_TRUE(core_->Find(a)->nodes.empty());
  EXPECT_EQ(StateOf(b), JobState::kNodeFail);
  EXPECT_EQ(store_[b].state, JobState::kNodeFail);
  for (const char* name : {"n1", "n2"}) {
    EXPECT_TRUE(NodeNamed(name).drain) << name;
    EXPECT_EQ(NodeNamed(name).reason, "batch job launch failure") << name;
    EXPECT_EQ(NodeNamed(name).alloc_cpus, 0) << name;
  }
  // A launch that timed out may have started: both copies are told to stop.
  std::sort(terminated_.begin(), terminated_.end());
  EXPECT_EQ(terminated_, (std::vector<uint64_t>{a, b}));
  // Drained nodes take nothing more.
  Schedule();
  EXPECT_EQ(StateOf(a), JobState::kPending);
}

// The node's Prolog failed: Slurm drains the node ("Prolog error") and
// requeues the job held; a failed Epilog drains the node and the job's result
// stands.
TEST_F(LaunchFailureTest, NodeScriptFailuresDrainTheNode) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  NodeRunReport prolog{id, true, 0, 0, "Prolog error on n1: exit code 1: no scratch"};
  prolog.prolog_error = "exit code 1: no scratch";
  Drive(Store(core_->JobComplete(node, prolog, now_)));
  EXPECT_EQ(StateOf(id), JobState::kPending);
  EXPECT_TRUE(core_->Find(id)->held);
  EXPECT_EQ(core_->Find(id)->reason, "launch failed requeued held");
  EXPECT_EQ(store_[id].restart_count, 1);
  EXPECT_TRUE(NodeNamed(node).drain);
  EXPECT_EQ(NodeNamed(node).reason, "Prolog error");

  const uint64_t other = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(other), JobState::kRunning);
  const std::string other_node = core_->Find(other)->nodes.front();
  ASSERT_NE(other_node, node);
  NodeRunReport epilog{other, true, 0, 0, ""};
  epilog.epilog_error = "exit code 2";
  Drive(Store(core_->JobComplete(other_node, epilog, now_)));
  EXPECT_EQ(StateOf(other), JobState::kCompleted);
  EXPECT_TRUE(NodeNamed(other_node).drain);
  EXPECT_EQ(NodeNamed(other_node).reason, "Epilog error");
}

// A multi-node job's batch host reports the Epilog's failures on its other
// nodes with the job's end: each of those drains, the batch host does not.
TEST_F(LaunchFailureTest, EpilogFailuresOnAMultiNodeJobsOtherNodesDrainThem) {
  SubmitRequest wide = Request(2);
  wide.min_nodes = 2;
  const uint64_t id = Submit(wide);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::vector<std::string> nodes = core_->Find(id)->nodes;
  ASSERT_EQ(nodes.size(), 2u);
  NodeRunReport end{id, true, 0, 0, ""};
  end.node_epilog_errors = {{nodes[1], "exit code 3: no scratch"}, {"elsewhere", "exit code 1"}};
  Drive(Store(core_->JobComplete(nodes[0], end, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  EXPECT_FALSE(NodeNamed(nodes[0]).drain);
  EXPECT_TRUE(NodeNamed(nodes[1]).drain);
  EXPECT_EQ(NodeNamed(nodes[1]).reason, "Epilog error");
}

TEST_F(LaunchFailureTest, AJobWhoseLaunchKeepsFailingIsHeldAfterMaxBatchRequeue) {
  const uint64_t id = Submit(Request(2));
  for (int attempt = 0; attempt <= Lifecycle::kMaxBatchRequeue; ++attempt) {
    std::vector<NodeChange> changes;
    Store(core_->UpdateNodes({"n1", "n2"}, "RESUME", "", 0, now_, &changes));
    FailLaunches(Schedule(), Lifecycle::LaunchBlame::kNode);
    ASSERT_EQ(StateOf(id), JobState::kPending) << attempt;
  }
  EXPECT_TRUE(core_->Find(id)->held);
  EXPECT_EQ(core_->Find(id)->reason, "launch failed requeued held");
  EXPECT_EQ(core_->Find(id)->reason_detail, "launch failure limit exceeded requeued held");
}

TEST_F(LaunchFailureTest, AJobsOwnLaunchFailureFailsItAndLeavesTheNodeInService) {
  const uint64_t id = Submit(Request(2));
  FailLaunches(Schedule(), Lifecycle::LaunchBlame::kJob);
  EXPECT_EQ(StateOf(id), JobState::kFailed);
  EXPECT_FALSE(NodeNamed("n1").drain);
  EXPECT_FALSE(NodeNamed("n2").drain);
}

// Fencing: a run its shepherd killed when the lease ran out is requeued; the end
// of an earlier run, reported again once the job runs anew, changes nothing.
TEST_F(LifecycleTest, AFencedRunIsRequeuedAndAnEarlierRunsEndIsIgnored) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  NodeRunReport fenced{id, true, 0, 9, "fenced: ...", true, 1};
  Drive(Store(core_->JobComplete(node, fenced, now_)));
  EXPECT_EQ(core_->Find(id)->restart_count, 1);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string again = core_->Find(id)->nodes.front();
  Store(core_->JobComplete(again, fenced, now_));  // run 1's end, sent again
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  Drive(Store(core_->JobComplete(again, {id, true, 0, 0, "", false, 2}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
}

// A run whose cgroup saw an OOM kill ends OUT_OF_MEMORY, whatever its exit code.
TEST_F(LifecycleTest, AnOomKilledRunEndsOutOfMemory) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  Drive(Store(core_->JobComplete(node, {id, true, 0, 0, "", false, 1, true}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kOutOfMemory);
}

TEST_F(LifecycleTest, IllegalReportsChangeNothing) {
  const uint64_t id = Submit(Request());
  const std::string before = Fingerprint(*core_);
  // A completion from a node the job does not run on, for a pending job.
  absl::StatusOr<Effects> stray = core_->JobComplete("n2", {id, true, 0, 0, ""}, now_);
  ASSERT_TRUE(stray.ok());
  EXPECT_TRUE(stray->rows.empty());
  core_->Confirm();
  // Stale prolog/launch/epilog reports for a job in another state.
  Store(core_->PrologDone(id, 0, {true, true, "", 1}, now_));
  Store(core_->LaunchDone(id, 0, absl::OkStatus(), now_));
  Store(core_->EpilogDone(id, {true, true, "", 1}, now_));
  EXPECT_EQ(Fingerprint(*core_), before);
}

}  // namespace
}  // namespace skiff::ctld
