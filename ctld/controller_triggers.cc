// Event triggers (strigger): the wiring around ctld/core/triggers. The table
// lives under mu_; its writers (set, clear, and the housekeeping thread's
// observation every second) are serialized by triggers_write_mu_, decide under
// mu_ inside a Commit (so their records are stored in order with every other
// event's rows), and install the result only once it is stored. Programs run
// in scriptd as the trigger's owner, dispatched after the records are stored.
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

RecordRow TriggerRow(const TriggerTable& table, uint32_t id) {
  auto it = table.triggers().find(id);
  return RecordRow{kTriggerRecordKind, absl::StrCat(id),
                   it != table.triggers().end() ? EncodeTrigger(it->second) : std::string()};
}

}  // namespace

TriggerWorld Controller::TriggerWorldOf(const Lifecycle& core,
                                        const std::set<uint64_t>& job_ids) const {
  TriggerWorld world;
  for (const Node& node : core.nodes().nodes()) {
    TriggerNodeView view;
    view.name = node.config.name;
    view.down = node.state == NodeBaseState::kDown;
    view.idle = node.state == NodeBaseState::kIdle;
    view.busy = node.alloc_cpus > 0 || node.state == NodeBaseState::kAllocated ||
                node.state == NodeBaseState::kMixed;
    view.drain = node.drain;
    view.fail = node.fail;
    view.last_busy = node.last_busy;
    world.nodes.push_back(std::move(view));
  }
  for (uint64_t id : job_ids) {
    const Job* job = core.Find(id);
    if (job == nullptr) continue;
    TriggerJobView view;
    view.pending = job->state == JobState::kPending;
    view.finished = IsFinal(job->state);
    if (view.finished || job->state == JobState::kCompleting) {
      view.end = job->end_time;
    } else if (job->state != JobState::kSuspended && job->start_time != 0 &&
               job->request.time_limit != kUnlimited) {
      // Running (or configuring): its time limit, the time it spent
      // suspended added, as EnforceTimeLimits counts it.
      view.end = job->start_time + job->request.time_limit + job->suspended_total;
    }
    view.nodes = job->nodes;
    world.jobs[id] = std::move(view);
  }
  return world;
}

