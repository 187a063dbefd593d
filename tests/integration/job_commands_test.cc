// The job commands a lab's scripts lean on, through the real daemons: sbatch
// --wait and --nice, submit-time refusals of what could never run, scontrol's
// options anywhere on the line, requeue / requeuehold of running and finished
// jobs, and updates of single array tasks and of the fields users change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class JobCommandsTest : public SharedClusterTest<JobCommandsTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options;
    options.nodes = 4;  // n3 and n4 have 2 GPUs each; partition debug has all four
    options.extra_config = "KillWait=2\n";
    StartCluster(options);
  }

  // Submits with --parsable; returns the job id text ("" on failure).
  std::string Submit(const std::string& args) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && (id.back() == '\n')) id.pop_back();
    return id;
  }
  std::string Field(const std::string& job, const std::string& key) {
    const std::string text = cluster_->Run("scontrol show job " + job).out;
    std::smatch match;
    if (!std::regex_search(text, match, std::regex(" " + key + "=([^ \n]*)"))) return "";
    return match[1];
  }
  bool WaitForField(const std::string& job, const std::string& key, const std::string& value,
                    int seconds = 30) {
    return Eventually(seconds, [&] { return Field(job, key) == value; });
  }
};

TEST_F(JobCommandsTest, SbatchWaitEndsWithTheJobsExitCode) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch --wait --wrap='sleep 1; exit 3'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("Submitted batch job "), std::string::npos);
  // An array: the highest exit code of its tasks, once every task has ended.
  r = cluster_->Run("cd /tmp && sbatch -W -a 1-3 --wrap='exit $SLURM_ARRAY_TASK_ID'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = cluster_->Run("cd /tmp && sbatch -W --wrap=true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// -t all lists finished jobs ctld still holds (MinJobAge), as Slurm's does;
// without -t they are hidden.
TEST_F(JobCommandsTest, SqueueStatesAllListsFinishedJobs) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable -W -J done --wrap='exit 2'");
  ASSERT_EQ(r.exit_code, 2) << r.err;
  const std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  EXPECT_EQ(cluster_->Run("squeue -h -t all -j " + id + " -o '%i %T'").out, id + " FAILED\n");
  EXPECT_EQ(cluster_->Run("squeue -h -t ALL -n done -o %t").out, "F\n");
  EXPECT_EQ(cluster_->Run("squeue -h -n done -o %i").out, "");
}

TEST_F(JobCommandsTest, RequestsNoNodeCouldEverHoldAreRefusedAtSubmit) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch -p debug -w n1 --gres=gpu:1 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  r = cluster_->Run("cd /tmp && sbatch --gres=tpu:1 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbatch: error: Invalid generic resource (gres) specification\n");
  // The same GPU on a node that has GPUs is fine.
  EXPECT_NE(Submit("-w n3 --gres=gpu:1 --wrap=true"), "");
}

TEST_F(JobCommandsTest, ScontrolOptionsMayFollowTheCommand) {
  const std::string id = Submit("-H --wrap=true");
  CommandResult before = cluster_->Run("scontrol -o show job " + id);
  CommandResult after = cluster_->Run("scontrol show job " + id + " -o");
  EXPECT_EQ(before.exit_code, 0);
  EXPECT_EQ(before.out, after.out);
  EXPECT_EQ(std::count(after.out.begin(), after.out.end(), '\n'), 1) << after.out;
  CommandResult bad = cluster_->Run("scontrol show job --bogus");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err,
            "scontrol: unrecognized option '--bogus'\n"
            "Try \"scontrol --help\" for more information\n");
  EXPECT_EQ(cluster_->Run("scontrol show reservation").out, "No reservations in the system\n");
  CommandResult reboot = cluster_->Run("scontrol reboot ASAP n1");
  EXPECT_EQ(reboot.exit_code, 1);
  EXPECT_EQ(reboot.err.rfind("scontrol: error: reboot is not supported by Skiff", 0), 0u)
      << reboot.err;
  // A held job has no steps (Slurm prints the step part as it parsed it).
  EXPECT_EQ(cluster_->Run("scontrol show step " + id).out, "Job step " + id + ". not found\n");
  cluster_->Run("scancel " + id);
}

