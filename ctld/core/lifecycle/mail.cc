#include "ctld/core/lifecycle/mail.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {
namespace {

// The kinds a requeue gives back to the next run (Slurm keeps these bits in
// the job's mail_type and mails them again for every run).
constexpr uint16_t kPerRunKinds =
    kMailBegin | kMailEnd | kMailFail | kMailRequeue | kMailInvalidDepend | kMailGpuIdle;

// Slurm's states from JOB_FAILED on (FAILED, TIMEOUT, NODE_FAIL, PREEMPTED,
// BOOT_FAIL, DEADLINE, OOM), which job_completion_logger mails as FAIL.
bool FailedState(JobState state) {
  switch (state) {
    case JobState::kFailed:
    case JobState::kTimeout:
    case JobState::kNodeFail:
    case JobState::kPreempted:
    case JobState::kDeadline:
    case JobState::kOutOfMemory:
      return true;
    default:
      return false;
  }
}

// The job's wait(2)-style status, as Slurm keeps exit_code.
int32_t WaitStatus(const Job& job) {
  return job.exit_signal != 0 ? (job.exit_signal & 0x7f) : ((job.exit_code & 0xff) << 8);
}
bool Exited(int32_t status) { return (status & 0x7f) == 0; }
int ExitStatus(int32_t status) { return (status >> 8) & 0xff; }
bool Signaled(int32_t status) { return (status & 0x7f) != 0 && (status & 0x7f) != 0x7f; }

}  // namespace

const char* MailEventText(uint16_t kind) {
  switch (kind) {
    case kMailInvalidDepend:
      return "Invalid dependency";
    case kMailBegin:
      return "Began";
    case kMailEnd:
      return "Ended";
    case kMailFail:
      return "Failed";
    case kMailRequeue:
      return "Requeued";
    case kMailStageOut:
      return "StageOut/Teardown";
    case kMailTime100:
      return "Reached time limit";
    case kMailTime90:
      return "Reached 90% of time limit";
    case kMailTime80:
      return "Reached 80% of time limit";
    case kMailTime50:
      return "Reached 50% of time limit";
    case kMailGpuIdle:
      return "GPUs idle";
    default:
      return "unknown";
  }
}

const char* MailKindName(uint16_t kind) {
  switch (kind) {
    case kMailInvalidDepend:
      return "INVALID_DEPEND";
    case kMailBegin:
      return "BEGIN";
    case kMailEnd:
      return "END";
    case kMailFail:
      return "FAIL";
    case kMailRequeue:
      return "REQUEUE";
    case kMailStageOut:
      return "STAGE_OUT";
    case kMailTime100:
      return "TIME_LIMIT";
    case kMailTime90:
      return "TIME_LIMIT_90";
    case kMailTime80:
      return "TIME_LIMIT_80";
    case kMailTime50:
      return "TIME_LIMIT_50";
    case kMailGpuIdle:
      return "GPU_IDLE";
    default:
      return "UNKNOWN";
  }
}

std::string MailDuration(int64_t seconds) {
  if (seconds < 0) return "INVALID";
  char buffer[48];
  const long long days = seconds / 86400;
  const long long hours = seconds / 3600 % 24;
  const long long minutes = seconds / 60 % 60;
  const long long secs = seconds % 60;
  if (days > 0) {
    std::snprintf(buffer, sizeof(buffer), "%lld-%2.2lld:%2.2lld:%2.2lld", days, hours, minutes,
                  secs);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%2.2lld:%2.2lld:%2.2lld", hours, minutes, secs);
  }
  return buffer;
}

