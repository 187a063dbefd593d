#include "ctld/controller.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff {
namespace {

constexpr int kWorkThreads = 32;
// Burst-buffer stages running at once (each blocks a thread in RunLua). Eight
// keeps a 2-core controller responsive under hundreds of staging jobs; the
// rest wait their turn in order.
constexpr int kBbStageThreads = 8;
// How long a freshly launched job may be missing from its node's report before
// ctld believes the node lost it (the launch RPC may still be in flight).
constexpr int64_t kLaunchGraceSeconds = 10;

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string Describe(const absl::StatusOr<v1::RunScriptReply>& result) {
  if (!result.ok()) return std::string(result.status().message());
  const v1::RunScriptReply& reply = *result;
  std::string text;
  if (!reply.error().empty()) {
    text = reply.error();
  } else if (reply.timed_out()) {
    text = "timed out";
  } else if (reply.signal() != 0) {
    text = absl::StrCat("killed by signal ", reply.signal());
  } else {
    text = absl::StrCat("exit code ", reply.exit_code());
  }
  if (!reply.output_tail().empty()) {
    std::string tail = reply.output_tail();
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    const size_t cut = tail.rfind('\n');
    absl::StrAppend(&text, ": ", cut == std::string::npos ? tail : tail.substr(cut + 1));
  }
  return text;
}

bool Succeeded(const absl::StatusOr<v1::RunScriptReply>& result) {
  return result.ok() && result->error().empty() && !result->timed_out() && result->signal() == 0 &&
         result->exit_code() == 0;
}

}  // namespace

Controller::Controller(SkiffConfig config, std::string conf_path, std::set<uid_t> privileged_uids,
                       Deps deps)
    : config_(std::move(config)),
      conf_path_(std::move(conf_path)),
      privileged_uids_([&] {
        privileged_uids.insert(0);
        return privileged_uids;
      }()),
      clock_(*deps.clock),
      logger_(*deps.logger),
      store_(*deps.store),
      node_client_(*deps.nodes),
      scripts_(*deps.scripts),
      bb_(deps.bb),
      start_time_(deps.clock->Now()),
      config_overrides_(config_.slurmd_parameters.count("config_overrides") > 0),
      scheduler_options_(OptionsFromConfig(config_)),
      preempt_options_(PreemptOptionsFromConfig(config_)),
      nodes_(config_, start_time_) {
  next_job_id_ = static_cast<uint64_t>(std::max<int64_t>(1, config_.first_job_id));
}

Controller::~Controller() { Stop(); }

// ---------------------------------------------------------------- start / stop

absl::Status Controller::Recover() {
  if (absl::Status s = RecoverQos(); !s.ok()) return s;
  absl::StatusOr<uint64_t> max_id = store_.MaxJobId();
  if (!max_id.ok()) return max_id.status();
  absl::StatusOr<std::vector<Job>> jobs = store_.LoadActive(clock_.Now() - config_.min_job_age);
  if (!jobs.ok()) return jobs.status();
  int active = 0;
  size_t loaded = 0;
  uint64_t next_id = 0;
  {
    absl::MutexLock lock(&mu_);
    next_job_id_ = std::max(next_job_id_, *max_id + 1);
    for (Job& job : *jobs) {
      if (job.state == JobState::kConfiguring || job.state == JobState::kRunning) {
        Placement placement;
        placement.job_id = job.id;
        placement.nodes = job.nodes;
        placement.cpus_per_node = job.cpus_per_node;
        placement.mem_per_node_mb = job.mem_per_node_mb;
        placement.gpu_indices =
            job.gpus_by_node.size() == job.nodes.size()
                ? job.gpus_by_node
                : std::vector<std::vector<int>>(job.nodes.size(), job.gpu_indices);
        nodes_.Allocate(placement);
      }
      if (!IsFinal(job.state)) ++active;
      const uint64_t id = job.id;
      jobs_.emplace(id, std::move(job));
    }
    loaded = jobs_.size();
    next_id = next_job_id_;
  }
  // Logged outside mu_: no I/O under the state lock, even at start-up.
  logger_.info("recovered {} jobs ({} not finished); next JobId={}", loaded, active, next_id);
  return absl::OkStatus();
}

