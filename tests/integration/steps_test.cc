// Job steps through the real daemons: srun inside batch jobs, with the step
// manager on the job's first node's noded and the tasks on each node.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

class StepsTest : public SharedClusterTest<StepsTest> {
 protected:
  static void SetUpTestSuite() {
    StartCluster(NodesWithGpus(3, 1));  // the last node has 2 fake GPUs
  }

  // Runs `script` as a batch job with `options` and waits for its end; returns
  // its output (stdout and stderr together).
  std::string RunJob(const std::string& options, const std::string& script,
                     int* exit_code = nullptr) {
    const std::string out = absl::StrCat(cluster_->dir(), "/job-", ++jobs_, ".out");
    const std::string file = absl::StrCat(cluster_->dir(), "/job-", jobs_, ".sh");
    cluster_->Run(absl::StrCat("printf '%s\\n' '#!/bin/bash' > ", file, " && cat >> ", file,
                               " <<'EOS'\n", script, "\nEOS"));
    CommandResult r =
        cluster_->Run(absl::StrCat("cd /tmp && sbatch --wait -o ", out, " ", options, " ", file));
    if (exit_code != nullptr) *exit_code = r.exit_code;
    return ReadFile(out);
  }

  static std::vector<std::string> Lines(const std::string& text) {
    return absl::StrSplit(text, '\n', absl::SkipEmpty());
  }

  static int jobs_;
};

int StepsTest::jobs_ = 0;

TEST_F(StepsTest, FourLabelledTasksOnTwoNodes) {
  const std::string out = RunJob("-N2 -n4", "srun -l printenv SLURMD_NODENAME");
  std::vector<std::string> lines = Lines(out);
  ASSERT_EQ(lines.size(), 4u) << out;
  std::sort(lines.begin(), lines.end());
  std::set<std::string> nodes;
  for (int t = 0; t < 4; ++t) {
    ASSERT_TRUE(absl::StartsWith(lines[t], absl::StrCat(t, ": "))) << out;
    nodes.insert(lines[t].substr(3));
  }
  EXPECT_EQ(nodes.size(), 2u) << out;
  EXPECT_EQ(lines[0].substr(3), lines[1].substr(3)) << "block distribution: 0,1 on the first node";
}

TEST_F(StepsTest, TasksSeeTheirStepEnvironment) {
  const std::string out = RunJob(
      "-N2 -n2",
      "srun -n2 -l bash -c 'echo $SLURM_STEP_ID $SLURM_PROCID $SLURM_NTASKS $SLURM_STEP_NUM_NODES "
      "$SLURM_NODEID $SLURM_STEP_TASKS_PER_NODE'\n"
      "srun -n1 bash -c 'echo second=$SLURM_STEP_ID'");
  EXPECT_TRUE(absl::StrContains(out, "0: 0 0 2 2 0 1(x2)")) << out;
  EXPECT_TRUE(absl::StrContains(out, "1: 0 1 2 2 1 1(x2)")) << out;
  EXPECT_TRUE(absl::StrContains(out, "second=1")) << out;
}

TEST_F(StepsTest, ATaskExitCodeBecomesSrunsAndTheJobGoesOn) {
  const std::string out = RunJob("-n1",
                                 "srun sh -c 'exit 4'; echo rc=$?\n"
                                 "srun nosuch; echo rc=$?\n"
                                 "srun -n 100 true; echo rc=$?");
  EXPECT_TRUE(absl::StrContains(out, "rc=4")) << out;
  EXPECT_TRUE(absl::StrContains(out, ": task 0: Exited with exit code 4")) << out;
  EXPECT_TRUE(absl::StrContains(out, "srun: error: execve(): nosuch: No such file or directory"))
      << out;
  EXPECT_TRUE(absl::StrContains(out, "rc=2")) << out;
  EXPECT_TRUE(absl::StrContains(out, "srun: error: Unable to create step for job ")) << out;
  EXPECT_TRUE(absl::StrContains(out, ": More processors requested than permitted")) << out;
  EXPECT_TRUE(absl::StrContains(out, "rc=1")) << out;
}

TEST_F(StepsTest, StdinReachesTheTask) {
  const std::string out = RunJob("-n1", "echo hello-step | srun cat");
  EXPECT_EQ(out, "hello-step\n");
}

TEST_F(StepsTest, TwoConcurrentStepsSplitTheJobsGpus) {
  const std::string out =
      RunJob("-n2 --gres=gpu:2",
             "srun --exact -n1 --gres=gpu:1 bash -c 'echo A=$CUDA_VISIBLE_DEVICES; sleep 2' &\n"
             "srun --exact -n1 --gres=gpu:1 bash -c 'echo B=$CUDA_VISIBLE_DEVICES; sleep 2' &\n"
             "wait");
  std::string a, b;
  for (const std::string& line : Lines(out)) {
    if (absl::StartsWith(line, "A=")) a = line.substr(2);
    if (absl::StartsWith(line, "B=")) b = line.substr(2);
  }
  EXPECT_FALSE(a.empty()) << out;
  EXPECT_FALSE(b.empty()) << out;
  EXPECT_NE(a, b) << out;
  EXPECT_FALSE(absl::StrContains(out, "temporarily disabled")) << "both fit at once: " << out;
}

