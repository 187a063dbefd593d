#include "ctld/controller.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/time_format.h"
#include "ctld/core/burst_buffer/directives.h"
#include "ctld/core/scheduler/explain.h"
#include "ctld/local_calendar.h"

namespace skiff::ctld {
namespace {

constexpr int kWorkThreads = 32;
// Burst-buffer stages running at once (each blocks a thread in RunLua). Eight
// keeps a 2-core controller responsive under hundreds of staging jobs; the
// rest wait their turn in order.
constexpr int kBbStageThreads = 8;
constexpr int64_t kPoolPollSeconds = 30;
constexpr int64_t kTrimSeconds = 10;  // housekeeping returns freed memory at least this often
// sdiag's pending and running counts are taken this often (Slurm's JOB_COUNT_INTERVAL).
constexpr int64_t kJobCountSeconds = 30;
// A report whose rows could not be stored is tried again after this long.
constexpr absl::Duration kStoreRetry = absl::Seconds(1);

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The scheduler's timer for backfill's cycle time (sdiag).
class SteadyPhaseTimer final : public PhaseTimer {
 public:
  int64_t Micros() const override { return SteadyMicros(); }
  static int64_t SteadyMicros() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

LifecycleSettings SettingsFrom(const SkiffConfig& config, const BurstBufferConfig* bb) {
  LifecycleSettings settings;
  settings.prolog = !config.prolog_ctld.empty();
  settings.epilog = !config.epilog_ctld.empty();
  settings.burst_buffer = bb;
  settings.config_overrides = config.slurmd_parameters.config_overrides;
  settings.decay_half_life = OptionsFromConfig(config).weights.decay_half_life;
  settings.resv_calendar = &LocalCalendar();
  return settings;
}

}  // namespace

Controller::Controller(SkiffConfig config, std::string conf_path, std::set<uid_t> privileged_uids,
                       Deps deps)
    : conf_path_(std::move(conf_path)),
      load_config_(std::move(deps.load_config)),
      privileged_uids_([&] {
        privileged_uids.insert(0);
        return privileged_uids;
      }()),
      clock_(*deps.clock),
      logger_(*deps.logger),
      store_(*deps.store),
      node_client_(*deps.nodes),
      bb_(deps.bb),
      start_time_(deps.clock->Now()),
      stats_(start_time_),
      scripts_(*deps.scripts, stats_),
      scheduler_options_(OptionsFromConfig(config)),
      preempt_options_(PreemptOptionsFromConfig(config)),
      config_(std::make_shared<const SkiffConfig>(std::move(config))),
      bb_config_(deps.bb != nullptr ? std::make_shared<const BurstBufferConfig>(deps.bb->config())
                                    : nullptr),
      core_(*config_, SettingsFrom(*config_, bb_config_.get()), start_time_),
      file_config_(config_) {}

std::shared_ptr<const SkiffConfig> Controller::config() {
  absl::MutexLock lock(&mu_);
  return config_;
}

void Controller::InstallConfig(std::shared_ptr<const SkiffConfig> config,
                               std::shared_ptr<const BurstBufferConfig> bb) {
  // The node table's partitions change outside any frame: none may be pending.
  absl::MutexLock lock(&mu_, absl::Condition(this, &Controller::NoPendingFrames));
  config_ = std::move(config);
  if (bb != nullptr) bb_config_ = std::move(bb);
  core_.SetConfig(*config_, SettingsFrom(*config_, bb_config_.get()));
}

uint64_t Controller::NextJobId() {
  absl::MutexLock lock(&mu_);
  return core_.next_job_id();
}

Controller::~Controller() { Stop(); }

// ---------------------------------------------------------------- events

absl::Status Controller::Commit(const Event& event,
                                const std::function<void(Effects*)>& before_store) {
  absl::ReleasableMutexLock serial(&commit_mu_);
  absl::StatusOr<Effects> effects;
  bool after_others = false;  // frames of earlier events are still being stored
  {
    // After a store failure no event is decided until every event decided on
    // top of it has been rolled back (see EndFrame).
    absl::MutexLock lock(&mu_, absl::Condition(this, &Controller::StoreWritable));
    effects = event(core_, clock_.Now());
    if (effects.ok()) {
      after_others = core_.pending_frames() > (effects->frame != 0 ? 1u : 0u);
    }
  }
  if (!effects.ok()) return effects.status();  // the core changed nothing
  if (before_store) before_store(&*effects);
  const bool has_rows = !effects->rows.empty() || !effects->records.empty();
  // An event decided on top of unconfirmed ones waits for them even when it has
  // no rows of its own (an empty write is stored after them): its changes and
  // intents may follow from theirs.
  const bool has_consequences = effects->frame != 0 || !effects->intents.empty();
  std::unique_ptr<JobStore::Ticket> ticket;
  if (has_rows || (after_others && has_consequences)) {
    ticket =
        store_.SaveInOrder(std::move(effects->rows), EncodeRecords(std::move(effects->records)));
  }
  // The next event may be decided while these rows are written: the store
  // writes in queue order, so several events share one commit.
  serial.Release();
  const absl::Status stored = ticket != nullptr ? ticket->Wait() : absl::OkStatus();
  EndFrame(effects->frame, stored);
  if (!stored.ok()) {
    logger_.error("not stored, so not done: {}", std::string(stored.message()));
    return absl::Status(stored.code(),
                        absl::StrCat("ctld could not store the change in StateSaveLocation (",
                                     config()->state_save_location, "): ", stored.message()));
  }
  for (const std::string& line : effects->log) logger_.info("{}", line);
  stats_.CountJobs(effects->tally);
  stats_.JobTransitions(effects->transitions, SteadyPhaseTimer::SteadyMicros());
  if (effects->reschedule) RequestSchedule();
  Dispatch(std::move(effects->intents));
  return absl::OkStatus();
}

void Controller::EndFrame(uint64_t frame, const absl::Status& stored) {
  absl::MutexLock lock(&mu_);
  if (stored.ok()) {
    if (frame != 0) core_.Confirm(frame);
  } else {
    // Later frames were decided on top of this one; the store fails their
    // writes too (it accepts none until Resume), and their threads find them
    // gone when they get here.
    recovering_ = true;
    if (frame != 0) core_.RollbackFrom(frame);
  }
  if (recovering_ && core_.pending_frames() == 0) {
    // Nothing decided on top of the failure is left: writes may go on.
    store_.Resume();
    recovering_ = false;
  }
}

void Controller::ChangeOutsideEvents(const std::function<void(Lifecycle&)>& change) {
  absl::MutexLock serial(&commit_mu_);
  absl::MutexLock lock(&mu_, absl::Condition(this, &Controller::NoPendingFrames));
  change(core_);
}

void Controller::CommitReport(const Event& event) {
  for (;;) {
    absl::Status status = Commit(event);
    const bool store_failed = status.code() == absl::StatusCode::kResourceExhausted ||
                              status.code() == absl::StatusCode::kInternal;
    if (!store_failed) return;
    absl::MutexLock lock(&wake_mu_);
    if (wake_mu_.AwaitWithTimeout(absl::Condition(&stopping_), kStoreRetry)) return;
  }
}

// ---------------------------------------------------------------- start / stop

absl::Status Controller::Recover() {
  absl::StatusOr<StoredRecords> records = LoadStoredRecords(store_);
  if (!records.ok()) return records.status();
  // A new database: Slurm's default QOS and root account, stored before use.
  if (std::vector<RecordRow> seed = SeedNewDatabase(*records); !seed.empty()) {
    if (absl::Status s = store_.Save({}, std::move(seed)); !s.ok()) return s;
  }
  {
    absl::MutexLock lock(&admin_mu_);
    admin_uids_ = AdminUids(records->accounts);
  }
  if (absl::Status s = RecoverJoin(); !s.ok()) return s;
  if (absl::Status s = RecoverPartitions(); !s.ok()) return s;
  absl::StatusOr<uint64_t> max_id = store_.MaxJobId();
  if (!max_id.ok()) return max_id.status();
  absl::StatusOr<std::vector<Job>> jobs = store_.LoadActive(clock_.Now() - config()->min_job_age);
  if (!jobs.ok()) return jobs.status();
  const size_t loaded = jobs->size();
  const size_t active =
      std::count_if(jobs->begin(), jobs->end(), [](const Job& job) { return !IsFinal(job.state); });
  uint64_t next_id = 0;
  {
    absl::MutexLock lock(&mu_);
    core_.Load(std::move(*jobs), *max_id, *std::move(records));
    next_id = core_.next_job_id();
  }
  // Logged outside mu_: no I/O under the state lock, even at start-up.
  logger_.info("recovered {} jobs ({} not finished); next JobId={}", loaded, active, next_id);
  return absl::OkStatus();
}

void Controller::Start() {
  work_ = std::make_unique<WorkQueue>(kWorkThreads);
  bb_work_ = std::make_unique<WorkQueue>(kBbStageThreads);
  queues_started_.store(true, std::memory_order_release);
  PollBbPools();  // before the first pass: submissions and stage-ins need the pools
  next_pool_poll_ = clock_.Now() + kPoolPollSeconds;
  CommitReport([](Lifecycle& core, int64_t now) { return core.Resume(now); });
  // The triggers' first observation: node changes from here on are events.
  ProcessTriggers();
  scheduler_ = std::thread([this] { SchedulerLoop(); });
  housekeeping_ = std::thread([this] { HousekeepingLoop(); });
  RequestSchedule();
}

void Controller::Stop() {
  {
    absl::MutexLock lock(&wake_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  if (scheduler_.joinable()) scheduler_.join();
  if (housekeeping_.joinable()) housekeeping_.join();
  queues_started_.store(false, std::memory_order_release);
  bb_work_.reset();
  work_.reset();
}

void Controller::RequestSchedule() {
  absl::MutexLock lock(&wake_mu_);
  schedule_requested_ = true;
}

void Controller::SchedulerLoop() {
  // Events are coalesced: a burst of submissions or completions wakes the
  // scheduler once, after sched_min_interval.
  const int64_t min_interval_us = config()->scheduler_parameters.sched_min_interval_us;
  for (;;) {
    {
      absl::MutexLock lock(&wake_mu_);
      wake_mu_.AwaitWithTimeout(absl::Condition(this, &Controller::WakeScheduler),
                                absl::Seconds(5));
      if (stopping_) return;
      schedule_requested_ = false;
    }
    RunSchedulePass();
    std::this_thread::sleep_for(std::chrono::microseconds(min_interval_us));
  }
}

void Controller::HousekeepingLoop() {
  for (;;) {
    {
      absl::MutexLock lock(&wake_mu_);
      if (wake_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Seconds(1))) return;
    }
    CheckNodeTimeouts();
    CommitReport([](Lifecycle& core, int64_t now) { return core.EnforceTimeLimits(now); });
    CommitReport([](Lifecycle& core, int64_t now) { return core.EnforceGpuIdle(now); });
    ProcessTriggers();  // after the node and time-limit changes it may match
    if (const int64_t now = clock_.Now(); now >= next_job_count_) {
      next_job_count_ = now + kJobCountSeconds;
      Lifecycle::StateCounts counts;
      {
        absl::MutexLock lock(&mu_);
        counts = core_.CountPendingAndRunning();
      }
      stats_.SetJobStates(counts.pending, counts.running, now);
    }
    if (stats_.DailyReset(clock_.Now())) logger_.info("sdiag statistics reset (midnight UTC)");
    size_t purged = 0;
    // (A rollback would bring a purged job back.)
    ChangeOutsideEvents([&](Lifecycle& core) { purged = core.Purge(clock_.Now()); });
    ChangeOutsideEvents([](Lifecycle& core) { core.RetainStepsOfRunningJobs(); });
    // Purged jobs can never run again: their scripts and environments go; the
    // records stay for sacct. Outside the lock: it writes to the database.
    if (absl::Status s = store_.ForgetSpecs(clock_.Now() - config()->min_job_age); !s.ok()) {
      logger_.warn("cannot drop the specs of purged jobs: {}", std::string(s.message()));
    }
    // Freed memory goes back to the system, not only to malloc's free lists:
    // after a burst of jobs ctld returns to its idle size (SQLite's page
    // caches, grown with the jobs, included), and while it holds many finished
    // jobs, the scheduler's and handlers' short-lived buffers between them do
    // not stay resident. A trim is a walk of the free lists (about a
    // millisecond with 100 MB of heap), outside ctld's lock.
    if (const int64_t now = clock_.Now(); purged > 0 || now >= next_trim_) {
      if (purged > 0) store_.ReleaseMemory();
      malloc_trim(0);
      next_trim_ = now + kTrimSeconds;
    }
    if (bb_ != nullptr) {
      const int64_t now = clock_.Now();
      if (now >= next_pool_poll_) {
        next_pool_poll_ = now + kPoolPollSeconds;
        PollBbPools();
        RequestSchedule();  // freed space may let a job stage in
      }
      CommitReport([](Lifecycle& core, int64_t now) { return core.RetryBbTeardowns(now); });
    }
  }
}

// ---------------------------------------------------------------- nodes

absl::StatusOr<Controller::Registration> Controller::RegisterNode(
    const NodeRegistration& registration, const std::vector<NodeRunReport>& reports) {
  Registration out;
  std::vector<NodeChange> changes;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    out.jobs_to_terminate.clear();
    changes.clear();
    return core.RegisterNode(registration, reports, now, &out.jobs_to_terminate, &changes);
  });
  if (!status.ok()) return status;
  logger_.info("NodeName={} registered: CPUs={} RealMemory={} port {}, {} jobs reported",
               registration.node_name, registration.cpus, registration.real_memory_mb,
               registration.port, reports.size());
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
  out.heartbeat_interval = config()->heartbeat_interval;
  return out;
}

bool Controller::Heartbeat(const std::string& node_name, const ReportedLoad& load,
                           const std::vector<JobGpuReport>& gpus) {
  std::vector<NodeChange> changes;
  bool registered = false;
  // (A rollback restores the node tables it journaled: an older heartbeat.)
  ChangeOutsideEvents([&](Lifecycle& core) {
    const int64_t now = clock_.Now();
    registered = core.Heartbeat(node_name, now, &changes, load);
    if (registered && !gpus.empty()) core.ObserveJobGpus(node_name, gpus, now);
  });
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
  return registered;
}

std::map<uint64_t, std::vector<GpuUsage>> Controller::SnapshotJobGpus() {
  std::map<uint64_t, std::vector<GpuUsage>> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, watch] : core_.gpu_watches()) out.emplace(id, watch.usage);
  return out;
}