// -d: the CPU ids and GPUs ctld chose on each node; jobs sharing a node never
// share a CPU id, and the GPU index is the one the job was given.
TEST_F(JobCommandsTest, ShowJobDetailsTheCpusAndGpusEachJobHolds) {
  const std::string a = Submit("-w n4 -c 1 --mem=10 --wrap='sleep 60'");
  const std::string b = Submit("-w n4 -c 1 --mem=10 --gres=gpu:1 -o " + cluster_->dir() +
                               "/skiff-d-%j.out "
                               "--wrap='echo gpus=$CUDA_VISIBLE_DEVICES; sleep 60'");
  ASSERT_TRUE(WaitForField(a, "JobState", "RUNNING"));
  ASSERT_TRUE(WaitForField(b, "JobState", "RUNNING"));
  auto details = [&](const std::string& id) {
    return cluster_->Run("scontrol show job -d " + id).out;
  };
  std::smatch ma, mb;
  const std::string da = details(a), db = details(b);
  ASSERT_TRUE(std::regex_search(
      da, ma, std::regex("\n   JOB_GRES=\\(null\\)\n     Nodes=n4 CPU_IDs=(\\d+) Mem=10 GRES=\n")))
      << da;
  ASSERT_TRUE(std::regex_search(
      db, mb,
      std::regex(
          "\n   JOB_GRES=gpu:1\n     Nodes=n4 CPU_IDs=(\\d+) Mem=10 GRES=gpu:1\\(IDX:(\\d)\\)\n")))
      << db;
  EXPECT_NE(ma[1], mb[1]);
  const std::string out = cluster_->dir() + "/skiff-d-" + b + ".out";
  ASSERT_TRUE(Eventually(30, [&] { return !ReadFile(out).empty(); }));
  EXPECT_EQ(ReadFile(out), "gpus=" + std::string(mb[2]) + "\n");
  // Without -d: none of it.
  EXPECT_EQ(cluster_->Run("scontrol show job " + a).out.find("JOB_GRES"), std::string::npos);
  cluster_->Run("scancel " + a + " " + b);
  unlink(out.c_str());
}

// --deadline: a time limit that cannot fit is refused at submit; a job whose
// limit stops fitting while it waits ends DEADLINE without running.
TEST_F(JobCommandsTest, DeadlinesRefuseOrEndJobsThatCannotFinishInTime) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch -t 1 --deadline=now+30 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: Requested time limit is invalid "
            "(missing or exceeds some limit)\n");
  r = cluster_->Run("cd /tmp && sbatch --deadline=someday --wrap=true");
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "sbatch: error: Invalid --deadline specification\n");
  // Held, so it waits; 60 s of limit fit before now+63 only for 3 more seconds.
  const std::string id = Submit("-H -t 1 --deadline=now+63 --wrap=true");
  EXPECT_NE(Field(id, "Deadline"), "N/A");
  ASSERT_TRUE(WaitForField(id, "JobState", "DEADLINE", 30)) << Field(id, "JobState");
  EXPECT_EQ(Field(id, "Reason"), "DeadLine");
  EXPECT_EQ(Field(id, "ExitCode"), "1:0");
  EXPECT_EQ(cluster_->Run("sacct -n -X -P -o State -j " + id).out, "DEADLINE\n");
}

// Every shepherd a node daemon forks is reaped once its job ends, also when
// the job's status was read while the shepherd was still exiting: after a burst
// of short jobs no node daemon keeps a zombie child.
TEST_F(JobCommandsTest, NodeDaemonsLeaveNoZombieShepherds) {
  const CommandResult r = cluster_->Run(
      "cd /tmp && for i in $(seq 20); do sbatch --parsable -o /dev/null --wrap=true; done");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually(60, [&] { return cluster_->Run("squeue -h").out.empty(); }))
      << cluster_->Run("squeue").out;
  auto zombies = [&] {
    int count = 0;
    for (const char* node : {"noded-n1", "noded-n2", "noded-n3"}) {
      const pid_t noded = cluster_->Pid(node);
      if (noded <= 0) continue;
      const CommandResult z = cluster_->Run(
          absl::StrCat("ps -eo ppid=,stat= | awk '$1 == ", noded, " && $2 ~ /^Z/' | wc -l"));
      count += atoi(z.out.c_str());
    }
    return count;
  };
  EXPECT_TRUE(Eventually(30, [&] { return zombies() == 0; })) << zombies() << " zombies";
}

