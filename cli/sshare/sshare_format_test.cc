#include "cli/sshare/sshare_format.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace skiff::cli {
namespace {

// The reply's figures for account (and user), added on first use.
v1::AssocUsage& UsageOf(v1::GetAccountsReply& reply, const std::string& account,
                        const std::string& user = "", const std::string& partition = "") {
  for (v1::AssocUsage& usage : *reply.mutable_assoc_usage()) {
    if (usage.key().account() == account && usage.key().user() == user &&
        usage.key().partition() == partition) {
      return usage;
    }
  }
  v1::AssocUsage& usage = *reply.add_assoc_usage();
  usage.mutable_key()->set_account(account);
  usage.mutable_key()->set_user(user);
  usage.mutable_key()->set_partition(partition);
  return usage;
}

// GrpTRESRaw or TRESRunMins with nothing used.
const std::string kNoTres =
    "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=0";

v1::AssocInfo Assoc(const std::string& account, const std::string& user, const std::string& parent,
                    int shares = 1) {
  v1::AssocInfo assoc;
  assoc.set_account(account);
  assoc.set_user(user);
  assoc.set_parent_account(parent);
  if (shares != 1) assoc.mutable_limits()->set_fairshare(shares);
  return assoc;
}

// root: {root/root, research: {research/alice, research/bob}}; alice used 3000
// billing-seconds, bob 1000; research holds 100 service units.
v1::GetAccountsReply Lab() {
  v1::GetAccountsReply reply;
  reply.set_cluster("lab");
  *reply.add_assocs() = Assoc("root", "", "");
  *reply.add_assocs() = Assoc("root", "root", "");
  *reply.add_assocs() = Assoc("research", "", "root");
  reply.mutable_assocs(2)->mutable_limits()->set_grp_billing_mins(100);
  *reply.add_assocs() = Assoc("research", "alice", "");
  *reply.add_assocs() = Assoc("research", "bob", "");
  UsageOf(reply, "root").set_norm_shares(1.0);
  UsageOf(reply, "root", "root").set_norm_shares(0.5);
  UsageOf(reply, "research").set_norm_shares(0.5);
  UsageOf(reply, "research", "alice").set_norm_shares(0.25);
  UsageOf(reply, "research", "bob").set_norm_shares(0.25);
  UsageOf(reply, "research", "alice").set_raw_usage(3000);
  UsageOf(reply, "research", "bob").set_raw_usage(1000);
  UsageOf(reply, "research").mutable_used_budget_mins()->set_billing(66.7);
  UsageOf(reply, "research").mutable_held_budget_mins()->set_billing(30);
  return reply;
}

TEST(Sshare, UsageIsNormalizedOverTheRootAndPulledTowardTheParent) {
  std::vector<client::ShareRow> rows = client::ComputeShares(Lab());
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].depth, 0);
  EXPECT_DOUBLE_EQ(rows[0].raw_usage, 4000);
  EXPECT_DOUBLE_EQ(rows[0].effective_usage, 1.0);
  EXPECT_EQ(rows[2].depth, 1);
  EXPECT_DOUBLE_EQ(rows[2].norm_usage, 1.0);
  // research: 1 + (1 - 1) * 1/2 = 1; alice: 0.75 + (1 - 0.75) * 1/2 = 0.875
  EXPECT_DOUBLE_EQ(rows[2].effective_usage, 1.0);
  EXPECT_EQ(rows[3].depth, 2);
  EXPECT_DOUBLE_EQ(rows[3].effective_usage, 0.875);
  EXPECT_DOUBLE_EQ(rows[3].fairshare, std::exp2(-0.875 / 0.25));
  // root/root used nothing: 0 + (1 - 0) * 1/2
  EXPECT_DOUBLE_EQ(rows[1].effective_usage, 0.5);
}

// A GPU-minutes budget beside service units: GrpTRESMins lists both in
// Slurm's TRES order, GrpTRESLeft what ended runs and live jobs left of them.
TEST(Sshare, BudgetsShowTheirLimitsAndWhatIsLeft) {
  v1::GetAccountsReply reply = Lab();
  reply.mutable_assocs(2)->mutable_limits()->mutable_grp_tres_mins()->set_gpu(600);
  v1::BudgetMinutes used;
  used.set_billing(66.7);
  used.set_gpu(450.5);
  *UsageOf(reply, "research").mutable_used_budget_mins() = used;
  v1::BudgetMinutes held;
  held.set_billing(30);
  held.set_gpu(120);
  *UsageOf(reply, "research").mutable_held_budget_mins() = held;
  SshareOptions options;
  options.all_users = true;
  options.parsable2 = true;
  options.no_header = true;
  options.format = "Account,User,GrpTRESMins,GrpTRESLeft";
  absl::StatusOr<std::string> out = FormatSshare(reply, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(out->find(" research||billing=100,gres/gpu=600|billing=3,gres/gpu=29\n"),
            std::string::npos)
      << *out;
  // Overdrawn cannot happen, but rounding never shows a negative.
  used.set_gpu(700);
  *UsageOf(reply, "research").mutable_used_budget_mins() = used;
  out = FormatSshare(reply, options);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find("|billing=3,gres/gpu=0\n"), std::string::npos) << *out;
}

