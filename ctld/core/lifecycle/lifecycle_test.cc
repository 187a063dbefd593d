// The lifecycle core alone: events in, rows and intents out. Synchronous: no
// threads, no sleeps, no clock; a small driver plays noded and scriptd by
// turning intents into the reports they would cause.
#include "ctld/core/lifecycle/lifecycle.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff {
namespace {

SkiffConfig TestConfig() {
  SkiffConfig config;
  config.cluster_name = "test";
  for (const char* name : {"n1", "n2"}) {
    NodeConfig node;
    node.name = name;
    node.addr = "127.0.0.1";
    node.port = 7000;
    node.cpus = 2;
    node.real_memory_mb = 1000;
    config.nodes.push_back(node);
  }
  PartitionConfig debug;
  debug.name = "debug";
  debug.nodes = {"n1", "n2"};
  debug.is_default = true;
  config.partitions = {debug};
  config.heartbeat_interval = 10;
  config.slurmd_timeout = 60;
  config.kill_wait = 1;
  return config;
}

SubmitRequest Request(int cpus = 1, uid_t uid = 1001) {
  SubmitRequest r;
  r.uid = uid;
  r.user_name = uid == 0 ? "root" : "alice";
  r.name = "j";
  r.cpus_per_task = cpus;
  r.time_limit = 600;
  r.script = "#!/bin/sh\ntrue\n";
  r.work_dir = "/tmp";
  return r;
}

CancelSpec CancelOf(uint64_t id) {
  CancelSpec spec;
  spec.jobs = {{id}};
  return spec;
}

// Persisted fields of every job plus node usage: what a rollback must restore.
std::string Fingerprint(const Lifecycle& core) {
  std::ostringstream out;
  for (const auto& [id, j] : core.jobs()) {
    out << id << ':' << JobStateName(j.state) << '/' << JobStateName(j.final_state) << " v"
        << j.version << " n=" << absl::StrJoin(j.nodes, ",") << " h" << j.held << j.held_by_admin
        << " r" << j.restart_count << " p" << j.prolog_done << " l" << j.launched << " c"
        << j.cancel_requested << " x" << j.exit_code << " t" << j.request.time_limit << " q"
        << j.qos << " m" << j.comment << " s" << j.start_time << " e" << j.end_time << " bb"
        << BbStateName(j.bb_state) << '\n';
  }
  for (const Node& node : core.nodes().nodes()) {
    out << node.config.name << ' ' << node.alloc_cpus << ' ' << node.alloc_memory_mb << ' '
        << NodeBaseStateName(node.state) << node.drain << node.not_responding << '\n';
  }
  return out.str();
}

class LifecycleTest : public ::testing::Test {
 protected:
  explicit LifecycleTest(LifecycleSettings settings = {}) : settings_(settings) {}

  void SetUp() override { Reset(); }

  // A fresh core over config_ (tests that change config_ call it again).
  void Reset() {
    store_.clear();
    core_ = std::make_unique<Lifecycle>(config_, settings_, now_);
    core_->SetQos({Qos{"normal"}});
    for (const char* name : {"n1", "n2"}) {
      NodeRegistration reg;
      reg.node_name = name;
      reg.cpus = 2;
      reg.real_memory_mb = 1000;
      std::vector<uint64_t> terminate;
      std::vector<NodeChange> changes;
      Store(core_->RegisterNode(reg, {}, now_, &terminate, &changes));
    }
  }

  // Plays the store: keeps the rows (newest version wins), confirms.
  Effects Store(absl::StatusOr<Effects> effects) {
    EXPECT_TRUE(effects.ok()) << effects.status();
    if (!effects.ok()) return {};
    for (const Job& row : effects->rows) {
      Job& stored = store_[row.id];
      EXPECT_GT(row.version, stored.version) << "JobId=" << row.id << " version must grow";
      stored = row;
    }
    core_->Confirm();
    return std::move(*effects);
  }

  uint64_t Submit(const SubmitRequest& request) {
    absl::StatusOr<Admitted> admitted = core_->Admit(request, now_);
    EXPECT_TRUE(admitted.ok()) << admitted.status();
    Store(core_->Insert(*admitted, now_));
    return admitted->first_id;
  }

  Effects Schedule() {
    PassInput input;
    Effects prepared = Store(core_->PrepareSchedule(now_, &input));
    SchedulerOptions options;
    const PassPlan plan = PlanPass(input, options, PreemptOptions{}, now_);
    bool replan = false;
    Effects applied = Store(core_->ApplySchedule(input, plan, now_, &replan));
    for (Intent& intent : prepared.intents) applied.intents.insert(applied.intents.begin(), intent);
    return applied;
  }

  // Plays noded and scriptd: every intent becomes its successful report.
  void Drive(Effects effects, int depth = 0) {
    ASSERT_LT(depth, 20);
    for (const Intent& intent : effects.intents) {
      Effects next = std::visit(
          [&](const auto& it) -> Effects {
            using T = std::decay_t<decltype(it)>;
            if constexpr (std::is_same_v<T, RunPrologIntent>) {
              return Store(core_->PrologDone(it.job.id, it.job.restart_count,
                                             {true, true, "exit code 0", 1}, now_));
            } else if constexpr (std::is_same_v<T, LaunchIntent>) {
              launched_.push_back(it.job.id);
              return Store(
                  core_->LaunchDone(it.job.id, it.job.restart_count, absl::OkStatus(), now_));
            } else if constexpr (std::is_same_v<T, TerminateIntent>) {
              terminated_.push_back(it.job_id);
              return Effects{};
            } else if constexpr (std::is_same_v<T, RunEpilogIntent>) {
              return Store(core_->EpilogDone(it.job.id, {true, true, "exit code 0", 2}, now_));
            } else if constexpr (std::is_same_v<T, RunBbStageIntent>) {
              BbStageResult ok;
              return Store(core_->BbStageDone(it.job.id, it.stage, ok, now_));
            } else {
              return Effects{};
            }
          },
          intent);
      Drive(std::move(next), depth + 1);
    }
  }

  JobState StateOf(uint64_t id) { return core_->Find(id)->state; }

  SkiffConfig config_ = TestConfig();
  LifecycleSettings settings_;
  int64_t now_ = 1000;
  std::unique_ptr<Lifecycle> core_;
  std::map<uint64_t, Job> store_;
  std::vector<uint64_t> launched_;
  std::vector<uint64_t> terminated_;
};

class LifecycleWithScriptsTest : public LifecycleTest {
 protected:
  LifecycleWithScriptsTest() : LifecycleTest({true, true, nullptr, false, 0}) {}
};

TEST_F(LifecycleWithScriptsTest, SubmissionRunsThroughPrologLaunchEpilogToCompleted) {
  const uint64_t id = Submit(Request());
  EXPECT_EQ(store_[id].state, JobState::kPending);
  EXPECT_EQ(store_[id].version, 1u);

  Effects started = Schedule();
  EXPECT_EQ(StateOf(id), JobState::kConfiguring);
  ASSERT_EQ(started.intents.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<RunPrologIntent>(started.intents[0]))
      << "the prolog runs before the launch";
  Drive(std::move(started));
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(launched_, std::vector<uint64_t>{id});

  Effects exited = Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_ + 5));
  EXPECT_EQ(StateOf(id), JobState::kCompleting);
  ASSERT_EQ(exited.intents.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<RunEpilogIntent>(exited.intents[0]));
  EXPECT_NE(std::find(exited.log.begin(), exited.log.end(),
                      absl::StrCat("JobId=", id, " RUNNING -> COMPLETING (Exited)")),
            exited.log.end());
  Drive(std::move(exited));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  EXPECT_EQ(store_[id].state, JobState::kCompleted);
  EXPECT_EQ(core_->nodes().Find("n1")->alloc_cpus, 0) << "resources given back";
  EXPECT_EQ(store_[id].version, core_->Find(id)->version);
}

