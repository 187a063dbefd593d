// The job lifecycle as a pure core: the job table, the node table, burst-buffer
// pools and fair-share usage, and one function per event that changes them.
//
// Every event takes `now` as an argument and returns Effects (effects.h): the
// rows to persist, the intents to carry out once they are durable, and the log
// lines. No threads, no clock reads, no I/O, no protobuf here.
//
// Transactions and frames: every change goes through the JournaledState
// (journaled_state.h), which keeps each event's before-images until its rows
// are stored (Confirm) or puts them back (RollbackFrom). An event that fails
// (a StatusOr holding an error) has already rolled itself back.
//
// Derived fields (reason set by a scheduling pass, priority, factors, the
// expected start, the dependency text) are written without journaling: they are
// recomputed on every pass and persisted only along with a real change.
//
// The core owns every job state change: `final_state`, the version bump and the
// transition log line are set here and nowhere else.
//
// Thread-safety: none. The Controller owns one Lifecycle under its mutex.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/account_policy.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/dependency.h"
#include "ctld/core/gpu_idle/gpu_watch.h"
#include "ctld/core/job.h"
#include "ctld/core/job_state.h"
#include "ctld/core/lifecycle/admission.h"
#include "ctld/core/lifecycle/bank.h"
#include "ctld/core/lifecycle/effects.h"
#include "ctld/core/lifecycle/journaled_state.h"
#include "ctld/core/lifecycle/requests.h"
#include "ctld/core/lifecycle/schedule_pass.h"
#include "ctld/core/node_table.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

// How a PrologSlurmctld / EpilogSlurmctld run went, as the dispatcher saw it.
struct ScriptOutcome {
  bool succeeded = false;   // ran and exited 0
  bool ran = false;         // scriptd answered (pid is meaningful)
  std::string description;  // "exit code 1: last line of output", "timed out", ...
  int64_t pid = 0;
};

// How a burst-buffer stage went.
struct BbStageResult {
  bool ok = true;
  bool killed = false;
  std::string error;       // "burst_buffer/lua: <op> failed: <message>"
  uint64_t real_size = 0;  // slurm_bb_real_size's answer, bytes; 0 = none
};

struct LifecycleSettings {
  bool prolog = false;  // PrologSlurmctld configured
  bool epilog = false;  // EpilogSlurmctld configured
  // burst_buffer/lua configured (null otherwise); pointee outlives the Lifecycle.
  const BurstBufferConfig* burst_buffer = nullptr;
  bool config_overrides = false;  // SlurmdParameters=config_overrides
  double decay_half_life = 0;     // PriorityDecayHalfLife seconds, for usage accrual
  // Local time that repeating reservations follow; outlives the Lifecycle.
  const ResvCalendar* resv_calendar = &UtcResvCalendar();
};

class Lifecycle {
 public:
  // REQUIRES: `config` passed ParseSkiffConfig's checks and outlives this
  // object, or until SetConfig points the core at another one.
  Lifecycle(const SkiffConfig& config, LifecycleSettings settings, int64_t started_at);
  // Its JournaledState is not copyable.
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  // ---- transactions (journaled_state.h)
  void Confirm(uint64_t frame) { state_.Confirm(frame); }
  void Confirm() { state_.Confirm(); }
  void RollbackFrom(uint64_t frame) {
    state_.RollbackFrom(frame);
    RefreshAccountingViews();
  }
  void Rollback() {
    state_.Rollback();
    RefreshAccountingViews();
  }
  bool in_transaction() const { return state_.in_transaction(); }
  size_t pending_frames() const { return state_.pending_frames(); }

  // ---- recovery (before any event; not a transaction)
  // Installs stored jobs (re-taking the node resources of CONFIGURING/RUNNING
  // ones), the id counter and the stored tables: sacctmgr's QOS and accounts,
  // node drains and admin DOWNs, fair-share usage per user and association,
  // what ended runs used of the budgets, triggers and advance reservations.
  void Load(std::vector<Job> jobs, uint64_t max_stored_id, StoredRecords records);

  // ---- service units (bank.h)
  // What jobs cost and what the budgets have left, over the tables as they are
  // now: valid until the next change (SetConfig, an event, the accounting tables).
  Bank bank() const {
    return Bank(*config_, state_, account_policy_, qos_, settings_.decay_half_life);
  }
  // Resumes what was in flight when the previous ctld stopped: prologs and
  // launches of CONFIGURING jobs, epilogs of COMPLETING ones, burst-buffer
  // space and stages (an interrupted stage-in is torn down and staged in
  // again). Call after SetBbPools, so restored space lands in known pools.
  Effects Resume(int64_t now);

