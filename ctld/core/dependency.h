// Job dependencies (sbatch -d / --dependency, scontrol's Dependency= field).
//
// ParseDependency reads Slurm's syntax into a Dependency: terms
//   after:ID[+MIN][:ID[+MIN]...]  afterany:ID[:ID...]  afterok:...  afternotok:...
//   aftercorr:...  afterburstbuffer:...  singleton
// where ID is "123", "123_7" (one array task), "123_*" (a whole array) or
// "123_[1-3,7]" (those tasks), optionally followed by Slurm's "(failed)" or
// "(unfulfilled)" state as scontrol prints it (so FormatRemaining's text parses
// back to the same dependency); a bare "123" item is Slurm's old form of
// afterany:123. Items are joined by ',' (all must hold) or '?' (any one); mixing
// both is an error (Slurm: "Only one separator may be used"). Type names are
// case-insensitive; repeated (type, job, task) terms are kept once. "" and "0"
// mean no dependency. Errors are InvalidArgument starting with Slurm's text,
// kDependencyError ("Job dependency problem"), then ": " and the detail.
//
// EvaluateDependency decides each term and the whole from what the caller's
// DependencyLookup reports about the named jobs (Slurm's test_job_dependency):
//   after        the job is no longer PENDING (started, or cancelled) and, with
//                +MIN, MIN minutes have passed since it started (or ended, if it
//                never started); never fails
//   afterany     the job ended in any state (IsFinal); never fails
//   afterok      ended COMPLETED: satisfied; ended otherwise: never satisfied.
//                When this job and the other both use burst buffers it also waits
//                for the other's stage-out to finish
//   afternotok   ended not COMPLETED (FAILED, CANCELLED, TIMEOUT, NODE_FAIL,
//                OUT_OF_MEMORY, PREEMPTED): satisfied; COMPLETED: never satisfied
//   aftercorr    the other array's task with this job's task id, as afterok; when
//                there is no such task (or this job is no array task), afterok on
//                the other job as a whole
//   afterburstbuffer  the job ended and its burst-buffer stage-out is done
//   singleton    no other job of this user with this name is running, or pending
//                with a smaller job id (Slurm's rule; DependencyLookup answers)
// For a whole array (an array's base id, "123" or "123_*") a state means every
// task's: ended = all ended, COMPLETED = all COMPLETED, no longer pending = none
// pending.
// A job id the lookup does not know (never existed, or purged after MinJobAge)
// counts as satisfied at evaluation time, as in Slurm ("job is gone, dependency
// lifted"). At submit, ValidateDependency rejects what Slurm rejects: afterok or
// afternotok on an unknown job, and a job depending on itself.
// Results are sticky as in Slurm: pass the previous results and a term once
// satisfied or never satisfied keeps that result even if the other job is
// requeued. ',': one never-satisfied term makes the whole never satisfied,
// otherwise it waits until all are satisfied. '?': one satisfied term satisfies
// the whole; it is never satisfied once every term is.
//
// FormatRemaining gives scontrol's Dependency= text: satisfied terms dropped,
// the rest as "afterok:15391(unfulfilled)" / "afterok:15391(failed)" joined by
// the separator, "" once the whole is satisfied (scontrol prints "(null)").
//
// Pure: no I/O, no locks, no clock (`now` is an argument). The lookup is the
// caller's, called synchronously from these functions only.
#ifndef SKIFF_CTLD_CORE_DEPENDENCY_H_
#define SKIFF_CTLD_CORE_DEPENDENCY_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ctld/core/array_spec.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

inline constexpr char kDependencyError[] = "Job dependency problem";

enum class DependencyType {
  kAfter,
  kAfterAny,
  kAfterOk,
  kAfterNotOk,
  kAfterCorr,
  kAfterBurstBuffer,
  kSingleton,
};

// "after", "afterany", "afterok", "afternotok", "aftercorr", "afterburstbuffer", "singleton".
const char* DependencyTypeName(DependencyType type);

// Task selectors of a term's job id.
inline constexpr uint32_t kNoTask = UINT32_MAX;        // "123": the job as a whole
inline constexpr uint32_t kAllTasks = UINT32_MAX - 1;  // "123_*": every task of array 123

struct DependencyTerm {
  DependencyType type = DependencyType::kAfterAny;
  uint64_t job_id = 0;         // 0 for singleton
  uint32_t task_id = kNoTask;  // "123_7" -> 7
  int64_t delay = 0;           // seconds; after:ID+MIN only (MIN * 60)
  bool failed = false;         // parsed "(failed)": never satisfied from the start

