// Event triggers (strigger): the wiring around the core's trigger events
// (ctld/core/lifecycle/trigger_events.cc), which own the table. This file
// checks the program on disk, fills in the policy from the configuration, and
// runs the programs in scriptd as the trigger's owner, dispatched after the
// records are stored.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/users.h"
#include "ctld/controller.h"

namespace skiff::ctld {
namespace {

// Slurm's MAX_PROG_TIME: a program still running after 5 minutes is killed.
constexpr int64_t kTriggerProgramSeconds = 300;

// _validate_trigger: the program's first word is a regular file that `uid`
// (or `gid`, or anyone) may execute, by the permission bits that apply to it.
bool ProgramExecutable(const std::string& program, uid_t uid, gid_t gid) {
  const std::string path = program.substr(0, program.find_first_of(" \t\n\v\f\r"));
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  int modes = 0;
  if (st.st_uid == uid) {
    modes = (st.st_mode >> 6) & 07;
  } else if (st.st_gid == gid) {
    modes = (st.st_mode >> 3) & 07;
  } else {
    modes = st.st_mode & 07;
  }
  return (modes & 01) != 0;
}

}  // namespace

absl::StatusOr<uint32_t> Controller::SetTrigger(const Caller& caller,
                                                const TriggerRequest& request) {
  const std::shared_ptr<const SkiffConfig> config = this->config();
  TriggerPolicy policy;
  // ctld refuses to start without SlurmUser's account (main.cc).
  policy.slurm_user = UidOf(config->slurm_user).value_or(0);
  policy.allow_user_triggers = config->slurmctld_parameters.allow_user_triggers;
  policy.max_count = config->max_job_count;
  // stat: I/O, outside every lock.
  const bool program_ok = ProgramExecutable(request.program, caller.uid, caller.gid);
  uint32_t id = 0;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    return core.SetTrigger(caller, request, policy, program_ok, now, &id);
  });
  if (absl::IsPermissionDenied(status)) {
    logger_.info("trigger set by uid {} refused: {} (program {})", caller.uid,
                 std::string(status.message()), request.program);
  }
  if (!status.ok()) return status;
  return id;
}

std::vector<Trigger> Controller::SnapshotTriggers() {
  absl::MutexLock lock(&mu_);
  return core_.state().triggers().Visible();
}

absl::StatusOr<size_t> Controller::ClearTriggers(const Caller& caller,
                                                 const TriggerTable::ClearFilter& filter) {
  std::vector<uint32_t> removed;
  absl::Status answer;
  absl::Status stored = Commit([&](Lifecycle& core, int64_t now) {
    return core.ClearTriggers(caller, filter, now, &removed, &answer);
  });
  if (!stored.ok()) return stored;
  if (!answer.ok()) return answer;
  return removed.size();
}

void Controller::ProcessTriggers() {
  const bool reconfigured = reconfigured_.exchange(false);
  absl::Status stored = Commit([&](Lifecycle& core, int64_t now) -> absl::StatusOr<Effects> {
    return core.ObserveTriggers(reconfigured, now);
  });
  // Not stored: the table and its observation are as they were, so the next
  // pass sees the same events again.
  if (!stored.ok() && reconfigured) reconfigured_ = true;
}

void Controller::RunTrigger(const RunTriggerIntent& trigger) {
  ScriptCall call;
  call.request_id = absl::StrCat("trigger-", trigger.trigger_id, "-", ++trigger_runs_);
  call.path = trigger.path;
  call.argv = trigger.argv;
  call.timeout_seconds = kTriggerProgramSeconds;
  call.uid = trigger.uid;
  call.gid = trigger.gid;
  // Slurm's programs inherit slurmctld's environment; Skiff's get its PATH
  // and the configuration, so that a program can set its next trigger.
  std::map<std::string, std::string>& env = call.environment;
  const char* path = getenv("PATH");
  env["PATH"] = path != nullptr && *path != '\0' ? path : "/usr/sbin:/usr/bin:/sbin:/bin";
  env["SKIFF_CONF"] = conf_path_;
  env["SLURM_CONF"] = conf_path_;
  logger_.info("launching program for trigger[{}]: uid={} gid={} program={} type={}",
               trigger.trigger_id, trigger.uid, trigger.gid, trigger.path, trigger.what);
  absl::StatusOr<ScriptEnd> reply = scripts_.RunScript(call);
  if (!reply.ok()) {
    logger_.warn("trigger[{}] program {} not run: {}", trigger.trigger_id, trigger.path,
                 std::string(reply.status().message()));
  } else if (!reply->Succeeded()) {
    // Slurm's "trigger uid=%u type=%s:%s exit=%u:%u".
    logger_.info("trigger uid={} type={} exit={}:{}{}{}", trigger.uid, trigger.what,
                 reply->exit_code, reply->signal, reply->timed_out ? " (timed out)" : "",
                 reply->error.empty() ? "" : absl::StrCat(" (", reply->error, ")"));
  }
}

}  // namespace skiff::ctld