absl::Status Controller::JobComplete(const std::string& node_name, const NodeRunReport& report) {
  return Commit(
      [&](Lifecycle& core, int64_t now) { return core.JobComplete(node_name, report, now); });
}

absl::Status Controller::UpdateNodes(const Caller& caller, const std::vector<std::string>& names,
                                     const std::string& state, const std::string& reason) {
  if (!IsPrivileged(caller.uid)) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  std::vector<NodeChange> changes;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    changes.clear();
    return core.UpdateNodes(names, state, reason, caller.uid, now, &changes);
  });
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {} (by uid {})", change.node_name, change.what, caller.uid);
  }
  return status;
}

void Controller::CheckNodeTimeouts() {
  std::vector<NodeChange> changes;
  CommitReport([&](Lifecycle& core, int64_t now) {
    changes.clear();
    return core.CheckNodeTimeouts(now, &changes);
  });
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
}

std::vector<Node> Controller::SnapshotNodes(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  if (names.empty()) return core_.state().nodes().nodes();
  std::vector<Node> out;
  for (const Node& node : core_.state().nodes().nodes()) {
    if (Contains(names, node.config.name)) out.push_back(node);
  }
  return out;
}

std::vector<PartitionConfig> Controller::SnapshotPartitions(const std::vector<std::string>& names) {
  std::shared_ptr<const SkiffConfig> config = this->config();
  std::vector<PartitionConfig> out;
  for (const PartitionConfig& partition : config->partitions) {
    if (names.empty() || Contains(names, partition.name)) out.push_back(partition);
  }
  return out;
}

