// A fixed pool of threads running queued tasks: ctld's "act outside the lock"
// half. Tasks may block (RPCs to noded and scriptd); the pool is sized so that a
// few slow ones do not stall the rest. Destruction drains nothing: it stops the
// threads after their current task and drops what is queued.
#ifndef SKIFF_CTLD_WORK_QUEUE_H_
#define SKIFF_CTLD_WORK_QUEUE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff {

class WorkQueue {
 public:
  explicit WorkQueue(int threads);
  ~WorkQueue();

  void Post(std::function<void()> task);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace skiff

#endif  // SKIFF_CTLD_WORK_QUEUE_H_