// sbatch -n2 --gpus-per-task=1 --cpus-per-gpu=2 (issue 49): 2 GPUs and 4 CPUs,
// and srun in the job binds each task to its own GPU with its GPU's CPUs.
TEST_F(StepsTest, GpusPerTaskGiveEachTaskItsOwnGpuAndCpusPerGpuItsCpus) {
  const std::string out =
      RunJob("-n2 --gpus-per-task=1 --cpus-per-gpu=2",
             "scontrol show job $SLURM_JOB_ID | tr ' ' '\\n' | "
             "grep -E '^(NumCPUs|TresPerTask|CpusPerTres|TRES)='\n"
             "echo env=$SLURM_GPUS_PER_TASK/$SLURM_CPUS_PER_GPU\n"
             "srun -l bash -c 'echo gpu=$CUDA_VISIBLE_DEVICES cpt=$SLURM_CPUS_PER_TASK' | sort\n"
             "srun -l --gpu-bind=none bash -c 'echo unbound=$CUDA_VISIBLE_DEVICES' | sort");
  EXPECT_TRUE(absl::StrContains(out, "NumCPUs=4\n")) << out;
  EXPECT_TRUE(absl::StrContains(out, "TresPerTask=gres:gpu:1\n")) << out;
  EXPECT_TRUE(absl::StrContains(out, "CpusPerTres=gres:gpu:2\n")) << out;
  EXPECT_TRUE(absl::StrContains(out, "gres/gpu=2")) << out;
  EXPECT_TRUE(absl::StrContains(out, "env=1/2\n")) << out;
  std::string gpu0, gpu1;
  for (const std::string& line : Lines(out)) {
    if (absl::StartsWith(line, "0: gpu=")) gpu0 = line;
    if (absl::StartsWith(line, "1: gpu=")) gpu1 = line;
  }
  ASSERT_FALSE(gpu0.empty()) << out;
  ASSERT_FALSE(gpu1.empty()) << out;
  EXPECT_TRUE(absl::EndsWith(gpu0, " cpt=2") && absl::EndsWith(gpu1, " cpt=2")) << out;
  const std::string own0 = gpu0.substr(7, gpu0.find(' ', 7) - 7);
  const std::string own1 = gpu1.substr(7, gpu1.find(' ', 7) - 7);
  EXPECT_EQ(own0.size(), 1u) << "one GPU each: " << out;
  EXPECT_EQ(own1.size(), 1u) << "one GPU each: " << out;
  EXPECT_NE(own0, own1) << out;
  // --gpu-bind=none: every task sees both of the step's GPUs.
  EXPECT_TRUE(absl::StrContains(
      out, "0: unbound=" + std::min(own0, own1) + "," + std::max(own0, own1) + "\n"))
      << out;
  EXPECT_TRUE(absl::StrContains(out, "1: unbound=")) << out;
}

// srun --gpu-bind=map_gpu:, mask_gpu:, single:N and closest (issue 49), and
// sbatch --gpu-bind for the steps that give none, as
// Slurm's gres plugin binds each task on a node whose GPUs have no Cores=:
// the job's two GPUs are a (lower) and b.
TEST_F(StepsTest, GpuBindMapsMasksAndSingleBindEachTaskAsSlurms) {
  const std::string out =
      RunJob("-N1 -n4 --gres=gpu:2 --gpu-bind=single:2",
             "a=${CUDA_VISIBLE_DEVICES%,*}; b=${CUDA_VISIBLE_DEVICES#*,}\n"
             "echo gpus=$a/$b\n"
             "show() { srun -n4 -l \"$@\" bash -c 'echo $CUDA_VISIBLE_DEVICES' | sort; }\n"
             "show --gpu-bind=map_gpu:$b,$a | sed 's/^/map /'\n"
             "show --gpu-bind=verbose,mask_gpu:$((1 << a)),$(( (1 << a) | (1 << b) )) | "
             "sed 's/^/mask /'\n"
             "show --gpu-bind=single:2 | sed 's/^/single /'\n"
             "show --gpu-bind=closest | sed 's/^/closest /'\n"
             "echo bind=$SLURM_GPU_BIND\n"
             "show | sed 's/^/inherited /'");
  std::string a, b;
  for (const std::string& line : Lines(out)) {
    if (absl::StartsWith(line, "gpus=")) {
      a = line.substr(5, line.find('/') - 5);
      b = line.substr(line.find('/') + 1);
    }
  }
  ASSERT_FALSE(a.empty()) << out;
  ASSERT_NE(a, b) << out;
  const std::string both = a + "," + b;
  for (const std::string& expected :
       {"map 0: " + b, "map 1: " + a, "map 2: " + b, "map 3: " + a,  // the list repeats
        "mask 0: " + a, "mask 1: " + both, "mask 2: " + a, "mask 3: " + both, "single 0: " + a,
        "single 1: " + a, "single 2: " + b, "single 3: " + b, "closest 0: " + both,
        "closest 3: " + both, std::string("bind=single:2"),
        // sbatch --gpu-bind reaches the job's sruns (SLURM_GPU_BIND); their
        // own --gpu-bind wins, as above.
        "inherited 0: " + a, "inherited 1: " + a, "inherited 2: " + b, "inherited 3: " + b}) {
    EXPECT_TRUE(absl::StrContains(out, expected + "\n")) << expected << "\n" << out;
  }
}

// A batch job that starts 30 background steps with srun --overlap
// --mem-per-cpu (issue 49): all 30 run at once, as squeue --steps shows.
TEST_F(StepsTest, ThirtyOverlappingStepsWithMemoryPerCpuRunAtOnce) {
  const std::string out = RunJob(
      "-n1",
      "for i in $(seq 1 30); do srun --overlap -N1 -n1 --mem-per-cpu=6M sleep 300 & done\n"
      "n=0\n"
      "for t in $(seq 1 1200); do\n"
      "  n=$(squeue --steps --state=RUNNING -h -o %i -j $SLURM_JOB_ID | grep -c '\\.[0-9]')\n"
      "  [ \"$n\" -ge 30 ] && break\n"
      "  sleep 0.1\n"
      "done\n"
      "echo running=$n\n"
      "kill $(jobs -p) 2>/dev/null; wait");
  EXPECT_TRUE(absl::StrContains(out, "running=30\n")) << out;
}

TEST_F(StepsTest, ABusyStepWaitsWithSlurmsMessage) {
  const std::string out = RunJob("-n1", "srun sleep 2 &\nsleep 0.5\nsrun echo after; wait");
  EXPECT_TRUE(absl::StrContains(out,
                                "step creation temporarily disabled, retrying (Requested "
                                "nodes are busy)"))
      << out;
  EXPECT_TRUE(absl::StrContains(out, "srun: Step created for job ")) << out;
  EXPECT_TRUE(absl::StrContains(out, "after\n")) << out;
}

TEST_F(StepsTest, CancellingTheJobEndsItsStepsOnEveryNode) {
  const std::string marker = "4321.5";
  const CommandResult submit = cluster_->Run(absl::StrCat(
      "cd /tmp && sbatch --parsable -N2 -n2 -o /dev/null --wrap 'srun sleep ", marker, "'"));
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  // The tasks, not srun (whose command line holds the same words).
  auto tasks = [&] {
    int n = 0;
    for (pid_t pid : PidsWithCommandLine("sleep " + marker)) {
      n += absl::StartsWith(ReadFile(absl::StrCat("/proc/", pid, "/cmdline")), "sleep") ? 1 : 0;
    }
    return n;
  };
  ASSERT_TRUE(Eventually(30, [&] { return tasks() == 2; })) << tasks();
  ASSERT_EQ(cluster_->Run("scancel " + id).exit_code, 0);
  EXPECT_TRUE(Eventually(30, [&] { return tasks() == 0; }));
}

