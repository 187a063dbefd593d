// JobManager's signals: what a job is sent when it is signalled, notified or
// terminated (SIGCONT+SIGTERM, then SIGKILL after KillWait), to its process group
// and, with cgroups, to every process of its cgroup. Split from job_manager.cc
// along that seam; the threads and locks are job_manager.h's.
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "noded/file_io.h"
#include "noded/job_files.h"
#include "noded/job_manager.h"
#include "noded/shepherd.h"

namespace skiff::noded {

using SteadyClock = std::chrono::steady_clock;

void JobManager::CollectTerminationLocked(Job& job, SteadyClock::time_point now,
                                          std::vector<SignalAction>* actions) {
  if (job.state != Job::kRunning || !job.terminate_requested || job.pids.job_pgid <= 0) return;
  const pid_t group = -job.pids.job_pgid;
  if (!job.term_sent) {
    job.term_sent = true;
    job.kill_at = now + std::chrono::seconds(std::max(0, job.kill_wait));
    actions->push_back({group, SIGCONT, job.cgroup_path});
    actions->push_back({group, SIGTERM, job.cgroup_path});
  }
  if (!job.kill_sent && job.kill_at && now >= *job.kill_at) {
    job.kill_sent = true;
    actions->push_back({group, SIGKILL, job.cgroup_path});
  }
}

void JobManager::SendSignals(uint64_t job_id, const std::vector<SignalAction>& actions) {
  for (const SignalAction& a : actions) {
    if (options_.cgroups && !a.cgroup.empty()) {
      // Processes that left the job's process group (setsid, double fork) are
      // still in its cgroup.
      absl::Status s = a.sig == SIGKILL ? options_.cgroups->KillAll(a.cgroup)
                                        : options_.cgroups->Signal(a.cgroup, a.sig);
      if (!s.ok())
        logger_.warn("JobId={}: signal {} to cgroup {}: {}", job_id, a.sig, a.cgroup,
                     std::string(s.message()));
    }
    if (kill(a.target, a.sig) != 0 && errno != ESRCH) {
      logger_.warn("JobId={}: kill({}, {}): {}", job_id, a.target, a.sig, strerror(errno));
    } else {
      logger_.debug("JobId={}: sent signal {} to {}", job_id, a.sig, a.target);
    }
  }
}

absl::Status JobManager::Notify(uint64_t job_id, const std::string& message) {
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || it->second.state != Job::kRunning) {
      return absl::NotFoundError("Job/step already completing or completed");
    }
  }
  const std::string dir = JobDir(job_id);
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(dir, "/", kSpecFileName));
  if (!text.ok()) return absl::NotFoundError("Job/step already completing or completed");
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(*text);
  if (!spec.ok()) return absl::InternalError(std::string(spec.status().message()));
  AppendToJobOutput(*spec, dir, absl::StrCat("slurmstepd: error: ", message, "\n"));
  logger_.info("JobId={}: notified ({} bytes)", job_id, message.size());
  return absl::OkStatus();
}

absl::Status JobManager::Signal(uint64_t job_id, int sig, SignalTarget which) {
  if (sig <= 0 || sig >= NSIG) return absl::InvalidArgumentError(absl::StrCat("bad signal ", sig));
  pid_t target = 0;
  std::string cgroup;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      return absl::NotFoundError(
          absl::StrCat("JobId=", job_id, " is not on NodeName=", options_.node_name));
    }
    const Job& job = it->second;
    if (job.state == Job::kFinished || job.state == Job::kCleaning) {
      return absl::FailedPreconditionError(absl::StrCat("JobId=", job_id, " has finished"));
    }
    if (job.pids.job_pgid <= 0) {
      return absl::UnavailableError(absl::StrCat("JobId=", job_id, " is still starting"));
    }
    target = which == SignalTarget::kBatchShell ? job.pids.job_pid : -job.pids.job_pgid;
    if (which == SignalTarget::kEveryProcess) cgroup = job.cgroup_path;
  }
  size_t in_cgroup = 0;
  if (options_.cgroups && !cgroup.empty()) {
    in_cgroup = options_.cgroups->Pids(cgroup).size();
    if (absl::Status s = options_.cgroups->Signal(cgroup, sig); !s.ok()) {
      return absl::InternalError(std::string(s.message()));
    }
  }
  // A gone process group is fine when processes that left it got the signal.
  if (kill(target, sig) != 0 && !(errno == ESRCH && in_cgroup > 0)) {
    const int err = errno;
    if (err == ESRCH) {
      return absl::FailedPreconditionError(
          absl::StrCat("JobId=", job_id, " has no process left to signal"));
    }
    return absl::InternalError(absl::StrCat("kill(", target, ", ", sig, "): ", strerror(err)));
  }
  logger_.info("JobId={}: signal {} sent to {}", job_id, sig,
               which == SignalTarget::kBatchShell   ? "the batch shell"
               : which == SignalTarget::kBatchGroup ? "the batch shell's process group"
                                                    : "every process");
  return absl::OkStatus();
}

absl::Status JobManager::Terminate(uint64_t job_id, int kill_wait) {
  std::vector<SignalAction> actions;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      return absl::NotFoundError(
          absl::StrCat("JobId=", job_id, " is not on NodeName=", options_.node_name));
    }
    Job& job = it->second;
    if (job.state == Job::kFinished || job.state == Job::kCleaning) return absl::OkStatus();
    if (!job.terminate_requested) {
      job.terminate_requested = true;
      job.kill_wait = kill_wait;
      logger_.info("JobId={}: terminating (SIGKILL after {}s)", job_id, kill_wait);
    }
    CollectTerminationLocked(job, SteadyClock::now(), &actions);
  }
  SendSignals(job_id, actions);
  return absl::OkStatus();
}

}  // namespace skiff::noded
