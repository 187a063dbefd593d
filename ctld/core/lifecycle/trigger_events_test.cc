// strigger's triggers as lifecycle events: set, clear and observe are each one
// journaled frame with typed records, a store that fails puts the table and
// its last observation back, and what fires comes out as RunTriggerIntent.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

TriggerRequest NodeDownTrigger() {
  TriggerRequest request;
  request.res_type = TriggerResType::kNode;
  request.res_id = "*";
  request.type = trigger_type::kDown;
  request.program = "/bin/prog arg";
  return request;
}

TriggerPolicy RootIsSlurmUser() {
  TriggerPolicy policy;
  policy.slurm_user = 0;
  policy.max_count = 100;
  return policy;
}

std::vector<uint32_t> TriggerIds(const Effects& effects) {
  std::vector<uint32_t> ids;
  for (const RecordChange& change : effects.records) {
    if (const auto* t = std::get_if<TriggerChange>(&change)) ids.push_back(t->id);
  }
  return ids;
}

class TriggerEventsTest : public LifecycleTest {
 protected:
  uint32_t Set(const TriggerRequest& request) {
    uint32_t id = 0;
    Effects effects = Store(core_->SetTrigger(root_, request, RootIsSlurmUser(), true, now_, &id));
    EXPECT_EQ(TriggerIds(effects), std::vector<uint32_t>{id});
    return id;
  }

  Caller root_{0, 0};
};

TEST_F(TriggerEventsTest, SetIsStoredAndAFailedStorePutsTheTableBack) {
  const uint32_t first = Set(NodeDownTrigger());
  EXPECT_EQ(core_->state().triggers().triggers().size(), 1u);

  uint32_t id = 0;
  TriggerRequest other = NodeDownTrigger();
  other.type = trigger_type::kDrained;
  absl::StatusOr<Effects> effects =
      core_->SetTrigger(root_, other, RootIsSlurmUser(), true, now_, &id);
  ASSERT_TRUE(effects.ok()) << effects.status();
  core_->RollbackFrom(effects->frame);  // the rows could not be stored
  EXPECT_EQ(core_->state().triggers().triggers().size(), 1u);
  // The id was not spent: the retry gets it.
  EXPECT_EQ(Set(other), first + 1);
}

TEST_F(TriggerEventsTest, RefusalsChangeNothing) {
  uint32_t id = 0;
  Caller alice{1001, 100};
  absl::StatusOr<Effects> refused =
      core_->SetTrigger(alice, NodeDownTrigger(), RootIsSlurmUser(), true, now_, &id);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(core_->in_transaction());
  EXPECT_EQ(core_->pending_frames(), 0u);
  EXPECT_TRUE(core_->state().triggers().triggers().empty());
}

TEST_F(TriggerEventsTest, ClearRemovesWhatTheCallerMayAndSaysWhy) {
  const uint32_t id = Set(NodeDownTrigger());
  std::vector<uint32_t> removed;
  absl::Status answer;
  TriggerTable::ClearFilter filter;
  filter.id = id;
  absl::StatusOr<Effects> by_alice =
      core_->ClearTriggers(Caller{1001, 100}, filter, now_, &removed, &answer);
  EXPECT_EQ(by_alice.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(core_->state().triggers().triggers().size(), 1u);

  Effects cleared = Store(core_->ClearTriggers(root_, filter, now_, &removed, &answer));
  EXPECT_TRUE(answer.ok());
  EXPECT_EQ(removed, std::vector<uint32_t>{id});
  ASSERT_EQ(cleared.records.size(), 1u);
  EXPECT_FALSE(std::get<TriggerChange>(cleared.records[0]).trigger.has_value());
  EXPECT_TRUE(core_->state().triggers().triggers().empty());
}

TEST_F(TriggerEventsTest, ANodeGoingDownFiresOnceAndARolledBackObservationIsSeenAgain) {
  const uint32_t id = Set(NodeDownTrigger());
  Store(core_->ObserveTriggers(false, now_));  // the first observation: no events
  std::vector<NodeChange> changes;
  Store(core_->UpdateNodes({"n1"}, "DOWN", "test", 0, now_, &changes));

  // The observation that saw n1 go down could not be stored: the next one
  // sees the same event.
  absl::StatusOr<Effects> lost = core_->ObserveTriggers(false, now_);
  ASSERT_TRUE(lost.ok());
  EXPECT_EQ(TriggerIds(*lost), std::vector<uint32_t>{id});
  core_->RollbackFrom(lost->frame);

  Effects seen = Store(core_->ObserveTriggers(false, now_));
  ASSERT_EQ(seen.intents.size(), 1u);
  const auto& fired = std::get<RunTriggerIntent>(seen.intents[0]);
  EXPECT_EQ(fired.trigger_id, id);
  EXPECT_EQ(fired.path, "/bin/prog");
  EXPECT_EQ(fired.argv, (std::vector<std::string>{"arg", "n1"}));
  EXPECT_EQ(fired.what, "node:down");
  // One-shot: gone, and its removal is a record.
  EXPECT_TRUE(core_->state().triggers().triggers().empty());
  EXPECT_EQ(TriggerIds(seen), std::vector<uint32_t>{id});
  EXPECT_TRUE(Store(core_->ObserveTriggers(false, now_)).intents.empty());
}

}  // namespace
}  // namespace skiff::ctld
