// The node's scripts through the real daemons (issue 14): Prolog and Epilog as
// root around each batch job with Slurm's variables, TaskProlog's export/unset/
// print lines shaping the batch script, TaskEpilog after it; a failing Prolog
// drains the node ("Prolog error") and requeues the job held without running
// it, a failing Epilog drains the node and the job's result stands. A
// multi-node job runs them on every node (Slurm's default: no PrologFlags=Alloc).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// Each script logs what it saw; a flag file fail-<script>-<node> makes it fail,
// and stop-srun-<script>-<node> makes it first stop the srun whose pid the job
// wrote to srun-<job>.pid (srun then reads nothing, as on a loaded machine).
constexpr char kNodeScript[] =
    "#!/bin/sh\n"
    "echo \"$SLURM_JOB_ID $SLURM_JOB_USER $SLURMD_NODENAME $SLURM_SCRIPT_CONTEXT\" "
    ">> @DIR@/scripts.log\n"
    "if [ -e @DIR@/stop-srun-$SLURM_SCRIPT_CONTEXT-$SLURMD_NODENAME ]; then\n"
    "  while [ ! -s @DIR@/srun-$SLURM_JOB_ID.pid ]; do sleep 0.1; done\n"
    "  kill -STOP \"$(cat @DIR@/srun-$SLURM_JOB_ID.pid)\"\n"
    "fi\n"
    "if [ -e @DIR@/fail-$SLURM_SCRIPT_CONTEXT-$SLURMD_NODENAME ]; then\n"
    "  echo \"no scratch on $SLURMD_NODENAME\"; exit 3\n"
    "fi\n";
constexpr char kTaskProlog[] =
    "#!/bin/sh\n"
    "echo \"export FROM_TASK_PROLOG=yes-$SLURM_JOB_ID\"\n"
    "echo \"unset DROP_ME\"\n"
    "echo \"print hello from the task prolog\"\n";
constexpr char kTaskEpilog[] =
    "#!/bin/sh\n"
    "echo \"$SLURM_JOB_ID task_epilog $(id -un)\" >> @DIR@/scripts.log\n";

class NodeScriptsTest : public SharedClusterTest<NodeScriptsTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options = NodesWithoutGpus(2);
    options.files = {{"etc/prolog.sh", kNodeScript},
                     {"etc/epilog.sh", kNodeScript},
                     {"etc/task_prolog.sh", kTaskProlog},
                     {"etc/task_epilog.sh", kTaskEpilog}};
    options.extra_config =
        "Prolog=@DIR@/etc/prolog.sh\nEpilog=@DIR@/etc/epilog.sh\n"
        "TaskProlog=@DIR@/etc/task_prolog.sh\nTaskEpilog=@DIR@/etc/task_epilog.sh\n"
        "PrologEpilogTimeout=20\n";
    StartCluster(options);
  }

  std::string Dir() const { return cluster_->dir(); }
  std::string Submit(const std::string& args) {
    CommandResult r = cluster_->Run("cd /tmp && sbatch --parsable " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return id;
  }
  std::string Show(const std::string& what) { return cluster_->Run("scontrol show " + what).out; }
  bool WaitFor(const std::string& job, const std::string& text) {
    return Eventually(30, [&] { return absl::StrContains(Show("job " + job), text); });
  }
};

TEST_F(NodeScriptsTest, ScriptsRunAroundTheJobAndShapeItsEnvironment) {
  const std::string out = Dir() + "/plain-%j.out";
  const std::string id = Submit(absl::StrCat(
      "-w n1 -o ", out,
      " --export=ALL,DROP_ME=1 --wrap='echo \"F=$FROM_TASK_PROLOG D=${DROP_ME:-unset}\"'"));
  ASSERT_TRUE(WaitFor(id, "JobState=COMPLETED")) << Show("job " + id);
  EXPECT_EQ(ReadFile(absl::StrCat(Dir(), "/plain-", id, ".out")),
            absl::StrCat("hello from the task prolog\nF=yes-", id, " D=unset\n"));
  // The Epilog and TaskEpilog ran before the job's end was recorded.
  const std::string log = ReadFile(Dir() + "/scripts.log");
  EXPECT_TRUE(absl::StrContains(log, absl::StrCat(id, " root n1 prolog_slurmd\n"))) << log;
  EXPECT_TRUE(absl::StrContains(log, absl::StrCat(id, " task_epilog root\n"))) << log;
  EXPECT_TRUE(absl::StrContains(log, absl::StrCat(id, " root n1 epilog_slurmd\n"))) << log;
  EXPECT_LT(log.find(absl::StrCat(id, " task_epilog")), log.find(absl::StrCat(id, " root n1 ep")));
}

