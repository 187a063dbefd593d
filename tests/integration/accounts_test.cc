// Accounts and associations enforced through the real daemons
// (AccountingStorageEnforce=associations,limits,qos): who may submit under
// which account and QOS, the default account, association limits at submit and
// in the scheduler, admin levels, and the tables surviving a ctld restart.
// The accounts are set up with raw UpdateAccounts calls (sacctmgr's own tests
// cover its command line). Runs as root: it creates test users.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/accounts_usage.h"
#include "common/config/config_loader.h"
#include "common/rpc/auth_metadata.h"
#include "proto/ctld.grpc.pb.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

class AccountsTest : public ::testing::Test {
 protected:
  void SetUp() override { StartCluster("associations,limits,qos"); }

  void StartCluster(const std::string& enforce, const std::string& extra_config = "",
                    int gpu_nodes = 0) {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    LocalCluster::Options options = NodesWithGpus(2, gpu_nodes);
    options.extra_config =
        absl::StrCat("AccountingStorageEnforce=", enforce, "\nClusterName=lab\n", extra_config);
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    EnsureUsers(*cluster_, {kAlice, kBob});
    if (HasFatalFailure()) return;
    Connect();
  }

  // A new channel: after a ctld restart the old one may be backing off longer
  // than a call's deadline.
  void Connect() {
    auto config = LoadConfig(cluster_->conf_path());
    ASSERT_TRUE(config.ok()) << config.status();
    munge_socket_ = config->skiff.auth_socket;
    stub_ = v1::Ctld::NewStub(
        grpc::CreateChannel(absl::StrCat(config->skiff.ctld_addr, ":", config->skiff.ctld_port),
                            grpc::InsecureChannelCredentials()));
  }

  void Context(const std::string& user, grpc::ClientContext* context) {
    const std::string mint = absl::StrCat("munge -n -S ", munge_socket_);
    const CommandResult cred =
        RunShell(user == "root" ? mint : absl::StrCat("runuser -u ", user, " -- ", mint));
    EXPECT_EQ(cred.exit_code, 0) << cred.err;
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    // After a ctld restart the channel may still be backing off: wait for it.
    context->set_wait_for_ready(true);
    context->AddMetadata(kCredentialMetadataKey,
                         std::string(absl::StripTrailingAsciiWhitespace(cred.out)));
  }

  grpc::Status UpdateAs(const std::string& user, const v1::UpdateAccountsRequest& request) {
    grpc::ClientContext context;
    Context(user, &context);
    v1::UpdateAccountsReply reply;
    return stub_->UpdateAccounts(&context, request, &reply);
  }

  v1::GetAccountsReply Accounts() {
    grpc::ClientContext context;
    Context("root", &context);
    v1::GetAccountsReply reply;
    EXPECT_TRUE(stub_->GetAccounts(&context, {}, &reply).ok());
    return reply;
  }

  // account research; alice in it with QOS normal,low (default low), MaxJobs=1,
  // MaxSubmitJobs=3.
  void AddResearch() {
    ASSERT_EQ(cluster_->Run("sacctmgr -i add qos low,high").exit_code, 0);
    v1::UpdateAccountsRequest account;
    account.set_op(v1::UpdateAccountsRequest::ADD_ACCOUNT);
    account.add_names("research");
    ASSERT_TRUE(UpdateAs("root", account).ok());
    v1::UpdateAccountsRequest user;
    user.set_op(v1::UpdateAccountsRequest::ADD_USER);
    user.add_names(kAlice);
    user.add_accounts("research");
    user.add_qos("normal");
    user.add_qos("low");
    user.set_qos_op("=");
    user.set_default_qos("low");
    user.mutable_limits()->set_max_jobs(1);
    user.mutable_limits()->set_max_submit_jobs(3);
    const grpc::Status status = UpdateAs("root", user);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  std::string Show(const std::string& id) {
    return cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  }

  std::unique_ptr<LocalCluster> cluster_;
  std::string munge_socket_;
  std::unique_ptr<v1::Ctld::Stub> stub_;
};

TEST_F(AccountsTest, OnlyUsersWithAnAssociationSubmitUnderItsAccountAndQos) {
  AddResearch();
  const CommandResult bob = cluster_->RunAs(kBob, "sbatch --wrap true");
  EXPECT_EQ(bob.exit_code, 1);
  EXPECT_EQ(bob.err,
            "sbatch: error: Batch job submission failed: Invalid account or account/partition "
            "combination specified\n");
  const CommandResult other = cluster_->RunAs(kAlice, "sbatch -A physics --wrap true");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(other.err, "Invalid account or account/partition")) << other.err;
  const CommandResult high = cluster_->RunAs(kAlice, "sbatch -q high --wrap true");
  EXPECT_EQ(high.exit_code, 1);
  EXPECT_EQ(high.err, "sbatch: error: Batch job submission failed: Invalid qos specification\n");

