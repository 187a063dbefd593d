// The controller: wiring around the lifecycle core (ctld/core/lifecycle). It
// owns the lock, the threads and the timers that call the core's events, and
// the dispatcher that turns the core's intents into calls on noded, scriptd and
// the job store. Decisions are the core's; this class only sequences them.
//
// Concurrency model and lock order:
//   join_mu_ -> commit_mu_ -> mu_ -> admin_mu_   (wake_mu_ is a leaf)
// Every one is an absl::Mutex whose place in that order is annotated
// (ABSL_ACQUIRED_BEFORE); `bazel build --config=tsa` checks it with clang.
// - join_mu_ serializes joins and token changes (controller_join.cc): a
//   token is checked and stored as used with its node in one transaction
//   under it, so two joins with one token cannot both pass.
// - commit_mu_ also serializes configuration changes (scontrol update
//   partition, reconfigure) with events, so no event is half-decided when the
//   core is pointed at a new configuration.
// - mu_ (absl::Mutex) guards the Lifecycle: jobs, nodes, pools, usage, the
//   service units, sacctmgr's QOS and accounts tables, the reported steps and
//   the event triggers.
//   Code holding it only calls the core and copies data out: no I/O, no fork,
//   no RPC, no Lua, no logging.
// - commit_mu_ serializes mutating events from decision to the queueing of
//   their rows: an event runs under mu_ and its rows are queued in the store in
//   event order; commit_mu_ is then released, so the next event is decided
//   while these rows are written (several events share one commit). Under mu_
//   again the core confirms the event's journal frame, or, when its rows could
//   not be stored, rolls back that frame and every later one (decided on top of
//   it; the store fails their writes too). Until those are all gone no new
//   event is decided (recovering_). Reads (squeue, scontrol show) take only mu_
//   and may see an event that is being stored.
// - Changes made outside events (heartbeats, purges, pool polls, a new
//   configuration) are not journaled: they hold commit_mu_ and wait under mu_
//   until no frame is pending, so no rollback can put back what they changed.
// - admin_mu_ guards the uids with an AdminLevel (IsPrivileged, from any
//   thread, also under mu_); it is set from the accounts table once a change
//   of it is stored.
// - wake_mu_ guards the scheduler/housekeeping wake-up flags only.
// - stats_ (DiagStats, sdiag's statistics) has its own leaf mutex: it is fed
//   after an event's rows are stored, by the scheduler thread after a pass and
//   by gRPC's threads, never while mu_ is held.
// Intents are dispatched only after their event's rows were stored; they run on
// the WorkQueues, which make the blocking calls and report back through events.
//
// Threads: gRPC handlers (any public method), the scheduler thread
// (RunSchedulePass, woken by events and coalesced), the housekeeping thread
// (time limits, node timeouts, purging, burst-buffer retries) and the
// WorkQueues' threads (dispatched intents).
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
#include "common/config/config_loader.h"
#include "common/join/join_token.h"
#include "ctld/bb_runtime.h"
#include "ctld/clients/noded_port.h"
#include "ctld/clients/scriptd_port.h"
#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/accounts_snapshot.h"
#include "ctld/core/accounting/qos.h"
#include "ctld/core/accounting/step_book.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/partition_update.h"
#include "ctld/core/triggers/trigger_table.h"
#include "ctld/diag_stats.h"
#include "ctld/state/job_store.h"
#include "ctld/state/records.h"
#include "ctld/timed_scripts.h"
#include "ctld/work_queue.h"
#include "spdlog/spdlog.h"

namespace skiff::ctld {

class Controller {
 public:
  struct Deps {
    const Clock* clock;
    spdlog::logger* logger;
    JobStore* store;
    NodedPort* nodes;
    ScriptdPort* scripts;
    BbRuntime* bb = nullptr;  // null without BurstBufferType=burst_buffer/lua
    // Reads skiff.conf, gres.conf and burst_buffer.conf again (scontrol
    // reconfigure); null: reconfigure is refused.
    std::function<absl::StatusOr<LoadedConfig>()> load_config;
  };

