#include "noded/steps/step_manager.h"

#include <signal.h>

#include <atomic>
#include <thread>

#include "gtest/gtest.h"
#include "noded/steps/step_watchers.h"

namespace skiff::noded {
namespace {

std::vector<StepNode> OneNode() { return {{"n1", "h:1", 2, 1000, {0}}}; }

StepAsk OneTask() {
  StepAsk ask;
  ask.ntasks = 1;
  return ask;
}

StepAsk OverlappingTask() {
  StepAsk ask = OneTask();
  ask.overlap = true;
  return ask;
}

std::vector<StepNode> TwoNodes() {
  return {{"n1", "h:1", 2, 1000, {}}, {"n2", "h:2", 2, 1000, {}}};
}

// A running step's StepRun as the tests see it: what reached it.
class FakeHandle final : public StepHandle {
 public:
  void Signal(int sig) override { signals.push_back(sig); }
  void Cancel() override { ++cancels; }
  void Input(const v1::TaskInput&) override { ++inputs; }
  std::vector<int> signals;
  int cancels = 0;
  int inputs = 0;
};

absl::StatusOr<StepGrant> Create(StepManager& manager, uint64_t job_id,
                                 const std::vector<StepNode>& nodes, const StepAsk& ask) {
  return manager.CreateStep(
      job_id, nodes, ask, true, [](const std::string&) {}, [] { return false; });
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

TEST(StepManagerLive, ARunningStepIsFoundWithItsAllocationUntilItEnds) {
  StepManager manager;
  StepAsk ask;
  ask.ntasks = 3;
  absl::StatusOr<StepGrant> grant = Create(manager, 7, TwoNodes(), ask);
  ASSERT_TRUE(grant.ok());
  EXPECT_FALSE(manager.FindLive(7, grant->step_id)) << "created, not yet running";
  FakeHandle handle;
  auto watchers = std::make_shared<StepWatchers>(1024);
  manager.AddLive(7, *grant, &handle, watchers);

  std::optional<LiveStep> live = manager.FindLive(7, grant->step_id);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->grant.step_id, grant->step_id);
  EXPECT_EQ(live->watchers, watchers);
  EXPECT_EQ(StepTaskCount(live->grant), 3);
  const std::vector<std::pair<std::string, std::string>> nodes = {{"n1", "h:1"}, {"n2", "h:2"}};
  EXPECT_EQ(StepNodeAddresses(live->grant), nodes);
  EXPECT_FALSE(manager.FindLive(7, grant->step_id + 1));
  EXPECT_FALSE(manager.FindLive(8, grant->step_id));

  EXPECT_TRUE(manager.ActOnLive(7, grant->step_id, [](StepHandle& step) { step.Cancel(); }));
  EXPECT_EQ(handle.cancels, 1);

  manager.EndStep(7, *grant);
  EXPECT_FALSE(manager.FindLive(7, grant->step_id));
  EXPECT_FALSE(manager.ActOnLive(7, grant->step_id, [](StepHandle& step) { step.Cancel(); }));
  EXPECT_EQ(manager.SignalLive(7, SIGTERM), 0);
  EXPECT_EQ(handle.cancels, 1);
  EXPECT_TRUE(handle.signals.empty());
  EXPECT_EQ(manager.RunningSteps(7), 0) << "its resources went back with it";
}

TEST(StepManagerLive, SignallingAJobReachesEveryRunningStepOfThatJobOnly) {
  StepManager manager;
  absl::StatusOr<StepGrant> a = Create(manager, 7, OneNode(), OverlappingTask());
  absl::StatusOr<StepGrant> b = Create(manager, 7, OneNode(), OverlappingTask());
  absl::StatusOr<StepGrant> other = Create(manager, 8, OneNode(), OverlappingTask());
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  FakeHandle step_a, step_b, step_other;
  manager.AddLive(7, *a, &step_a, nullptr);
  manager.AddLive(7, *b, &step_b, nullptr);
  manager.AddLive(8, *other, &step_other, nullptr);

  EXPECT_EQ(manager.SignalLive(7, SIGUSR1), 2);
  EXPECT_EQ(step_a.signals, std::vector<int>{SIGUSR1});
  EXPECT_EQ(step_b.signals, std::vector<int>{SIGUSR1});
  EXPECT_TRUE(step_other.signals.empty());

  manager.EndStep(7, *a);
  EXPECT_EQ(manager.SignalLive(7, SIGUSR2), 1);
  EXPECT_EQ(step_a.signals, std::vector<int>{SIGUSR1}) << "ended: not reached";
  EXPECT_EQ(step_b.signals, (std::vector<int>{SIGUSR1, SIGUSR2}));
  EXPECT_EQ(manager.SignalLive(9, SIGUSR1), 0) << "no such job";
}

}  // namespace
}  // namespace skiff::noded