void Controller::Start() {
  work_ = std::make_unique<WorkQueue>(kWorkThreads);
  bb_work_ = std::make_unique<WorkQueue>(kBbStageThreads);
  PollBbPools();  // before the first pass: submissions and stage-ins need the pools
  next_pool_poll_ = clock_.Now() + 30;
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    BbRecoverLocked(effects);
    for (auto& [id, job] : jobs_) {
      if (job.state == JobState::kConfiguring) {
        effects.log.push_back(absl::StrCat("JobId=", id, " was CONFIGURING: resuming its start"));
        ContinueStartLocked(job, effects);
      } else if (job.state == JobState::kCompleting) {
        effects.log.push_back(
            absl::StrCat("JobId=", id, " was COMPLETING: running its epilog again"));
        EpilogOrFinishLocked(job, effects);
      }
    }
  }
  Apply(std::move(effects));
  scheduler_ = std::thread([this] { SchedulerLoop(); });
  housekeeping_ = std::thread([this] { HousekeepingLoop(); });
  RequestSchedule();
}

void Controller::Stop() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  if (housekeeping_.joinable()) housekeeping_.join();
  bb_work_.reset();
  work_.reset();
}

void Controller::RequestSchedule() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    schedule_requested_ = true;
  }
  wake_cv_.notify_all();
}

void Controller::SchedulerLoop() {
  // Events are coalesced: a burst of submissions or completions wakes the
  // scheduler once, after sched_min_interval.
  int64_t min_interval_us = 20000;
  if (auto it = config_.scheduler_parameters.find("sched_min_interval");
      it != config_.scheduler_parameters.end()) {
    min_interval_us = std::max<int64_t>(0, atoll(it->second.c_str()));
  }
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(wake_mu_);
      wake_cv_.wait_for(lock, std::chrono::seconds(5),
                        [this] { return stopping_ || schedule_requested_; });
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
      std::unique_lock<std::mutex> lock(wake_mu_);
      if (wake_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) return;
    }
    CheckNodeTimeouts();
    EnforceTimeLimits();
    PurgeOldJobs();
    BbHousekeeping();
  }
}

void Controller::Apply(Effects effects) {
  for (const std::string& line : effects.log) logger_.info("{}", line);
  if (!effects.save.empty()) {
    absl::Status saved = store_.Save(std::move(effects.save));
    if (!saved.ok()) logger_.error("persisting jobs failed: {}", std::string(saved.message()));
  }
  for (auto& action : effects.actions) {
    if (work_) work_->Post(std::move(action));
  }
  for (auto& action : effects.bb_actions) {
    if (bb_work_) bb_work_->Post(std::move(action));
  }
}

// ---------------------------------------------------------------- helpers (locked)

