#include "cli/scontrol/scontrol_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <cstdio>

namespace skiff::cli {
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
  job.set_dependency("afterok:15391");  // what still blocks it, unmarked
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
  job.set_burst_buffer_state("running");
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

TEST_F(ScontrolFormatTest, DependencyMarks) {
  v1::JobInfo job = RootJob(15399, "dep");
  job.set_state(v1::PENDING);
  auto dependency_of = [&job] {
    std::string out = FormatJobRecord(job, {});
    size_t at = out.find("Dependency=");
    return out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_EQ(dependency_of(), "Dependency=(null)");
  job.set_state_reason("Dependency");
  job.set_dependency("afterok:1,afterany:2:3");
  EXPECT_EQ(dependency_of(),
            "Dependency=afterok:1(unfulfilled),afterany:2(unfulfilled),afterany:3(unfulfilled)");
  job.set_dependency("singleton,after:5+10");
  EXPECT_EQ(dependency_of(), "Dependency=singleton(unfulfilled),after:5+10(unfulfilled)");
  job.set_dependency("afterok:1?afternotok:2");
  EXPECT_EQ(dependency_of(), "Dependency=afterok:1(unfulfilled)?afternotok:2(unfulfilled)");
  job.set_state_reason("DependencyNeverSatisfied");
  job.set_dependency("afterok:7");
  EXPECT_EQ(dependency_of(), "Dependency=afterok:7(failed)");
  // ctld's own marks are kept.
  job.set_dependency("afterok:7(failed),singleton(unfulfilled)");
  EXPECT_EQ(dependency_of(), "Dependency=afterok:7(failed),singleton(unfulfilled)");
}

// shared/reference/scontrol_show_job_array_pending.txt: `sbatch --array=1-5`,
// its five tasks pending. Skiff keeps each task as a job (ids 15400..15404);
// scontrol folds the pending ones into one record, as Slurm shows them.
TEST_F(ScontrolFormatTest, PendingArrayMatchesSlurm) {
  v1::GetJobsReply reply;
  for (int task = 1; task <= 5; ++task) {
    v1::JobInfo job = RootJob(15399 + task, "arr");
    job.set_array_job_id(15400);
    job.set_array_task_id(task);
    job.set_priority(4294899363u);
    job.set_state(v1::PENDING);
    job.set_state_reason("Priority");
    job.set_submit_time(T("2026-11-22T05:14:46"));
    job.set_eligible_time(T("2026-11-22T05:14:46"));
    job.set_expected_start(T("2026-11-22T07:14:00"));
    *reply.add_jobs() = job;
  }
  // Skiff does not record when a job was last evaluated, nor backfill's planned nodes.
  std::string expected = WithoutSid(
      "JobId=15400 ArrayJobId=15400 ArrayTaskId=1-5 JobName=arr\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=4294899363 Nice=0 Account=research QOS=normal\n"
      "   JobState=PENDING Reason=Priority Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
      "   SubmitTime=2026-11-22T05:14:46 EligibleTime=2026-11-22T05:14:46\n"
      "   AccrueTime=2026-11-22T05:14:46\n"
      "   StartTime=2026-11-22T07:14:00 EndTime=2026-11-22T08:14:00 Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:49 "
      "Scheduler=Backfill:*\n"
      "   Partition=debug AllocNode:Sid=localhost:5370\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList= SchedNodeList=n1\n"
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
      "\n");
  expected =
      Replace(expected, "LastSchedEval=2026-11-22T05:14:49", "LastSchedEval=2026-11-22T05:14:46");
  expected = Replace(expected, "NodeList= SchedNodeList=n1\n", "NodeList=\n");
  EXPECT_EQ(FormatJobRecords(reply, {}), expected);
}

TEST_F(ScontrolFormatTest, ArrayTasksThatLeftThePendingRecordShowTheirOwnId) {
  v1::GetJobsReply reply;
  int64_t now = T("2026-11-22T05:15:00");
  reply.set_now(now);
  for (int task = 0; task <= 6; ++task) {
    v1::JobInfo job = RootJob(200 + task, "arr");
    job.set_array_job_id(200);
    job.set_array_task_id(task);
    job.set_array_max_running(2);
    job.set_submit_time(T("2026-11-22T05:14:46"));
    if (task == 0 || task == 3) {
      job.set_state(v1::RUNNING);
      job.set_start_time(T("2026-11-22T05:14:50"));
      job.add_nodes("n1");
    } else {
      job.set_state(v1::PENDING);
      job.set_state_reason(task == 5 ? "JobHeldUser" : "JobArrayTaskLimit");
    }
    *reply.add_jobs() = job;
  }
  std::string out = FormatJobRecords(reply, {});
  std::vector<std::string> firsts;
  for (size_t at = 0; (at = out.find("JobId=", at)) != std::string::npos; ++at) {
    if (at == 0 || out[at - 1] == '\n') firsts.push_back(out.substr(at, out.find('\n', at) - at));
  }
  EXPECT_EQ(firsts,
            (std::vector<std::string>{
                "JobId=200 ArrayJobId=200 ArrayTaskId=0 JobName=arr",
                "JobId=201 ArrayJobId=200 ArrayTaskId=1-2,4,6%2 ArrayTaskThrottle=2 JobName=arr",
                "JobId=203 ArrayJobId=200 ArrayTaskId=3 JobName=arr",
                "JobId=205 ArrayJobId=200 ArrayTaskId=5%2 ArrayTaskThrottle=2 JobName=arr",
            }));
  // One task alone.
  v1::JobInfo one = reply.jobs(3);
  EXPECT_EQ(FormatJobRecord(one, {}).substr(0, 51),
            "JobId=203 ArrayJobId=200 ArrayTaskId=3 JobName=arr\n");
}

// `scancel J` of a held array on Slurm 22.05 (../shared/slurm-anchor): one
// record for the whole array, CANCELLED, its tasks' ids as the pending ones'.
TEST_F(ScontrolFormatTest, AnArrayCancelledBeforeItRanIsOneCancelledRecord) {
  v1::GetJobsReply reply;
  reply.set_now(T("2026-11-22T05:15:00"));
  for (int task = 1; task <= 5; ++task) {
    v1::JobInfo job = RootJob(261 + task, "wrap");
    job.set_array_job_id(262);
    job.set_array_task_id(task);
    job.set_state(v1::CANCELLED);
    job.set_state_reason("JobHeldUser");
    job.set_cancelled_with_array(true);
    *reply.add_jobs() = job;
  }
  const std::string out = FormatJobRecords(reply, {});
  EXPECT_EQ(out.substr(0, out.find('\n')), "JobId=262 ArrayJobId=262 ArrayTaskId=1-5 JobName=wrap");
  const std::string one = FormatJobRecord(reply.jobs(0), {});
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(one.begin(), one.end(), '\n'))
      << "one record";
  EXPECT_NE(out.find("JobState=CANCELLED Reason=JobHeldUser"), std::string::npos) << out;
}

// A job of alice's from the reference cluster: 1 CPU, 100M per CPU, 1 h.
v1::JobInfo AliceJob(uint64_t id, const std::string& name) {
  v1::JobInfo job = RootJob(id, name);
  job.mutable_spec()->set_work_dir("/srv/slurm/jobs/alice/golden");
  job.set_user_id(1001);
  job.set_group_id(1001);
  job.set_user_name("alice");
  job.set_group_name("alice");
  return job;
}

// shared/reference/scontrol_show_job_bb_pending.txt
TEST_F(ScontrolFormatTest, PendingWithBackfillEstimateMatchesSlurm) {
  v1::JobInfo job = AliceJob(15401, "bbwait");
  job.set_priority(4294899362u);
  job.set_state(v1::PENDING);
  job.set_state_reason("Priority");
  job.set_submit_time(T("2026-11-22T05:14:46"));
  job.set_eligible_time(T("2026-11-22T05:14:46"));
  job.set_expected_start(T("2026-11-22T07:14:00"));
  std::string expected = WithoutSid(
      "JobId=15401 JobName=bbwait\n"
      "   UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A\n"
      "   Priority=4294899362 Nice=0 Account=research QOS=normal\n"
      "   JobState=PENDING Reason=Priority Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
      "   SubmitTime=2026-11-22T05:14:46 EligibleTime=2026-11-22T05:14:46\n"
      "   AccrueTime=2026-11-22T05:14:46\n"
      "   StartTime=2026-11-22T07:14:00 EndTime=2026-11-22T08:14:00 Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:49 "
      "Scheduler=Backfill:*\n"
      "   Partition=debug AllocNode:Sid=localhost:5370\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList= SchedNodeList=n2\n"
      "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=(null)\n"
      "   WorkDir=/srv/slurm/jobs/alice/golden\n"
      "   StdErr=/dev/null\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/dev/null\n"
      "   Power=\n"
      "   \n"
      "\n");
  // Skiff does not record when a job was last evaluated, nor backfill's planned nodes.
  expected =
      Replace(expected, "LastSchedEval=2026-11-22T05:14:49", "LastSchedEval=2026-11-22T05:14:46");
  expected = Replace(expected, "NodeList= SchedNodeList=n2\n", "NodeList=\n");
  EXPECT_EQ(FormatJobRecord(job, {}), expected);
}

// tests/reference/slurm-22.05/scontrol_show_job_after_scancel.txt: a pending job
// cancelled keeps its reason and backfill's plan; its start is its end.
TEST_F(ScontrolFormatTest, CancelledWhilePendingMatchesSlurm) {
  v1::JobInfo job = RootJob(15396, "waiting2");
  job.set_priority(4294899366u);
  job.set_state(v1::CANCELLED);
  job.set_state_reason("Priority");
  job.set_submit_time(T("2026-11-22T05:14:46"));
  job.set_eligible_time(T("2026-11-22T05:14:46"));
  job.set_start_time(T("2026-11-22T05:14:50"));  // ctld sends the end as the start
  job.set_end_time(T("2026-11-22T05:14:50"));
  job.set_expected_start(T("2026-11-22T06:14:46"));
  job.set_sched_nodes("n3");
  job.set_num_tasks(0);  // no -n, never ran
  std::string expected = WithoutSid(
      "JobId=15396 JobName=waiting2\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=4294899366 Nice=0 Account=research QOS=normal\n"
      "   JobState=CANCELLED Reason=Priority Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
      "   SubmitTime=2026-11-22T05:14:46 EligibleTime=2026-11-22T05:14:46\n"
      "   AccrueTime=2026-11-22T05:14:46\n"
      "   StartTime=2026-11-22T05:14:50 EndTime=2026-11-22T05:14:50 Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:49 "
      "Scheduler=Backfill\n"
      "   Partition=debug AllocNode:Sid=localhost:5370\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList= SchedNodeList=n3\n"
      "   NumNodes=1 NumCPUs=1 NumTasks=N/A CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
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
      "\n");
  // Skiff does not record when a job was last evaluated: it shows the start.
  expected =
      Replace(expected, "LastSchedEval=2026-11-22T05:14:49", "LastSchedEval=2026-11-22T05:14:50");
  EXPECT_EQ(FormatJobRecord(job, {}), expected);
}

// shared/reference/scontrol_show_job_bb_too_big.txt. Skiff refuses such a job
// at submit; the record is still how Skiff would show a job held up by its
// burst buffer with a start estimate.
TEST_F(ScontrolFormatTest, PendingBurstBufferMatchesSlurm) {
  v1::JobInfo job = AliceJob(15389, "toobig.sh");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_command("/srv/slurm/jobs/alice/golden/toobig.sh");
  spec->clear_stdout_pattern();
  spec->clear_stderr_pattern();
  spec->set_burst_buffer("#BB_LUA pool=fast capacity=100G\n");
  job.clear_stdout_path();
  job.clear_stderr_path();
  job.set_priority(4294899373u);
  job.set_state(v1::PENDING);
  job.set_state_reason("BurstBufferResources");
  job.set_burst_buffer_state("pending");
  job.set_submit_time(T("2026-11-22T05:14:40"));
  job.set_eligible_time(T("2026-11-22T05:14:40"));
  job.set_expected_start(T("2027-11-22T05:14:40"));
  std::string expected = WithoutSid(
      "JobId=15389 JobName=toobig.sh\n"
      "   UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A\n"
      "   Priority=4294899373 Nice=0 Account=research QOS=normal\n"
      "   JobState=PENDING Reason=BurstBufferResources Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A\n"
      "   SubmitTime=2026-11-22T05:14:40 EligibleTime=2026-11-22T05:14:40\n"
      "   AccrueTime=2026-11-22T05:14:40\n"
      "   StartTime=2027-11-22T05:14:40 EndTime=2027-11-22T06:14:40 Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-22T05:14:41 Scheduler=Main\n"
      "   Partition=debug AllocNode:Sid=localhost:5370\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList=\n"
      "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=1,mem=100M,node=1,billing=1,bb/lua=100G\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=/srv/slurm/jobs/alice/golden/toobig.sh\n"
      "   WorkDir=/srv/slurm/jobs/alice/golden\n"
      "   StdErr=/srv/slurm/jobs/alice/golden/slurm-15389.out\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/srv/slurm/jobs/alice/golden/slurm-15389.out\n"
      "   BurstBuffer=#BB_LUA pool=fast capacity=100G\n"
      "   BurstBufferState=pending\n"
      "   Power=\n"
      "   \n"
      "\n");
  // Skiff does not record when a job was last evaluated; its start estimates
  // all come from backfill (Slurm's main scheduler set this one).
  expected = Replace(expected, "LastSchedEval=2026-11-22T05:14:41 Scheduler=Main",
                     "LastSchedEval=2026-11-22T05:14:40 Scheduler=Backfill:*");
  EXPECT_EQ(FormatJobRecord(job, {}), expected);
}

// -B 2:4:1 as Slurm 22.05 shows it: boards and sockets per board stay 0, the
// cores and threads floors in ReqB:S:C:T, the sockets floor in Socks/Node.
TEST_F(ScontrolFormatTest, NodeLayoutFloorsShowAsSlurmShowsThem) {
  v1::JobInfo job = RootJob(89, "layout");
  job.mutable_spec()->set_sockets_per_node(2);
  job.mutable_spec()->set_cores_per_socket(4);
  job.mutable_spec()->set_threads_per_core(1);
  std::string out = FormatJobRecord(job, {});
  EXPECT_NE(out.find(" CPUs/Task=1 ReqB:S:C:T=0:0:4:1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("   Socks/Node=2 NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"), std::string::npos)
      << out;
  job.mutable_spec()->set_sockets_per_node(0);
  job.mutable_spec()->set_cores_per_socket(0);
  out = FormatJobRecord(job, {});
  EXPECT_NE(out.find(" ReqB:S:C:T=0:0:*:1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("   Socks/Node=* "), std::string::npos) << out;
}

TEST_F(ScontrolFormatTest, PlacementGpuAndMailOptionsShowAsSlurmShowsThem) {
  v1::JobInfo job = RootJob(88, "opts");
  v1::JobSpec* spec = job.mutable_spec();
  spec->add_nodelist("n1");
  spec->add_nodelist("n2");
  spec->add_nodelist("n4");
  spec->add_exclude("n3");
  spec->set_constraint("a100&ib");
  spec->set_exclusive(true);
  spec->set_kill_on_invalid_dep(true);
  spec->set_gpus("a100:4");
  spec->set_gpus_per_node("2");
  spec->add_gres("nic:1");
  spec->set_mem_per_gpu_mb(2048);
  spec->set_mail_type("fail,ALL,time_limit_80");
  job.set_state(v1::PENDING);
  job.set_num_nodes(2);
  std::string out = FormatJobRecord(job, {});
  for (const char* line : {
           "   ReqNodeList=n[1-2,4] ExcNodeList=n3\n",
           "   TRES=cpu=1,mem=200M,node=2,billing=1,gres/gpu=8,gres/nic=2\n",
           "   Features=a100&ib DelayBoot=00:00:00\n",
           "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n",
           "   Power=\n"
           "   KillOInInvalidDependent=Yes\n"
           "   MemPerTres=gres:gpu:2048\n"
           "   TresPerJob=gres:gpu:a100:4\n"
           "   TresPerNode=gres:nic:1,gres:gpu:2\n"
           "   MailUser=root "
           "MailType=INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT,TIME_LIMIT_80\n"
           "   \n\n",
       }) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\nin:\n" << out;
  }
  spec->set_mail_user("alice@lab.org");
  spec->set_mail_type("END,NONE");
  EXPECT_EQ(FormatJobRecord(job, {}).find("MailUser="), std::string::npos);
  spec->set_mail_type("end");
  EXPECT_NE(FormatJobRecord(job, {}).find("   MailUser=alice@lab.org MailType=END\n"),
            std::string::npos);
}

// --tmp as Slurm's job_info.c prints pn_min_tmp_disk (convert_num_unit,
// exact: a whole unit or MB).
TEST_F(ScontrolFormatTest, MinTmpDiskNodeIsTheJobsTmp) {
  v1::JobInfo job = RootJob(89, "tmp");
  job.mutable_spec()->set_min_tmp_disk_mb(10240);
  EXPECT_NE(FormatJobRecord(job, {}).find(" MinMemoryCPU=100M MinTmpDiskNode=10G\n"),
            std::string::npos)
      << FormatJobRecord(job, {});
  job.mutable_spec()->set_min_tmp_disk_mb(1500);
  EXPECT_NE(FormatJobRecord(job, {}).find(" MinTmpDiskNode=1500M\n"), std::string::npos);
}

// OverSubscribe= as Slurm 22.05 showed it on the anchor: OK by default, YES
// for -s, NO for --exclusive, USER for --exclusive=user (MCS for =mcs).
TEST_F(ScontrolFormatTest, OverSubscribeIsHowTheJobSharesItsNodes) {
  v1::JobInfo job = RootJob(90, "share");
  v1::JobSpec* spec = job.mutable_spec();
  auto shown = [&] {
    const std::string out = FormatJobRecord(job, {});
    const size_t at = out.find("OverSubscribe=");
    return at == std::string::npos ? out : out.substr(at, out.find(' ', at) - at);
  };
  EXPECT_EQ(shown(), "OverSubscribe=OK");
  spec->set_oversubscribe(true);
  EXPECT_EQ(shown(), "OverSubscribe=YES");
  spec->set_oversubscribe(false);
  spec->set_exclusive(true);
  EXPECT_EQ(shown(), "OverSubscribe=NO");
  spec->set_exclusive_kind("user");
  EXPECT_EQ(shown(), "OverSubscribe=USER");
  spec->set_exclusive_kind("mcs");
  EXPECT_EQ(shown(), "OverSubscribe=MCS");
}

// Slurm 22.05's job_info.c: "Container=PATH" on a line of its own after
// MailUser=, the record's last; a pyxis image adds nothing (Slurm's record
// never holds a SPANK option).
TEST_F(ScontrolFormatTest, ContainerLineAfterMailAsSlurmPrintsIt) {
  v1::JobInfo job = RootJob(89, "oci");
  job.mutable_spec()->set_mail_type("END");
  job.mutable_spec()->mutable_container()->set_bundle("/srv/oci/alpine");
  std::string out = FormatJobRecord(job, {});
  EXPECT_NE(out.find("   MailUser=root MailType=END\n"
                     "   Container=/srv/oci/alpine\n"
                     "   \n\n"),
            std::string::npos)
      << out;
  job.mutable_spec()->clear_mail_type();
  out = FormatJobRecord(job, {});
  EXPECT_NE(out.find("   Power=\n   Container=/srv/oci/alpine\n   \n\n"), std::string::npos) << out;
  ShowOptions one;
  one.one_liner = true;
  EXPECT_NE(FormatJobRecord(job, one).find(" Container=/srv/oci/alpine \n"), std::string::npos);
  job.mutable_spec()->mutable_container()->Clear();
  job.mutable_spec()->mutable_container()->set_image("ubuntu:22.04");
  EXPECT_EQ(FormatJobRecord(job, {}).find("Container="), std::string::npos);
}

TEST_F(ScontrolFormatTest, ArrayPatternsInOutputPaths) {
  v1::JobInfo job = RootJob(207, "arr");
  job.clear_stdout_path();
  job.mutable_spec()->set_stdout_pattern("/out/%A_%a.%j.log");
  job.set_array_job_id(200);
  job.set_array_task_id(7);
  EXPECT_NE(FormatJobRecord(job, {}).find("StdOut=/out/200_7.207.log\n"), std::string::npos);
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

// -d: the job's GRES and, per run of nodes holding the same, their CPU ids,
// memory and GPUs (Slurm's slurm_sprint_job_info).
TEST_F(ScontrolFormatTest, DetailsShowWhatEachNodeHolds) {
  v1::JobInfo job = RootJob(15391, "wide");
  job.set_state(v1::RUNNING);
  job.set_start_time(T("2026-11-22T05:14:44"));
  job.set_mem_per_node_mb(200);
  job.mutable_spec()->add_gres("gpu:a100:1");
  for (const char* name : {"n1", "n2", "n3"}) job.add_nodes(name);
  auto node = [&](std::vector<int> cpus, std::vector<int> gpus) {
    v1::JobNodeResources* r = job.add_node_resources();
    for (int c : cpus) r->add_cpu_ids(c);
    for (int g : gpus) r->add_gpu_indices(g);
  };
  node({0, 1}, {0});
  node({0, 1}, {0});
  node({2, 3, 5}, {1});
  ShowOptions options;
  options.now = T("2026-11-22T05:14:50");
  options.details = 1;
  const std::string out = FormatJobRecord(job, options);
  EXPECT_NE(out.find("ExitCode=0:0\n   DerivedExitCode=0:0\n   RunTime="), std::string::npos)
      << out;
  EXPECT_NE(out.find("   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
                     "   JOB_GRES=gpu:a100:3\n"
                     "     Nodes=n[1-2] CPU_IDs=0-1 Mem=200 GRES=gpu:a100:1(IDX:0)\n"
                     "     Nodes=n3 CPU_IDs=2-3,5 Mem=200 GRES=gpu:a100:1(IDX:1)\n"
                     "   MinCPUsNode=1"),
            std::string::npos)
      << out;
  // Without GPUs: JOB_GRES=(null) and an empty GRES=.
  job.mutable_spec()->clear_gres();
  job.clear_node_resources();
  node({0}, {});
  node({0}, {});
  node({0}, {});
  options.one_liner = true;
  const std::string line = FormatJobRecord(job, options);
  EXPECT_NE(line.find(" CoreSpec=* JOB_GRES=(null)   Nodes=n[1-3] CPU_IDs=0 Mem=200 GRES= "
                      "MinCPUsNode=1"),
            std::string::npos)
      << line;
  // Without -d, none of it.
  options.details = 0;
  EXPECT_EQ(FormatJobRecord(job, options).find("JOB_GRES"), std::string::npos);
  EXPECT_EQ(FormatJobRecord(job, options).find("DerivedExitCode"), std::string::npos);
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
  // shared/reference/scontrol_show_node_n3.txt.
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
  v1::NodeInfo n3 = ReferenceNode("n3", 16903, true);
  n3.set_cpu_load(91);
  n3.set_free_memory_mb(23439);
  n3.set_last_busy_time(T("2026-11-22T05:14:09"));
  n3.add_alloc_gpu_indices(1);
  EXPECT_EQ(FormatNodeRecord(n3, {}, 6818), expected);
  // Before the node reports, and with no GPU held: what Slurm prints then.
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
  // shared/reference/scontrol_show_partition.txt: pools fast (8 GiB) and bulk
  // (64 GiB) count in every partition's TRES.
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
  ShowOptions options;
  options.bb_total_bytes = 72ull << 30;
  EXPECT_EQ(FormatPartitionRecords(reply, options), expected);
  // Without burst buffers, no bb/lua.
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

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

// The reference cluster's burst_buffer.conf: pools fast (8 GiB in 1 MiB
// units) and bulk (64 GiB in 1 GiB units).
v1::GetBurstBuffersReply ReferenceBurstBuffers() {
  v1::GetBurstBuffersReply reply;
  reply.set_enabled(true);
  reply.set_flags("DisablePersistent");
  reply.set_stage_in_timeout(120);
  reply.set_stage_out_timeout(120);
  reply.set_validate_timeout(5);
  reply.set_other_timeout(120);
  v1::BbPoolInfo* fast = reply.add_pools();
  fast->set_name("fast");
  fast->set_granularity(kMiB);
  fast->set_total_bytes(8 * kGiB);
  v1::BbPoolInfo* bulk = reply.add_pools();
  bulk->set_name("bulk");
  bulk->set_granularity(kGiB);
  bulk->set_total_bytes(64 * kGiB);
  return reply;
}

// scontrol show licenses, as Slurm 22.05's info_lics.c prints it: sorted by
// name, one record or all, -o on one line; a total lowered below what jobs
// hold shows Free=0.
TEST_F(ScontrolFormatTest, LicensesAsSlurmPrintsThem) {
  v1::GetLicensesReply reply;
  EXPECT_EQ(FormatLicenses(reply, "", {}), "No licenses configured in Slurm.\n");
  auto add = [&](const char* name, int64_t total, int64_t used) {
    v1::LicenseInfo* license = reply.add_licenses();
    license->set_name(name);
    license->set_total(total);
    license->set_used(used);
  };
  add("matlab", 4, 1);
  add("fluent", 1, 2);
  EXPECT_EQ(FormatLicenses(reply, "", {}),
            "LicenseName=fluent\n    Total=1 Used=2 Free=0 Reserved=0 Remote=no\n"
            "LicenseName=matlab\n    Total=4 Used=1 Free=3 Reserved=0 Remote=no\n");
  ShowOptions one_liner;
  one_liner.one_liner = true;
  EXPECT_EQ(FormatLicenses(reply, "matlab", one_liner),
            "LicenseName=matlab Total=4 Used=1 Free=3 Reserved=0 Remote=no\n");
  EXPECT_EQ(FormatLicenses(reply, "ansys", {}), "");
}

TEST_F(ScontrolFormatTest, BurstBuffersIdleMatchSlurm) {
  // shared/reference/scontrol_show_burst_idle.txt
  EXPECT_EQ(FormatBurstBuffers(ReferenceBurstBuffers(), {}),
            "Name=lua DefaultPool=(null) Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0\n"
            "  PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=8GiB UsedSpace=0\n"
            "  PoolName[1]=bulk Granularity=1GiB TotalSpace=64GiB FreeSpace=64GiB UsedSpace=0\n"
            "  Flags=DisablePersistent\n"
            "  StageInTimeout=120 StageOutTimeout=120 ValidateTimeout=5 OtherTimeout=120\n"
            "  GetSysState=(null)\n"
            "  GetSysStatus=(null)\n");
}

TEST_F(ScontrolFormatTest, BurstBuffersBusyMatchSlurm) {
  // shared/reference/scontrol_show_burst_busy.txt
  v1::GetBurstBuffersReply reply = ReferenceBurstBuffers();
  reply.mutable_pools(1)->set_used_bytes(2 * kGiB);
  v1::BbAllocationInfo* a = reply.add_allocations();
  a->set_job_id(15392);
  a->set_create_time(T("2026-11-22T05:14:44"));
  a->set_pool("bulk");
  a->set_size_bytes(2 * kGiB);
  a->set_state("allocated");
  a->set_user_id(1001);
  a->set_user_name("alice");
  EXPECT_EQ(FormatBurstBuffers(reply, {}),
            "Name=lua DefaultPool=(null) Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0\n"
            "  PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=8GiB UsedSpace=0\n"
            "  PoolName[1]=bulk Granularity=1GiB TotalSpace=64GiB FreeSpace=62GiB "
            "UsedSpace=2GiB\n"
            "  Flags=DisablePersistent\n"
            "  StageInTimeout=120 StageOutTimeout=120 ValidateTimeout=5 OtherTimeout=120\n"
            "  GetSysState=(null)\n"
            "  GetSysStatus=(null)\n"
            "  Allocated Buffers:\n"
            "    JobID=15392 CreateTime=2026-11-22T05:14:44 Pool=bulk Size=2GiB State=allocated "
            "UserID=alice(1001)\n"
            "  Per User Buffer Use:\n"
            "    UserID=alice(1001) Used=2GiB\n");
}

TEST_F(ScontrolFormatTest, BurstBuffersStagingInMatchSlurm) {
  // shared/reference/scontrol_show_burst_stagein.txt
  v1::GetBurstBuffersReply reply = ReferenceBurstBuffers();
  reply.mutable_pools(0)->set_used_bytes(kGiB);
  v1::BbAllocationInfo* a = reply.add_allocations();
  a->set_job_id(15381);
  a->set_create_time(T("2026-11-22T05:14:12"));
  a->set_pool("fast");
  a->set_size_bytes(kGiB);
  a->set_state("allocated");
  a->set_user_id(1001);
  a->set_user_name("alice");
  EXPECT_EQ(FormatBurstBuffers(reply, {}),
            "Name=lua DefaultPool=(null) Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0\n"
            "  PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=7GiB UsedSpace=1GiB\n"
            "  PoolName[1]=bulk Granularity=1GiB TotalSpace=64GiB FreeSpace=64GiB UsedSpace=0\n"
            "  Flags=DisablePersistent\n"
            "  StageInTimeout=120 StageOutTimeout=120 ValidateTimeout=5 OtherTimeout=120\n"
            "  GetSysState=(null)\n"
            "  GetSysStatus=(null)\n"
            "  Allocated Buffers:\n"
            "    JobID=15381 CreateTime=2026-11-22T05:14:12 Pool=fast Size=1GiB State=allocated "
            "UserID=alice(1001)\n"
            "  Per User Buffer Use:\n"
            "    UserID=alice(1001) Used=1GiB\n");
}

TEST_F(ScontrolFormatTest, BurstBufferOptionalLinesUsersAndOneLiner) {
  v1::GetBurstBuffersReply reply = ReferenceBurstBuffers();
  reply.set_default_pool("fast");
  reply.add_allow_users("alice");
  reply.add_allow_users("bob");
  reply.add_deny_users("eve");  // AllowUsers wins, as in Slurm
  auto add = [&reply](uint64_t job, uint32_t uid, const char* name, uint64_t size) {
    v1::BbAllocationInfo* a = reply.add_allocations();
    a->set_job_id(job);
    a->set_pool("fast");
    a->set_size_bytes(size);
    a->set_state("staging-in");
    a->set_user_id(uid);
    a->set_user_name(name);
  };
  add(7, 1002, "bob", 3 * kMiB);
  add(8, 1001, "alice", kGiB);
  add(9, 1002, "bob", 1000000);
  ShowOptions options;
  options.now = T("2026-11-22T06:00:00");
  std::string out = FormatBurstBuffers(reply, options);
  EXPECT_EQ(out.substr(0, 28), "Name=lua DefaultPool=fast Gr");
  EXPECT_NE(out.find("OtherTimeout=120\n  AllowUsers=alice,bob\n  GetSysState"), std::string::npos)
      << out;
  EXPECT_NE(out.find("    JobID=9 CreateTime=2026-11-22T06:00:00 Pool=fast Size=1MB "
                     "State=staging-in UserID=bob(1002)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  Per User Buffer Use:\n"
                     "    UserID=alice(1001) Used=1GiB\n"
                     "    UserID=bob(1002) Used=4145728\n"),
            std::string::npos)
      << out;
  reply.clear_allow_users();
  EXPECT_NE(FormatBurstBuffers(reply, options).find("\n  DenyUsers=eve\n"), std::string::npos);

  ShowOptions one;
  one.one_liner = true;
  reply.clear_allocations();
  EXPECT_EQ(FormatBurstBuffers(reply, one),
            "Name=lua DefaultPool=fast Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0 "
            "PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=8GiB UsedSpace=0 "
            "PoolName[1]=bulk Granularity=1GiB TotalSpace=64GiB FreeSpace=64GiB UsedSpace=0 "
            "Flags=DisablePersistent "
            "StageInTimeout=120 StageOutTimeout=120 ValidateTimeout=5 OtherTimeout=120 "
            "DenyUsers=eve GetSysState=(null) GetSysStatus=(null)\n");
}

TEST_F(ScontrolFormatTest, NoBurstBufferPluginPrintsNothing) {
  v1::GetBurstBuffersReply reply = ReferenceBurstBuffers();
  reply.set_enabled(false);
  EXPECT_EQ(FormatBurstBuffers(reply, {}), "");
}

TEST_F(ScontrolFormatTest, BurstBufferSizes) {
  EXPECT_EQ(FormatBbSize(0), "0");
  EXPECT_EQ(FormatBbSize(1), "1");
  EXPECT_EQ(FormatBbSize(1536), "1536");
  EXPECT_EQ(FormatBbSize(3000), "3KB");
  EXPECT_EQ(FormatBbSize(1024), "1KiB");
  EXPECT_EQ(FormatBbSize(kMiB), "1MiB");
  EXPECT_EQ(FormatBbSize(8 * kGiB), "8GiB");
  EXPECT_EQ(FormatBbSize(2000000000), "2GB");
  EXPECT_EQ(FormatBbSize(1024 * kGiB), "1TiB");
  EXPECT_EQ(FormatBbSize(1024 * 1024 * kGiB), "1PiB");
  EXPECT_EQ(FormatBbSize(1500), "1500");
}

TEST_F(ScontrolFormatTest, BbStatusMatchesSlurm) {
  // shared/reference/scontrol_show_bbstat.txt and scontrol_show_bbstat_args.txt
  v1::GetBbStatusReply reply;
  reply.set_output("lab burst_buffer.lua status: root=/srv/slurm/bb");
  EXPECT_EQ(FormatBbStatus(reply), "lab burst_buffer.lua status: root=/srv/slurm/bb\n");
  reply.set_output("lab burst_buffer.lua status: root=/srv/slurm/bb args=foo,bar\n");
  EXPECT_EQ(FormatBbStatus(reply),
            "lab burst_buffer.lua status: root=/srv/slurm/bb args=foo,bar\n");
  EXPECT_EQ(FormatBbStatus(v1::GetBbStatusReply()), "");
}

TEST_F(ScontrolFormatTest, Ping) {
  EXPECT_EQ(FormatPing("vm", true), "Slurmctld(primary) at vm is UP\n");
  EXPECT_EQ(FormatPing("vm", false), "Slurmctld(primary) at vm is DOWN\n");
  // With a standby (issue 53): Slurm's lines, its box for root, who serves.
  EXPECT_EQ(FormatPings({{"head", false, false}, {"standby", true, true}}, /*root=*/true),
            "Slurmctld(primary) at head is DOWN\n"
            "Slurmctld(backup) at standby is UP\n"
            "*****************************************\n"
            "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
            "*****************************************\n"
            "Serving: standby\n");
  EXPECT_EQ(FormatPings({{"a", true, false}, {"b", true, true}, {"c", true, false}}, false),
            "Slurmctld(primary) at a is UP\n"
            "Slurmctld(backup1) at b is UP\n"
            "Slurmctld(backup2) at c is UP\n"
            "Serving: b\n");
}

TEST(FormatStepRecord, AsSlurmPrintsAStep) {
  v1::StepInfo step;
  step.set_job_id(42);
  step.set_uid(1001);
  step.set_partition("debug");
  v1::AcctStep* s = step.mutable_step();
  s->set_step_id("0");
  s->set_name("hostname");
  s->set_start_time(0);
  s->set_node_list("n[1-2]");
  s->set_num_nodes(2);
  s->set_alloc_cpus(4);
  s->set_ntasks(4);
  s->set_alloc_tres("cpu=4,mem=200M,node=2");
  s->set_srun_host("login1");
  s->set_srun_pid(4242);
  ShowOptions options;
  const std::string text = FormatStepRecord(step, options);
  EXPECT_EQ(text.substr(0, text.find(" StartTime=")), "StepId=42.0 UserId=1001");
  EXPECT_NE(text.find(" TimeLimit=UNLIMITED\n"
                      "   State=RUNNING Partition=debug NodeList=n[1-2]\n"
                      "   Nodes=2 CPUs=4 Tasks=4 Name=hostname Network=(null)\n"
                      "   TRES=cpu=4,mem=200M,node=2\n"
                      "   ResvPorts=(null)\n"
                      "   CPUFreqReq=Default Dist=Block\n"
                      "   SrunHost:Pid=login1:4242\n\n"),
            std::string::npos)
      << text;
  options.one_liner = true;
  const std::string line = FormatStepRecord(step, options);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
}

}  // namespace
}  // namespace skiff::cli
