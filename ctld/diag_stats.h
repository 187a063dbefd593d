// DiagStats: the statistics sdiag prints (Slurm's REQUEST_STATS_INFO), with
// Slurm's meanings: job counters, the scheduler's and backfill's cycle
// statistics, and RPC counts and times by message type and by user, all since
// ctld's start, the last `sdiag --reset` or the last midnight (UTC), whichever
// came last. Times of cycles and RPCs are in microseconds.
//
// Who feeds what:
//   - the Controller, after an event's rows are stored: jobs submitted,
//     started, completed, canceled, failed and backfilled (JobTally, counted
//     by the lifecycle core's TransitionJob);
//   - the scheduler thread: one MainCycle per pass, one BackfillCycle per pass
//     that ran backfill;
//   - the housekeeping thread: SetJobStates every 30 s (Slurm's "Job states ts"),
//     DailyReset;
//   - gRPC's threads, through ctld/rpc/rpc_stats.h: RpcStarted, RpcFinished;
//   - the Controller's threads that call scriptd: ScriptFinished, one per
//     script or burst_buffer.lua hook, by name (ctld/timed_scripts.h);
//   - the Controller, after an event's rows are stored: JobTransitions, from
//     which a job's start and end overheads are timed (Skiff's own section of
//     sdiag, and restd's /metrics: issue 48's per-call figures).
// Thread-safety: every method may be called from any thread. One mutex guards
// all of it but the count of calls in progress (an atomic); it is a leaf
// (nothing is called while it is held) and each method holds it for a few
// field updates or, in Get, a copy of two short lists: no I/O, no allocation
// beyond a first-seen RPC type or user.
#ifndef SKIFF_CTLD_DIAG_STATS_H_
#define SKIFF_CTLD_DIAG_STATS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "ctld/core/lifecycle/effects.h"

namespace skiff::ctld {

// One RPC message type as sdiag names it.
struct RpcType {
  std::string name;  // REQUEST_JOB_INFO, ... (ctld/rpc/rpc_stats.h maps Skiff's RPCs)
  uint32_t id = 0;
};

class DiagStats {
 public:
  // `now`: ctld's start (seconds since the epoch), the first req_time_start.
  explicit DiagStats(int64_t now);

  // ---- jobs
  void JobsSubmitted(uint32_t count);
  // The counters an event's transitions produced (effects.h), once stored.
  void CountJobs(const JobTally& tally);
  // Pending and running jobs as counted at `when` (Slurm recounts every 30 s).
  void SetJobStates(uint32_t pending, uint32_t running, int64_t when);

  // ---- scheduling (the scheduler thread)
  // A pass of the main scheduler: how long it took, how many jobs it tried to
  // place (depth) out of how many it was given (queue length).
  void MainCycle(int64_t micros, uint32_t depth, uint32_t queue_length);
  struct BackfillCycleStats {
    int64_t when = 0;    // seconds since the epoch, at its start
    int64_t micros = 0;  // how long it took
    uint32_t depth = 0;  // jobs it examined
    uint32_t tried = 0;  // of those, jobs it tried to start (Slurm's "try sched")
    uint32_t queue_length = 0;
    uint32_t table_size = 0;
  };
  void BackfillCycle(const BackfillCycleStats& cycle);

  // ---- RPCs (gRPC's threads)
  // A call began being handled: the server thread count goes up until its
  // RpcFinished.
  void RpcStarted();
  // A call ended after `micros`; counted by type and by `uid` when the caller
  // authenticated (`uid` >= 0), not counted otherwise (Slurm counts only the
  // requests it accepted). Ends RpcStarted's count.
  void RpcFinished(const RpcType& type, int64_t uid, int64_t micros);

  // ---- scriptd: one call ended after `micros` (PrologSlurmctld,
  // EpilogSlurmctld, MailProg, "strigger program", or a burst_buffer.lua
  // function's name such as slurm_bb_data_in).
  void ScriptFinished(const std::string& name, int64_t micros);

  // ---- job overheads: what Skiff adds around a job's own run.
  //   start: from its allocation (PENDING -> CONFIGURING) being stored to its
  //          launch on the node being stored (CONFIGURING -> RUNNING): the
  //          burst buffer's pre_run, PrologSlurmctld, the launch RPC and the
  //          shepherd's start;
  //   end:   from its end on the node being stored (RUNNING -> COMPLETING) to
  //          its final state being stored: EpilogSlurmctld and the burst
  //          buffer's post_run/data_out.
  // `micros_now` is a monotonic clock's reading when the transitions were
  // stored. Jobs that never reach the second transition are forgotten at their
  // final state.
  void JobTransitions(const std::vector<JobTransition>& transitions, int64_t micros_now);

