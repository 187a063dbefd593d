// Events on jobs: scancel, scontrol requeue/hold/suspend/top, time limits and
// --signal, priorities, eligibility, and what runs are charged.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

TEST_F(LifecycleTest, SignalOptionWarnsOnceBeforeTheTimeLimit) {
  SubmitRequest request = Request();
  request.warn_signal = 10;  // --signal=B:USR1@120
  request.warn_time = 120;
  request.warn_batch_only = true;
  const uint64_t id = Submit(request);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  auto signals = [](const Effects& effects) {
    std::vector<SignalIntent> out;
    for (const Intent& intent : effects.intents) {
      if (const auto* s = std::get_if<SignalIntent>(&intent)) out.push_back(*s);
    }
    return out;
  };
  EXPECT_TRUE(signals(Store(core_->EnforceTimeLimits(now_ + 479))).empty());
  std::vector<SignalIntent> sent = signals(Store(core_->EnforceTimeLimits(now_ + 480)));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].job_id, id);
  EXPECT_EQ(sent[0].signal, 10);
  EXPECT_EQ(sent[0].scope, SignalScope::kBatchShell);
  EXPECT_TRUE(store_[id].warn_sent);  // stored: a restarted ctld does not send it again
  EXPECT_TRUE(signals(Store(core_->EnforceTimeLimits(now_ + 500))).empty());
  // The time limit itself still ends the job.
  Effects timeout = Store(core_->EnforceTimeLimits(now_ + 600));
  EXPECT_EQ(core_->Find(id)->final_state, JobState::kTimeout);
}

TEST_F(LifecycleTest, PriorityBasicCountsDownBySubmissionAndAReleasedJobGoesLast) {
  config_.priority_type = "priority/basic";
  constexpr int64_t kFirst = Lifecycle::kTopBasicPriority - 1;  // Slurm's 4294901759
  const uint64_t a = Submit(Request());
  SubmitRequest held = Request();
  held.hold = true;
  const uint64_t b = Submit(held);
  SubmitRequest array = Request();
  array.array = "1-2";
  const uint64_t c = Submit(array);
  SubmitRequest nice = Request();
  nice.nice = 10;
  const uint64_t d = Submit(nice);
  EXPECT_EQ(store_[a].basic_priority, kFirst);
  EXPECT_EQ(store_[a].priority, kFirst);
  EXPECT_EQ(store_[b].basic_priority, 0);  // held: no place in line yet
  EXPECT_EQ(store_[c].basic_priority, kFirst - 1);
  EXPECT_EQ(store_[c + 1].basic_priority, kFirst - 1);  // one for the whole array
  EXPECT_EQ(store_[d].basic_priority, kFirst - 2);
  EXPECT_EQ(store_[d].priority, kFirst - 2 - 10);

  JobUpdate release;
  release.job_id = b;
  release.held = false;
  absl::StatusOr<Effects> released = core_->Update({1001, 1001}, false, release, now_);
  ASSERT_TRUE(released.ok()) << released.status();
  Store(std::move(*released));
  EXPECT_EQ(store_[b].basic_priority, kFirst - 3);  // last in line

  // After a restart the count goes on below the lowest place given.
  std::vector<Job> jobs;
  for (const auto& [id, job] : store_) jobs.push_back(job);
  Lifecycle restarted(config_, settings_, now_);
  restarted.Load(std::move(jobs), d, {});
  restarted.SetQosViewForTest({Qos{"normal"}});
  absl::StatusOr<Admitted> next = restarted.Admit(Request(), now_);
  ASSERT_TRUE(next.ok()) << next.status();
  restarted.Insert(*next, now_);
  EXPECT_EQ(restarted.Find(next->first_id)->basic_priority, kFirst - 4);
}

TEST_F(LifecycleTest, HeldAndDependentJobsAreEligibleOnlyOnceAPassFindsThemSo) {
  const uint64_t first = Submit(Request());
  SubmitRequest held = Request();
  held.hold = true;
  const uint64_t h = Submit(held);
  SubmitRequest dependent = Request();
  dependent.dependency = absl::StrCat("afterok:", first);
  const uint64_t dep = Submit(dependent);
  SubmitRequest later = Request();
  later.begin_time = now_ + 100;
  const uint64_t begins = Submit(later);
  EXPECT_EQ(store_[first].eligible_time, now_);
  EXPECT_EQ(store_[h].eligible_time, 0);  // Slurm's EligibleTime=Unknown
  EXPECT_EQ(store_[dep].eligible_time, 0);
  EXPECT_EQ(store_[begins].eligible_time, now_ + 100);
  now_ += 10;
  Drive(Schedule());
  EXPECT_EQ(store_[h].eligible_time, 0);
  EXPECT_EQ(store_[dep].eligible_time, 0);
  JobUpdate release;
  release.job_id = h;
  release.held = false;
  Store(*core_->Update({1001, 1001}, false, release, now_));
  now_ += 10;
  Schedule();
  EXPECT_EQ(store_[h].eligible_time, now_);
}

