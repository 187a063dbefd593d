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