std::string MailUserProblem(const std::string& mail_user) {
  constexpr size_t kMaxMailUser = 1024;
  if (mail_user.empty()) return "";  // the job's user
  if (mail_user.size() > kMaxMailUser) {
    return absl::StrCat("longer than ", kMaxMailUser, " characters");
  }
  for (absl::string_view item : absl::StrSplit(mail_user, ',')) {
    if (item.empty()) return absl::StrCat("'", absl::CHexEscape(mail_user), "' has an empty item");
    if (item.front() == '-') {
      return absl::StrCat("'", absl::CHexEscape(item), "' starts with '-'");
    }
    for (char c : item) {
      if (absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
          absl::string_view("._%+=@~-").find(c) != absl::string_view::npos) {
        continue;
      }
      return absl::StrCat("'", absl::CHexEscape(mail_user), "' holds '",
                          absl::CHexEscape(absl::string_view(&c, 1)),
                          "' (a recipient is user names or addresses: letters, digits and "
                          "._%+=@~-, comma-separated)");
    }
  }
  return "";
}

std::string CleanMailSubject(std::string subject) {
  for (char& c : subject) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return subject;
}

// ---------------------------------------------------------------- arrays

bool MailRules::ArrayTasksDone(const Job& task) const {
  for (auto it = state_.jobs().find(task.array_job_id);
       it != state_.jobs().end() && it->second.array_job_id == task.array_job_id; ++it) {
    if (!IsFinal(it->second.state)) return false;
  }
  return true;
}

// Slurm's _first_array_task: this task is the only one running and none has
// ended yet.
bool MailRules::FirstArrayTask(const Job& task) const {
  for (auto it = state_.jobs().find(task.array_job_id);
       it != state_.jobs().end() && it->second.array_job_id == task.array_job_id; ++it) {
    const Job& other = it->second;
    if (other.id == task.id) continue;
    if (IsFinal(other.state) || other.state != JobState::kPending) return false;
  }
  return true;
}

// ---------------------------------------------------------------- composing

