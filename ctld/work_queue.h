// A fixed pool of threads running queued tasks: ctld's "act outside the lock"
// half. Tasks may block (RPCs to noded and scriptd); the pool is sized so that a
// few slow ones do not stall the rest. A task may also be posted to run after a
// delay (a launch tried again): until then it holds no thread. Destruction
// drains nothing: it stops the threads after their current task and drops what
// is queued or waiting for its time. Thread-safe.
#ifndef SKIFF_CTLD_WORK_QUEUE_H_
#define SKIFF_CTLD_WORK_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff::ctld {

class WorkQueue {
 public:
  explicit WorkQueue(int threads);
  ~WorkQueue();

  void Post(std::function<void()> task);
  // Queues `task` once `delay` has passed (steady clock).
  void PostAfter(std::chrono::milliseconds delay, std::function<void()> task);

  // What it holds now (sdiag's agent statistics).
  struct Load {
    size_t waiting = 0;  // queued for a thread, or waiting for their time
    int running = 0;     // tasks being run (one thread each)
  };
  Load load();

 private:
  using Due = std::chrono::steady_clock::time_point;
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;            // under mu_
  std::multimap<Due, std::function<void()>> delayed_;  // under mu_: by when each is due
  bool stopping_ = false;                              // under mu_
  int running_ = 0;                                    // under mu_
  std::vector<std::thread> threads_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_WORK_QUEUE_H_
