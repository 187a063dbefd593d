// sacctmgr's tables and job steps as lifecycle events: one journaled frame per
// change with typed records, views kept in step with the tables (rollbacks
// included), privileges decided in the core.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

constexpr uint32_t kRoot = 0;

class AccountingEventsTest : public LifecycleTest {
 protected:
  void SetUp() override {
    LifecycleTest::SetUp();
    StoredRecords records;
    records.qos["normal"] = QosWithDefaults("normal");
    records.qos["normal"].id = 1;
    records.accounts = InitialAccounts();
    core_->Load({}, 0, std::move(records));
  }

  QosUpdate AddQos(std::vector<std::string> names) {
    QosUpdate update;
    update.op = QosOp::kAdd;
    update.names = std::move(names);
    return update;
  }

  std::vector<std::string> ViewNames() {
    std::vector<std::string> names;
    for (const Qos& qos : core_->qos()) names.push_back(qos.name);
    return names;
  }

  Caller root_{kRoot, 0};
};

TEST_F(AccountingEventsTest, OnlyPrivilegedCallersChangeQos) {
  std::vector<std::string> affected;
  absl::StatusOr<Effects> refused =
      core_->UpdateQos(Caller{1001, 1001}, false, AddQos({"high"}), now_, &affected);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(core_->state().qos().count("high"), 0u);
  EXPECT_FALSE(core_->in_transaction());
}

TEST_F(AccountingEventsTest, AddingTwoQosIsOneFrameWithBothRowsAndTheSchedulerSeesThem) {
  std::vector<std::string> affected;
  absl::StatusOr<Effects> added =
      core_->UpdateQos(root_, true, AddQos({"high", "low"}), now_, &affected);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_NE(added->frame, 0u);
  ASSERT_EQ(added->records.size(), 2u);
  for (const RecordChange& change : added->records) {
    const auto* qos = std::get_if<QosChange>(&change);
    ASSERT_NE(qos, nullptr);
    EXPECT_TRUE(qos->qos.has_value());
  }
  EXPECT_EQ(affected, (std::vector<std::string>{"high", "low"}));
  EXPECT_EQ(ViewNames(), (std::vector<std::string>{"high", "low", "normal"}));
  EXPECT_TRUE(added->reschedule);

  // Not stored: the tables and the scheduler's view are as before.
  core_->RollbackFrom(added->frame);
  EXPECT_EQ(core_->state().qos().count("high"), 0u);
  EXPECT_EQ(ViewNames(), (std::vector<std::string>{"normal"}));
}

TEST_F(AccountingEventsTest, AQosInUseCannotBeDeletedAndNothingChanges) {
  std::vector<std::string> affected;
  Store(core_->UpdateQos(root_, true, AddQos({"high"}), now_, &affected));
  SubmitRequest request = Request();
  request.qos = "high";
  Submit(request);
  QosUpdate remove;
  remove.op = QosOp::kDelete;
  remove.names = {"high"};
  absl::StatusOr<Effects> refused = core_->UpdateQos(root_, true, remove, now_, &affected);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(core_->state().qos().count("high"), 1u);
  EXPECT_FALSE(core_->in_transaction());
}

TEST_F(AccountingEventsTest, AccountsChangeIsOneRecordAndRollsBackWhole) {
  AccountsUpdate add;
  add.op = AccountsOp::kAddAccount;
  add.names = {"lab"};
  add.parent = "root";
  AccountsAffected affected;
  absl::StatusOr<Effects> added = core_->UpdateAccounts(root_, true, add, {}, now_, &affected);
  ASSERT_TRUE(added.ok()) << added.status();
  ASSERT_EQ(added->records.size(), 1u);
  const auto* change = std::get_if<AccountsChange>(&added->records[0]);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->diff.accounts.count("lab"), 1u);
  EXPECT_EQ(core_->state().accounts().accounts.count("lab"), 1u);

  core_->RollbackFrom(added->frame);
  EXPECT_EQ(core_->state().accounts().accounts.count("lab"), 0u);

  EXPECT_EQ(
      core_->UpdateAccounts(Caller{1001, 1001}, false, add, {}, now_, &affected).status().code(),
      absl::StatusCode::kPermissionDenied);
}

TEST_F(AccountingEventsTest, OnlyTheStepManagerReportsStepsAndARollbackForgetsThem) {
  const uint64_t id = Submit(Request());
  Drive(Schedule());
  ASSERT_EQ(StateOf(id), JobState::kRunning);
  const std::string first = core_->Find(id)->nodes.front();
  StepRecord step;
  step.step_id = "0";
  step.state = "RUNNING";
  Effects stranger = core_->ReportSteps(first == "n1" ? "n2" : "n1", {{id, step}}, {}, now_);
  EXPECT_TRUE(stranger.records.empty());
  ASSERT_EQ(stranger.log.size(), 1u);
  EXPECT_NE(stranger.log[0].find("not the job's step manager: dropped"), std::string::npos);

  Effects taken = core_->ReportSteps(first, {{id, step}}, {}, now_);
  ASSERT_EQ(taken.records.size(), 1u);
  EXPECT_EQ(core_->state().steps().size(), 1u);
  core_->RollbackFrom(taken.frame);
  EXPECT_EQ(core_->state().steps().size(), 0u);

  // A purged job's steps are taken from its stored first node.
  Store(core_->ReportSteps("n9", {{777, step}}, {{777, "n9"}}, now_));
  EXPECT_EQ(core_->state().steps().size(), 1u);
  // ...and forgotten by housekeeping, since job 777 is not running here.
  core_->RetainStepsOfRunningJobs();
  EXPECT_EQ(core_->state().steps().size(), 0u);
}

}  // namespace
}  // namespace skiff::ctld