MailMessage MailRules::Compose(const Job& job, uint16_t kind, int64_t now, bool summary) const {
  // An array's summary speaks of its first task's record (Slurm's meta job).
  const Job* about = &job;
  if (summary) {
    if (const Job* master = state_.Find(job.array_job_id)) about = master;
  }
  const Job& j = *about;
  MailMessage m;
  m.kind = kind;
  m.run = job.restart_count;
  // A recipient admitted before --mail-user was checked (a job from an older
  // ctld's database) goes to the job's user rather than become an option.
  m.user = job.mail_user.empty() || !MailUserProblem(job.mail_user).empty() ? job.user_name
                                                                            : job.mail_user;
  auto& env = m.env;

  // job_common_env_vars
  const bool complete = kind == kMailEnd || kind == kMailFail;
  env["SLURM_JOB_ACCOUNT"] = j.account;
  if (complete) {
    env["SLURM_JOB_DERIVED_EC"] = absl::StrCat(j.exit_code);
    env["SLURM_JOB_EXIT_CODE2"] = absl::StrCat(j.exit_code, ":", j.exit_signal);
    env["SLURM_JOB_EXIT_CODE"] = absl::StrCat(WaitStatus(j));
  }
  if (j.array_job_id != 0) {
    env["SLURM_ARRAY_JOB_ID"] = absl::StrCat(j.array_job_id);
    if (!summary) env["SLURM_ARRAY_TASK_ID"] = absl::StrCat(j.array_task_id);
  }
  env["SLURM_CLUSTER_NAME"] = config_.cluster_name;
  if (!j.comment.empty()) env["SLURM_JOB_COMMENT"] = j.comment;
  env["SLURM_JOB_GID"] = absl::StrCat(j.gid);
  env["SLURM_JOB_GROUP"] = j.group_name;
  env["SLURM_JOBID"] = absl::StrCat(j.id);
  env["SLURM_JOB_ID"] = absl::StrCat(j.id);
  env["SLURM_JOB_NAME"] = j.name;
  env["SLURM_JOB_NODELIST"] = CompressHostlist(j.nodes);
  if (!j.nodes.empty()) {
    env["SLURM_JOB_CPUS_PER_NODE"] = SlurmCountList(j.cpus_by_node);
    env["SLURM_JOB_NUM_NODES"] = absl::StrCat(j.nodes.size());
  }
  env["SLURM_JOB_PARTITION"] = j.request.partition;
  env["SLURM_JOB_RESTART_COUNT"] = absl::StrCat(j.restart_count);
  env["SLURM_JOB_UID"] = absl::StrCat(j.uid);
  env["SLURM_JOB_USER"] = j.user_name;
  if (!j.request.features.empty()) {
    env["SLURM_JOB_CONSTRAINTS"] = absl::StrJoin(j.request.features, "&");
  }
  if (!j.work_dir.empty()) env["SLURM_JOB_WORK_DIR"] = j.work_dir;
  // _build_mail_env
  env["SLURM_JOB_STATE"] = JobBaseStateName(j);
  env["SLURM_JOB_MAIL_TYPE"] = MailEventText(kind);

  // _set_job_time
  std::string job_time;
  if (kind == kMailBegin && j.start_time != 0 && j.submit_time != 0) {
    const std::string queued = MailDuration(j.start_time - j.submit_time);
    job_time = absl::StrCat(", Queued time ", queued);
    env["SLURM_JOB_QUEUED_TIME"] = queued;
  } else if (kind == kMailEnd || kind == kMailFail || kind == kMailRequeue) {
    // Slurm sets start_time to the end when it ends a pending job, so such a
    // job ran 0 s; an end_time older than the run's start is a previous run's.
    const int64_t start = j.start_time != 0 ? j.start_time : j.end_time;
    if (start != 0 && j.end_time >= start) {
      const int64_t run = j.end_time - start - j.suspended_total;
      const std::string text = MailDuration(std::max<int64_t>(run, 0));
      job_time = absl::StrCat(", Run time ", text);
      env["SLURM_JOB_RUN_TIME"] = text;
    }
  } else if ((kind & (kMailTime100 | kMailTime90 | kMailTime80 | kMailTime50)) != 0 &&
             j.start_time != 0) {
    const std::string text =
        MailDuration(std::max<int64_t>(now - j.start_time - j.suspended_total, 0));
    job_time = absl::StrCat(", Run time ", text);
    env["SLURM_JOB_RUN_TIME"] = text;
  } else if (kind == kMailStageOut && j.end_time != 0) {
    // Slurm 22.05 writes " time " and then the duration 11 bytes in, past the
    // string's end: the subject says " time " and only the environment has it.
    job_time = " time ";
    env["SLURM_JOB_STAGE_OUT_TIME"] = MailDuration(std::max<int64_t>(now - j.end_time, 0));
  }

  // _set_job_term_info
  std::string term;
  if (complete && summary) {
    int32_t min_status = 0, max_status = 0;
    bool any = false, requeued = false;
    for (auto it = state_.jobs().find(job.array_job_id);
         it != state_.jobs().end() && it->second.array_job_id == job.array_job_id; ++it) {
      const Job& task = it->second;
      if (task.restart_count > 0) requeued = true;
      if (!IsFinal(task.state)) continue;
      const int32_t status = WaitStatus(task);
      min_status = any ? std::min(min_status, status) : status;
      max_status = any ? std::max(max_status, status) : status;
      any = true;
    }
    if (Exited(min_status) && Exited(max_status)) {
      const int lo = ExitStatus(min_status), hi = ExitStatus(max_status);
      const char* state_text = lo == 0 && hi > 0 ? "Mixed" : JobBaseStateName(j);
      term = absl::StrCat(", ", state_text, ", ExitCode [", lo, "-", hi, "]");
      env["SLURM_JOB_EXIT_CODE_MIN"] = absl::StrCat(lo);
      env["SLURM_JOB_EXIT_CODE_MAX"] = absl::StrCat(hi);
    } else if (Signaled(max_status)) {
      term = absl::StrCat(", Mixed, MaxSignal [", max_status & 0x7f, "]");
      env["SLURM_JOB_TERM_SIGNAL_MAX"] = absl::StrCat(max_status & 0x7f);
    } else if (Exited(max_status)) {
      term = absl::StrCat(", Mixed, MaxExitCode [", ExitStatus(max_status), "]");
      env["SLURM_JOB_EXIT_CODE_MAX"] = absl::StrCat(ExitStatus(max_status));
    } else {
      term = absl::StrCat(", ", JobBaseStateName(j));
      env["SLURM_JOB_EXIT_CODE_MAX"] = "0";
    }
    if (requeued) term += ", with requeued tasks";
  } else if (complete) {
    const int32_t status = WaitStatus(j);
    if (Exited(status)) {
      term = absl::StrCat(", ", JobBaseStateName(j), ", ExitCode ", ExitStatus(status));
      env["SLURM_JOB_EXIT_CODE_MAX"] = absl::StrCat(ExitStatus(status));
    } else {
      term = absl::StrCat(", ", JobBaseStateName(j));
      env["SLURM_JOB_EXIT_CODE_MAX"] = "0";
    }
  }

  if (summary) {
    m.subject = absl::StrCat("Slurm Array Summary Job_id=", j.array_job_id, "_* (", j.id,
                             ") Name=", j.name, " ", MailEventText(kind), term);
  } else if (j.array_job_id != 0) {
    m.subject = absl::StrCat("Slurm Array Task Job_id=", j.array_job_id, "_", j.array_task_id, " (",
                             j.id, ") Name=", j.name, " ", MailEventText(kind), job_time, term);
  } else {
    m.subject = absl::StrCat("Slurm Job_id=", j.id, " Name=", j.name, " ", MailEventText(kind),
                             job_time, term);
  }
  // A job's name is the user's bytes: never a second line of the mail.
  m.subject = CleanMailSubject(std::move(m.subject));
  return m;
}