  // `config`: skiff.conf as parsed; Recover() applies the stored partition
  // overrides over it. `privileged_uids`: root is always included; add
  // SlurmUser and operators.
  Controller(SkiffConfig config, std::string conf_path, std::set<uid_t> privileged_uids, Deps deps);
  ~Controller();

  // Loads jobs, QOS and usage from the store. Call before Start.
  absl::Status Recover();
  // Starts the threads and resumes what was in flight when the previous ctld
  // stopped (prologs, launches, epilogs, burst-buffer stages).
  void Start();
  void Stop();

  // The configuration in force (see config_ below); the snapshot keeps the
  // version it names alive however long the caller holds it. Takes mu_.
  std::shared_ptr<const SkiffConfig> config();
  const std::string& conf_path() const { return conf_path_; }
  uint64_t NextJobId();
  int64_t start_time() const { return start_time_; }
  // root, SlurmUser, SkiffOperators, and users whose sacctmgr AdminLevel is
  // Operator or Administrator.
  bool IsPrivileged(uid_t uid) const;

  // ---- nodes
  struct Registration {
    int64_t heartbeat_interval = 0;
    std::vector<uint64_t> jobs_to_terminate;
  };
  absl::StatusOr<Registration> RegisterNode(const NodeRegistration& registration,
                                            const std::vector<NodeRunReport>& jobs);
  // `gpus`: the node's running batch jobs' GPUs (GpuIdlePolicy, /metrics).
  bool Heartbeat(const std::string& node_name, const ReportedLoad& load = {},
                 const std::vector<JobGpuReport>& gpus = {});
  // A node reports a finished job. OK also for a job already recorded; an error
  // (the report could not be stored) tells noded to keep it and retry.
  absl::Status JobComplete(const std::string& node_name, const NodeRunReport& report);
  absl::Status UpdateNodes(const Caller& caller, const std::vector<std::string>& names,
                           const std::string& state, const std::string& reason);
  void CheckNodeTimeouts();

  std::vector<Node> SnapshotNodes(const std::vector<std::string>& names);
  std::vector<PartitionConfig> SnapshotPartitions(const std::vector<std::string>& names);
  std::vector<Lifecycle::LicenseUsage> SnapshotLicenses();

