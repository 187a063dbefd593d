// Burst buffers through the real daemons with Skiff's example burst_buffer.lua
// (lua/burst_buffer.lua, its BB_ROOT pointed into the test directory, plus a
// few test hooks appended): staging files in and out, pool space, pending for
// space, rejected submissions, stage timeouts, scancel mid-stage, polling,
// afterburstbuffer, and that every hook runs under scriptd, never ctld.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

// Appended to the example: records each hook process's parent, and a
// test_data_in that answers BUSY twice for jobs whose script says busy_twice.
constexpr char kTestHooks[] = R"lua(

local example_setup = slurm_bb_setup
function slurm_bb_setup(job_id, uid, gid, pool, bb_size, job_script, job_info)
  -- $PPID of this shell is the hook's process; field 4 of its stat is its parent.
  os.execute("cut -d' ' -f4 /proc/$PPID/stat >> @DIR@/log/bb_parents.txt")
  return example_setup(job_id, uid, gid, pool, bb_size, job_script, job_info)
end

local example_test_data_in = slurm_bb_test_data_in
function slurm_bb_test_data_in(job_id, job_script, uid, gid, job_info)
  local f = io.open(job_script, "r")
  local text = f and f:read("a") or ""
  if f then f:close() end
  if not text:find("busy_twice", 1, true) then
    return example_test_data_in(job_id, job_script, uid, gid, job_info)
  end
  local path = "@DIR@/bb/busy_" .. job_id  -- written as the job's user
  local n = 0
  local c = io.open(path, "r")
  if c then n = tonumber(c:read("a")) or 0; c:close() end
  n = n + 1
  c = io.open(path, "w"); c:write(tostring(n)); c:close()
  if n < 3 then return slurm.SUCCESS, slurm.SLURM_BB_BUSY end
  return slurm.SUCCESS
end
)lua";

class BurstBufferTest : public SharedClusterTest<BurstBufferTest> {
 protected:
  static void SetUpTestSuite() {
    if (getuid() != 0) return;
    LocalCluster::Options options = NodesWithoutGpus(2);
    options.extra_config =
        "BurstBufferType=burst_buffer/lua\n"
        "PrologSlurmctld=@DIR@/etc/record_parent.sh\n"
        "EpilogSlurmctld=@DIR@/etc/record_parent.sh\n"
        "MailProg=@DIR@/etc/mail.sh\n"
        "MinJobAge=600\n";
    std::string lua = ReadFile(RunfilesRoot() + "/lua/burst_buffer.lua");
    ASSERT_FALSE(lua.empty());
    lua = absl::StrReplaceAll(lua, {{"\"/tmp/skiff-bb\"", "\"@DIR@/bb\""}});
    options.files["etc/burst_buffer.lua"] = lua + kTestHooks;
    options.files["etc/burst_buffer.conf"] =
        "Flags=DisablePersistent\nStageInTimeout=6\nStageOutTimeout=30\nOtherTimeout=30\n"
        "PollInterval=1\n";
    options.files["etc/record_parent.sh"] =
        "#!/bin/sh\necho $PPID >> @DIR@/log/script_parents.txt\n";
    options.files["etc/mail.sh"] = "#!/bin/sh\necho \"$@\" >> @DIR@/log/mail.txt\n";
    options.files["bb/.keep"] = "";
    StartCluster(options);
    if (HasFatalFailure()) return;
    // The stages that touch job data run as the job's user: bb/ is writable by
    // all, as /tmp is.
    ASSERT_EQ(RunShell("chmod 755 " + cluster_->dir() + "/etc/mail.sh " + cluster_->dir() +
                       "/etc/record_parent.sh && chmod 1777 " + cluster_->dir() + "/bb")
                  .exit_code,
              0);
  }

  void SetUp() override {
    SetUpAsRoot({"skiffalice"});
    if (IsSkipped() || HasFatalFailure()) return;
    home_ = cluster_->dir() + "/home/skiffalice";
  }

