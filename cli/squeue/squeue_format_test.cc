#include "cli/squeue/squeue_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include "absl/strings/str_split.h"
#include "client/job_text.h"

namespace skiff::cli {
namespace {

constexpr int64_t kNow = 1795324490;  // any instant; only differences matter

v1::JobInfo Job(uint64_t id, const std::string& partition, const std::string& name,
                const std::string& user, v1::JobState state, const std::string& reason,
                uint32_t priority) {
  v1::JobInfo job;
  job.set_job_id(id);
  job.mutable_spec()->set_name(name);
  job.set_partition(partition);
  job.set_user_name(user);
  job.set_state(state);
  job.set_state_reason(reason);
  job.set_priority(priority);
  job.set_num_nodes(1);
  job.set_num_cpus(1);
  job.set_time_limit(3600);
  job.set_submit_time(kNow - 10);
  return job;
}

v1::JobInfo Running(uint64_t id, const std::string& partition, const std::string& name,
                    const std::string& user, int64_t seconds, std::vector<std::string> nodes,
                    uint32_t priority) {
  v1::JobInfo job = Job(id, partition, name, user, v1::RUNNING, "None", priority);
  job.set_start_time(kNow - seconds);
  job.set_num_nodes(static_cast<int32_t>(nodes.size()));
  for (const std::string& n : nodes) job.add_nodes(n);
  return job;
}

// Task `task` of array `array_id`, as ctld reports it: its own job record.
v1::JobInfo Task(uint64_t job_id, uint64_t array_id, int32_t task, v1::JobState state,
                 const std::string& reason, uint32_t priority) {
  v1::JobInfo job = Job(job_id, "debug", "arr", "root", state, reason, priority);
  job.set_array_job_id(array_id);
  job.set_array_task_id(task);
  return job;
}

// The five pending tasks of array 15400 in shared/reference/squeue_busy.txt. In
// Slurm they are one record until they start; in Skiff each task is its own job,
// so their job ids need not follow the array's.
std::vector<v1::JobInfo> Array15400() {
  std::vector<v1::JobInfo> tasks;
  tasks.push_back(Task(15400, 15400, 1, v1::PENDING, "Priority", 4294899363u));
  for (int32_t t = 2; t <= 5; ++t) {
    tasks.push_back(Task(15410 + t, 15400, t, v1::PENDING, "Priority", 4294899363u));
  }
  return tasks;
}

// The queue of shared/reference/squeue_busy.txt, in a scrambled order so that the
// test exercises the sort. Held jobs 15398 and 15397 tie at priority 0; Slurm keeps
// the controller's order for ties, and its controller listed 15398 first, so that
// is the order fed here.
v1::GetJobsReply BusyQueue() {
  v1::GetJobsReply reply;
  reply.set_now(kNow);
  const char* kNodesDown =
      "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority "
      "partitions";
  std::vector<v1::JobInfo> jobs = {
      Running(15393, "gpu", "gpu2", "root", 5, {"n4"}, 4294899369u),
      Job(15402, "debug", "lowqos", "alice", v1::PENDING, "Priority", 4294899361u),
      Running(15391, "debug", "wide", "root", 6, {"n2", "n1"}, 4294899371u),
      Job(15398, "debug", "heldadmin", "root", v1::PENDING, "JobHeldAdmin", 0),
      Job(15396, "debug", "waiting2", "root", v1::PENDING, "Priority", 4294899366u),
      Job(15403, "gpu", "gpuwait", "root", v1::PENDING, kNodesDown, 4294899360u),
      Job(15397, "debug", "helduser", "root", v1::PENDING, "JobHeldUser", 0),
      Job(15395, "debug", "waiting", "root", v1::PENDING, "Resources", 4294899367u),
      Running(15392, "gpu", "gpubb", "alice", 5, {"n3"}, 4294899370u),
      Job(15399, "debug", "dep", "root", v1::PENDING, "Dependency", 4294899364u),
      Running(15394, "debug", "small", "root", 5, {"n3"}, 4294899368u),
      Job(15401, "debug", "bbwait", "alice", v1::PENDING, "Priority", 4294899362u),
  };
  std::vector<v1::JobInfo> array = Array15400();
  jobs.insert(jobs.begin() + 4, array.begin(), array.end());
  for (v1::JobInfo& job : jobs) *reply.add_jobs() = job;
  // A finished job: hidden unless -t asks for it.
  v1::JobInfo done = Running(15380, "debug", "old", "root", 100, {"n1"}, 1);
  done.set_state(v1::COMPLETED);
  done.set_end_time(kNow - 50);
  *reply.add_jobs() = done;
  return reply;
}

SqueueOptions At(int64_t now) {
  SqueueOptions options;
  options.now = now;
  return options;
}

TEST(FormatSqueue, DefaultFormatMatchesSlurmBusyQueue) {
  // shared/reference/squeue_busy.txt
  EXPECT_EQ(FormatSqueue(BusyQueue(), At(kNow)),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "             15395     debug  waiting     root PD       0:00      1 (Resources)\n"
            "             15396     debug waiting2     root PD       0:00      1 (Priority)\n"
            "             15399     debug      dep     root PD       0:00      1 (Dependency)\n"
            "       15400_[1-5]     debug      arr     root PD       0:00      1 (Priority)\n"
            "             15401     debug   bbwait    alice PD       0:00      1 (Priority)\n"
            "             15402     debug   lowqos    alice PD       0:00      1 (Priority)\n"
            "             15398     debug heldadmi     root PD       0:00      1 (JobHeldAdmin)\n"
            "             15397     debug helduser     root PD       0:00      1 (JobHeldUser)\n"
            "             15391     debug     wide     root  R       0:06      2 n[1-2]\n"
            "             15394     debug    small     root  R       0:05      1 n3\n"
            "             15403       gpu  gpuwait     root PD       0:00      1 (Nodes required "
            "for job are DOWN, DRAINED or reserved for jobs in higher priority partitions)\n"
            "             15392       gpu    gpubb    alice  R       0:05      1 n3\n"
            "             15393       gpu     gpu2     root  R       0:05      1 n4\n");
}

TEST(FormatSqueue, UnpaddedFieldsMatchSlurm) {
  // shared/reference/squeue_fmt_i_j_T_R.txt
  SqueueOptions options = At(kNow);
  options.format = "%i %j %T %R";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(BusyQueue(), options),
            "JOBID NAME STATE NODELIST(REASON)\n"
            "15395 waiting PENDING (Resources)\n"
            "15396 waiting2 PENDING (Priority)\n"
            "15399 dep PENDING (Dependency)\n"
            "15400_[1-5] arr PENDING (Priority)\n"
            "15401 bbwait PENDING (Priority)\n"
            "15402 lowqos PENDING (Priority)\n"
            "15398 heldadmin PENDING (JobHeldAdmin)\n"
            "15397 helduser PENDING (JobHeldUser)\n"
            "15391 wide RUNNING n[1-2]\n"
            "15394 small RUNNING n3\n"
            "15403 gpuwait PENDING (Nodes required for job are DOWN, DRAINED or reserved for jobs "
            "in higher priority partitions)\n"
            "15392 gpubb RUNNING n3\n"
            "15393 gpu2 RUNNING n4\n");
}

TEST(FormatSqueue, WidthsTruncateAndStateFilterMatchSlurm) {
  // shared/reference/squeue_states_pd.txt
  SqueueOptions options = At(kNow);
  options.format = "%.8i %.10j %.8T %.20R %.10Q";
  options.format_given = true;
  options.states = {v1::PENDING};
  options.states_given = true;
  EXPECT_EQ(FormatSqueue(BusyQueue(), options),
            "   JOBID       NAME    STATE     NODELIST(REASON)   PRIORITY\n"
            "   15395    waiting  PENDING          (Resources) 4294899367\n"
            "   15396   waiting2  PENDING           (Priority) 4294899366\n"
            "   15399        dep  PENDING         (Dependency) 4294899364\n"
            "15400_[1        arr  PENDING           (Priority) 4294899363\n"
            "   15401     bbwait  PENDING           (Priority) 4294899362\n"
            "   15402     lowqos  PENDING           (Priority) 4294899361\n"
            "   15398  heldadmin  PENDING       (JobHeldAdmin)          0\n"
            "   15397   helduser  PENDING        (JobHeldUser)          0\n"
            "   15403    gpuwait  PENDING (Nodes required for  4294899360\n");
}

TEST(FormatSqueue, ArrayTasksOneLineEachWithDashRMatchSlurm) {
  // shared/reference/squeue_r_array.txt: `squeue -r -j 15400`.
  v1::GetJobsReply reply;
  reply.set_now(kNow);
  for (const v1::JobInfo& task : Array15400()) *reply.add_jobs() = task;
  SqueueOptions options = At(kNow);
  options.array = true;
  options.states = client::AllJobStates();
  options.states_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "           15400_1     debug      arr     root PD       0:00      1 (Priority)\n"
            "           15400_2     debug      arr     root PD       0:00      1 (Priority)\n"
            "           15400_3     debug      arr     root PD       0:00      1 (Priority)\n"
            "           15400_4     debug      arr     root PD       0:00      1 (Priority)\n"
            "           15400_5     debug      arr     root PD       0:00      1 (Priority)\n");
}

