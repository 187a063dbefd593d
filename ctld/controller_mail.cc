// The Controller's side of --mail-type: running MailProg in scriptd for a mail
// the lifecycle core decided (ctld/core/lifecycle/mail.h), and reporting that
// it answered. Runs on a work thread, never under mu_.
#include <utility>

#include "absl/strings/str_cat.h"
#include "ctld/controller.h"
#include "ctld/core/lifecycle/mail.h"
#include "ctld/launch_builder.h"

namespace skiff::ctld {
namespace {

// Slurm's MAIL_PROG_TIMEOUT (agent.c).
constexpr int64_t kMailProgTimeout = 120;

}  // namespace

void Controller::SendMail(const MailIntent& mail) {
  const MailMessage& message = mail.message;
  const std::string mail_prog = config()->mail_prog;
  if (!mail_prog.empty()) {
    ScriptCall call;
    // The same request for the same mail, whoever sends it (this ctld or one
    // restarted with the mail still in the job's outbox): scriptd runs a
    // run_once request at most once and answers a repeat with its result.
    call.request_id =
        absl::StrCat("mail-", mail.job_id, "-", message.run, "-", MailKindName(message.kind));
    call.path = mail_prog;
    call.argv = {"-s", message.subject, message.user};
    call.timeout_seconds = kMailProgTimeout;
    // No job id: scriptd's FlushJob (scancel, teardown) kills a job's requests,
    // and the mail about that very cancel must still go out.
    call.job_id = 0;
    call.run_once = true;
    std::map<std::string, std::string>& env = call.environment;
    env = JobDetailsEnvironment(mail.job);
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
    env["SKIFF_CONF"] = conf_path_;
    for (const auto& [key, value] : message.env) env[key] = value;
    absl::StatusOr<ScriptEnd> reply = scripts_.RunScript(call);
    if (!reply.ok()) {
      // scriptd stayed away for its whole retry window: the mail stays in the
      // job's outbox and goes out when ctld next starts.
      logger_.error("JobId={} MailProg {} for {} not run: {}", mail.job_id, mail_prog,
                    MailKindName(message.kind), std::string(reply.status().message()));
      return;
    }
    if (!reply->Succeeded()) {
      // As Slurm: a mailer that failed is logged, not tried again.
      logger_.error("JobId={} MailProg {} for {} failed (exit {}, signal {}{}): {}", mail.job_id,
                    mail_prog, MailKindName(message.kind), reply->exit_code, reply->signal,
                    reply->timed_out ? ", timed out" : "",
                    reply->error.empty() ? reply->output_tail : reply->error);
    } else {
      logger_.info("JobId={} mailed {} to {}", mail.job_id, MailKindName(message.kind),
                   message.user);
    }
  }
  // Without a MailProg there is nothing to send: the mail leaves the outbox.
  CommitReport([&](Lifecycle& core, int64_t) {
    return core.MailSent(mail.job_id, message.kind, message.run);
  });
}

}  // namespace skiff::ctld