  // No -A, no -q: the user's default account and the association's default QOS.
  const CommandResult ok = cluster_->RunAs(
      kAlice, "sbatch --parsable -o acct.out --wrap 'echo account=$SLURM_JOB_ACCOUNT'");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(ok.out));
  const std::string shown = Show(id);
  EXPECT_TRUE(absl::StrContains(shown, "Account=research QOS=low")) << shown;
  ASSERT_TRUE(Eventually(30, [&] { return absl::StrContains(Show(id), "JobState=COMPLETED"); }));
  EXPECT_EQ(ReadFile(absl::StrCat(cluster_->dir(), "/home/", kAlice, "/acct.out")),
            "account=research\n");
}

TEST_F(AccountsTest, AssociationLimitsRefuseAtSubmitAndHoldInTheQueue) {
  AddResearch();
  const CommandResult first = cluster_->RunAs(kAlice, "sbatch --parsable --wrap 'sleep 60'");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const CommandResult second = cluster_->RunAs(kAlice, "sbatch --parsable --wrap 'sleep 60'");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::string second_id(absl::StripTrailingAsciiWhitespace(second.out));
  // MaxJobs=1: the second waits with Slurm's reason.
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Show(second_id), "Reason=AssocMaxJobsLimit");
  })) << Show(second_id);
  EXPECT_EQ(cluster_->RunAs(kAlice, "sbatch --wrap 'sleep 60'").exit_code, 0);
  // MaxSubmitJobs=3: a fourth is refused.
  const CommandResult fourth = cluster_->RunAs(kAlice, "sbatch --wrap 'sleep 60'");
  EXPECT_EQ(fourth.exit_code, 1);
  EXPECT_EQ(fourth.err,
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job "
            "submit limit, user's size and/or time limits)\n");
  // scontrol show assoc_mgr shows the limits with what the jobs hold, and the
  // same associations as sacctmgr show assoc.
  const CommandResult mgr = cluster_->Run("scontrol -o show assoc_mgr flags=assoc");
  ASSERT_EQ(mgr.exit_code, 0) << mgr.err;
  std::string mgr_assocs, alice_line, research_line;
  for (absl::string_view line : absl::StrSplit(mgr.out, '\n', absl::SkipEmpty())) {
    if (!absl::StartsWith(line, "ClusterName=lab ")) continue;
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    const std::string account = words[1].substr(strlen("Account="));
    std::string user = words[2].substr(strlen("UserName="));
    user = user.substr(0, user.find('('));
    absl::StrAppend(&mgr_assocs, account, "|", user, "\n");
    if (account == "research" && user == kAlice) alice_line = std::string(line);
    if (account == "research" && user.empty()) research_line = std::string(line);
  }
  EXPECT_EQ(mgr_assocs, cluster_->Run("sacctmgr -n -P show assoc format=Account,User").out);
  EXPECT_TRUE(absl::StrContains(alice_line, " MaxJobs=1(1) MaxJobsAccrue= MaxSubmitJobs=3(3) "))
      << mgr.out;
  EXPECT_TRUE(absl::StrContains(alice_line, " DefAssoc=Yes ")) << mgr.out;
  EXPECT_TRUE(absl::StrContains(research_line, " GrpJobs=N(1) ")) << mgr.out;
  EXPECT_TRUE(absl::StrContains(research_line, " GrpSubmitJobs=N(3) ")) << mgr.out;
  EXPECT_TRUE(absl::StrContains(research_line, " GrpTRES=cpu=N(1),")) << mgr.out;
  const CommandResult bad = cluster_->Run("scontrol show assoc_mgr flags=jobs");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "invalid flag 'jobs', valid options are 'Assoc, QOS, and/or Users'\n");
  // Raising the limit lets the second start, with no restart.
  v1::UpdateAccountsRequest raise;
  raise.set_op(v1::UpdateAccountsRequest::MODIFY_USER);
  raise.add_names(kAlice);
  raise.mutable_limits()->set_max_jobs(-1);
  ASSERT_TRUE(UpdateAs("root", raise).ok());
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Show(second_id), "JobState=RUNNING");
  })) << Show(second_id);
  cluster_->Run("scancel -u " + std::string(kAlice));
}