TEST_F(StepsTest, AnotherUserCannotCreateAStepInTheJob) {
  ASSERT_TRUE(cluster_->EnsureUser("skiffother").ok());
  const std::string owner_out = cluster_->dir() + "/steps_owner.out";
  const CommandResult submit = cluster_->Run("cd /tmp && sbatch --parsable -n1 -o " + owner_out +
                                             " --wrap 'echo ADDR=$SKIFF_STEPMGR_ADDR; sleep 30'");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  std::string addr;
  ASSERT_TRUE(Eventually(30, [&] {
    const std::string text = ReadFile(owner_out);
    const size_t at = text.find("ADDR=");
    if (at == std::string::npos || text.find('\n', at) == std::string::npos) return false;
    addr = text.substr(at + 5, text.find('\n', at) - at - 5);
    return !addr.empty();
  }));
  const CommandResult r = cluster_->RunAs(
      "skiffother", absl::StrCat("SLURM_JOB_ID=", id, " SKIFF_STEPMGR_ADDR=", addr, " srun true"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, absl::StrCat("srun: error: Unable to create step for job ", id,
                                ": Access/permission denied\n"));
  cluster_->Run("scancel " + id);
}

TEST_F(StepsTest, TasksRunAsTheJobsUserWithItsGroups) {
  absl::StatusOr<uid_t> uid = cluster_->EnsureUser("skiffother");
  ASSERT_TRUE(uid.ok()) << uid.status();
  const std::string out = cluster_->dir() + "/home/skiffother/ids.out";
  const CommandResult r = cluster_->RunAs(
      "skiffother", "sbatch --wait -n1 -o " + out + " --wrap 'srun sh -c \"id -u; id -G\"'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 2u) << ReadFile(out);
  EXPECT_EQ(lines[0], std::to_string(*uid));
  EXPECT_EQ(lines[1], cluster_->RunAs("skiffother", "id -G").out.substr(0, lines[1].size()));
}

// srun inside an srun step, as a user (issue 49's check): each of the outer
// step's 4 tasks starts an inner step of 4 in the same allocation.
TEST_F(StepsTest, SrunInsideAStepRunsNestedStepsAsTheUser) {
  absl::StatusOr<uid_t> uid = cluster_->EnsureUser("skiffother");
  ASSERT_TRUE(uid.ok()) << uid.status();
  const CommandResult r = cluster_->RunAs(
      "skiffother", "cd /tmp && srun -N1-4 -n4 -O --overlap srun -l -n4 -O --overlap id -u");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  EXPECT_EQ(lines.size(), 16u) << r.out;
  for (const std::string& line : lines) {
    EXPECT_EQ(line.substr(line.find(": ") + 2), std::to_string(*uid)) << r.out;
  }
}

// -I/--immediate outside a job, with Slurm 22.05's lines (checked against it):
// a bare -I fails at once when the nodes are busy, -I2 after two seconds
// (salloc: "Connection timed out"), a held job cannot start at once at all.
TEST_F(StepsTest, ImmediateAllocationsFailWithSlurmsWordsWhenNodesAreBusy) {
  const std::string nodes(absl::StripAsciiWhitespace(cluster_->Run("sinfo -h -o %D").out));
  const CommandResult busy = cluster_->Run(absl::StrCat(
      "cd /tmp && sbatch --parsable --exclusive -N", nodes, " -o /dev/null --wrap 'sleep 300'"));
  ASSERT_EQ(busy.exit_code, 0) << busy.err;
  const std::string holder(absl::StripAsciiWhitespace(busy.out));
  ASSERT_TRUE(Eventually(30, [&] {
    return ScontrolField(cluster_->Run("scontrol show job " + holder).out, "JobState") == "RUNNING";
  }));
  CommandResult r = cluster_->Run("cd /tmp && salloc -I -N1 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("salloc: error: Unable to allocate resources: Requested nodes are busy\n"
                        "salloc: Job allocation [0-9]+ has been revoked\\.\n")))
      << r.err;
  r = cluster_->Run("cd /tmp && srun -I -N1 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "srun: error: Unable to allocate resources: Requested nodes are busy\n");
  r = cluster_->Run("cd /tmp && salloc -I2 -N1 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("salloc: Pending job allocation ([0-9]+)\n"
                        "salloc: job \\1 queued and waiting for resources\n"
                        "salloc: Job allocation \\1 has been revoked\\.\n"
                        "salloc: error: Unable to allocate resources: Connection timed out\n")))
      << r.err;
  r = cluster_->Run("cd /tmp && srun -I --hold -N1 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "srun: error: Unable to allocate resources: Job dependency problem\n");
  // Slurm's parse_int refuses it, which exits 1 (the anchor's salloc and srun).
  r = cluster_->Run("cd /tmp && salloc --immediate=x -N1 true");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "salloc: error: Invalid numeric value \"x\" for immediate.\n");
  // Nothing of them is left waiting.
  EXPECT_EQ(cluster_->Run("squeue -h -t PD -o %i").out, "");
  ASSERT_EQ(cluster_->Run("scancel " + holder).exit_code, 0);
  // Free nodes: granted within the seconds given.
  r = cluster_->Run("cd /tmp && salloc -Q -I30 -N1 true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(StepsTest, SrunOutsideAJobAllocatesRunsAndRelinquishes) {
  const CommandResult r = cluster_->Run("cd /tmp && srun -N2 -n4 -l printenv SLURMD_NODENAME");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  std::set<std::string> nodes;
  for (const std::string& line : lines) nodes.insert(line.substr(line.find(": ") + 2));
  EXPECT_EQ(nodes.size(), 2u) << r.out;
  // The allocation ends with srun: nothing is left in the queue.
  EXPECT_TRUE(Eventually(30, [&] { return cluster_->Run("squeue -h -t R,CG").out.empty(); }))
      << cluster_->Run("squeue").out;

  const CommandResult failed = cluster_->Run("cd /tmp && srun -J exits3 sh -c 'exit 3'");
  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run("sacct -X -P -n --name exits3 -o State,ExitCode").out == "FAILED|3:0\n";
  })) << cluster_->Run("sacct -X -P -n --name exits3 -o State,ExitCode").out;
}