TEST(FormatSqueue, OnlyPendingTasksWithTheSameReasonCollapse) {
  v1::GetJobsReply reply;
  reply.set_now(kNow);
  v1::JobInfo running = Task(100, 100, 1, v1::RUNNING, "None", 50);
  running.set_start_time(kNow - 5);
  running.add_nodes("n1");
  *reply.add_jobs() = running;
  for (int32_t t = 2; t <= 4; ++t)
    *reply.add_jobs() = Task(99 + t, 100, t, v1::PENDING, "Resources", 40);
  *reply.add_jobs() = Task(104, 100, 7, v1::PENDING, "Resources", 40);
  *reply.add_jobs() = Task(105, 100, 9, v1::PENDING, "JobHeldUser", 0);
  SqueueOptions options = At(kNow);
  options.format = "%i %t %R";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "JOBID ST NODELIST(REASON)\n"
            "100_[2-4,7] PD (Resources)\n"
            "100_9 PD (JobHeldUser)\n"
            "100_1 R n1\n");
}

TEST(FormatSqueue, CollapsedArrayShowsItsThrottleAndIds) {
  v1::GetJobsReply reply;
  for (int32_t t = 8; t <= 100; ++t) {
    v1::JobInfo task = Task(200 + t, 200, t, v1::PENDING, "JobArrayTaskLimit", 1);
    task.set_array_max_running(10);
    *reply.add_jobs() = task;
  }
  std::vector<SqueueRow> rows = SelectAndSortRows(reply, At(kNow));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(SqueueRowValue(rows[0], 'i', kNow), "200_[8-100%10]");
  EXPECT_EQ(SqueueRowValue(rows[0], 'K', kNow), "8-100%10");
  EXPECT_EQ(SqueueRowValue(rows[0], 'F', kNow), "200");
  EXPECT_EQ(SqueueRowValue(rows[0], 'A', kNow), "200");
  EXPECT_EQ(SqueueRowValue(rows[0], 'j', kNow), "arr");
}