TEST_F(LifecycleTest, AFailedJobsReasonSaysWhy) {
  const uint64_t exits = Submit(Request());
  const uint64_t killed = Submit(Request());
  Drive(Schedule());
  ASSERT_EQ(StateOf(exits), JobState::kRunning);
  ASSERT_EQ(StateOf(killed), JobState::kRunning);
  Drive(Store(core_->JobComplete("n1", {exits, true, 3, 0, ""}, now_)));
  Drive(Store(
      core_->JobComplete(core_->Find(killed)->nodes.front(), {killed, true, 0, 9, ""}, now_)));
  EXPECT_EQ(core_->Find(exits)->final_state, JobState::kFailed);
  EXPECT_EQ(core_->Find(exits)->reason, "NonZeroExitCode");
  // A script killed by a signal: JobLaunchFailure, as Slurm's job_complete has it.
  EXPECT_EQ(core_->Find(killed)->reason, "JobLaunchFailure");
}

TEST_F(LifecycleTest, ScancelSignalReachesTheStepsUnlessBatchOrFull) {
  const uint64_t id = Submit(Request());
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  auto scope_of = [&](bool batch_only, bool full) {
    CancelSpec spec = CancelOf(id);
    spec.signal = SIGUSR1;
    spec.batch_only = batch_only;
    spec.full = full;
    std::vector<CancelOutcome> outcomes;
    Effects effects = Store(core_->Cancel({0, 0}, true, spec, now_, &outcomes));
    EXPECT_EQ(outcomes.size(), 1u);
    EXPECT_TRUE(outcomes.empty() || outcomes[0].status.ok());
    for (const Intent& intent : effects.intents) {
      if (const auto* s = std::get_if<SignalIntent>(&intent)) {
        EXPECT_EQ(s->signal, SIGUSR1);
        return s->scope;
      }
    }
    ADD_FAILURE() << "no signal sent";
    return SignalScope::kEveryProcess;
  };
  EXPECT_EQ(scope_of(false, false), SignalScope::kSteps);
  EXPECT_EQ(scope_of(true, false), SignalScope::kBatchShell);
  EXPECT_EQ(scope_of(false, true), SignalScope::kBatchAndSteps);
  EXPECT_EQ(scope_of(true, true), SignalScope::kBatchAndSteps);  // -f wins, as in Slurm
  EXPECT_EQ(StateOf(id), JobState::kRunning);
}

// Slurm keeps the pending tasks of an array cancelled whole in the array's
// record (shown CANCELLED); a task cancelled alone leaves it.
TEST_F(LifecycleTest, PendingTasksCancelledWithTheirArrayStayInItsRecord) {
  SubmitRequest array = Request();
  array.array = "1-4";
  array.hold = true;
  const uint64_t base = Submit(array);
  std::vector<CancelOutcome> outcomes;
  CancelSpec one;
  one.jobs = {{base, 2}};
  Store(core_->Cancel({0, 0}, true, one, now_, &outcomes));
  Store(core_->Cancel({0, 0}, true, CancelOf(base + 3), now_, &outcomes));  // task 4 by its id
  Store(core_->Cancel({0, 0}, true, CancelOf(base), now_, &outcomes));      // the rest
  for (const CancelOutcome& outcome : outcomes) EXPECT_TRUE(outcome.status.ok()) << outcome.status;
  EXPECT_TRUE(core_->Find(base)->cancelled_with_array);
  EXPECT_FALSE(core_->Find(base + 1)->cancelled_with_array) << "task 2, cancelled alone";
  EXPECT_TRUE(core_->Find(base + 2)->cancelled_with_array);
  EXPECT_FALSE(core_->Find(base + 3)->cancelled_with_array) << "task 4, named by its own id";
  EXPECT_EQ(StateOf(base + 2), JobState::kCancelled);
}