TEST_F(LifecycleTest, EveryTouchedJobIsOneRowWithOneVersionBump) {
  const uint64_t a = Submit(Request(2));
  const uint64_t b = Submit(Request(2));
  Effects effects = Schedule();
  // Both allocated and sent to launch in one pass: one row each, version 2.
  int launches = 0;
  for (const Intent& intent : effects.intents)
    launches += std::holds_alternative<LaunchIntent>(intent);
  EXPECT_EQ(launches, 2);
  EXPECT_EQ(core_->Find(a)->version, 2u);
  EXPECT_EQ(core_->Find(b)->version, 2u);
}

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
  restarted.SetQos({Qos{"normal"}});
  restarted.Load(std::move(jobs), d, {});
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

TEST_F(LifecycleTest, RollbackPutsBackEverythingTheEventChanged) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string before = Fingerprint(*core_);

  CancelSpec spec;
  spec.jobs = {{id}};
  std::vector<CancelOutcome> outcomes;
  Effects cancel = core_->Cancel({1001, 1001}, false, spec, now_, &outcomes);
  ASSERT_EQ(cancel.intents.size(), 1u);
  EXPECT_EQ(core_->Find(id)->final_state, JobState::kCancelled);
  core_->Rollback();  // the rows could not be stored
  EXPECT_EQ(Fingerprint(*core_), before);
  EXPECT_FALSE(core_->in_transaction());

  // The time limit still fires: the rolled-back terminate was not remembered as sent.
  now_ += 700;
  Effects timeout = Store(core_->EnforceTimeLimits(now_));
  ASSERT_EQ(timeout.intents.size(), 1u);
  EXPECT_EQ(core_->Find(id)->final_state, JobState::kTimeout);

  // A completion that could not be stored leaves the job running and its resources held.
  const std::string running = Fingerprint(*core_);
  absl::StatusOr<Effects> completion = core_->JobComplete("n1", {id, true, 0, 15, ""}, now_);
  ASSERT_TRUE(completion.ok());
  core_->Rollback();
  EXPECT_EQ(Fingerprint(*core_), running);
  EXPECT_EQ(core_->nodes().Find("n1")->alloc_cpus, 2);
}

TEST_F(LifecycleTest, EventsAreDecidedWhileEarlierFramesAwaitTheStore) {
  // Three events decided one after another, none stored yet: a submission, its
  // start (on top of the submission) and a second submission.
  absl::StatusOr<Admitted> first = core_->Admit(Request(2), now_);
  ASSERT_TRUE(first.ok());
  const Effects inserted = core_->Insert(*first, now_);
  PassInput input;
  const Effects prepared = core_->PrepareSchedule(now_, &input);
  const PassPlan plan = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
  bool replan = false;
  const Effects started = core_->ApplySchedule(input, plan, now_, &replan);
  absl::StatusOr<Admitted> second = core_->Admit(Request(), now_);
  ASSERT_TRUE(second.ok());
  const Effects inserted_second = core_->Insert(*second, now_);
  EXPECT_NE(inserted.frame, 0u);
  EXPECT_GT(started.frame, inserted.frame);
  EXPECT_GT(inserted_second.frame, started.frame);
  EXPECT_EQ(prepared.frame, 0u) << "a pass's preparation that changed nothing leaves no frame";
  ASSERT_EQ(started.rows.size(), 1u);
  EXPECT_EQ(started.rows[0].version, inserted.rows[0].version + 1) << "versions follow the frames";
  EXPECT_EQ(core_->pending_frames(), 3u);
  EXPECT_FALSE(core_->in_transaction());

  // The start is stored first (its thread woke first): its before-images stay
  // until the submission's frame has ended too.
  core_->Confirm(started.frame);
  EXPECT_EQ(core_->pending_frames(), 3u);
  core_->Confirm(inserted.frame);
  EXPECT_EQ(core_->pending_frames(), 1u);

  // The second submission could not be stored: only it goes.
  core_->RollbackFrom(inserted_second.frame);
  EXPECT_EQ(core_->pending_frames(), 0u);
  EXPECT_EQ(core_->Find(second->first_id), nullptr);
  EXPECT_NE(StateOf(first->first_id), JobState::kPending) << "confirmed frames stay";
}

TEST_F(LifecycleTest, RollingBackAFrameTakesEveryLaterFrameWithItNewestFirst) {
  const std::string empty = Fingerprint(*core_);
  absl::StatusOr<Admitted> first = core_->Admit(Request(2), now_);
  ASSERT_TRUE(first.ok());
  const Effects inserted = core_->Insert(*first, now_);
  PassInput input;
  core_->PrepareSchedule(now_, &input);
  const PassPlan plan = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
  bool replan = false;
  const Effects started = core_->ApplySchedule(input, plan, now_, &replan);
  ASSERT_EQ(core_->nodes().Find("n1")->alloc_cpus, 2);
  // The start's thread learns first that its rows failed (the store fails every
  // write queued after a failed one): it rolls back its own frame only.
  core_->RollbackFrom(started.frame);
  EXPECT_EQ(core_->Find(first->first_id)->state, JobState::kPending);
  EXPECT_EQ(core_->nodes().Find("n1")->alloc_cpus, 0);
  // Then the submission's thread: its frame and anything after it.
  core_->RollbackFrom(inserted.frame);
  core_->RollbackFrom(inserted.frame);  // ended already: nothing happens
  EXPECT_EQ(Fingerprint(*core_), empty);
  EXPECT_EQ(core_->pending_frames(), 0u);

  // In the other order the result is the same: the submission's rollback takes
  // the start with it (newest first), and the start's own is then a no-op.
  first = core_->Admit(Request(2), now_);
  ASSERT_TRUE(first.ok());
  const Effects again = core_->Insert(*first, now_);
  core_->PrepareSchedule(now_, &input);
  const PassPlan replanned = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
  const Effects started_again = core_->ApplySchedule(input, replanned, now_, &replan);
  ASSERT_EQ(core_->pending_frames(), 2u);
  core_->RollbackFrom(again.frame);
  core_->RollbackFrom(started_again.frame);
  EXPECT_EQ(Fingerprint(*core_), empty);
  EXPECT_EQ(core_->nodes().Find("n1")->alloc_cpus, 0);
}