std::vector<Lifecycle::LicenseUsage> Controller::SnapshotLicenses() {
  absl::MutexLock lock(&mu_);
  return core_.LicenseUsages();
}

// ---------------------------------------------------------------- jobs

absl::StatusOr<uint64_t> Controller::SubmitJob(const SubmitRequest& request,
                                               const std::function<bool()>& caller_gone,
                                               std::vector<std::string>* warnings) {
  absl::StatusOr<Admitted> admitted;
  {
    absl::MutexLock lock(&mu_);
    admitted = core_.Admit(request, clock_.Now());
  }
  if (!admitted.ok()) return admitted.status();
  const uint64_t id = admitted->first_id;
  std::vector<std::string> warnings_given = admitted->warnings;
  const uint64_t count = admitted->jobs.size();  // ids id ... id + count - 1
  auto refuse = [&](absl::Status status) {
    if (bb_ != nullptr) {
      for (uint64_t k = 0; k < count; ++k) bb_->RemoveJobFiles(id + k);
    }
    absl::MutexLock lock(&mu_);
    core_.ReleaseReservation(id);
    return status;
  };
  if (bb_ != nullptr && admitted->jobs.front().UsesBurstBuffer()) {
    // The job_script files the Lua hooks open, then slurm_bb_job_process once
    // per submission (as Slurm calls it once for an array), outside the lock.
    for (size_t k = 0; k < admitted->jobs.size(); ++k) {
      if (absl::Status s = bb_->WriteJobScript(admitted->jobs[k].id, admitted->bb_scripts[k]);
          !s.ok()) {
        logger_.error("JobId={} not accepted: {}", id, std::string(s.message()));
        return refuse(absl::InternalError(absl::StrCat("burst_buffer/lua: ", s.message())));
      }
    }
    if (absl::Status s = bb_->JobProcess(admitted->jobs.front()); !s.ok()) {
      return refuse(absl::Status(s.code(), absl::StrCat(s.message(), "\n", BbSubmitErrorText(s))));
    }
  }
  // slurm_bb_job_process may have taken long enough for the caller to give up
  // (a site script that waits on a file): an answer nobody receives reads as
  // "submission failed", so the job must not exist either.
  if (caller_gone && caller_gone()) {
    logger_.info("JobId={} not accepted: the submitter stopped waiting", id);
    return refuse(absl::CancelledError("the submitter stopped waiting before the job was stored"));
  }
  // Durable before anyone can see it: a job that is scheduled is a job on disk.
  // The script, arguments and environment are stored once, in the first job's
  // spec row, and never kept in memory (job_spec_parts.h).
  // Appended outside mu_: a script may be megabytes.
  absl::Status stored =
      Commit([&](Lifecycle& core, int64_t now) { return core.Insert(std::move(*admitted), now); },
             [&](Effects* effects) {
               for (Job& row : effects->rows) {
                 if (row.id == id) row.spec_blob += request.payload_blob;
               }
             });
  if (!stored.ok()) {
    logger_.error("JobId={} not accepted: {}", id, std::string(stored.message()));
    return refuse(stored);
  }
  stats_.JobsSubmitted(static_cast<uint32_t>(count));  // Slurm counts each array task
  if (warnings != nullptr) *warnings = std::move(warnings_given);
  return id;
}