  // Writes a job script into alice's home and submits it as alice.
  CommandResult Submit(const std::string& name, const std::string& body,
                       const std::string& args = "") {
    const std::string path = home_ + "/" + name;
    std::ofstream(path) << body;
    RunShell("chown skiffalice " + path);
    return cluster_->RunAs("skiffalice", absl::StrCat("sbatch ", args, " ", name));
  }

  // scontrol's Key=value for one job, "" when absent.
  static std::string JobField(uint64_t id, const std::string& key) {
    return ScontrolField(cluster_->Run(absl::StrCat("scontrol show job ", id)).out, key);
  }

  static std::string Burst() { return cluster_->Run("scontrol show burst").out; }

  static bool PoolsEmpty() {
    const std::string burst = Burst();
    return burst.find(
               "PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=8GiB "
               "UsedSpace=0") != std::string::npos &&
           burst.find(
               "PoolName[1]=bulk Granularity=1GiB TotalSpace=64GiB FreeSpace=64GiB "
               "UsedSpace=0") != std::string::npos &&
           burst.find("Allocated Buffers:") == std::string::npos;
  }

  // Whether a process whose command line contains `text` exists.
  // Machine-wide: other tests run in parallel, so match "sleep 4 " (the
  // command line ends in a space here), never a prefix of "sleep 47".
  static bool ProcessRunning(const std::string& text) { return !PidsWithCommandLine(text).empty(); }

  // scriptd: ctld's child.
  static std::string ScriptdPid() {
    const pid_t ctld = cluster_->Pid("ctld");
    for (pid_t pid : PidsWithCommandLine("scriptd")) {
      if (ParentOf(pid) == ctld) return std::to_string(pid);
    }
    return "";
  }

  std::string home_;
};