TEST(Sshare, DefaultTableShowsTheTreeAndOnlyTheCallersUserLines) {
  SshareOptions options;
  options.caller = "alice";
  absl::StatusOr<std::string> out = FormatSshare(Lab(), options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  "
            "FairShare \n"
            "-------------------- ---------- ---------- ----------- ----------- ------------- "
            "---------- \n"
            "root                                          1.000000        4000      1.000000   "
            "0.500000 \n"
            " research                                1    0.500000        4000      1.000000   "
            "0.250000 \n"
            "  research                alice          1    0.250000        3000      0.875000   "
            "0.088388 \n");
}

TEST(Sshare, LongParsableAllUsersShowServiceUnits) {
  SshareOptions options;
  options.all_users = true;
  options.long_format = true;
  options.parsable2 = true;
  options.accounts = {"research"};
  absl::StatusOr<std::string> out = FormatSshare(Lab(), options);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|"
            "GrpTRESMins|TRESRunMins\n"
            " research||1|0.500000|4000|1.000000|1.000000|0.250000|billing=100|"
            "cpu=0,mem=0,energy=0,node=0,billing=30,fs/disk=0,vmem=0,pages=0,gres/gpu=0\n"
            "  research|alice|1|0.250000|3000|0.750000|0.875000|0.088388||" +
                kNoTres + "\n  research|bob|1|0.250000|1000|0.250000|0.625000|0.176777||" +
                kNoTres + "\n");
}

TEST(Sshare, FormatFieldsByPrefixAndBadOnesNamed) {
  SshareOptions options;
  options.all_users = true;
  options.users_only = true;
  options.no_header = true;
  options.parsable = true;
  options.format = "acc,u,grptresraw";
  absl::StatusOr<std::string> out = FormatSshare(Lab(), options);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, absl::StrCat(" root|root|", kNoTres, "|\n  research|alice|", kNoTres,
                               "|\n  research|bob|", kNoTres, "|\n"));
  options.format = "Account,Bogus";
  EXPECT_EQ(FormatSshare(Lab(), options).status().message(), "Invalid field requested: \"Bogus\"");
}

TEST(Sshare, GpuMinutesShowInGrpTresRawAndTresRunMinsUpTheTree) {
  v1::GetAccountsReply reply = Lab();
  // alice's ended runs: 2 GPUs x 90 s (3 GPU-minutes) and 1 typed a100 minute;
  // bob's running job holds 1 GPU for 10 more minutes.
  auto& alice = *UsageOf(reply, "research", "alice").mutable_used_tres_mins()->mutable_amounts();
  alice["cpu"] = 1.5;
  alice["gres/gpu"] = 3;
  alice["gres/gpu:a100"] = 1;
  alice["billing"] = 999;  // the charged figure (used_budget_mins) is what shows
  v1::Tres* run = UsageOf(reply, "research", "bob").mutable_in_use()->mutable_running_tres_secs();
  run->set_cpu(1200);
  run->set_gpu(600);
  UsageOf(reply, "research", "alice").mutable_used_budget_mins()->set_billing(7.5);
  SshareOptions options;
  options.all_users = true;
  options.no_header = true;
  options.parsable2 = true;
  options.format = "Account,User,GrpTRESRaw,TRESRunMins";
  absl::StatusOr<std::string> out = FormatSshare(reply, options);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string gpus = "fs/disk=0,vmem=0,pages=0,gres/gpu=3,gres/gpu:a100=1";
  EXPECT_EQ(
      *out,
      absl::StrCat(
          "root||cpu=1,mem=0,energy=0,node=0,billing=0,", gpus, "|", kNoTres, "\n", " root|root|",
          kNoTres, "|", kNoTres, "\n", " research||cpu=1,mem=0,energy=0,node=0,billing=66,", gpus,
          "|cpu=0,mem=0,energy=0,node=0,billing=30,fs/disk=0,vmem=0,pages=0,"
          "gres/gpu=0\n",
          "  research|alice|cpu=1,mem=0,energy=0,node=0,billing=7,", gpus, "|", kNoTres, "\n",
          "  research|bob|", kNoTres, "|",
          "cpu=20,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=10\n"));
}

}  // namespace
}  // namespace skiff::cli