// Slurm's ESLURM_TRANSITION_STATE_NO_UPDATE, on which scancel tries again.
TEST_F(LifecycleTest, ASignalToAJobNotYetRunningAsksToTryAgain) {
  SubmitRequest held = Request();
  held.hold = true;
  const uint64_t id = Submit(held);
  CancelSpec spec = CancelOf(id);
  spec.signal = SIGUSR1;
  std::vector<CancelOutcome> outcomes;
  Effects effects = Store(core_->Cancel({0, 0}, true, spec, now_, &outcomes));
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(outcomes[0].status.message(), "Job can not be altered now, try again later");
  EXPECT_TRUE(effects.intents.empty());
  EXPECT_EQ(StateOf(id), JobState::kPending) << "a signal never cancels";
}

TEST_F(LifecycleTest, ADeadlineTheTimeLimitCannotMeetIsRefusedOrEndsTheJobDeadline) {
  SubmitRequest past = Request();
  past.deadline = now_ - 1;
  EXPECT_EQ(core_->Admit(past, now_).status().message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  SubmitRequest too_soon = Request();  // 600 s limit
  too_soon.deadline = now_ + 599;
  EXPECT_FALSE(core_->Admit(too_soon, now_).ok());
  // Fits now; both nodes are busy until it no longer fits.
  const uint64_t busy1 = Submit(Request(2));
  const uint64_t busy2 = Submit(Request(2));
  SubmitRequest waits = Request();
  waits.deadline = now_ + 700;
  const uint64_t id = Submit(waits);
  Drive(Schedule());
  EXPECT_EQ(StateOf(id), JobState::kPending);
  now_ += 101;
  Effects ended = Schedule();
  EXPECT_EQ(StateOf(id), JobState::kDeadline);
  EXPECT_EQ(store_[id].state, JobState::kDeadline);
  EXPECT_EQ(store_[id].exit_code, 1);
  EXPECT_EQ(store_[id].reason, "DeadLine");
  EXPECT_EQ(store_[id].start_time, now_);
  EXPECT_EQ(StateOf(busy1), JobState::kRunning);
  EXPECT_EQ(StateOf(busy2), JobState::kRunning);
}

TEST_F(LifecycleTest, RequeueStopsARunningJobAndQueuesItAgainHeldOrNot) {
  const uint64_t id = Submit(Request());
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  JobUpdate update;
  update.job_id = id;
  update.requeue = JobUpdate::Requeue::kRequeueHold;
  Drive(Store(core_->Update({1001, 1001}, false, update, now_)));
  ASSERT_EQ(terminated_.size(), 1u);
  // Still running until its node reports the end of the run.
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 15, ""}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kPending);
  EXPECT_TRUE(core_->Find(id)->held);
  EXPECT_EQ(core_->Find(id)->restart_count, 1);
  EXPECT_EQ(core_->Find(id)->reason_detail, "job requeued in held state");
  // A pending job cannot be requeued; someone else's job not at all.
  EXPECT_EQ(core_->Update({1001, 1001}, false, update, now_).status().message(),
            "Job is pending execution");
  EXPECT_EQ(core_->Update({1002, 1002}, false, update, now_).status().message(), "Invalid user id");
}

TEST_F(LifecycleTest, APendingJobCancelledKeepsTheReasonItWaitedFor) {
  const uint64_t id = Submit(Request());
  JobUpdate hold;
  hold.job_id = id;
  hold.held = true;
  Store(core_->Update({0, 0}, true, hold, now_));
  std::vector<CancelOutcome> outcomes;
  Store(core_->Cancel({0, 0}, true, CancelOf(id), now_ + 5, &outcomes));
  EXPECT_EQ(StateOf(id), JobState::kCancelled);
  EXPECT_EQ(core_->Find(id)->reason, "JobHeldAdmin");  // as Slurm's scontrol shows it
  EXPECT_EQ(core_->Find(id)->start_time, 0);           // never started (sacct: Start=None)
  EXPECT_EQ(core_->Find(id)->end_time, now_ + 5);
}

// A pass planned from a snapshot taken before an operator's hold must not put
// the snapshot's reason (the user's hold) back on the job.
TEST_F(LifecycleTest, APassPlannedBeforeAnAdminHoldLeavesJobHeldAdmin) {
  SubmitRequest spec = Request();
  spec.hold = true;  // sbatch -H: the user's hold
  const uint64_t id = Submit(spec);
  ASSERT_EQ(core_->Find(id)->reason, "JobHeldUser");
  PassInput input;
  Store(core_->PrepareSchedule(now_, &input));
  const PassPlan plan = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
  JobUpdate hold;
  hold.job_id = id;
  hold.held = true;
  Store(core_->Update({0, 0}, true, hold, now_));  // scontrol hold, as root
  ASSERT_EQ(core_->Find(id)->reason, "JobHeldAdmin");
  bool replan = false;
  Store(core_->ApplySchedule(input, plan, now_, &replan));
  EXPECT_EQ(core_->Find(id)->reason, "JobHeldAdmin");
  EXPECT_TRUE(replan) << "the changed job is looked at again";
}

