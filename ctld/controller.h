// The controller: all cluster state ctld holds, behind one mutex, and the job
// lifecycle that drives it.
//
// Concurrency model: one absl::Mutex (mu_) guards every piece of mutable state
// here (nodes, jobs, next job id). Code holding it only reads and mutates memory
// through the pure core (NodeTable, Transition, ScheduleFirstFit) and collects
// Effects: job snapshots to persist and actions to run. After mu_ is released the
// snapshots are written to the JobStore (blocking until durable) and only then are
// the actions posted to the WorkQueue, whose threads make the blocking RPCs to
// noded and scriptd and report back through the On...() methods. No I/O, fork or
// RPC ever happens under mu_; the JobStore and the clients have their own leaf
// locks, never taken while calling back in, so there is no lock order to keep.
//
// Threads: gRPC handlers (any method), the scheduler thread (RunSchedulePass,
// woken by events and coalesced), the housekeeping thread (time limits, node
// timeouts, purging), and the WorkQueue's threads.
#ifndef SKIFF_CTLD_CONTROLLER_H_
#define SKIFF_CTLD_CONTROLLER_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/config/config.h"
#include "ctld/bb_runtime.h"
#include "ctld/clients/node_client.h"
#include "ctld/clients/scriptd_client.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/job.h"
#include "ctld/core/job_state.h"
#include "ctld/core/node_table.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/core/scheduler/preempt.h"
#include "ctld/core/scheduler/scheduler.h"
#include "ctld/core/scheduler/types.h"
#include "ctld/launch_builder.h"
#include "ctld/qos_table.h"
#include "ctld/state/job_store.h"
#include "ctld/work_queue.h"
#include "spdlog/spdlog.h"

namespace skiff {

// What a node daemon says about one of its jobs.
struct JobReport {
  uint64_t job_id = 0;
  bool finished = false;
  int exit_code = 0;
  int exit_signal = 0;
  std::string failure;  // the job could not be launched: why
};

// A job named on a command line: "42", or "42_7" (task 7 of array 42). A bare
// id that is an array's id names every task of the array.
struct JobRef {
  uint64_t job_id = 0;
  int32_t array_task_id = -1;  // -1 = the job (or whole array) itself
};

// scancel's selection.
struct CancelSpec {
  std::vector<JobRef> jobs;  // empty = all the filters select
  std::string user;          // user name filter
  std::string name;
  std::vector<JobState> states;
  std::vector<std::string> partitions;
  int signal = 0;  // 0 = cancel
  bool batch_only = false;
  bool hurry = false;  // --hurry: no burst-buffer stage-out
};

struct CancelOutcome {
  uint64_t job_id = 0;
  absl::Status status;
};

// scontrol update JobId=... / hold / release.
struct JobUpdate {
  uint64_t job_id = 0;
  std::optional<bool> held;
  bool user_hold = false;
  std::optional<int64_t> time_limit;
  std::optional<std::string> partition;
  std::optional<std::string> qos;
  std::optional<std::string> name;
  std::optional<std::string> account;
  std::optional<int> min_nodes;
};

struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
};

class Controller {
 public:
  struct Deps {
    const Clock* clock;
    spdlog::logger* logger;
    JobStore* store;
    NodeDaemonClient* nodes;
    ScriptRunner* scripts;
    BbRuntime* bb = nullptr;  // null without BurstBufferType=burst_buffer/lua
  };

  // `privileged_uids`: root is always included; add SlurmUser and operators.
  Controller(SkiffConfig config, std::string conf_path, std::set<uid_t> privileged_uids, Deps deps);
  ~Controller();

  // Loads jobs from the store and re-takes their resources. Call before Start.
  absl::Status Recover();
  // Starts the scheduler, housekeeping and work threads, and re-issues what was in
  // flight when the previous ctld stopped (prologs, launches, epilogs).
  void Start();
  void Stop();

  const SkiffConfig& config() const { return config_; }
  int64_t start_time() const { return start_time_; }
  bool IsPrivileged(uid_t uid) const { return privileged_uids_.count(uid) > 0; }

  // ---- nodes
  struct Registration {
    int64_t heartbeat_interval = 0;
    std::vector<uint64_t> jobs_to_terminate;
  };
  absl::StatusOr<Registration> RegisterNode(const NodeRegistration& registration,
                                            const std::vector<JobReport>& jobs);
  bool Heartbeat(const std::string& node_name);
  // A node reports a finished job. OK also for a job already recorded.
  absl::Status JobComplete(const std::string& node_name, const JobReport& report);
  absl::Status UpdateNodes(const Caller& caller, const std::vector<std::string>& names,
                           const std::string& state, const std::string& reason);
  void CheckNodeTimeouts();