Job* Controller::FindJobLocked(uint64_t id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

bool Controller::TransitionLocked(Job& job, JobEvent event, Effects& effects) {
  absl::StatusOr<std::string> line = Transition(job, event);
  if (!line.ok()) {
    effects.log.push_back(std::string(line.status().message()));
    return false;
  }
  effects.log.push_back(std::move(*line));
  return true;
}

std::string Controller::NodeTargetLocked(const std::string& node_name) {
  const Node* node = nodes_.Find(node_name);
  if (node == nullptr) return "";
  const std::string& addr = node->config.addr.empty() ? node->config.name : node->config.addr;
  const int port = node->port != 0          ? node->port
                   : node->config.port != 0 ? node->config.port
                                            : config_.slurmd_port;
  return absl::StrCat(addr, ":", port);
}

ClusterFacts Controller::FactsLocked(const Job& job) {
  ClusterFacts facts{config_.cluster_name, conf_path_, 0};
  if (!job.nodes.empty()) {
    if (const Node* node = nodes_.Find(job.nodes.front())) {
      facts.node_real_memory_mb = node->config.real_memory_mb;
    }
  }
  return facts;
}

void Controller::ReleaseLocked(Job& job) {
  nodes_.Release(job.id, job.nodes, job.cpus_per_node, job.mem_per_node_mb);
}

void Controller::ContinueStartLocked(Job& job, Effects& effects) {
  if (job.cancel_requested) {
    if (TransitionLocked(job, JobEvent::kAbort, effects)) FinishRunLocked(job, effects);
    return;
  }
  if (BbBeforeLaunchLocked(job, effects)) return;  // slurm_bb_pre_run first
  if (!job.prolog_done && !config_.prolog_ctld.empty()) {
    effects.save.push_back(job);
    effects.actions.push_back(PrologAction(job));
    return;
  }
  job.prolog_done = true;
  effects.save.push_back(job);
  effects.actions.push_back(
      LaunchAction(job, NodeTargetLocked(job.nodes.front()), FactsLocked(job)));
}

void Controller::FinishRunLocked(Job& job, Effects& effects) {
  ReleaseLocked(job);
  terminate_sent_.erase(job.id);
  EpilogOrFinishLocked(job, effects);
  RequestSchedule();
}

void Controller::EpilogOrFinishLocked(Job& job, Effects& effects) {
  if (!config_.epilog_ctld.empty()) {
    effects.save.push_back(job);
    effects.actions.push_back(EpilogAction(job));
    return;
  }
  FinishLocked(job, effects);
}

void Controller::FinishLocked(Job& job, Effects& effects) {
  if (BbBeforeFinishLocked(job, effects)) return;  // stage-out first
  FinishJobLocked(job, effects);
}

void Controller::FinishJobLocked(Job& job, Effects& effects) {
  if (job.final_state == JobState::kPreempted && job.preempt_requeue) {
    RequeueLocked(job, "requeued: preempted", effects);
    return;
  }
  job.end_time = clock_.Now();
  TransitionLocked(job, JobEvent::kFinish, effects);
  effects.save.push_back(job);
  AccrueUsageLocked(job, effects);
}

void Controller::RequeueLocked(Job& job, const std::string& detail, Effects& effects) {
  if (!TransitionLocked(job, JobEvent::kRequeue, effects)) return;
  ++job.restart_count;
  job.nodes.clear();
  job.gpu_indices.clear();
  job.gpus_by_node.clear();
  job.launched = false;
  job.prolog_done = false;
  job.cancel_requested = false;
  job.preempt_requeue = false;
  job.final_state = JobState::kCompleted;
  job.exit_code = 0;
  job.exit_signal = 0;
  job.start_time = 0;
  job.reason = "None";
  job.reason_detail = detail;
  effects.save.push_back(job);
  RequestSchedule();
}

void Controller::TerminateLocked(Job& job, JobState final_state, Effects& effects) {
  job.final_state = final_state;
  ++job.version;
  effects.save.push_back(job);
  if (job.state == JobState::kConfiguring && !job.launched) {
    // The prolog or launch is in flight; it checks cancel_requested when it returns.
    job.cancel_requested = true;
    return;
  }
  if (job.state == JobState::kRunning || job.state == JobState::kConfiguring) {
    terminate_sent_.insert(job.id);
    effects.actions.push_back(TerminateAction(NodeTargetLocked(job.nodes.front()), job.id));
  }
}

void Controller::ApplyReportLocked(Job& job, const JobReport& report, Effects& effects) {
  if (job.state == JobState::kConfiguring) {
    // The node finished (or holds) the job before the launch reply reached us.
    job.launched = true;
    if (!TransitionLocked(job, JobEvent::kLaunched, effects)) return;
  }
  if (!report.finished) {
    effects.save.push_back(job);
    return;
  }
  if (job.state != JobState::kRunning) return;  // already recorded
  job.exit_code = report.exit_code;
  job.exit_signal = report.exit_signal;
  if (!report.failure.empty()) {
    job.reason_detail = report.failure;
    job.final_state = JobState::kFailed;
  } else if (job.final_state == JobState::kCompleted &&
             (report.exit_code != 0 || report.exit_signal != 0)) {
    job.final_state = JobState::kFailed;
  }
  if (TransitionLocked(job, JobEvent::kExited, effects)) FinishRunLocked(job, effects);
}

void Controller::NodeDownLocked(const std::string& node_name, Effects& effects) {
  for (auto& [id, job] : jobs_) {
    if (job.state != JobState::kConfiguring && job.state != JobState::kRunning) continue;
    if (!Contains(job.nodes, node_name)) continue;
    // The batch script may still run on a healthy batch host: stop it there.
    if (job.launched && job.nodes.front() != node_name) {
      effects.actions.push_back(TerminateAction(NodeTargetLocked(job.nodes.front()), job.id));
    }
    const bool requeue = job.requeue && job.final_state == JobState::kCompleted;
    if (requeue) {
      ReleaseLocked(job);
      RequeueLocked(job, absl::StrCat("requeued: NodeName=", node_name, " failed"), effects);
    } else {
      if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
      const JobEvent event = job.state == JobState::kRunning ? JobEvent::kExited : JobEvent::kAbort;
      if (TransitionLocked(job, event, effects)) FinishRunLocked(job, effects);
    }
  }
  RequestSchedule();
}

// ---------------------------------------------------------------- nodes

absl::StatusOr<Controller::Registration> Controller::RegisterNode(
    const NodeRegistration& registration, const std::vector<JobReport>& reports) {
  Effects effects;
  Registration out;
  std::vector<NodeChange> changes;
  {
    absl::MutexLock lock(&mu_);
    const int64_t now = clock_.Now();
    absl::Status status = nodes_.Register(registration, now, config_overrides_, &changes);
    if (!status.ok()) return status;
    std::set<uint64_t> reported;
    for (const JobReport& report : reports) {
      reported.insert(report.job_id);
      Job* job = FindJobLocked(report.job_id);
      const bool ours = job != nullptr && !job->nodes.empty() &&
                        job->nodes.front() == registration.node_name &&
                        (job->state == JobState::kConfiguring || job->state == JobState::kRunning);
      if (!ours) {
        if (!report.finished) out.jobs_to_terminate.push_back(report.job_id);
        continue;
      }
      ApplyReportLocked(*job, report, effects);
    }
    // Jobs ctld believes run on this node but the node does not know: lost.
    for (auto& [id, job] : jobs_) {
      if (job.state != JobState::kRunning || job.nodes.empty() ||
          job.nodes.front() != registration.node_name || reported.count(id) > 0 ||
          now - job.start_time < kLaunchGraceSeconds) {
        continue;
      }
      effects.log.push_back(absl::StrCat(
          "JobId=", id, " is not known to NodeName=", registration.node_name, " any more"));
      job.exit_code = 0;
      if (job.final_state == JobState::kCompleted) job.final_state = JobState::kNodeFail;
      if (TransitionLocked(job, JobEvent::kExited, effects)) FinishRunLocked(job, effects);
    }
    out.heartbeat_interval = config_.heartbeat_interval;
  }
  logger_.info("NodeName={} registered: CPUs={} RealMemory={} port {}, {} jobs reported",
               registration.node_name, registration.cpus, registration.real_memory_mb,
               registration.port, reports.size());
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
  Apply(std::move(effects));
  RequestSchedule();
  return out;
}

bool Controller::Heartbeat(const std::string& node_name) {
  std::vector<NodeChange> changes;
  bool registered;
  {
    absl::MutexLock lock(&mu_);
    registered = nodes_.Heartbeat(node_name, clock_.Now(), &changes);
  }
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
  return registered;
}

absl::Status Controller::JobComplete(const std::string& node_name, const JobReport& report) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    Job* job = FindJobLocked(report.job_id);
    if (job == nullptr) return absl::OkStatus();  // purged long ago: nothing to record
    if (job->state != JobState::kConfiguring && job->state != JobState::kRunning) {
      return absl::OkStatus();  // already recorded (a repeated report)
    }
    if (job->nodes.empty() || job->nodes.front() != node_name) {
      return absl::FailedPreconditionError(
          absl::StrCat("JobId=", report.job_id, " does not run on NodeName=", node_name));
    }
    JobReport finished = report;
    finished.finished = true;
    ApplyReportLocked(*job, finished, effects);
  }
  Apply(std::move(effects));
  return absl::OkStatus();
}