TEST_F(LifecycleTest, ScancelWinsOverARequeueInFlight) {
  const uint64_t id = Submit(Request());
  Drive(Schedule());
  JobUpdate update;
  update.job_id = id;
  update.requeue = JobUpdate::Requeue::kRequeue;
  Drive(Store(core_->Update({1001, 1001}, false, update, now_)));
  std::vector<CancelOutcome> outcomes;
  Store(core_->Cancel({1001, 1001}, false, CancelOf(id), now_, &outcomes));
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 15, ""}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCancelled);
}

TEST_F(LifecycleTest, SuspendStopsTheJobKeepsItsNodesAndPausesItsTimeLimit) {
  const uint64_t id = Submit(Request());  // time limit 600 s
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(core_->Suspend({1001, 1001}, false, {id}, false, now_).status().code(),
            absl::StatusCode::kPermissionDenied);  // operators only
  Effects suspended = Store(core_->Suspend({0, 0}, true, {id}, false, now_ + 100));
  ASSERT_EQ(StateOf(id), JobState::kSuspended);
  ASSERT_EQ(suspended.intents.size(), 1u);
  EXPECT_EQ(std::get<SignalIntent>(suspended.intents[0]).signal, SIGSTOP);
  EXPECT_EQ(store_[id].state, JobState::kSuspended);  // stored
  EXPECT_EQ(core_->Suspend({0, 0}, true, {id}, false, now_ + 101).status().message(),
            "Job is not running");
  // 500 s suspended: no timeout at the original limit.
  Store(core_->EnforceTimeLimits(now_ + 700));
  Effects resumed = Store(core_->Suspend({0, 0}, true, {id}, true, now_ + 600));
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(std::get<SignalIntent>(resumed.intents[0]).signal, SIGCONT);
  EXPECT_EQ(core_->Find(id)->suspended_total, 500);
  Store(core_->EnforceTimeLimits(now_ + 1099));
  EXPECT_EQ(core_->Find(id)->final_state, JobState::kCompleted);
  Store(core_->EnforceTimeLimits(now_ + 1100));
  EXPECT_EQ(core_->Find(id)->final_state, JobState::kTimeout);
}

