#include "noded/job_manager.h"

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/users.h"
#include "noded/container/container_support.h"
#include "noded/file_io.h"
#include "noded/recovery.h"
#include "noded/shepherd.h"
#include "noded/shepherd_launcher.h"

namespace skiff::noded {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Fills spec->user_name (when empty) and spec->groups from the passwd and group
// databases. Returns the failure text, empty on success.
std::string ResolveUser(LaunchSpec* spec) {
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  int err = 0;
  for (;;) {
    err = spec->user_name.empty()
              ? getpwuid_r(spec->uid, &pw, buf.data(), buf.size(), &found)
              : getpwnam_r(spec->user_name.c_str(), &pw, buf.data(), buf.size(), &found);
    if (err != ERANGE) break;
    buf.resize(buf.size() * 2);
  }
  if (found == nullptr) {
    const std::string why = err != 0 ? absl::StrCat(": ", strerror(err)) : "";
    if (spec->user_name.empty()) {
      return absl::StrCat("uid ", spec->uid, " has no user on this node (user_name is empty)", why);
    }
    return absl::StrCat("unknown user_name '", spec->user_name, "' on this node", why);
  }
  if (pw.pw_uid != spec->uid) {
    return absl::StrCat("user_name '", spec->user_name, "' has uid ", pw.pw_uid,
                        " on this node, not uid ", spec->uid);
  }
  spec->user_name = pw.pw_name;
  spec->groups = GroupsOfUser(spec->user_name, spec->gid);
  if (spec->HasImageContainer() && pw.pw_dir != nullptr) spec->home_dir = pw.pw_dir;
  return "";
}

// errno is read first thing, before building the message can change it.
template <typename... Pieces>
std::string ErrnoText(const Pieces&... what) {
  const int err = errno;
  return absl::StrCat(what..., ": ", strerror(err));
}

}  // namespace

JobManager::JobManager(JobManagerOptions options, spdlog::logger& logger)
    : options_(std::move(options)), logger_(logger) {}

JobManager::~JobManager() { Stop(); }

void JobManager::SetFinishedListener(std::function<void()> listener) {
  finished_listener_ = std::move(listener);
}

bool JobManager::IsRunning(uint64_t job_id) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  return it != jobs_.end() && Started(it->second);
}

std::vector<uint64_t> JobManager::RunningJobIds() {
  std::vector<uint64_t> ids;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, job] : jobs_) {
    if (Started(job)) ids.push_back(id);
  }
  return ids;
}

bool JobManager::RunsAJobOf(uid_t uid) {
  absl::MutexLock lock(&mu_);
  return std::any_of(jobs_.begin(), jobs_.end(), [uid](const auto& entry) {
    return Started(entry.second) && entry.second.uid == uid;
  });
}

absl::StatusOr<LaunchSpec> JobManager::RunningJobSpec(uint64_t job_id) {
  if (!IsRunning(job_id)) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " does not run on this node"));
  }
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(JobDir(job_id), "/", kSpecFileName));
  if (!text.ok()) return text.status();
  return ParseLaunchSpec(*text);
}

absl::StatusOr<uint32_t> JobManager::NextStepId(uint64_t job_id) {
  if (!IsRunning(job_id)) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " does not run on this node"));
  }
  std::lock_guard<std::mutex> lock(step_ids_mu_);
  const std::string path = absl::StrCat(JobDir(job_id), "/next_step");
  uint32_t next = 0;
  if (absl::StatusOr<std::string> text = ReadFile(path); text.ok()) {
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &next)) next = 0;
  }
  if (absl::Status s = WriteFileAtomically(path, absl::StrCat(next + 1, "\n"), 0600); !s.ok()) {
    return s;
  }
  return next;
}