absl::Status Controller::UpdateNodes(const Caller& caller, const std::vector<std::string>& names,
                                     const std::string& state, const std::string& reason) {
  if (!IsPrivileged(caller.uid)) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  Effects effects;
  std::vector<NodeChange> changes;
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& name : names) {
      status = nodes_.AdminUpdate(name, state, reason, clock_.Now(), &changes);
      if (!status.ok()) break;
    }
    for (const NodeChange& change : changes) {
      if (change.went_down) NodeDownLocked(change.node_name, effects);
    }
  }
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {} (by uid {})", change.node_name, change.what, caller.uid);
  }
  Apply(std::move(effects));
  RequestSchedule();
  return status;
}

void Controller::CheckNodeTimeouts() {
  Effects effects;
  std::vector<NodeChange> changes;
  {
    absl::MutexLock lock(&mu_);
    nodes_.CheckTimeouts(clock_.Now(), config_.heartbeat_interval, config_.slurmd_timeout,
                         &changes);
    for (const NodeChange& change : changes) {
      if (change.went_down) NodeDownLocked(change.node_name, effects);
    }
  }
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
  Apply(std::move(effects));
}

std::vector<Node> Controller::SnapshotNodes(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  if (names.empty()) return nodes_.nodes();
  std::vector<Node> out;
  for (const Node& node : nodes_.nodes()) {
    if (Contains(names, node.config.name)) out.push_back(node);
  }
  return out;
}