// ctld sends a waiting array's tasks as one record (collapse_pending_arrays):
// the same line as when they come one by one; a group of one is a plain line.
TEST(FormatSqueue, ARecordCtldCollapsedIsOneLineLikeTheTasksItStandsFor) {
  v1::GetJobsReply reply;
  reply.set_now(kNow);
  v1::JobInfo waiting = Task(302, 300, 2, v1::PENDING, "Resources", 40);
  for (int32_t t : {2, 3, 4, 7}) waiting.add_collapsed_task_ids(t);
  *reply.add_jobs() = waiting;
  v1::JobInfo held = Task(309, 300, 9, v1::PENDING, "JobHeldUser", 0);
  held.add_collapsed_task_ids(9);
  *reply.add_jobs() = held;
  SqueueOptions options = At(kNow);
  options.format = "%i %t %R";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "JOBID ST NODELIST(REASON)\n"
            "300_[2-4,7] PD (Resources)\n"
            "300_9 PD (JobHeldUser)\n");
}

// `scancel J` of a held array, then `squeue -t all -j J` on Slurm 22.05
// (../shared/slurm-anchor): "262_[1-5] debug wrap root CA 0:00 1".
TEST(FormatSqueue, AnArrayCancelledBeforeItRanIsOneLine) {
  v1::GetJobsReply reply;
  reply.set_now(kNow);
  for (int32_t t = 1; t <= 5; ++t) {
    v1::JobInfo task = Task(261 + t, 262, t, v1::CANCELLED, "JobHeldUser", 0);
    task.set_cancelled_with_array(true);
    *reply.add_jobs() = task;
  }
  v1::JobInfo ran = Task(267, 262, 6, v1::CANCELLED, "None", 0);  // started, then cancelled
  ran.set_start_time(kNow - 5);
  *reply.add_jobs() = ran;
  SqueueOptions options = At(kNow);
  options.states = client::AllJobStates();
  options.states_given = true;
  options.format = "%i %t";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "JOBID ST\n"
            "262_[1-5] CA\n"
            "262_6 CA\n");
}

