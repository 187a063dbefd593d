// A job's --mail-type events as plain data: Slurm's MAIL_* bits and one mail
// the lifecycle core decided to send (the job's outbox entry, job.h).
//
// The decision (which event mails, its subject and MailProg environment) is
// the lifecycle core's (ctld/core/lifecycle/mail.h); sending it through
// scriptd is the Controller's (ctld/controller_mail.cc).
#ifndef SKIFF_CTLD_CORE_JOB_MAIL_H_
#define SKIFF_CTLD_CORE_JOB_MAIL_H_

#include <cstdint>
#include <map>
#include <string>

namespace skiff::ctld {

// Slurm 22.05's MAIL_* bits (slurm.h), so that a stored or printed value
// means what it means to Slurm.
enum MailKind : uint16_t {
  kMailBegin = 1u << 0,
  kMailEnd = 1u << 1,
  kMailFail = 1u << 2,
  kMailRequeue = 1u << 3,
  kMailTime100 = 1u << 4,  // TIME_LIMIT
  kMailTime90 = 1u << 5,
  kMailTime80 = 1u << 6,
  kMailTime50 = 1u << 7,
  kMailStageOut = 1u << 8,
  kMailArrayTasks = 1u << 9,  // a flag: mail per array task, not an event
  kMailInvalidDepend = 1u << 10,
  // Skiff's own, outside Slurm's bits: GpuIdlePolicy's warning, mailed
  // whatever --mail-type says (the site's policy speaks to the user).
  kMailGpuIdle = 1u << 15,
};

// Slurm's parse_mail_type: a comma list, any case; ALL is BEGIN, END, FAIL,
// REQUEUE, INVALID_DEPEND and STAGE_OUT; NONE anywhere means none; unknown
// names are skipped (sbatch refuses them before they get here).
uint16_t ParseMailType(const std::string& text);

// One mail decided by an event and not yet known to have reached scriptd.
// It is kept in the job's row from the event that decided it until MailProg
// has answered (Lifecycle::MailSent), so a ctld that stops in between sends
// it again after its restart, as the same scriptd request (which scriptd runs
// at most once: scriptd/run_journal.h).
struct MailMessage {
  uint16_t kind = 0;  // one MailKind event bit
  int32_t run = 0;    // restart_count of the run it is about: part of the request id
  std::string user;   // MailProg's last argument: --mail-user, else the job's user
  std::string subject;
  std::map<std::string, std::string> env;  // Slurm's MailProg environment
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_JOB_MAIL_H_
