// Events on jobs as users and operators ask for them: scancel, scontrol
// update/requeue/hold/release, suspend and resume, top; and the housekeeping
// events on jobs: time limits and purging finished ones.
#include <signal.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "common/checked_math.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/lifecycle/mail.h"
#include "ctld/core/run_charge.h"
#include "ctld/core/scheduler/priority.h"

namespace skiff::ctld {

Effects Lifecycle::Cancel(const Caller& caller, bool privileged, const CancelSpec& spec,
                          int64_t now, std::vector<CancelOutcome>* outcomes) {
  state_.Begin();
  Effects effects;
  std::vector<uint64_t> selected;
  std::set<uint64_t> named_tasks;  // array tasks named as J_T
  auto matches = [&](const Job& job) {
    if (!spec.user.empty() && job.user_name != spec.user) return false;
    if (!spec.name.empty() && job.name != spec.name) return false;
    if (!spec.states.empty() &&
        std::find(spec.states.begin(), spec.states.end(), job.state) == spec.states.end()) {
      return false;
    }
    return spec.partitions.empty() || absl::c_linear_search(spec.partitions, job.request.partition);
  };
  if (!spec.jobs.empty()) {
    std::set<uint64_t> seen;
    for (const JobRef& ref : spec.jobs) {
      std::vector<const Job*> jobs = Resolve(ref);
      if (jobs.empty()) {
        outcomes->push_back({ref.job_id, absl::NotFoundError("Invalid job id specified")});
      }
      for (const Job* job : jobs) {
        // A whole array: its finished tasks are not errors.
        if (jobs.size() > 1 && IsFinal(job->state)) continue;
        // J_T, or a task by its own job id: that task alone.
        if (ref.array_task_id >= 0 || ref.job_id != job->array_job_id) named_tasks.insert(job->id);
        if (matches(*job) && seen.insert(job->id).second) selected.push_back(job->id);
      }
    }
  } else {
    for (const auto& [id, job] : state_.jobs()) {
      if (IsFinal(job.state) || !matches(job)) continue;
      // Without ids, a user's filters only ever reach their own jobs (Slurm).
      if (!privileged && job.uid != caller.uid) continue;
      selected.push_back(id);
    }
  }
  for (uint64_t id : selected) {
    const Job& current = state_.jobs().at(id);
    if (current.uid != caller.uid && !privileged) {
      outcomes->push_back({id, absl::PermissionDeniedError("Access/permission denied")});
      continue;
    }
    if (IsFinal(current.state) || current.state == JobState::kCompleting) {
      outcomes->push_back(
          {id, absl::FailedPreconditionError("Job/step already completing or completed")});
      continue;
    }
    if (spec.signal != 0) {
      if (current.state != JobState::kRunning) {
        // Slurm's job_signal answers ESLURM_TRANSITION_STATE_NO_UPDATE for a
        // job not running (pending, suspended), and scancel tries again for
        // up to 95 s: a signal sent right after sbatch reaches the job once
        // it runs. A job still configuring (prolog, launch) is answered so
        // too, where Slurm sends it to the steps there are, none yet
        // (docs/compatibility.md).
        outcomes->push_back(
            {id, absl::UnavailableError("Job can not be altered now, try again later")});
        continue;
      }
      // Slurm: -f wins over -b; neither spares the batch shell.
      const SignalScope scope = spec.full         ? SignalScope::kBatchAndSteps
                                : spec.batch_only ? SignalScope::kBatchShell
                                                  : SignalScope::kSteps;
      effects.intents.push_back(
          SignalIntent{id, NodeTarget(current.nodes.front()), spec.signal, scope});
      outcomes->push_back({id, absl::OkStatus()});
      continue;
    }
    Job& job = state_.Mut(id);
    job.cancelled_by = caller.uid;
    if (job.state == JobState::kPending) {
      job.end_time = now;
      job.final_state = JobState::kCancelled;
      job.cancelled_with_array = job.array_task_id >= 0 && named_tasks.count(id) == 0;
      // The reason it waited for stays (scontrol's Reason=Priority), as
      // Slurm's _job_signal leaves state_reason alone.
      TransitionJob(job, JobEvent::kCancelPending, effects);
      BbCancelPending(job, spec.hurry, effects);
    } else {
      job.bb_hurry = spec.hurry;
      job.progress.requeue_request = Job::RequeueRequest::kNone;  // scancel wins over a requeue
      Terminate(job, JobState::kCancelled, effects);
    }
    effects.log.push_back(absl::StrCat("JobId=", id, " cancelled by uid ", caller.uid));
    outcomes->push_back({id, absl::OkStatus()});
  }
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

namespace {

// Whether an update from `before` to `after` must pass admission's policy
// rules again. A user's: when it moves the job (account, QOS, partition) or
// asks for more (nodes, time); lowering what a job asks for stays possible
// even for a job already over a limit, as Slurm allows. An operator's: only
// when it moves the job to another association, which must exist.
bool NeedsPolicyCheck(const Job& before, const Job& after, bool privileged) {
  const bool moves =
      before.account != after.account || before.request.partition != after.request.partition;
  if (privileged) return moves;
  const int64_t was = before.request.time_limit;
  const int64_t now = after.request.time_limit;
  const bool longer = was != kUnlimited && (now == kUnlimited || now > was);
  return moves || before.qos != after.qos || after.request.num_nodes > before.request.num_nodes ||
         longer;
}

}  // namespace

absl::StatusOr<Job> Lifecycle::Updated(const Job& current, bool privileged,
                                       const JobUpdate& update) const {
  // Every field is checked on a copy; the job changes only when all pass.
  Job job = current;
  const bool pending = job.state == JobState::kPending;
  auto not_pending = [] {
    return absl::FailedPreconditionError("Job is no longer pending execution");
  };
  auto denied = [](const char* why) {
    return absl::PermissionDeniedError(absl::StrCat("Access/permission denied (", why, ")"));
  };
  if (update.held.has_value()) {
    if (!pending) return not_pending();
    if (*update.held) {
      job.held = true;
      job.held_by_admin = privileged && !update.user_hold;
      job.reason = job.held_by_admin ? "JobHeldAdmin" : "JobHeldUser";
    } else {
      if (job.held_by_admin && !privileged) {
        return denied("the job was held by an administrator; only an operator can release it");
      }
      // A released job goes to the end of the line, as in Slurm (its place is
      // given when the update is applied).
      if (job.held) job.basic_priority = 0;
      job.held = false;
      job.held_by_admin = false;
      job.reason = "None";
      job.reason_detail.clear();
    }
  }
  if (update.time_limit.has_value()) {
    const int64_t current_limit = job.request.time_limit;
    const int64_t wanted = *update.time_limit;
    // As at submit: seconds below -1 (UNLIMITED) or past Slurm's largest limit.
    if (wanted < kUnlimited || wanted > kMaxTimeLimitSeconds) {
      return absl::InvalidArgumentError(
          "Requested time limit is invalid (missing or exceeds some limit)");
    }
    const bool lowers = current_limit == kUnlimited
                            ? wanted != kUnlimited
                            : wanted != kUnlimited && wanted <= current_limit;
    // As in Slurm: a user may lower the limit of any job, and raise that of a
    // pending job up to its partition's MaxTime (checked below).
    if (!privileged && !lowers && !pending) {
      return denied("only an operator can raise the time limit of a job that has started");
    }
    job.request.time_limit = wanted;
  }
  if (update.name.has_value()) job.name = *update.name;
  if (update.account.has_value()) {
    // As Slurm: a started job's association (and so its charges) is fixed.
    if (!pending) return not_pending();
    // As at submit: lower case, and "" is the user's DefaultAccount. The QOS
    // stays the job's (a non-empty stand-in keeps the default QOS out).
    std::string account = *update.account;
    std::string keep_qos = "-";
    FillAccountDefaults(account_policy_, job.user_name, &account, &keep_qos);
    job.account = account;
  }
  if (update.comment.has_value()) job.comment = *update.comment;
  if (update.reservation.has_value()) {
    // As at submit: a reservation that exists and that the job's user and
    // account may use; a started job keeps the one it started in.
    if (!pending) return not_pending();
    if (!update.reservation->empty()) {
      if (absl::Status s = CheckJobReservation(state_.advance_reservations(), *update.reservation,
                                               job.user_name, job.account, /*now=*/0);
          !s.ok()) {
        return s;
      }
    }
    job.reservation = *update.reservation;
  }
  if (update.qos.has_value()) {
    if (!pending) return not_pending();
    const bool known =
        std::any_of(qos_.begin(), qos_.end(), [&](const Qos& q) { return q.name == *update.qos; });
    if (!known) return absl::InvalidArgumentError("Invalid qos specification");
    job.qos = *update.qos;
  }
  if (update.partition.has_value()) {
    if (!pending) return not_pending();
    const PartitionConfig* partition = config_->FindPartition(*update.partition);
    if (partition == nullptr) {
      return absl::InvalidArgumentError("Invalid partition name specified");
    }
    if (partition->name != current.request.partition) {
      if (absl::Status s = CheckPartitionTakesJobs(*partition); !s.ok()) return s;
    }
    job.request.partition = *update.partition;
  }
  if (update.min_nodes.has_value()) {
    if (!pending) return not_pending();
    if (*update.min_nodes < 1) return absl::InvalidArgumentError("Invalid node count specified");
    job.request.num_nodes = *update.min_nodes;
  }
  if (update.nice.has_value()) {
    if (!pending) return not_pending();
    // Slurm's ESLURM_INVALID_NICE: only operators may raise a job's priority so.
    if (*update.nice < 0 && !privileged) return absl::InvalidArgumentError("Invalid nice value");
    job.nice = *update.nice;
  }
  if (update.priority.has_value()) {
    if (!pending) return not_pending();
    if (*update.priority < 0) return absl::InvalidArgumentError("Invalid priority value");
    // A user may only lower their job's priority (Slurm's rule).
    if (!privileged && (job.priority == 0 || *update.priority > job.priority)) {
      return denied("only an operator can raise a job's priority");
    }
    job.admin_priority = *update.priority;
  }
  if (update.begin_time.has_value()) {
    if (!pending) return not_pending();
    job.request.begin_time = *update.begin_time;
  }
  if (update.features.has_value()) {
    if (!pending) return not_pending();
    job.request.features = *update.features;
  }
  if (update.prefer.has_value()) {
    if (!pending) return not_pending();
    job.request.prefer = *update.prefer;
  }
  if (update.licenses.has_value()) {
    // Slurm's rule: a pending job's, or a running one's by an operator (what
    // it holds is counted from its request on the next pass).
    if (!pending && !(privileged && job.state == JobState::kRunning)) return not_pending();
    absl::StatusOr<std::vector<LicenseCount>> licenses = ParseLicenses(*update.licenses);
    if (!licenses.ok()) return absl::InvalidArgumentError(kInvalidLicenses);
    if (absl::Status s = CheckLicenseRequest(*licenses, config_->licenses); !s.ok()) return s;
    job.request.licenses_text = *update.licenses;
    job.request.licenses = *std::move(licenses);
  }
  if (update.exclude.has_value()) {
    if (!pending) return not_pending();
    job.request.exclude = *update.exclude;
  }
  if (update.nodelist.has_value()) {
    if (!pending) return not_pending();
    job.request.nodelist = *update.nodelist;
  }
  if (update.array_task_throttle.has_value()) {
    if (job.array_job_id == 0) {
      return absl::InvalidArgumentError("ArrayTaskThrottle applies only to job arrays");
    }
    if (*update.array_task_throttle < 0) {
      return absl::InvalidArgumentError("Invalid ArrayTaskThrottle value");
    }
    job.array_max_running = *update.array_task_throttle;
  }
  // What submission checks, checked again for the job as it would become: a
  // user cannot reach by update a partition, QOS, account, size or time limit
  // that submission refuses. A running job's partition, QOS, account and size
  // cannot change, so only its time limit is rechecked then. (The rules that
  // need the job table, the association's among them, are Update's.)
  const bool reshapes =
      update.partition || update.qos || update.account || update.min_nodes || update.time_limit;
  if (reshapes && !privileged) {
    const PartitionConfig* partition = config_->FindPartition(job.request.partition);
    if (partition == nullptr) return absl::InvalidArgumentError("Invalid partition name specified");
    if (absl::Status s = CheckPartitionAccess(job, *partition, privileged); !s.ok()) return s;
  }
  // A pending job must stay runnable, for operators too: a node list or a
  // feature no node has would leave it pending forever.
  const bool replaces =
      update.partition || update.min_nodes || update.features || update.exclude || update.nodelist;
  if (pending && replaces) {
    for (const std::string& name : job.request.nodelist) {
      if (state_.nodes().Find(name) == nullptr) {
        return absl::InvalidArgumentError("Invalid node name specified");
      }
    }
    if (absl::Status s = CheckSatisfiable(job.request, state_.nodes().Capacities()); !s.ok())
      return s;
  }
  return job;
}

absl::Status Lifecycle::RequeueOne(Job& job, bool hold, int64_t now, Effects& effects) {
  if (job.state == JobState::kPending) {
    return absl::FailedPreconditionError("Job is pending execution");
  }
  if (!job.requeue) {
    return absl::FailedPreconditionError("Requested operation is presently disabled");
  }
  const Job::RequeueRequest request =
      hold ? Job::RequeueRequest::kRequeueHold : Job::RequeueRequest::kRequeue;
  if (IsFinal(job.state)) {
    // A finished job goes back to the queue at once (Slurm requeues finished
    // batch jobs still in memory); one with a burst buffer would have to be
    // staged in anew, which Skiff does not do.
    if (job.UsesBurstBuffer()) {
      return absl::FailedPreconditionError("Requested operation is presently disabled");
    }
    job.progress.requeue_request = request;
    RequeueAfterTeardown(job, now, effects);  // its REQUEUE mail says the run it had
    job.end_time = 0;
    return absl::OkStatus();
  }
  job.progress.requeue_request = request;
  if (job.state == JobState::kCompleting) return absl::OkStatus();  // FinishJob requeues it
  effects.log.push_back(absl::StrCat("JobId=", job.id, " requeue requested"));
  Terminate(job, JobState::kCancelled, effects);
  (void)now;
  return absl::OkStatus();
}

absl::StatusOr<Effects> Lifecycle::Update(const Caller& caller, bool privileged,
                                          const JobUpdate& update, int64_t now) {
  const std::vector<const Job*> targets =
      Resolve({update.job_id, update.array_task_id.value_or(-1)});
  if (targets.empty()) return absl::NotFoundError("Invalid job id specified");
  for (const Job* current : targets) {
    // Slurm's answer to an update of someone else's job (ESLURM_USER_ID_MISSING).
    if (current->uid != caller.uid && !privileged) {
      return absl::PermissionDeniedError("Invalid user id");
    }
  }
  const bool whole_array = targets.size() > 1;
  if (update.requeue != JobUpdate::Requeue::kNone) {
    state_.Begin();
    Effects effects;
    for (const Job* target : targets) {
      if (whole_array && target->state == JobState::kPending) continue;
      absl::Status s = RequeueOne(state_.Mut(*target),
                                  update.requeue == JobUpdate::Requeue::kRequeueHold, now, effects);
      if (!s.ok()) {
        Rollback();
        return s;
      }
    }
    effects.log.push_back(absl::StrCat("JobId=", update.job_id, " requeued by uid ", caller.uid));
    effects.reschedule = true;
    return state_.Close(std::move(effects));
  }
  std::vector<Job> changed;
  absl::Status first_refusal;
  for (const Job* current : targets) {
    // An array's finished tasks are left as they are; a job named alone is not.
    if (IsFinal(current->state)) {
      if (whole_array) continue;
      return absl::FailedPreconditionError("Job has already finished");
    }
    absl::StatusOr<Job> job = Updated(*current, privileged, update);
    if (!job.ok()) {
      // A whole array: tasks already running keep what only pending tasks may
      // change (hold, partition, ...), as Slurm updates each task it can.
      if (whole_array && job.status().code() == absl::StatusCode::kFailedPrecondition) {
        if (first_refusal.ok()) first_refusal = job.status();
        continue;
      }
      return job.status();
    }
    changed.push_back(std::move(*job));
  }
  if (changed.empty()) {
    return first_refusal.ok() ? absl::FailedPreconditionError("Job has already finished")
                              : first_refusal;
  }
  // The association, QOS and limit rules of admission (AccountingStorageEnforce),
  // for every changed job at once: an array moved to another account counts
  // all its tasks there. Only jobs the update takes further are checked.
  std::vector<const Job*> checked;
  std::set<uint64_t> replacing;
  for (const Job& job : changed) {
    if (NeedsPolicyCheck(*Find(job.id), job, privileged)) {
      checked.push_back(&job);
      replacing.insert(job.id);
    }
  }
  if (!checked.empty()) {
    if (absl::Status s = CheckPolicy(checked, 1, replacing, privileged); !s.ok()) return s;
  }
  state_.Begin();
  int64_t place = 0;  // one for all the tasks of an array released at once
  for (Job& job : changed) {
    if (job.state == JobState::kPending && !job.held && job.basic_priority == 0) {
      if (place == 0) place = TakeBasicPriority();
      job.basic_priority = place;
    }
    const uint64_t id = job.id;
    state_.Mut(id) = std::move(job);
  }
  Effects effects;
  effects.log.push_back(absl::StrCat("JobId=", update.job_id, " updated by uid ", caller.uid));
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::Suspend(const Caller& caller, bool privileged, const JobRef& ref,
                                           bool resume, int64_t now) {
  // Slurm: only operators suspend and resume (a user's suspend would free
  // nothing for others and could stall a running job's peers).
  if (!privileged) return absl::PermissionDeniedError("Access/permission denied");
  const std::vector<const Job*> targets = Resolve(ref);
  if (targets.empty()) return absl::NotFoundError("Invalid job id specified");
  state_.Begin();
  Effects effects;
  for (const Job* target : targets) {
    const JobState want = resume ? JobState::kSuspended : JobState::kRunning;
    if (target->state != want) {
      if (targets.size() > 1) continue;  // an array's other tasks are not errors
      Rollback();
      return absl::FailedPreconditionError(resume ? "Job is not suspended" : "Job is not running");
    }
    Job& job = state_.Mut(*target);
    if (!TransitionJob(job, resume ? JobEvent::kResume : JobEvent::kSuspend, effects)) continue;
    if (resume) job.suspended_total += std::max<int64_t>(0, now - job.suspend_time);
    job.suspend_time = now;
    effects.intents.push_back(SignalIntent{job.id, NodeTarget(job.nodes.front()),
                                           resume ? SIGCONT : SIGSTOP, SignalScope::kEveryProcess});
    effects.log.push_back(
        absl::StrCat("JobId=", job.id, resume ? " resumed" : " suspended", " by uid ", caller.uid));
  }
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::Top(const Caller& caller, bool privileged,
                                       const std::vector<uint64_t>& job_ids, int64_t now) {
  (void)now;
  if (job_ids.empty()) return absl::InvalidArgumentError("No job id given");
  const Job* first = Find(job_ids.front());
  if (first == nullptr) return absl::NotFoundError("Invalid job id specified");
  if (!privileged && (first->uid != caller.uid || !config_->scheduler_parameters.enable_user_top)) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  auto same_group = [first](const Job& job) {
    return job.state == JobState::kPending && job.uid == first->uid &&
           job.request.partition == first->request.partition && job.account == first->account &&
           job.qos == first->qos;
  };
  // The listed jobs that belong to the group, in the order given (Slurm leaves
  // jobs that do not match the first one alone).
  std::vector<const Job*> listed;
  for (uint64_t id : job_ids) {
    const Job* job = Find(id);
    if (job == nullptr) return absl::NotFoundError("Invalid job id specified");
    if (same_group(*job) && std::find(listed.begin(), listed.end(), job) == listed.end()) {
      listed.push_back(job);
    }
  }
  int64_t best_of_rest = 0;
  for (const auto& [id, job] : state_.jobs()) {
    if (same_group(job) && std::find(listed.begin(), listed.end(), &job) == listed.end()) {
      best_of_rest = std::max(best_of_rest, job.priority);
    }
  }
  // From the last listed job up: each just above the one after it (the last
  // just above the rest of the group), never lower than it is. The change goes
  // into nice, so the next passes keep the order as the jobs age alike.
  state_.Begin();
  Effects effects;
  int64_t floor = best_of_rest;
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    const int64_t target = std::max((*it)->priority, floor + 1);
    floor = target;
    if (target == (*it)->priority) continue;
    Job& job = state_.Mut(**it);
    job.nice = static_cast<int32_t>(
        std::clamp<int64_t>(job.nice - (target - job.priority), -2147483645, 2147483645));
    job.priority = target;  // derived; the next pass computes the same
  }
  effects.log.push_back(
      absl::StrCat("JobId=", job_ids.front(), " moved to the top by uid ", caller.uid));
  effects.reschedule = true;
  return state_.Close(std::move(effects));
}

Effects Lifecycle::EnforceTimeLimits(int64_t now) {
  state_.Begin();
  Effects effects;
  const int64_t grace = OverTimeSeconds(config_->over_time_limit);
  // Every second: the unfinished jobs only, not MinJobAge's finished ones.
  for (const auto& [id, unfinished] : state_.unfinished()) {
    const Job& stored = *unfinished;
    if (stored.state != JobState::kRunning || state_.terminate_sent(id)) continue;
    if (stored.progress.preempt_stop_at != 0) {
      // Preempted in its GraceTime: stopped when it ends.
      if (now >= stored.progress.preempt_stop_at) {
        effects.log.push_back(absl::StrCat("JobId=", id, " GraceTime over: stopping it"));
        Terminate(state_.Mut(id), JobState::kPreempted, effects);
      }
      continue;
    }
    if (stored.request.time_limit == kUnlimited) continue;
    // Time spent suspended does not count against the limit, as in Slurm.
    const int64_t end = stored.start_time + stored.request.time_limit + stored.suspended_total;
    if (stored.warn_signal != 0 && !stored.warn_sent && now >= end - stored.warn_time &&
        now < end + grace && !stored.nodes.empty()) {
      Job& job = state_.Mut(id);
      job.warn_sent = true;
      effects.log.push_back(absl::StrCat("JobId=", id, " sent signal ", job.warn_signal, " ",
                                         job.warn_time, "s before its time limit"));
      effects.intents.push_back(
          SignalIntent{id, NodeTarget(job.nodes.front()), job.warn_signal,
                       job.warn_batch_only ? SignalScope::kBatchShell : SignalScope::kSteps});
    }
    MailRules(state_, *config_).OnTimeCheck(id, end, now, effects);
    if (now < end + grace) continue;
    effects.log.push_back(
        absl::StrCat("JobId=", id, " reached its time limit of ", stored.request.time_limit, "s"));
    Job& job = state_.Mut(id);
    Terminate(job, JobState::kTimeout, effects);
    // SIGKILL at the deadline admission reserved up to (limit, grace, KillWait),
    // however late this check ran or was resent after a restart.
    if (!effects.intents.empty()) {
      if (auto* terminate = std::get_if<TerminateIntent>(&effects.intents.back());
          terminate != nullptr && terminate->job_id == id) {
        terminate->kill_wait = KillWaitLeft(end + grace, config_->kill_wait, now);
      }
    }
  }
  return state_.Close(std::move(effects));
}

size_t Lifecycle::Purge(int64_t now) {
  const int64_t cutoff = now - config_->min_job_age;
  std::vector<uint64_t> done;
  for (const auto& [id, job] : state_.jobs()) {
    const bool bb_done = !job.UsesBurstBuffer() || job.bb_state == BbState::kComplete;
    if (IsFinal(job.state) && bb_done && job.end_time < cutoff) done.push_back(id);
  }
  for (uint64_t id : done) {
    dependencies_.erase(id);
    state_.Forget(id);  // still in the database for accounting
  }
  return done.size();
}

}  // namespace skiff::ctld