  // ---- configuration that changes at run time (not transactions)
  // Points the core at a new configuration (scontrol update partition,
  // reconfigure): partitions and per-job limits apply from the next event on;
  // jobs already admitted keep what they were given. Nodes `config` defines
  // that the core lacks are added (nodes that joined); none is removed
  // (removing nodes needs a restart).
  // REQUIRES: `config` passed ParseSkiffConfig's checks and outlives this
  // object or the next SetConfig; the caller keeps it alive (the controller
  // holds it in the same shared_ptr it swaps under its lock).
  void SetConfig(const SkiffConfig& config, LifecycleSettings settings);
  const SkiffConfig& config() const { return *config_; }
  // The scheduler's QOS view and the account policy, set directly (tests that
  // need no tables): replaced by the next change of the tables.
  void SetQosViewForTest(std::vector<Qos> qos) { qos_ = std::move(qos); }
  void SetAccountPolicyForTest(AccountPolicy policy) { account_policy_ = std::move(policy); }
  void SetBbPools(const std::vector<BbPoolDef>& defs) { state_.UnjournaledPools().Update(defs); }

  // ---- admission (admission.cc)
  // Checks `request` against every rule that decides whether a submission is
  // accepted, changing nothing: the job it would be (with its user's default
  // account and QOS filled in) and its array's tasks. sbatch --test-only is
  // this check alone, so it refuses what a submission would be refused.
  absl::StatusOr<CheckedSubmission> CheckSubmission(const SubmitRequest& request,
                                                    int64_t now) const;
  // CheckSubmission, then, in the same step, reserves the ids (consecutive
  // for an array; the first is the array's id) and counts the job toward
  // MaxJobCount and MaxSubmitJobsPerUser. Nothing changes on error. Not a
  // transaction: the reservation is memory only until Insert.
  absl::StatusOr<Admitted> Admit(const SubmitRequest& request, int64_t now);
  // Makes admitted jobs part of the table (a transaction: their rows are the
  // Effects' rows). REQUIRES: `admitted` came from Admit and was not released.
  Effects Insert(Admitted admitted, int64_t now);
  // Gives back a reservation that will not be inserted (slurm_bb_job_process
  // refused, or the rows could not be stored).
  void ReleaseReservation(uint64_t first_id);

  // ---- nodes
  absl::StatusOr<Effects> RegisterNode(const NodeRegistration& registration,
                                       const std::vector<NodeRunReport>& reports, int64_t now,
                                       std::vector<uint64_t>* jobs_to_terminate,
                                       std::vector<NodeChange>* changes);
  // Not a transaction (node liveness is not persisted). False when the node must
  // register again.
  bool Heartbeat(const std::string& node_name, int64_t now, std::vector<NodeChange>* changes,
                 const ReportedLoad& load = {});
  // `by`: the uid of whoever asked (recorded with a DRAIN or DOWN reason).
  absl::StatusOr<Effects> UpdateNodes(const std::vector<std::string>& names,
                                      const std::string& state, const std::string& reason,
                                      uint32_t by, int64_t now, std::vector<NodeChange>* changes);
  Effects CheckNodeTimeouts(int64_t now, std::vector<NodeChange>* changes);