TEST_F(LifecycleTest, ASuspendedJobCanBeCancelledAndEnds) {
  const uint64_t id = Submit(Request());
  Drive(Schedule());
  Store(core_->Suspend({0, 0}, true, {id}, false, now_));
  std::vector<CancelOutcome> outcomes;
  Drive(Store(core_->Cancel({1001, 1001}, false, CancelOf(id), now_, &outcomes)));
  ASSERT_EQ(terminated_.size(), 1u);
  Drive(Store(core_->JobComplete("n1", {id, true, 0, 9, ""}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCancelled);
}

TEST_F(LifecycleTest, TopPutsTheListedJobsAboveTheOwnersOtherJobsThroughNice) {
  SubmitRequest whole = Request(2);
  whole.min_nodes = 2;  // both nodes, every CPU
  const uint64_t blocker = Submit(whole);
  Drive(Schedule());
  ASSERT_EQ(StateOf(blocker), JobState::kRunning);
  const uint64_t a = Submit(Request()), b = Submit(Request()), c = Submit(Request());
  Schedule();
  EXPECT_EQ(core_->Top({1002, 1002}, false, {c}, now_).status().code(),
            absl::StatusCode::kPermissionDenied);  // not the owner
  EXPECT_EQ(core_->Top({1001, 1001}, false, {c}, now_).status().code(),
            absl::StatusCode::kPermissionDenied);  // owners need enable_user_top
  Store(core_->Top({0, 0}, true, {c, b}, now_));
  EXPECT_LT(core_->Find(c)->nice, 0);
  EXPECT_LT(core_->Find(b)->nice, 0);
  EXPECT_EQ(core_->Find(a)->nice, 0);
  EXPECT_EQ(store_[c].nice, core_->Find(c)->nice);  // stored
  Schedule();
  EXPECT_GT(core_->Find(c)->priority, core_->Find(b)->priority);
  EXPECT_GT(core_->Find(b)->priority, core_->Find(a)->priority);
}

TEST_F(LifecycleTest, HoldingAnArrayHoldsItsPendingTasksAndLeavesRunningOnesRunning) {
  SubmitRequest array = Request(2);
  array.array = "1-4";
  const uint64_t base = Submit(array);
  Drive(Schedule());  // two tasks fit (2 nodes x 2 CPUs)
  JobUpdate hold;
  hold.job_id = base;
  hold.held = true;
  hold.user_hold = true;
  ASSERT_TRUE(Store(core_->Update({1001, 1001}, false, hold, now_)).log.size() > 0);
  int held = 0, running = 0;
  for (uint64_t id = base; id < base + 4; ++id) {
    held += core_->Find(id)->held ? 1 : 0;
    running += StateOf(id) == JobState::kRunning ? 1 : 0;
  }
  EXPECT_EQ(running, 2);
  EXPECT_EQ(held, 2);
}

TEST_F(LifecycleTest, PassesBetweenFullOnesLookAtTheQueuesFirstJobsAndEveryChangedOne) {
  SubmitRequest wide = Request(2);
  wide.min_nodes = 2;
  wide.max_nodes = 2;
  wide.ntasks = 2;
  const uint64_t running = Submit(wide);  // both nodes, whole
  Drive(Schedule());
  ASSERT_EQ(StateOf(running), JobState::kRunning);
  std::vector<uint64_t> waiting;
  for (int i = 0; i < 5; ++i) waiting.push_back(Submit(Request()));
  auto offered = [&](int32_t depth) {
    PassInput input;
    Store(core_->PrepareSchedule(now_, &input, depth));
    std::vector<uint64_t> ids;
    for (const PendingJob& job : input.snapshot.pending) ids.push_back(job.id);
    const PassPlan plan = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
    bool replan = false;
    Store(core_->ApplySchedule(input, plan, now_, &replan));
    return ids;
  };
  // No pass ranked them yet: all five, however shallow the depth.
  EXPECT_EQ(offered(2).size(), 5u);
  // Ranked now: the first two in queue order.
  EXPECT_EQ(offered(2), (std::vector<uint64_t>{waiting[0], waiting[1]}));
  EXPECT_EQ(offered(0).size(), 5u) << "a full pass looks at every job";
  // Held jobs wait for a full pass; a released one (changed) is looked at at once.
  JobUpdate hold;
  hold.job_id = waiting[4];
  hold.held = true;
  hold.user_hold = true;
  Store(core_->Update({1001, 1001}, false, hold, now_));
  EXPECT_EQ(offered(2), (std::vector<uint64_t>{waiting[0], waiting[1]}));
  hold.held = false;
  Store(core_->Update({1001, 1001}, false, hold, now_));
  EXPECT_EQ(offered(2), (std::vector<uint64_t>{waiting[0], waiting[1], waiting[4]}));
}

// Issue 32: a job that ignores SIGTERM runs its limit plus KillWait. It was
// charged only its limit (5 of 7.5 billing-minutes) while RawUsage had all of
// it. Admission reserves the tail, the SIGKILL falls at the reserved deadline
// however late the check, and every book is charged what the run used.
TEST_F(LifecycleTest, ARunIsChargedItsKillWaitTailWhichAdmissionReserved) {
  config_.kill_wait = 150;
  Reset();
  AccountPolicy policy;
  policy.enforce = *ParseEnforcement("associations,limits,safe");
  policy.accounts["root"] = AccountAssoc{};
  policy.accounts["grant"].parent = "root";
  policy.accounts["grant"].grp_tres_mins.billing = 10;
  UserAssoc alice;
  alice.account = "grant";
  alice.user = "alice";
  alice.qos = {"normal"};
  policy.users = {alice};
  policy.default_account["alice"] = "grant";
  core_->SetAccountPolicyForTest(policy);

  SubmitRequest request = Request();  // 1 CPU: billing 1
  request.time_limit = 300;
  const uint64_t id = Submit(request);
  EXPECT_DOUBLE_EQ(core_->bank().MaxCost(*core_->Find(id)).billing, 7.5);
  EXPECT_DOUBLE_EQ(
      core_->bank().Balances().at(BankKey::Of(AssocKey::Account("grant"))).held.billing, 7.5);
  // A second one could overdraw the 10 minutes once both ran their tails.
  const absl::StatusOr<Admitted> second = core_->Admit(request, now_);
  EXPECT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("2.5 of 10.0 billing-minutes left (used 0.0, held by "
                                           "jobs 7.5); this job may use 7.5"),
            std::string::npos)
      << second.status();

  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const int64_t start = core_->Find(id)->start_time;
  // The once-a-second check ran 2 s late: the SIGKILL still falls at 450 s.
  Effects timeout = Store(core_->EnforceTimeLimits(start + 302));
  const TerminateIntent* terminate = nullptr;
  for (const Intent& intent : timeout.intents) {
    if (const auto* t = std::get_if<TerminateIntent>(&intent)) terminate = t;
  }
  ASSERT_NE(terminate, nullptr);
  EXPECT_EQ(terminate->kill_wait, 148);

  Store(
      core_->JobComplete(core_->Find(id)->nodes.front(), {id, true, 0, SIGKILL, ""}, start + 450));
  EXPECT_EQ(StateOf(id), JobState::kTimeout);
  EXPECT_DOUBLE_EQ(
      core_->bank().Balances().at(BankKey::Of(AssocKey::Account("grant"))).used.billing, 7.5);
  EXPECT_DOUBLE_EQ(
      core_->bank().Balances().at(BankKey::Of(AssocKey::Account("grant"))).held.billing, 0);
  EXPECT_DOUBLE_EQ(core_->bank().AssocUsageAt(start + 450).at(AssocKey::User("grant", "alice")),
                   450);
  EXPECT_EQ(core_->Find(id)->end_time - core_->Find(id)->start_time, 450);

  // Heard of late (a ctld restart): charged no more than was reserved.
  policy.accounts["grant"].grp_tres_mins.billing = 20;
  core_->SetAccountPolicyForTest(policy);
  const uint64_t late = Submit(request);
  Drive(Schedule());
  ASSERT_EQ(StateOf(late), JobState::kRunning);
  const int64_t late_start = core_->Find(late)->start_time;
  Store(core_->JobComplete(core_->Find(late)->nodes.front(), {late, true, 0, SIGKILL, ""},
                           late_start + 900));
  EXPECT_DOUBLE_EQ(
      core_->bank().Balances().at(BankKey::Of(AssocKey::Account("grant"))).used.billing, 15);
  EXPECT_DOUBLE_EQ(
      core_->bank().AssocUsageAt(late_start + 900).at(AssocKey::User("grant", "alice")), 900);
}

// Accounts root > lab, with user alice in lab (her default account), under
// AccountingStorageEnforce=`enforce`.
AccountPolicy AliceInLab(const std::string& enforce) {
  AccountPolicy policy;
  policy.enforce = *ParseEnforcement(enforce);
  policy.accounts["root"] = AccountAssoc{};
  policy.accounts["lab"].parent = "root";
  UserAssoc alice;
  alice.account = "lab";
  alice.user = "alice";
  alice.qos = {"normal"};
  policy.users = {alice};
  policy.default_account["alice"] = "lab";
  return policy;
}

// GrpTRESMins=gres/gpu=N: a budget in GPU-minutes, held at a job's most and
// charged what its run used, with its own reason; CPU-only jobs are not held
// against it.
TEST_F(LifecycleTest, AGpuMinutesBudgetHoldsTheMostAndChargesWhatWasUsed) {
  for (NodeConfig& node : config_.nodes) node.gres = {GresCount{"gpu", "", 2}};
  config_.kill_wait = 0;
  Reset();
  AccountPolicy policy = AliceInLab("associations,limits,safe");
  policy.accounts["lab"].grp_tres_mins.gpu = 30;  // half a GPU-hour
  core_->SetAccountPolicyForTest(policy);

  SubmitRequest two_gpus = Request();
  two_gpus.gres = {"gpu:2"};
  two_gpus.time_limit = 600;  // may use 2 x 10 = 20 GPU-minutes
  // 20 of 30 left is more than half: the submitter is told.
  absl::StatusOr<CheckedSubmission> checked = core_->CheckSubmission(two_gpus, now_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(
      checked->warnings,
      std::vector<std::string>{"this job may use up to 0.3 GPU-hours; account lab has 0.5 left"});
  const uint64_t id = Submit(two_gpus);
  EXPECT_DOUBLE_EQ(core_->bank().MaxCost(*core_->Find(id)).gpu, 20);
  // A second would hold 40 of 30.
  const absl::StatusOr<Admitted> second = core_->Admit(two_gpus, now_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(
                "AssocGrpGRESMinutes: account lab has 10.0 of 30.0 GPU-minutes left"),
            std::string::npos)
      << second.status();
  // Without GPUs a job costs the budget nothing.
  SubmitRequest cpu_only = Request();
  cpu_only.time_limit = 600;
  absl::StatusOr<Admitted> cpu = core_->Admit(cpu_only, now_);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  core_->ReleaseReservation(cpu->first_id);

  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning) << core_->Find(id)->reason;
  const int64_t start = core_->Find(id)->start_time;
  // It ran 90 s on 2 GPUs: 3 GPU-minutes (0.05 GPU-hours) charged.
  Store(core_->JobComplete(core_->Find(id)->nodes.front(), {id, true, 0, 0, ""}, start + 90));
  EXPECT_DOUBLE_EQ(core_->bank().Balances().at(BankKey::Of(AssocKey::Account("lab"))).used.gpu, 3);
  EXPECT_DOUBLE_EQ(core_->bank().Balances().at(BankKey::Of(AssocKey::Account("lab"))).held.gpu, 0);
  EXPECT_DOUBLE_EQ(
      core_->bank().Balances().at(BankKey::Of(AssocKey::User("lab", "alice"))).used.gpu, 3);
  // 27 left: one more 20-minute job fits, a second pends (the scheduler's
  // check) or is refused (admission's).
  EXPECT_TRUE(core_->Admit(two_gpus, now_).ok());
}

// Issue 34 item 5: a job preempted with a GraceTime hears its own --signal
// at once (SIGTERM without one) and is stopped only when the grace ends; the
// preemptor starts once it is gone.
TEST_F(LifecycleTest, APreemptedJobHearsItsSignalAndIsStoppedWhenGraceTimeEnds) {
  PartitionConfig low = config_.partitions[0];
  low.name = "low";
  low.is_default = false;
  low.preempt_mode = "REQUEUE";
  low.grace_time = 60;
  PartitionConfig high = low;
  high.name = "high";
  high.priority_tier = 10;
  high.grace_time = 0;
  config_.partitions = {low, high};
  config_.preempt_mode = "REQUEUE";
  Reset();
  auto pass = [&] {
    PassInput input;
    Store(core_->PrepareSchedule(now_, &input));
    const PassPlan plan =
        PlanPass(input, SchedulerOptions{},
                 PreemptOptions{PreemptType::kPartitionPrio, PreemptMode::kRequeue}, now_);
    bool replan = false;
    return Store(core_->ApplySchedule(input, plan, now_, &replan));
  };
  SubmitRequest victim = Request(2);
  victim.partition = "low";
  victim.nodelist = {"n1"};
  victim.warn_signal = 10;  // --signal=B:USR1@120
  victim.warn_time = 120;
  victim.warn_batch_only = true;
  SubmitRequest plain = victim;  // no --signal
  plain.nodelist = {"n2"};
  plain.warn_signal = 0;
  const uint64_t a = Submit(victim);
  const uint64_t b = Submit(plain);
  Drive(pass());
  ASSERT_EQ(StateOf(a), JobState::kRunning);
  ASSERT_EQ(StateOf(b), JobState::kRunning);

  SubmitRequest urgent = Request(2);
  urgent.partition = "high";
  urgent.min_nodes = 2;
  const uint64_t u = Submit(urgent);
  Effects preempted = pass();
  std::map<uint64_t, SignalIntent> warned;
  for (const Intent& intent : preempted.intents) {
    if (const auto* signal = std::get_if<SignalIntent>(&intent)) warned[signal->job_id] = *signal;
    EXPECT_FALSE(std::holds_alternative<TerminateIntent>(intent)) << "stopped before its grace";
  }
  ASSERT_EQ(warned.count(a), 1u);
  EXPECT_EQ(warned[a].signal, 10);
  EXPECT_EQ(warned[a].scope, SignalScope::kBatchShell);
  ASSERT_EQ(warned.count(b), 1u);
  EXPECT_EQ(warned[b].signal, SIGTERM);
  EXPECT_EQ(core_->Find(a)->progress.preempt_stop_at, now_ + 60);
  EXPECT_EQ(StateOf(a), JobState::kRunning);
  EXPECT_EQ(StateOf(u), JobState::kPending);
  // Nothing more before the grace ends; then both are stopped.
  EXPECT_TRUE(Store(core_->EnforceTimeLimits(now_ + 59)).intents.empty());
  now_ += 60;
  Drive(Store(core_->EnforceTimeLimits(now_)));
  EXPECT_EQ(terminated_, (std::vector<uint64_t>{a, b}));
  for (uint64_t id : {a, b}) {
    Store(core_->JobComplete(core_->Find(id)->nodes.front(), {id, true, 0, SIGTERM, ""}, now_));
    EXPECT_EQ(StateOf(id), JobState::kPending) << "requeued";
    EXPECT_EQ(core_->Find(id)->progress.preempt_stop_at, 0);
  }
  Drive(pass());
  EXPECT_EQ(StateOf(u), JobState::kRunning);
}

// MaxTRESMinsPerJob of the association: a job whose most is over it is
// refused with Slurm's reason; one within it is admitted.
TEST_F(LifecycleTest, MaxTresMinsPerJobRefusesAJobThatMayUseMore) {
  for (NodeConfig& node : config_.nodes) node.gres = {GresCount{"gpu", "", 2}};
  config_.kill_wait = 0;
  Reset();
  AccountPolicy policy = AliceInLab("associations,limits");
  policy.users[0].max_tres_mins_per_job.gpus = 30;
  core_->SetAccountPolicyForTest(policy);
  SubmitRequest hour = Request();
  hour.gres = {"gpu:1"};
  hour.time_limit = 3600;
  const absl::StatusOr<Admitted> refused = core_->Admit(hour, now_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "AssocMaxGRESMinutesPerJob: this job may use 60.0 GPU-minutes; its association "
                "allows 30 per job"),
            std::string::npos)
      << refused.status();
  SubmitRequest short_job = hour;
  short_job.time_limit = 1800;
  EXPECT_TRUE(core_->Admit(short_job, now_).ok());
}

