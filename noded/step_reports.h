// Step reports on their way to ctld: the step manager (NodedService::RunStep)
// pushes a step when it starts and when it ends; the NodeAgent sends what is
// queued in batches (NodeService.ReportSteps) and puts a batch back when ctld
// did not take it. ctld is told after the fact, never asked (seed 003).
//
// Kept in memory only: reports queued when noded stops are lost (the steps'
// records then stay as last reported, and sacct settles a RUNNING one when
// its job ends). At most kMaxQueued wait; beyond that the oldest are dropped
// with a count, so a long ctld outage cannot grow noded without bound.
//
// Thread-safe.
#ifndef SKIFF_NODED_STEP_REPORTS_H_
#define SKIFF_NODED_STEP_REPORTS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff::noded {

class StepReportQueue {
 public:
  static constexpr size_t kMaxQueued = 100000;

  // Called (without the queue's lock) after each Push: the agent's Wake.
  void SetWake(std::function<void()> wake);
  void Push(uint64_t job_id, v1::AcctStep step);
  // Up to `max` reports, oldest first, removed from the queue.
  std::vector<v1::StepReport> Take(size_t max);
  // A batch ctld did not take goes back in front, in its order.
  void Return(std::vector<v1::StepReport> reports);
  size_t size();
  // Reports dropped because the queue was full.
  uint64_t dropped();

 private:
  void TrimLocked();

  std::mutex mu_;
  std::deque<v1::StepReport> queue_;
  uint64_t dropped_ = 0;
  std::function<void()> wake_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEP_REPORTS_H_