TEST(FormatSqueue, ArrayIdFieldsOfSingleJobs) {
  v1::JobInfo task = Task(15402, 15400, 3, v1::RUNNING, "None", 1);
  EXPECT_EQ(SqueueFieldValue(task, 'i', kNow), "15400_3");
  EXPECT_EQ(SqueueFieldValue(task, 'A', kNow), "15402");
  EXPECT_EQ(SqueueFieldValue(task, 'F', kNow), "15400");
  EXPECT_EQ(SqueueFieldValue(task, 'K', kNow), "3");
  v1::JobInfo plain = Job(7, "debug", "x", "root", v1::RUNNING, "None", 1);
  plain.set_array_task_id(-1);
  EXPECT_EQ(SqueueFieldValue(plain, 'i', kNow), "7");
  EXPECT_EQ(SqueueFieldValue(plain, 'A', kNow), "7");
  EXPECT_EQ(SqueueFieldValue(plain, 'F', kNow), "7");
  EXPECT_EQ(SqueueFieldValue(plain, 'K', kNow), "N/A");
  EXPECT_EQ(SqueueFieldHeader('F'), "ARRAY_JOB_ID");
  EXPECT_EQ(SqueueFieldHeader('K'), "ARRAY_TASK_ID");
  EXPECT_EQ(SqueueFieldHeader('A'), "JOBID");
}

TEST(FormatSqueue, StartShowsPendingJobsByExpectedStart) {
  setenv("TZ", "UTC", 1);
  tzset();
  v1::GetJobsReply reply;
  v1::JobInfo later = Job(11, "debug", "later", "root", v1::PENDING, "Resources", 9);
  later.set_expected_start(1795323600);  // 2026-11-22T05:00:00Z
  v1::JobInfo unknown = Job(12, "debug", "unknown", "root", v1::PENDING, "Priority", 8);
  v1::JobInfo sooner = Job(13, "debug", "sooner", "alice", v1::PENDING, "Priority", 7);
  sooner.set_expected_start(1795320000);  // 2026-11-22T04:00:00Z
  for (const v1::JobInfo& j : {later, unknown, sooner}) *reply.add_jobs() = j;
  SqueueOptions options = At(1795310000);  // before both estimates
  options.start = true;
  options.states = {v1::PENDING};
  options.states_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
            "SCHEDNODES           NODELIST(REASON)\n"
            "                13     debug   sooner    alice PD 2026-11-22T04:00:00      1 "
            "(null)               (Priority)\n"
            "                11     debug    later     root PD 2026-11-22T05:00:00      1 "
            "(null)               (Resources)\n"
            "                12     debug  unknown     root PD                 N/A      1 "
            "(null)               (Priority)\n");
}

TEST(FormatSqueue, LongFormatFieldsIncludeBurstBuffer) {
  v1::GetJobsReply reply;
  v1::JobInfo job = Job(15392, "gpu", "gpubb", "alice", v1::PENDING, "Priority", 1);
  job.mutable_spec()->set_burst_buffer("#BB_LUA pool=fast capacity=1G");
  job.set_burst_buffer_state("staging-in");
  *reply.add_jobs() = job;
  *reply.add_jobs() = Job(15393, "gpu", "plain", "root", v1::PENDING, "Priority", 0);
  SqueueOptions options = At(kNow);
  options.format_fields = "JobID:.8|,burstbuffer:31,BurstBufferState";
  options.format_fields_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "   JOBID|BURST_BUFFER                   BURST_BUFFER_STATE  \n"
            "   15392|#BB_LUA pool=fast capacity=1G  staging-in          \n"
            "   15393|(null)                         (null)              \n");
}