  // ---- jobs
  // A node reports a finished job. OK (no rows) for a job already recorded;
  // FailedPrecondition when the job does not run there.
  absl::StatusOr<Effects> JobComplete(const std::string& node_name, const NodeRunReport& report,
                                      int64_t now);
  Effects Cancel(const Caller& caller, bool privileged, const CancelSpec& spec, int64_t now,
                 std::vector<CancelOutcome>* outcomes);
  // All or nothing: the first field refused leaves the job as it was.
  absl::StatusOr<Effects> Update(const Caller& caller, bool privileged, const JobUpdate& update,
                                 int64_t now);
  // scontrol suspend / resume (operators only): SIGSTOP / SIGCONT to the job's
  // processes; a suspended job keeps its resources and its time limit waits.
  absl::StatusOr<Effects> Suspend(const Caller& caller, bool privileged, const JobRef& ref,
                                  bool resume, int64_t now);
  // scontrol top: the listed pending jobs (in that order) go above the other
  // pending jobs of the same user, partition, account and QOS, by lowering
  // their nice values just enough (Slurm's top also works through nice).
  // Operators, or the jobs' owner with SchedulerParameters=enable_user_top.
  absl::StatusOr<Effects> Top(const Caller& caller, bool privileged,
                              const std::vector<uint64_t>& job_ids, int64_t now);
  Effects EnforceTimeLimits(int64_t now);
  // A node's heartbeat with its running batch jobs' GPUs (noded's GPU
  // monitor). Not journaled: a restarted ctld learns them from the next
  // heartbeats (and the idle policy starts counting again).
  void ObserveJobGpus(const std::string& node_name, const std::vector<JobGpuReport>& reports,
                      int64_t now);
  // GpuIdlePolicy, every second: warns each job whose GPUs stayed idle for the
  // window (its output, mail, scontrol show job) and, after the grace, still
  // idle, requeues or cancels it (ctld/core/gpu_idle/gpu_watch.h).
  Effects EnforceGpuIdle(int64_t now);
  // A running job's GPUs as the latest heartbeat gave them; null: none known.
  const GpuWatch* JobGpus(uint64_t job_id) const;
  const std::map<uint64_t, GpuWatch>& gpu_watches() const { return gpu_watch_; }
  // Forgets finished jobs older than MinJobAge (they stay in the store). Not a
  // transaction: nothing is written. Returns how many jobs it forgot.
  size_t Purge(int64_t now);

  // ---- what the dispatcher reports back
  Effects PrologDone(uint64_t job_id, int restart_count, const ScriptOutcome& outcome, int64_t now);
  // A failed launch that is the node's fault (noded unreachable, timed out, or
  // refusing) drains the node and requeues the job, as Slurm does; after
  // kMaxBatchRequeue such requeues the job is held instead. One that is the job's
  // (its burst buffer's paths, a malformed request) ends it FAILED.
  enum class LaunchBlame { kJob, kNode };
  static constexpr int kMaxBatchRequeue = 5;  // Slurm's MaxBatchRequeue default
  Effects LaunchDone(uint64_t job_id, int restart_count, const absl::Status& status, int64_t now,
                     LaunchBlame blame = LaunchBlame::kJob);
  Effects EpilogDone(uint64_t job_id, const ScriptOutcome& outcome, int64_t now);
  // MailProg answered the mail `kind` about run `run` (any exit status: a
  // mailer that failed is not tried again, as in Slurm): it leaves the job's
  // outbox (mail.h). OK with no rows for a job or mail already gone.
  Effects MailSent(uint64_t job_id, uint16_t kind, int32_t run);
  Effects BbStageDone(uint64_t job_id, BbStage stage, const BbStageResult& result, int64_t now);
  // Teardowns that failed are tried again a minute after each failure.
  Effects RetryBbTeardowns(int64_t now);
  // Whether a stage for `job_id` should stop polling (job gone or cancelled).
  bool BbStageAbandoned(uint64_t job_id) const;

  // ---- scheduling (lifecycle_schedule.cc)
  // Under the lock: evaluates dependencies (cancelling jobs with
  // --kill-on-invalid-dep), array throttles and burst-buffer stage-ins, and
  // copies what the planner needs into `input` (empty pending = nothing to plan).
  // queue_depth > 0: a pass between full passes, which plans on each
  // partition's queue_depth first jobs and on those no pass has ranked
  // (queue_depth.h); held jobs wait for a full pass (they cannot start).
  Effects PrepareSchedule(int64_t now, PassInput* input, int32_t queue_depth = 0);
  // Under the lock again: preemptions, derived fields, and starts, each start
  // re-checked against the live table (a job changed since the snapshot, or a
  // node that went away, waits: `*replan` is set).
  Effects ApplySchedule(const PassInput& input, const PassPlan& plan, int64_t now, bool* replan);

  // sbatch --test-only: `request` checked by CheckSubmission (nothing
  // reserved) and a snapshot of the running jobs with it as the one pending
  // job (snapshot.pending[0], id = the next job id), for EarliestStart.
  // squeue --explain: a snapshot of the running jobs with the pending job
  // `job_id` as snapshot.pending[0], for ExplainPending (scheduler/explain.h).
  // NotFound "Invalid job id specified"; FailedPrecondition when not pending.
  absl::StatusOr<CtldSnapshot> ExplainSnapshot(uint64_t job_id, int64_t now) const;
  // `warnings` (when given) gets CheckSubmission's.
  absl::StatusOr<CtldSnapshot> WillRunSnapshot(const SubmitRequest& request, int64_t now,
                                               std::vector<std::string>* warnings = nullptr) const;

