// A scheduling pass in three steps, so that the planning, the long part, runs
// without the Controller's lock: Lifecycle::PrepareSchedule copies a PassInput
// out under the lock, PlanPass (here: pure, no state) turns it into a
// PassPlan, and Lifecycle::ApplySchedule re-checks and applies the plan under
// the lock again.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_SCHEDULE_PASS_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_SCHEDULE_PASS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ctld/core/job.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/core/scheduler/preempt.h"
#include "ctld/core/scheduler/scheduler.h"

namespace skiff::ctld {

// What a scheduling pass plans on: copied out under the lock, planned on without it.
struct PassInput {
  CtldSnapshot snapshot;
  std::unordered_map<uint64_t, uint64_t> versions;  // pending job id -> version planned on
  std::vector<uint64_t> leaving;                    // running jobs already being stopped
};

// What a scheduling pass decided (PlanPass, without the lock).
struct PassPlan {
  ScheduleResult result;
  std::vector<int64_t> priorities;    // parallel to PassInput::snapshot.pending
  std::vector<Job::Factors> factors;  // parallel to PassInput::snapshot.pending
  bool estimates = false;             // expected_start below is fresh (backfill ran)
  std::unordered_map<uint64_t, int64_t> expected_start;
  std::unordered_map<uint64_t, std::string> sched_nodes;  // with expected_start: where
  struct Victim {
    uint64_t job_id = 0;
    bool requeue = false;
    int64_t grace_time = 0;
  };
  std::vector<Victim> victims;
  uint64_t preemptor = 0;
  // sdiag's view of the pass (SchedulePlan's statistics); nothing decides on them.
  struct Stats {
    int32_t main_tested = 0;
    int32_t backfill_tested = 0;
    int32_t backfill_tried = 0;
    int32_t backfill_queue = 0;
    int64_t backfill_micros = 0;
  } stats;
};

// The plan for `input`, made without the Controller's lock. `options.backfill`
// says whether backfill (and so the start estimates) runs this pass. `timer`,
// when given, times backfill for sdiag (scheduler.h).
PassPlan PlanPass(const PassInput& input, const SchedulerOptions& options,
                  const PreemptOptions& preempt, int64_t now, const PhaseTimer* timer = nullptr);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_SCHEDULE_PASS_H_