TEST_F(LifecycleTest, RolledBackSubmissionLeavesNoJobAndItsReservationCanBeReleased) {
  absl::StatusOr<Admitted> admitted = core_->Admit(Request(), now_);
  ASSERT_TRUE(admitted.ok());
  Effects inserted = core_->Insert(*admitted, now_);
  EXPECT_EQ(inserted.rows.size(), 1u);
  core_->Rollback();
  EXPECT_EQ(core_->Find(admitted->first_id), nullptr);
  core_->ReleaseReservation(admitted->first_id);
  EXPECT_GT(Submit(Request()), admitted->first_id) << "ids are never reused";
}

TEST_F(LifecycleTest, PassesSeeEveryUnfinishedJobThroughRollbacksPurgesAndRequeues) {
  // A submission rolled back leaves nothing for a pass to meet.
  absl::StatusOr<Admitted> admitted = core_->Admit(Request(), now_);
  ASSERT_TRUE(admitted.ok());
  core_->Insert(*admitted, now_);
  core_->Rollback();
  core_->ReleaseReservation(admitted->first_id);
  EXPECT_TRUE(Schedule().intents.empty());
  // A job run to its end, then purged: passes go on.
  const uint64_t done = Submit(Request());
  Drive(Schedule());
  Drive(Store(core_->JobComplete("n1", {done, true, 0, 0, ""}, now_)));
  ASSERT_EQ(StateOf(done), JobState::kCompleted);
  const uint64_t again = Submit(Request());
  Drive(Schedule());
  Drive(Store(core_->JobComplete(core_->Find(again)->nodes[0], {again, true, 0, 0, ""}, now_)));
  ASSERT_EQ(StateOf(again), JobState::kCompleted);
  EXPECT_EQ(core_->Purge(now_ + config_.min_job_age + 1), 2u);
  const uint64_t next = Submit(Request());
  Drive(Schedule());
  EXPECT_EQ(StateOf(next), JobState::kRunning);
  // A finished job requeued (scontrol requeue) is pending again and runs.
  Drive(Store(core_->JobComplete(core_->Find(next)->nodes[0], {next, true, 0, 0, ""}, now_)));
  ASSERT_EQ(StateOf(next), JobState::kCompleted);
  Schedule();  // meets it finished
  JobUpdate requeue;
  requeue.job_id = next;
  requeue.requeue = JobUpdate::Requeue::kRequeue;
  Drive(Store(core_->Update({1001, 1001}, false, requeue, now_)));
  ASSERT_EQ(StateOf(next), JobState::kPending);
  Drive(Schedule());
  EXPECT_EQ(StateOf(next), JobState::kRunning);
}

TEST_F(LifecycleTest, UpdateIsAllOrNothing) {
  SubmitRequest held = Request();
  held.hold = true;
  const uint64_t id = Submit(held);
  const std::string before = Fingerprint(*core_);
  JobUpdate update;
  update.job_id = id;
  update.time_limit = 60;
  update.qos = "nosuch";
  absl::StatusOr<Effects> refused = core_->Update({1001, 1001}, false, update, now_);
  EXPECT_EQ(refused.status().message(), "Invalid qos specification");
  EXPECT_FALSE(core_->in_transaction());
  EXPECT_EQ(Fingerprint(*core_), before) << "the time limit must not change alone";
  EXPECT_EQ(core_->Find(id)->request.time_limit, 600);

  update.qos.reset();
  Store(core_->Update({1001, 1001}, false, update, now_));
  EXPECT_EQ(store_[id].request.time_limit, 60);
}

TEST_F(LifecycleTest, CommentIsStored) {
  const uint64_t id = Submit(Request());
  JobUpdate update;
  update.job_id = id;
  update.comment = "rerun of 41";
  Effects effects = Store(core_->Update({1001, 1001}, false, update, now_));
  ASSERT_EQ(effects.rows.size(), 1u);
  EXPECT_EQ(store_[id].comment, "rerun of 41");
}

TEST_F(LifecycleTest, UsersMayNotRaiseTimeLimitsOrReleaseAdminHolds) {
  const uint64_t id = Submit(Request());
  EXPECT_EQ(core_->Update({1002, 1002}, false, JobUpdate{id}, now_).status().message(),
            "Invalid user id");
  JobUpdate hold;
  hold.job_id = id;
  hold.held = true;
  Store(core_->Update({0, 0}, true, hold, now_));
  EXPECT_EQ(core_->Find(id)->reason, "JobHeldAdmin");
  JobUpdate release;
  release.job_id = id;
  release.held = false;
  absl::StatusOr<Effects> refused = core_->Update({1001, 1001}, false, release, now_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("held by an administrator"), std::string::npos);
  Store(core_->Update({0, 0}, true, release, now_));

  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  JobUpdate raise;
  raise.job_id = id;
  raise.time_limit = 6000;
  refused = core_->Update({1001, 1001}, false, raise, now_);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.status().message(),
            "Access/permission denied (only an operator can raise the time limit of a job that "
            "has started)");
  raise.time_limit = 60;
  Store(core_->Update({1001, 1001}, false, raise, now_));
  EXPECT_EQ(store_[id].request.time_limit, 60);
}