TEST_F(BurstBufferTest, StagesInBeforeTheJobAndOutAfterItAndReturnsTheSpace) {
  std::ofstream(home_ + "/input.txt") << "hello from stage-in\n";
  CommandResult r = Submit("stage.sh",
                           absl::StrCat("#!/bin/bash\n"
                                        "#BB_LUA pool=fast capacity=1G\n"
                                        "#BB_LUA stage_in source=",
                                        home_, "/input.txt destination=", cluster_->dir(),
                                        "/bb/in_%j.txt\n"
                                        "#BB_LUA stage_out source=",
                                        home_, "/result_%j.txt destination=", home_,
                                        "/staged_out_%j.txt\n"
                                        "#SBATCH -t 5\n"
                                        "cat ",
                                        cluster_->dir(),
                                        "/bb/in_$SLURM_JOB_ID.txt > result_$SLURM_JOB_ID.txt\n"
                                        "echo BB_JOB_DIR=$BB_JOB_DIR\n"
                                        "sleep 4\n"),
                           "--mail-type=stage_out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(id, "JobState") == "RUNNING"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_EQ(JobField(id, "BurstBufferState"), "running");
  const std::string burst = Burst();
  EXPECT_NE(burst.find("PoolName[0]=fast Granularity=1MiB TotalSpace=8GiB FreeSpace=7GiB "
                       "UsedSpace=1GiB"),
            std::string::npos)
      << burst;
  EXPECT_NE(burst.find(absl::StrCat("JobID=", id, " ")), std::string::npos) << burst;
  ASSERT_TRUE(Eventually(60, [&] { return JobField(id, "BurstBufferState") == "complete"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_EQ(JobField(id, "JobState"), "COMPLETED");
  EXPECT_EQ(ReadFile(absl::StrCat(home_, "/staged_out_", id, ".txt")), "hello from stage-in\n");
  // Staged by alice herself, not by root.
  EXPECT_EQ(RunShell(absl::StrCat("stat -c %U ", cluster_->dir(), "/bb/in_", id, ".txt")).out,
            "skiffalice\n");
  EXPECT_EQ(RunShell(absl::StrCat("stat -c %U ", home_, "/staged_out_", id, ".txt")).out,
            "skiffalice\n");
  EXPECT_NE(ReadFile(absl::StrCat(home_, "/slurm-", id, ".out"))
                .find(absl::StrCat("BB_JOB_DIR=", cluster_->dir(), "/bb/job_", id)),
            std::string::npos);
  EXPECT_TRUE(Eventually(30, PoolsEmpty)) << Burst();
  // --mail-type=stage_out: MailProg ran (through scriptd) with Slurm 22.05's
  // subject, " time " and all (its duration is only in the environment).
  EXPECT_TRUE(Eventually(30, [&] {
    return ReadFile(cluster_->dir() + "/log/mail.txt")
               .find(absl::StrCat("-s Slurm Job_id=", id,
                                  " Name=stage.sh StageOut/Teardown time  skiffalice")) !=
           std::string::npos;
  })) << ReadFile(cluster_->dir() + "/log/mail.txt");
}

// scontrol shows a pending job's reason with spaces and a finished one's with
// underscores: compare both with underscores as spaces.
std::string Spaced(std::string text) {
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

// Stages run as the job's user: a job cannot stage in a file its user cannot
// read, nor stage out to where its user cannot write; the failure is the job's
// Reason, and nothing is copied.
TEST_F(BurstBufferTest, StagesCannotReadOrWriteWhatTheJobsUserCannot) {
  // The submission's check (as the user, at submit) sees what the source is
  // then: a link that points at /etc/shadow only after submission reaches the
  // stage, which runs as the user.
  const std::string link = home_ + "/shadow_link";
  ASSERT_EQ(
      cluster_
          ->RunAs("skiffalice", "echo mine > mine.txt && ln -sfn " + home_ + "/mine.txt " + link)
          .exit_code,
      0);
  CommandResult steal =
      Submit("steal.sh",
             absl::StrCat("#!/bin/bash\n#BB_LUA stage_in source=", link,
                          " destination=", cluster_->dir(), "/bb/shadow_%j\n#SBATCH -t 5\ntrue\n"),
             "-H");
  ASSERT_EQ(steal.exit_code, 0) << steal.err;
  const uint64_t a = SubmittedJobIds(steal.out).at(0);
  ASSERT_EQ(cluster_->RunAs("skiffalice", "ln -sfn /etc/shadow " + link).exit_code, 0);
  ASSERT_EQ(cluster_->Run(absl::StrCat("scontrol release ", a)).exit_code, 0);
  EXPECT_TRUE(Eventually(30,
                         [&] {
                           const std::string reason = Spaced(JobField(a, "Reason"));
                           return reason.find(absl::StrCat("data in failed: stage in cannot open ",
                                                           Spaced(link), ":")) !=
                                      std::string::npos &&
                                  reason.find("Permission denied") != std::string::npos;
                         }))
      << cluster_->Run(absl::StrCat("scontrol show job ", a)).out << cluster_->Log("ctld.log")
      << cluster_->Log("scriptd.log");
  EXPECT_EQ(RunShell(absl::StrCat("test -e ", cluster_->dir(), "/bb/shadow_", a)).exit_code, 1);
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", a)).exit_code, 0);

  const std::string planted = absl::StrCat("/root/skiff_planted_", getpid());
  CommandResult plant =
      Submit("plant.sh", absl::StrCat("#!/bin/bash\n#BB_LUA stage_out source=", home_,
                                      "/made.txt destination=", planted,
                                      "\n#SBATCH -t 5\necho made > made.txt\n"));
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  const uint64_t b = SubmittedJobIds(plant.out).at(0);
  EXPECT_TRUE(Eventually(40, [&] {
    const std::string reason = Spaced(JobField(b, "Reason"));
    return reason.find(absl::StrCat("data out failed: stage out cannot create ", Spaced(planted),
                                    ":")) != std::string::npos &&
           reason.find("Permission denied") != std::string::npos;
  })) << cluster_->Run(absl::StrCat("scontrol show job ", b)).out;
  EXPECT_EQ(RunShell("test -e " + planted).exit_code, 1);
  RunShell("rm -f " + planted);
  EXPECT_TRUE(Eventually(30, PoolsEmpty)) << Burst();
}

// setup runs as root and makes BB_ROOT/job_<id> the job user's. A user who
// plants a link named after their next job id in the shared BB_ROOT must not
// get root to hand them what it points at: the job's setup fails naming the
// link, and the other user's private directory keeps its owner and mode.
TEST_F(BurstBufferTest, APlantedLinkNeverHandsAnotherUsersDirectoryOver) {
  ASSERT_TRUE(cluster_->EnsureUser("skiffbob").ok());
  const std::string victim = cluster_->dir() + "/home/skiffbob/private";
  ASSERT_EQ(cluster_->RunAs("skiffbob", "mkdir -m 700 " + victim).exit_code, 0);

  // Alice learns her next job id, then plants the link as herself.
  CommandResult probe = cluster_->RunAs("skiffalice", "sbatch -H --wrap=true");
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  const uint64_t probe_id = SubmittedJobIds(probe.out).at(0);
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", probe_id)).exit_code, 0);
  const std::string link = absl::StrCat(cluster_->dir(), "/bb/job_", probe_id + 1);
  ASSERT_EQ(cluster_->RunAs("skiffalice", absl::StrCat("ln -s ", victim, " ", link)).exit_code, 0);

  CommandResult r = Submit("grab.sh",
                           "#!/bin/bash\n#BB_LUA pool=fast capacity=1M\n#SBATCH -t 5\n"
                           "ls $BB_JOB_DIR\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_EQ(id, probe_id + 1) << "another job took the planted id";
  EXPECT_TRUE(Eventually(30,
                         [&] {
                           const std::string reason = Spaced(JobField(id, "Reason"));
                           return reason.find("setup failed") != std::string::npos &&
                                  reason.find("symbolic link") != std::string::npos;
                         }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out << cluster_->Log("scriptd.log");
  EXPECT_EQ(RunShell("stat -c '%U %a' " + victim).out, "skiffbob 700\n");
  EXPECT_EQ(RunShell("stat -c %F " + link).out, "symbolic link\n");
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", id)).exit_code, 0);
  RunShell("rm -f " + link);
  EXPECT_TRUE(Eventually(30, PoolsEmpty)) << Burst();
}

// slurm_bb_job_process runs inside ctld as root while sbatch waits. The
// example checks stage_in sources as the job's user would see them and without
// opening them: a file only root can read is "not found", exactly as a
// missing one, and a FIFO of the user's is refused at once instead of holding
// a ctld thread (and later becoming a job whose sbatch had said it failed).
TEST_F(BurstBufferTest, StageInSourcesAreCheckedAsTheUserWithoutOpeningThem) {
  CommandResult root_only =
      Submit("shadow.sh",
             absl::StrCat("#!/bin/bash\n#BB_LUA stage_in source=/etc/shadow destination=", home_,
                          "/shadow_%j\ntrue\n"));
  EXPECT_EQ(root_only.exit_code, 1) << root_only.out;
  EXPECT_NE(root_only.err.find("burst_buffer/lua: stage_in source /etc/shadow not found"),
            std::string::npos)
      << root_only.err;

  const std::string fifo = home_ + "/pipe";
  ASSERT_EQ(cluster_->RunAs("skiffalice", "mkfifo " + fifo).exit_code, 0);
  const std::string before = cluster_->Run("squeue -h -t all -o %i | sort -n | tail -1").out;
  std::ofstream(home_ + "/fifo.sh") << absl::StrCat("#!/bin/bash\n#BB_LUA stage_in source=", fifo,
                                                    " destination=", home_, "/fifo_%j\ntrue\n");
  // Bounded so that a ctld that opens the FIFO fails this test instead of hanging it.
  CommandResult piped = cluster_->RunAs("skiffalice", "timeout 60 sbatch fifo.sh");
  EXPECT_EQ(piped.exit_code, 1) << piped.out;
  EXPECT_NE(piped.err.find(absl::StrCat("stage_in source ", fifo, " not found")), std::string::npos)
      << piped.err;
  EXPECT_EQ(cluster_->Run("squeue -h -t all -o %i | sort -n | tail -1").out, before);
}

TEST_F(BurstBufferTest, ShowBbstatCallsGetStatusWithTheWords) {
  CommandResult plain = cluster_->Run("scontrol show bbstat");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("burst_buffer.lua status: root=" + cluster_->dir() + "/bb"),
            std::string::npos)
      << plain.out;
  CommandResult words = cluster_->Run("scontrol show bbstat pools verbose");
  EXPECT_EQ(words.exit_code, 0) << words.err;
  EXPECT_NE(words.out.find("args=pools,verbose"), std::string::npos) << words.out;
}

TEST_F(BurstBufferTest, JobWaitsForPoolSpaceThenRuns) {
  CommandResult first = Submit("big1.sh",
                               "#!/bin/bash\n#BB_LUA pool=fast capacity=6G\n#SBATCH -t 5\n"
                               "sleep 5\n");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const uint64_t a = SubmittedJobIds(first.out).at(0);
  ASSERT_TRUE(Eventually(30, [&] { return JobField(a, "JobState") == "RUNNING"; }));
  CommandResult second = Submit("big2.sh",
                                "#!/bin/bash\n#BB_LUA pool=fast capacity=6G\n#SBATCH -t 5\n"
                                "true\n");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const uint64_t b = SubmittedJobIds(second.out).at(0);
  EXPECT_TRUE(Eventually(30, [&] { return JobField(b, "Reason") == "BurstBufferResources"; }))
      << JobField(b, "Reason");
  EXPECT_EQ(JobField(b, "BurstBufferState"), "pending");
  ASSERT_TRUE(Eventually(60, [&] { return JobField(b, "JobState") == "COMPLETED"; }));
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

TEST_F(BurstBufferTest, SubmissionRejectedByJobProcessShowsTheScriptsMessage) {
  CommandResult r = Submit("bad.sh",
                           "#!/bin/bash\n"
                           "#BB_LUA stage_in source=/nonexistent/file destination=/tmp/x\n"
                           "true\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("burst_buffer/lua: stage_in source /nonexistent/file not found"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Burst Buffer request invalid"), std::string::npos) << r.err;
  // An unknown pool and root are refused too.
  CommandResult pool = Submit("pool.sh", "#!/bin/bash\n#BB_LUA pool=nope capacity=1G\ntrue\n");
  EXPECT_NE(pool.exit_code, 0);
  CommandResult root = cluster_->Run("sbatch --bb='pool=fast capacity=1G' --wrap=true");
  EXPECT_NE(root.exit_code, 0);
  EXPECT_NE(root.err.find("User root can not allocate burst buffers"), std::string::npos)
      << root.err;
}

TEST_F(BurstBufferTest, DataInPastStageInTimeoutHoldsTheJobAndLeavesNoProcess) {
  CommandResult r = Submit("slow.sh",
                           "#!/bin/bash\n#BB_LUA pool=fast capacity=1M\n#BB_LUA stage_delay=47\n"
                           "true\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [] { return ProcessRunning("sleep 47"); }));
  ASSERT_TRUE(Eventually(30, [&] {
    // scontrol prints the reason with '_' for spaces, as Slurm.
    return JobField(id, "Reason").find("data_in_failed:_timed_out") != std::string::npos;
  })) << JobField(id, "Reason");
  EXPECT_EQ(JobField(id, "Reason").rfind("burst_buffer/lua:_", 0), 0u);
  EXPECT_EQ(JobField(id, "JobState"), "PENDING");
  EXPECT_EQ(JobField(id, "Priority"), "0");
  EXPECT_TRUE(Eventually(30, [] { return !ProcessRunning("sleep 47"); }));
  // scancel tears the held job's buffer down.
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", id)).exit_code, 0);
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

TEST_F(BurstBufferTest, ScancelDuringDataInKillsItsProcessGroupQuickly) {
  CommandResult r = Submit("cancelme.sh",
                           "#!/bin/bash\n#BB_LUA pool=fast capacity=1M\n#BB_LUA stage_delay=53\n"
                           "true\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(30, [] { return ProcessRunning("sleep 53"); }));
  ASSERT_EQ(cluster_->RunAs("skiffalice", absl::StrCat("scancel ", id)).exit_code, 0);
  const auto cancelled = std::chrono::steady_clock::now();
  ASSERT_TRUE(Eventually(30, [] { return !ProcessRunning("sleep 53"); }));
  EXPECT_LE(std::chrono::steady_clock::now() - cancelled, std::chrono::seconds(2));
  EXPECT_EQ(JobField(id, "JobState"), "CANCELLED");
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

TEST_F(BurstBufferTest, TestDataInBusyTwiceIsPolledThreeTimes) {
  CommandResult r = Submit("busy.sh",
                           "#!/bin/bash\n#BB_LUA pool=fast capacity=1M busy_twice\n#SBATCH -t 5\n"
                           "true\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(40, [&] { return JobField(id, "JobState") == "COMPLETED"; }));
  EXPECT_EQ(ReadFile(absl::StrCat(cluster_->dir(), "/bb/busy_", id)), "3");
}

TEST_F(BurstBufferTest, AfterBurstBufferWaitsForTheOtherJobsStageOut) {
  CommandResult first =
      Submit("producer.sh", absl::StrCat("#!/bin/bash\n#BB_LUA stage_delay=2\n"
                                         "#BB_LUA stage_out source=",
                                         home_, "/made.txt destination=", home_,
                                         "/published.txt\n#SBATCH -t 5\necho made > made.txt\n"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const uint64_t a = SubmittedJobIds(first.out).at(0);
  CommandResult second =
      cluster_->RunAs("skiffalice", absl::StrCat("sbatch -t 5 -d afterburstbuffer:", a,
                                                 " -o consumer.out --wrap='cat published.txt'"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const uint64_t b = SubmittedJobIds(second.out).at(0);
  ASSERT_TRUE(Eventually(60, [&] { return JobField(b, "JobState") == "COMPLETED"; }))
      << JobField(b, "Reason");
  EXPECT_EQ(ReadFile(home_ + "/consumer.out"), "made\n");
}

TEST_F(BurstBufferTest, EveryHookAndCtldScriptRunsUnderScriptd) {
  const std::string scriptd = ScriptdPid();
  ASSERT_FALSE(scriptd.empty());
  std::string jobs;
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&jobs, "sbatch -t 5 --bb='pool=bulk capacity=1G' -o /dev/null --wrap=true\n");
  }
  std::ofstream(home_ + "/many.sh") << jobs;
  CommandResult r = cluster_->RunAs("skiffalice", "bash many.sh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint64_t> ids = SubmittedJobIds(r.out);
  ASSERT_EQ(ids.size(), 200u) << r.err;
  ASSERT_TRUE(
      Eventually(400, [&] { return JobField(ids.back(), "BurstBufferState") == "complete"; }));
  ASSERT_TRUE(Eventually(60, PoolsEmpty)) << Burst();
  for (const char* file : {"bb_parents.txt", "script_parents.txt"}) {
    const std::string text = ReadFile(cluster_->dir() + "/log/" + file);
    std::vector<std::string> parents = absl::StrSplit(text, '\n', absl::SkipEmpty());
    EXPECT_GE(parents.size(), 200u) << file;
    for (const std::string& parent : parents) {
      ASSERT_EQ(parent, scriptd) << file;
    }
  }
}

// Crash recovery (these run last: they restart ctld and scriptd).

TEST_F(BurstBufferTest, CtldKilledDuringStageInStagesInAgainAndLeaksNothing) {
  std::ofstream(home_ + "/rin.txt") << "again\n";
  CommandResult r =
      Submit("crash_in.sh",
             absl::StrCat("#!/bin/bash\n#BB_LUA pool=fast capacity=2G\n#BB_LUA stage_delay=4\n"
                          "#BB_LUA stage_in source=",
                          home_, "/rin.txt destination=", cluster_->dir(),
                          "/bb/rin_%j.txt\n#SBATCH -t 5\ncat ", cluster_->dir(),
                          "/bb/rin_$SLURM_JOB_ID.txt\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(20, [&] { return JobField(id, "BurstBufferState") == "staging-in"; }));
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [] { return !ProcessRunning("sleep 4 "); }));
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return JobField(id, "BurstBufferState") == "complete"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_EQ(JobField(id, "JobState"), "COMPLETED");
  EXPECT_EQ(ReadFile(absl::StrCat(home_, "/slurm-", id, ".out")), "again\n");
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

// The job_script file the hooks open lives in StateSaveLocation, which a
// standby that takes over (issue 53) never had: ctld writes it again from the
// stored spec, and the job stages in and runs.
TEST_F(BurstBufferTest, ALostJobScriptFileIsWrittenAgainFromTheStoredSpec) {
  std::ofstream(home_ + "/lost.txt") << "kept\n";
  CommandResult r =
      Submit("lost_script.sh",
             absl::StrCat("#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n#BB_LUA stage_delay=4\n"
                          "#BB_LUA stage_in source=",
                          home_, "/lost.txt destination=", cluster_->dir(),
                          "/bb/lost_%j.txt\n#SBATCH -t 5\ncat ", cluster_->dir(),
                          "/bb/lost_$SLURM_JOB_ID.txt\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(20, [&] { return JobField(id, "BurstBufferState") == "staging-in"; }));
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [] { return !ProcessRunning("sleep 4 "); }));
  const std::string script = absl::StrCat(cluster_->dir(), "/state/ctld/bb/job_", id, "/script");
  ASSERT_EQ(unlink(script.c_str()), 0) << script;
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return JobField(id, "BurstBufferState") == "complete"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_EQ(JobField(id, "JobState"), "COMPLETED");
  EXPECT_EQ(ReadFile(absl::StrCat(home_, "/slurm-", id, ".out")), "kept\n");
  EXPECT_NE(
      cluster_->Log("ctld.log")
          .find(absl::StrCat("JobId=", id,
                             ": writing its burst-buffer job_script again from the stored spec")),
      std::string::npos);
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

TEST_F(BurstBufferTest, CtldKilledDuringStageOutStagesOutAgainAndLeaksNothing) {
  CommandResult r =
      Submit("crash_out.sh",
             absl::StrCat("#!/bin/bash\n#BB_LUA pool=bulk capacity=1G\n#BB_LUA stage_delay=4\n"
                          "#BB_LUA stage_out source=",
                          home_, "/rout_%j.txt destination=", home_,
                          "/rout_%j.staged\n#SBATCH -t 5\necho out > rout_$SLURM_JOB_ID.txt\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(60, [&] {
    const std::string state = JobField(id, "BurstBufferState");
    return state == "post-run" || state == "staging-out";
  }));
  ASSERT_EQ(kill(cluster_->Pid("ctld"), SIGKILL), 0);
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  ASSERT_TRUE(Eventually(60, [&] { return JobField(id, "BurstBufferState") == "complete"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  EXPECT_EQ(JobField(id, "JobState"), "COMPLETED");
  EXPECT_EQ(ReadFile(absl::StrCat(home_, "/rout_", id, ".staged")), "out\n");
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

TEST_F(BurstBufferTest, ScriptdKilledDuringDataInIsReissuedAndLeaksNothing) {
  CommandResult r = Submit("crash_scriptd.sh",
                           "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n#BB_LUA stage_delay=3\n"
                           "#SBATCH -t 5\ntrue\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t id = SubmittedJobIds(r.out).at(0);
  ASSERT_TRUE(Eventually(20, [] { return ProcessRunning("sleep 3 "); }));
  const std::string scriptd = ScriptdPid();
  ASSERT_FALSE(scriptd.empty());
  ASSERT_EQ(kill(std::stoi(scriptd), SIGKILL), 0);
  ASSERT_TRUE(Eventually(60, [&] { return JobField(id, "BurstBufferState") == "complete"; }))
      << cluster_->Run(absl::StrCat("scontrol show job ", id)).out << cluster_->Log("ctld.log");
  EXPECT_EQ(JobField(id, "JobState"), "COMPLETED");
  EXPECT_TRUE(Eventually(20, PoolsEmpty)) << Burst();
}

}  // namespace
}  // namespace skiff::testing
