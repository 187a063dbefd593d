#include "noded/step_reports.h"

#include <utility>

namespace skiff::noded {

void StepReportQueue::SetWake(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  wake_ = std::move(wake);
}

void StepReportQueue::Push(uint64_t job_id, v1::AcctStep step) {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    v1::StepReport report;
    report.set_job_id(job_id);
    *report.mutable_step() = std::move(step);
    queue_.push_back(std::move(report));
    TrimLocked();
    wake = wake_;
  }
  if (wake) wake();
}

std::vector<v1::StepReport> StepReportQueue::Take(size_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<v1::StepReport> out;
  while (!queue_.empty() && out.size() < max) {
    out.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return out;
}

void StepReportQueue::Return(std::vector<v1::StepReport> reports) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = reports.rbegin(); it != reports.rend(); ++it) queue_.push_front(std::move(*it));
  TrimLocked();
}

size_t StepReportQueue::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

uint64_t StepReportQueue::dropped() {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void StepReportQueue::TrimLocked() {
  while (queue_.size() > kMaxQueued) {
    queue_.pop_front();
    ++dropped_;
  }
}

}  // namespace skiff::noded