TEST_F(StepsTest, SallocRunsItsCommandInTheAllocation) {
  const CommandResult r = cluster_->Run(
      "cd /tmp && salloc -N1 -J held bash -c 'echo alloc=$SLURM_JOB_ID; srun printenv "
      "SLURM_JOB_ID; exit 5'");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out << r.err;
  const std::string id = lines[0].substr(6);
  EXPECT_EQ(lines[1], id) << "srun inside salloc runs in its allocation";
  EXPECT_TRUE(absl::StrContains(r.err, "salloc: Granted job allocation " + id + "\n")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "salloc: Relinquishing job allocation " + id + "\n"))
      << r.err;
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run("sacct -X -P -n -j " + id + " -o JobName,State,ExitCode").out ==
           "held|FAILED|5:0\n";
  })) << cluster_->Run("sacct -X -P -n -j " + id + " -o JobName,State,ExitCode").out;
  // An allocation has no batch step; its srun steps are its own rows.
  const std::string rows = "sacct -P -n -j " + id + " -o JobID,JobName,State,ExitCode";
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run(rows).out ==
           absl::StrCat(id, "|held|FAILED|5:0\n", id, ".0|printenv|COMPLETED|0:0\n");
  })) << cluster_->Run(rows).out;

  const CommandResult shell_less = cluster_->Run("cd /tmp && salloc --no-shell -n1");
  EXPECT_EQ(shell_less.exit_code, 0) << shell_less.err;
  const std::string granted = "salloc: Granted job allocation ";
  const size_t at = shell_less.err.find(granted);
  ASSERT_NE(at, std::string::npos) << shell_less.err;
  const std::string kept = shell_less.err.substr(
      at + granted.size(), shell_less.err.find('\n', at) - at - granted.size());
  EXPECT_EQ(ScontrolField(cluster_->Run("scontrol show job " + kept).out, "JobState"), "RUNNING");
  const CommandResult lost = cluster_->Run("SLURM_JOB_ID=" + kept + " srun true");
  EXPECT_EQ(lost.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(lost.err, "lacks SKIFF_STEPMGR_ADDR")) << lost.err;
  EXPECT_EQ(cluster_->Run("scancel " + kept).exit_code, 0);
}

TEST_F(StepsTest, SrunPtyRunsTaskZeroOnATerminal) {
  // `script` gives srun a terminal of 30x90, as a user's shell has one; what is
  // typed goes to the remote shell, which sees a terminal of the same size and
  // its GPU; when the shell exits, the allocation is released.
  const CommandResult r = cluster_->Run(
      "cd /tmp && printf 'test -t 0 && echo on-a-tty; stty size; echo gpu=$CUDA_VISIBLE_DEVICES; "
      "exit 3\\n' | script -qec 'stty rows 30 cols 90; srun -J pty --gres=gpu:1 --pty bash "
      "--norc --noprofile' /dev/null");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "on-a-tty")) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "30 90")) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "gpu=0") || absl::StrContains(r.out, "gpu=1"))
      << r.out << r.err;
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run("sacct -X -P -n --name pty -o State,ExitCode").out == "FAILED|3:0\n";
  })) << cluster_->Run("sacct -X -P -n --name pty -o State,ExitCode").out;
  EXPECT_EQ(cluster_->Run("squeue -h -n pty").out, "") << "the allocation is released";
}

// Issue 32 item 5: tasks x CPUs per task wrapped at 2^32. `-n 4 -c 2^30` got 4
// tasks on the job's CPUs, `--overlap -n 65536 -c 65536` aborted the step
// manager's noded building a 10 GB reply, and sbatch's `-n 65536 -c 65536` was
// accepted with NumCPUs=1. Each is refused with Slurm's words; noded lives on.
TEST_F(StepsTest, TaskAndCpuCountsThatWrapAreRefusedAndNodedLivesOn) {
  const CommandResult sbatch = cluster_->Run("cd /tmp && sbatch -n 65536 -c 65536 --wrap=true");
  EXPECT_EQ(sbatch.exit_code, 1);
  EXPECT_EQ(sbatch.err,
            "sbatch: error: Requested CPU count overflows: NumTasks=65536 x CPUs/Task=65536\n"
            "sbatch: error: Batch job submission failed: More processors requested than "
            "permitted\n");
  const CommandResult srun = cluster_->Run("cd /tmp && srun -n 4 -c 1073741824 true");
  EXPECT_EQ(srun.exit_code, 1);
  EXPECT_EQ(srun.err,
            "srun: error: Requested CPU count overflows: NumTasks=4 x CPUs/Task=1073741824\n"
            "srun: error: Job submit/allocate failed: More processors requested than permitted\n");

  const pid_t noded = cluster_->Pid("noded-n1");
  ASSERT_GT(noded, 0);
  int exit_code = -1;
  // SLURM_NNODES emptied: srun cannot check the job's nodes, so the step
  // manager itself meets the request.
  const std::string out = RunJob("-w n1 -n1",
                                 "srun -n 4 -c 1073741824 true; echo rc=$?\n"
                                 "SLURM_NNODES= srun --overlap -n 65536 -c 65536 true; echo rc=$?\n"
                                 "srun --overlap -n 65536 -c 65536 true; echo rc=$?\n"
                                 "srun echo still-here",
                                 &exit_code);
  EXPECT_EQ(exit_code, 0) << out;
  EXPECT_TRUE(absl::StrContains(out, ": More processors requested than permitted\nrc=1\n")) << out;
  EXPECT_TRUE(absl::StrContains(out, ": Task count specification invalid\nrc=1\n")) << out;
  EXPECT_EQ(
      std::vector<std::string>(absl::StrSplit(out, "Task count specification invalid")).size(), 3u)
      << "the step manager's and srun's own refusal: " << out;
  EXPECT_TRUE(absl::StrContains(out, "still-here\n")) << out;
  EXPECT_TRUE(Alive(noded)) << "the step manager's noded is the one that was running";
  EXPECT_EQ(cluster_->Pid("noded-n1"), noded);
  const std::string state = cluster_->Run("sinfo -h -N -n n1 -o %t").out;
  EXPECT_TRUE(state == "idle\n" || state == "alloc\n" || state == "mix\n") << state;
}

