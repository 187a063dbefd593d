#include "noded/steps/step_manager.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace skiff {
namespace {

std::vector<StepNode> OneNode() { return {{"n1", "h:1", 2, 1000, {0}}}; }

StepAsk OneTask() {
  StepAsk ask;
  ask.ntasks = 1;
  return ask;
}

TEST(StepManager, StepsGetIncreasingIdsAndABusyOneWaitsForTheRelease) {
  StepManager manager;
  auto never = [] { return false; };
  absl::StatusOr<StepGrant> first = manager.CreateStep(
      7, OneNode(), OneTask(), false, [](const std::string&) {}, never);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->step_id, 0u);
  EXPECT_EQ(manager.RunningSteps(7), 1);

  absl::StatusOr<StepGrant> busy = manager.CreateStep(
      7, OneNode(), OneTask(), true, [](const std::string&) {}, never);
  EXPECT_EQ(busy.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(busy.status().message(), "Requested nodes are busy");

  std::atomic<bool> told{false};
  std::thread ender([&] {
    while (!told) std::this_thread::yield();
    manager.EndStep(7, *first);
  });
  absl::StatusOr<StepGrant> second = manager.CreateStep(
      7, OneNode(), OneTask(), false, [&](const std::string&) { told = true; }, never);
  ender.join();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->step_id, 1u);
}

TEST(StepManager, WaitingEndsWhenTheCallerGivesUp) {
  StepManager manager;
  auto never = [] { return false; };
  ASSERT_TRUE(manager
                  .CreateStep(
                      7, OneNode(), OneTask(), false, [](const std::string&) {}, never)
                  .ok());
  int polls = 0;
  absl::StatusOr<StepGrant> gone = manager.CreateStep(
      7, OneNode(), OneTask(), false, [](const std::string&) {}, [&] { return ++polls > 2; });
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kUnavailable);
}

TEST(StepManager, AStepTheJobCannotHoldFailsAtOnce) {
  StepManager manager;
  StepAsk ask = OneTask();
  ask.ntasks = 3;
  absl::StatusOr<StepGrant> grant = manager.CreateStep(
      7, OneNode(), ask, false, [](const std::string&) {}, [] { return false; });
  EXPECT_EQ(grant.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(grant.status().message(), "More processors requested than permitted");
}

TEST(StepManager, IdsComeFromTheDurableSourceWhenItAnswers) {
  uint32_t next = 5;
  bool fail = false;
  StepManager manager([&](uint64_t job_id) -> absl::StatusOr<uint32_t> {
    EXPECT_EQ(job_id, 9u);
    if (fail) return absl::NotFoundError("gone");
    return next++;
  });
  auto never = [] { return false; };
  StepAsk overlap = OneTask();
  overlap.overlap = true;
  absl::StatusOr<StepGrant> a = manager.CreateStep(
      9, OneNode(), overlap, false, [](const std::string&) {}, never);
  absl::StatusOr<StepGrant> b = manager.CreateStep(
      9, OneNode(), overlap, false, [](const std::string&) {}, never);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->step_id, 5u);
  EXPECT_EQ(b->step_id, 6u);
  fail = true;
  absl::StatusOr<StepGrant> c = manager.CreateStep(
      9, OneNode(), overlap, false, [](const std::string&) {}, never);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->step_id, 2u);  // counted here
}

TEST(StepManager, ThePoolsOfEndedJobsAreForgotten) {
  StepManager manager;
  auto never = [] { return false; };
  absl::StatusOr<StepGrant> done = manager.CreateStep(
      7, OneNode(), OneTask(), false, [](const std::string&) {}, never);
  absl::StatusOr<StepGrant> busy = manager.CreateStep(
      8, OneNode(), OneTask(), false, [](const std::string&) {}, never);
  ASSERT_TRUE(done.ok() && busy.ok());
  manager.EndStep(7, *done);
  manager.ForgetEndedJobs([](uint64_t) { return false; });  // both jobs ended
  EXPECT_EQ(manager.Pools(), 1u) << "job 8 still runs a step";
  manager.EndStep(8, *busy);
  manager.ForgetEndedJobs([](uint64_t id) { return id == 8; });
  EXPECT_EQ(manager.Pools(), 1u) << "job 8 still runs";
  manager.ForgetEndedJobs([](uint64_t) { return false; });
  EXPECT_EQ(manager.Pools(), 0u);
}

}  // namespace
}  // namespace skiff
