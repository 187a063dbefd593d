#include "ctld/core/account_policy.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

AccountPolicy LabPolicy() {
  AccountPolicy policy;
  policy.enforce = *ParseEnforcement("associations,limits,qos");
  policy.accounts["root"] = {};
  policy.accounts["research"] = {"root", kNoAssocLimit, 3, {}};
  policy.default_account["alice"] = "research";
  UserAssoc alice;
  alice.account = "research";
  alice.user = "alice";
  alice.qos = {"normal", "low"};
  alice.default_qos = "low";
  alice.max_wall = 3600;
  alice.max_submit_jobs = 2;
  alice.max_tres_per_job.gpus = 1;
  policy.users.push_back(alice);
  return policy;
}

Job AliceJob() {
  Job job;
  job.user_name = "alice";
  job.account = "research";
  job.qos = "normal";
  job.request.partition = "gpu";
  job.request.time_limit = 600;
  return job;
}

TEST(AccountPolicy, ParsesEnforcementWordsAndTheirImplications) {
  Enforcement e = *ParseEnforcement("limits");
  EXPECT_TRUE(e.associations);
  EXPECT_TRUE(e.limits);
  EXPECT_FALSE(e.qos);
  e = *ParseEnforcement("safe,qos");
  EXPECT_TRUE(e.safe && e.limits && e.qos && e.associations);
  e = *ParseEnforcement("");
  EXPECT_FALSE(e.associations);
  EXPECT_FALSE(ParseEnforcement("associations,bogus").ok());
}

TEST(AccountPolicy, FillsDefaultAccountAndTheAssociationsDefaultQos) {
  AccountPolicy policy = LabPolicy();
  std::string account, qos;
  FillAccountDefaults(policy, "alice", &account, &qos);
  EXPECT_EQ(account, "research");
  EXPECT_EQ(qos, "low");
  account = "Research";
  qos = "normal";
  FillAccountDefaults(policy, "alice", &account, &qos);
  EXPECT_EQ(account, "research");  // lower case, as stored
  EXPECT_EQ(qos, "normal");        // named: kept
  account.clear();
  qos.clear();
  FillAccountDefaults(policy, "bob", &account, &qos);
  EXPECT_EQ(account, "");
}

TEST(AccountPolicy, RefusesWithoutAnAssociationOrWithAQosNotAllowed) {
  AccountPolicy policy = LabPolicy();
  EXPECT_TRUE(CheckAssociation(policy, AliceJob(), 1, {}).ok());
  Job other_account = AliceJob();
  other_account.account = "physics";
  EXPECT_EQ(CheckAssociation(policy, other_account, 1, {}).message(),
            "Invalid account or account/partition combination specified");
  Job bob = AliceJob();
  bob.user_name = "bob";
  EXPECT_FALSE(CheckAssociation(policy, bob, 1, {}).ok());
  Job high = AliceJob();
  high.qos = "high";
  EXPECT_EQ(CheckAssociation(policy, high, 1, {}).message(), "Invalid qos specification");
  policy.enforce.associations = false;
  policy.enforce.qos = false;
  policy.enforce.limits = false;
  EXPECT_TRUE(CheckAssociation(policy, bob, 1, {}).ok());
}

TEST(AccountPolicy, SubmitLimitsRefuseWithSlurmsPolicyMessage) {
  AccountPolicy policy = LabPolicy();
  const std::string violation =
      "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
  Job too_long = AliceJob();
  too_long.request.time_limit = 7200;
  EXPECT_EQ(CheckAssociation(policy, too_long, 1, {}).message(), violation);
  Job unlimited = AliceJob();
  unlimited.request.time_limit = kUnlimited;
  EXPECT_EQ(CheckAssociation(policy, unlimited, 1, {}).message(), violation);
  Job two_gpus = AliceJob();
  two_gpus.request.gpus_per_node = 2;
  EXPECT_EQ(CheckAssociation(policy, two_gpus, 1, {}).message(), violation);

  SubmitCounts counts;
  counts.by_assoc[AssocKey::User("research", "alice")] = 1;
  EXPECT_TRUE(CheckAssociation(policy, AliceJob(), 1, counts).ok());
  EXPECT_EQ(CheckAssociation(policy, AliceJob(), 2, counts).message(),
            violation);  // MaxSubmitJobs=2
  counts.by_assoc.clear();
  counts.by_account["research"] = 3;  // GrpSubmitJobs=3 on the account
  EXPECT_EQ(CheckAssociation(policy, AliceJob(), 1, counts).message(), violation);
}

// An operator's update (scontrol update as root, SlurmUser or an admin) needs
// the association to exist, and nothing more: Slurm's _update_job.
TEST(AccountPolicy, AnOperatorsUpdateNeedsOnlyTheAssociation) {
  AccountPolicy policy = LabPolicy();
  Job high_and_long = AliceJob();
  high_and_long.qos = "high";
  high_and_long.request.time_limit = kUnlimited;
  EXPECT_EQ(CheckAssociation(policy, high_and_long, 1, {}).message(), "Invalid qos specification");
  EXPECT_TRUE(CheckAssociation(policy, high_and_long, 1, {}, AssocChecks::kExistence).ok());
  Job other_account = AliceJob();
  other_account.account = "physics";
  EXPECT_EQ(CheckAssociation(policy, other_account, 1, {}, AssocChecks::kExistence).message(),
            "Invalid account or account/partition combination specified");
}

TEST(AccountPolicy, CountsEveryAncestorOfAJobsAccount) {
  AccountPolicy policy = LabPolicy();
  Job a = AliceJob();
  SubmitCounts counts = CountSubmitted(policy, {&a, &a});
  EXPECT_EQ(counts.by_assoc[AssocKey::User("research", "alice")], 2);
  EXPECT_EQ(counts.by_account["research"], 2);
  EXPECT_EQ(counts.by_account["root"], 2);
  EXPECT_EQ(policy.Lineage("research"), (std::vector<std::string>{"research", "root"}));
}

// Issue 47, item 15: a QOS with a budget is spent only by associations whose
// QOS list allows it, even without AccountingStorageEnforce=qos.
TEST(AccountPolicy, AQosBudgetIsSpentOnlyByAssociationsAllowedIt) {
  AccountPolicy policy = LabPolicy();
  policy.enforce = *ParseEnforcement("associations,limits");
  Job funded = AliceJob();
  funded.qos = "funded";
  EXPECT_TRUE(CheckAssociation(policy, funded, 1, {}).ok());  // any QOS, as in Slurm
  policy.budget_qos = {"funded"};
  EXPECT_EQ(CheckAssociation(policy, funded, 1, {}).message(),
            "Invalid qos specification (QOS funded has a GrpTRESMins budget; association "
            "research/alice may not use it)");
  policy.users[0].qos.push_back("funded");
  EXPECT_TRUE(CheckAssociation(policy, funded, 1, {}).ok());
  // An operator's update is held to the association's existence only.
  policy.users[0].qos.pop_back();
  EXPECT_TRUE(CheckAssociation(policy, funded, 1, {}, AssocChecks::kExistence).ok());
}

}  // namespace
}  // namespace skiff::ctld
