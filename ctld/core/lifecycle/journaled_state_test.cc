// The undo journal on its own: a rollback restores every table, frames end in
// order, and a closed event reports each touched job once with one version bump.
#include "ctld/core/lifecycle/journaled_state.h"

#include <gtest/gtest.h>

#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

Job PendingJob(uint64_t id) {
  Job job;
  job.id = id;
  job.user_name = "alice";
  job.version = 1;
  return job;
}

// Everything a rollback must put back, compared as one value.
struct Picture {
  std::map<uint64_t, std::pair<JobState, uint64_t>> jobs;  // state, version
  std::vector<uint64_t> unfinished;
  std::vector<std::string> drained;
  std::vector<std::pair<std::string, uint64_t>> pools;  // name, allocated
  std::map<std::string, double> usage, assoc_usage, bank_used;
  std::vector<uint64_t> busy, terminate_sent, reservations;
  std::vector<uint32_t> triggers;

  bool operator==(const Picture& o) const {
    return jobs == o.jobs && unfinished == o.unfinished && drained == o.drained &&
           pools == o.pools && usage == o.usage && assoc_usage == o.assoc_usage &&
           bank_used == o.bank_used && busy == o.busy && terminate_sent == o.terminate_sent &&
           reservations == o.reservations && triggers == o.triggers;
  }
};

Picture Take(const JournaledState& state) {
  Picture p;
  for (const auto& [id, job] : state.jobs()) p.jobs[id] = {job.state, job.version};
  for (const auto& [id, job] : state.unfinished()) p.unfinished.push_back(id);
  for (const Node& node : state.nodes().nodes()) {
    if (node.drain) p.drained.push_back(node.config.name);
  }
  for (const BbPool& pool : state.bb_pools().pools())
    p.pools.push_back({pool.name, pool.allocated});
  for (const auto& [k, v] : state.usage()) p.usage[k] = v.usage;
  for (const auto& [k, v] : state.assoc_usage()) p.assoc_usage[k] = v.usage;
  for (const auto& [k, v] : state.bank_used()) p.bank_used[k] = v.billing + v.gpu;
  for (uint64_t id : {1, 2, 3, 7}) {
    if (state.bb_busy(id)) p.busy.push_back(id);
    if (state.terminate_sent(id)) p.terminate_sent.push_back(id);
  }
  for (const auto& [first, r] : state.reservations()) p.reservations.push_back(first);
  for (const auto& [id, t] : state.triggers().triggers()) p.triggers.push_back(id);
  return p;
}

class JournaledStateTest : public ::testing::Test {
 protected:
  JournaledStateTest() : config_(TestConfig()), state_(config_, 100) {
    state_.Install(PendingJob(1));
    state_.Install(PendingJob(2));
    state_.UnjournaledPools().Update({{"fast", 1, 1000}});
    state_.LoadUsage({{"alice", {5.0, 100, 1.0}}});
    state_.LoadAssocUsage({{"lab|alice", {5.0, 100, 0}}});
    state_.LoadBank({{"lab|alice", TresMinutes{12.0, 0, 0, 0, 3.0}}});
    AdmissionReservation reservation;
    reservation.count = 1;
    state_.Reserve(7, reservation);
  }

  // Changes every table in one open transaction.
  void ChangeEverything() {
    state_.Mut(1).state = JobState::kCancelled;
    state_.Insert(PendingJob(3));
    state_.MutNodes().Find("n2");  // journaled even when nothing changes
    for (const Node& node : state_.nodes().nodes()) {
      if (node.config.name == "n1") {
        NodeAdminState drained;
        drained.drain = true;
        drained.reason = "test";
        state_.MutNodes().RestoreAdminState("n1", drained);
      }
    }
    BbAllocation alloc;
    alloc.job_id = 2;
    alloc.pool = "fast";
    alloc.size = 100;
    ASSERT_TRUE(state_.MutPools().Reserve(alloc).ok());
    state_.SetBusy(2, true);
    state_.SetTerminateSent(2, true);
    state_.MutUsage("alice").usage = 50;
    state_.MutUsage("bob").usage = 1;  // new: a rollback removes it
    state_.MutAssocUsage("lab|alice").usage = 50;
    state_.MutBankUsed("lab|alice").gpu = 99;
    state_.MutBankUsed("lab|bob").billing = 1;
    state_.TakeReservation(7);
    Trigger trigger;
    trigger.id = 5;
    trigger.program = "/bin/true";
    state_.MutTriggers().Add(trigger);
  }

  SkiffConfig config_;
  JournaledState state_;
};