absl::Status Controller::RecoverTriggers() {
  absl::StatusOr<std::map<std::string, std::string>> rows = store_.LoadRecords(kTriggerRecordKind);
  if (!rows.ok()) return rows.status();
  std::vector<Trigger> triggers;
  for (const auto& [key, blob] : *rows) {
    absl::StatusOr<Trigger> trigger = DecodeTrigger(blob);
    if (!trigger.ok()) return trigger.status();
    triggers.push_back(std::move(*trigger));
  }
  const size_t count = triggers.size();
  {
    absl::MutexLock lock(&mu_);
    triggers_.Load(std::move(triggers));
  }
  if (count > 0) logger_.info("State of {} triggers recovered", count);
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> Controller::SetTrigger(const Caller& caller,
                                                const TriggerRequest& request) {
  const std::shared_ptr<const SkiffConfig> config = this->config();
  TriggerPolicy policy;
  // ctld refuses to start without SlurmUser's account (main.cc).
  policy.slurm_user = UidOf(config->slurm_user).value_or(0);
  policy.allow_user_triggers = config->slurmctld_parameters.count("allow_user_triggers") > 0;
  policy.max_count = config->max_job_count;
  // stat: I/O, outside every lock.
  const bool program_ok = ProgramExecutable(request.program, caller.uid, caller.gid);
  absl::MutexLock writer(&triggers_write_mu_);
  std::optional<Trigger> prepared;
  absl::Status status = Commit([&](Lifecycle& core, int64_t) -> absl::StatusOr<Effects> {
    mu_.AssertHeld();
    std::set<uint64_t> job_ids;
    if (request.res_type == TriggerResType::kJob) {
      uint64_t id = 0;
      if (absl::SimpleAtoi(request.res_id, &id)) job_ids.insert(id);
    }
    absl::StatusOr<Trigger> trigger = triggers_.Prepare(request, caller.uid, caller.gid, policy,
                                                        TriggerWorldOf(core, job_ids), program_ok);
    if (!trigger.ok()) return trigger.status();
    prepared = *trigger;
    Effects effects;
    effects.records.push_back(
        RecordRow{kTriggerRecordKind, absl::StrCat(trigger->id), EncodeTrigger(*trigger)});
    return effects;
  });
  if (!status.ok()) {
    if (absl::IsPermissionDenied(status)) {
      logger_.info("trigger set by uid {} refused: {} (program {})", caller.uid,
                   std::string(status.message()), request.program);
    }
    return status;
  }
  const uint32_t id = prepared->id;
  logger_.info("trigger[{}] set by uid {}: {} {} {} offset {} program {}", id, caller.uid,
               TriggerResTypeName(prepared->res_type), prepared->res_id,
               TriggerTypeName(prepared->type), prepared->offset, prepared->program);
  absl::MutexLock lock(&mu_);
  triggers_.Add(std::move(*prepared));
  return id;
}

std::vector<Trigger> Controller::SnapshotTriggers() {
  absl::MutexLock lock(&mu_);
  return triggers_.Visible();
}

absl::StatusOr<size_t> Controller::ClearTriggers(const Caller& caller,
                                                 const TriggerTable::ClearFilter& filter) {
  absl::MutexLock writer(&triggers_write_mu_);
  TriggerTable::ClearPlan plan;
  absl::Status stored = Commit([&](Lifecycle&, int64_t) -> absl::StatusOr<Effects> {
    mu_.AssertHeld();
    plan = triggers_.PlanClear(filter, caller.uid);
    if (plan.ids.empty()) return plan.status;
    Effects effects;
    for (uint32_t id : plan.ids) {
      effects.records.push_back(RecordRow{kTriggerRecordKind, absl::StrCat(id), ""});
    }
    return effects;
  });
  if (!stored.ok()) return stored;
  {
    absl::MutexLock lock(&mu_);
    triggers_.Remove(plan.ids);
  }
  for (uint32_t id : plan.ids) logger_.info("trigger[{}] cleared by uid {}", id, caller.uid);
  if (!plan.status.ok()) return plan.status;
  return plan.ids.size();
}

void Controller::ProcessTriggers() {
  absl::MutexLock writer(&triggers_write_mu_);
  const bool reconfigured = reconfigured_.exchange(false);
  std::optional<TriggerTable> next;
  TriggerTable::Outcome outcome;
  absl::Status stored = Commit([&](Lifecycle& core, int64_t now) -> absl::StatusOr<Effects> {
    mu_.AssertHeld();
    // Observed on a copy, installed once its records are stored: a failed
    // store leaves the table (and the observation it compares with) as it was,
    // so the next pass sees the same events again.
    next = triggers_;
    TriggerWorld world = TriggerWorldOf(core, next->JobIds());
    world.reconfigured = reconfigured;
    outcome = next->Observe(world, now);
    Effects effects;
    for (uint32_t id : outcome.changed) effects.records.push_back(TriggerRow(*next, id));
    for (TriggerFiring& fired : outcome.fired) {
      effects.intents.push_back(RunTriggerIntent{
          fired.trigger_id, static_cast<uint32_t>(fired.uid), static_cast<uint32_t>(fired.gid),
          std::move(fired.path), std::move(fired.argv),
          absl::StrCat(TriggerResTypeName(fired.res_type), ":", TriggerTypeName(fired.type))});
    }
    return effects;
  });
  if (!stored.ok()) {
    if (reconfigured) reconfigured_ = true;
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    triggers_ = std::move(*next);
  }
  for (const std::string& line : outcome.log) logger_.info("{}", line);
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