absl::Status Controller::TopJobs(const Caller& caller, const std::vector<uint64_t>& job_ids) {
  const bool privileged = IsPrivileged(caller.uid);
  return Commit(
      [&](Lifecycle& core, int64_t now) { return core.Top(caller, privileged, job_ids, now); });
}

absl::Status Controller::SuspendJob(const Caller& caller, const JobRef& ref, bool resume) {
  const bool privileged = IsPrivileged(caller.uid);
  return Commit([&](Lifecycle& core, int64_t now) {
    return core.Suspend(caller, privileged, ref, resume, now);
  });
}

absl::StatusOr<std::string> Controller::ExplainJob(uint64_t id) {
  const int64_t now = clock_.Now();
  absl::StatusOr<CtldSnapshot> snapshot;
  ExplainRequest request;
  JobState state = JobState::kPending;
  std::string gpu_idle_warning;
  {
    absl::MutexLock lock(&mu_);
    const Job* job = core_.Find(id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    state = job->state;
    if (state == JobState::kRunning) gpu_idle_warning = job->gpu_idle_warning;
    request.name = job->name;
    request.reason = job->reason;
    request.reason_detail = job->reason_detail;
    if (state == JobState::kPending) snapshot = core_.ExplainSnapshot(id, now);
  }
  if (!gpu_idle_warning.empty()) {
    return absl::StrCat(
        "Job ", id, " (", request.name,
        ") is RUNNING, not pending, but GpuIdlePolicy warned it: ", gpu_idle_warning, ".");
  }
  if (state != JobState::kPending) {
    return absl::StrCat("Job ", id, " (", request.name, ") is ", JobStateName(state),
                        ", not pending: nothing holds it back.");
  }
  if (!snapshot.ok()) return snapshot.status();
  // The paragraph is built outside mu_: it plans the job a few times over.
  request.view = &snapshot->view;
  request.job = snapshot->pending.front();
  request.now = now;
  request.format_time = FormatTimestamp;
  return ExplainPending(request);
}

absl::StatusOr<Controller::WillRun> Controller::TestJob(const SubmitRequest& request) {
  const int64_t now = clock_.Now();
  std::vector<std::string> warnings;
  absl::StatusOr<CtldSnapshot> snapshot;
  {
    absl::MutexLock lock(&mu_);
    snapshot = core_.WillRunSnapshot(request, now, &warnings);
  }
  if (!snapshot.ok()) return snapshot.status();
  const PendingJob& job = snapshot->pending.front();
  const StartEstimate estimate = EarliestStart(snapshot->view, job, now);
  if (estimate.start == kNever) {
    return absl::FailedPreconditionError(
        "Unable to estimate a start time: the jobs it would wait for have no time limit");
  }
  WillRun out;
  out.warnings = std::move(warnings);
  out.job_id = job.id;
  out.start = std::max(estimate.start, now);
  for (int32_t n : estimate.nodes) out.nodes.push_back(snapshot->view.nodes[n].name);
  out.cpus = job.cpus_per_node * static_cast<int32_t>(estimate.nodes.size());
  out.partition = snapshot->view.partitions[job.partition].name;
  return out;
}

std::string Controller::NodeAddress(const std::string& node_name) {
  absl::MutexLock lock(&mu_);
  return core_.NodeTarget(node_name);
}

std::vector<Job> Controller::SnapshotJobs(const std::vector<JobRef>& refs) {
  std::vector<Job> out;
  VisitJobs(refs, [&](const Job& job) { out.push_back(job); });
  return out;
}

void Controller::VisitJobs(const std::vector<JobRef>& refs,
                           const std::function<void(const Job&)>& visit) {
  absl::MutexLock lock(&mu_);
  if (refs.empty()) {
    for (const auto& [id, job] : core_.state().jobs()) visit(job);
    return;
  }
  std::set<uint64_t> seen;
  for (const JobRef& ref : refs) {
    for (const Job* job : core_.Resolve(ref)) {
      if (seen.insert(job->id).second) visit(*job);
    }
  }
}

absl::StatusOr<std::vector<Job>> Controller::AccountingJobs(const JobQuery& query) {
  absl::StatusOr<std::vector<Job>> jobs = store_.QueryJobs(query);
  if (!jobs.ok()) return jobs;
  absl::MutexLock lock(&mu_);
  for (Job& job : *jobs) {
    if (IsFinal(job.state)) continue;
    if (const Job* live = core_.Find(job.id); live != nullptr) job.priority = live->priority;
  }
  return jobs;
}

absl::StatusOr<std::vector<CancelOutcome>> Controller::CancelJobs(const Caller& caller,
                                                                  const CancelSpec& spec) {
  std::vector<CancelOutcome> outcomes;
  const bool privileged = IsPrivileged(caller.uid);
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    outcomes.clear();
    return core.Cancel(caller, privileged, spec, now, &outcomes);
  });
  if (!status.ok()) return status;
  return outcomes;
}