  std::vector<Node> SnapshotNodes(const std::vector<std::string>& names);
  std::vector<PartitionConfig> SnapshotPartitions(const std::vector<std::string>& names);

  // ---- jobs
  // Assigns the id, persists, then makes the job schedulable. REQUIRES: `job` was
  // validated by the edge (partition resolved, limits checked).
  // `array_tasks` (sbatch --array): one job per task id, with consecutive ids;
  // the first id is returned and is the array's id.
  absl::StatusOr<uint64_t> SubmitJob(Job job, const std::vector<uint32_t>& array_tasks = {},
                                     uint32_t array_max_running = 0);
  // Empty `refs` = every job still in memory.
  std::vector<Job> SnapshotJobs(const std::vector<JobRef>& refs);
  std::vector<CancelOutcome> CancelJobs(const Caller& caller, const CancelSpec& spec);
  absl::Status UpdateJob(const Caller& caller, const JobUpdate& update);

  // Fair-share usage recorded for `user` (CPU-seconds x UsageFactor, decayed
  // to its as_of); zero when the user has none.
  UserUsageRecord UserUsage(const std::string& user);

  // ---- burst buffers (controller_bb.cc)
  bool BurstBuffersEnabled() const { return bb_ != nullptr; }
  const BbRuntime* burst_buffers() const { return bb_; }
  struct BurstBufferSnapshot {
    bool enabled = false;
    BurstBufferConfig config;
    std::vector<BbPool> pools;
    std::vector<BbAllocation> allocations;
    std::vector<std::string> user_names;  // parallel to allocations
  };
  BurstBufferSnapshot SnapshotBurstBuffers();
  // scontrol show bbstat: slurm_bb_get_status in scriptd.
  absl::StatusOr<std::string> BbStatus(const Caller& caller, const std::vector<std::string>& words);
  // slurm_bb_pools now (start-up; then every 30 s from housekeeping).
  void PollBbPools();

  // ---- QOS (controller_qos.cc)
  // Empty `names` = all, in name order.
  std::vector<v1::QosInfo> SnapshotQos(const std::vector<std::string>& names);
  std::vector<std::string> QosNames();
  // sacctmgr add/modify/delete qos: root/operators only; durable before it
  // returns. Returns the names affected.
  absl::StatusOr<std::vector<std::string>> UpdateQos(const Caller& caller,
                                                     const v1::UpdateQosRequest& request);

  // Free resources of every node (for submit-time checks).
  std::vector<NodeCapacity> NodeCapacities();

  // Runs one scheduling pass now (tests and the scheduler thread).
  void RunSchedulePass();

 private:
  struct Effects {
    std::vector<Job> save;
    std::vector<std::function<void()>> actions;
    // Burst-buffer stages: on their own small queue, so a burst of stages (each
    // a Lua helper process in scriptd) neither starves launches and epilogs of
    // work threads nor buries a small machine in helper processes.
    std::vector<std::function<void()>> bb_actions;
    std::vector<std::string> log;
  };