std::vector<PartitionConfig> Controller::SnapshotPartitions(const std::vector<std::string>& names) {
  // Partitions are configuration only for now: immutable, no lock needed.
  std::vector<PartitionConfig> out;
  for (const PartitionConfig& partition : config_.partitions) {
    if (names.empty() || Contains(names, partition.name)) out.push_back(partition);
  }
  return out;
}

std::vector<NodeCapacity> Controller::NodeCapacities() {
  absl::MutexLock lock(&mu_);
  return nodes_.Capacities();
}

// ---------------------------------------------------------------- jobs

absl::StatusOr<uint64_t> Controller::SubmitJob(Job job, const std::vector<uint32_t>& array_tasks,
                                               uint32_t array_max_running) {
  const size_t count = std::max<size_t>(1, array_tasks.size());
  job.state = JobState::kPending;
  job.final_state = JobState::kCompleted;
  job.submit_time = clock_.Now();
  job.eligible_time = std::max(job.submit_time, job.request.begin_time);
  job.version = 1;
  if (job.held) job.reason = job.held_by_admin ? "JobHeldAdmin" : "JobHeldUser";
  std::vector<Job> jobs;
  {
    absl::MutexLock lock(&mu_);
    if (static_cast<int64_t>(jobs_.size() + count) > config_.max_job_count) {
      return absl::ResourceExhaustedError(
          absl::StrCat("Job count limit reached (MaxJobCount=", config_.max_job_count, ")"));
    }
    if (absl::Status s = CheckSubmitLimitsLocked(job, count); !s.ok()) return s;
    if (absl::Status s = CheckDependencyLocked(job); !s.ok()) return s;
    if (absl::Status s = PrepareBurstBufferLocked(job); !s.ok()) return s;
    // An array's tasks take consecutive ids; the first is the array's id.
    const uint64_t first = next_job_id_;
    next_job_id_ += count;
    for (size_t k = 0; k < count; ++k) {
      Job task = k + 1 == count ? std::move(job) : job;
      task.id = first + k;
      if (!array_tasks.empty()) {
        task.array_job_id = first;
        task.array_task_id = static_cast<int32_t>(array_tasks[k]);
        task.array_max_running = static_cast<int32_t>(array_max_running);
      }
      jobs.push_back(std::move(task));
    }
  }
  // slurm_bb_job_process, outside the lock: it may reject the job.
  if (absl::Status s = ProcessBurstBuffer(jobs); !s.ok()) return s;
  // Durable before anyone can see it: a job that is scheduled is a job on disk.
  const uint64_t id = jobs.front().id;
  if (absl::Status saved = store_.Save(jobs); !saved.ok()) {
    logger_.error("JobId={} not accepted: {}", id, std::string(saved.message()));
    return absl::UnavailableError(absl::StrCat("cannot store the job: ", saved.message()));
  }
  const Job& first = jobs.front();
  logger_.info("JobId={} submitted by {}({}): Partition={} Nodes={} CPUs/task={} GPUs/node={}{}",
               id, first.user_name, first.uid, first.request.partition, first.request.num_nodes,
               first.request.cpus_per_task, first.request.gpus_per_node,
               array_tasks.empty() ? std::string() : absl::StrCat(" ArrayTasks=", count));
  {
    absl::MutexLock lock(&mu_);
    for (Job& task : jobs) {
      const uint64_t task_id = task.id;
      jobs_.emplace(task_id, std::move(task));
    }
  }
  RequestSchedule();
  return id;
}

std::vector<Job*> Controller::ResolveLocked(const JobRef& ref) {
  std::vector<Job*> out;
  Job* job = FindJobLocked(ref.job_id);
  if (job == nullptr) return out;
  if (job->array_job_id != ref.job_id) {  // a plain job, or one task by its own id
    if (ref.array_task_id < 0) out.push_back(job);
    return out;
  }
  // An array's id: its tasks have consecutive ids from it.
  for (auto it = jobs_.find(ref.job_id); it != jobs_.end() && it->second.array_job_id == ref.job_id;
       ++it) {
    if (ref.array_task_id < 0 || it->second.array_task_id == ref.array_task_id) {
      out.push_back(&it->second);
    }
  }
  return out;
}