TEST(ParseSqueueLongFormat, DefaultsAndBadNamesAsSlurm) {
  std::vector<SqueueFormatItem> items = ParseSqueueLongFormat("name,ArrayTaskID:.5").items;
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].field, 'j');
  EXPECT_EQ(items[0].width, 20);
  EXPECT_FALSE(items[0].right);
  EXPECT_EQ(items[1].field, 'K');
  EXPECT_EQ(items[1].width, 5);
  EXPECT_TRUE(items[1].right);
  SqueueFormatSpec bad = ParseSqueueLongFormat("jobid,bogus:3|");
  EXPECT_EQ(bad.errors, std::vector<std::string>{"Invalid job format specification: bogus"});
  ASSERT_EQ(bad.items.size(), 2u);  // the bad field keeps only its suffix
  EXPECT_EQ(bad.items[1].literal, "|");
  EXPECT_TRUE(ParseSqueueLongFormat("").items.empty());
}

// Every -O name of Slurm 22.05's squeue (src/squeue/opts.c) is accepted.
TEST(ParseSqueueLongFormat, AcceptsEveryNameSlurmKnows) {
  const std::string kNames =
      "account,container,jobid,gres,batchhost,burstbuffer,burstbufferstate,cluster,"
      "delayboot,mincpus,numcpus,mintmpdisk,numnodes,numtasks,endtime,dependency,feature,"
      "clusterfeature,prefer,arrayjobid,groupname,groupid,oversubscribe,shared,sockets,"
      "jobarrayid,cores,name,threads,admin_comment,system_comment,comment,arraytaskid,"
      "timelimit,timeleft,minmemory,timeused,reqnodes,nodelist,command,contiguous,"
      "priority,partition,qos,prioritylong,reason,reasonlist,selectjobinfo,starttime,"
      "lastschedeval,statecompact,state,userid,username,reservation,submittime,"
      "pendingtime,wckey,licenses,corespec,nice,schednodes,sct,workdir,accruetime,"
      "allocnodes,allocsid,associd,batchflag,boardspernode,cpuspertask,cpus-per-task,"
      "derivedec,eligibletime,exit_code,origin,originraw,siblingsactive,"
      "siblingsactiveraw,siblingsviable,siblingsviableraw,maxcpus,maxnodes,network,"
      "ntpercore,ntpernode,ntpersocket,ntperboard,preempttime,profile,reboot,reqswitch,"
      "requeue,resizetime,restartcnt,sperboard,stderr,stdin,stdout,mintime,wait4switch,"
      "cpus-per-tres,mem-per-tres,tres,tres-alloc,tres-bind,tres-freq,tres-per-job,"
      "tres-per-node,tres-per-socket,tres-per-task,mcslabel,deadline,packjobid,hetjobid,"
      "packjoboffset,hetjoboffset,packjobidset,hetjobidset";
  for (absl::string_view item : absl::StrSplit(kNames, ',')) {
    const std::string name(item);
    SqueueFormatSpec spec = ParseSqueueLongFormat(name);
    EXPECT_TRUE(spec.errors.empty()) << name;
    ASSERT_EQ(spec.items.size(), 1u) << name;
    EXPECT_NE(SqueueFieldHeader(spec.items[0].field), "") << name;
  }
  EXPECT_EQ(SqueueFieldHeader(ParseSqueueLongFormat("TRES-Alloc").items[0].field), "TRES_ALLOC");
  EXPECT_EQ(SqueueFieldHeader(ParseSqueueLongFormat("siblingsviableraw").items[0].field),
            "VIALBLE_SIBLINGS_RAW");
}