// ---------------------------------------------------------------- decisions

void MailRules::Send(Job& job, uint16_t kind, int64_t now, bool summary, Effects& effects) {
  if ((job.mail_type & kind) == 0 || (job.mail_sent & kind) != 0) return;
  job.mail_sent |= kind;
  MailMessage message = Compose(job, kind, now, summary);
  effects.log.push_back(absl::StrCat("JobId=", job.id, " mail ", MailKindName(kind), " to ",
                                     message.user, ": ", message.subject));
  job.mail_outbox.push_back(message);
  effects.intents.push_back(MailIntent{job.id, std::move(message), job});
}

void MailRules::OnTransition(Job& job, JobState from, JobEvent event, Effects& effects) {
  if (job.mail_type == 0) return;
  const bool per_task = job.array_job_id == 0 || (job.mail_type & kMailArrayTasks) != 0;
  switch (event) {
    case JobEvent::kAllocate:
      if (per_task || FirstArrayTask(job)) {
        Send(job, kMailBegin, job.start_time, /*summary=*/!per_task, effects);
      }
      return;
    case JobEvent::kRequeue:
    case JobEvent::kPrologFailed: {
      if (per_task) {
        // A run its node failed under ends NODE_FAIL for Slurm before it is
        // requeued (FAIL); a preempted or scontrol-requeued one does not.
        const bool node_failed =
            event == JobEvent::kRequeue && !IsFinal(from) && from != JobState::kCompleting;
        if (node_failed) Send(job, kMailFail, 0, false, effects);
        Send(job, kMailRequeue, 0, false, effects);
      }
      job.mail_sent &= static_cast<uint16_t>(~kPerRunKinds);
      return;
    }
    case JobEvent::kFinish:
    case JobEvent::kCancelPending:
    case JobEvent::kMissDeadline:
      break;
    default:
      return;
  }
  if (!IsFinal(job.state)) return;
  if (per_task) {
    if (FailedState(job.state)) Send(job, kMailFail, 0, false, effects);
    if (job.state == JobState::kCompleted || job.state == JobState::kCancelled) {
      Send(job, kMailEnd, 0, false, effects);
    }
    return;
  }
  if (!ArrayTasksDone(job)) return;
  bool requeued = false;
  int32_t max_status = 0;
  for (auto it = state_.jobs().find(job.array_job_id);
       it != state_.jobs().end() && it->second.array_job_id == job.array_job_id; ++it) {
    requeued = requeued || it->second.restart_count > 0;
    max_status = std::max(max_status, WaitStatus(it->second));
  }
  if (requeued) Send(job, kMailRequeue, 0, true, effects);
  if (Exited(max_status) && ExitStatus(max_status) != 0 && (job.mail_type & kMailFail) != 0) {
    Send(job, kMailFail, 0, true, effects);
  } else {
    Send(job, kMailEnd, 0, true, effects);
  }
}

