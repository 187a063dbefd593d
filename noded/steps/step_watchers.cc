#include "noded/steps/step_watchers.h"

#include <algorithm>

namespace skiff::noded {

std::shared_ptr<StepWatchers::Watcher> StepWatchers::Attach() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return nullptr;
  std::shared_ptr<Watcher> watcher(new Watcher(this));
  watchers_.push_back(watcher);
  return watcher;
}

void StepWatchers::Detach(const std::shared_ptr<Watcher>& watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  watchers_.erase(std::remove(watchers_.begin(), watchers_.end(), watcher), watchers_.end());
}

void StepWatchers::Publish(const v1::StepOutput& out) {
  const size_t bytes = out.ByteSizeLong();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || watchers_.empty()) return;
    for (auto it = watchers_.begin(); it != watchers_.end();) {
      Watcher& w = **it;
      if (w.queued_bytes_ + bytes > max_buffered_bytes_) {
        w.overflowed_ = true;
        w.queue_.clear();
        w.queued_bytes_ = 0;
        it = watchers_.erase(it);
        continue;
      }
      w.queue_.push_back(out);
      w.queued_bytes_ += bytes;
      ++it;
    }
  }
  changed_.notify_all();
}

void StepWatchers::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
}

size_t StepWatchers::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return watchers_.size();
}

WatchEvent StepWatchers::Watcher::Next(std::chrono::milliseconds wait, v1::StepOutput* out) {
  std::unique_lock<std::mutex> lock(owner_->mu_);
  owner_->changed_.wait_for(lock, wait,
                            [&] { return !queue_.empty() || overflowed_ || owner_->closed_; });
  if (overflowed_) return WatchEvent::kOverflowed;
  if (!queue_.empty()) {
    *out = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= std::min(queued_bytes_, static_cast<size_t>(out->ByteSizeLong()));
    return WatchEvent::kMessage;
  }
  return owner_->closed_ ? WatchEvent::kEnded : WatchEvent::kTimeout;
}

}  // namespace skiff::noded