TEST_F(AccountsTest, SacctmgrBuildsTheReferenceTree) {
  auto ok = [&](const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
    return r.out;
  };
  ok("sacctmgr -i add qos low,high");
  EXPECT_EQ(ok("sacctmgr -i add account research"),
            " Adding Account(s)\n  research\n Settings\n  Description     = Account Name\n"
            "  Organization    = Parent/Account Name\n Associations\n"
            "  A = research   C = lab       \n");
  ok(absl::StrCat("sacctmgr -i add user ", kAlice,
                  " account=research qos=normal,low "
                  "defaultqos=normal"));
  ok("sacctmgr -i add user root account=research qos=normal,low,high defaultqos=normal");
  // Users by name, as Slurm lists them (root before skiffalice here).
  EXPECT_EQ(ok("sacctmgr show assoc format=Cluster,Account,User,QOS,DefaultQOS"),
            "   Cluster    Account       User                  QOS   Def QOS \n"
            "---------- ---------- ---------- -------------------- --------- \n"
            "       lab       root                          normal           \n"
            "       lab       root       root               normal           \n"
            "       lab   research                          normal           \n"
            "       lab   research       root      high,low,normal    normal \n"
            "       lab   research skiffalice           low,normal    normal \n");
  // What workflow managers run to check that a user may charge an account.
  EXPECT_EQ(ok(absl::StrCat("sacctmgr -n -s list user ", kAlice, " format=account%20")),
            "            research \n");
  EXPECT_EQ(
      ok(absl::StrCat("sacctmgr -n -P --associations list user ", kAlice, " format=User,Account")),
      absl::StrCat(kAlice, "|research\n"));
  ok(absl::StrCat("sacctmgr -i modify user where name=", kAlice, " set MaxJobs=2"));
  EXPECT_EQ(ok(absl::StrCat("sacctmgr -n -P show assoc where user=", kAlice,
                            " format=Account,User,MaxJobs")),
            absl::StrCat("research|", kAlice, "|2\n"));
  const CommandResult refused = cluster_->RunAs(kBob, "sacctmgr -i add account physics");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(refused.err, "Your user doesn't have privilege")) << refused.err;
  EXPECT_EQ(ok("sacctmgr -n -P show account format=Account"), "research\nroot\n");
  const CommandResult gone = cluster_->Run("sacctmgr -i delete account research");
  EXPECT_EQ(gone.exit_code, 1);  // alice's default account
  EXPECT_TRUE(absl::StrContains(gone.err, "default account")) << gone.err;
}

TEST_F(AccountsTest, OnlyAdminsChangeAccountsAndTheTablesSurviveARestart) {
  AddResearch();
  v1::UpdateAccountsRequest add;
  add.set_op(v1::UpdateAccountsRequest::ADD_ACCOUNT);
  add.add_names("physics");
  EXPECT_EQ(UpdateAs(kAlice, add).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  v1::UpdateAccountsRequest promote;
  promote.set_op(v1::UpdateAccountsRequest::MODIFY_USER);
  promote.add_names(kAlice);
  promote.set_admin_level("Operator");
  ASSERT_TRUE(UpdateAs("root", promote).ok());
  const grpc::Status as_operator = UpdateAs(kAlice, add);
  EXPECT_TRUE(as_operator.ok()) << as_operator.error_message();

  const pid_t ctld = cluster_->Pid("ctld");
  ASSERT_GT(ctld, 0);
  kill(ctld, SIGKILL);
  ASSERT_TRUE(Eventually(30, [&] { return kill(ctld, 0) != 0; }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  Connect();
  const v1::GetAccountsReply reply = Accounts();
  std::vector<std::string> rows;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    rows.push_back(assoc.account() + "/" + assoc.user());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"root/", "root/root", "physics/", "research/",
                                            absl::StrCat("research/", kAlice)}));
  // The promotion survived too: alice still administers.
  v1::UpdateAccountsRequest remove;
  remove.set_op(v1::UpdateAccountsRequest::DELETE_ACCOUNT);
  remove.add_names("physics");
  EXPECT_TRUE(UpdateAs(kAlice, remove).ok());
}

// Service units: account "grant" holds 100 billing-minutes; each job asks for
// 30 minutes of one CPU (30 units at most).
class BankTest : public AccountsTest {
 protected:
  void SetUp() override {}

  void AddGrant() {
    v1::UpdateAccountsRequest account;
    account.set_op(v1::UpdateAccountsRequest::ADD_ACCOUNT);
    account.add_names("grant");
    account.mutable_limits()->set_grp_billing_mins(100);
    ASSERT_TRUE(UpdateAs("root", account).ok());
    v1::UpdateAccountsRequest user;
    user.set_op(v1::UpdateAccountsRequest::ADD_USER);
    user.add_names(kAlice);
    user.add_accounts("grant");
    ASSERT_TRUE(UpdateAs("root", user).ok());
  }