absl::StatusOr<pid_t> JobManager::BatchPid(uint64_t job_id) {
  if (!IsRunning(job_id)) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " does not run on this node"));
  }
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(JobDir(job_id), "/", kPidsFileName));
  if (!text.ok()) return text.status();
  absl::StatusOr<JobPids> pids = ParseJobPids(*text);
  if (!pids.ok()) return pids.status();
  if (pids->job_pid <= 0) return absl::NotFoundError("the batch script has not started yet");
  return pids->job_pid;
}

absl::Status JobManager::EndAllocation(uint64_t job_id, int exit_code) {
  if (!IsRunning(job_id)) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " does not run on this node"));
  }
  if (absl::Status s =
          WriteFileAtomically(absl::StrCat(JobDir(job_id), "/", kAllocationEndFileName),
                              FormatAllocationEnd(exit_code), 0600);
      !s.ok()) {
    return s;
  }
  return Terminate(job_id, options_.kill_wait);
}

std::vector<std::string> JobManager::CgroupProcsFiles(const LaunchSpec& spec) const {
  if (!options_.cgroups || spec.cgroup_path.empty()) return {};
  return options_.cgroups->ProcsFiles(spec.cgroup_path);
}

std::string JobManager::JobDir(uint64_t job_id) const {
  std::string spool = options_.spool_dir;
  while (spool.size() > 1 && spool.back() == '/') spool.pop_back();
  return absl::StrCat(spool, "/", JobDirName(job_id));
}

void JobManager::Start() {
  Recover();
  monitor_ = std::thread([this] { MonitorLoop(); });
}

void JobManager::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (monitor_.joinable()) monitor_.join();
}

// ------------------------------------------------------------------ recovery

void JobManager::Recover() {
  absl::StatusOr<std::vector<std::string>> names = ListDir(options_.spool_dir);
  if (!names.ok()) {
    logger_.error("cannot scan SlurmdSpoolDir: {}", std::string(names.status().message()));
    return;
  }
  std::vector<uint64_t> abandoned_finished;
  for (const std::string& name : *names) {
    std::optional<uint64_t> id = ParseJobDirName(name);
    if (!id) continue;
    const std::string dir = JobDir(*id);
    // Liveness before status: a shepherd writes its status before it exits, so
    // one found dead has left its status for the read that follows.
    JobDirSnapshot snapshot;
    if (absl::StatusOr<std::string> p = ReadFile(absl::StrCat(dir, "/", kPidsFileName)); p.ok()) {
      snapshot.pids = *p;
      if (absl::StatusOr<JobPids> pids = ParseJobPids(*p); pids.ok()) {
        snapshot.shepherd_cmdline = ReadProcCmdline(pids->shepherd_pid);
      }
    }
    if (absl::StatusOr<std::string> s = ReadFile(absl::StrCat(dir, "/", kStatusFileName)); s.ok()) {
      snapshot.status = *s;
    }
    const bool abandoned = access(absl::StrCat(dir, "/", kAbandonedFileName).c_str(), F_OK) == 0;
    const Adoption adoption = DecideAdoption(dir, snapshot);

    Job job;
    job.abandoned = abandoned;
    // The CPUs and cgroup it holds, so that new jobs do not take its CPUs.
    if (absl::StatusOr<std::string> text = ReadFile(absl::StrCat(dir, "/", kSpecFileName));
        text.ok()) {
      if (absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(*text); spec.ok()) {
        job.cpu_ids = spec->cpu_ids;
        job.uid = spec->uid;
        if (spec->cgroup_version != 0) job.cgroup_path = spec->cgroup_path;
      }
    }
    if (adoption.kind == Adoption::kRunning) {
      job.state = Job::kRunning;
      job.shepherd_pid = adoption.pids.shepherd_pid;
      job.pids = adoption.pids;
      if (abandoned) {  // the KILL timer died with the last noded: start it again
        job.terminate_requested = true;
        job.kill_wait = options_.kill_wait;
      }
      logger_.info("JobId={} re-adopted: running, shepherd pid {}, job pid {}", *id,
                   job.shepherd_pid, job.pids.job_pid);
    } else {
      job.state = Job::kFinished;
      job.result = adoption.result;
      logger_.info("JobId={} re-adopted: finished, exit code {} signal {}{}{}", *id,
                   job.result.exit_code, job.result.signal,
                   job.result.failure.empty() ? "" : ", failure: ", job.result.failure);
      if (abandoned) abandoned_finished.push_back(*id);
    }
    absl::MutexLock lock(&mu_);
    jobs_[*id] = job;
  }
  for (uint64_t id : abandoned_finished) Acknowledge(id);
}