  // ---- sacctmgr's tables and job steps (accounting_events.cc)
  // add/modify/delete qos: `privileged` callers only (root, SlurmUser,
  // operators, admins); `affected` gets the QOS names for sacctmgr.
  absl::StatusOr<Effects> UpdateQos(const Caller& caller, bool privileged, const QosUpdate& update,
                                    int64_t now, std::vector<std::string>* affected);
  // add/modify/delete account|user: `privileged` callers only; `uids` resolves
  // the user names the update names (-1: no such user).
  absl::StatusOr<Effects> UpdateAccounts(const Caller& caller, bool privileged,
                                         const AccountsUpdate& update,
                                         const std::map<std::string, int64_t>& uids, int64_t now,
                                         AccountsAffected* affected);
  // A job's step manager reports its steps. Reports about jobs ctld does not
  // know, or from a node that is not the job's first, are dropped (logged);
  // `stored_first_nodes` gives the first node of jobs already purged from
  // memory (the Controller reads them from the store before the event).
  Effects ReportSteps(const std::string& node_name,
                      const std::vector<std::pair<uint64_t, StepRecord>>& reports,
                      const std::map<uint64_t, std::string>& stored_first_nodes, int64_t now);
  // Forgets the steps of jobs no longer running (their end report never
  // came). Not a transaction: housekeeping, with no frame pending.
  void RetainStepsOfRunningJobs();

  // ---- advance reservations (reservation_events.cc)
  // scontrol create|update|delete reservation: create and update by
  // `privileged` callers only; delete also by a user who may use one with
  // USER_DELETE (`caller_name`). `lookups`: the users and groups the request
  // names that exist (resolved at the edge). `name` gets the reservation's.
  absl::StatusOr<Effects> UpdateReservation(const Caller& caller, bool privileged,
                                            const std::string& caller_name, ResvOp op,
                                            const ResvRequest& request, const ResvLookups& lookups,
                                            int64_t now, std::string* name);

  // ---- event triggers (trigger_events.cc; strigger)
  // --set: trigger_table.h's Prepare against the live nodes and jobs
  // (`program_ok`: the caller may execute the program, checked outside); `id`
  // gets the new trigger's.
  absl::StatusOr<Effects> SetTrigger(const Caller& caller, const TriggerRequest& request,
                                     const TriggerPolicy& policy, bool program_ok, int64_t now,
                                     uint32_t* id);
  // --clear: removes what the caller may (`removed`) with Slurm's answer, which
  // may be an error beside removals (TriggerTable::PlanClear); fails with it
  // when nothing was removed.
  absl::StatusOr<Effects> ClearTriggers(const Caller& caller,
                                        const TriggerTable::ClearFilter& filter, int64_t now,
                                        std::vector<uint32_t>* removed, absl::Status* answer);
  // The nodes and jobs observed against the triggers (housekeeping, every
  // second): pulls what matched, fires what is due (RunTriggerIntent).
  // `reconfigured`: scontrol reconfigure since the previous observation.
  Effects ObserveTriggers(bool reconfigured, int64_t now);

  // ---- reads
  // sdiag's "Jobs pending" and "Jobs running" (configuring ones included, as
  // Slurm counts them): a walk over the unfinished jobs only.
  struct StateCounts {
    uint32_t pending = 0;
    uint32_t running = 0;
  };
  StateCounts CountPendingAndRunning() const;
  // scontrol show licenses: each license of Licenses= with what the jobs
  // holding resources (configuring, running, suspended) hold of it, as the
  // scheduler counts them; a name jobs hold that is no longer configured
  // shows with a total of 0.
  struct LicenseUsage {
    std::string name;
    int64_t total = 0;
    int64_t used = 0;
  };
  std::vector<LicenseUsage> LicenseUsages() const;
  // The tables as they are now (jobs, nodes, pools, QOS and accounts, steps,
  // triggers, reservations, usage), to read; every change is an event here.
  const JournaledState& state() const { return state_; }
  const Job* Find(uint64_t id) const { return state_.Find(id); }
  // The jobs `ref` names (every task for an array's id); empty when none.
  std::vector<const Job*> Resolve(const JobRef& ref) const;
  const std::vector<Qos>& qos() const { return qos_; }
  uint64_t next_job_id() const { return next_job_id_; }
  // Slurm's TOP_PRIORITY (0xffff0000): priority/basic counts down from below it.
  static constexpr int64_t kTopBasicPriority = 0xffff0000LL;
  std::string NodeTarget(const std::string& node_name) const;
  // A prolog or launch report still about the job's current start (the job is
  // CONFIGURING in the start `restart_count` names).
  bool StillStarting(uint64_t job_id, int restart_count) const;
  // -k/--no-kill (Slurm's kill_on_node_fail = 0, kill_running_job_by_node_name):
  // a RUNNING or SUSPENDED job of several nodes whose failed node is not its
  // batch host keeps running without it. REQUIRES: `node_name` is one of
  // job.nodes.
  static bool KeepsRunningWithout(const Job& job, const std::string& node_name);