// Slurm's output for `squeue -O tres-alloc,Feature,Dependency:30`: the job's
// TRES as scontrol prints them, its -C text, its remaining dependencies.
TEST(FormatSqueue, TresAllocFeatureAndDependencyAsSlurm) {
  v1::GetJobsReply reply;
  v1::JobInfo running = Running(12, "gpu", "train", "root", 5, {"n3"}, 1);
  running.set_mem_per_node_mb(100);
  running.mutable_spec()->add_gres("gpu:1");
  running.mutable_spec()->set_constraint("a100");
  *reply.add_jobs() = running;
  v1::JobInfo waiting = Job(13, "debug", "after", "root", v1::PENDING, "Dependency", 1);
  waiting.set_dependency("afterok:12");
  waiting.set_mem_per_node_mb(100);
  *reply.add_jobs() = waiting;
  SqueueOptions options = At(kNow);
  // Cut at its width, as Slurm cuts it.
  options.format_fields = "JobID:6,tres-alloc:40,Feature:8,Dependency:30";
  options.format_fields_given = true;
  EXPECT_EQ(
      FormatSqueue(reply, options),
      "JOBID TRES_ALLOC                              FEATURESDEPENDENCY                    \n"
      "13    cpu=1,mem=100M,node=1,billing=1         (null)  afterok:12(unfulfilled)       \n"
      "12    cpu=1,mem=100M,node=1,billing=1,gres/gpua100    (null)                        \n");
  options.format_given = true;
  options.format = "%i %E";
  EXPECT_EQ(FormatSqueue(reply, options),
            "JOBID DEPENDENCY\n13 afterok:12(unfulfilled)\n12 (null)\n");
}

TEST(FormatSqueue, OneUsersJobsMatchSlurm) {
  // shared/reference/squeue_user_anchoruser.txt: ctld did the -u filtering.
  v1::GetJobsReply busy = BusyQueue();
  v1::GetJobsReply reply;
  for (const v1::JobInfo& job : busy.jobs()) {
    if (job.user_name() == "alice") *reply.add_jobs() = job;
  }
  EXPECT_EQ(FormatSqueue(reply, At(kNow)),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "             15401     debug   bbwait    alice PD       0:00      1 (Priority)\n"
            "             15402     debug   lowqos    alice PD       0:00      1 (Priority)\n"
            "             15392       gpu    gpubb    alice  R       0:05      1 n3\n");
}

TEST(FormatSqueue, EmptyQueueIsJustTheHeader) {
  // shared/reference/squeue_empty.txt
  EXPECT_EQ(
      FormatSqueue(v1::GetJobsReply(), At(kNow)),
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n");
  SqueueOptions options = At(kNow);
  options.no_header = true;
  EXPECT_EQ(FormatSqueue(v1::GetJobsReply(), options), "");
}

TEST(FormatSqueue, FinishedJobsShowWhenAskedWithElapsedTime) {
  SqueueOptions options = At(kNow);
  options.states = {v1::COMPLETED};
  options.states_given = true;
  options.format = "%i %t %M %N %R";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(BusyQueue(), options),
            "JOBID ST TIME NODELIST NODELIST(REASON)\n"
            "15380 CD 0:50 n1 n1\n");
}

TEST(FormatSqueue, LongFormatTruncatesTimeLimitHeaderLikeSlurm) {
  SqueueOptions options = At(kNow);
  options.long_format = true;
  v1::GetJobsReply reply;
  *reply.add_jobs() = Running(7, "debug", "wide", "root", 6, {"n1"}, 1);
  std::string out = FormatSqueue(reply, options);
  EXPECT_EQ(
      out,
      "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES "
      "NODELIST(REASON)\n"
      "                 7     debug     wide     root  RUNNING       0:06   1:00:00      1 n1\n");
}

TEST(FormatSqueue, StateDescriptionWinsOverReasonCode) {
  v1::JobInfo job = Job(9, "debug", "x", "root", v1::PENDING, "PrologFailed", 1);
  job.set_state_description("prolog exited 3");
  EXPECT_EQ(SqueueFieldValue(job, 'R', kNow), "(prolog exited 3)");
  EXPECT_EQ(SqueueFieldValue(job, 'r', kNow), "prolog exited 3");
}