std::vector<Job> Controller::SnapshotJobs(const std::vector<JobRef>& refs) {
  absl::MutexLock lock(&mu_);
  std::vector<Job> out;
  if (refs.empty()) {
    out.reserve(jobs_.size());
    for (const auto& [id, job] : jobs_) out.push_back(job);
    return out;
  }
  std::set<uint64_t> seen;
  for (const JobRef& ref : refs) {
    for (Job* job : ResolveLocked(ref)) {
      if (seen.insert(job->id).second) out.push_back(*job);
    }
  }
  return out;
}

std::vector<CancelOutcome> Controller::CancelJobs(const Caller& caller, const CancelSpec& spec) {
  std::vector<CancelOutcome> outcomes;
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    std::vector<Job*> selected;
    auto matches = [&](const Job& job) {
      if (!spec.user.empty() && job.user_name != spec.user) return false;
      if (!spec.name.empty() && job.name != spec.name) return false;
      if (!spec.states.empty() &&
          std::find(spec.states.begin(), spec.states.end(), job.state) == spec.states.end()) {
        return false;
      }
      if (!spec.partitions.empty() && !Contains(spec.partitions, job.request.partition)) {
        return false;
      }
      return true;
    };
    if (!spec.jobs.empty()) {
      std::set<uint64_t> seen;
      for (const JobRef& ref : spec.jobs) {
        std::vector<Job*> jobs = ResolveLocked(ref);
        if (jobs.empty()) {
          outcomes.push_back({ref.job_id, absl::NotFoundError("Invalid job id specified")});
        }
        for (Job* job : jobs) {
          // A whole array: its finished tasks are not errors.
          if (jobs.size() > 1 && IsFinal(job->state)) continue;
          if (matches(*job) && seen.insert(job->id).second) selected.push_back(job);
        }
      }
    } else {
      for (auto& [id, job] : jobs_) {
        if (IsFinal(job.state) || !matches(job)) continue;
        // Without ids, a user's filters only ever reach their own jobs (Slurm).
        if (!IsPrivileged(caller.uid) && job.uid != caller.uid) continue;
        selected.push_back(&job);
      }
    }
    const int64_t now = clock_.Now();
    for (Job* job : selected) {
      if (job->uid != caller.uid && !IsPrivileged(caller.uid)) {
        outcomes.push_back({job->id, absl::PermissionDeniedError("Access/permission denied")});
        continue;
      }
      if (IsFinal(job->state) || job->state == JobState::kCompleting) {
        outcomes.push_back(
            {job->id, absl::FailedPreconditionError("Job/step already completing or completed")});
        continue;
      }
      if (spec.signal != 0) {
        if (job->state != JobState::kRunning) {
          outcomes.push_back({job->id, absl::FailedPreconditionError("Job is pending execution")});
          continue;
        }
        const std::string target = NodeTargetLocked(job->nodes.front());
        const uint64_t id = job->id;
        const int signal = spec.signal;
        const bool batch_only = spec.batch_only;
        effects.actions.push_back([this, target, id, signal, batch_only] {
          absl::Status s = node_client_.SignalJob(target, id, signal, batch_only);
          if (!s.ok()) logger_.warn("JobId={} signal {}: {}", id, signal, std::string(s.message()));
        });
        outcomes.push_back({job->id, absl::OkStatus()});
        continue;
      }
      if (job->state == JobState::kPending) {
        job->end_time = now;
        job->final_state = JobState::kCancelled;
        job->reason = "None";
        TransitionLocked(*job, JobEvent::kCancelPending, effects);
        effects.save.push_back(*job);
        BbCancelPendingLocked(*job, spec.hurry, effects);
      } else {
        job->bb_hurry = spec.hurry;
        TerminateLocked(*job, JobState::kCancelled, effects);
      }
      effects.log.push_back(absl::StrCat("JobId=", job->id, " cancelled by uid ", caller.uid));
      outcomes.push_back({job->id, absl::OkStatus()});
    }
  }
  Apply(std::move(effects));
  return outcomes;
}