TEST_F(StepsTest, KillingTheStepManagerFailsItsStepsAndTheJobGoesOn) {
  const std::string out = cluster_->dir() + "/stepmgr_killed.out";
  const CommandResult submit = cluster_->Run("cd /tmp && sbatch --parsable -w n2 -n1 -o " + out +
                                             " --wrap 'srun -J doomed sleep 20; echo srun=$?'");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Run("squeue -s -h -j " + id + " -o %i").out.find(id + ".0") !=
           std::string::npos;
  }));
  const pid_t noded = cluster_->Pid("noded-n2");
  ASSERT_GT(noded, 0);
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  // srun hears its step manager went away; the job goes on and ends on its own.
  ASSERT_TRUE(Eventually(60, [&] {
    return ScontrolField(cluster_->Run("scontrol show job " + id).out, "JobState") == "COMPLETED";
  })) << cluster_->Run("scontrol show job " + id).out;
  const std::string text = ReadFile(out);
  EXPECT_TRUE(absl::StrContains(text, "the step manager went away")) << text;
  EXPECT_TRUE(absl::StrContains(text, "srun=1\n")) << text;
  const std::string rows = "sacct -P -n -j " + id + " -o JobID,JobName,State";
  EXPECT_TRUE(Eventually(30, [&] {
    return cluster_->Run(rows).out == absl::StrCat(id, "|wrap|COMPLETED\n", id,
                                                   ".batch|batch|COMPLETED\n", id,
                                                   ".0|doomed|FAILED\n");
  })) << cluster_->Run(rows).out;
}

TEST_F(StepsTest, OutputFilesPerTaskAndMultiProg) {
  const std::string dir = cluster_->dir();
  const CommandResult files = cluster_->Run("cd /tmp && srun -N2 -n2 -o " + dir +
                                            "/out-%t-%N.txt sh -c 'echo task $SLURM_PROCID'");
  EXPECT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(files.out, "") << "-o sends the output to the files, not to srun";
  EXPECT_EQ(cluster_->Run("cat " + dir + "/out-0-*.txt " + dir + "/out-1-*.txt").out,
            "task 0\ntask 1\n");

  cluster_->Run("printf '%s\\n' '# two programs' '0 echo first' \"1-2 sh -c 'echo %t of %o'\" > " +
                dir + "/mp.conf");
  const CommandResult mp = cluster_->Run("cd /tmp && srun -n3 -l --multi-prog " + dir + "/mp.conf");
  EXPECT_EQ(mp.exit_code, 0) << mp.err;
  std::vector<std::string> lines = Lines(mp.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: first", "1: 1 of 0", "2: 2 of 1"})) << mp.out;
}

TEST_F(StepsTest, SstatShowsARunningStepsUsage) {
  // A step that burns 1.5 s of CPU (by its own clock, however loaded the
  // machine is) and then waits.
  const std::string out = cluster_->dir() + "/sstat_job.out";
  const std::string burn = cluster_->dir() + "/burn.sh";
  cluster_->Run("cat > " + burn +
                " <<'EOS'\n"
                "awk 'BEGIN { while (1) { getline s < \"/proc/self/stat\"; "
                "close(\"/proc/self/stat\"); split(s, f, \" \"); "
                "if (f[14] + f[15] >= 150) exit } }'\n"
                "sleep 300\n"
                "EOS");
  const CommandResult submit = cluster_->Run("cd /tmp && sbatch --parsable -N1 -n1 -o " + out +
                                             " --wrap 'srun -J burn sh " + burn + "'");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  const std::string query = "sstat -P -n -j " + id + " -o JobID,NTasks,MinCPU,MaxRSS,Nodelist";
  std::string last;
  ASSERT_TRUE(Eventually(30,
                         [&] {
                           last = cluster_->Run(query).out;
                           return absl::StartsWith(last, id + ".0|1|00:00:01|") ||
                                  absl::StartsWith(last, id + ".0|1|00:00:02|");
                         }))
      << last << cluster_->Run(query).err;
  std::vector<std::string> cells = absl::StrSplit(absl::StripTrailingAsciiWhitespace(last), '|');
  ASSERT_EQ(cells.size(), 5u) << last;
  EXPECT_TRUE(absl::EndsWith(cells[3], "K") || absl::EndsWith(cells[3], "M")) << last;
  EXPECT_FALSE(cells[4].empty()) << last;
  // The batch step is its script's tree; a step that is not running is said so.
  EXPECT_TRUE(absl::StartsWith(cluster_->Run("sstat -P -n -j " + id + ".batch -o JobID").out,
                               id + ".batch"));
  const CommandResult none = cluster_->Run("sstat -n -j " + id + ".7");
  EXPECT_EQ(none.err, "sstat: error: StepId=" + id + ".7 not found running.\n");
  ASSERT_TRUE(cluster_->EnsureUser("skiffother").ok());
  const CommandResult other = cluster_->RunAs("skiffother", query);
  EXPECT_EQ(other.out, "") << "another user's step";
  EXPECT_EQ(other.exit_code, 1) << other.err;
  const CommandResult other_step = cluster_->RunAs("skiffother", "sstat -n -j " + id + ".0");
  EXPECT_EQ(other_step.err, "sstat: error: problem getting step_layout for StepId=" + id +
                                ".0: Access/permission denied\n");
  EXPECT_EQ(other_step.exit_code, 1);
  EXPECT_EQ(none.exit_code, 0) << "a step not running is only said, as Slurm's sstat does";
  cluster_->Run("scancel " + id);
}

TEST_F(StepsTest, StepIdsAreNotReusedAfterTheStepManagerRestarts) {
  const std::string dir = cluster_->dir();
  const CommandResult submit = cluster_->Run(
      "cd /tmp && sbatch --parsable -w n1 -n1 -o /dev/null --wrap 'srun true; touch " + dir +
      "/first.done; while [ ! -e " + dir + "/go ]; do sleep 0.1; done; srun true'");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  ASSERT_TRUE(Eventually(30, [&] { return access((dir + "/first.done").c_str(), F_OK) == 0; }));
  // Step 0's record reaches ctld after srun returns (noded's step report
  // queue, in memory): the kill below is meant for the step ids, so it waits
  // for the record. A report still queued is lost with noded (issue note).
  const std::string first_step = "sacct -P -n -j " + id + ".0 -o JobID";
  ASSERT_TRUE(Eventually(30, [&] { return cluster_->Run(first_step).out == id + ".0\n"; }));
  const pid_t noded = cluster_->Pid("noded-n1");
  ASSERT_GT(noded, 0);
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  cluster_->Run("touch " + dir + "/go");
  const std::string rows = "sacct -P -n -j " + id + " -o JobID,State";
  EXPECT_TRUE(Eventually(60, [&] {
    return cluster_->Run(rows).out == absl::StrCat(id, "|COMPLETED\n", id, ".batch|COMPLETED\n", id,
                                                   ".0|COMPLETED\n", id, ".1|COMPLETED\n");
  })) << cluster_->Run(rows).out;
}

TEST_F(StepsTest, AStepsOwnTimeLimitEndsItTimeoutAndTheJobGoesOn) {
  const std::string out = RunJob("-n1 -J steplimit", "srun -t 0:02 sleep 100\necho srun=$?");
  EXPECT_TRUE(absl::StrContains(out, " DUE TO TIME LIMIT ***")) << out;
  EXPECT_TRUE(absl::StrContains(out, "srun=143\n")) << out;
  const std::string rows = "sacct -P -n --name steplimit -o JobID,State";
  EXPECT_TRUE(Eventually(30, [&] {
    return absl::StrContains(cluster_->Run(rows).out, ".0|TIMEOUT\n");
  })) << cluster_->Run(rows).out;
}

TEST_F(StepsTest, WaitEndsTheStepAfterTheFirstTaskExits) {
  const CommandResult r =
      cluster_->Run("cd /tmp && srun -n2 -W 1 sh -c '[ $SLURM_PROCID = 0 ] || sleep 100'");
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "srun: First task exited 1s ago\n")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, ".0 task 1: running\n")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, ".0 task 0: exited\n")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "srun: error: ")) << r.err;
}