// --export=NONE (as --get-user-env): the job starts from the user's login
// environment on the node, with what it was submitted with on top.
TEST_F(JobCommandsTest, ExportNoneLoadsTheLoginEnvironmentOnTheNode) {
  // In the cluster's own directory: another run of this test has the same job ids.
  const std::string out = cluster_->dir() + "/skiff-userenv-%j.out";
  const std::string id = Submit("--export=NONE -o " + out +
                                " --wrap='echo \"L=$LOGNAME H=$HOME G=$SLURM_GET_USER_ENV\"'");
  ASSERT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  const std::string path = cluster_->dir() + "/skiff-userenv-" + id + ".out";
  EXPECT_EQ(ReadFile(path), "L=root H=/root G=1\n");
  unlink(path.c_str());
}

// scontrol notify: the message lands in the running batch job's error output
// as Slurm's slurmstepd logs it there.
TEST_F(JobCommandsTest, NotifyWritesToTheRunningJobsErrorOutput) {
  const std::string id = Submit("-o " + cluster_->dir() + "/skiff-notify-%j.out --wrap='sleep 60'");
  ASSERT_TRUE(WaitForField(id, "JobState", "RUNNING"));
  CommandResult r = cluster_->Run("scontrol notify " + id + " checkpoint  now, please");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string path = cluster_->dir() + "/skiff-notify-" + id + ".out";
  EXPECT_EQ(ReadFile(path), "slurmstepd: error: checkpoint now, please\n");
  const std::string held = Submit("-H --wrap=true");
  r = cluster_->Run("scontrol notify " + held + " hello");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "notify message failure: Requested operation is presently disabled\n");
  r = cluster_->Run("scontrol notify 999999 hello");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "notify message failure: Invalid job id specified\n");
  r = cluster_->Run("scontrol notify " + id);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "too few arguments for keyword:notify\n");
  cluster_->Run("scancel " + id + " " + held);
  unlink(path.c_str());
}

TEST_F(JobCommandsTest, RequeueRunsARunningJobAgainAndRequeueHoldHoldsIt) {
  const std::string id = Submit("--wrap='sleep 60'");
  ASSERT_TRUE(WaitForField(id, "JobState", "RUNNING"));
  CommandResult r = cluster_->Run("scontrol requeue " + id);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitForField(id, "Restarts", "1"));
  EXPECT_TRUE(WaitForField(id, "JobState", "RUNNING"));
  r = cluster_->Run("scontrol requeuehold " + id);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitForField(id, "Reason", "job_requeued_in_held_state"));
  EXPECT_EQ(Field(id, "JobState"), "PENDING");
  EXPECT_EQ(Field(id, "Restarts"), "2");
  // A pending job cannot be requeued; Slurm's words.
  r = cluster_->Run("scontrol requeue " + id);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Job is pending execution for job " + id + "\n");
  cluster_->Run("scancel " + id);
}