absl::Status Controller::UpdateJob(const Caller& caller, const JobUpdate& update) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    Job* job = FindJobLocked(update.job_id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    const bool admin = IsPrivileged(caller.uid);
    if (job->uid != caller.uid && !admin) {
      return absl::PermissionDeniedError("Access/permission denied");
    }
    if (IsFinal(job->state)) return absl::FailedPreconditionError("Job has already finished");
    const bool pending = job->state == JobState::kPending;
    if (update.held.has_value()) {
      if (!pending) return absl::FailedPreconditionError("Job is no longer pending execution");
      if (*update.held) {
        job->held = true;
        job->held_by_admin = admin && !update.user_hold;
        job->reason = job->held_by_admin ? "JobHeldAdmin" : "JobHeldUser";
      } else {
        if (job->held_by_admin && !admin) {
          return absl::PermissionDeniedError("Access/permission denied");
        }
        job->held = false;
        job->held_by_admin = false;
        job->reason = "None";
        job->reason_detail.clear();
      }
    }
    if (update.time_limit.has_value()) {
      const int64_t current = job->request.time_limit;
      const int64_t wanted = *update.time_limit;
      const bool lowers =
          current == kUnlimited ? wanted != kUnlimited : wanted != kUnlimited && wanted <= current;
      if (!admin && !lowers) return absl::PermissionDeniedError("Access/permission denied");
      job->request.time_limit = wanted;
    }
    if (update.name.has_value()) job->name = *update.name;
    if (update.account.has_value()) job->account = *update.account;
    if (update.qos.has_value()) {
      if (!pending) return absl::FailedPreconditionError("Job is no longer pending execution");
      if (qos_.count(*update.qos) == 0)
        return absl::InvalidArgumentError("Invalid qos specification");
      job->qos = *update.qos;
    }
    if (update.partition.has_value()) {
      if (!pending) return absl::FailedPreconditionError("Job is no longer pending execution");
      if (config_.FindPartition(*update.partition) == nullptr) {
        return absl::InvalidArgumentError("Invalid partition name specified");
      }
      job->request.partition = *update.partition;
    }
    if (update.min_nodes.has_value()) {
      if (!pending) return absl::FailedPreconditionError("Job is no longer pending execution");
      if (*update.min_nodes < 1) return absl::InvalidArgumentError("Invalid node count specified");
      job->request.num_nodes = *update.min_nodes;
    }
    ++job->version;
    effects.save.push_back(*job);
    effects.log.push_back(absl::StrCat("JobId=", job->id, " updated by uid ", caller.uid));
  }
  Apply(std::move(effects));
  RequestSchedule();
  return absl::OkStatus();
}

// ---------------------------------------------------------------- scheduling

void Controller::EnforceTimeLimits() {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    const int64_t now = clock_.Now();
    const int64_t grace = config_.over_time_limit > 0 ? config_.over_time_limit * 60 : 0;
    for (auto& [id, job] : jobs_) {
      if (job.state != JobState::kRunning || job.request.time_limit == kUnlimited) continue;
      if (terminate_sent_.count(id) > 0) continue;
      if (now < job.start_time + job.request.time_limit + grace) continue;
      effects.log.push_back(
          absl::StrCat("JobId=", id, " reached its time limit of ", job.request.time_limit, "s"));
      TerminateLocked(job, JobState::kTimeout, effects);
    }
  }
  Apply(std::move(effects));
}

void Controller::PurgeOldJobs() {
  absl::MutexLock lock(&mu_);
  const int64_t cutoff = clock_.Now() - config_.min_job_age;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Job& job = it->second;
    const bool bb_done = !job.UsesBurstBuffer() || job.bb_state == BbState::kComplete;
    if (IsFinal(job.state) && bb_done && job.end_time < cutoff) {
      it = jobs_.erase(it);  // still in the database for accounting
    } else {
      ++it;
    }
  }
}

// ---------------------------------------------------------------- actions

std::function<void()> Controller::PrologAction(const Job& job) {
  v1::RunScriptRequest request = BuildCtldScriptRequest(CtldScript::kProlog, config_.prolog_ctld,
                                                        config_.prolog_epilog_timeout, job,
                                                        {config_.cluster_name, conf_path_, 0});
  const uint64_t id = job.id;
  const int restart_count = job.restart_count;
  return [this, request, id, restart_count] {
    OnPrologDone(id, restart_count, scripts_.RunScript(request));
  };
}