// ------------------------------------------------------------------ launch

std::string JobManager::PrepareJobDir(LaunchSpec& spec, const std::string& script,
                                      const std::string& dir) {
  if (std::string failure = ResolveUser(&spec); !failure.empty()) return failure;
  if (mkdir(dir.c_str(), 0711) != 0) {
    if (errno != EEXIST) return ErrnoText("cannot create job directory ", dir);
    // Left over from a job this noded no longer tracks (its removal failed).
    if (absl::Status s = RemoveJobDir(dir); !s.ok()) return std::string(s.message());
    if (mkdir(dir.c_str(), 0711) != 0) {
      return ErrnoText("cannot create job directory ", dir);
    }
  }
  // 0711: the job's user must reach its script in here, and nothing else.
  if (chmod(dir.c_str(), 0711) != 0) return ErrnoText("cannot chmod ", dir);
  const bool root = geteuid() == 0;
  absl::Status s = WriteNewFile(absl::StrCat(dir, "/", kScriptFileName), script, 0700,
                                root ? spec.uid : static_cast<uid_t>(-1),
                                root ? spec.gid : static_cast<gid_t>(-1));
  if (s.ok()) {
    s = WriteNewFile(absl::StrCat(dir, "/", kSpecFileName), FormatLaunchSpec(spec), 0600);
  }
  if (!s.ok()) return std::string(s.message());
  return "";
}

void JobManager::FinishLaunchFailure(uint64_t job_id, const std::string& dir,
                                     const std::string& failure) {
  JobResult result;
  result.exit_code = 1;
  result.failure = failure;
  logger_.error("JobId={} failed to launch: {}", job_id, failure);
  // The status file makes the failure survive a noded restart; without a job
  // directory it lives in memory only.
  if (access(dir.c_str(), F_OK) == 0 &&
      access(absl::StrCat(dir, "/", kStatusFileName).c_str(), F_OK) != 0) {
    (void)WriteFileAtomically(absl::StrCat(dir, "/", kStatusFileName), FormatJobStatus(result),
                              0600);
  }
  bool abandoned = false;
  {
    absl::MutexLock lock(&mu_);
    Job& job = jobs_[job_id];
    job.state = Job::kFinished;
    job.result = result;
    abandoned = job.abandoned;
  }
  if (abandoned) {
    Acknowledge(job_id);
  } else if (finished_listener_) {
    finished_listener_();
  }
}