  // ---- jobs
  // Admission, slurm_bb_job_process, then durable before it returns the id
  // (the first task's for an array). `caller_gone`, asked just before the job
  // is stored, says whether the submitter has stopped waiting (its deadline
  // passed, its connection closed): such a submission is refused with
  // Cancelled, never stored, since its caller has already been told it failed.
  // `warnings` (when given) gets what to tell the submitter beside the id.
  absl::StatusOr<uint64_t> SubmitJob(const SubmitRequest& request,
                                     const std::function<bool()>& caller_gone = nullptr,
                                     std::vector<std::string>* warnings = nullptr);
  // sbatch --test-only: when and where `request` could start given the jobs
  // running now. Nothing is stored. Planned outside the lock.
  struct WillRun {
    uint64_t job_id = 0;
    int64_t start = 0;
    std::vector<std::string> nodes;
    int32_t cpus = 0;
    std::string partition;
    std::vector<std::string> warnings;  // as SubmitJob's
  };
  absl::StatusOr<WillRun> TestJob(const SubmitRequest& request);
  // squeue --explain: why job `id` waits, in a paragraph (scheduler/explain.h);
  // for a job that is not pending, its state. NotFound "Invalid job id specified".
  absl::StatusOr<std::string> ExplainJob(uint64_t id);
  // scontrol suspend (resume = false) / resume: operators only.
  absl::Status SuspendJob(const Caller& caller, const JobRef& ref, bool resume);
  // scontrol top.
  absl::Status TopJobs(const Caller& caller, const std::vector<uint64_t>& job_ids);
  // Empty `refs` = every job still in memory.
  std::vector<Job> SnapshotJobs(const std::vector<JobRef>& refs);
  // Calls `visit` for each job SnapshotJobs would copy, in the same order,
  // under ctld's lock: `visit` must be quick and do no I/O (squeue's filters
  // and summaries: no copy of every Job).
  void VisitJobs(const std::vector<JobRef>& refs, const std::function<void(const Job&)>& visit);
  // The running jobs' GPUs as their nodes' latest heartbeats gave them, by job.
  std::map<uint64_t, std::vector<GpuUsage>> SnapshotJobGpus();
  // The script, arguments and environment of `job`'s submission as the store
  // holds them, once per job or array (JoinSpec with job.spec_blob makes the
  // whole spec: job_spec_parts.h). I/O: call without any lock (a launch,
  // scontrol write batch_script).
  absl::StatusOr<std::string> StoredSpec(const Job& job);
  // "addr:port" of `node_name`'s noded as ctld reaches it ("" for an unknown
  // node): a job's step manager is its first node's.
  std::string NodeAddress(const std::string& node_name);
  // sacct: the stored records (every job ever accepted), read from the store's
  // last commit without taking the controller's lock. Jobs still in memory
  // carry their current priority.
  absl::StatusOr<std::vector<Job>> AccountingJobs(const JobQuery& query);
  // sreport: allocated CPU-seconds per account and user in [start, end), from
  // the store (no lock).
  absl::StatusOr<std::vector<JobStore::UsageSum>> UsageSums(int64_t start, int64_t end) {
    return store_.SumUsage(start, end, clock_.Now());
  }
  // sreport's reservation time: every stored change to an advance
  // reservation, from the store (no lock).
  absl::StatusOr<std::vector<ResvEvent>> ReservationEvents() { return LoadResvEvents(store_); }
  // sshare's GrpTRESRaw: TRES-seconds of every run that has ended (running
  // ones count up to "now" = 0, that is not at all), from the store (no lock).
  absl::StatusOr<std::vector<JobStore::UsageSum>> EndedUsageSums() {
    return store_.SumUsage(0, clock_.Now(), /*now=*/0);
  }
  // Per-job outcomes; an error for the whole call when it could not be stored.
  absl::StatusOr<std::vector<CancelOutcome>> CancelJobs(const Caller& caller,
                                                        const CancelSpec& spec);
  absl::Status UpdateJob(const Caller& caller, const JobUpdate& update);

  // Fair-share usage recorded for `user`; zero when the user has none.
  UserUsageRecord UserUsage(const std::string& user);

  // ---- job steps (controller_steps.cc)
  // A job's step manager reports its steps (StepBook). Stored before it returns
  // OK (the error otherwise: noded keeps them and retries). Reports about jobs
  // ctld does not know, or from a node that is not the job's first, are dropped.
  absl::Status ReportSteps(const std::string& node_name,
                           const std::vector<std::pair<uint64_t, StepRecord>>& reports);
  // squeue -s / scontrol show step: the batch step of each running batch job
  // and the running srun steps, of the jobs `refs` names (all when empty).
  std::vector<JobStep> SnapshotSteps(const std::vector<JobRef>& refs);
  // scancel N.S: `signal` to the step's tasks through the job's step manager
  // (its first node's noded). The job's owner or an operator; NOT_FOUND
  // "Job/step already completing or completed" when it is not running.
  // Blocks on that one call (MessageTimeout); never holds a lock across it.
  absl::Status SignalStep(const Caller& caller, uint64_t job_id, uint32_t step_id, int signal);
  // scontrol notify: the message goes to the running batch job's error output
  // (through its first node's noded). Slurm's errors: "Invalid job id
  // specified", "Access/permission denied", "Requested operation is presently
  // disabled" (not running, or an salloc/srun allocation), "Job/step already
  // completing or completed".
  absl::Status NotifyJob(const Caller& caller, uint64_t job_id, const std::string& message);
  // sacct: every stored step of `job_id`, in step order.
  absl::StatusOr<std::vector<StepRecord>> StoredSteps(uint64_t job_id) {
    const auto range = StepRecordRange(job_id);
    absl::StatusOr<std::vector<std::string>> blobs =
        store_.LoadRecordRange(kStepKind, range.first, range.second);
    if (!blobs.ok()) return blobs.status();
    return StepsFromRecords(*blobs);
  }