TEST_F(JournaledStateTest, RollbackRestoresEveryTable) {
  const Picture before = Take(state_);
  state_.Begin();
  ChangeEverything();
  Effects effects = state_.Close({});
  ASSERT_NE(effects.frame, 0u);
  ASSERT_FALSE(Take(state_) == before);  // the test changes what it checks
  state_.RollbackFrom(effects.frame);
  EXPECT_TRUE(Take(state_) == before);
  EXPECT_EQ(state_.pending_frames(), 0u);
}

TEST_F(JournaledStateTest, AnOpenTransactionRollsBackToo) {
  const Picture before = Take(state_);
  state_.Begin();
  ChangeEverything();
  state_.Rollback();
  EXPECT_TRUE(Take(state_) == before);
  EXPECT_FALSE(state_.in_transaction());
}

TEST_F(JournaledStateTest, CloseBumpsEachTouchedJobOnceAndListsItOnce) {
  state_.Begin();
  state_.Mut(1).reason = "a";
  state_.Mut(1).reason = "b";
  state_.Insert(PendingJob(3));
  Effects effects = state_.Close({});
  ASSERT_EQ(effects.rows.size(), 2u);
  EXPECT_EQ(effects.rows[0].id, 1u);
  EXPECT_EQ(effects.rows[0].version, 2u);
  EXPECT_EQ(effects.rows[1].id, 3u);
  EXPECT_EQ(effects.rows[1].version, 1u);
}

TEST_F(JournaledStateTest, ADrainIsARecordOfItsEvent) {
  state_.Begin();
  NodeAdminState drained;
  drained.drain = true;
  drained.reason = "bad disk";
  state_.MutNodes().RestoreAdminState("n2", drained);
  Effects effects = state_.Close({});
  ASSERT_EQ(effects.records.size(), 1u);
  const auto* change = std::get_if<NodeAdminChange>(&effects.records[0]);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->node, "n2");
  EXPECT_TRUE(change->state.drain);
  EXPECT_EQ(change->state.reason, "bad disk");
}

TEST_F(JournaledStateTest, AnEventThatChangedNothingLeavesNoFrame) {
  state_.Begin();
  state_.Derived(1)->priority = 42;  // derived: not journaled
  Effects effects = state_.Close({});
  EXPECT_EQ(effects.frame, 0u);
  EXPECT_EQ(state_.pending_frames(), 0u);
  EXPECT_EQ(state_.Find(1)->priority, 42);
}

TEST_F(JournaledStateTest, RollbackFromPutsBackThatFrameAndLaterOnesNotEarlier) {
  state_.Begin();
  state_.Mut(1).state = JobState::kCancelled;
  const uint64_t first = state_.Close({}).frame;
  state_.Begin();
  state_.Mut(2).state = JobState::kCancelled;
  const uint64_t second = state_.Close({}).frame;
  state_.Begin();
  state_.MutUsage("alice").usage = 70;
  state_.Close({});
  state_.Confirm(first);
  EXPECT_EQ(state_.pending_frames(), 2u);  // the first is gone once confirmed
  state_.RollbackFrom(second);
  EXPECT_EQ(state_.Find(1)->state, JobState::kCancelled);
  EXPECT_EQ(state_.Find(2)->state, JobState::kPending);
  EXPECT_EQ(state_.usage().at("alice").usage, 5.0);
  EXPECT_EQ(state_.pending_frames(), 0u);
}

TEST_F(JournaledStateTest, AConfirmedFrameWaitsForEarlierOnes) {
  state_.Begin();
  state_.Mut(1).state = JobState::kCancelled;
  const uint64_t first = state_.Close({}).frame;
  state_.Begin();
  state_.Mut(2).state = JobState::kCancelled;
  const uint64_t second = state_.Close({}).frame;
  state_.Confirm(second);
  EXPECT_EQ(state_.pending_frames(), 2u);
  state_.Confirm(first);
  EXPECT_EQ(state_.pending_frames(), 0u);
}

TEST_F(JournaledStateTest, VisitUnfinishedDropsFinishedJobs) {
  state_.Begin();
  state_.Mut(1).state = JobState::kCancelled;
  state_.Close({});
  std::vector<uint64_t> seen;
  state_.VisitUnfinished([&](Job& job) { seen.push_back(job.id); });
  EXPECT_EQ(seen, std::vector<uint64_t>{2});
  EXPECT_EQ(state_.unfinished().size(), 1u);
  // A rollback brings the job back into the index.
  state_.RollbackFrom(1);
  EXPECT_EQ(state_.unfinished().size(), 2u);
}

TEST_F(JournaledStateTest, ForgetRemovesAJobEverywhere) {
  state_.Forget(2);
  EXPECT_EQ(state_.Find(2), nullptr);
  EXPECT_EQ(state_.unfinished().count(2), 0u);
}

}  // namespace
}  // namespace skiff::ctld