void MailRules::OnTimeCheck(uint64_t id, int64_t end, int64_t now, Effects& effects) {
  const Job* stored = state_.Find(id);
  if (stored == nullptr) return;
  const uint16_t wanted = stored->mail_type & static_cast<uint16_t>(~stored->mail_sent) &
                          (kMailTime100 | kMailTime90 | kMailTime80 | kMailTime50);
  if (wanted == 0) return;
  const int64_t limit = stored->request.time_limit;
  // Slurm's thresholds, in the order it checks them.
  const std::pair<uint16_t, int64_t> thresholds[] = {{kMailTime100, 0},
                                                     {kMailTime90, limit / 10},
                                                     {kMailTime80, limit / 5},
                                                     {kMailTime50, limit / 2}};
  for (const auto& [kind, before] : thresholds) {
    if ((wanted & kind) == 0 || now + before < end) continue;
    Send(state_.Mut(id), kind, now, false, effects);
  }
}

void MailRules::OnInvalidDependency(uint64_t id, int64_t now, Effects& effects) {
  const Job* stored = state_.Find(id);
  if (stored == nullptr || (stored->mail_type & kMailInvalidDepend) == 0 ||
      (stored->mail_sent & kMailInvalidDepend) != 0) {
    return;
  }
  Send(state_.Mut(id), kMailInvalidDepend, now, false, effects);
}

void MailRules::OnGpuIdle(Job& job, const std::string& warning, int64_t now, Effects& effects) {
  if ((job.mail_sent & kMailGpuIdle) != 0) return;
  job.mail_sent |= kMailGpuIdle;
  MailMessage message = Compose(job, kMailGpuIdle, now, false);
  message.env["SKIFF_GPU_IDLE"] = warning;
  effects.log.push_back(absl::StrCat("JobId=", job.id, " mail ", MailKindName(kMailGpuIdle), " to ",
                                     message.user, ": ", message.subject));
  job.mail_outbox.push_back(message);
  effects.intents.push_back(MailIntent{job.id, std::move(message), job});
}

void MailRules::OnTeardown(Job& job, int64_t now, Effects& effects) {
  if (job.state == JobState::kPending) return;  // Slurm: "No email if requeue"
  Send(job, kMailStageOut, now, false, effects);
}

void MailRules::Resume(Effects& effects) const {
  for (const auto& [id, job] : state_.jobs()) {
    for (const MailMessage& message : job.mail_outbox) {
      effects.log.push_back(absl::StrCat("JobId=", id, " mail ", MailKindName(message.kind),
                                         " not yet answered: sending it again"));
      effects.intents.push_back(MailIntent{id, message, job});
    }
  }
}

// ---------------------------------------------------------------- the event

Effects Lifecycle::MailSent(uint64_t job_id, uint16_t kind, int32_t run) {
  state_.Begin();
  Effects effects;
  const Job* stored = Find(job_id);
  if (stored != nullptr &&
      std::any_of(stored->mail_outbox.begin(), stored->mail_outbox.end(),
                  [&](const MailMessage& m) { return m.kind == kind && m.run == run; })) {
    std::vector<MailMessage>& outbox = state_.Mut(job_id).mail_outbox;
    outbox.erase(
        std::remove_if(outbox.begin(), outbox.end(),
                       [&](const MailMessage& m) { return m.kind == kind && m.run == run; }),
        outbox.end());
  }
  return state_.Close(std::move(effects));
}

}  // namespace skiff::ctld