  // ---- burst buffers (controller_bb.cc)
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
  // Empty `names` = all; in Slurm's order (QosInIdOrder).
  std::vector<QosDefinition> SnapshotQos(const std::vector<std::string>& names);
  // sacctmgr add/modify/delete qos: root/operators only; durable before it
  // returns. Returns the names affected.
  absl::StatusOr<std::vector<std::string>> UpdateQos(const Caller& caller, const QosUpdate& update);

  // ---- advance reservations (controller_reservations.cc)
  // scontrol show reservation: every reservation not ended, by name.
  std::vector<AdvanceReservation> SnapshotReservations();
  // scontrol create|update|delete reservation: the rules are the core's
  // (Lifecycle::UpdateReservation); stored before it returns the name.
  absl::StatusOr<std::string> UpdateReservation(const Caller& caller,
                                                const std::string& caller_name, ResvOp op,
                                                const ResvRequest& request,
                                                const ResvLookups& lookups);

  // ---- accounts, users, associations (controller_accounts.cc)
  AccountsSnapshot SnapshotAccounts();
  // sacctmgr add/modify/delete account|user: privileged callers only; durable
  // (one transaction) before it returns. `uids` resolves the user names named.
  absl::StatusOr<AccountsAffected> UpdateAccounts(const Caller& caller,
                                                  const AccountsUpdate& update,
                                                  const std::map<std::string, int64_t>& uids);

  // ---- configuration at run time (controller_config.cc)
  // scontrol update PartitionName=NAME Key=Value...: root/SlurmUser/operators
  // only. Stored as an override over skiff.conf (ctld/core/partition_update.h
  // says which wins when skiff.conf changes later) before it returns; in force
  // for scheduling and admission from the next event on.
  absl::Status UpdatePartition(const Caller& caller, const std::string& name,
                               const std::vector<std::pair<std::string, std::string>>& settings);
  // scontrol reconfigure: reads the files again outside the lock, checks what
  // may change (ctld/core/config_change.h), reloads burst_buffer.conf and
  // burst_buffer.lua, then swaps the configuration under the lock. No job is
  // touched. A file that does not parse: InvalidArgument with its file:line
  // message, and the old configuration stays. Returns notes for scontrol
  // (keys that need a restart, scontrol overrides dropped).
  absl::StatusOr<std::vector<std::string>> Reconfigure(const Caller& caller);

  // Runs one scheduling pass now (tests and the scheduler thread).
  void RunSchedulePass();

  // ---- statistics (sdiag)
  // Where RPCs are recorded (ctld/rpc/rpc_stats.h). Thread-safe.
  DiagStats& stats() { return stats_; }
  // sdiag: the statistics now, the intents' work queues as Slurm's agents.
  DiagStats::Snapshot Stats();
  // sdiag --reset: root, SlurmUser, operators and admins only
  // (PermissionDenied "Access/permission denied" otherwise).
  absl::Status ResetStats(const Caller& caller);

