// The Controller's side of --mail-type: running MailProg in scriptd for a mail
// the lifecycle core decided (ctld/core/lifecycle/mail.h), and reporting that
// it answered. Runs on a work thread, never under mu_.
#include <utility>

#include "absl/strings/str_cat.h"
#include "ctld/controller.h"
#include "ctld/core/array_spec.h"
#include "ctld/core/lifecycle/mail.h"
#include "proto/job.pb.h"

namespace skiff::ctld {
namespace {

// Slurm's MAIL_PROG_TIMEOUT (agent.c).
constexpr int64_t kMailProgTimeout = 120;

// What job_common_env_vars takes from the job's details, which only the
// submitted spec holds: the output paths as given, and the array's shape.
void AddSpecEnvironment(const Job& job, std::map<std::string, std::string>& env) {
  v1::JobSpec spec;
  if (!spec.ParseFromString(job.spec_blob)) return;
  if (!spec.stderr_pattern().empty()) env["SLURM_JOB_STDERR"] = spec.stderr_pattern();
  if (!spec.stdin_path().empty()) env["SLURM_JOB_STDIN"] = spec.stdin_path();
  if (!spec.stdout_pattern().empty()) env["SLURM_JOB_STDOUT"] = spec.stdout_pattern();
  if (job.array_job_id == 0 || spec.array().empty()) return;
  // The spec was validated at submit; the MaxArraySize bound does not matter here.
  absl::StatusOr<ArraySpec> array = ParseArraySpec(spec.array(), kMaxMaxArraySize);
  if (!array.ok() || array->task_ids.empty()) return;
  const std::vector<uint32_t>& ids = array->task_ids;
  uint32_t step = ids.size() > 1 ? ids[1] - ids[0] : 1;
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] - ids[i - 1] != step) step = 1;
  }
  env["SLURM_ARRAY_TASK_COUNT"] = absl::StrCat(ids.size());
  env["SLURM_ARRAY_TASK_MIN"] = absl::StrCat(ids.front());
  env["SLURM_ARRAY_TASK_MAX"] = absl::StrCat(ids.back());
  env["SLURM_ARRAY_TASK_STEP"] = absl::StrCat(step);
}

}  // namespace

void Controller::SendMail(const MailIntent& mail) {
  const MailMessage& message = mail.message;
  const std::string mail_prog = config()->mail_prog;
  if (!mail_prog.empty()) {
    v1::RunScriptRequest request;
    // The same request for the same mail, whoever sends it (this ctld or one
    // restarted with the mail still in the job's outbox): scriptd runs a
    // run_once request at most once and answers a repeat with its result.
    request.set_request_id(
        absl::StrCat("mail-", mail.job_id, "-", message.run, "-", MailKindName(message.kind)));
    request.set_path(mail_prog);
    request.add_argv("-s");
    request.add_argv(message.subject);
    request.add_argv(message.user);
    request.set_timeout_seconds(kMailProgTimeout);
    // No job id: scriptd's FlushJob (scancel, teardown) kills a job's requests,
    // and the mail about that very cancel must still go out.
    request.set_job_id(0);
    request.set_run_once(true);
    auto& env = *request.mutable_environment();
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
    env["SKIFF_CONF"] = conf_path_;
    std::map<std::string, std::string> extra;
    AddSpecEnvironment(mail.job, extra);
    for (const auto& [key, value] : extra) env[key] = value;
    for (const auto& [key, value] : message.env) env[key] = value;
    absl::StatusOr<v1::RunScriptReply> reply = scripts_.RunScript(request);
    if (!reply.ok()) {
      // scriptd stayed away for its whole retry window: the mail stays in the
      // job's outbox and goes out when ctld next starts.
      logger_.error("JobId={} MailProg {} for {} not run: {}", mail.job_id, mail_prog,
                    MailKindName(message.kind), std::string(reply.status().message()));
      return;
    }
    if (!reply->error().empty() || reply->exit_code() != 0 || reply->signal() != 0 ||
        reply->timed_out()) {
      // As Slurm: a mailer that failed is logged, not tried again.
      logger_.error("JobId={} MailProg {} for {} failed (exit {}, signal {}{}): {}", mail.job_id,
                    mail_prog, MailKindName(message.kind), reply->exit_code(), reply->signal(),
                    reply->timed_out() ? ", timed out" : "",
                    std::string(reply->error().empty() ? reply->output_tail() : reply->error()));
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