  // Persist, log, then post actions. Never called with mu_ held.
  void Apply(Effects effects);
  void RequestSchedule();
  void SchedulerLoop();
  void HousekeepingLoop();
  void EnforceTimeLimits();
  void PurgeOldJobs();
  // QOS MaxSubmitJobsPerUser for `count` more jobs like `job` (controller_qos.cc).
  absl::Status CheckSubmitLimitsLocked(const Job& job, size_t count)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The jobs `job` depends on exist (controller_schedule.cc).
  absl::Status CheckDependencyLocked(const Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool DependencyAllowsLocked(Job& job, int64_t now, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // ---- burst buffers (controller_bb.cc)
  enum class BbStage { kStageIn, kPreRun, kStageOut, kTeardown };
  struct BbStageResult {
    bool ok = true;
    bool killed = false;
    std::string error;       // "burst_buffer/lua: <op> failed: <message>"
    uint64_t real_size = 0;  // slurm_bb_real_size's answer, bytes; 0 = none
    bool post_run_done = false;
  };
  absl::Status PrepareBurstBufferLocked(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ProcessBurstBuffer(std::vector<Job>& jobs);
  void BbHousekeeping();
  bool BbTransitionLocked(Job& job, BbEvent event, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BbQueueStageLocked(Job& job, BbStage stage, bool hurry, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BbTeardownLocked(Job& job, bool hurry, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BbReadyLocked(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BbStartStageInsLocked(std::vector<Job*> candidates, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BbBeforeLaunchLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BbBeforeFinishLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BbCancelPendingLocked(Job& job, bool hurry, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BbRecoverLocked(Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::function<void()> BbStageAction(const Job& job, BbStage stage, bool hurry);
  BbStageResult RunBbStage(const Job& job, BbStage stage, bool hurry);
  bool BbStageAbandoned(uint64_t job_id);
  void OnBbStageDone(uint64_t job_id, BbStage stage, BbStageResult result);
  void SendStageOutMail(uint64_t job_id);
  // kFinish (or the preemption requeue), after stage-out if any.
  void FinishJobLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Adds a finished job's CPU time to its user's fair-share usage (controller_qos.cc).
  void AccrueUsageLocked(const Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Loads the QOS table (seeding "normal" on a new database). From Recover().
  absl::Status RecoverQos();

  // Transition + log line; returns false (and logs) on an illegal pair.
  bool TransitionLocked(Job& job, JobEvent event, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The next step for a job that has resources: prolog, launch, or nothing.
  void ContinueStartLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The batch script ended (or will never run): release resources, epilog next.
  void FinishRunLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EpilogOrFinishLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // COMPLETING -> its final state, or back to PENDING when preempted with REQUEUE.
  void FinishLocked(Job& job, Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Back to PENDING with its allocation forgotten (REQUIRES: resources released).
  void RequeueLocked(Job& job, const std::string& detail, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stops a running job for a higher-priority one (controller_schedule.cc).
  void PreemptLocked(Job& job, bool requeue, int64_t grace_time, uint64_t preemptor,
                     Effects& effects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseLocked(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TerminateLocked(Job& job, JobState final_state, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NodeDownLocked(const std::string& node_name, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyReportLocked(Job& job, const JobReport& report, Effects& effects)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NodeTargetLocked(const std::string& node_name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ClusterFacts FactsLocked(const Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Job* FindJobLocked(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The jobs `ref` names (every task for an array's id); empty when none.
  std::vector<Job*> ResolveLocked(const JobRef& ref) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Work-queue actions (run without mu_), reporting back through On...().
  std::function<void()> PrologAction(const Job& job);
  std::function<void()> LaunchAction(const Job& job, std::string target, ClusterFacts facts);
  std::function<void()> EpilogAction(const Job& job);
  // SIGTERM now, SIGKILL after max(KillWait, grace_time) seconds.
  std::function<void()> TerminateAction(std::string target, uint64_t job_id,
                                        int64_t grace_time = 0);
  void OnPrologDone(uint64_t job_id, int restart_count, absl::StatusOr<v1::RunScriptReply> result);
  void OnLaunchDone(uint64_t job_id, int restart_count, absl::Status status);
  void OnEpilogDone(uint64_t job_id, absl::StatusOr<v1::RunScriptReply> result);

  const SkiffConfig config_;
  const std::string conf_path_;
  const std::set<uid_t> privileged_uids_;
  const Clock& clock_;
  spdlog::logger& logger_;
  JobStore& store_;
  NodeDaemonClient& node_client_;
  ScriptRunner& scripts_;
  const int64_t start_time_;
  const bool config_overrides_;  // SlurmdParameters=config_overrides
  const SchedulerOptions scheduler_options_;
  const PreemptOptions preempt_options_;

  absl::Mutex mu_;
  NodeTable nodes_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, Job> jobs_ ABSL_GUARDED_BY(mu_);
  uint64_t next_job_id_ ABSL_GUARDED_BY(mu_) = 1;
  QosTable qos_ ABSL_GUARDED_BY(mu_);
  // Fair-share usage per user, accrued as jobs end; persisted (records "usage").
  std::map<std::string, UserUsageRecord> usage_ ABSL_GUARDED_BY(mu_);
  BbRuntime* const bb_;
  BbPoolTable bb_pools_ ABSL_GUARDED_BY(mu_);
  std::set<uint64_t> bb_busy_ ABSL_GUARDED_BY(mu_);  // jobs with a stage in flight
  int64_t next_pool_poll_ = 0;                       // housekeeping thread only
  std::atomic<int64_t> next_backfill_{0};            // bf_interval: when backfill runs next
  // Serializes sacctmgr's writers (read table, store, install) without holding
  // mu_ across the database write. Taken before mu_, never inside it.
  std::mutex qos_write_mu_;
  std::set<uint64_t> terminate_sent_ ABSL_GUARDED_BY(mu_);  // not persisted: resent after restart

  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool schedule_requested_ = false;
  bool stopping_ = false;
  std::unique_ptr<WorkQueue> work_;
  std::unique_ptr<WorkQueue> bb_work_;
  std::thread scheduler_;
  std::thread housekeeping_;
};

}  // namespace skiff

#endif  // SKIFF_CTLD_CONTROLLER_H_