  // ---- init and join (controller_join.cc; docs/decisions.md, "Init and join")
  struct JoinSettings {
    std::string pin;               // SHA-256 of the join certificate's public key (tls.h)
    std::string munge_key;         // handed to nodes that join
    std::string munge_key_path;    // where munge_key was read (ReloadMungeKey reads it again)
    std::string join_target;       // HOST:PORT of the join port, for printed commands
    std::set<uid_t> token_admins;  // who may create and list tokens (root, SlurmUser)
    std::string slurm_user;        // SlurmUser, whose uid a joining node must share
    uid_t slurm_user_uid = 0;
  };
  // SlurmctldParameters=join_port: tokens may be made and nodes may join. Call
  // before Start.
  void EnableJoin(JoinSettings settings);
  struct JoinTokenCreated {
    std::string token;  // ID.SECRET.PIN
    int64_t expires = 0;
    std::string join_target;
    std::string slurm_user;  // for the printed command
  };
  // `skiff token create`: stored (as a hash) before it returns. PermissionDenied
  // for callers other than token_admins; FailedPrecondition when join is off.
  absl::StatusOr<JoinTokenCreated> CreateJoinToken(const Caller& caller, int64_t ttl_seconds);
  // `skiff token list`: every stored token, oldest first.
  absl::StatusOr<std::vector<StoredJoinToken>> ListJoinTokens(const Caller& caller);
  // A node joins (Join.Join): the token is checked (join_token.h's errors),
  // then the node's uid for SlurmUser when it sent one (FailedPrecondition
  // naming both uids), then the name (AlreadyExists "node name NAME is already
  // taken"); a refused join leaves the token unused. The token, marked used,
  // the node and the hash of its new node key are stored in one transaction
  // before the node is added to the configuration in force (Nodes=ALL
  // partitions) and the node table. `node` carries name, hardware, address,
  // port.
  struct JoinedNode {
    std::string munge_key;
    std::string node_key;  // the node's own key (NewNodeKey), handed over once
  };
  absl::StatusOr<JoinedNode> JoinNode(const std::string& token_id, const std::string& secret,
                                      NodeConfig node,
                                      std::optional<uint32_t> node_slurm_user_uid = std::nullopt);
  // Join.FetchMungeKey: the munge key now, for a joined node that proves
  // itself with its node key (compared in constant time). PermissionDenied
  // "node key is not valid for NAME" for any other name or key: a removed
  // node's key went with it.
  absl::StatusOr<std::string> FetchMungeKey(const std::string& node_name,
                                            const std::string& node_key);
  // `skiff key rotate` wrote a new key at munge_key_path: read it again and
  // hand it out from now on. Root and SlurmUser only. Returns its SHA-256.
  absl::StatusOr<std::string> ReloadMungeKey(const Caller& caller);
  // `scontrol delete NodeName=` and DELETE node/NAME: joined nodes leave the
  // cluster (their records go in one transaction, then the configuration in
  // force and the node table follow), as Slurm deletes dynamic nodes.
  // Operators only. All or none: InvalidArgument "Invalid node name
  // specified" for a name no node has, FailedPrecondition for a node defined
  // in skiff.conf, and "Requested nodes are busy" for one that holds or
  // finishes a job or is in a reservation.
  absl::Status DeleteNodes(const Caller& caller, const std::vector<std::string>& names);

  // ---- event triggers (controller_triggers.cc; strigger)
  // --set: who may is trigger_table.h's Prepare; the program is checked (a
  // regular file the caller may execute) outside every lock. Stored before it
  // returns the new trigger's id.
  absl::StatusOr<uint32_t> SetTrigger(const Caller& caller, const TriggerRequest& request);
  // --get: every trigger not pulled, by id.
  std::vector<Trigger> SnapshotTriggers();
  // --clear: removes (stored) what the caller may; returns how many, or Slurm's
  // error (which some removals may accompany: TriggerTable::PlanClear).
  absl::StatusOr<size_t> ClearTriggers(const Caller& caller,
                                       const TriggerTable::ClearFilter& filter);

 private:
  using Event = std::function<absl::StatusOr<Effects>(Lifecycle&, int64_t now)>;

