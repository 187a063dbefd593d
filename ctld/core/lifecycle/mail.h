// --mail-type as Slurm 22.05 has it (slurmctld/agent.c's mail_job_info and
// the places that call it): which event mails, its subject and its MailProg
// environment, decided in the lifecycle core as part of the event.
//
// Once only. A mail is decided by the event that causes it: the event sets the
// kind's bit in Job::mail_sent and puts the message in Job::mail_outbox, both
// in the event's rows, and returns a MailIntent the dispatcher carries out
// only after those rows are stored. A repeated check (time limits every
// second, dependencies every pass, an event replayed after a restart) finds
// the bit and mails nothing. The outbox entry goes when MailProg has answered
// (Lifecycle::MailSent); a ctld that stopped before that sends the entries
// left again after its restart (MailResume) as the same scriptd request,
// which scriptd runs at most once (scriptd/run_journal.h).
//
// Per run or per job, as Slurm: BEGIN, END, FAIL, REQUEUE and INVALID_DEPEND
// may mail again after a requeue (the bits are cleared when the job goes back
// to pending); TIME_LIMIT* and STAGE_OUT mail once per job (Slurm clears them
// from the job's mail_type when sent).
//
// Arrays without ARRAY_TASKS mail as Slurm's: BEGIN for the first task to
// start while none has ended; END, FAIL and REQUEUE once, when the last task
// ends, as an "Array Summary" of all tasks; a task's requeue mails nothing.
//
// Pure: these functions only read and journal the tables they are given.
// Thread-safety: none (the Controller's mutex, like the rest of the core).
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_MAIL_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_MAIL_H_

#include <cstdint>
#include <string>

#include "common/config/config.h"
#include "ctld/core/job.h"
#include "ctld/core/job_mail.h"
#include "ctld/core/job_state.h"
#include "ctld/core/lifecycle/effects.h"
#include "ctld/core/lifecycle/journaled_state.h"

namespace skiff::ctld {

// Slurm's _mail_type_str: "Began", "Ended", "Reached 90% of time limit", ...
const char* MailEventText(uint16_t kind);
// The --mail-type word for one kind ("BEGIN", "TIME_LIMIT_90"): request ids, logs.
const char* MailKindName(uint16_t kind);
// Slurm's secs2time_str: "00:01:02", "1-02:03:04".
std::string MailDuration(int64_t seconds);

// Why `mail_user` (--mail-user) cannot be MailProg's last argument; "" when it
// can (and for "", the job's user). ctld runs MailProg as Slurm does,
// `MailProg -s SUBJECT RECIPIENT`, without a "--" (sites' MailProgs read $3),
// so a recipient starting with '-' or holding blanks would be the mailer's
// options (sendmail's -C, -oQ; mailx's -r): a recipient is user names or
// addresses, comma-separated, each of letters, digits and . _ % + = @ ~ -
// and not starting with '-'.
std::string MailUserProblem(const std::string& mail_user);
// `subject` with every control character (a newline would start a mail
// header) made a blank.
std::string CleanMailSubject(std::string subject);

// The mail rules, each called by the lifecycle event named. `state` is the
// core's table, with a transaction open; each function journals (Mut) only a
// job it mails for.
class MailRules {
 public:
  MailRules(JournaledState& state, const SkiffConfig& config) : state_(state), config_(config) {}

  // After `job` moved `from` -> job.state by `event` (Lifecycle::TransitionJob):
  // BEGIN at kAllocate; END/FAIL on reaching a final state; REQUEUE (and FAIL
  // for a node failure) when it goes back to pending, whose per-run bits are
  // then cleared. REQUIRES: `job` is journaled (state.Mut).
  void OnTransition(Job& job, JobState from, JobEvent event, Effects& effects);
  // EnforceTimeLimits, for a RUNNING job whose limit ends at `end`:
  // TIME_LIMIT_50/80/90 and TIME_LIMIT as Slurm's thresholds pass.
  void OnTimeCheck(uint64_t id, int64_t end, int64_t now, Effects& effects);
  // A pending job's dependency can never be satisfied (before any cancel).
  void OnInvalidDependency(uint64_t id, int64_t now, Effects& effects);
  // The job's burst buffer was torn down after its stage-out (Slurm 22.05's
  // burst_buffer/lua mails STAGE_OUT there, unless the job is pending again).
  void OnTeardown(Job& job, int64_t now, Effects& effects);
  // GpuIdlePolicy warned the job (`warning` says why): mailed once per run
  // to --mail-user or the job's user whatever --mail-type says, with the words
  // in SKIFF_GPU_IDLE. REQUIRES: `job` journaled.
  void OnGpuIdle(Job& job, const std::string& warning, int64_t now, Effects& effects);
  // Recovery: the intents for every outbox entry left by the previous ctld.
  void Resume(Effects& effects) const;

  // The subject and environment Slurm's mail_job_info builds for `kind` about
  // `job` at `now` (the array summary when `job` stands for its whole array).
  MailMessage Compose(const Job& job, uint16_t kind, int64_t now, bool summary) const;

 private:
  // Sets the bit, fills the outbox and the intent. REQUIRES: `job` journaled.
  void Send(Job& job, uint16_t kind, int64_t now, bool summary, Effects& effects);
  bool ArrayTasksDone(const Job& task) const;
  bool FirstArrayTask(const Job& task) const;

  JournaledState& state_;
  const SkiffConfig& config_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_MAIL_H_