TEST_F(JobCommandsTest, AFinishedJobCanBeRequeuedUnlessItSaidNoRequeue) {
  const std::string marker = cluster_->dir() + "/runs.txt";
  const std::string id = Submit("--wrap='echo run$SLURM_RESTART_COUNT >> " + marker + "'");
  ASSERT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  EXPECT_EQ(cluster_->Run("scontrol requeue " + id).exit_code, 0);
  EXPECT_TRUE(WaitForField(id, "Restarts", "1"));
  EXPECT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  EXPECT_EQ(ReadFile(marker), "run\nrun1\n");
  const std::string fixed = Submit("--no-requeue --wrap='sleep 60'");
  ASSERT_TRUE(WaitForField(fixed, "JobState", "RUNNING"));
  CommandResult r = cluster_->Run("scontrol requeue " + fixed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Requested operation is presently disabled for job " + fixed + "\n");
  cluster_->Run("scancel " + fixed);
}

TEST_F(JobCommandsTest, UpdatesReachOneArrayTaskOrTheWholeArray) {
  const std::string array = Submit("-H -a 1-3 --wrap=true");
  CommandResult r = cluster_->Run("scontrol update JobId=" + array + "_2 Nice=50 Comment=two");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(array + "_2", "Nice"), "50");
  EXPECT_EQ(Field(array + "_1", "Nice"), "0");
  r = cluster_->Run("scontrol update JobId=" + array + " ArrayTaskThrottle=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(array + "_3", "ArrayTaskThrottle"), "1");
  // hold/release take array tasks too.
  r = cluster_->Run("scontrol release " + array + "_1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitForField(array + "_1", "JobState", "COMPLETED"));
  EXPECT_EQ(Field(array + "_3", "JobState"), "PENDING");
  cluster_->Run("scancel " + array);
}

// squeue's -O TRES_ALLOC/FEATURES and %E, and scontrol show node's load,
// free memory, last busy time and GPUs in AllocTRES, as Slurm 22.05 prints
// them.
TEST_F(JobCommandsTest, SqueueAndShowNodeFillWhatSlurmFills) {
  const std::string running = Submit("-w n3 --gres=gpu:1 -o /dev/null --wrap='sleep 60'");
  ASSERT_TRUE(WaitForField(running, "JobState", "RUNNING"));
  const std::string waiting = Submit("-d afterok:" + running + " -o /dev/null --wrap=true");
  EXPECT_EQ(cluster_->Run("squeue -h -j " + waiting + " -o %E").out,
            "afterok:" + running + "(unfulfilled)\n");
  EXPECT_EQ(cluster_->Run("squeue -h -j " + running + " -O Dependency").out,
            "(null)              \n");
  const CommandResult tres = cluster_->Run("squeue -h -j " + running + " -O tres-alloc:60,Feature");
  EXPECT_EQ(tres.err, "");
  EXPECT_TRUE(std::regex_match(
      tres.out, std::regex("cpu=1,(mem=[0-9]+[MG],)?node=1,billing=1,gres/gpu=1 *\\(null\\) *\n")))
      << tres.out;
  const std::string node = cluster_->Run("scontrol show node n3").out;
  EXPECT_TRUE(std::regex_search(node, std::regex(" CPULoad=[0-9]+\\.[0-9][0-9]\n"))) << node;
  EXPECT_TRUE(std::regex_search(node, std::regex(" FreeMem=[0-9]+ "))) << node;
  EXPECT_TRUE(std::regex_search(node, std::regex("LastBusyTime=20[0-9-]+T"))) << node;
  EXPECT_TRUE(std::regex_search(node, std::regex("AllocTRES=cpu=1,(mem=[0-9]+[MG],)?gres/gpu=1\n")))
      << node;
  cluster_->Run("scancel " + running + " " + waiting);
}

// An array task without -o writes slurm-%A_%a.out; a pending task cancelled
// alone leaves its array, as in Slurm 22.05 ("Job 15_7 not found"), and
// stays in sacct.
TEST_F(JobCommandsTest, ArrayTasksNameTheirOutputAndCancelledPendingTasksLeaveTheArray) {
  const std::string dir = cluster_->dir() + "/array_out";
  ASSERT_EQ(cluster_->Run("mkdir -p " + dir).exit_code, 0);
  CommandResult r = cluster_->Run("cd " + dir + " && sbatch --parsable -a 1-2 --wrap='echo hi'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string outputs = r.out.substr(0, r.out.find_first_of(";\n"));
  EXPECT_TRUE(Eventually(30, [&] {
    return ReadFile(dir + "/slurm-" + outputs + "_1.out") == "hi\n" &&
           ReadFile(dir + "/slurm-" + outputs + "_2.out") == "hi\n";
  })) << cluster_->Run("ls " + dir).out;

  const std::string array = Submit("-H -a 1-10 -o /dev/null --wrap=true");
  r = cluster_->Run("scancel " + array + "_7");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Eventually(10, [&] {
    return cluster_->Run("scontrol show job " + array + "_7").out ==
           "Job " + array + "_7 not found\n";
  }));
  EXPECT_EQ(cluster_->Run("scontrol show job " + array + "_7").exit_code, 1);
  EXPECT_EQ(Field(array, "ArrayTaskId"), "1-6,8-10");
  const std::string listed = cluster_->Run("squeue -h -r -t all -j " + array + " -o %i").out;
  EXPECT_FALSE(absl::StrContains(listed, array + "_7\n")) << listed;
  EXPECT_TRUE(absl::StrContains(listed, array + "_8\n")) << listed;
  EXPECT_TRUE(absl::StrContains(cluster_->Run("sacct -n -X -P -o State -j " + array + "_7").out,
                                "CANCELLED"));
  // The rest cancelled with the array: one CANCELLED record, as Slurm keeps
  // its meta record until MinJobAge.
  ASSERT_EQ(cluster_->Run("scancel " + array).exit_code, 0);
  EXPECT_TRUE(Eventually(10, [&] { return Field(array, "JobState") == "CANCELLED"; }))
      << cluster_->Run("scontrol show job " + array).out;
  EXPECT_EQ(Field(array, "ArrayTaskId"), "1-6,8-10");
  EXPECT_EQ(cluster_->Run("squeue -h -t all -j " + array + " -o '%i %t'").out,
            array + "_[1-6,8-10] CA\n");
  EXPECT_EQ(cluster_->Run("scontrol show job " + array + "_7").out,
            "Job " + array + "_7 not found\n");
}

TEST_F(JobCommandsTest, UpdatesOfNodeListsAndFeaturesKeepAJobRunnable) {
  const std::string id = Submit("-H --wrap=true");
  CommandResult r = cluster_->Run("scontrol update JobId=" + id + " Features=nosuchfeature");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Invalid feature specification for job " + id + "\n");
  r = cluster_->Run("scontrol update JobId=" + id + " ExcNodeList=n[1-4]");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Requested node configuration is not available for job " + id + "\n");
  r = cluster_->Run("scontrol update JobId=" + id + " ExcNodeList=n[1-2] ReqNodeList=n4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(id, "ExcNodeList"), "n[1-2]");
  EXPECT_EQ(Field(id, "ReqNodeList"), "n4");
  cluster_->Run("scontrol release " + id);
  EXPECT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  EXPECT_EQ(Field(id, "NodeList"), "n4");
}

TEST_F(JobCommandsTest, NiceOrdersTheQueueAndOnlyPrivilegedUsersGoNegative) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to create a test user";
  ASSERT_TRUE(cluster_->EnsureUser("skiffnice").ok());
  CommandResult r = cluster_->RunAs("skiffnice", "sbatch --nice=-10 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbatch: error: Batch job submission failed: Invalid nice value\n");
  const std::string id = Submit("--nice=25 -H --wrap=true");
  EXPECT_EQ(Field(id, "Nice"), "25");
  r = cluster_->RunAs("skiffnice", "scontrol update JobId=" + id + " Nice=1");
  EXPECT_EQ(r.exit_code, 1);
  cluster_->Run("scancel " + id);
}

TEST_F(JobCommandsTest, OutputIsTruncatedOnAFirstRunAndAppendedOnRequeueOrWhenAsked) {
  const std::string out = cluster_->dir() + "/mode.out";
  ASSERT_EQ(cluster_->Run("cd /tmp && sbatch -W -o " + out + " --wrap='echo one'").exit_code, 0);
  EXPECT_EQ(ReadFile(out), "one\n");
  ASSERT_EQ(cluster_->Run("cd /tmp && sbatch -W -o " + out + " --wrap='echo two'").exit_code, 0);
  EXPECT_EQ(ReadFile(out), "two\n");
  ASSERT_EQ(
      cluster_->Run("cd /tmp && sbatch -W --open-mode=append -o " + out + " --wrap='echo three'")
          .exit_code,
      0);
  EXPECT_EQ(ReadFile(out), "two\nthree\n");
  // A requeued run keeps what the earlier run wrote.
  const std::string id = Submit("-o " + out + " --wrap='echo run$SLURM_RESTART_COUNT'");
  ASSERT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  ASSERT_EQ(cluster_->Run("scontrol requeue " + id).exit_code, 0);
  EXPECT_TRUE(WaitForField(id, "Restarts", "1"));
  EXPECT_TRUE(WaitForField(id, "JobState", "COMPLETED"));
  EXPECT_EQ(ReadFile(out), "run\nrun1\n");
}

TEST_F(JobCommandsTest, TasksPerNodeSetTheTaskCountAndEnvironment) {
  const std::string out = cluster_->dir() + "/tpn.out";
  CommandResult r = cluster_->Run(
      "cd /tmp && sbatch -W -N 2 --ntasks-per-node=2 -o " + out +
      " --wrap='echo $SLURM_NTASKS_PER_NODE $SLURM_TASKS_PER_NODE $SLURM_JOB_CPUS_PER_NODE'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), "2 2(x2) 2(x2)\n");
}

TEST_F(JobCommandsTest, TestOnlyEstimatesAndSubmitsNothing) {
  const std::string before = cluster_->Run("squeue -h -t all | wc -l").out;
  CommandResult r = cluster_->Run("cd /tmp && sbatch --test-only -N 2 --wrap=true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("sbatch: Job [0-9]+ to start at [0-9T:-]+ using 2 processors on nodes "
                        "n\\[[0-9]-[0-9]\\] in partition debug\n")))
      << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(cluster_->Run("squeue -h -t all | wc -l").out, before);
  r = cluster_->Run("cd /tmp && sbatch --test-only -p gpu --gres=gpu:3 --wrap=true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: allocation failure: Requested node configuration is not available\n");
}

// -v's "defined options" block, as Slurm 22.05's sbatch and salloc printed it
// for the same commands (../shared/slurm-anchor), before anything else.
TEST_F(JobCommandsTest, VerboseSbatchAndSallocPrintSlurmsDefinedOptions) {
  CommandResult r = cluster_->Run("cd /tmp && sbatch -v -n2 --wrap true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "sbatch: defined options\n"
            "sbatch: -------------------- --------------------\n"
            "sbatch: ntasks              : 2\n"
            "sbatch: verbose             : 1\n"
            "sbatch: wrap                : true\n"
            "sbatch: -------------------- --------------------\n"
            "sbatch: end of defined options\n");
  r = cluster_->Run("cd /tmp && salloc -v -N1 true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.err,
                               "salloc: defined options\n"
                               "salloc: -------------------- --------------------\n"
                               "salloc: nodes               : 1\n"
                               "salloc: verbose             : 1\n"
                               "salloc: -------------------- --------------------\n"
                               "salloc: end of defined options\n"
                               "salloc: Pending job allocation "))
      << r.err;
}