  // Jobs of the account that hold resources now.
  int Running() {
    const CommandResult r = cluster_->Run("squeue -h -A grant -t R,CF -o %i");
    return static_cast<int>(std::count(r.out.begin(), r.out.end(), '\n'));
  }

  // What the ended runs of `ids` actually cost: CPUs x elapsed minutes.
  double ActualCost() {
    v1::GetAccountingRequest request;
    request.add_accounts("grant");
    request.set_steps(false);
    grpc::ClientContext context;
    Context("root", &context);
    v1::GetAccountingReply reply;
    EXPECT_TRUE(stub_->GetAccounting(&context, request, &reply).ok());
    double cost = 0;
    for (const v1::AcctJob& job : reply.jobs()) {
      if (job.start_time() == 0) continue;
      cost += job.alloc_cpus() * static_cast<double>(job.end_time() - job.start_time()) / 60.0;
    }
    return cost;
  }

  double GrantHeld() {
    const v1::GetAccountsReply reply = Accounts();
    return client::AccountsUsage(reply).Of(AssocKey::Account("grant")).held_budget_mins().billing();
  }

  std::string GrantUsed() {
    const v1::GetAccountsReply reply = Accounts();
    const v1::AssocUsage& grant = client::AccountsUsage(reply).Of(AssocKey::Account("grant"));
    return grant.has_used_budget_mins() ? absl::StrCat(grant.used_budget_mins().billing()) : "none";
  }
};

TEST_F(BankTest, NeverStartsMoreThanTheAccountHoldsAndChargesWhatRunsUsed) {
  StartCluster("associations,limits");
  AddGrant();
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) {
    const CommandResult r =
        cluster_->RunAs(kAlice, "sbatch --parsable -A grant -t 30 --wrap 'sleep 4'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.emplace_back(absl::StripTrailingAsciiWhitespace(r.out));
  }
  // 4 CPUs are free, but 100 units allow three 30-unit jobs at a time.
  ASSERT_TRUE(Eventually(30, [&] { return Running() == 3; }));
  // The waiting jobs' reason is set by the scheduler's next pass.
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Show(ids.back()), "Reason=AssocGrpBillingMinutes");
  })) << Show(ids.back());
  int most = 0;
  bool restarted = false;
  ASSERT_TRUE(Eventually(120, [&] {
    most = std::max(most, Running());
    if (!restarted) {
      // A ctld killed mid-way neither forgets nor repeats a charge.
      restarted = true;
      const pid_t ctld = cluster_->Pid("ctld");
      kill(ctld, SIGKILL);
      Eventually(30, [&] { return kill(ctld, 0) != 0; });
      EXPECT_EQ(cluster_->Up().exit_code, 0);
      Connect();
    }
    const CommandResult left = cluster_->Run("squeue -h -A grant -o %i");
    return left.exit_code == 0 && left.out.empty();
  }));
  EXPECT_LE(most, 3);
  double used = 0;
  ASSERT_TRUE(absl::SimpleAtod(GrantUsed(), &used)) << GrantUsed();
  EXPECT_NEAR(used, ActualCost(), 1.0 / 60) << "charged " << used;
  EXPECT_GT(used, 8 * 3.0 / 60);  // every job slept at least 4 s

  // sshare: the allocation and what was used, and the usage in CPU-seconds.
  const CommandResult share =
      cluster_->Run("sshare -a -A grant -P -n -o Account,User,GrpTRESMins,GrpTRESRaw,RawUsage");
  ASSERT_EQ(share.exit_code, 0) << share.err;
  const std::vector<std::string> lines = absl::StrSplit(share.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << share.out;
  // GrpTRESRaw lists every TRES as Slurm's sshare does; billing is what was charged.
  const std::vector<std::string> grant = absl::StrSplit(lines[0], '|');
  ASSERT_EQ(grant.size(), 5u) << share.out;
  EXPECT_EQ(grant[0], " grant");
  EXPECT_EQ(grant[2], "billing=100");
  EXPECT_TRUE(absl::StartsWith(grant[3], "cpu=")) << grant[3];
  EXPECT_TRUE(absl::StrContains(grant[3], absl::StrCat(",billing=", static_cast<int>(used), ",")))
      << grant[3];
  EXPECT_EQ(grant[4], absl::StrCat(std::llround(ActualCost() * 60))) << share.out;
  EXPECT_TRUE(absl::StartsWith(lines[1], absl::StrCat("  grant|", kAlice, "||cpu="))) << share.out;
}

