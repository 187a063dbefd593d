// The sattach clients of one running step. Each watcher gets a copy of the
// step's output, task ends and last message from the moment it attaches (as
// Slurm's sattach: no history), without ever slowing the step: a watcher that
// falls more than `max_buffered_bytes` behind is dropped and told so, since
// srun, not sattach, is the step's owner.
//
// Thread-safe: the step's reader threads Publish, its finisher Closes, and
// each AttachStep call reads its own Watcher (one thread per watcher).
#ifndef SKIFF_NODED_STEPS_STEP_WATCHERS_H_
#define SKIFF_NODED_STEPS_STEP_WATCHERS_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "proto/noded.pb.h"

namespace skiff::noded {

enum class WatchEvent {
  kMessage,     // *out holds the next message
  kEnded,       // the step ended and every message before its end was read
  kOverflowed,  // the watcher fell too far behind and was dropped
  kTimeout,     // nothing within the wait
};

class StepWatchers {
 public:
  class Watcher {
   public:
    // The next message, waiting up to `wait` for one.
    WatchEvent Next(std::chrono::milliseconds wait, v1::StepOutput* out);

   private:
    friend class StepWatchers;
    explicit Watcher(StepWatchers* owner) : owner_(owner) {}
    StepWatchers* owner_;
    std::deque<v1::StepOutput> queue_;  // under owner_->mu_
    size_t queued_bytes_ = 0;           // under owner_->mu_
    bool overflowed_ = false;           // under owner_->mu_
  };

  explicit StepWatchers(size_t max_buffered_bytes) : max_buffered_bytes_(max_buffered_bytes) {}
  StepWatchers(const StepWatchers&) = delete;
  StepWatchers& operator=(const StepWatchers&) = delete;

  // A new watcher; nullptr once the step has ended.
  std::shared_ptr<Watcher> Attach();
  // The watcher stops getting copies (its sattach went away).
  void Detach(const std::shared_ptr<Watcher>& watcher);
  // A copy of `out` to every watcher.
  void Publish(const v1::StepOutput& out);
  // The step ended: watchers read what is queued, then kEnded.
  void Close();
  size_t size() const;

 private:
  const size_t max_buffered_bytes_;
  mutable std::mutex mu_;
  std::condition_variable changed_;                 // with mu_: a message queued, or closed
  std::vector<std::shared_ptr<Watcher>> watchers_;  // under mu_
  bool closed_ = false;                             // under mu_
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_WATCHERS_H_