  // ---- agents: what the intents' work queues hold (Controller::Stats fills these)
  struct Agents {
    uint32_t queue_size = 0;    // intents waiting for a thread or for their retry time
    uint32_t count = 0;         // intents being carried out
    uint32_t thread_count = 0;  // threads carrying them out
  };

  struct RpcCount {
    RpcType type;
    uint64_t count = 0;
    uint64_t total_micros = 0;
  };
  struct UserCount {
    uint32_t uid = 0;
    uint64_t count = 0;
    uint64_t total_micros = 0;
  };
  // Calls of one kind: how many, their total and longest time.
  struct CallTimes {
    std::string name;
    uint64_t count = 0;
    uint64_t total_micros = 0;
    uint64_t max_micros = 0;
    void Add(uint64_t micros);
  };
  struct Snapshot {
    int64_t req_time = 0;
    int64_t req_time_start = 0;
    uint32_t server_thread_count = 0;  // calls being handled, this one included
    Agents agents;                     // left empty by Get
    uint32_t jobs_submitted = 0, jobs_started = 0, jobs_completed = 0, jobs_canceled = 0,
             jobs_failed = 0;
    uint32_t jobs_pending = 0, jobs_running = 0;
    int64_t job_states_ts = 0;
    uint32_t schedule_cycle_max = 0, schedule_cycle_last = 0, schedule_cycle_counter = 0;
    uint64_t schedule_cycle_sum = 0, schedule_cycle_depth = 0;
    uint32_t schedule_queue_len = 0;
    uint32_t bf_backfilled_jobs = 0, bf_last_backfilled_jobs = 0;
    uint32_t bf_cycle_counter = 0, bf_cycle_last = 0, bf_cycle_max = 0;
    uint64_t bf_cycle_sum = 0;
    uint32_t bf_last_depth = 0, bf_last_depth_try = 0;
    uint64_t bf_depth_sum = 0, bf_depth_try_sum = 0;
    uint32_t bf_queue_len = 0;
    uint64_t bf_queue_len_sum = 0;
    uint32_t bf_table_size = 0;
    uint64_t bf_table_size_sum = 0;
    int64_t bf_when_last_cycle = 0;
    std::vector<RpcCount> rpcs_by_type;            // in the order each type was first seen
    std::vector<UserCount> rpcs_by_user;           // root first (always), then as first seen
    CallTimes job_start{"start"}, job_end{"end"};  // job overheads (JobTransitions)
    std::vector<CallTimes> scripts;                // by name, in the order first seen
  };
  Snapshot Get(int64_t now) const;

  // sdiag --reset: every counter above to zero, RPCs and scripts included, and the data
  // start at `now`. Kept, as Slurm keeps them: the last cycle's time and queue
  // length, the pending/running counts, when backfill last ran.
  void Reset(int64_t now);
  // At the first call on or after midnight UTC: Slurm's daily reset, which
  // keeps the RPC statistics and the backfilled-jobs total "since last slurm
  // start". Returns whether it reset.
  bool DailyReset(int64_t now);

 private:
  // Zeroes what both resets zero.
  void ResetCountersLocked(int64_t now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::atomic<int32_t> rpcs_in_progress_{0};
  mutable absl::Mutex mu_;
  Snapshot data_ ABSL_GUARDED_BY(mu_);
  int64_t next_daily_reset_ ABSL_GUARDED_BY(mu_) = 0;
  // Index of a type name in data_.rpcs_by_type, and of a uid in rpcs_by_user.
  std::map<std::string, size_t> type_index_ ABSL_GUARDED_BY(mu_);
  std::map<uint32_t, size_t> user_index_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, size_t> script_index_ ABSL_GUARDED_BY(mu_);
  // When each job's start (allocated) or end (completing) began, in micros.
  std::map<uint64_t, int64_t> starting_since_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, int64_t> ending_since_ ABSL_GUARDED_BY(mu_);
};

// How long 1000 reads of the system clock take, in microseconds (sdiag's
// "Latency for 1000 calls to gettimeofday()"). Reads the clock: call outside
// any lock.
uint32_t MeasureClockLatency();

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_DIAG_STATS_H_
