// The step managers of the jobs whose first node this is (seed 003: step
// management in user space). Each job's allocation, as ctld launched it, is a
// StepPool; srun's steps are carved from it here, without a round trip to ctld.
// Each running step is also reachable here, with its grant, for as long as it
// holds it: its handle (the StepRun that RunStep drives) for signals, scancel
// N.S and sattach's stdin, and its watchers (sattach's copies of its output).
//
// Threads: every method may be called from any thread (gRPC's). `mu_` guards
// the pools and which steps run; CreateStep waits on it (a condition) without
// holding it across anything but the pure pool calls. A running step's handle
// is used under that step's own mutex (LiveEntry::mu), never with `mu_` held
// (the two are never held together), so a signal blocked on a node's stream
// holds up that step's end only, not other steps or jobs.
#ifndef SKIFF_NODED_STEPS_STEP_MANAGER_H_
#define SKIFF_NODED_STEPS_STEP_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "noded/steps/step_pool.h"

namespace skiff::v1 {
class TaskInput;  // proto/noded.proto
}  // namespace skiff::v1

namespace skiff::noded {

class StepWatchers;  // noded/steps/step_watchers.h

struct StepGrant {
  uint32_t step_id = 0;
  StepShare share;
  std::vector<StepNode> nodes;  // the job's allocation (share.nodes index into it)
};

// The step's nodes, (name, noded address) in the grant's order.
std::vector<std::pair<std::string, std::string>> StepNodeAddresses(const StepGrant& grant);
// How many tasks the step runs, on all its nodes.
int StepTaskCount(const StepGrant& grant);

// How the service acts on a running step: its StepRun (noded/steps/step_run.h).
class StepHandle {
 public:
  virtual ~StepHandle() = default;
  // To every task on every node.
  virtual void Signal(int sig) = 0;
  // scancel N.S: SIGKILL to every task, and the step's record says CANCELLED.
  virtual void Cancel() = 0;
  // stdin (all tasks' or one task's) to every node.
  virtual void Input(const v1::TaskInput& input) = 0;
};

// A running step as StepManager::FindLive copies it out.
struct LiveStep {
  StepGrant grant;
  std::shared_ptr<StepWatchers> watchers;  // sattach's copies of its output
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
  // The step of `grant` runs: until EndStep it is found by FindLive, reached
  // by ActOnLive and signalled by SignalLive. `handle` must stay valid until
  // EndStep returns; `watchers` are shared with the step's RunStep call.
  // REQUIRES: `grant` came from CreateStep for `job_id` and has not ended.
  void AddLive(uint64_t job_id, const StepGrant& grant, StepHandle* handle,
               std::shared_ptr<StepWatchers> watchers);
  // Returns what the step held (waiting steps may then start) and makes it
  // unreachable: once EndStep returns, no call reaches its handle (it waits
  // for one under way).
  void EndStep(uint64_t job_id, const StepGrant& grant);

  // A running step's grant and watchers; nullopt when none runs (or it was
  // never added).
  std::optional<LiveStep> FindLive(uint64_t job_id, uint32_t step_id);
  // Calls `act` with the running step's handle, which stays valid for the
  // call; false (and no call) when no such step runs. `act` must not call
  // into this StepManager.
  bool ActOnLive(uint64_t job_id, uint32_t step_id, const std::function<void(StepHandle&)>& act);
  // `sig` to every running step of `job_id`; returns how many were signalled.
  int SignalLive(uint64_t job_id, int sig);

  // Forgets the pools of jobs with no step running that `running` says have
  // ended here (called after each step, so pools do not outlive their jobs).
  // `running` is called without the lock held.
  void ForgetEndedJobs(const std::function<bool(uint64_t)>& running);

  // Steps running now in `job_id`, and the jobs with a pool (tests).
  int RunningSteps(uint64_t job_id);
  size_t Pools();

 private:
  // One running step. Shared between the job's map and the callers acting on
  // it, so that its handle is used without `mu_` held.
  struct LiveEntry {
    LiveEntry(StepGrant g, std::shared_ptr<StepWatchers> w, StepHandle* h)
        : grant(std::move(g)), watchers(std::move(w)), handle(h) {}
    const StepGrant grant;
    const std::shared_ptr<StepWatchers> watchers;
    absl::Mutex mu;  // held while the handle is used; EndStep takes it to drop it
    StepHandle* handle ABSL_GUARDED_BY(mu);  // null once the step ended
  };

  struct JobSteps {
    explicit JobSteps(std::vector<StepNode> nodes) : pool(std::move(nodes)) {}
    StepPool pool;
    uint32_t next_step_id = 0;
    int running = 0;
    // The running steps added by AddLive, by step id (a subset of `running`,
    // so a job with one is never replaced or forgotten).
    std::map<uint32_t, std::shared_ptr<LiveEntry>> live;
  };

  std::shared_ptr<LiveEntry> LiveEntryOf(uint64_t job_id, uint32_t step_id);

  const std::function<absl::StatusOr<uint32_t>(uint64_t)> next_id_;
  absl::Mutex mu_;
  std::map<uint64_t, std::unique_ptr<JobSteps>> jobs_ ABSL_GUARDED_BY(mu_);
  uint64_t releases_ ABSL_GUARDED_BY(mu_) = 0;  // bumped by EndStep: waiters re-plan
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_MANAGER_H_