TEST_F(StepsTest, StepsAreListedCancelledOneByOneAndAccounted) {
  const std::string out = cluster_->dir() + "/steps_listed.out";
  const CommandResult submit = cluster_->Run(
      "cd /tmp && sbatch --parsable -N2 -n2 -J listed -o " + out +
      " --wrap 'srun -J ok true; srun -n1 -J bad sh -c \"exit 4\"; srun -n1 -J long sleep 300; "
      "echo done'");
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  const std::string listing = "squeue -s -h -j " + id + " -o '%i %j %A'";
  ASSERT_TRUE(Eventually(30, [&] {
    return cluster_->Run(listing).out == absl::StrCat(id, ".batch batch 1\n", id, ".2 long 1\n");
  })) << cluster_->Run(listing).out;
  const CommandResult shown = cluster_->Run("scontrol show step " + id + ".2");
  EXPECT_EQ(shown.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(shown.out, "StepId=" + id + ".2 UserId=")) << shown.out;
  EXPECT_TRUE(absl::StrContains(shown.out, "   State=RUNNING Partition=")) << shown.out;
  EXPECT_TRUE(absl::StrContains(shown.out, " Tasks=1 Name=long Network=(null)\n")) << shown.out;

  // Another user may not touch it; its owner cancels it alone.
  ASSERT_TRUE(cluster_->EnsureUser("skiffother").ok());
  const CommandResult denied = cluster_->RunAs("skiffother", "scancel " + id + ".2");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_EQ(denied.err,
            "scancel: error: Kill job error on job step id " + id + ": Access/permission denied\n");
  EXPECT_EQ(cluster_->Run("scancel " + id + ".2").exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] {
    return ScontrolField(cluster_->Run("scontrol show job " + id).out, "JobState") == "COMPLETED";
  }));
  EXPECT_TRUE(absl::StrContains(ReadFile(out), "done\n")) << "the job went on after its step";
  const std::string rows = "sacct -P -n -j " + id + " -o JobID,JobName,State,ExitCode,NNodes";
  const std::string expected = absl::StrCat(
      id, "|listed|COMPLETED|0:0|2\n", id, ".batch|batch|COMPLETED|0:0|1\n", id,
      ".0|ok|COMPLETED|0:0|2\n", id, ".1|bad|FAILED|4:0|1\n", id, ".2|long|CANCELLED|0:9|1\n");
  EXPECT_TRUE(Eventually(30, [&] { return cluster_->Run(rows).out == expected; }))
      << cluster_->Run(rows).out;
  EXPECT_EQ(cluster_->Run("sacct -X -P -n -j " + id + " -o DerivedExitCode").out, "4:0\n");
  // scontrol show job -d agrees.
  EXPECT_TRUE(absl::StrContains(cluster_->Run("scontrol show job -d " + id).out,
                                "\n   DerivedExitCode=4:0\n"))
      << cluster_->Run("scontrol show job -d " + id).out;
  EXPECT_EQ(cluster_->Run("sacct -P -n -j " + id + ".1 -o JobID,State").out, id + ".1|FAILED\n");
}