// What submission refuses, an update cannot reach (issue 10: a user moved a
// held job into a RootOnly partition and released it there).
TEST_F(LifecycleTest, UpdatesGoThroughTheSubmitChecks) {
  PartitionConfig vip;
  vip.name = "vip";
  vip.nodes = {"n1"};
  vip.root_only = true;
  PartitionConfig staff;
  staff.name = "staff";
  staff.nodes = {"n1", "n2"};
  staff.allow_groups = {"wheel"};
  PartitionConfig short_queue;
  short_queue.name = "short";
  short_queue.nodes = {"n1", "n2"};
  short_queue.max_time = 600;
  short_queue.max_nodes = 1;
  config_.partitions.push_back(vip);
  config_.partitions.push_back(staff);
  config_.partitions.push_back(short_queue);
  Reset();
  SubmitRequest held = Request();
  held.hold = true;
  held.group_name = "users";
  const uint64_t id = Submit(held);
  const std::string before = Fingerprint(*core_);
  // A refused update has rolled itself back; an accepted one is stored.
  auto update_as_user = [&](JobUpdate update) {
    update.job_id = id;
    absl::StatusOr<Effects> effects = core_->Update({1001, 1001}, false, update, now_);
    if (effects.ok()) Store(std::move(effects));
    return effects.status();
  };
  JobUpdate to_vip;
  to_vip.partition = "vip";
  EXPECT_EQ(update_as_user(to_vip).message(), "Partition is restricted to root (RootOnly=YES)");
  JobUpdate to_staff;
  to_staff.partition = "staff";
  EXPECT_EQ(update_as_user(to_staff).message(),
            "User's group not permitted to use this partition (staff allows wheel)");
  JobUpdate to_short_too_long;
  to_short_too_long.partition = "short";
  to_short_too_long.time_limit = 6000;
  EXPECT_EQ(update_as_user(to_short_too_long).message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  JobUpdate to_short_too_big;
  to_short_too_big.partition = "short";
  to_short_too_big.min_nodes = 2;
  EXPECT_EQ(update_as_user(to_short_too_big).message(),
            "Node count specification invalid (exceeds the partition's MaxNodes)");
  JobUpdate too_many_nodes;
  too_many_nodes.min_nodes = 3;
  EXPECT_EQ(update_as_user(too_many_nodes).message(), "More processors requested than permitted");
  EXPECT_EQ(Fingerprint(*core_), before);

  // Within the rules a user may move and reshape a pending job, and raise its
  // time limit up to the partition's MaxTime, as in Slurm.
  JobUpdate to_short;
  to_short.partition = "short";
  ASSERT_TRUE(update_as_user(to_short).ok());
  JobUpdate up_to_max;
  up_to_max.time_limit = 600;
  EXPECT_TRUE(update_as_user(up_to_max).ok());
  // An operator may place the job anywhere.
  JobUpdate admin_to_vip;
  admin_to_vip.job_id = id;
  admin_to_vip.partition = "vip";
  Store(core_->Update({0, 0}, true, admin_to_vip, now_));
  EXPECT_EQ(store_[id].request.partition, "vip");
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
  policy.accounts["grant"].grp_billing_mins = 10;
  UserAssoc alice;
  alice.account = "grant";
  alice.user = "alice";
  alice.qos = {"normal"};
  policy.users = {alice};
  policy.default_account["alice"] = "grant";
  core_->SetAccountPolicy(policy);

  SubmitRequest request = Request();  // 1 CPU: billing 1
  request.time_limit = 300;
  const uint64_t id = Submit(request);
  EXPECT_DOUBLE_EQ(core_->MaxCost(*core_->Find(id)), 7.5);
  EXPECT_DOUBLE_EQ(core_->Balances().at("grant").held, 7.5);
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
  EXPECT_DOUBLE_EQ(core_->Balances().at("grant").used, 7.5);
  EXPECT_DOUBLE_EQ(core_->Balances().at("grant").held, 0);
  EXPECT_DOUBLE_EQ(core_->AssocUsageAt(start + 450).at("grant|alice"), 450);
  EXPECT_EQ(core_->Find(id)->end_time - core_->Find(id)->start_time, 450);

  // Heard of late (a ctld restart): charged no more than was reserved.
  policy.accounts["grant"].grp_billing_mins = 20;
  core_->SetAccountPolicy(policy);
  const uint64_t late = Submit(request);
  Drive(Schedule());
  ASSERT_EQ(StateOf(late), JobState::kRunning);
  const int64_t late_start = core_->Find(late)->start_time;
  Store(core_->JobComplete(core_->Find(late)->nodes.front(), {late, true, 0, SIGKILL, ""},
                           late_start + 900));
  EXPECT_DOUBLE_EQ(core_->Balances().at("grant").used, 15);
  EXPECT_DOUBLE_EQ(core_->AssocUsageAt(late_start + 900).at("grant|alice"), 900);
}

// Issue 32: with AccountingStorageEnforce=associations,limits,qos, sbatch -A
// lab2 and -q special were refused but scontrol update Account=lab2
// QOS=special on one's own pending job was accepted, and the job ran charged
// to lab2. An update goes through admission's association, QOS and limit rules.
TEST_F(LifecycleTest, UpdatesGoThroughTheAssociationAndQosChecks) {
  Qos special{"special"};
  Qos small{"small"};
  small.max_submit_jobs_per_user = 1;
  core_->SetQos({Qos{"normal"}, special, small});
  AccountPolicy policy;
  policy.enforce = *ParseEnforcement("associations,limits,qos");
  policy.accounts["root"] = AccountAssoc{};
  for (const char* name : {"lab1", "lab2", "lab3"}) policy.accounts[name].parent = "root";
  policy.accounts["lab3"].grp_submit_jobs = 2;
  UserAssoc alice_lab1;
  alice_lab1.account = "lab1";
  alice_lab1.user = "alice";
  alice_lab1.qos = {"normal", "small"};
  alice_lab1.max_wall = 3600;
  UserAssoc alice_lab3 = alice_lab1;
  alice_lab3.account = "lab3";
  UserAssoc bob_lab2;
  bob_lab2.account = "lab2";
  bob_lab2.user = "bob";
  bob_lab2.qos = {"normal", "special"};
  policy.users = {alice_lab1, alice_lab3, bob_lab2};
  policy.default_account["alice"] = "lab1";
  core_->SetAccountPolicy(policy);

  SubmitRequest held = Request();
  held.hold = true;
  held.account = "lab1";
  SubmitRequest lab2 = held;
  lab2.account = "lab2";
  EXPECT_EQ(core_->Admit(lab2, now_).status().message(),
            "Invalid account or account/partition combination specified");
  SubmitRequest qos_special = held;
  qos_special.qos = "special";
  EXPECT_EQ(core_->Admit(qos_special, now_).status().message(), "Invalid qos specification");

  const uint64_t id = Submit(held);
  const std::string before = Fingerprint(*core_);
  auto update_as = [&](bool privileged, JobUpdate update) {
    update.job_id = update.job_id != 0 ? update.job_id : id;
    absl::StatusOr<Effects> effects =
        core_->Update({privileged ? 0u : 1001u, 1001}, privileged, update, now_);
    if (effects.ok()) Store(std::move(effects));
    return effects.status();
  };
  JobUpdate to_lab2;
  to_lab2.account = "lab2";
  EXPECT_EQ(update_as(false, to_lab2).message(),
            "Invalid account or account/partition combination specified");
  JobUpdate to_special;
  to_special.qos = "special";
  EXPECT_EQ(update_as(false, to_special).message(), "Invalid qos specification");
  JobUpdate both = to_lab2;
  both.qos = "special";
  EXPECT_EQ(update_as(false, both).message(),
            "Invalid account or account/partition combination specified");
  const std::string violation =
      "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
  JobUpdate past_max_wall;
  past_max_wall.time_limit = 7200;  // the association's MaxWall is an hour
  EXPECT_EQ(update_as(false, past_max_wall).message(), violation);
  EXPECT_EQ(Fingerprint(*core_), before);
  EXPECT_EQ(core_->Find(id)->account, "lab1");
  EXPECT_EQ(core_->Find(id)->qos, "normal");

  // Within the association a user may move the job: account names in any
  // case, as at submit.
  JobUpdate to_lab3;
  to_lab3.account = "LAB3";
  ASSERT_TRUE(update_as(false, to_lab3).ok());
  EXPECT_EQ(store_[id].account, "lab3");
  JobUpdate back;
  back.account = "lab1";
  ASSERT_TRUE(update_as(false, back).ok());

  // MaxSubmitJobsPerUser of the QOS an update moves a job into.
  const uint64_t other = Submit(held);
  JobUpdate to_small;
  to_small.qos = "small";
  ASSERT_TRUE(update_as(false, to_small).ok());
  to_small.job_id = other;
  EXPECT_EQ(update_as(false, to_small).message(), violation);

  // An array moved to another account counts every task there (GrpSubmitJobs=2).
  SubmitRequest array = held;
  array.array = "1-3";
  const uint64_t array_id = Submit(array);
  JobUpdate array_to_lab3;
  array_to_lab3.job_id = array_id;
  array_to_lab3.account = "lab3";
  EXPECT_EQ(update_as(false, array_to_lab3).message(), violation);
  EXPECT_EQ(core_->Find(array_id + 2)->account, "lab1");

  // Operators pass the QOS list and the limits, never a missing association.
  EXPECT_TRUE(update_as(true, to_special).ok());
  EXPECT_EQ(store_[id].qos, "special");
  EXPECT_TRUE(update_as(true, past_max_wall).ok());
  EXPECT_EQ(update_as(true, to_lab2).message(),
            "Invalid account or account/partition combination specified");
  EXPECT_EQ(store_[id].account, "lab1");

  // A started job's account is fixed, as in Slurm.
  JobUpdate release;
  release.held = false;
  release.time_limit = 600;
  release.qos = "normal";
  ASSERT_TRUE(update_as(true, release).ok());
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(update_as(false, to_lab3).message(), "Job is no longer pending execution");
  EXPECT_EQ(update_as(true, to_lab3).message(), "Job is no longer pending execution");
}

// Slurm's PARTITION_SUBMIT: a DRAIN or INACTIVE partition takes no new job,
// by submission or by update, for operators too; a job already there stays.
TEST_F(LifecycleTest, NoUpdateMovesAJobIntoAPartitionThatTakesNone) {
  PartitionConfig drained;
  drained.name = "drained";
  drained.nodes = {"n1", "n2"};
  drained.state = "DRAIN";
  config_.partitions.push_back(drained);
  Reset();
  SubmitRequest held = Request();
  held.hold = true;
  const uint64_t id = Submit(held);
  SubmitRequest there = held;
  there.partition = "drained";
  const std::string refused = "Required partition not available (inactive or drain)";
  EXPECT_EQ(core_->Admit(there, now_).status().message(), refused);
  JobUpdate move;
  move.job_id = id;
  move.partition = "drained";
  EXPECT_EQ(core_->Update({1001, 1001}, false, move, now_).status().message(), refused);
  EXPECT_EQ(core_->Update({0, 0}, true, move, now_).status().message(), refused);
  JobUpdate same;
  same.job_id = id;
  same.partition = "debug";
  EXPECT_TRUE(core_->Update({1001, 1001}, false, same, now_).ok());
}

TEST_F(LifecycleTest, AGresTypeNoNodeHasIsRefused) {
  SubmitRequest typed = Request();
  typed.gres = {"gpu:abc"};  // type abc, count 1; used to read as zero GPUs
  EXPECT_EQ(core_->Admit(typed, now_).status().message(),
            "Invalid generic resource (gres) specification");
}

TEST_F(LifecycleTest, ScriptsOverMaxScriptSizeAreRefused) {
  config_.scheduler_parameters["max_script_size"] = "100";
  Reset();
  SubmitRequest big = Request();
  big.script = "#!/bin/sh\n" + std::string(100, '#') + "\n";
  EXPECT_EQ(core_->Admit(big, now_).status().message(),
            "Pathname of a file, directory or other parameter too long (the batch script has 111 "
            "bytes; SchedulerParameters=max_script_size allows 100)");
  big.script = "#!/bin/sh\ntrue\n";
  EXPECT_TRUE(core_->Admit(big, now_).ok());
}

TEST_F(LifecycleTest, ConcurrentAdmissionsCannotExceedMaxSubmitJobsPerUser) {
  Qos limited{"normal"};
  limited.max_submit_jobs_per_user = 2;
  core_->SetQos({limited});
  // Two admitted but not yet inserted (their slurm_bb_job_process is running).
  ASSERT_TRUE(core_->Admit(Request(), now_).ok());
  ASSERT_TRUE(core_->Admit(Request(), now_).ok());
  absl::StatusOr<Admitted> third = core_->Admit(Request(), now_);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(third.status().message().find("job submit limit"), std::string::npos);
}

TEST_F(LifecycleTest, TestOnlyIsRefusedWhatASubmissionWouldBe) {
  Qos limited{"normal"};
  limited.max_submit_jobs_per_user = 1;
  core_->SetQos({limited});
  ASSERT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
  Submit(Request());
  absl::StatusOr<CtldSnapshot> over = core_->WillRunSnapshot(Request(), now_);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(over.status().message().find("job submit limit"), std::string::npos);
  // Nothing is reserved by the checks: room for one job is room for any
  // number of --test-only submissions.
  config_.max_job_count = 1;
  SetUp();
  EXPECT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
  EXPECT_TRUE(core_->WillRunSnapshot(Request(), now_).ok());
}

TEST_F(LifecycleTest, MaxJobCountCountsReservations) {
  config_.max_job_count = 3;
  SetUp();
  SubmitRequest array = Request();
  array.array = "1-2";
  ASSERT_TRUE(core_->Admit(array, now_).ok());
  EXPECT_EQ(core_->Admit(array, now_).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(LifecycleTest, NodeDownRequeuesOrFailsAndAPreemptedJobRequeues) {
  SubmitRequest fail = Request(2);
  fail.requeue = false;
  const uint64_t a = Submit(Request(2));
  const uint64_t b = Submit(fail);
  Drive(Schedule());
  ASSERT_EQ(StateOf(a), JobState::kRunning);
  ASSERT_EQ(StateOf(b), JobState::kRunning);
  std::vector<NodeChange> changes;
  Drive(Store(core_->UpdateNodes({"n1", "n2"}, "DOWN", "test", 0, now_, &changes)));
  EXPECT_EQ(StateOf(a), JobState::kPending);
  EXPECT_EQ(core_->Find(a)->restart_count, 1);
  EXPECT_EQ(StateOf(b), JobState::kNodeFail);
  EXPECT_EQ(store_[b].state, JobState::kNodeFail);
}

// Fails every launch the effects ask for, blaming `blame`.
class LaunchFailureTest : public LifecycleTest {
 protected:
  void FailLaunches(const Effects& effects, Lifecycle::LaunchBlame blame) {
    for (const Intent& intent : effects.intents) {
      if (const auto* launch = std::get_if<LaunchIntent>(&intent)) {
        Effects next =
            Store(core_->LaunchDone(launch->job.id, launch->job.restart_count,
                                    absl::UnavailableError("connection refused"), now_, blame));
        for (const Intent& follow : next.intents) {
          if (const auto* stop = std::get_if<TerminateIntent>(&follow)) {
            terminated_.push_back(stop->job_id);
          }
        }
      }
    }
  }
  const Node& NodeNamed(const std::string& name) { return *core_->nodes().Find(name); }
};

TEST_F(LaunchFailureTest, ANodesFailedLaunchDrainsItAndRequeuesTheJob) {
  SubmitRequest no_requeue = Request(2);
  no_requeue.requeue = false;
  const uint64_t a = Submit(Request(2));
  const uint64_t b = Submit(no_requeue);
  FailLaunches(Schedule(), Lifecycle::LaunchBlame::kNode);

  EXPECT_EQ(StateOf(a), JobState::kPending);
  EXPECT_EQ(core_->Find(a)->restart_count, 1);
  EXPECT_TRUE(core_->Find(a)->nodes.empty());
  EXPECT_EQ(StateOf(b), JobState::kNodeFail);
  EXPECT_EQ(store_[b].state, JobState::kNodeFail);
  for (const char* name : {"n1", "n2"}) {
    EXPECT_TRUE(NodeNamed(name).drain) << name;
    EXPECT_EQ(NodeNamed(name).reason, "batch job launch failure") << name;
    EXPECT_EQ(NodeNamed(name).alloc_cpus, 0) << name;
  }
  // A launch that timed out may have started: both copies are told to stop.
  std::sort(terminated_.begin(), terminated_.end());
  EXPECT_EQ(terminated_, (std::vector<uint64_t>{a, b}));
  // Drained nodes take nothing more.
  Schedule();
  EXPECT_EQ(StateOf(a), JobState::kPending);
}

// The node's Prolog failed: Slurm drains the node ("Prolog error") and
// requeues the job held; a failed Epilog drains the node and the job's result
// stands.
TEST_F(LaunchFailureTest, NodeScriptFailuresDrainTheNode) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  NodeRunReport prolog{id, true, 0, 0, "Prolog error on n1: exit code 1: no scratch"};
  prolog.prolog_error = "exit code 1: no scratch";
  Drive(Store(core_->JobComplete(node, prolog, now_)));
  EXPECT_EQ(StateOf(id), JobState::kPending);
  EXPECT_TRUE(core_->Find(id)->held);
  EXPECT_EQ(core_->Find(id)->reason, "launch failed requeued held");
  EXPECT_EQ(store_[id].restart_count, 1);
  EXPECT_TRUE(NodeNamed(node).drain);
  EXPECT_EQ(NodeNamed(node).reason, "Prolog error");

  const uint64_t other = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(other), JobState::kRunning);
  const std::string other_node = core_->Find(other)->nodes.front();
  ASSERT_NE(other_node, node);
  NodeRunReport epilog{other, true, 0, 0, ""};
  epilog.epilog_error = "exit code 2";
  Drive(Store(core_->JobComplete(other_node, epilog, now_)));
  EXPECT_EQ(StateOf(other), JobState::kCompleted);
  EXPECT_TRUE(NodeNamed(other_node).drain);
  EXPECT_EQ(NodeNamed(other_node).reason, "Epilog error");
}

// A multi-node job's batch host reports the Epilog's failures on its other
// nodes with the job's end: each of those drains, the batch host does not.
TEST_F(LaunchFailureTest, EpilogFailuresOnAMultiNodeJobsOtherNodesDrainThem) {
  SubmitRequest wide = Request(2);
  wide.min_nodes = 2;
  const uint64_t id = Submit(wide);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::vector<std::string> nodes = core_->Find(id)->nodes;
  ASSERT_EQ(nodes.size(), 2u);
  NodeRunReport end{id, true, 0, 0, ""};
  end.node_epilog_errors = {{nodes[1], "exit code 3: no scratch"}, {"elsewhere", "exit code 1"}};
  Drive(Store(core_->JobComplete(nodes[0], end, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  EXPECT_FALSE(NodeNamed(nodes[0]).drain);
  EXPECT_TRUE(NodeNamed(nodes[1]).drain);
  EXPECT_EQ(NodeNamed(nodes[1]).reason, "Epilog error");
}

TEST_F(LifecycleTest, NodeDrainsAreStoredWithTheEventAndDeletedOnResume) {
  std::vector<NodeChange> changes;
  Effects drained = Store(core_->UpdateNodes({"n1"}, "DRAIN", "bad fan", 0, now_, &changes));
  ASSERT_EQ(drained.records.size(), 1u);
  EXPECT_EQ(drained.records[0].kind, kNodeAdminKind);
  EXPECT_EQ(drained.records[0].key, "n1");
  EXPECT_EQ(ParseNodeAdminState("n1", drained.records[0].blob)->reason, "bad fan");
  changes.clear();
  Effects resumed = Store(core_->UpdateNodes({"n1"}, "RESUME", "", 0, now_, &changes));
  ASSERT_EQ(resumed.records.size(), 1u);
  EXPECT_EQ(resumed.records[0].blob, "");  // deleted
  // Registering again changes no admin state: nothing stored.
  NodeRegistration reg;
  reg.node_name = "n2";
  reg.cpus = 2;
  reg.real_memory_mb = 1000;
  std::vector<uint64_t> terminate;
  changes.clear();
  EXPECT_TRUE(Store(core_->RegisterNode(reg, {}, now_, &terminate, &changes)).records.empty());
}

TEST_F(LaunchFailureTest, AJobWhoseLaunchKeepsFailingIsHeldAfterMaxBatchRequeue) {
  const uint64_t id = Submit(Request(2));
  for (int attempt = 0; attempt <= Lifecycle::kMaxBatchRequeue; ++attempt) {
    std::vector<NodeChange> changes;
    Store(core_->UpdateNodes({"n1", "n2"}, "RESUME", "", 0, now_, &changes));
    FailLaunches(Schedule(), Lifecycle::LaunchBlame::kNode);
    ASSERT_EQ(StateOf(id), JobState::kPending) << attempt;
  }
  EXPECT_TRUE(core_->Find(id)->held);
  EXPECT_EQ(core_->Find(id)->reason, "launch failed requeued held");
  EXPECT_EQ(core_->Find(id)->reason_detail, "launch failure limit exceeded requeued held");
}

TEST_F(LaunchFailureTest, AJobsOwnLaunchFailureFailsItAndLeavesTheNodeInService) {
  const uint64_t id = Submit(Request(2));
  FailLaunches(Schedule(), Lifecycle::LaunchBlame::kJob);
  EXPECT_EQ(StateOf(id), JobState::kFailed);
  EXPECT_FALSE(NodeNamed("n1").drain);
  EXPECT_FALSE(NodeNamed("n2").drain);
}

// Fencing: a run its shepherd killed when the lease ran out is requeued; the end
// of an earlier run, reported again once the job runs anew, changes nothing.
TEST_F(LifecycleTest, AFencedRunIsRequeuedAndAnEarlierRunsEndIsIgnored) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  NodeRunReport fenced{id, true, 0, 9, "fenced: ...", true, 1};
  Drive(Store(core_->JobComplete(node, fenced, now_)));
  EXPECT_EQ(core_->Find(id)->restart_count, 1);
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string again = core_->Find(id)->nodes.front();
  Store(core_->JobComplete(again, fenced, now_));  // run 1's end, sent again
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  Drive(Store(core_->JobComplete(again, {id, true, 0, 0, "", false, 2}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
}

// A run whose cgroup saw an OOM kill ends OUT_OF_MEMORY, whatever its exit code.
TEST_F(LifecycleTest, AnOomKilledRunEndsOutOfMemory) {
  const uint64_t id = Submit(Request(2));
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string node = core_->Find(id)->nodes.front();
  Drive(Store(core_->JobComplete(node, {id, true, 0, 0, "", false, 1, true}, now_)));
  EXPECT_EQ(StateOf(id), JobState::kOutOfMemory);
}

TEST_F(LifecycleTest, IllegalReportsChangeNothing) {
  const uint64_t id = Submit(Request());
  const std::string before = Fingerprint(*core_);
  // A completion from a node the job does not run on, for a pending job.
  absl::StatusOr<Effects> stray = core_->JobComplete("n2", {id, true, 0, 0, ""}, now_);
  ASSERT_TRUE(stray.ok());
  EXPECT_TRUE(stray->rows.empty());
  core_->Confirm();
  // Stale prolog/launch/epilog reports for a job in another state.
  Store(core_->PrologDone(id, 0, {true, true, "", 1}, now_));
  Store(core_->LaunchDone(id, 0, absl::OkStatus(), now_));
  Store(core_->EpilogDone(id, {true, true, "", 1}, now_));
  EXPECT_EQ(Fingerprint(*core_), before);
}

// Burst buffers: a teardown that failed is retried from its own field, and the
// job's end time (what accounting reports) is never touched by the retries.
class LifecycleBbTest : public LifecycleTest {
 protected:
  LifecycleBbTest() : LifecycleTest({false, false, &bb_config_, false, 0}) {}
  BurstBufferConfig bb_config_;
};

TEST_F(LifecycleBbTest, TeardownRetriesKeepTheEndTime) {
  SubmitRequest request = Request();
  request.burst_buffer = "#BB_LUA stage_in";
  const uint64_t id = Submit(request);
  ASSERT_TRUE(core_->Find(id)->UsesBurstBuffer());
  Drive(Schedule());  // stage-in
  Drive(Schedule());  // pre-run, launch
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  now_ += 50;
  Effects exited = Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_));
  // post-run, stage-out, then a teardown that fails.
  ASSERT_EQ(exited.intents.size(), 1u);
  BbStageResult ok;
  Effects post_run = Store(core_->BbStageDone(id, BbStage::kPostRun, ok, now_));
  EXPECT_EQ(core_->Find(id)->bb_state, BbState::kStagingOut);
  EXPECT_EQ(StateOf(id), JobState::kCompleting);
  ASSERT_EQ(post_run.intents.size(), 1u);
  Effects staged_out = Store(core_->BbStageDone(id, BbStage::kStageOut, ok, now_));
  EXPECT_EQ(StateOf(id), JobState::kCompleted);
  const int64_t end_time = core_->Find(id)->end_time;
  BbStageResult failed;
  failed.ok = false;
  failed.error = "burst_buffer/lua: job_teardown failed: busy";
  Store(core_->BbStageDone(id, BbStage::kTeardown, failed, now_));
  EXPECT_EQ(core_->Find(id)->bb_state, BbState::kTeardownFail);
  EXPECT_TRUE(Store(core_->RetryBbTeardowns(now_ + 30)).intents.empty()) << "not yet";
  Effects retry = Store(core_->RetryBbTeardowns(now_ + 61));
  ASSERT_EQ(retry.intents.size(), 1u);
  EXPECT_EQ(core_->Find(id)->end_time, end_time);
  EXPECT_EQ(store_[id].end_time, end_time);
  (void)staged_out;
}

// Every report in every state: legal pairs move on, the rest change nothing,
// versions only grow and a final state is never left.
TEST_F(LifecycleWithScriptsTest, EveryReportInEveryStateKeepsTheInvariants) {
  for (int reached = 0; reached < 5; ++reached) {
    SetUp();
    store_.clear();
    const uint64_t id = Submit(Request());
    // Drive to PENDING, CONFIGURING, RUNNING, COMPLETING, COMPLETED.
    if (reached >= 1) Schedule();
    if (reached >= 2) {
      Store(core_->PrologDone(id, 0, {true, true, "", 1}, now_));
      Store(core_->LaunchDone(id, 0, absl::OkStatus(), now_));
    }
    if (reached >= 3) Store(core_->JobComplete("n1", {id, true, 0, 0, ""}, now_));
    if (reached >= 4) Store(core_->EpilogDone(id, {true, true, "", 1}, now_));
    const JobState state = StateOf(id);
    for (int event = 0; event < 7; ++event) {
      const uint64_t version = core_->Find(id)->version;
      absl::StatusOr<Effects> effects;
      switch (event) {
        case 0:
          effects = core_->PrologDone(id, 0, {true, true, "", 1}, now_);
          break;
        case 1:
          effects = core_->LaunchDone(id, 0, absl::OkStatus(), now_);
          break;
        case 2:
          effects = core_->JobComplete("n1", {id, true, 0, 0, ""}, now_);
          break;
        case 3:
          effects = core_->EpilogDone(id, {true, true, "", 1}, now_);
          break;
        case 4:
          effects = core_->BbStageDone(id, BbStage::kStageIn, {}, now_);
          break;
        case 5:
          effects = core_->EnforceTimeLimits(now_ + 10000);
          break;
        case 6: {
          std::vector<CancelOutcome> outcomes;
          effects = core_->Cancel({0, 0}, true, CancelOf(id), now_, &outcomes);
          break;
        }
      }
      ASSERT_TRUE(effects.ok());
      core_->Rollback();  // probe only: every event undone
      EXPECT_EQ(StateOf(id), state) << "event " << event;
      EXPECT_EQ(core_->Find(id)->version, version);
      if (IsFinal(state)) {
        EXPECT_TRUE(effects->intents.empty()) << "event " << event << " on a final job";
      }
    }
  }
}

// Random event sequences, with the store failing at random: every failed
// event leaves the table exactly as it was, every intent belongs to a job
// whose row is in the same Effects, versions only grow, and once every job
// is let finish each ends in exactly one final state that never changes.
TEST_F(LifecycleWithScriptsTest, RandomSequencesKeepTheInvariants) {
  for (int seed = 1; seed <= 30; ++seed) {
    SetUp();
    store_.clear();
    std::mt19937 rng(seed);
    std::vector<uint64_t> ids;
    std::vector<Intent> pending_intents;
    std::map<uint64_t, JobState> final_seen;
    auto pick = [&]() -> uint64_t {
      return ids.empty() ? 0 : ids[std::uniform_int_distribution<size_t>(0, ids.size() - 1)(rng)];
    };
    auto apply = [&](absl::StatusOr<Effects> effects, bool fail) {
      if (!effects.ok()) {
        EXPECT_FALSE(core_->in_transaction());
        return;
      }
      std::set<uint64_t> rows;
      for (const Job& row : effects->rows) rows.insert(row.id);
      for (const Intent& intent : effects->intents) {
        if (std::holds_alternative<SignalIntent>(intent)) continue;  // no state change
        uint64_t job = std::visit(
            [](const auto& it) -> uint64_t {
              using T = std::decay_t<decltype(it)>;
              if constexpr (std::is_same_v<T, TerminateIntent> ||
                            std::is_same_v<T, FlushBbStageIntent> ||
                            std::is_same_v<T, RemoveBbFilesIntent>) {
                return it.job_id;
              } else if constexpr (std::is_same_v<T, SignalIntent>) {
                return it.job_id;
              } else if constexpr (std::is_same_v<T, RunTriggerIntent>) {
                ADD_FAILURE() << "trigger programs are the Controller's, never the core's";
                return 0;
              } else {
                return it.job.id;
              }
            },
            intent);
        EXPECT_EQ(rows.count(job), 1u) << "an intent for JobId=" << job << " without its row";
      }
      if (fail) {
        core_->Rollback();
        return;
      }
      std::vector<Intent> intents = effects->intents;
      Store(std::move(effects));
      pending_intents.insert(pending_intents.end(), intents.begin(), intents.end());
    };
    for (int step = 0; step < 200; ++step) {
      const bool fail = std::uniform_int_distribution<int>(0, 5)(rng) == 0;
      const std::string before = Fingerprint(*core_);
      const int kind = std::uniform_int_distribution<int>(0, 8)(rng);
      now_ += std::uniform_int_distribution<int>(0, 60)(rng);
      bool mutated = true;
      switch (kind) {
        case 0: {
          absl::StatusOr<Admitted> admitted =
              core_->Admit(Request(std::uniform_int_distribution<int>(1, 2)(rng)), now_);
          ASSERT_TRUE(admitted.ok());
          apply(core_->Insert(*admitted, now_), fail);
          if (fail) {
            core_->ReleaseReservation(admitted->first_id);
          } else {
            ids.push_back(admitted->first_id);
          }
          break;
        }
        case 1: {
          PassInput input;
          apply(core_->PrepareSchedule(now_, &input), false);
          const PassPlan plan = PlanPass(input, SchedulerOptions{}, PreemptOptions{}, now_);
          bool replan = false;
          apply(core_->ApplySchedule(input, plan, now_, &replan), fail);
          break;
        }
        case 2: {  // carry out one outstanding intent
          if (pending_intents.empty()) {
            mutated = false;
            break;
          }
          Intent intent = pending_intents.front();
          pending_intents.erase(pending_intents.begin());
          if (auto* p = std::get_if<RunPrologIntent>(&intent)) {
            apply(core_->PrologDone(p->job.id, p->job.restart_count, {true, true, "", 1}, now_),
                  fail);
          } else if (auto* l = std::get_if<LaunchIntent>(&intent)) {
            apply(core_->LaunchDone(l->job.id, l->job.restart_count, absl::OkStatus(), now_), fail);
          } else if (auto* t = std::get_if<TerminateIntent>(&intent)) {
            apply(core_->JobComplete("n1", {t->job_id, true, 0, 15, ""}, now_), fail);
            apply(core_->JobComplete("n2", {t->job_id, true, 0, 15, ""}, now_), fail);
          } else if (auto* e = std::get_if<RunEpilogIntent>(&intent)) {
            apply(core_->EpilogDone(e->job.id, {true, true, "", 1}, now_), fail);
          } else {
            mutated = false;
          }
          if (fail) pending_intents.insert(pending_intents.begin(), intent);  // tried again
          break;
        }
        case 3: {
          const uint64_t id = pick();
          const Job* job = id ? core_->Find(id) : nullptr;
          if (job == nullptr || job->nodes.empty()) {
            mutated = false;
            break;
          }
          apply(core_->JobComplete(job->nodes.front(), {id, true, 1, 0, ""}, now_), fail);
          break;
        }
        case 4: {
          std::vector<CancelOutcome> outcomes;
          apply(core_->Cancel({1001, 1001}, false, CancelOf(pick()), now_, &outcomes), fail);
          break;
        }
        case 5: {
          JobUpdate update;
          update.job_id = pick();
          update.comment = absl::StrCat("step ", step);
          update.time_limit = 30;
          apply(core_->Update({1001, 1001}, false, update, now_), fail);
          break;
        }
        case 6: {
          std::vector<NodeChange> changes;
          const bool down = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
          apply(core_->UpdateNodes({"n2"}, down ? "DOWN" : "RESUME", "test", 0, now_, &changes),
                fail);
          break;
        }
        case 7:
          apply(core_->EnforceTimeLimits(now_), fail);
          break;
        case 8: {
          std::vector<NodeChange> changes;
          core_->Heartbeat("n1", now_, &changes);
          core_->Heartbeat("n2", now_, &changes);
          apply(core_->CheckNodeTimeouts(now_, &changes), fail);
          break;
        }
      }
      if (fail && mutated) {
        EXPECT_EQ(Fingerprint(*core_), before) << "seed " << seed << " step " << step;
      }
      for (const auto& [id, job] : core_->jobs()) {
        auto seen = final_seen.find(id);
        if (seen != final_seen.end()) {
          EXPECT_EQ(job.state, seen->second) << "JobId=" << id << " left its final state";
        } else if (IsFinal(job.state)) {
          final_seen[id] = job.state;
        }
        if (store_.count(id)) {
          EXPECT_EQ(store_[id].version, job.version) << "JobId=" << id;
        }
      }
    }
    // Let everything finish: cancel all, carry out every intent.
    std::vector<CancelOutcome> outcomes;
    apply(core_->Cancel({0, 0}, true, CancelSpec{}, now_, &outcomes), false);
    for (int round = 0; round < 50 && !pending_intents.empty(); ++round) {
      std::vector<Intent> intents;
      intents.swap(pending_intents);
      for (const Intent& intent : intents) {
        if (auto* p = std::get_if<RunPrologIntent>(&intent)) {
          apply(core_->PrologDone(p->job.id, p->job.restart_count, {true, true, "", 1}, now_),
                false);
        } else if (auto* l = std::get_if<LaunchIntent>(&intent)) {
          apply(core_->LaunchDone(l->job.id, l->job.restart_count, absl::OkStatus(), now_), false);
        } else if (auto* t = std::get_if<TerminateIntent>(&intent)) {
          for (const char* node : {"n1", "n2"}) {
            apply(core_->JobComplete(node, {t->job_id, true, 0, 15, ""}, now_), false);
          }
        } else if (auto* e = std::get_if<RunEpilogIntent>(&intent)) {
          apply(core_->EpilogDone(e->job.id, {true, true, "", 1}, now_), false);
        }
      }
      apply(core_->Cancel({0, 0}, true, CancelSpec{}, now_, &outcomes), false);
    }
    for (const auto& [id, job] : core_->jobs()) {
      EXPECT_TRUE(IsFinal(job.state))
          << "seed " << seed << " JobId=" << id << " " << JobStateName(job.state);
      EXPECT_EQ(store_[id].state, job.state);
    }
  }
}

}  // namespace
}  // namespace skiff