absl::StatusOr<pid_t> JobManager::Launch(LaunchSpec spec, const std::string& script) {
  if (spec.job_id == 0) return absl::InvalidArgumentError("job_id is 0");
  const uint64_t id = spec.job_id;
  {
    absl::MutexLock lock(&mu_);
    // An earlier run of this job whose directory is being removed: wait, so
    // that the removal cannot take this run's files.
    struct NotCleaning {
      std::map<uint64_t, Job>* jobs;
      uint64_t id;
      static bool Check(NotCleaning* c) {
        auto it = c->jobs->find(c->id);
        return it == c->jobs->end() || it->second.state != Job::kCleaning;
      }
    } not_cleaning{&jobs_, id};
    mu_.Await(absl::Condition(&NotCleaning::Check, &not_cleaning));
    auto it = jobs_.find(id);
    // An earlier run that has ended (a requeued job launched again before its
    // last end was acknowledged): ctld has what it needs of it; this run replaces it.
    if (it != jobs_.end() && it->second.state == Job::kFinished && spec.run != 0 &&
        it->second.result.run != spec.run) {
      logger_.info("JobId={}: run {} replaces ended run {}", id, spec.run, it->second.result.run);
      jobs_.erase(it);
      it = jobs_.end();
    }
    if (it != jobs_.end()) {
      Job* job = &it->second;
      mu_.Await(absl::Condition(
          +[](Job* j) { return j->state != Job::kLaunching; }, job));
      logger_.info("JobId={} already launched (shepherd pid {})", id, job->shepherd_pid);
      return job->shepherd_pid;
    }
    Job& job = jobs_[id];
    job.state = Job::kLaunching;
    job.uid = spec.uid;
    if (options_.cgroups && options_.cgroup_settings.constrain_cores && !spec.cpu_ids.empty()) {
      job.cpu_ids = spec.cpu_ids;  // ctld's choice
    } else if (options_.cgroups && options_.cgroup_settings.constrain_cores) {
      std::set<int> used;
      for (const auto& [other_id, other] : jobs_) {
        if (other_id == id || (other.state != Job::kLaunching && other.state != Job::kRunning)) {
          continue;
        }
        used.insert(other.cpu_ids.begin(), other.cpu_ids.end());
      }
      job.cpu_ids = ChooseCpuIds(spec.cpus, options_.node_cpus, used);
      spec.cpu_ids = job.cpu_ids;
    }
  }

  spec.node_name = options_.node_name;
  // A node with MIG devices: how CUDA names them (gpu/mig.h), unless the
  // launch named them already (an MPS job's GPU is its server's device 0).
  if (spec.gpu_cuda_names.empty() &&
      std::any_of(options_.gpu_cuda_names.begin(), options_.gpu_cuda_names.end(),
                  [](const std::string& name) { return !name.empty(); })) {
    spec.gpu_cuda_names = options_.gpu_cuda_names;
  }
  if (!options_.job_conf_path.empty()) spec.environment["SKIFF_CONF"] = options_.job_conf_path;
  spec.prolog = options_.prolog;
  spec.epilog = options_.epilog;
  spec.task_prolog = options_.task_prolog;
  spec.task_epilog = options_.task_epilog;
  spec.prolog_epilog_timeout = options_.prolog_epilog_timeout;
  const std::string dir = JobDir(id);
  if (spec.HasImageContainer()) {
    if (options_.container_user_helper.empty()) {
      FinishLaunchFailure(id, dir, kContainerImagesUnsupported);
      return 0;
    }
    if (!options_.container_unavailable.empty()) {
      FinishLaunchFailure(id, dir, absl::StrCat("container: ", options_.container_unavailable));
      return 0;
    }
    spec.oci_conf = options_.oci_conf;
    spec.container_devices =
        ContainerDevices(options_.gpu_files, options_.control_devices, spec.gpu_indices);
    spec.image_cache = options_.image_cache;
    spec.image_cache_bytes = options_.image_cache_bytes;
    spec.registry_mirror = options_.registry_mirror;
    spec.container_user_helper = options_.container_user_helper;
    if (!spec.gpu_indices.empty()) spec.container_driver_files = options_.container_driver_files;
  }
  if (!spec.container_bundle.empty()) {
    if (!options_.container_unavailable.empty()) {
      FinishLaunchFailure(id, dir, absl::StrCat("container: ", options_.container_unavailable));
      return 0;
    }
    spec.oci_conf = options_.oci_conf;
    spec.container_config_json = options_.container_config_json;
    spec.container_devices =
        ContainerDevices(options_.gpu_files, options_.control_devices, spec.gpu_indices);
  }
  if (std::string failure = SetUpCgroup(spec); !failure.empty()) {
    FinishLaunchFailure(id, dir, failure);
    return 0;
  }
  if (std::string failure = PrepareJobDir(spec, script, dir); !failure.empty()) {
    FinishLaunchFailure(id, dir, failure);
    return 0;
  }
  if (options_.fence_lease.count() > 0 && !WriteLease(dir)) {
    FinishLaunchFailure(id, dir, absl::StrCat("cannot write the job's lease in ", dir));
    return 0;
  }
  absl::StatusOr<StartedShepherd> started =
      StartShepherd(options_.shepherd_binary, dir, options_.ready_timeout);
  if (!started.ok()) {
    FinishLaunchFailure(id, dir, std::string(started.status().message()));
    return 0;
  }
  if (!started->ready) {
    logger_.warn("JobId={}: shepherd pid {} not ready after {} ms; watching it", id, started->pid,
                 options_.ready_timeout.count());
  }
  JobPids pids;
  if (absl::StatusOr<std::string> text = ReadFile(absl::StrCat(dir, "/", kPidsFileName));
      text.ok()) {
    if (absl::StatusOr<JobPids> parsed = ParseJobPids(*text); parsed.ok()) pids = *parsed;
  }
  std::vector<SignalAction> actions;
  {
    absl::MutexLock lock(&mu_);
    Job& job = jobs_[id];
    job.state = Job::kRunning;
    job.shepherd_pid = started->pid;
    job.own_child = true;
    job.pids = pids;
    CollectTerminationLocked(job, SteadyClock::now(), &actions);  // a TerminateJob that raced
  }
  SendSignals(id, actions);
  logger_.info("JobId={} launched as uid {}: shepherd pid {}, job pid {}{}{}", id, spec.uid,
               started->pid, pids.job_pid, spec.cgroup_path.empty() ? "" : ", cgroup ",
               spec.cgroup_path);
  return started->pid;
}

