// The lifecycle core end to end and its transactions: a job through every
// stage, rows and version bumps, frames and rollbacks, and invariants that
// hold for every report in every state and for random sequences of events.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

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
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 0) << "resources given back";
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
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 2);
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
  ASSERT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 2);
  // The start's thread learns first that its rows failed (the store fails every
  // write queued after a failed one): it rolls back its own frame only.
  core_->RollbackFrom(started.frame);
  EXPECT_EQ(core_->Find(first->first_id)->state, JobState::kPending);
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 0);
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
  EXPECT_EQ(core_->state().nodes().Find("n1")->alloc_cpus, 0);
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
              } else if constexpr (std::is_same_v<T, SignalIntent> ||
                                   std::is_same_v<T, NotifyIntent>) {
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
      for (const auto& [id, job] : core_->state().jobs()) {
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
    for (const auto& [id, job] : core_->state().jobs()) {
      EXPECT_TRUE(IsFinal(job.state))
          << "seed " << seed << " JobId=" << id << " " << JobStateName(job.state);
      EXPECT_EQ(store_[id].state, job.state);
    }
  }
}

}  // namespace
}  // namespace skiff::ctld