std::function<void()> Controller::LaunchAction(const Job& job, std::string target,
                                               ClusterFacts facts) {
  // Parsing the spec and building the environment happen on the worker thread,
  // not under mu_ where this snapshot was taken.
  return [this, job, target, facts] {
    v1::JobSpec spec;
    spec.ParseFromString(job.spec_blob);
    if (job.UsesBurstBuffer() && bb_ != nullptr) {
      // slurm_bb_paths: its NAME=value lines join the job's environment.
      absl::StatusOr<std::map<std::string, std::string>> paths = bb_->Paths(job);
      if (!paths.ok()) {
        OnLaunchDone(job.id, job.restart_count, paths.status());
        return;
      }
      for (const auto& [key, value] : *paths) (*spec.mutable_environment())[key] = value;
    }
    const v1::LaunchJobRequest request = BuildLaunchRequest(job, spec, facts);
    OnLaunchDone(job.id, job.restart_count, node_client_.LaunchJob(target, request));
  };
}

std::function<void()> Controller::EpilogAction(const Job& job) {
  v1::RunScriptRequest request = BuildCtldScriptRequest(CtldScript::kEpilog, config_.epilog_ctld,
                                                        config_.prolog_epilog_timeout, job,
                                                        {config_.cluster_name, conf_path_, 0});
  const uint64_t id = job.id;
  return [this, request, id] { OnEpilogDone(id, scripts_.RunScript(request)); };
}

std::function<void()> Controller::TerminateAction(std::string target, uint64_t job_id,
                                                  int64_t grace_time) {
  const int kill_wait = static_cast<int>(std::max<int64_t>(config_.kill_wait, grace_time));
  return [this, target, job_id, kill_wait] {
    absl::Status s = node_client_.TerminateJob(target, job_id, kill_wait);
    if (!s.ok()) {
      logger_.warn("JobId={} terminate on {}: {}", job_id, target, std::string(s.message()));
    }
  };
}

void Controller::OnPrologDone(uint64_t job_id, int restart_count,
                              absl::StatusOr<v1::RunScriptReply> result) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    Job* job = FindJobLocked(job_id);
    if (job == nullptr || job->state != JobState::kConfiguring ||
        job->restart_count != restart_count) {
      return;  // stale: the job moved on meanwhile
    }
    if (result.ok()) {
      effects.log.push_back(absl::StrCat("JobId=", job_id, " PrologSlurmctld ", Describe(result),
                                         " (pid ", result->pid(), ")"));
    }
    if (!Succeeded(result)) {
      // Slurm requeues a job whose PrologSlurmctld fails and holds it.
      ReleaseLocked(*job);
      if (TransitionLocked(*job, JobEvent::kPrologFailed, effects)) {
        ++job->restart_count;
        job->held = true;
        job->held_by_admin = true;
        job->reason = "JobHeldAdmin";
        job->reason_detail = absl::StrCat("PrologSlurmctld failed: ", Describe(result));
        job->nodes.clear();
        job->gpu_indices.clear();
        job->gpus_by_node.clear();
        job->start_time = 0;
        job->prolog_done = false;
        effects.save.push_back(*job);
      }
      RequestSchedule();
    } else {
      job->prolog_done = true;
      ++job->version;
      ContinueStartLocked(*job, effects);
    }
  }
  Apply(std::move(effects));
}

void Controller::OnLaunchDone(uint64_t job_id, int restart_count, absl::Status status) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    Job* job = FindJobLocked(job_id);
    if (job == nullptr || job->state != JobState::kConfiguring ||
        job->restart_count != restart_count) {
      return;  // already running (a node report won the race) or gone
    }
    if (status.ok()) {
      job->launched = true;
      if (TransitionLocked(*job, JobEvent::kLaunched, effects)) effects.save.push_back(*job);
      if (job->cancel_requested) TerminateLocked(*job, JobState::kCancelled, effects);
    } else {
      job->reason_detail =
          absl::StrCat("launch failed on ", job->nodes.front(), ": ", status.message());
      job->final_state = JobState::kFailed;
      job->exit_code = 1;
      if (TransitionLocked(*job, JobEvent::kAbort, effects)) FinishRunLocked(*job, effects);
    }
  }
  Apply(std::move(effects));
}

void Controller::OnEpilogDone(uint64_t job_id, absl::StatusOr<v1::RunScriptReply> result) {
  Effects effects;
  {
    absl::MutexLock lock(&mu_);
    Job* job = FindJobLocked(job_id);
    if (job == nullptr || job->state != JobState::kCompleting) return;
    effects.log.push_back(
        absl::StrCat("JobId=", job_id, " EpilogSlurmctld ", Describe(result),
                     result.ok() ? absl::StrCat(" (pid ", result->pid(), ")") : std::string()));
    FinishLocked(*job, effects);
  }
  Apply(std::move(effects));
}

}  // namespace skiff