// -O container: Slurm's OCI bundle, "(null)" for a job without one (and for a
// pyxis image, which Slurm's job record does not hold).
TEST(FormatSqueue, ContainerIsTheBundle) {
  v1::JobInfo job = Running(9, "gpu", "x", "root", 3700, {"n3"}, 1);
  const char field = ParseSqueueLongFormat("container").items[0].field;
  EXPECT_EQ(SqueueFieldHeader(field), "CONTAINER");
  EXPECT_EQ(SqueueFieldValue(job, field, kNow), "(null)");
  job.mutable_spec()->mutable_container()->set_image("ubuntu");
  EXPECT_EQ(SqueueFieldValue(job, field, kNow), "(null)");
  job.mutable_spec()->mutable_container()->Clear();
  job.mutable_spec()->mutable_container()->set_bundle("/srv/oci/alpine");
  EXPECT_EQ(SqueueFieldValue(job, field, kNow), "/srv/oci/alpine");
}

TEST(FormatSqueue, MoreFields) {
  v1::JobInfo job = Running(9, "gpu", "x", "root", 3700, {"n3", "n4"}, 1);
  job.mutable_spec()->add_gres("gpu:1");
  job.mutable_spec()->set_mem_per_cpu_mb(100);
  job.set_num_cpus(4);
  EXPECT_EQ(SqueueFieldValue(job, 'b', kNow), "gres:gpu:1");
  EXPECT_EQ(SqueueFieldValue(job, 'C', kNow), "4");
  EXPECT_EQ(SqueueFieldValue(job, 'D', kNow), "2");
  EXPECT_EQ(SqueueFieldValue(job, 'M', kNow), "1:01:40");
  EXPECT_EQ(SqueueFieldValue(job, 'l', kNow), "1:00:00");
  EXPECT_EQ(SqueueFieldValue(job, 'L', kNow), "0:00");
  EXPECT_EQ(SqueueFieldValue(job, 'm', kNow), "100M");
  EXPECT_EQ(SqueueFieldValue(job, 'a', kNow), "(null)");
  job.set_time_limit(-1);
  EXPECT_EQ(SqueueFieldValue(job, 'l', kNow), "UNLIMITED");
  EXPECT_EQ(SqueueFieldValue(job, 'L', kNow), "UNLIMITED");
}

TEST(ParseSqueueFormat, SplitsOnPercentAsSlurmsStrtok) {
  std::vector<SqueueFormatItem> items = ParseSqueueFormat("id=%.5i%%|%-4j").items;
  // "%%" is no escape in Slurm: the empty piece between the two '%' vanishes,
  // and "|" follows as a field letter's... no: '|' is not a letter (see below).
  ASSERT_GE(items.size(), 3u);
  EXPECT_EQ(items[0].literal, "id=");
  EXPECT_EQ(items[1].field, 'i');
  EXPECT_EQ(items[1].width, 5);
  EXPECT_TRUE(items[1].right);
}

TEST(ParseSqueueFormat, ABadFieldIsReportedAndPrintedAsWritten) {
  SqueueFormatSpec spec = ParseSqueueFormat("%i %!x %.5");
  EXPECT_EQ(spec.errors, (std::vector<std::string>{"Invalid job format specification: !",
                                                   "Invalid job format specification: "}));
  v1::GetJobsReply reply;
  *reply.add_jobs() = Job(5, "debug", "n", "root", v1::PENDING, "Priority", 1);
  SqueueOptions options = At(kNow);
  options.format = "%i %!x";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options), "JOBID %!x\n5 %!x\n");
  EXPECT_TRUE(ParseSqueueFormat("%y %z %B").errors.empty());  // every letter is a field
}

TEST(FormatSqueue, NodeListsAndTimesAreNeverCut) {
  v1::GetJobsReply reply;
  *reply.add_jobs() = Running(5, "debug", "n", "root", 3700, {"node1", "node2", "node9"}, 1);
  SqueueOptions options = At(kNow);
  options.format = "%.3N|%.2M|%.2R|%.2j";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options),
            "NODELIST|TI|NODELIST(REASON)|NA\nnode[1-2,9]|1:01:40|node[1-2,9]| n\n");
}

TEST(FormatSqueue, SchedNodesAndStartOfPendingJobs) {
  v1::JobInfo job = Job(5, "debug", "n", "root", v1::PENDING, "Resources", 1);
  EXPECT_EQ(SqueueFieldValue(job, 'Y', kNow), "(null)");
  job.set_sched_nodes("n[1-2]");
  EXPECT_EQ(SqueueFieldValue(job, 'Y', kNow), "n[1-2]");
}