TEST_F(BankTest, SafeRefusesAtSubmitWhatCouldOverdrawWithTwentySubmittedAtOnce) {
  StartCluster("associations,limits,safe");
  AddGrant();
  const CommandResult burst = cluster_->RunAs(
      kAlice,
      "for i in $(seq 20); do (sbatch --parsable -A grant -t 30 --wrap 'sleep 30' >> ok.txt "
      "2>> refused.txt) & done; wait");
  const std::string home = absl::StrCat(cluster_->dir(), "/home/", kAlice);
  const std::string accepted = ReadFile(home + "/ok.txt");
  const std::string refused = ReadFile(home + "/refused.txt");
  EXPECT_EQ(std::count(accepted.begin(), accepted.end(), '\n'), 3) << accepted << refused;
  // Refusals, beside the warning the last accepted ones print (their most is
  // over half of what is left).
  const std::vector<std::string> errors = absl::StrSplit(refused, "sbatch: error:");
  EXPECT_EQ(errors.size(), 18u) << refused;
  EXPECT_TRUE(absl::StrContains(
      refused,
      "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job "
      "submit limit, user's size and/or time limits): AssocGrpBillingMinutes: account grant has "
      "8.5 of 100.0 billing-minutes left (used 0.0, held by jobs 91.5); this job may use 30.5"))
      << refused;
  // Each holds its limit and KillWait (30 s): what it may run if it ignores SIGTERM.
  const v1::GetAccountsReply reply = Accounts();
  EXPECT_DOUBLE_EQ(
      client::AccountsUsage(reply).Of(AssocKey::Account("grant")).held_budget_mins().billing(),
      91.5);
  cluster_->Run("scancel -u " + std::string(kAlice));
}

// Issue 34: a budget in GPU-minutes (GrpTRESMins=gres/gpu=N), set and shown
// with sacctmgr. Each 1-GPU, 10-minute job may use 10.5 GPU-minutes with
// KillWait's 30 s, so of twenty submitted at once only two fit 25; what runs
// is charged its GPU time, sshare shows the limit and what is left, and
// CPU-only jobs of the account are not held against it.
TEST_F(BankTest, AGpuMinutesBudgetAdmitsWhatFitsAndChargesGpuTime) {
  StartCluster("associations,limits,safe", "", /*gpu_nodes=*/2);
  auto ok = [&](const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    return r.out;
  };
  ok("sacctmgr -i add account gpulab GrpTRESMins=gres/gpu=25");
  ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=gpulab"));
  EXPECT_EQ(ok("sacctmgr -n -P show assoc where account=gpulab format=Account,User,GrpTRESMins"),
            absl::StrCat("gpulab||gres/gpu=25\ngpulab|", kAlice, "|\n"));

  const CommandResult burst = cluster_->RunAs(
      kAlice,
      "for i in $(seq 20); do (sbatch --parsable -A gpulab --gres=gpu:1 -t 10 --wrap 'sleep 3' "
      ">> ok.txt 2>> refused.txt) & done; wait");
  const std::string home = absl::StrCat(cluster_->dir(), "/home/", kAlice);
  const std::string accepted = ReadFile(home + "/ok.txt");
  const std::string refused = ReadFile(home + "/refused.txt");
  EXPECT_EQ(std::count(accepted.begin(), accepted.end(), '\n'), 2) << accepted << refused;
  const std::vector<std::string> errors = absl::StrSplit(refused, "sbatch: error:");
  EXPECT_EQ(errors.size(), 19u) << refused;
  EXPECT_TRUE(absl::StrContains(refused,
                                "AssocGrpGRESMinutes: account gpulab has 4.0 of 25.0 GPU-minutes "
                                "left (used 0.0, held by jobs 21.0); this job may use 10.5"))
      << refused;
  // A CPU-only job costs the GPU budget nothing.
  const CommandResult cpu_only =
      cluster_->RunAs(kAlice, "sbatch --parsable -A gpulab -t 10 --wrap 'sleep 1'");
  EXPECT_EQ(cpu_only.exit_code, 0) << cpu_only.err;

  ASSERT_TRUE(Eventually(120, [&] {
    const CommandResult left = cluster_->Run("squeue -h -A gpulab -o %i");
    return left.exit_code == 0 && left.out.empty();
  }));
  const v1::GetAccountsReply reply = Accounts();
  const double used =
      client::AccountsUsage(reply).Of(AssocKey::Account("gpulab")).used_budget_mins().gpu();
  // Two runs of a few seconds on one GPU each.
  EXPECT_GE(used, 2 * 3.0 / 60);
  EXPECT_LT(used, 2 * 30.0 / 60);
  EXPECT_DOUBLE_EQ(
      client::AccountsUsage(reply).Of(AssocKey::Account("gpulab")).held_budget_mins().gpu(), 0);
  const std::string share = ok("sshare -A gpulab -P -n -o Account,User,GrpTRESMins,GrpTRESLeft");
  EXPECT_TRUE(absl::StrContains(
      share, absl::StrCat(" gpulab||gres/gpu=25|gres/gpu=", static_cast<int>(25 - used), "\n")))
      << share;
  // sacctmgr says the same (Skiff's GrpTRESLeft field).
  EXPECT_EQ(
      ok("sacctmgr -n -P show assoc where account=gpulab format=Account,User,GrpTRESLeft"),
      absl::StrCat("gpulab||gres/gpu=", static_cast<int>(25 - used), "\ngpulab|", kAlice, "|\n"));
  // With the runs charged, another job fits again, quietly.
  const CommandResult again =
      cluster_->RunAs(kAlice, "sbatch --parsable -A gpulab --gres=gpu:1 -t 10 --wrap true");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "");
  ASSERT_TRUE(Eventually(60, [&] {
    const CommandResult left = cluster_->Run("squeue -h -A gpulab -o %i");
    return left.exit_code == 0 && left.out.empty();
  }));
  // One whose most is over half of what is left is accepted with one line
  // saying so, and --test-only says the same.
  const std::string warning =
      "sbatch: warning: this job may use up to 0.3 GPU-hours; account gpulab has 0.4 left\n";
  const CommandResult test_only =
      cluster_->RunAs(kAlice, "sbatch --test-only -A gpulab --gres=gpu:1 -t 20 --wrap true");
  EXPECT_EQ(test_only.exit_code, 0) << test_only.err;
  EXPECT_TRUE(absl::StartsWith(test_only.err, warning)) << test_only.err;
  const CommandResult close =
      cluster_->RunAs(kAlice, "sbatch --parsable -A gpulab --gres=gpu:1 -t 15 --wrap true");
  EXPECT_EQ(close.exit_code, 0) << close.err;
  EXPECT_EQ(close.err, warning);
  // MaxTRESMinsPerJob on the user's association: a job whose most is over it
  // is refused, whatever the budget has left.
  ok(absl::StrCat("sacctmgr -i modify user ", kAlice, " set MaxTRESMins=gres/gpu=8"));
  EXPECT_EQ(
      ok(absl::StrCat("sacctmgr -n -P show assoc where user=", kAlice, " format=User,MaxTRESMins")),
      absl::StrCat(kAlice, "|gres/gpu=8\n"));
  const CommandResult over_per_job =
      cluster_->RunAs(kAlice, "sbatch --parsable -A gpulab --gres=gpu:1 -t 10 --wrap true");
  EXPECT_NE(over_per_job.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(over_per_job.err,
                                "AssocMaxGRESMinutesPerJob: this job may use 10.5 GPU-minutes; its "
                                "association allows 8 per job"))
      << over_per_job.err;
  cluster_->Run("scancel -u " + std::string(kAlice));
}