absl::Status Controller::UpdateJob(const Caller& caller, const JobUpdate& update) {
  const bool privileged = IsPrivileged(caller.uid);
  return Commit(
      [&](Lifecycle& core, int64_t now) { return core.Update(caller, privileged, update, now); });
}

UserUsageRecord Controller::UserUsage(const std::string& user) {
  absl::MutexLock lock(&mu_);
  auto it = core_.state().usage().find(user);
  return it == core_.state().usage().end() ? UserUsageRecord{} : it->second;
}

// ---------------------------------------------------------------- scheduling

void Controller::RunSchedulePass() {
  const int64_t started_us = SteadyPhaseTimer::SteadyMicros();
  // Every sched_interval seconds a pass looks at every pending job; those in
  // between, one per burst of events, at each partition's first
  // default_queue_depth (and every job changed since a pass ranked it).
  int32_t queue_depth = scheduler_options_.default_queue_depth;
  if (const int64_t now = clock_.Now(); now >= next_full_pass_) {
    queue_depth = 0;
    next_full_pass_ = now + scheduler_options_.sched_interval;
  }
  PassInput input;
  absl::Status prepared = Commit([&](Lifecycle& core, int64_t now) {
    input = PassInput{};
    return core.PrepareSchedule(now, &input, queue_depth);
  });
  if (!prepared.ok()) return;
  if (input.snapshot.pending.empty()) {
    // A cycle with nothing to schedule is still one, as Slurm counts them.
    stats_.MainCycle(SteadyPhaseTimer::SteadyMicros() - started_us, 0, 0);
    return;
  }

  // The plan, without the lock.
  const int64_t now = clock_.Now();
  SchedulerOptions options = scheduler_options_;
  if (options.backfill) {
    // Backfill at most every bf_interval seconds; the main pass runs every time.
    if (now < next_backfill_.load()) {
      options.backfill = false;
    } else {
      next_backfill_ = now + options.bf_interval;
    }
  }
  const SteadyPhaseTimer timer;
  const PassPlan plan = PlanPass(input, options, preempt_options_, now, &timer);

  bool replan = false;
  Commit([&](Lifecycle& core, int64_t now) {
    replan = false;
    return core.ApplySchedule(input, plan, now, &replan);
  }).IgnoreError();  // not stored: the jobs stay pending for the next pass
  // sdiag: the main cycle is the whole pass but backfill's part, which is a
  // backfill cycle of its own. Skiff's backfill keeps no time-slot table like
  // Slurm's node_space map (it plans on per-node free times): table size 0.
  const int64_t total_us = SteadyPhaseTimer::SteadyMicros() - started_us;
  const PassPlan::Stats& s = plan.stats;
  stats_.MainCycle(total_us - s.backfill_micros, static_cast<uint32_t>(s.main_tested),
                   static_cast<uint32_t>(input.snapshot.pending.size()));
  if (options.backfill) {
    stats_.BackfillCycle({now, s.backfill_micros, static_cast<uint32_t>(s.backfill_tested),
                          static_cast<uint32_t>(s.backfill_tried),
                          static_cast<uint32_t>(s.backfill_queue), 0});
  }
  if (replan) RequestSchedule();
}

DiagStats::Snapshot Controller::Stats() {
  DiagStats::Snapshot snapshot = stats_.Get(clock_.Now());
  // Slurm's agents send RPCs to nodes and retry them; Skiff's intents (launches,
  // prologs, epilogs, signals, burst-buffer stages) run on two work queues.
  if (!queues_started_.load(std::memory_order_acquire)) return snapshot;  // before Start
  for (WorkQueue* queue : {work_.get(), bb_work_.get()}) {
    const WorkQueue::Load load = queue->load();
    snapshot.agents.queue_size += static_cast<uint32_t>(load.waiting);
    snapshot.agents.count += static_cast<uint32_t>(load.running);
    snapshot.agents.thread_count += static_cast<uint32_t>(load.running);
  }
  return snapshot;
}

absl::Status Controller::ResetStats(const Caller& caller) {
  if (!IsPrivileged(caller.uid)) {
    logger_.error("Security violation: REQUEST_STATS_INFO reset from uid={}", caller.uid);
    return absl::PermissionDeniedError("Access/permission denied");
  }
  stats_.Reset(clock_.Now());
  logger_.info("sdiag statistics reset by uid={}", caller.uid);
  return absl::OkStatus();
}

}  // namespace skiff::ctld