TEST_F(JobCommandsTest, SuspendStopsAJobAndResumeContinuesIt) {
  const std::string counter = cluster_->dir() + "/counter";
  const std::string shell = cluster_->dir() + "/counter.pid";
  const std::string id =
      Submit("-o /dev/null --wrap='echo $$ > " + shell +
             "; i=0; while true; do i=$((i+1)); echo $i > " + counter + "; sleep 0.1; done'");
  ASSERT_TRUE(WaitForField(id, "JobState", "RUNNING"));
  ASSERT_TRUE(Eventually(30, [&] { return !ReadFile(counter).empty(); }));
  CommandResult r = cluster_->Run("scontrol suspend " + id);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Field(id, "JobState"), "SUSPENDED");
  EXPECT_EQ(cluster_->Run("squeue -h -o %t -j " + id).out, "S\n");
  // No progress while suspended: the shell that counts is stopped.
  const pid_t writer = static_cast<pid_t>(atoi(ReadFile(shell).c_str()));
  ASSERT_GT(writer, 0);
  EXPECT_TRUE(Eventually(30, [&] { return ProcessState(writer) == 'T'; }))
      << "state " << ProcessState(writer);
  const std::string stopped = ReadFile(counter);
  r = cluster_->Run("scontrol suspend " + id);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Job is not running for job " + id + "\n");
  ASSERT_EQ(cluster_->Run("scontrol resume " + id).exit_code, 0);
  EXPECT_EQ(Field(id, "JobState"), "RUNNING");
  EXPECT_TRUE(Eventually(30, [&] { return ReadFile(counter) != stopped; }));
  cluster_->Run("scancel " + id);
  EXPECT_TRUE(WaitForField(id, "JobState", "CANCELLED"));
}

}  // namespace
}  // namespace skiff::testing