// Issue 34: GrpTRESRunMins on an account, MaxTRESRunMinsPerUser and
// GrpTRESMins on a QOS (Slurm 24.05's run-minute limits, and a QOS budget): what running jobs hold
// times what is left of their time limits, plus a new job's whole limit, must fit; a job that does
// not waits with Slurm's reason and starts when room is freed.
TEST_F(BankTest, RunMinuteLimitsHoldGpuJobsUntilRunningOnesFreeRoom) {
  StartCluster("associations,limits,qos", "", /*gpu_nodes=*/2);
  auto ok = [&](const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    return r.out;
  };
  ok("sacctmgr -i add qos gpuq MaxTRESRunMinsPU=gres/gpu=15");
  ok("sacctmgr -i add account runlab GrpTRESRunMins=gres/gpu=30");
  ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=runlab qos=normal,gpuq"));
  EXPECT_EQ(ok("sacctmgr -n -P show assoc where account=runlab format=Account,User,GrpTRESRunMins"),
            absl::StrCat("runlab||gres/gpu=30\nrunlab|", kAlice, "|\n"));
  EXPECT_EQ(ok("sacctmgr -n -P show qos gpuq format=Name,MaxTRESRunMinsPU"), "gpuq|gres/gpu=15\n");
  auto submit = [&](const std::string& options) {
    const CommandResult r = cluster_->RunAs(
        kAlice,
        absl::StrCat("sbatch --parsable -A runlab --gres=gpu:1 ", options, " --wrap 'sleep 300'"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  };
  auto state = [&](const std::string& id) { return Show(id); };
  const std::string first = submit("-t 20");  // 20 GPU-minutes
  ASSERT_TRUE(Eventually(60, [&] { return absl::StrContains(state(first), "JobState=RUNNING"); }))
      << state(first);
  // scontrol show assoc_mgr shows the limit beside what the running job holds.
  const CommandResult mgr = cluster_->Run("scontrol -o show assoc_mgr accounts=runlab flags=assoc");
  EXPECT_TRUE(absl::StrContains(mgr.out, "GrpTRESRunMins=cpu=N(")) << mgr.out;
  EXPECT_TRUE(absl::StrContains(mgr.out, ",gres/gpu=30(")) << mgr.out;
  const std::string second = submit("-t 20");  // ~20 + 20 > 30: waits
  ASSERT_TRUE(Eventually(60, [&] {
    return absl::StrContains(state(second), "Reason=AssocGrpGRESRunMinutes");
  })) << state(second);
  const std::string short_one = submit("-t 5");  // ~20 + 5 fits
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(state(short_one), "JobState=RUNNING");
  })) << state(short_one);
  ok(absl::StrCat("scancel ", first));
  EXPECT_TRUE(Eventually(60, [&] { return absl::StrContains(state(second), "JobState=RUNNING"); }))
      << state(second);
  ok(absl::StrCat("scancel ", second, " ", short_one));
  // The QOS's per-user run minutes: 20 GPU-minutes never fit 15.
  const std::string in_qos = submit("--qos=gpuq -t 20");
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(state(in_qos), "Reason=MaxGRESRunMinsPerUser");
  })) << state(in_qos);
  // A GPU-minutes budget on the QOS instead: the job's most is over it.
  ok("sacctmgr -i modify qos gpuq set MaxTRESRunMinsPU=gres/gpu=-1 GrpTRESMins=gres/gpu=5");
  EXPECT_EQ(ok("sacctmgr -n -P show qos gpuq format=Name,GrpTRESMins,MaxTRESRunMinsPU"),
            "gpuq|gres/gpu=5|\n");
  EXPECT_TRUE(Eventually(60, [&] {
    return absl::StrContains(state(in_qos), "Reason=QOSGrpGRESMinutes");
  })) << state(in_qos);
  ok(absl::StrCat("scancel ", in_qos));
}

