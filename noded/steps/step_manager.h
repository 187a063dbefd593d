// The step managers of the jobs whose first node this is (seed 003: step
// management in user space). Each job's allocation, as ctld launched it, is a
// StepPool; srun's steps are carved from it here, without a round trip to ctld.
//
// Threads: every method may be called from any thread (gRPC's); one mutex
// guards the pools. CreateStep waits on it (a condition) without holding it
// across anything but the pure pool calls.
#ifndef SKIFF_NODED_STEPS_STEP_MANAGER_H_
#define SKIFF_NODED_STEPS_STEP_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "noded/steps/step_pool.h"

namespace skiff {

struct StepGrant {
  uint32_t step_id = 0;
  StepShare share;
  std::vector<StepNode> nodes;  // the job's allocation (share.nodes index into it)
};

class StepManager {
 public:
  // Step ids come from `next_id` (noded: JobManager::NextStepId, kept in the
  // job's directory so that a restarted noded never reuses one), called
  // outside the lock; without it, or when it fails, they are counted here from 0.
  explicit StepManager(std::function<absl::StatusOr<uint32_t>(uint64_t)> next_id = nullptr)
      : next_id_(std::move(next_id)) {}

  // Creates a step of job `job_id` whose allocation is `nodes` (used the first
  // time the job is seen). Waits while other steps hold what it needs, unless
  // `immediate`; `waiting` is called once, with Slurm's reason, when it has to
  // wait; `give_up` is polled while waiting (the caller left, the job ended).
  // Errors carry Slurm's text: FailedPrecondition for a step the job can never
  // hold ("More processors requested than permitted"), Unavailable for a busy
  // one with `immediate` or when `give_up` said so.
  absl::StatusOr<StepGrant> CreateStep(uint64_t job_id, const std::vector<StepNode>& nodes,
                                       const StepAsk& ask, bool immediate,
                                       const std::function<void(const std::string&)>& waiting,
                                       const std::function<bool()>& give_up);
  // Returns what the step held; waiting steps may then start.
  void EndStep(uint64_t job_id, const StepGrant& grant);
  // Forgets the pools of jobs with no step running that `running` says have
  // ended here (called after each step, so pools do not outlive their jobs).
  // `running` is called without the lock held.
  void ForgetEndedJobs(const std::function<bool(uint64_t)>& running);

  // Steps running now in `job_id`, and the jobs with a pool (tests).
  int RunningSteps(uint64_t job_id);
  size_t Pools();

 private:
  struct JobSteps {
    explicit JobSteps(std::vector<StepNode> nodes) : pool(std::move(nodes)) {}
    StepPool pool;
    uint32_t next_step_id = 0;
    int running = 0;
  };

  const std::function<absl::StatusOr<uint32_t>(uint64_t)> next_id_;
  absl::Mutex mu_;
  std::map<uint64_t, std::unique_ptr<JobSteps>> jobs_ ABSL_GUARDED_BY(mu_);
  uint64_t releases_ ABSL_GUARDED_BY(mu_) = 0;  // bumped by EndStep: waiters re-plan
};

}  // namespace skiff

#endif  // SKIFF_NODED_STEPS_STEP_MANAGER_H_