TEST_F(NodeScriptsTest, AFailingPrologDrainsTheNodeAndRequeuesTheJobHeld) {
  ASSERT_EQ(cluster_->Run("touch " + Dir() + "/fail-prolog_slurmd-n2").exit_code, 0);
  const std::string marker = Dir() + "/ran-" + std::to_string(getpid());
  const std::string id = Submit("-w n2 -o /dev/null --wrap='touch " + marker + "'");
  ASSERT_TRUE(WaitFor(id, "Restarts=1")) << Show("job " + id);
  const std::string held = Show("job " + id);
  EXPECT_TRUE(absl::StrContains(held, "JobState=PENDING")) << held;
  EXPECT_TRUE(std::regex_search(held, std::regex("Reason=launch.failed.requeued.held"))) << held;
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the job ran despite its Prolog failing";
  EXPECT_TRUE(absl::StrContains(Show("node n2"), "Reason=Prolog error")) << Show("node n2");
  EXPECT_TRUE(absl::StrContains(cluster_->Run("sinfo -R -h -o '%E|%N'").out, "Prolog error|n2"));
  // Fixed: the admin resumes the node and releases the job, which then runs.
  ASSERT_EQ(cluster_->Run("rm " + Dir() + "/fail-prolog_slurmd-n2").exit_code, 0);
  ASSERT_EQ(cluster_->Run("scontrol update NodeName=n2 State=RESUME").exit_code, 0);
  ASSERT_EQ(cluster_->Run("scontrol release " + id).exit_code, 0);
  ASSERT_TRUE(WaitFor(id, "JobState=COMPLETED")) << Show("job " + id);
  EXPECT_EQ(access(marker.c_str(), F_OK), 0);
  unlink(marker.c_str());
}

TEST_F(NodeScriptsTest, AFailingEpilogDrainsTheNodeAndTheJobCompletes) {
  ASSERT_EQ(cluster_->Run("touch " + Dir() + "/fail-epilog_slurmd-n1").exit_code, 0);
  const std::string id = Submit("-w n1 -o /dev/null --wrap=true");
  ASSERT_TRUE(WaitFor(id, "JobState=COMPLETED")) << Show("job " + id);
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StrContains(Show("node n1"), "Reason=Epilog error");
  })) << Show("node n1");
  ASSERT_EQ(cluster_->Run("rm " + Dir() + "/fail-epilog_slurmd-n1").exit_code, 0);
  ASSERT_EQ(cluster_->Run("scontrol update NodeName=n1 State=RESUME").exit_code, 0);
}

// Slurm runs the Epilog on every node of an ending job, and (without
// PrologFlags=Alloc) the Prolog on each other node before the job's first step
// there. The job's end is recorded only once every node has run its Epilog.
TEST_F(NodeScriptsTest, AMultiNodeJobRunsTheScriptsOnEveryNode) {
  const std::string out = Dir() + "/wide-%j.out";
  const std::string id =
      Submit("-N2 -o " + out +
             " --wrap='echo $SLURM_JOB_NODELIST $SLURM_NNODES $SLURM_JOB_CPUS_PER_NODE;"
             " srun -N2 -n2 true && srun -N2 -n2 printenv SLURMD_NODENAME | sort'");
  ASSERT_TRUE(WaitFor(id, "JobState=COMPLETED")) << Show("job " + id);
  const std::string output = ReadFile(absl::StrCat(Dir(), "/wide-", id, ".out"));
  // The batch script (after the TaskProlog's line) sees the whole allocation.
  EXPECT_TRUE(absl::StrContains(output, "\nn[1-2] 2 1(x2)\n")) << output;
  EXPECT_TRUE(absl::EndsWith(output, "\nn1\nn2\n")) << output;
  // Both nodes given back together once the job has ended.
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run("sinfo -h -N -n 'n[1-2]' -o %T").out == "idle\nidle\n";
  })) << cluster_->Run("sinfo -N").out;
  const std::string log = ReadFile(Dir() + "/scripts.log");
  for (const std::string node : {"n1", "n2"}) {
    const std::string prolog = absl::StrCat(id, " root ", node, " prolog_slurmd\n");
    const size_t first = log.find(prolog);
    EXPECT_NE(first, std::string::npos) << node << "\n" << log;
    EXPECT_EQ(log.find(prolog, first + 1), std::string::npos) << "Prolog twice on " << node;
    EXPECT_TRUE(absl::StrContains(log, absl::StrCat(id, " root ", node, " epilog_slurmd\n")))
        << node << "\n"
        << log;
  }
  // No step on n2: no Prolog there, but the Epilog runs.
  const std::string quiet = Submit("-N2 -o /dev/null --wrap=true");
  ASSERT_TRUE(WaitFor(quiet, "JobState=COMPLETED")) << Show("job " + quiet);
  const std::string after = ReadFile(Dir() + "/scripts.log");
  EXPECT_FALSE(absl::StrContains(after, absl::StrCat(quiet, " root n2 prolog_slurmd"))) << after;
  EXPECT_TRUE(absl::StrContains(after, absl::StrCat(quiet, " root n2 epilog_slurmd\n"))) << after;
}

