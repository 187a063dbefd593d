// Burst-buffer stages through the core.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

// Burst buffers: a teardown that failed is retried from its own field, and the
// job's end time (what accounting reports) is never touched by the retries.
class LifecycleBbTest : public LifecycleTest {
 protected:
  LifecycleBbTest() : LifecycleTest({false, false, &bb_config_, false, 0}) {}
  BurstBufferConfig bb_config_;
};

TEST_F(LifecycleBbTest, TeardownRetriesKeepTheEndTime) {
  SubmitRequest request = Request();
  request.burst_buffer = "#BB_LUA stage_in";
  const uint64_t id = Submit(request);
  ASSERT_TRUE(core_->Find(id)->UsesBurstBuffer());
  Drive(Schedule());  // stage-in
  Drive(Schedule());  // pre-run, launch
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  now_ += 50;
  Effects exited = Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_));
  // post-run, stage-out, then a teardown that fails.
  ASSERT_EQ(exited.intents.size(), 1u);
  BbStageResult ok;
  Effects post_run = Store(core_->BbStageDone(id, BbStage::kPostRun, ok, now_));
  EXPECT_EQ(core_->Find(id)->bb_state, BbState::kStagingOut);
  EXPECT_EQ(StateOf(id), JobState::kCompleting);
  ASSERT_EQ(post_run.intents.size(), 1u);
  Effects staged_out = Store(core_->BbStageDone(id, BbStage::kStageOut, ok, now_));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  const int64_t end_time = core_->Find(id)->end_time;
  BbStageResult failed;
  failed.ok = false;
  failed.error = "burst_buffer/lua: job_teardown failed: busy";
  Store(core_->BbStageDone(id, BbStage::kTeardown, failed, now_));
  EXPECT_EQ(core_->Find(id)->bb_state, BbState::kTeardownFail);
  EXPECT_TRUE(Store(core_->RetryBbTeardowns(now_ + 30)).intents.empty()) << "not yet";
  Effects retry = Store(core_->RetryBbTeardowns(now_ + 61));
  ASSERT_EQ(retry.intents.size(), 1u);
  EXPECT_EQ(core_->Find(id)->end_time, end_time);
  EXPECT_EQ(store_[id].end_time, end_time);
  (void)staged_out;
}

}  // namespace
}  // namespace skiff::ctld