// What tools read from srun -v and the tasks' environment, as Slurm 22.05's
// (checked against it): the launch lines, SLURM_TOPOLOGY_ADDR per node,
// SLURM_TASK_PID, srun's address, umask and resource limits; -e none; and
// BatchFlag=0 for srun's own allocation.
TEST_F(StepsTest, SrunVerboseLinesTaskEnvironmentAndLimitsAsSlurms) {
  const std::string out = RunJob(
      "-N2 -n3",
      "umask 027; ulimit -n 555\n"
      "srun -v -N2 -n3 -l bash -c 'echo \"$SLURM_TOPOLOGY_ADDR=$SLURMD_NODENAME "
      "$SLURM_TOPOLOGY_ADDR_PATTERN pid=$((SLURM_TASK_PID == $$)) "
      "ip=${SLURM_LAUNCH_NODE_IPADDR:+set}${SLURM_SRUN_COMM_HOST:+set} $(umask) $(ulimit -n) "
      "${SLURM_RLIMIT_NOFILE:-none}\"' 2>&1 | sort\n"
      "srun -n1 -e none bash -c 'echo out; echo err >&2'\n");
  std::vector<std::string> lines = Lines(out);
  int launching = 0;
  bool jobid_line = false;
  int tasks = 0;
  for (const std::string& line : lines) {
    if (absl::StartsWith(line, "srun: jobid ")) {
      jobid_line =
          absl::StrContains(line, ": nodes(2):`") && absl::StrContains(line, "', cpu counts: ");
    }
    if (absl::StartsWith(line, "srun: launching StepId=")) ++launching;
    if (line.size() > 3 && line[1] == ':' && line[0] >= '0' && line[0] <= '2') {
      ++tasks;
      const std::string node = line.substr(3, line.find('=') - 3);
      EXPECT_EQ(line.substr(3),
                absl::StrCat(node, "=", node, " node pid=1 ip=setset 0027 555 none"))
          << out;
    }
  }
  EXPECT_TRUE(jobid_line) << out;
  EXPECT_EQ(launching, 2) << out;
  // -v's block first, as Slurm's srun prints it in a batch job: the command
  // line's options and the ones it read from the job (its id and node list).
  for (const char* line : {"srun: defined options", "srun: label               : set",
                           "srun: nodes               : 2", "srun: ntasks              : 3",
                           "srun: verbose             : 1", "srun: end of defined options"}) {
    EXPECT_NE(std::find(lines.begin(), lines.end(), line), lines.end()) << line << "\n" << out;
  }
  EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                         [](const std::string& line) {
                           return absl::StartsWith(line, "srun: jobid               : ");
                         }),
            lines.end())
      << out;
  EXPECT_EQ(tasks, 3) << out;
  EXPECT_TRUE(absl::StrContains(out, "\nout\n") || absl::StartsWith(out, "out\n")) << out;
  EXPECT_FALSE(absl::StrContains(out, "err\n")) << out;

  const CommandResult own = cluster_->Run(
      "cd /tmp && srun -n1 bash -c 'scontrol show job $SLURM_JOB_ID' | grep -o 'BatchFlag=[0-9]'");
  EXPECT_EQ(own.out, "BatchFlag=0\n") << own.err;
}

// sacct's usage fields for a step, from its tasks' rusage: what seff and web
// portals read.
TEST_F(StepsTest, SacctShowsAStepsCpuTimeAndMemory) {
  const std::string out = absl::StrCat(cluster_->dir(), "/usage.out");
  const CommandResult submit = cluster_->Run(absl::StrCat(
      "cd /tmp && sbatch --parsable -W -N2 -n2 -o ", out,
      " --wrap 'srun -n2 sh -c \"i=0; while [ \\$i -lt 300000 ]; do i=\\$((i+1)); done\"'"));
  ASSERT_EQ(submit.exit_code, 0) << submit.err << ReadFile(out);
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  const std::string query =
      "sacct -P -n -j " + id + ".0 -o TotalCPU,UserCPU,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS";
  std::string row;
  ASSERT_TRUE(Eventually(30, [&] {
    row = cluster_->Run(query).out;
    return !row.empty();
  }));
  const std::vector<std::string> fields =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(row), '|');
  ASSERT_EQ(fields.size(), 6u) << row;
  EXPECT_NE(fields[0], "00:00:00") << row;  // the loops took CPU time
  EXPECT_FALSE(fields[0].empty()) << row;
  EXPECT_FALSE(fields[1].empty()) << row;
  EXPECT_TRUE(absl::EndsWith(fields[2], "K") || absl::EndsWith(fields[2], "M")) << row;
  EXPECT_TRUE(absl::StartsWith(fields[3], "n")) << row;
  EXPECT_TRUE(fields[4] == "0" || fields[4] == "1") << row;
  EXPECT_FALSE(fields[5].empty()) << row;
  // The batch script's own usage, and the job's row summing its steps' CPU.
  const std::string batch =
      cluster_->Run("sacct -P -n -j " + id + ".batch -o TotalCPU,MaxRSS,MaxRSSNode").out;
  const std::vector<std::string> b = absl::StrSplit(absl::StripTrailingAsciiWhitespace(batch), '|');
  ASSERT_EQ(b.size(), 3u) << batch;
  EXPECT_FALSE(b[0].empty()) << batch;
  EXPECT_TRUE(absl::EndsWith(b[1], "K") || absl::EndsWith(b[1], "M")) << batch;
  EXPECT_TRUE(absl::StartsWith(b[2], "n")) << batch;
  EXPECT_FALSE(cluster_->Run("sacct -P -n -X -j " + id + " -o TotalCPU").out.empty());
}

// srun --task-prolog/--task-epilog as Slurm 22.05 runs them (checked against
// it): the prolog's export and print lines reach each task, which it sees by
// SLURM_TASK_PID; the epilog runs after each task.
TEST_F(StepsTest, TaskPrologAndEpilogRunAroundEachTask) {
  const std::string dir = cluster_->dir();
  cluster_->Run(absl::StrCat(
      "printf '#!/bin/sh\\necho \"export GREETING=hi\"\\necho \"print prolog saw "
      "$SLURM_TASK_PID\"\\n' > ",
      dir, "/tp.sh; printf '#!/bin/sh\\necho \"epilog $SLURM_PROCID\" > ", dir,
      "/epi.$SLURM_PROCID\\n' > ", dir, "/te.sh; chmod +x ", dir, "/tp.sh ", dir, "/te.sh"));
  const std::string out =
      RunJob("-N2 -n2", absl::StrCat("srun -l --task-prolog=", dir, "/tp.sh --task-epilog=", dir,
                                     "/te.sh bash -c 'echo \"$GREETING task $$\"' | sort"));
  std::vector<std::string> lines = Lines(out);
  ASSERT_EQ(lines.size(), 4u) << out;
  for (int t = 0; t < 2; ++t) {
    const std::string said = lines[2 * t];  // sorted: "N: hi task P" before "N: prolog saw P"
    const std::string saw = lines[2 * t + 1];
    ASSERT_TRUE(absl::StartsWith(said, absl::StrCat(t, ": hi task "))) << out;
    ASSERT_TRUE(absl::StartsWith(saw, absl::StrCat(t, ": prolog saw "))) << out;
    EXPECT_EQ(said.substr(said.rfind(' ')), saw.substr(saw.rfind(' '))) << out;
    EXPECT_TRUE(Eventually(30, [&] {
      return ReadFile(absl::StrCat(dir, "/epi.", t)) == absl::StrCat("epilog ", t, "\n");
    })) << ReadFile(absl::StrCat(dir, "/epi.", t));
  }
}