 private:
  // sacctmgr's stored QOS and accounts tables (each seeded on a new database).
  void LoadAccounting(QosTable qos, AccountsTable accounts);
  // ---- transitions (lifecycle.cc); all on a journaled job
  bool TransitionJob(Job& job, JobEvent event, Effects& effects);
  // The start, from where it is: slurm_bb_pre_run, PrologSlurmctld, the launch
  // (each waits for its report), or the end when a cancel came meanwhile.
  void ContinueStart(Job& job, int64_t now, Effects& effects);
  // The end of a run, a chain of stages named for what each one waits on:
  // ReleaseAndRunEpilog (the run is over: its resources go back and are
  // charged) -> RunEpilog (EpilogSlurmctld, when there is one; EpilogDone
  // resumes) -> AfterEpilog (burst-buffer post_run and stage-out; BbStageDone
  // resumes) -> AfterStageOut (requeue, or the job's final state).
  void ReleaseAndRunEpilog(Job& job, int64_t now, Effects& effects);
  void RunEpilog(Job& job, int64_t now, Effects& effects);
  void AfterEpilog(Job& job, int64_t now, Effects& effects);
  void AfterStageOut(Job& job, int64_t now, Effects& effects);
  void Requeue(Job& job, const std::string& detail, int64_t now, Effects& effects);
  // scontrol requeue[hold] of one job: a running one is stopped and requeued
  // once torn down; a finished one goes back to the queue now.
  absl::Status RequeueOne(Job& job, bool hold, int64_t now, Effects& effects);
  void RequeueAfterTeardown(Job& job, int64_t now, Effects& effects);
  // `current` with `update`'s fields applied and checked (Update's per-job part).
  absl::StatusOr<Job> Updated(const Job& current, bool privileged, const JobUpdate& update) const;
  // The job's node failed it (down, fenced, a launch it could not take): requeue
  // it with `detail` when it may be, else end it NODE_FAIL (or as it was already
  // ending: cancelled, preempted). True when requeued.
  bool RequeueOrEndOnNodeFailure(Job& job, const std::string& detail, int64_t now,
                                 Effects& effects);
  // LaunchDone's node-fault path: drain the node, stop a copy that may have
  // started, requeue (or hold, or end NODE_FAIL without --requeue).
  void LaunchFailedOnNode(Job& job, const absl::Status& status, int64_t now, Effects& effects);
  // Drains `node_name` with `reason` (as ctld, not an admin) unless it is
  // drained already.
  void DrainNode(const std::string& node_name, const std::string& reason, int64_t now,
                 Effects& effects);
  void Terminate(Job& job, JobState final_state, Effects& effects);
  // Stops `job` for `preemptor` at once, or, with a GraceTime, warns it now
  // and stops it when the grace ends (RunProgress::preempt_stop_at).
  void Preempt(Job& job, bool requeue, int64_t grace_time, uint64_t preemptor, int64_t now,
               Effects& effects);
  void ReleaseResources(Job& job, int64_t now, Effects& effects);
  void NodeDown(const std::string& node_name, int64_t now, Effects& effects);
  // Takes `node_name` out of the job's allocation: gives back what the job
  // held there and drops the node from its per-node lists. REQUIRES: `node_name`
  // is one of job.nodes and not job.nodes[0].
  void DropFailedNode(Job& job, const std::string& node_name, int64_t now, Effects& effects);
  void ApplyReport(Job& job, const NodeRunReport& report, int64_t now, Effects& effects);
  // Adds a run's billing-seconds (times its QOS's UsageFactor) to the fair-share
  // usage of its user and association (sshare's RawUsage), as of `now`.
  void AccrueUsage(const Job& job, double billing_seconds, int64_t now, Effects& effects);
  // Charges the run that just gave its resources back what it used
  // (ChargedSeconds: until now, the KillWait tail past its limit included,
  // never above MaxRun, which admission reserved): the account's service units
  // and the fair-share usage alike, in the event's rows.
  void ChargeRun(const Job& job, int64_t now, Effects& effects);
  // The admission rules that need the job table, the QOS and the accounts
  // (admission.cc), shared by Admit and Update so that an update cannot reach
  // what a submission is refused: MaxSubmitJobsPerUser of each job's QOS and of
  // its partition's QOS, the association with its QOS list and limits
  // (AccountingStorageEnforce), and with `safe` the service units left. `jobs`
  // are checked in order, `each` times each (an array's tasks), each counted
  // with those before it; the current versions of the jobs in `replacing` (an
  // update's jobs, before it) are not counted. `privileged`: an operator's
  // update, which Slurm lets past all but a missing association.
  absl::Status CheckPolicy(const std::vector<const Job*>& jobs, size_t each,
                           const std::set<uint64_t>& replacing, bool privileged) const;
  // MaxTRESMinsPerJob of the job's association: the most the job may use
  // (MaxCost) over it is refused with Slurm's reason and the figures.
  absl::Status CheckTresMinsPerJob(const Job& job) const;
  // The one builder of the scheduler's snapshot: `inputs` holds the jobs
  // (running and pending); the cluster's side (nodes, partitions, QOS, usage,
  // accounts, billing) is filled in here, for a pass and for --test-only alike.
  CtldSnapshot SchedulerSnapshot(CtldSchedulerInputs& inputs, int64_t now) const;
  LaunchIntent MakeLaunch(const Job& job) const;
  TerminateIntent MakeTerminate(const Job& job) const;