TEST_F(NodeScriptsTest, AFailingEpilogOnAnotherNodeOfTheJobDrainsThatNode) {
  ASSERT_EQ(cluster_->Run("touch " + Dir() + "/fail-epilog_slurmd-n2").exit_code, 0);
  const std::string id = Submit("-N2 -o /dev/null --wrap=true");
  ASSERT_TRUE(WaitFor(id, "JobState=COMPLETED")) << Show("job " + id);
  // Reported with the job's end: drained by the time the end is recorded.
  EXPECT_TRUE(absl::StrContains(Show("node n2"), "Reason=Epilog error")) << Show("node n2");
  EXPECT_FALSE(absl::StrContains(Show("node n1"), "Reason=")) << Show("node n1");
  ASSERT_EQ(cluster_->Run("rm " + Dir() + "/fail-epilog_slurmd-n2").exit_code, 0);
  ASSERT_EQ(cluster_->Run("scontrol update NodeName=n2 State=RESUME").exit_code, 0);
}

// The failing node reports (drain, requeue, which ends the batch script and its
// srun) only once srun has heard why its step failed: here srun is stopped
// before the failure reaches it, and nothing is reported until it goes on.
TEST_F(NodeScriptsTest, AFailingPrologBeforeAStepOnAnotherNodeDrainsItAndRequeuesTheJobHeld) {
  ASSERT_EQ(cluster_->Run("touch " + Dir() + "/fail-prolog_slurmd-n2").exit_code, 0);
  ASSERT_EQ(cluster_->Run("touch " + Dir() + "/stop-srun-prolog_slurmd-n2").exit_code, 0);
  const std::string out = Dir() + "/stepprolog-%j.out";
  const std::string id =
      Submit("-N2 -o " + out + " --wrap='srun -N2 -n2 true & echo $! > " + Dir() +
             "/srun-$SLURM_JOB_ID.pid; wait $!; echo srun=$?; sleep 30'");
  // The step manager (n1) has sent srun the failure and the step's end, or
  // (the race this guards against) n2 reported before srun heard.
  const std::string waiting = absl::StrCat("StepId=", id, ".0: a task failed to start");
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           return absl::StrContains(cluster_->Log("noded-n1.log"), waiting) ||
                                  absl::StrContains(Show("node n2"), "Prolog error");
                         }))
      << Show("job " + id) << cluster_->Log("noded-n1.log");
  EXPECT_FALSE(absl::StrContains(Show("node n2"), "Prolog error")) << Show("node n2");
  EXPECT_EQ(ScontrolField(Show("job " + id), "Restarts"), "0") << Show("job " + id);
  // srun goes on, prints why its step failed and closes its stream: then n2 reports.
  const pid_t srun =
      static_cast<pid_t>(std::stol("0" + ReadFile(absl::StrCat(Dir(), "/srun-", id, ".pid"))));
  ASSERT_GT(srun, 0);
  ASSERT_EQ(kill(srun, SIGCONT), 0);
  ASSERT_TRUE(WaitFor(id, "Restarts=1")) << Show("job " + id);
  const std::string held = Show("job " + id);
  EXPECT_TRUE(absl::StrContains(held, "JobState=PENDING")) << held;
  EXPECT_TRUE(absl::StrContains(Show("node n2"), "Reason=Prolog error")) << Show("node n2");
  const std::string output = ReadFile(absl::StrCat(Dir(), "/stepprolog-", id, ".out"));
  EXPECT_TRUE(absl::StrContains(output, absl::StrCat("srun: error: Task launch for StepId=", id,
                                                     ".0 failed on node n2: Job prolog failed")))
      << output;
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  ASSERT_EQ(
      cluster_
          ->Run("rm " + Dir() + "/fail-prolog_slurmd-n2 " + Dir() + "/stop-srun-prolog_slurmd-n2")
          .exit_code,
      0);
  ASSERT_EQ(cluster_->Run("scontrol update NodeName=n2 State=RESUME").exit_code, 0);
}

}  // namespace
}  // namespace skiff::testing