// scancel --signal as Slurm 22.05 delivers it (checked against it): to the
// steps' tasks on every node, not the batch shell; -b to the batch shell alone;
// -f to both.
TEST_F(StepsTest, ScancelSignalReachesTheStepsTheBatchShellOrBoth) {
  const std::string script = cluster_->dir() + "/signal_job.sh";
  cluster_->Run(absl::StrCat(
      "cat > ", script, " <<'EOS'\n", "#!/bin/bash\n", "trap 'echo batch got USR1' USR1\n",
      "srun -l bash -c 'trap \"echo step got USR1; exit 0\" USR1; echo ready; ",
      "while :; do sleep 0.1; done' &\n", "pid=$!\n",
      "while kill -0 $pid 2>/dev/null; do wait $pid; done\n", "echo step ended\n", "EOS"));
  auto run = [&](const std::string& flags) {
    const std::string out = absl::StrCat(cluster_->dir(), "/signal-", ++jobs_, ".out");
    const CommandResult submit =
        cluster_->Run(absl::StrCat("cd /tmp && sbatch --parsable -N2 -n2 -o ", out, " ", script));
    EXPECT_EQ(submit.exit_code, 0) << submit.err;
    const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
    EXPECT_TRUE(Eventually(30, [&] {
      return absl::StrContains(ReadFile(out), "0: ready") &&
             absl::StrContains(ReadFile(out), "1: ready");
    })) << ReadFile(out);
    const CommandResult signal = cluster_->Run(absl::StrCat("scancel ", flags, " -s USR1 ", id));
    EXPECT_EQ(signal.exit_code, 0) << signal.err;
    EXPECT_EQ(signal.err, "");
    return std::make_pair(id, out);
  };
  auto state = [&](const std::string& id) {
    return ScontrolField(cluster_->Run("scontrol show job " + id).out, "JobState");
  };

  // The steps only: each task traps it and ends; the shell goes on to the end.
  auto [steps_id, steps_out] = run("");
  ASSERT_TRUE(Eventually(30, [&] { return state(steps_id) == "COMPLETED"; }))
      << state(steps_id) << "\n"
      << ReadFile(steps_out);
  std::string text = ReadFile(steps_out);
  EXPECT_TRUE(absl::StrContains(text, "0: step got USR1")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1: step got USR1")) << text;
  EXPECT_FALSE(absl::StrContains(text, "batch got USR1")) << text;
  EXPECT_TRUE(absl::StrContains(text, "step ended\n")) << text;

  // -b: the batch shell alone; the step runs on until cancelled.
  auto [batch_id, batch_out] = run("-b");
  ASSERT_TRUE(Eventually(30, [&] { return absl::StrContains(ReadFile(batch_out), "batch got"); }))
      << ReadFile(batch_out);
  EXPECT_EQ(state(batch_id), "RUNNING");
  EXPECT_FALSE(absl::StrContains(ReadFile(batch_out), "step got")) << ReadFile(batch_out);
  ASSERT_EQ(cluster_->Run("scancel " + batch_id).exit_code, 0);
  EXPECT_TRUE(Eventually(30, [&] { return state(batch_id) == "CANCELLED"; })) << state(batch_id);
  EXPECT_FALSE(absl::StrContains(ReadFile(batch_out), "step got")) << ReadFile(batch_out);

  // -f: both.
  auto [full_id, full_out] = run("-f");
  ASSERT_TRUE(Eventually(30, [&] { return state(full_id) == "COMPLETED"; }))
      << state(full_id) << "\n"
      << ReadFile(full_out);
  text = ReadFile(full_out);
  EXPECT_TRUE(absl::StrContains(text, "batch got USR1")) << text;
  EXPECT_TRUE(absl::StrContains(text, "0: step got USR1")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1: step got USR1")) << text;
}

// A signal sent while the job is still pending: Slurm's ctld answers that the
// job cannot be altered yet and scancel tries again 5 s later (checked
// against Slurm 22.05), so it reaches the steps once the job runs instead of
// being lost.
TEST_F(StepsTest, ASignalToAPendingJobIsTriedAgainUntilItsStepsRun) {
  const std::string script = cluster_->dir() + "/early_signal.sh";
  cluster_->Run(absl::StrCat("cat > ", script, " <<'EOS'\n", "#!/bin/bash\n",
                             "srun bash -c 'trap \"echo step got USR1; exit 0\" USR1; echo ready; ",
                             "while :; do sleep 0.1; done'\n", "EOS"));
  const std::string out = absl::StrCat(cluster_->dir(), "/early-signal.out");
  const CommandResult submit =
      cluster_->Run(absl::StrCat("cd /tmp && sbatch --parsable -H -o ", out, " ", script));
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(submit.out));
  // ctld's count of kill requests (sdiag), to see scancel's first try answered.
  auto kill_requests = [&] {
    const std::string sdiag = cluster_->Run("sdiag").out;
    const size_t line = sdiag.find("REQUEST_KILL_JOB ");
    if (line == std::string::npos) return std::string("0");
    const size_t count = sdiag.find("count:", line) + 6;
    return sdiag.substr(count, sdiag.find(' ', count) - count);
  };
  const std::string before = kill_requests();
  CommandResult signal;
  std::thread scancel([&] { signal = cluster_->Run("scancel -v --signal=USR1 " + id); });
  // scancel's first try meets a pending job; its next comes 5 s later.
  EXPECT_TRUE(Eventually(30, [&] { return kill_requests() != before; }));
  EXPECT_EQ(cluster_->Run("scontrol release " + id).exit_code, 0);
  EXPECT_TRUE(Eventually(30, [&] { return absl::StrContains(ReadFile(out), "ready"); }))
      << ReadFile(out);
  scancel.join();
  EXPECT_EQ(signal.exit_code, 0) << signal.err;
  EXPECT_EQ(signal.err, absl::StrCat("scancel: Signal 10 to job ", id,
                                     "\nscancel: Job is in transitional state, retrying\n"));
  EXPECT_TRUE(Eventually(30, [&] { return absl::StrContains(ReadFile(out), "step got USR1"); }))
      << ReadFile(out);
}

}  // namespace
}  // namespace skiff::testing