  // ---- burst buffers (lifecycle_bb.cc)
  bool BbEnabled() const { return settings_.burst_buffer != nullptr; }
  bool BbTransition(Job& job, BbEvent event, Effects& effects);
  void BbQueueStage(Job& job, BbStage stage, bool hurry, Effects& effects);
  void BbTeardown(Job& job, bool hurry, Effects& effects);
  bool BbReady(Job& job);  // derived reason only
  void BbStartStageIns(std::vector<uint64_t> candidates, int64_t now, Effects& effects);
  bool BbBeforeLaunch(Job& job, Effects& effects);
  bool BbBeforeFinish(Job& job, Effects& effects);
  void BbCancelPending(Job& job, bool hurry, Effects& effects);
  void BbResume(Effects& effects);

  // ---- dependencies (lifecycle_schedule.cc)
  const Dependency* ParsedDependency(const Job& job);
  bool DependencyAllows(uint64_t id, int64_t now, Effects& effects);
  // False (and the job ended DEADLINE) when a pending job's time limit no
  // longer fits before its --deadline.
  bool DeadlineAllows(uint64_t id, int64_t now, Effects& effects);

  const SkiffConfig* config_;  // never null; see SetConfig
  LifecycleSettings settings_;

  // Every table an event changes, with its undo journal.
  JournaledState state_;
  // Views derived from the QOS and accounts tables (RefreshAccountingViews).
  std::vector<Qos> qos_;
  AccountPolicy account_policy_;
  uint64_t views_generation_ = 0;  // the tables' generation the views show (empty: 0)
  // Rebuilds the views when the tables changed since (an event, a rollback).
  void RefreshAccountingViews();
  uint64_t next_job_id_ = 1;
  // The next Job::basic_priority to give (Slurm's TOP_PRIORITY less one, then
  // counting down); after a restart, one below the lowest a stored job has.
  int64_t next_basic_priority_ = kTopBasicPriority - 1;
  // Gives `job` (and the rest of its array, by the caller) the next place in line.
  int64_t TakeBasicPriority();
  std::map<uint64_t, Dependency> dependencies_;  // parsed once per job (derived cache)
  std::map<uint64_t, GpuWatch> gpu_watch_;       // running jobs' GPUs (ObserveJobGpus)
};

// The dependency checks admission and the pass share (lifecycle_schedule.cc).
DependentJob DependentOf(const Job& job);
absl::Status ValidateDependencyOf(const Job& job, const Dependency& dependency,
                                  const std::map<uint64_t, Job>& jobs);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_LIFECYCLE_H_
