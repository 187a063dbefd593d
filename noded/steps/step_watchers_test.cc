#include "noded/steps/step_watchers.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

using std::chrono::milliseconds;

v1::StepOutput Data(int task, const std::string& text) {
  v1::StepOutput out;
  out.set_task_id(task);
  out.set_data(text);
  return out;
}

TEST(StepWatchersTest, AWatcherSeesOnlyWhatIsPublishedAfterItAttaches) {
  StepWatchers watchers(1 << 20);
  watchers.Publish(Data(0, "before\n"));
  auto watcher = watchers.Attach();
  ASSERT_NE(watcher, nullptr);
  v1::StepOutput out;
  EXPECT_EQ(watcher->Next(milliseconds(0), &out), WatchEvent::kTimeout);
  watchers.Publish(Data(1, "after\n"));
  ASSERT_EQ(watcher->Next(milliseconds(0), &out), WatchEvent::kMessage);
  EXPECT_EQ(out.task_id(), 1);
  EXPECT_EQ(out.data(), "after\n");
}

TEST(StepWatchersTest, EveryWatcherGetsItsOwnCopyInOrder) {
  StepWatchers watchers(1 << 20);
  auto a = watchers.Attach();
  auto b = watchers.Attach();
  watchers.Publish(Data(0, "one"));
  watchers.Publish(Data(0, "two"));
  for (auto* w : {a.get(), b.get()}) {
    v1::StepOutput out;
    ASSERT_EQ(w->Next(milliseconds(0), &out), WatchEvent::kMessage);
    EXPECT_EQ(out.data(), "one");
    ASSERT_EQ(w->Next(milliseconds(0), &out), WatchEvent::kMessage);
    EXPECT_EQ(out.data(), "two");
  }
}

TEST(StepWatchersTest, AfterCloseAWatcherDrainsThenHearsTheEndAndNoneMayAttach) {
  StepWatchers watchers(1 << 20);
  auto watcher = watchers.Attach();
  watchers.Publish(Data(0, "last"));
  watchers.Close();
  v1::StepOutput out;
  ASSERT_EQ(watcher->Next(milliseconds(0), &out), WatchEvent::kMessage);
  EXPECT_EQ(out.data(), "last");
  EXPECT_EQ(watcher->Next(milliseconds(0), &out), WatchEvent::kEnded);
  EXPECT_EQ(watchers.Attach(), nullptr);
}

TEST(StepWatchersTest, AWatcherThatFallsBehindIsDroppedAndToldWhileOthersKeepUp) {
  StepWatchers watchers(100);
  auto slow = watchers.Attach();
  auto fast = watchers.Attach();
  v1::StepOutput out;
  for (int i = 0; i < 10; ++i) {
    watchers.Publish(Data(0, std::string(20, 'x')));
    ASSERT_EQ(fast->Next(milliseconds(0), &out), WatchEvent::kMessage);
  }
  EXPECT_EQ(slow->Next(milliseconds(0), &out), WatchEvent::kOverflowed);
  EXPECT_EQ(watchers.size(), 1u);
}

TEST(StepWatchersTest, ADetachedWatcherGetsNothingMore) {
  StepWatchers watchers(1 << 20);
  auto watcher = watchers.Attach();
  watchers.Detach(watcher);
  watchers.Publish(Data(0, "x"));
  v1::StepOutput out;
  EXPECT_EQ(watcher->Next(milliseconds(0), &out), WatchEvent::kTimeout);
  EXPECT_EQ(watchers.size(), 0u);
}

}  // namespace
}  // namespace skiff::noded