std::string JobManager::SetUpCgroup(LaunchSpec& spec) {
  if (!options_.cgroups) return "";
  const CgroupSettings& settings = options_.cgroup_settings;
  JobCgroupLimits limits;
  if (settings.constrain_cores) {
    // Logical ids wrap around the real cores when the node is configured with
    // more CPUs than its host has (cgroup_plan.h, MapToHostCpus).
    limits.cpus = MapToHostCpus(spec.cpu_ids, options_.host_cpus);
  }
  if (settings.constrain_ram) {
    limits.ram_bytes = RamLimitBytes(settings, spec.memory_mb);
    if (settings.constrain_swap)
      limits.ram_swap_bytes = RamSwapLimitBytes(settings, spec.memory_mb);
    limits.swappiness = settings.memory_swappiness;
  }
  if (settings.constrain_devices) {
    limits.denied_devices = DeniedDevices(options_.gpu_devices, spec.gpu_indices);
  }
  const std::string path = JobCgroupRelPath(options_.node_name, spec.job_id);
  if (absl::Status s = options_.cgroups->CreateJob(path, limits); !s.ok()) {
    return absl::StrCat("cannot set up the job's cgroup: ", s.message());
  }
  {
    absl::MutexLock lock(&mu_);
    jobs_[spec.job_id].cgroup_path = path;
  }
  spec.cgroup_version = static_cast<int>(options_.cgroups->version());
  spec.cgroup_mount = settings.mountpoint;
  spec.cgroup_path = path;
  spec.cgroup_controllers = options_.cgroups->controllers();
  logger_.debug("JobId={}: cgroup {} cpus '{}' memory {} bytes, {} devices denied", spec.job_id,
                path, FormatCpuList(limits.cpus), limits.ram_bytes, limits.denied_devices.size());
  return "";
}

void JobManager::RemoveCgroup(uint64_t job_id, const std::string& cgroup_path) {
  if (!options_.cgroups || cgroup_path.empty()) return;
  absl::Status s = options_.cgroups->Remove(cgroup_path);
  if (s.code() == absl::StatusCode::kFailedPrecondition) {  // processes left: kill them
    (void)options_.cgroups->KillAll(cgroup_path);
    for (int i = 0; i < 100 && !options_.cgroups->Pids(cgroup_path).empty(); ++i) {
      usleep(10 * 1000);
    }
    s = options_.cgroups->Remove(cgroup_path);
  }
  if (!s.ok()) logger_.warn("JobId={}: {}", job_id, std::string(s.message()));
}

