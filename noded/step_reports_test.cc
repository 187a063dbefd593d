#include "noded/step_reports.h"

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

v1::AcctStep Step(const std::string& id) {
  v1::AcctStep step;
  step.set_step_id(id);
  return step;
}

TEST(StepReportQueueTest, TakesInOrderAndPutsAFailedBatchBackInFront) {
  StepReportQueue queue;
  int wakes = 0;
  queue.SetWake([&] { ++wakes; });
  queue.Push(1, Step("0"));
  queue.Push(1, Step("1"));
  queue.Push(2, Step("0"));
  EXPECT_EQ(wakes, 3);
  std::vector<v1::StepReport> batch = queue.Take(2);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1].step().step_id(), "1");
  queue.Push(3, Step("0"));
  queue.Return(std::move(batch));
  batch = queue.Take(10);
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_EQ(batch[0].job_id(), 1u);
  EXPECT_EQ(batch[0].step().step_id(), "0");
  EXPECT_EQ(batch[1].step().step_id(), "1");
  EXPECT_EQ(batch[2].job_id(), 2u);
  EXPECT_EQ(batch[3].job_id(), 3u);
  EXPECT_EQ(queue.size(), 0u);
}

TEST(StepReportQueueTest, DropsTheOldestBeyondItsBound) {
  StepReportQueue queue;
  for (size_t i = 0; i < StepReportQueue::kMaxQueued + 5; ++i) queue.Push(i, Step("0"));
  EXPECT_EQ(queue.size(), StepReportQueue::kMaxQueued);
  EXPECT_EQ(queue.dropped(), 5u);
  EXPECT_EQ(queue.Take(1)[0].job_id(), 5u);
}

}  // namespace
}  // namespace skiff::noded
