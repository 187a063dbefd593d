#include "ctld/work_queue.h"

#include <utility>

namespace skiff::ctld {

WorkQueue::WorkQueue(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void WorkQueue::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void WorkQueue::PostAfter(std::chrono::milliseconds delay, std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    delayed_.emplace(std::chrono::steady_clock::now() + delay, std::move(task));
  }
  // A thread waiting for a later task (or for none) looks at the new one's time.
  cv_.notify_all();
}

WorkQueue::Load WorkQueue::load() {
  std::lock_guard<std::mutex> lock(mu_);
  return {tasks_.size() + delayed_.size(), running_};
}

void WorkQueue::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      for (;;) {
        if (stopping_) return;
        const Due now = std::chrono::steady_clock::now();
        while (!delayed_.empty() && delayed_.begin()->first <= now) {
          tasks_.push_back(std::move(delayed_.begin()->second));
          delayed_.erase(delayed_.begin());
        }
        if (!tasks_.empty()) break;
        if (delayed_.empty()) {
          cv_.wait(lock);
        } else {
          cv_.wait_until(lock, delayed_.begin()->first);
        }
      }
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    task();
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

}  // namespace skiff::ctld