  bool operator==(const DependencyTerm& o) const {
    return type == o.type && job_id == o.job_id && task_id == o.task_id && delay == o.delay &&
           failed == o.failed;
  }
};

struct Dependency {
  std::vector<DependencyTerm> terms;  // empty = no dependency
  bool any = false;                   // '?' (any one term); false: ',' (all terms)
};

// REQUIRES: 1 <= max_array_size <= kMaxMaxArraySize (bounds "123_[...]" task lists).
absl::StatusOr<Dependency> ParseDependency(const std::string& text,
                                           int64_t max_array_size = kDefaultMaxArraySize);

// The dependency as sbatch would take it back, without states:
// "afterok:15391,after:12+5", "singleton", "afterany:7_*?afterok:8_3".
std::string FormatDependency(const Dependency& dependency);

enum class DependencyResult {
  kWaiting,         // Slurm's "unfulfilled": Reason=Dependency
  kSatisfied,       // "fulfilled"
  kNeverSatisfied,  // "failed": Reason=DependencyNeverSatisfied
};

// "unfulfilled", "fulfilled", "failed".
const char* DependencyResultName(DependencyResult result);

// What ctld knows of one job (or one array task) named in a dependency.
struct DependencyJobStatus {
  JobState state = JobState::kPending;
  int64_t start_time = 0;       // 0 = never started
  int64_t end_time = 0;         // when it ended (or was cancelled); 0 = not ended
  bool burst_buffer = false;    // it asked for a burst buffer
  bool stage_out_done = false;  // its stage-out/teardown finished (or it has no burst buffer)
};

struct DependencyArrayTask {
  uint32_t task_id = 0;
  DependencyJobStatus status;
};

// The answer for one job id.
struct DependencyTarget {
  bool exists = false;                     // false: unknown or purged
  DependencyJobStatus job;                 // a plain job (when `tasks` is empty)
  std::vector<DependencyArrayTask> tasks;  // the id is an array's base id: every task,
                                           // including ones not yet split off (PENDING)
};

// The caller's view of the job table. Implementations must be cheap and must not
// call back into these functions.
class DependencyLookup {
 public:
  virtual ~DependencyLookup() = default;
  // The job `job_id` (a plain job, an array task's own job id, or an array's base id).
  virtual DependencyTarget Find(uint64_t job_id) const = 0;
  // Slurm's singleton rule: is there a job other than `self_id` of user `uid` named
  // `name` that is CONFIGURING, RUNNING or COMPLETING, or PENDING with a job id
  // smaller than `self_id`?
  virtual bool SingletonBlocked(uid_t uid, const std::string& name, uint64_t self_id) const = 0;
};

// The job whose dependency is tested.
struct DependentJob {
  uint64_t id = 0;             // 0 at submit before an id is assigned
  uint64_t array_job_id = 0;   // its array's base id; 0 when not in an array
  uint32_t task_id = kNoTask;  // its array task id (aftercorr); kNoTask when none
  uid_t uid = 0;
  std::string name;           // job name (singleton)
  bool burst_buffer = false;  // it asked for a burst buffer (afterok waits for stage-out)
};

// Submit/update-time checks (Slurm rejects these with "Job dependency problem"):
// afterok/afternotok on a job the lookup does not know, and a term naming the job
// itself (or, for an array task, its own array). Returns the dependency with
// "123" turned into "123_*" where 123 is an array (as Slurm shows it).
absl::StatusOr<Dependency> ValidateDependency(const Dependency& dependency,
                                              const DependentJob& self,
                                              const DependencyLookup& lookup);

struct DependencyEvaluation {
  std::vector<DependencyResult> terms;  // indexed like Dependency::terms
  DependencyResult overall = DependencyResult::kSatisfied;
};

// `previous` (optional, indexed like the terms): results from the last
// evaluation; kSatisfied and kNeverSatisfied are kept as they are.
DependencyEvaluation EvaluateDependency(const Dependency& dependency, const DependentJob& self,
                                        const DependencyLookup& lookup, int64_t now,
                                        const std::vector<DependencyResult>* previous = nullptr);

// scontrol's Dependency= text for `evaluation` of `dependency` ("" = none left).
std::string FormatRemaining(const Dependency& dependency, const DependencyEvaluation& evaluation);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_DEPENDENCY_H_