  // One mutating event: decide under mu_, store, confirm (or roll back), log,
  // dispatch. Returns the event's own error, or the store's when its rows could
  // not be stored (then nothing of it is dispatched and nothing of it remains).
  // `before_store`, when given, may add to the rows after mu_ is released and
  // before they are stored (a submission's payload: large, never under mu_).
  absl::Status Commit(const Event& event,
                      const std::function<void(Effects*)>& before_store = nullptr);
  // The end of an event's frame once its rows are stored (or not): confirms it,
  // or rolls it back with every later frame; resumes the store once nothing
  // decided on top of a failure is left.
  void EndFrame(uint64_t frame, const absl::Status& stored);
  // Runs `change` on the core outside any event (not journaled): holds
  // commit_mu_ and waits under mu_ until no frame is pending, so no rollback
  // can put back what it changed. `change` only calls the core (no I/O).
  void ChangeOutsideEvents(const std::function<void(Lifecycle&)>& change)
      ABSL_LOCKS_EXCLUDED(commit_mu_, mu_);
  // Conditions on mu_ (absl::Condition).
  bool StoreWritable() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !recovering_; }
  bool NoPendingFrames() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return core_.pending_frames() == 0;
  }
  // A report from a dispatched intent: like Commit, but a store failure is
  // retried until it is stored (or ctld stops), since nobody else would repeat it.
  void CommitReport(const Event& event);
  // Carries out intents (controller_dispatch.cc). Never called with mu_ held.
  void Dispatch(std::vector<Intent> intents);
  void DispatchOne(Intent intent);
  void RequestSchedule();
  void SchedulerLoop();
  void HousekeepingLoop();
  // Applies the stored partition overrides over skiff.conf. From Recover().
  absl::Status RecoverPartitions();
  // Makes `config` (and `bb`, when not null) the configuration in force: the
  // core is pointed at it under mu_.
  void InstallConfig(std::shared_ptr<const SkiffConfig> config,
                     std::shared_ptr<const BurstBufferConfig> bb)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) ABSL_LOCKS_EXCLUDED(mu_);
  // Reconfigure's decision and swap, under commit_mu_ (and mu_ for the swap).
  absl::StatusOr<std::vector<std::string>> SwapConfig(const Caller& caller,
                                                      const LoadedConfig& loaded)
      ABSL_LOCKS_EXCLUDED(commit_mu_, mu_);
  // Loads the nodes that joined (into file_config_ and the configuration in
  // force) and the join tokens. From Recover(), before the partitions.
  absl::Status RecoverJoin();
  // Observes nodes and jobs against the triggers (housekeeping, every second):
  // stores what changed, then runs the programs that are due.
  void ProcessTriggers();
  // A trigger's program in scriptd (a work thread).
  void RunTrigger(const RunTriggerIntent& trigger);

  // Intent workers (controller_dispatch.cc, controller_bb.cc).
  void RunProlog(const Job& job);
  void RunEpilog(const Job& job);
  void Launch(const LaunchIntent& launch);
  // One batch launch and its attempts (a launch noded could not be reached
  // for is tried again: ctld/launch_retry.h). Owned by the attempt's task.
  struct LaunchAttempt {
    LaunchIntent launch;
    BatchLaunch message;
    int failures = 0;           // attempts that failed so far
    int64_t first_failure = 0;  // clock_ seconds
  };
  // Sends the launch; reports its outcome (LaunchDone), or posts the next
  // attempt when it may pass later. A work thread; takes mu_ only to ask
  // whether the job still starts.
  void TryLaunch(std::shared_ptr<LaunchAttempt> attempt);
  bool BbStageAbandoned(uint64_t job_id);
  // The job_script file the Lua hooks open, written again from the stored
  // spec when it is missing: a standby that took over (issue 53) never had
  // it, nor a head node whose StateSaveLocation was replaced. Worker threads.
  absl::Status EnsureBbJobScript(const Job& job);
  // Runs MailProg in scriptd for a decided mail and reports MailSent once it
  // answered (controller_mail.cc). A work thread.
  void SendMail(const MailIntent& mail);

  const std::string conf_path_;
  const std::function<absl::StatusOr<LoadedConfig>()> load_config_;
  const std::set<uid_t> privileged_uids_;
  const Clock& clock_;
  spdlog::logger& logger_;
  JobStore& store_;
  NodedPort& node_client_;
  BbRuntime* const bb_;
  const int64_t start_time_;
  DiagStats stats_;
  // Every call on scriptd goes through here, timed into stats_ by name.
  TimedScripts scripts_;
  const SchedulerOptions scheduler_options_;
  const PreemptOptions preempt_options_;

  // The lock order above, as --config=tsa checks it.
  absl::Mutex commit_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  absl::Mutex mu_ ABSL_ACQUIRED_BEFORE(admin_mu_);
  // Configuration ownership: config_ is the configuration in force, skiff.conf
  // with the stored partition overrides applied. It is never changed in place:
  // UpdatePartition and Reconfigure build a new SkiffConfig outside mu_, then,
  // holding commit_mu_ and mu_, replace config_ and point the core at the new
  // object (Lifecycle::SetConfig) in the same critical section. The core holds
  // a plain `const SkiffConfig*` that is only used under mu_, and config_ keeps
  // its pointee alive until the next swap, so the core never sees a freed
  // config. Code outside mu_ reads through a config() snapshot (shared_ptr),
  // which keeps an older version alive until that reader lets go.
  std::shared_ptr<const SkiffConfig> config_ ABSL_GUARDED_BY(mu_);
  // burst_buffer.conf in force, owned the same way (the core's settings point
  // into it); null without burst buffers.
  std::shared_ptr<const BurstBufferConfig> bb_config_ ABSL_GUARDED_BY(mu_);
  Lifecycle core_ ABSL_GUARDED_BY(mu_);
  // A store write failed and frames decided on top of it are not all rolled
  // back yet: no event is decided (EndFrame).
  bool recovering_ ABSL_GUARDED_BY(mu_) = false;
  // skiff.conf as last read (the bases of the overrides) and the stored
  // overrides; read and replaced only with commit_mu_ held.
  std::shared_ptr<const SkiffConfig> file_config_;
  PartitionOverrides partition_overrides_;
  // Users with an AdminLevel; read by IsPrivileged from any thread.
  mutable absl::Mutex admin_mu_;
  std::set<uid_t> admin_uids_ ABSL_GUARDED_BY(admin_mu_);
  int64_t next_job_count_ = 0;             // housekeeping thread only: sdiag's "Job states ts"
  int64_t next_pool_poll_ = 0;             // housekeeping thread only
  int64_t next_trim_ = 0;                  // housekeeping thread only
  std::atomic<int64_t> next_backfill_{0};  // bf_interval: when backfill runs next
  // sched_interval: when a pass next looks at every job (the scheduler thread;
  // tests also run passes).
  std::atomic<int64_t> next_full_pass_{0};

  // Init and join (controller_join.cc).
  absl::Mutex join_mu_ ABSL_ACQUIRED_BEFORE(commit_mu_);
  std::optional<JoinSettings> join_;  // set before Start, then read only (munge_key: munge_key_)
  std::map<std::string, StoredJoinToken> join_tokens_ ABSL_GUARDED_BY(join_mu_);  // by id
  std::string munge_key_ ABSL_GUARDED_BY(join_mu_);  // what joining nodes are handed
  // Joined nodes' Sha256Hex(node key), by node name.
  std::map<std::string, std::string> node_key_hashes_ ABSL_GUARDED_BY(join_mu_);
  // Nodes that joined, in join order; read and replaced with commit_mu_ held.
  std::vector<NodeConfig> joined_nodes_;

  // scontrol reconfigure happened since the last observation (reconfig triggers).
  std::atomic<bool> reconfigured_{false};
  std::atomic<uint64_t> trigger_runs_{0};  // makes scriptd request ids unique

  // The scheduler's and housekeeping's wake-ups (a leaf: waited on with
  // Await, so no condition variable is needed).
  absl::Mutex wake_mu_;
  bool schedule_requested_ ABSL_GUARDED_BY(wake_mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(wake_mu_) = false;
  // Conditions on wake_mu_.
  bool WakeScheduler() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(wake_mu_) {
    return stopping_ || schedule_requested_;
  }
  std::unique_ptr<WorkQueue> work_;
  // Burst-buffer stages: on their own small queue, so a burst of stages (each a
  // Lua helper process in scriptd) neither starves launches and epilogs of work
  // threads nor buries a small machine in helper processes.
  std::unique_ptr<WorkQueue> bb_work_;
  // Set once work_ and bb_work_ exist (Stats reads their load from gRPC's
  // threads, which may run before Start).
  std::atomic<bool> queues_started_{false};
  std::thread scheduler_;
  std::thread housekeeping_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CONTROLLER_H_