// Issue 34: PriorityWeightTRES weighs what a job asks of its partition's
// TRES, as sprio shows: 2 of the partition's 4 GPUs at weight 4000 is 2000.
TEST_F(BankTest, PriorityWeightTresCountsTheGpusAJobAsksFor) {
  StartCluster("associations",
               "PriorityType=priority/multifactor\nPriorityWeightTRES=CPU=1000,GRES/gpu=4000\n",
               /*gpu_nodes=*/2);
  const CommandResult submitted =
      cluster_->Run("sbatch --parsable --begin=now+3600 --gres=gpu:2 -t 10 --wrap true");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submitted.out));
  std::string factors;
  ASSERT_TRUE(Eventually(30, [&] {
    factors = cluster_->Run("sprio -h -o '%i|%T|%t' -j " + id).out;
    return absl::StrContains(factors, "gres/gpu=2000");
  })) << factors;
  // 1 of the partition's 8 CPUs at 1000 (two nodes of four CPUs each).
  EXPECT_EQ(factors, absl::StrCat(id, "|cpu=125,gres/gpu=2000|cpu=0.12,gres/gpu=0.50\n"));
  const CommandResult weights = cluster_->Run("sprio -w -h -o '%T'");
  EXPECT_EQ(weights.out, "CPU=1000,GRES/gpu=4000\n");
  cluster_->Run("scancel " + id);
}