// -L: jobs whose -L names one of the licenses (counts aside), in the usual
// states; %W prints the job's -L as written.
TEST(FormatSqueue, LicensesSelectTheJobsAskingForThemAndStepsShowSlurmsHeader) {
  SqueueOptions options = At(kNow);
  options.licenses_given = true;
  options.licenses = {"fluent", "matlab"};
  EXPECT_EQ(FormatSqueue(BusyQueue(), options),
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
            "NODELIST(REASON)\n");
  v1::GetJobsReply reply = BusyQueue();
  reply.mutable_jobs(0)->mutable_spec()->set_licenses("matlab:2,ansys");
  reply.mutable_jobs(1)->mutable_spec()->set_licenses("matlabx");
  options.format = "%i %W";
  options.format_given = true;
  EXPECT_EQ(FormatSqueue(reply, options), "JOBID LICENSES\n15393 matlab:2,ansys\n");
  EXPECT_EQ(SqueueFieldValue(reply.jobs(2), 'W', kNow), "(null)");
  EXPECT_EQ(FormatSqueueSteps("", false, {}, 0),
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n");
  EXPECT_EQ(FormatSqueueSteps("", true, {}, 0), "");
}

TEST(FormatSqueueSteps, ListsBatchAndSrunStepsAsSlurm) {
  std::vector<v1::StepInfo> steps(2);
  steps[0].set_job_id(15);
  steps[0].set_user("alice");
  steps[0].set_uid(1001);
  steps[0].set_partition("debug");
  steps[0].mutable_step()->set_step_id("batch");
  steps[0].mutable_step()->set_name("batch");
  steps[0].mutable_step()->set_start_time(1000);
  steps[0].mutable_step()->set_node_list("n1");
  steps[1] = steps[0];
  steps[1].set_array_job_id(14);
  steps[1].set_array_task_id(1);
  steps[1].mutable_step()->set_step_id("0");
  steps[1].mutable_step()->set_name("train_a_model");
  steps[1].mutable_step()->set_start_time(1030);
  steps[1].mutable_step()->set_node_list("n[1-2]");
  steps[1].mutable_step()->set_ntasks(4);
  EXPECT_EQ(FormatSqueueSteps("", false, steps, 1095),
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "       15.batch    batch     debug    alice      1:35 n1\n"
            "         14_1.0 train_a_     debug    alice      1:05 n[1-2]\n");
  EXPECT_EQ(FormatSqueueSteps("%i|%A|%U|%l", true, steps, 1095),
            "15.batch|0|1001|UNLIMITED\n14_1.0|4|1001|UNLIMITED\n");
}

TEST(SqueueNeedsOnlySummary, UnlessAFieldOrSortKeyReadsTheSubmittedSpec) {
  SqueueOptions options = At(kNow);
  EXPECT_TRUE(SqueueNeedsOnlySummary(options));  // the default format and sort
  options.long_format = true;
  EXPECT_TRUE(SqueueNeedsOnlySummary(options));
  options.long_format = false;
  options.start = true;
  EXPECT_TRUE(SqueueNeedsOnlySummary(options));
  options.start = false;
  options.format_given = true;
  options.format = "%i %j %u %k %f %n %x %Y %S %R";
  EXPECT_TRUE(SqueueNeedsOnlySummary(options));
  for (const char* format : {"%i %m", "%Z", "%o", "%b", "%E", "%h"}) {
    options.format = format;
    EXPECT_FALSE(SqueueNeedsOnlySummary(options)) << format;
  }
  options.format = "%i";
  options.sort = "-m";
  EXPECT_FALSE(SqueueNeedsOnlySummary(options));
  options.format_given = false;
  options.sort = "";
  options.format_fields_given = true;
  options.format_fields = "JobID,WorkDir";
  EXPECT_FALSE(SqueueNeedsOnlySummary(options));
  options.format_fields = "JobID,Name,BurstBuffer";
  EXPECT_TRUE(SqueueNeedsOnlySummary(options));
}

}  // namespace
}  // namespace skiff::cli
