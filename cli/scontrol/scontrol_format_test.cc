#include "cli/scontrol/scontrol_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <cstdio>

namespace skiff {
namespace {

// Times in shared/reference are local times; the tests run in UTC.
class ScontrolFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    had_tz_ = tz != nullptr;
    saved_tz_ = tz ? tz : "";
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_tz_) {
      setenv("TZ", saved_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  bool had_tz_ = false;
  std::string saved_tz_;
};

int64_t T(const char* text) {
  struct tm tm = {};
  sscanf(text, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
         &tm.tm_sec);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return timegm(&tm);
}

// Replaces `from` (which must occur) with `to`: each use marks one documented
// difference between Slurm's output and Skiff's.
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Skiff records no session id for AllocNode:Sid.
std::string WithoutSid(const std::string& text) {
  return Replace(text, "AllocNode:Sid=localhost:5370", "AllocNode:Sid=localhost:0");
}

// A root job from the reference cluster: 1 CPU, 100M per CPU, 1 h, output to /dev/null.
v1::JobInfo RootJob(uint64_t id, const std::string& name) {
  v1::JobInfo job;
  job.set_job_id(id);
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_name(name);
  spec->set_command("(wrap)");
  spec->set_work_dir("/srv/slurm/jobs/root-golden");
  spec->set_submit_host("localhost");
  spec->set_mem_per_cpu_mb(100);
  spec->set_stdout_pattern("/dev/null");
  spec->set_stderr_pattern("/dev/null");
  job.set_user_id(0);
  job.set_group_id(0);
  job.set_user_name("root");
  job.set_group_name("root");
  job.set_account("research");
  job.set_qos("normal");
  job.set_partition("debug");
  job.set_time_limit(3600);
  job.set_num_nodes(1);
  job.set_num_cpus(1);
  job.set_num_tasks(1);
  job.set_cpus_per_task(1);
  job.set_mem_per_node_mb(100);
  job.set_stdout_path("/dev/null");
  job.set_stderr_path("/dev/null");
  return job;
}

TEST_F(ScontrolFormatTest, HeldByAdminMatchesSlurm) {
  v1::JobInfo job = RootJob(15398, "heldadmin");
  job.set_state(v1::PENDING);
  job.set_state_reason("JobHeldAdmin");
  job.set_held(true);
  job.set_held_by_admin(true);
  job.set_submit_time(T("2026-11-22T05:14:46"));
  job.set_eligible_time(T("2026-11-22T05:14:46"));
  EXPECT_EQ(
      FormatJobRecord(job, {}),
      WithoutSid(
          "JobId=15398 JobName=heldadmin\n"
          "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
          "   Priority=0 Nice=0 Account=research QOS=normal\n"
          "   JobState=PENDING Reason=JobHeldAdmin Dependency=(null)\n"
          "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
          "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
          "   SubmitTime=2026-11-22T05:14:46 EligibleTime=2026-11-22T05:14:46\n"
          "   AccrueTime=Unknown\n"
          "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
          "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:46 Scheduler=Main\n"
          "   Partition=debug AllocNode:Sid=localhost:5370\n"
          "   ReqNodeList=(null) ExcNodeList=(null)\n"
          "   NodeList=\n"
          "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
          "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
          "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
          "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
          "   Features=(null) DelayBoot=00:00:00\n"
          "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
          "   Command=(null)\n"
          "   WorkDir=/srv/slurm/jobs/root-golden\n"
          "   StdErr=/dev/null\n"
          "   StdIn=/dev/null\n"
          "   StdOut=/dev/null\n"
          "   Power=\n"
          "   \n"
          "\n"));
}

TEST_F(ScontrolFormatTest, HeldByUserMatchesSlurm) {
  v1::JobInfo job = RootJob(15397, "helduser");
  job.set_state(v1::PENDING);
  job.set_state_reason("JobHeldUser");
  job.set_held(true);
  job.set_submit_time(T("2026-11-22T05:14:46"));
  EXPECT_EQ(
      FormatJobRecord(job, {}),
      WithoutSid(
          "JobId=15397 JobName=helduser\n"
          "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
          "   Priority=0 Nice=0 Account=research QOS=normal\n"
          "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
          "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
          "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
          "   SubmitTime=2026-11-22T05:14:46 EligibleTime=Unknown\n"
          "   AccrueTime=Unknown\n"
          "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
          "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:46 Scheduler=Main\n"
          "   Partition=debug AllocNode:Sid=localhost:5370\n"
          "   ReqNodeList=(null) ExcNodeList=(null)\n"
          "   NodeList=\n"
          "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
          "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
          "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
          "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
          "   Features=(null) DelayBoot=00:00:00\n"
          "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
          "   Command=(null)\n"
          "   WorkDir=/srv/slurm/jobs/root-golden\n"
          "   StdErr=/dev/null\n"
          "   StdIn=/dev/null\n"
          "   StdOut=/dev/null\n"
          "   Power=\n"
          "   \n"
          "\n"));
}

TEST_F(ScontrolFormatTest, DependencyMatchesSlurm) {
  v1::JobInfo job = RootJob(15399, "dep");
  job.mutable_spec()->set_dependency("afterok:15391");
  job.set_priority(4294899364u);
  job.set_state(v1::PENDING);
  job.set_state_reason("Dependency");
  job.set_submit_time(T("2026-11-22T05:14:46"));
  EXPECT_EQ(
      FormatJobRecord(job, {}),
      WithoutSid(
          "JobId=15399 JobName=dep\n"
          "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
          "   Priority=4294899364 Nice=0 Account=research QOS=normal\n"
          "   JobState=PENDING Reason=Dependency Dependency=afterok:15391(unfulfilled)\n"
          "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
          "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
          "   SubmitTime=2026-11-22T05:14:46 EligibleTime=Unknown\n"
          "   AccrueTime=Unknown\n"
          "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
          "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:46 Scheduler=Main\n"
          "   Partition=debug AllocNode:Sid=localhost:5370\n"
          "   ReqNodeList=(null) ExcNodeList=(null)\n"
          "   NodeList=\n"
          "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
          "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
          "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
          "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
          "   Features=(null) DelayBoot=00:00:00\n"
          "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
          "   Command=(null)\n"
          "   WorkDir=/srv/slurm/jobs/root-golden\n"
          "   StdErr=/dev/null\n"
          "   StdIn=/dev/null\n"
          "   StdOut=/dev/null\n"
          "   Power=\n"
          "   \n"
          "\n"));
}

TEST_F(ScontrolFormatTest, RunningWithGpuAndBurstBufferMatchesSlurm) {
  v1::JobInfo job = RootJob(15392, "gpubb");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_command("/srv/slurm/jobs/alice/golden/gpubb.sh");
  spec->set_work_dir("/srv/slurm/jobs/alice/golden");
  spec->add_gres("gpu:1");
  spec->set_burst_buffer(
      "#BB_LUA pool=bulk capacity=2G stage_in=/srv/slurm/bb/data/input.dat "
      "stage_out=/srv/slurm/bb/out/gpubb_%j.dat");
  job.set_user_id(1001);
  job.set_group_id(1001);
  job.set_user_name("alice");
  job.set_group_name("alice");
  job.set_priority(4294899370u);
  job.set_partition("gpu");
  job.set_state(v1::RUNNING);
  job.set_state_reason("None");
  job.set_time_limit(1800);
  job.set_submit_time(T("2026-11-22T05:14:44"));
  job.set_eligible_time(T("2026-11-22T05:14:44"));
  job.set_start_time(T("2026-11-22T05:14:45"));
  job.add_nodes("n3");
  ShowOptions options;
  options.now = T("2026-11-22T05:14:50");
  EXPECT_EQ(
      FormatJobRecord(job, options),
      WithoutSid(
          "JobId=15392 JobName=gpubb\n"
          "   UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A\n"
          "   Priority=4294899370 Nice=0 Account=research QOS=normal\n"
          "   JobState=RUNNING Reason=None Dependency=(null)\n"
          "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
          "   RunTime=00:00:05 TimeLimit=00:30:00 TimeMin=N/A\n"
          "   SubmitTime=2026-11-22T05:14:44 EligibleTime=2026-11-22T05:14:44\n"
          "   AccrueTime=2026-11-22T05:14:44\n"
          "   StartTime=2026-11-22T05:14:45 EndTime=2026-11-22T05:44:45 Deadline=N/A\n"
          "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:45 Scheduler=Main\n"
          "   Partition=gpu AllocNode:Sid=localhost:5370\n"
          "   ReqNodeList=(null) ExcNodeList=(null)\n"
          "   NodeList=n3\n"
          "   BatchHost=n3\n"
          "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
          "   TRES=cpu=1,mem=100M,node=1,billing=1,bb/lua=2G,gres/gpu=1\n"
          "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
          "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
          "   Features=(null) DelayBoot=00:00:00\n"
          "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
          "   Command=/srv/slurm/jobs/alice/golden/gpubb.sh\n"
          "   WorkDir=/srv/slurm/jobs/alice/golden\n"
          "   StdErr=/dev/null\n"
          "   StdIn=/dev/null\n"
          "   StdOut=/dev/null\n"
          "   BurstBuffer=#BB_LUA pool=bulk capacity=2G stage_in=/srv/slurm/bb/data/input.dat "
          "stage_out=/srv/slurm/bb/out/gpubb_%j.dat\n"
          "   BurstBufferState=running\n"
          "   Power=\n"
          "   TresPerNode=gres:gpu:1\n"
          "   \n"
          "\n"));
}

TEST_F(ScontrolFormatTest, RunningOnTwoNodesMatchesSlurm) {
  v1::JobInfo job = RootJob(15391, "wide");
  job.set_priority(4294899371u);
  job.set_state(v1::RUNNING);
  job.set_state_reason("None");
  job.set_submit_time(T("2026-11-22T05:14:44"));
  job.set_eligible_time(T("2026-11-22T05:14:44"));
  job.set_start_time(T("2026-11-22T05:14:44"));
  job.set_num_nodes(2);
  job.set_num_cpus(4);
  job.set_num_tasks(4);
  job.set_mem_per_node_mb(200);
  job.add_nodes("n1");
  job.add_nodes("n2");
  ShowOptions options;
  options.now = T("2026-11-22T05:14:50");
  // Skiff does not record which scheduler pass started a job.
  std::string expected = Replace(
      WithoutSid("JobId=15391 JobName=wide\n"
                 "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
                 "   Priority=4294899371 Nice=0 Account=research QOS=normal\n"
                 "   JobState=RUNNING Reason=None Dependency=(null)\n"
                 "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
                 "   RunTime=00:00:06 TimeLimit=01:00:00 TimeMin=N/A\n"
                 "   SubmitTime=2026-11-22T05:14:44 EligibleTime=2026-11-22T05:14:44\n"
                 "   AccrueTime=2026-11-22T05:14:44\n"
                 "   StartTime=2026-11-22T05:14:44 EndTime=2026-11-22T06:14:44 Deadline=N/A\n"
                 "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:44 "
                 "Scheduler=Backfill\n"
                 "   Partition=debug AllocNode:Sid=localhost:5370\n"
                 "   ReqNodeList=(null) ExcNodeList=(null)\n"
                 "   NodeList=n[1-2]\n"
                 "   BatchHost=n1\n"
                 "   NumNodes=2 NumCPUs=4 NumTasks=4 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
                 "   TRES=cpu=4,mem=400M,node=2,billing=4\n"
                 "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
                 "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
                 "   Features=(null) DelayBoot=00:00:00\n"
                 "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
                 "   Command=(null)\n"
                 "   WorkDir=/srv/slurm/jobs/root-golden\n"
                 "   StdErr=/dev/null\n"
                 "   StdIn=/dev/null\n"
                 "   StdOut=/dev/null\n"
                 "   Power=\n"
                 "   \n"
                 "\n"),
      "Scheduler=Backfill", "Scheduler=Main");
  EXPECT_EQ(FormatJobRecord(job, options), expected);
}

TEST_F(ScontrolFormatTest, OptionalJobLinesAndFallbacks) {
  v1::JobInfo job = RootJob(77, "x");
  job.clear_stdout_path();
  job.clear_stderr_path();
  job.mutable_spec()->clear_stdout_pattern();
  job.mutable_spec()->clear_stderr_pattern();
  job.mutable_spec()->set_comment("hello there");
  job.mutable_spec()->set_requeue(false);
  job.set_state(v1::PENDING);
  job.set_state_reason("PrologFailed");
  job.set_state_description("prolog exited 3");
  job.set_time_limit(-1);
  std::string out = FormatJobRecord(job, {});
  EXPECT_NE(out.find("Reason=prolog_exited_3 "), std::string::npos) << out;
  EXPECT_NE(out.find("Requeue=0 "), std::string::npos);
  EXPECT_NE(out.find("TimeLimit=UNLIMITED "), std::string::npos);
  EXPECT_NE(out.find("   WorkDir=/srv/slurm/jobs/root-golden\n   Comment=hello there \n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("StdErr=/srv/slurm/jobs/root-golden/slurm-77.out\n"), std::string::npos);
  EXPECT_NE(out.find("StdOut=/srv/slurm/jobs/root-golden/slurm-77.out\n"), std::string::npos);
  ShowOptions one;
  one.one_liner = true;
  std::string line = FormatJobRecord(job, one);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_EQ(line.substr(0, 29), "JobId=77 JobName=x UserId=roo");
}

TEST_F(ScontrolFormatTest, NoJobs) {
  EXPECT_EQ(FormatJobRecords(v1::GetJobsReply(), {}), "No jobs in the system\n");
}

v1::NodeInfo ReferenceNode(const std::string& name, int port, bool gpus) {
  v1::NodeInfo node;
  node.set_name(name);
  node.set_arch("x86_64");
  node.set_cores_per_socket(2);
  node.set_cpus(2);
  node.set_alloc_cpus(2);
  node.set_addr("127.0.0.1");
  node.set_hostname("vm");
  node.set_port(port);
  node.set_version("22.05.8");
  node.set_os("Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0");
  node.set_real_memory_mb(4821);
  node.set_alloc_memory_mb(200);
  node.set_sockets(1);
  node.set_threads_per_core(1);
  node.set_state("ALLOCATED");
  node.set_weight(1);
  node.add_partitions("debug");
  if (gpus) {
    node.add_partitions("gpu");
    v1::Gres* g = node.add_gres();
    g->set_name("gpu");
    g->set_count(2);
  }
  node.set_boot_time(T("2026-11-22T04:07:00"));
  node.set_last_registered(T("2026-11-22T04:52:09"));
  return node;
}

TEST_F(ScontrolFormatTest, NodeMatchesSlurm) {
  // shared/reference/scontrol_show_node_n3.txt, with what Skiff does not track:
  // CPU load, free memory, last busy time, and gres in AllocTRES.
  std::string expected =
      "NodeName=n3 Arch=x86_64 CoresPerSocket=2 \n"
      "   CPUAlloc=2 CPUEfctv=2 CPUTot=2 CPULoad=0.91\n"
      "   AvailableFeatures=(null)\n"
      "   ActiveFeatures=(null)\n"
      "   Gres=gpu:2\n"
      "   NodeAddr=127.0.0.1 NodeHostName=vm Port=16903 Version=22.05.8\n"
      "   OS=Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0 \n"
      "   RealMemory=4821 AllocMem=200 FreeMem=23439 Sockets=1 Boards=1\n"
      "   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
      "   Partitions=debug,gpu \n"
      "   BootTime=2026-11-22T04:07:00 SlurmdStartTime=2026-11-22T04:52:09\n"
      "   LastBusyTime=2026-11-22T05:14:09\n"
      "   CfgTRES=cpu=2,mem=4821M,billing=2,gres/gpu=2\n"
      "   AllocTRES=cpu=2,mem=200M,gres/gpu=1\n"
      "   CapWatts=n/a\n"
      "   CurrentWatts=0 AveWatts=0\n"
      "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
      "\n";
  expected = Replace(expected, "CPULoad=0.91", "CPULoad=N/A");
  expected = Replace(expected, "FreeMem=23439", "FreeMem=N/A");
  expected = Replace(expected, "LastBusyTime=2026-11-22T05:14:09", "LastBusyTime=Unknown");
  expected = Replace(expected, "AllocTRES=cpu=2,mem=200M,gres/gpu=1", "AllocTRES=cpu=2,mem=200M");
  EXPECT_EQ(FormatNodeRecord(ReferenceNode("n3", 16903, true), {}, 6818), expected);
}

TEST_F(ScontrolFormatTest, NodeFlagsReasonAndDefaultPort) {
  v1::NodeInfo node = ReferenceNode("n1", 6818, false);
  node.set_state("IDLE");
  node.set_drain(true);
  node.set_not_responding(true);
  node.set_reason("bad disk");
  node.set_alloc_cpus(0);
  node.set_alloc_memory_mb(0);
  std::string out = FormatNodeRecord(node, {}, 6818);
  EXPECT_NE(out.find("   NodeAddr=127.0.0.1 NodeHostName=vm Version=22.05.8\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("   State=IDLE+DRAIN+NOT_RESPONDING ThreadsPerCore=1"), std::string::npos);
  EXPECT_NE(out.find("   AllocTRES=\n"), std::string::npos);
  EXPECT_NE(out.find("ExtSensorsTemp=n/s\n   Reason=bad disk\n\n"), std::string::npos) << out;
}

TEST_F(ScontrolFormatTest, PartitionsMatchSlurm) {
  v1::GetPartitionsReply reply;
  for (const char* name : {"debug", "gpu"}) {
    v1::PartitionInfo* p = reply.add_partitions();
    p->set_name(name);
    p->set_is_default(std::string(name) == "debug");
    p->set_max_time(86400);
    p->set_default_time(3600);
    p->set_state("UP");
    p->set_priority_tier(1);
    p->set_priority_job_factor(1);
    p->set_max_nodes(-1);
  }
  for (const char* n : {"n1", "n2", "n3", "n4"}) reply.mutable_partitions(0)->add_nodes(n);
  for (const char* n : {"n3", "n4"}) reply.mutable_partitions(1)->add_nodes(n);
  *reply.add_nodes() = ReferenceNode("n1", 16901, false);
  *reply.add_nodes() = ReferenceNode("n2", 16902, false);
  *reply.add_nodes() = ReferenceNode("n3", 16903, true);
  *reply.add_nodes() = ReferenceNode("n4", 16904, true);
  // shared/reference/scontrol_show_partition.txt, without the burst-buffer pools
  // in TRES (PartitionInfo does not carry them).
  std::string expected =
      "PartitionName=debug\n"
      "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
      "   AllocNodes=ALL Default=YES QoS=N/A\n"
      "   DefaultTime=01:00:00 DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
      "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
      "   Nodes=n[1-4]\n"
      "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
      "   OverTimeLimit=NONE PreemptMode=OFF\n"
      "   State=UP TotalCPUs=8 TotalNodes=4 SelectTypeParameters=NONE\n"
      "   JobDefaults=(null)\n"
      "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
      "   TRES=cpu=8,mem=19284M,node=4,billing=8,bb/lua=72G,gres/gpu=4\n"
      "\n"
      "PartitionName=gpu\n"
      "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
      "   AllocNodes=ALL Default=NO QoS=N/A\n"
      "   DefaultTime=01:00:00 DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
      "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
      "   Nodes=n[3-4]\n"
      "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
      "   OverTimeLimit=NONE PreemptMode=OFF\n"
      "   State=UP TotalCPUs=4 TotalNodes=2 SelectTypeParameters=NONE\n"
      "   JobDefaults=(null)\n"
      "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
      "   TRES=cpu=4,mem=9642M,node=2,billing=4,bb/lua=72G,gres/gpu=4\n"
      "\n";
  expected = Replace(expected, ",bb/lua=72G,gres/gpu=4\n\nPartitionName=gpu",
                     ",gres/gpu=4\n\nPartitionName=gpu");
  expected = Replace(expected, "billing=4,bb/lua=72G,", "billing=4,");
  EXPECT_EQ(FormatPartitionRecords(reply, {}), expected);
}

TEST_F(ScontrolFormatTest, ConfigMatchesSlurm) {
  // The first and last lines of shared/reference/scontrol_show_config_full.txt.
  const std::string expected =
      "Configuration data as of 2026-11-22T05:14:02\n"
      "AccountingStorageBackupHost = (null)\n"
      "AccountingStorageEnforce = associations,limits,qos\n"
      "AccountingStorageHost   = localhost\n"
      "AccountingStoragePort   = 16819\n"
      "AuthType                = auth/munge\n"
      "BOOT_TIME               = 2026-11-22T04:52:08\n"
      "ClusterName             = lab\n"
      "PowerPlugin             = \n"
      "SlurmctldHost[0]        = vm(127.0.0.1)\n"
      "X11Parameters           = (null)\n"
      "\n"
      "Slurmctld(primary) at vm is UP\n";
  v1::GetConfigReply reply;
  auto add = [&](const char* key, const char* value) {
    v1::ConfigEntry* e = reply.add_entries();
    e->set_key(key);
    e->set_value(value);
  };
  add("AccountingStorageBackupHost", "(null)");
  add("AccountingStorageEnforce", "associations,limits,qos");
  add("AccountingStorageHost", "localhost");
  add("AccountingStoragePort", "16819");
  add("AuthType", "auth/munge");
  add("BOOT_TIME", "2026-11-22T04:52:08");
  add("ClusterName", "lab");
  add("PowerPlugin", "");
  add("SlurmctldHost[0]", "vm(127.0.0.1)");
  add("X11Parameters", "(null)");
  EXPECT_EQ(FormatConfig(reply, T("2026-11-22T05:14:02"), "vm", true), expected);
}

TEST_F(ScontrolFormatTest, Ping) {
  EXPECT_EQ(FormatPing("vm", true), "Slurmctld(primary) at vm is UP\n");
  EXPECT_EQ(FormatPing("vm", false), "Slurmctld(primary) at vm is DOWN\n");
}

}  // namespace
}  // namespace skiff