// Issue 32: a job that ignores SIGTERM runs its limit and then KillWait until
// noded's SIGKILL. It was charged only its limit (used=5.000 of a 7.5-minute
// run) while sshare's RawUsage had all of it. Now admission reserves the tail
// (10 s limit + 5 s KillWait), the SIGKILL falls at that deadline, and the
// allocation, RawUsage and sacct all show the 15 s the job held its CPU.
TEST_F(BankTest, AJobThatIgnoresSigtermIsChargedItsKillWaitTailInEveryBook) {
  StartCluster("associations,limits,safe", "KillWait=5\n");
  AddGrant();
  const CommandResult submitted =
      cluster_->RunAs(kAlice,
                      "sbatch --parsable -A grant -t 0:10 -o stubborn.out "
                      "--wrap 'trap \"\" TERM; echo ignoring; sleep 120'");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submitted.out));
  // Held while it runs: 1 CPU x (10 s + 5 s).
  EXPECT_TRUE(Eventually(30, [&] {
    const v1::GetAccountsReply reply = Accounts();
    const v1::AssocUsage& grant = client::AccountsUsage(reply).Of(AssocKey::Account("grant"));
    return grant.has_held_budget_mins() &&
           std::abs(grant.held_budget_mins().billing() - 0.25) < 1e-9;
  }));
  ASSERT_TRUE(Eventually(90, [&] {
    return cluster_->Run(absl::StrCat("sacct -X -n -P -j ", id, " -o State")).out == "TIMEOUT\n";
  })) << Show(id);
  EXPECT_EQ(ReadFile(absl::StrCat(cluster_->dir(), "/home/", kAlice, "/stubborn.out")),
            "ignoring\n")
      << "the job was running and ignoring SIGTERM when its limit came";

  // sacct: the run lasted until the SIGKILL, 15 s after its start (or a
  // second more as ctld's whole-second clock saw it).
  const CommandResult acct =
      cluster_->Run(absl::StrCat("sacct -X -n -P -j ", id, " -o ElapsedRaw,AllocCPUS"));
  ASSERT_EQ(acct.exit_code, 0) << acct.err;
  const std::vector<std::string> fields =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(acct.out), '|');
  ASSERT_EQ(fields.size(), 2u) << acct.out;
  int64_t elapsed = 0;
  ASSERT_TRUE(absl::SimpleAtoi(fields[0], &elapsed)) << acct.out;
  EXPECT_EQ(fields[1], "1");
  EXPECT_GE(elapsed, 15) << "SIGKILL came before the KillWait tail";
  EXPECT_LE(elapsed, 20);
  // Charged: what it held its CPU, up to the 15 s reserved (never past it).
  const double charged_seconds = std::min<int64_t>(elapsed, 15);

  // The allocation's used, in billing-minutes (1 CPU: billing 1).
  double used = 0;
  ASSERT_TRUE(absl::SimpleAtod(GrantUsed(), &used)) << GrantUsed();
  EXPECT_NEAR(used, charged_seconds / 60, 1e-6) << "used " << used << " for " << elapsed << " s";
  EXPECT_DOUBLE_EQ(GrantHeld(), 0.0);
  // sshare: the same run in billing-seconds, for the account and for alice.
  const CommandResult share = cluster_->Run("sshare -a -A grant -P -n -o Account,User,RawUsage");
  ASSERT_EQ(share.exit_code, 0) << share.err;
  const std::vector<std::string> lines = absl::StrSplit(share.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << share.out;
  const std::string raw = absl::StrCat(std::llround(charged_seconds));
  EXPECT_EQ(lines[0], absl::StrCat(" grant||", raw)) << share.out;
  EXPECT_EQ(lines[1], absl::StrCat("  grant|", kAlice, "|", raw)) << share.out;
}

// Issue 47, item 15: without AccountingStorageEnforce=qos any QOS may be named,
// and one with a budget (GrpTRESMins) was spent by any user. A QOS budget is
// spent only by associations allowed that QOS: alice's lists it, bob's does
// not; bob is refused with Slurm's words and may still use his own QOS.
TEST_F(BankTest, AQosBudgetIsSpentOnlyByAssociationsAllowedThatQos) {
  StartCluster("associations,limits");
  auto ok = [&](const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
    return r.out;
  };
  ok("sacctmgr -i add qos funded GrpTRESMins=cpu=1000");
  ok("sacctmgr -i add qos plain");
  ok("sacctmgr -i add account lab");
  ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab qos=normal,funded"));
  ok(absl::StrCat("sacctmgr -i add user ", kBob, " account=lab"));
  auto submit = [&](const std::string& user, const std::string& qos) {
    return cluster_->RunAs(user, absl::StrCat("sbatch --parsable -A lab -t 1 --qos=", qos,
                                              " -o /dev/null --hold --wrap true"));
  };
  const CommandResult alices = submit(kAlice, "funded");
  EXPECT_EQ(alices.exit_code, 0) << alices.err;
  const CommandResult bobs = submit(kBob, "funded");
  EXPECT_EQ(bobs.exit_code, 1) << bobs.out;
  EXPECT_EQ(bobs.err,
            "sbatch: error: Batch job submission failed: Invalid qos specification (QOS funded "
            "has a GrpTRESMins budget; association lab/skiffbob may not use it)\n");
  // A QOS without a budget is still open without qos enforcement, as in Slurm.
  const CommandResult plain = submit(kBob, "plain");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  // Nor can bob move a job of his into it.
  const std::string id(absl::StripAsciiWhitespace(plain.out));
  const CommandResult moved =
      cluster_->RunAs(kBob, absl::StrCat("scontrol update JobId=", id, " QOS=funded"));
  EXPECT_NE(moved.exit_code, 0) << moved.out;
  EXPECT_TRUE(absl::StrContains(moved.err, "Invalid qos specification")) << moved.err;
  EXPECT_TRUE(absl::StrContains(Show(id), "QOS=plain")) << Show(id);
  cluster_->Run("scancel -u " + std::string(kAlice) + " ; scancel -u " + std::string(kBob));
}

}  // namespace
}  // namespace skiff::testing