bool JobManager::WriteLease(const std::string& dir) {
  const int64_t expiry =
      MonotonicMillis() +
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.fence_lease).count();
  return WriteFileAtomically(absl::StrCat(dir, "/", kLeaseFileName), FormatLease(expiry), 0600)
      .ok();
}

void JobManager::RenewLeases() {
  if (options_.fence_lease.count() <= 0) return;
  std::vector<uint64_t> running;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, job] : jobs_) {
      if (job.state == Job::kRunning || job.state == Job::kLaunching) running.push_back(id);
    }
  }
  for (uint64_t id : running) {
    if (!WriteLease(JobDir(id))) logger_.warn("JobId={}: cannot renew its lease", id);
  }
}

// ------------------------------------------------------------------ monitor

void JobManager::MonitorLoop() {
  for (;;) {
    Tick();
    absl::MutexLock lock(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&stopping_),
                             absl::FromChrono(options_.poll_interval))) {
      return;
    }
  }
}

void JobManager::Tick() {
  struct Probe {
    uint64_t id;
    pid_t shepherd_pid;
    bool own_child;
    bool need_pids;
  };
  struct Observation {
    uint64_t id;
    std::optional<JobResult> result;  // finished
    std::optional<JobPids> pids;      // newly read
  };
  std::vector<Probe> probes;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, job] : jobs_) {
      if (job.state != Job::kRunning) continue;
      probes.push_back({id, job.shepherd_pid, job.own_child, job.pids.job_pgid <= 0});
    }
  }

  // Shepherds seen exiting on an earlier tick: gone by now, or soon.
  std::vector<pid_t> still_exiting;
  for (pid_t pid : exiting_shepherds_) {
    if (waitpid(pid, nullptr, WNOHANG) == 0) still_exiting.push_back(pid);
  }
  exiting_shepherds_ = std::move(still_exiting);

  std::vector<Observation> observations;
  for (const Probe& p : probes) {
    const std::string dir = JobDir(p.id);
    // Liveness first, then the status file: a shepherd writes its status before
    // it exits, so "gone and no status" really means lost.
    bool gone = false;
    const pid_t r = waitpid(p.shepherd_pid, nullptr, WNOHANG);
    if (r == p.shepherd_pid) {
      gone = true;
    } else if (p.own_child) {
      gone = r < 0 && errno == ECHILD;
    } else {
      // Adopted from an earlier noded: not our child (unless that noded was this
      // process). A zombie or a recycled pid does not match.
      gone = !IsShepherdCmdline(ReadProcCmdline(p.shepherd_pid), dir);
    }
    Observation o{p.id, std::nullopt, std::nullopt};
    absl::StatusOr<std::string> status = ReadFile(absl::StrCat(dir, "/", kStatusFileName));
    if (status.ok()) {
      JobDirSnapshot snapshot;
      snapshot.status = *status;
      o.result = DecideAdoption(dir, snapshot).result;
      // It writes its status before it exits: not reaped yet, it would be
      // probed no more once the job is finished.
      if (p.own_child && r == 0) exiting_shepherds_.push_back(p.shepherd_pid);
    } else if (gone) {
      o.result = ShepherdLostResult();
    } else if (p.need_pids) {
      if (absl::StatusOr<std::string> text = ReadFile(absl::StrCat(dir, "/", kPidsFileName));
          text.ok()) {
        if (absl::StatusOr<JobPids> pids = ParseJobPids(*text); pids.ok() && pids->job_pgid > 0) {
          o.pids = *pids;
        }
      }
    }
    observations.push_back(std::move(o));
  }

  std::vector<std::pair<uint64_t, std::vector<SignalAction>>> signals;
  std::vector<uint64_t> abandoned_done;
  bool any_finished = false;
  const SteadyClock::time_point now = SteadyClock::now();
  {
    absl::MutexLock lock(&mu_);
    for (const Observation& o : observations) {
      auto it = jobs_.find(o.id);
      if (it == jobs_.end() || it->second.state != Job::kRunning) continue;
      Job& job = it->second;
      if (o.result) {
        job.state = Job::kFinished;
        job.result = *o.result;
        logger_.info("JobId={} ended: exit code {} signal {}{}{}", o.id, job.result.exit_code,
                     job.result.signal,
                     job.result.failure.empty() ? "" : ", failure: ", job.result.failure);
        if (job.abandoned) {
          abandoned_done.push_back(o.id);
        } else {
          any_finished = true;
        }
        continue;
      }
      if (o.pids) job.pids = *o.pids;
    }
    for (auto& [id, job] : jobs_) {
      std::vector<SignalAction> actions;
      CollectTerminationLocked(job, now, &actions);
      if (!actions.empty()) signals.emplace_back(id, std::move(actions));
    }
  }
  for (const auto& [id, actions] : signals) SendSignals(id, actions);
  for (uint64_t id : abandoned_done) Acknowledge(id);
  if (any_finished && finished_listener_) finished_listener_();
}

