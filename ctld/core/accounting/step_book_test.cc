#include "ctld/core/accounting/step_book.h"

#include "gtest/gtest.h"

namespace skiff::ctld {
namespace {

StepRecord Step(const std::string& id, int64_t start, int64_t end) {
  StepRecord step;
  step.step_id = id;
  step.start_time = start;
  step.end_time = end;
  step.state = end == 0 ? "RUNNING" : "COMPLETED";
  return step;
}

TEST(StepRecordKeyTest, SortsByJobThenStepNumberWithNamedStepsLast) {
  EXPECT_EQ(StepRecordKey(42, "3"), "00000000000000000042.0000000003");
  EXPECT_LT(StepRecordKey(42, "9"), StepRecordKey(42, "10"));
  EXPECT_LT(StepRecordKey(42, "10"), StepRecordKey(42, "extern"));
  EXPECT_LT(StepRecordKey(42, "extern"), StepRecordKey(43, "0"));
  const auto [from, to] = StepRecordRange(42);
  for (const std::string id : {"0", "4294967294", "extern"}) {
    EXPECT_LE(from, StepRecordKey(42, id));
    EXPECT_LT(StepRecordKey(42, id), to);
  }
  EXPECT_GE(StepRecordKey(43, "0"), to);
  EXPECT_LT(StepRecordKey(41, "extern"), from);
}

TEST(SettleStepTest, ARunningStepOfAnEndedJobFailedWhenTheJobEnded) {
  const StepRecord lost = SettleStep(Step("0", 100, 0), true, 250);
  EXPECT_EQ(lost.state, "FAILED");
  EXPECT_EQ(lost.end_time, 250);
  EXPECT_EQ(lost.exit_code, 1);
  EXPECT_EQ(SettleStep(Step("0", 100, 0), false, 0).state, "RUNNING");
  EXPECT_EQ(SettleStep(Step("0", 100, 200), true, 250).state, "COMPLETED");
}

TEST(StepBookTest, KeepsRunningStepsUntilTheyEndOrTheirJobDoes) {
  StepBook book;
  book.Apply(1, Step("0", 10, 0));
  book.Apply(1, Step("1", 11, 0));
  book.Apply(2, Step("0", 12, 0));
  EXPECT_EQ(book.size(), 3u);
  book.Apply(1, Step("0", 10, 20));  // ended
  std::set<uint64_t> only1{1};
  auto running = book.Running(&only1);
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].second.step_id, "1");
  EXPECT_EQ(book.Running(nullptr).size(), 2u);
  book.Retain({2});
  running = book.Running(nullptr);
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].first, 2u);
}

}  // namespace
}  // namespace skiff::ctld
