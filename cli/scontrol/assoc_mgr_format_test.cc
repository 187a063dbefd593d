#include "cli/scontrol/assoc_mgr_format.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace skiff::cli {
namespace {

// root (root user), research under it with alice (MaxJobs=2 inherited from
// research, MaxTRESPerJob cpu=4), one of her jobs running on 2 CPUs with 5
// minutes left, another pending; QOS normal.
v1::GetAccountsReply Accounts() {
  v1::GetAccountsReply reply;
  reply.set_cluster("lab");
  v1::UserInfo* root = reply.add_users();
  root->set_name("root");
  root->set_default_account("root");
  root->set_admin_level("Administrator");
  root->set_uid(0);
  v1::UserInfo* alice = reply.add_users();
  alice->set_name("alice");
  alice->set_default_account("research");
  alice->set_admin_level("None");
  alice->set_uid(1001);
  auto assoc = [&](uint64_t id, const std::string& account, const std::string& user,
                   const std::string& parent) {
    v1::AssocInfo* a = reply.add_assocs();
    a->set_id(id);
    a->set_account(account);
    a->set_user(user);
    a->set_parent_account(parent);
    return a;
  };
  assoc(1, "root", "", "");
  assoc(2, "root", "root", "");
  v1::AssocInfo* research = assoc(3, "research", "", "root");
  research->mutable_limits()->set_max_jobs(2);
  research->mutable_limits()->set_grp_billing_mins(1000);
  research->mutable_limits()->mutable_grp_tres()->set_cpu(8);
  v1::AssocInfo* user = assoc(4, "research", "alice", "");
  user->mutable_limits()->mutable_max_tres_per_job()->set_cpu(4);
  auto usage_of = [&](const std::string& account, const std::string& user) {
    v1::AssocUsage* usage = reply.add_assoc_usage();
    usage->mutable_key()->set_account(account);
    usage->mutable_key()->set_user(user);
    return usage;
  };
  v1::AssocUsage* alice_usage = usage_of("research", "alice");
  alice_usage->set_raw_usage(600);
  v1::JobsInUse in_use;
  in_use.set_running_jobs(1);
  in_use.set_submitted_jobs(2);
  in_use.mutable_running_tres()->set_cpu(2);
  in_use.mutable_running_tres()->set_mem_mb(200);
  in_use.mutable_running_tres()->set_node(1);
  in_use.mutable_running_tres()->set_gpu(0);
  in_use.mutable_running_tres_secs()->set_cpu(600);
  in_use.mutable_running_tres_secs()->set_mem_mb(60000);
  in_use.mutable_running_tres_secs()->set_node(300);
  in_use.mutable_running_tres_secs()->set_gpu(0);
  *alice_usage->mutable_in_use() = in_use;
  *usage_of("research", "")->mutable_in_use() = in_use;
  *usage_of("root", "")->mutable_in_use() = in_use;
  for (const char* user : {"", "alice"}) {
    v1::QosUsage* qos = reply.add_qos_usage();
    qos->set_qos("normal");
    qos->set_user(user);
    *qos->mutable_in_use() = in_use;
  }
  return reply;
}

v1::GetQosReply Qos() {
  v1::GetQosReply reply;
  v1::QosInfo* normal = reply.add_qos();
  normal->set_name("normal");
  normal->set_max_wall(-1);
  normal->set_max_jobs_per_user(4);
  normal->set_max_submit_jobs_per_user(-1);
  normal->mutable_max_tres_per_user()->set_cpu(6);
  normal->set_preempt_mode("cluster");
  return reply;
}

int64_t Uid(const std::string& user) { return user == "alice" ? 1001 : -1; }

TEST(AssocMgrFormatTest, AssociationsWithLimitsAndWhatJobsHold) {
  AssocMgrRequest request = *ParseAssocMgrArgs({"users=alice", "flags=assoc"});
  EXPECT_FALSE(request.show_users);
  EXPECT_FALSE(request.show_qos);
  // An account's own associations stay with a user filter, as in Slurm.
  const std::string out = FormatAssocMgr(Accounts(), Qos(), request, false, Uid);
  EXPECT_EQ(out,
            "Current Association Manager state\n"
            "\n"
            "Association Records\n"
            "\n"
            "ClusterName=lab Account=root UserName= Partition= Priority=0 ID=1\n"
            "    SharesRaw/Norm/Level/Factor=1/0.00/1/0.00\n"
            "    UsageRaw/Norm/Efctv=600.00/1.00/1.00\n"
            "    ParentAccount= Lft=1 DefAssoc=No\n"
            "    GrpJobs=N(1) GrpJobsAccrue=N(0)\n"
            "    GrpSubmitJobs=N(2) GrpWall=N(0.00)\n"
            "    GrpTRES=cpu=N(2),mem=N(200),energy=N(0),node=N(1),billing=N(0),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESMins=cpu=N(0),mem=N(0),energy=N(0),node=N(0),billing=N(10),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESRunMins=cpu=N(10),mem=N(1000),energy=N(0),node=N(5),billing=N(0),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    MaxJobs= MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=\n"
            "    MaxTRESPJ=\n"
            "    MaxTRESPN=\n"
            "    MaxTRESMinsPJ=\n"
            "    MinPrioThresh=\n"
            "ClusterName=lab Account=research UserName= Partition= Priority=0 ID=3\n"
            "    SharesRaw/Norm/Level/Factor=1/0.00/2/0.00\n"
            "    UsageRaw/Norm/Efctv=600.00/1.00/1.00\n"
            "    ParentAccount=root(1) Lft=4 DefAssoc=No\n"
            "    GrpJobs=N(1) GrpJobsAccrue=N(0)\n"
            "    GrpSubmitJobs=N(2) GrpWall=N(0.00)\n"
            "    GrpTRES=cpu=8(2),mem=N(200),energy=N(0),node=N(1),billing=N(0),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESMins=cpu=N(0),mem=N(0),energy=N(0),node=N(0),billing=1000(10),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESRunMins=cpu=N(10),mem=N(1000),energy=N(0),node=N(5),billing=N(0),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    MaxJobs=2(1) MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=\n"
            "    MaxTRESPJ=\n"
            "    MaxTRESPN=\n"
            "    MaxTRESMinsPJ=\n"
            "    MinPrioThresh=\n"
            "ClusterName=lab Account=research UserName=alice(1001) Partition= Priority=0 ID=4\n"
            "    SharesRaw/Norm/Level/Factor=1/0.00/1/0.00\n"
            "    UsageRaw/Norm/Efctv=600.00/1.00/1.00\n"
            "    ParentAccount=research(3) Lft=5 DefAssoc=Yes\n"
            "    GrpJobs=N(1) GrpJobsAccrue=N(0)\n"
            "    GrpSubmitJobs=N(2) GrpWall=N(0.00)\n"
            "    GrpTRES=cpu=N(2),mem=N(200),energy=N(0),node=N(1),billing=N(0),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESMins=cpu=N(0),mem=N(0),energy=N(0),node=N(0),billing=N(10),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESRunMins=cpu=N(10),mem=N(1000),energy=N(0),node=N(5),billing=N(0),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    MaxJobs=2(1) MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=\n"
            "    MaxTRESPJ=cpu=4\n"
            "    MaxTRESPN=\n"
            "    MaxTRESMinsPJ=\n"
            "    MinPrioThresh=\n");
}

TEST(AssocMgrFormatTest, UsersAndQosWithPerUserLimits) {
  AssocMgrRequest request = *ParseAssocMgrArgs({"flags=users,qos"});
  const std::string out = FormatAssocMgr(Accounts(), Qos(), request, false, Uid);
  EXPECT_EQ(out,
            "Current Association Manager state\n"
            "\n"
            "User Records\n"
            "\n"
            "UserName=root(0) DefAccount=root DefWckey= AdminLevel=Administrator\n"
            "UserName=alice(1001) DefAccount=research DefWckey= AdminLevel=None\n"
            "\n"
            "QOS Records\n"
            "\n"
            "QOS=normal(1)\n"
            "    UsageRaw=0.000000\n"
            "    GrpJobs=N(1) GrpJobsAccrue=N(0) GrpSubmitJobs=N(2) GrpWall=N(0.00)\n"
            "    GrpTRES=cpu=N(2),mem=N(200),energy=N(0),node=N(1),billing=N(0),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESMins=cpu=N(0),mem=N(0),energy=N(0),node=N(0),billing=N(0),fs/disk=N(0),"
            "vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    GrpTRESRunMins=cpu=N(10),mem=N(1000),energy=N(0),node=N(5),billing=N(0),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n"
            "    MaxWallPJ=\n"
            "    MaxTRESPJ=\n"
            "    MaxTRESPN=\n"
            "    MaxTRESMinsPJ=\n"
            "    MinPrioThresh= \n"
            "    MinTRESPJ=\n"
            "    PreemptMode=OFF\n"
            "    Priority=0\n"
            "    Account Limits\n"
            "        No Accounts\n"
            "    User Limits\n"
            "      1001\n"
            "        MaxJobsPU=4(1) MaxJobsAccruePU=N(0) MaxSubmitJobsPU=N(2)\n"
            "        MaxTRESPU=cpu=6(2),mem=N(200),energy=N(0),node=N(1),billing=N(0),"
            "fs/disk=N(0),vmem=N(0),pages=N(0),gres/gpu=N(0)\n");
}

TEST(AssocMgrFormatTest, OneLinerAndEmptySections) {
  AssocMgrRequest request = *ParseAssocMgrArgs({"flags=users", "users=nobody"});
  EXPECT_EQ(FormatAssocMgr(Accounts(), Qos(), request, true, Uid),
            "Current Association Manager state\nNo users currently cached in Slurm.\n");
  request = *ParseAssocMgrArgs({"flags=qos", "qos=normal"});
  const std::string out = FormatAssocMgr(Accounts(), Qos(), request, true, Uid);
  EXPECT_NE(out.find("QOS Records\nQOS=normal(1) UsageRaw=0.000000 GrpJobs=N(1)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Account Limits=No Accounts User Limits= 1001={MaxJobsPU=4(1) "),
            std::string::npos)
      << out;
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
}

TEST(AssocMgrFormatTest, BadArgumentsGetSlurmsMessages) {
  EXPECT_EQ(ParseAssocMgrArgs({"users"}).status().message(), "No value given for option users");
  EXPECT_EQ(ParseAssocMgrArgs({"flags=jobs"}).status().message(),
            "invalid flag 'jobs', valid options are 'Assoc, QOS, and/or Users'");
  EXPECT_EQ(ParseAssocMgrArgs({"nodes=n1"}).status().message(),
            "invalid entity: nodes for keyword:show assoc_mgr");
  AssocMgrRequest request = *ParseAssocMgrArgs({"a=x,y", "q=normal", "u='alice'"});
  EXPECT_EQ(request.accounts, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(request.qos, (std::vector<std::string>{"normal"}));
  EXPECT_EQ(request.users, (std::vector<std::string>{"alice"}));
  EXPECT_TRUE(request.show_users && request.show_assoc && request.show_qos);
}

}  // namespace
}  // namespace skiff::cli
