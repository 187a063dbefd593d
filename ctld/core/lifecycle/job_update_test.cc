// scontrol update through the core: all or nothing, what users may change,
// and the admission checks an update goes through again.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle_test_util.h"

namespace skiff::ctld {
namespace {

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

// -L at submit and by update against Licenses=: what a job holds while it
// runs (LicenseUsages, scontrol show licenses), a job short of a license
// waits with Licenses, and every change is checked as at submit.
TEST_F(LifecycleTest, LicensesAreCheckedHeldAndWaitedFor) {
  config_.licenses = {{"matlab", 1}, {"fluent", 2}};
  Reset();
  SubmitRequest wants = Request();
  wants.licenses = "matlab";
  const uint64_t first = Submit(wants);
  const uint64_t second = Submit(wants);
  Drive(Schedule());
  EXPECT_EQ(StateOf(first), JobState::kRunning);
  EXPECT_EQ(StateOf(second), JobState::kPending);
  EXPECT_EQ(core_->Find(second)->reason, "Licenses");
  EXPECT_EQ(store_[first].request.licenses_text, "matlab");
  std::vector<Lifecycle::LicenseUsage> usage = core_->LicenseUsages();
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0].name, "matlab");
  EXPECT_EQ(usage[0].total, 1);
  EXPECT_EQ(usage[0].used, 1);
  EXPECT_EQ(usage[1].used, 0);

  for (const char* bad : {"matlab:2", "ansys", "matlab:x"}) {
    SubmitRequest refused = Request();
    refused.licenses = bad;
    EXPECT_EQ(core_->Admit(refused, now_).status().message(), "Invalid license specification")
        << bad;
  }
  JobUpdate update;
  update.job_id = second;
  update.licenses = "fluent:3";
  EXPECT_EQ(core_->Update({1001, 1001}, false, update, now_).status().message(),
            "Invalid license specification");
  update.licenses = "fluent:2";
  Store(core_->Update({1001, 1001}, false, update, now_));
  EXPECT_EQ(store_[second].request.licenses_text, "fluent:2");
  Drive(Schedule());
  EXPECT_EQ(StateOf(second), JobState::kRunning);
  // A running job's licenses are an operator's to change.
  update.licenses = "";
  EXPECT_EQ(core_->Update({1001, 1001}, false, update, now_).status().message(),
            "Job is no longer pending execution");
  Store(core_->Update({0, 0}, true, update, now_));
  EXPECT_EQ(core_->LicenseUsages()[1].used, 0);
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

// Issue 32: with AccountingStorageEnforce=associations,limits,qos, sbatch -A
// lab2 and -q special were refused but scontrol update Account=lab2
// QOS=special on one's own pending job was accepted, and the job ran charged
// to lab2. An update goes through admission's association, QOS and limit rules.
TEST_F(LifecycleTest, UpdatesGoThroughTheAssociationAndQosChecks) {
  Qos special{"special"};
  Qos small{"small"};
  small.max_submit_jobs_per_user = 1;
  core_->SetQosViewForTest({Qos{"normal"}, special, small});
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
  core_->SetAccountPolicyForTest(policy);

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

}  // namespace
}  // namespace skiff::ctld