// GrpTRESMins on a user's own association: held against that user's jobs in
// the account only, with the same no-overdraw rule and the holder named.
TEST_F(LifecycleTest, AUsersOwnGpuBudgetHoldsOnlyTheirJobs) {
  for (NodeConfig& node : config_.nodes) node.gres = {GresCount{"gpu", "", 2}};
  Reset();
  AccountPolicy policy = AliceInLab("associations,limits,safe");
  policy.users[0].grp_tres_mins.gpu = 25;
  core_->SetAccountPolicyForTest(policy);
  SubmitRequest job = Request();
  job.gres = {"gpu:2"};
  job.time_limit = 600;  // 20 GPU-minutes at most
  absl::StatusOr<CheckedSubmission> checked = core_->CheckSubmission(job, now_);
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->warnings,
            std::vector<std::string>{
                "this job may use up to 0.3 GPU-hours; user alice in account lab has 0.4 left"});
  Submit(job);
  const absl::StatusOr<Admitted> second = core_->Admit(job, now_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("AssocGrpGRESMinutes: user alice in account lab has "
                                           "5.0 of 25.0 GPU-minutes left"),
            std::string::npos)
      << second.status();
}

// GrpTRESMins on a QOS: with `safe`, a job that could overdraw the QOS's
// budget is refused at submit with the QOS's reason; what runs is charged to
// the QOS's balance too.
TEST_F(LifecycleTest, AQosGpuBudgetIsNeverOverdrawn) {
  for (NodeConfig& node : config_.nodes) node.gres = {GresCount{"gpu", "", 2}};
  config_.kill_wait = 0;
  Reset();
  core_->SetAccountPolicyForTest(AliceInLab("associations,limits,qos,safe"));
  Qos normal;
  normal.name = "normal";
  normal.grp_tres_mins.gpu = 25;
  core_->SetQosViewForTest({normal});
  SubmitRequest job = Request();
  job.qos = "normal";
  job.gres = {"gpu:2"};
  job.time_limit = 600;  // 20 GPU-minutes at most
  const uint64_t id = Submit(job);
  const absl::StatusOr<Admitted> second = core_->Admit(job, now_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(
                "QOSGrpGRESMinutes: QOS normal has 5.0 of 25.0 GPU-minutes left"),
            std::string::npos)
      << second.status();
  // Run 3 minutes: the QOS is charged 6 GPU-minutes.
  Drive(Schedule());
  Drive(
      Store(core_->JobComplete(core_->Find(id)->nodes.front(), {id, true, 0, 0, ""}, now_ + 180)));
  EXPECT_DOUBLE_EQ(core_->bank().Balances().at(BankKey::OfQos("normal")).used.gpu, 6);
}

}  // namespace
}  // namespace skiff::ctld
