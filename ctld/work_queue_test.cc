#include "ctld/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace skiff::ctld {
namespace {

// Records what ran, in order, and wakes a waiter.
class Ran {
 public:
  void Add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    ran_.push_back(what);
    cv_.notify_all();
  }
  // Waits (up to 60 s) until `count` tasks have run.
  std::vector<std::string> WaitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(60), [&] { return ran_.size() >= count; });
    return ran_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> ran_;
};

TEST(WorkQueueTest, ADelayedTaskRunsAfterItsDelayAndHoldsNoThreadUntilThen) {
  Ran ran;
  WorkQueue queue(1);
  const auto posted = std::chrono::steady_clock::now();
  queue.PostAfter(std::chrono::milliseconds(300), [&] { ran.Add("later"); });
  // The only thread is free meanwhile: a plain task runs first.
  queue.Post([&] { ran.Add("now"); });
  EXPECT_EQ(ran.WaitFor(2), (std::vector<std::string>{"now", "later"}));
  EXPECT_GE(std::chrono::steady_clock::now() - posted, std::chrono::milliseconds(300));
}

TEST(WorkQueueTest, DelayedTasksRunInTheOrderTheyAreDue) {
  Ran ran;
  WorkQueue queue(1);  // one thread: each runs when the last has
  queue.PostAfter(std::chrono::milliseconds(400), [&] { ran.Add("third"); });
  queue.PostAfter(std::chrono::milliseconds(200), [&] { ran.Add("second"); });
  queue.PostAfter(std::chrono::milliseconds(0), [&] { ran.Add("first"); });
  EXPECT_EQ(ran.WaitFor(3), (std::vector<std::string>{"first", "second", "third"}));
}

TEST(WorkQueueTest, DestructionDropsATaskThatIsNotDueYet) {
  std::atomic<bool> ran{false};
  {
    WorkQueue queue(1);
    queue.PostAfter(std::chrono::hours(1), [&] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

TEST(WorkQueueTest, LoadCountsRunningAndWaitingTasks) {
  std::mutex gate;
  std::unique_lock<std::mutex> hold(gate);
  Ran ran;
  WorkQueue queue(1);
  queue.Post([&] {
    ran.Add("started");
    std::lock_guard<std::mutex> wait(gate);  // blocks until the test lets go
  });
  queue.Post([] {});
  queue.PostAfter(std::chrono::hours(1), [] {});
  ran.WaitFor(1);
  const WorkQueue::Load load = queue.load();
  EXPECT_EQ(load.running, 1);
  EXPECT_EQ(load.waiting, 2u);
  hold.unlock();
}

}  // namespace
}  // namespace skiff::ctld