// ------------------------------------------------------------------ reports

std::vector<JobReport> JobManager::Jobs() {
  std::vector<JobReport> reports;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, job] : jobs_) {
    if (job.abandoned || job.state == Job::kCleaning) continue;  // acknowledged: ctld has it
    JobReport report;
    report.job_id = id;
    report.finished = job.state == Job::kFinished;
    if (report.finished) report.result = job.result;
    reports.push_back(std::move(report));
  }
  return reports;
}

std::vector<JobReport> JobManager::FinishedJobs() {
  std::vector<JobReport> reports;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, job] : jobs_) {
    if (job.abandoned || job.state != Job::kFinished) continue;
    JobReport report;
    report.job_id = id;
    report.finished = true;
    report.result = job.result;
    reports.push_back(std::move(report));
  }
  return reports;
}

void JobManager::Acknowledge(uint64_t job_id) {
  std::string cgroup;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    if (it->second.state != Job::kFinished) {
      logger_.warn("JobId={}: end acknowledged while it still runs; ignored", job_id);
      return;
    }
    it->second.state = Job::kCleaning;  // a relaunch waits until the directory is gone
    cgroup = it->second.cgroup_path;
  }
  RemoveCgroup(job_id, cgroup);
  if (absl::Status s = RemoveJobDir(JobDir(job_id)); !s.ok()) {
    logger_.warn("JobId={}: {}", job_id, std::string(s.message()));
  }
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && it->second.state == Job::kCleaning) jobs_.erase(it);
}

void JobManager::Abandon(uint64_t job_id) {
  std::vector<SignalAction> actions;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    Job& job = it->second;
    if (job.state != Job::kFinished) {
      logger_.info("JobId={}: ctld no longer wants it; terminating", job_id);
      job.abandoned = true;
      if (!job.terminate_requested) {
        job.terminate_requested = true;
        job.kill_wait = options_.kill_wait;
      }
      CollectTerminationLocked(job, SteadyClock::now(), &actions);
    } else {
      job.abandoned = true;
    }
  }
  SendSignals(job_id, actions);
  const std::string dir = JobDir(job_id);
  // So that a restarted noded does not report it again either.
  if (access(dir.c_str(), F_OK) == 0) {
    (void)WriteFileAtomically(absl::StrCat(dir, "/", kAbandonedFileName), "", 0600);
  }
  bool finished = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    finished = it != jobs_.end() && it->second.state == Job::kFinished;
  }
  if (finished) Acknowledge(job_id);
}

}  // namespace skiff::noded
