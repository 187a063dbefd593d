// Runs real jobs through the real shepherd binary, without ctld: a JobManager on
// a temporary spool directory under /tmp.
#include "noded/job_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "noded/cgroup/cgroup_fs.h"
#include "noded/cgroup/cgroup_plan.h"
#include "noded/file_io.h"
#include "noded/job_files.h"

namespace skiff::noded {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;
using testing::HasSubstr;
using testing::Not;

std::string ShepherdPath() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "noded/shepherd";
  return absl::StrCat(srcdir, "/", workspace, "/noded/shepherd");
}

std::string Slurp(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  return text.ok() ? *text : "";
}

// Gone, or a zombie nobody has reaped yet.
bool ProcessGone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  const std::string stat = Slurp(absl::StrCat("/proc/", pid, "/stat"));
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

template <typename Pred>
bool WaitUntil(Pred pred, milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return pred();
}

class JobManagerTest : public testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/skiff-noded-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    // The job's user (nobody, in one test) must reach its script and output dir.
    chmod(root_.c_str(), 0755);
    spool_ = root_ + "/spool";
    out_ = root_ + "/out";
    ASSERT_EQ(mkdir(spool_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(out_.c_str(), 0777), 0);
    chmod(out_.c_str(), 0777);
    options_.spool_dir = spool_;
    options_.node_name = "tn1";
    options_.shepherd_binary = ShepherdPath();
    options_.kill_wait = 1;
    ASSERT_EQ(access(options_.shepherd_binary.c_str(), X_OK), 0) << options_.shepherd_binary;
    StartManager();
  }

  void TearDown() override {
    manager_.reset();
    // Leave nothing running, even when a test failed half-way.
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(spool_, ec)) {
      absl::StatusOr<JobPids> pids = ParseJobPids(Slurp(entry.path().string() + "/pids"));
      if (!pids.ok()) continue;
      if (pids->job_pgid > 0) kill(-pids->job_pgid, SIGKILL);
      if (ReadProcCmdline(pids->shepherd_pid).find(entry.path().string()) != std::string::npos) {
        kill(pids->shepherd_pid, SIGKILL);
      }
    }
    std::filesystem::remove_all(root_, ec);
  }

  void StartManager() {
    manager_.reset();
    manager_ = std::make_unique<JobManager>(options_, *spdlog::default_logger());
    manager_->Start();
  }

  LaunchSpec Spec(uint64_t id) {
    LaunchSpec spec;
    spec.job_id = id;
    spec.uid = getuid();
    spec.gid = getgid();
    spec.work_dir = out_;
    spec.stdout_path = Out(id);
    spec.cpus = 2;
    spec.environment = {{"PATH", "/usr/bin:/bin"}, {"SLURM_JOB_ID", absl::StrCat(id)}};
    return spec;
  }

  std::string Out(uint64_t id) { return absl::StrCat(out_, "/job", id, ".out"); }

  pid_t Launch(const LaunchSpec& spec, const std::string& script) {
    absl::StatusOr<pid_t> pid = manager_->Launch(spec, script);
    EXPECT_TRUE(pid.ok()) << pid.status();
    return pid.ok() ? *pid : 0;
  }

  std::optional<JobReport> WaitFinished(uint64_t id, milliseconds timeout = milliseconds(10000)) {
    std::optional<JobReport> found;
    WaitUntil(
        [&] {
          for (const JobReport& r : manager_->FinishedJobs()) {
            if (r.job_id == id) found = r;
          }
          return found.has_value();
        },
        timeout);
    return found;
  }

  // Waits for a file the script writes, and returns its content (trimmed).
  std::string WaitForFile(const std::string& path) {
    std::string text;
    WaitUntil(
        [&] {
          text = Slurp(path);
          return !text.empty() && text.back() == '\n';
        },
        milliseconds(5000));
    return std::string(absl::StripAsciiWhitespace(text));
  }

  bool IsRunning(uint64_t id) {
    for (const JobReport& r : manager_->Jobs()) {
      if (r.job_id == id) return !r.finished;
    }
    return false;
  }

  std::string root_, spool_, out_;
  JobManagerOptions options_;
  std::unique_ptr<JobManager> manager_;
};

TEST_F(JobManagerTest, OutputFileHoldsScriptOutputAndNodeEnvironment) {
  LaunchSpec spec = Spec(1);
  spec.gpu_indices = {0, 1};
  spec.argv = {"first", "second arg"};
  const pid_t shepherd = Launch(spec,
                                "#!/bin/bash\n"
                                "echo \"hello from job $SLURM_JOB_ID args=$1,$2\"\n"
                                "echo \"my pid=$$\"\n"
                                "echo to-stderr >&2\n"
                                "env | sort\n");
  EXPECT_GT(shepherd, 0);
  std::optional<JobReport> report = WaitFinished(1);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.exit_code, 0);
  EXPECT_EQ(report->result.signal, 0);
  EXPECT_EQ(report->result.failure, "");

  const std::string out = Slurp(Out(1));
  EXPECT_THAT(out, HasSubstr("hello from job 1 args=first,second arg\n"));
  EXPECT_THAT(out, HasSubstr("to-stderr\n"));  // stderr empty = stdout
  for (const char* line :
       {"\nSLURMD_NODENAME=tn1\n", "\nSLURM_NODEID=0\n", "\nSLURM_PROCID=0\n",
        "\nSLURM_LOCALID=0\n", "\nSLURM_GTIDS=0\n", "\nSLURM_CPUS_ON_NODE=2\n",
        "\nSLURM_JOB_ID=1\n", "\nPATH=/usr/bin:/bin\n", "\nCUDA_VISIBLE_DEVICES=0,1\n",
        "\nGPU_DEVICE_ORDINAL=0,1\n", "\nSLURM_JOB_GPUS=0,1\n", "\nSLURM_GPUS_ON_NODE=2\n"}) {
    EXPECT_THAT(out, HasSubstr(line));
  }
  // SLURM_TASK_PID is the batch shell itself.
  const size_t at = out.find("my pid=");
  ASSERT_NE(at, std::string::npos);
  const std::string pid = out.substr(at + 7, out.find('\n', at) - at - 7);
  EXPECT_THAT(out, HasSubstr(absl::StrCat("\nSLURM_TASK_PID=", pid, "\n")));
}

TEST_F(JobManagerTest, ReportsTheScriptsExitCode) {
  Launch(Spec(2), "#!/bin/sh\nexit 3\n");
  std::optional<JobReport> report = WaitFinished(2);
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->finished);
  EXPECT_EQ(report->result.exit_code, 3);
  EXPECT_EQ(report->result.signal, 0);
}

TEST_F(JobManagerTest, ReportsTheSignalThatKilledTheScript) {
  Launch(Spec(3), "#!/bin/sh\nkill -USR1 $$\nsleep 10\n");
  std::optional<JobReport> report = WaitFinished(3);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.signal, SIGUSR1);
  EXPECT_EQ(report->result.exit_code, 0);
}

TEST_F(JobManagerTest, ScriptWithoutShebangRunsUnderSh) {
  Launch(Spec(4), "echo plain script\n");
  ASSERT_TRUE(WaitFinished(4));
  EXPECT_EQ(Slurp(Out(4)), "plain script\n");
}

TEST_F(JobManagerTest, RunsInWorkDirWithRelativeOutputPaths) {
  const std::string sub = out_ + "/sub dir";
  ASSERT_EQ(mkdir(sub.c_str(), 0777), 0);
  LaunchSpec spec = Spec(5);
  spec.work_dir = sub;
  spec.stdout_path = "rel.out";
  spec.stderr_path = "rel.err";
  Launch(spec, "#!/bin/sh\npwd\necho oops >&2\n");
  ASSERT_TRUE(WaitFinished(5));
  EXPECT_EQ(Slurp(sub + "/rel.out"), sub + "\n");
  EXPECT_EQ(Slurp(sub + "/rel.err"), "oops\n");
}

TEST_F(JobManagerTest, OutputIsAppendedNotTruncated) {
  ASSERT_TRUE(WriteNewFile(Out(6), "earlier\n", 0644).ok());
  Launch(Spec(6), "#!/bin/sh\necho later\n");
  ASSERT_TRUE(WaitFinished(6));
  EXPECT_EQ(Slurp(Out(6)), "earlier\nlater\n");
}

TEST_F(JobManagerTest, MissingWorkDirFailsWithAClearReason) {
  LaunchSpec spec = Spec(7);
  spec.work_dir = "/nonexistent/skiff-work-dir";
  EXPECT_GT(Launch(spec, "#!/bin/sh\necho should not run\n"), 0);
  std::optional<JobReport> report = WaitFinished(7);
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure,
              HasSubstr("cannot chdir to work_dir /nonexistent/skiff-work-dir"));
  EXPECT_NE(report->result.exit_code, 0);
  EXPECT_EQ(Slurp(Out(7)), "");
}

TEST_F(JobManagerTest, UnwritableStdoutFailsNamingTheField) {
  LaunchSpec spec = Spec(8);
  spec.stdout_path = "/nonexistent/dir/out.txt";
  Launch(spec, "#!/bin/sh\necho x\n");
  std::optional<JobReport> report = WaitFinished(8);
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure, HasSubstr("stdout_path /nonexistent/dir/out.txt"));
}

TEST_F(JobManagerTest, UnknownUserFailsWithoutStartingAShepherd) {
  LaunchSpec spec = Spec(9);
  spec.user_name = "no-such-skiff-user";
  EXPECT_EQ(Launch(spec, "#!/bin/sh\necho x\n"), 0);
  std::optional<JobReport> report = WaitFinished(9, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure, HasSubstr("unknown user_name 'no-such-skiff-user'"));
  EXPECT_NE(report->result.exit_code, 0);
}

TEST_F(JobManagerTest, MissingShepherdBinaryFailsTheJob) {
  options_.shepherd_binary = "/nonexistent/shepherd";
  StartManager();
  EXPECT_EQ(Launch(Spec(10), "#!/bin/sh\necho x\n"), 0);
  std::optional<JobReport> report = WaitFinished(10, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure, HasSubstr("cannot execute shepherd /nonexistent/shepherd"));
}

TEST_F(JobManagerTest, LaunchIsIdempotentPerJobId) {
  const std::string script = "#!/bin/sh\necho run >> " + out_ + "/runs\nsleep 0.5\n";
  const pid_t first = Launch(Spec(11), script);
  const pid_t second = Launch(Spec(11), script);
  EXPECT_GT(first, 0);
  EXPECT_EQ(first, second);
  ASSERT_TRUE(WaitFinished(11));
  EXPECT_EQ(Slurp(out_ + "/runs"), "run\n");
}

TEST_F(JobManagerTest, JobIdZeroIsRejected) {
  EXPECT_FALSE(manager_->Launch(Spec(0), "#!/bin/sh\n").ok());
}

TEST_F(JobManagerTest, TerminateKillsTheJobAndItsBackgroundGrandchild) {
  const std::string pidfile = out_ + "/grandchild.pid";
  Launch(Spec(12), "#!/bin/bash\nsleep 100 &\necho $! > " + pidfile + "\nwait\n");
  pid_t grandchild = 0;
  ASSERT_TRUE(absl::SimpleAtoi(WaitForFile(pidfile), &grandchild));
  ASSERT_FALSE(ProcessGone(grandchild));

  const auto start = steady_clock::now();
  ASSERT_TRUE(manager_->Terminate(12, 30).ok());
  std::optional<JobReport> report = WaitFinished(12, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_LT(steady_clock::now() - start, seconds(5));  // SIGTERM did it, not the SIGKILL
  EXPECT_EQ(report->result.signal, SIGTERM);
  EXPECT_TRUE(WaitUntil([&] { return ProcessGone(grandchild); }, milliseconds(5000)));
}

TEST_F(JobManagerTest, TerminateSendsSigkillAfterKillWaitWhenTermIsIgnored) {
  const std::string marker = out_ + "/trapped";
  Launch(Spec(13), "#!/bin/bash\ntrap '' TERM\necho yes > " + marker + "\nsleep 100\n");
  ASSERT_EQ(WaitForFile(marker), "yes");

  const auto start = steady_clock::now();
  ASSERT_TRUE(manager_->Terminate(13, 2).ok());
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_TRUE(IsRunning(13));  // TERM is ignored
  std::optional<JobReport> report = WaitFinished(13, milliseconds(6000));
  ASSERT_TRUE(report);
  EXPECT_GE(steady_clock::now() - start, milliseconds(1900));
  EXPECT_EQ(report->result.signal, SIGKILL);
}

TEST_F(JobManagerTest, TerminateOfUnknownJobIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(manager_->Terminate(999, 1)));
  EXPECT_TRUE(
      absl::IsNotFound(manager_->Signal(999, SIGTERM, JobManager::SignalTarget::kEveryProcess)));
}

// The batch shell traps USR1; its background sleep does not.
// The batch shell traps USR1 and reports whether its background sleep died of
// it. The test signals only once the sleep has exec'd (WaitForSleep): a
// child still in bash between fork and exec catches USR1 with the inherited
// trap and loses it at exec, and the sleep then lives on. A signalled sleep dies when it next runs,
// and on a loaded machine that can be seconds later: the shell waits up to `tenths` tenths of a
// second for it to be gone or a zombie (kill -0 still finds a zombie), and stops as soon as it is.
std::string SignalScript(int tenths) {
  return absl::StrCat(
      "#!/bin/bash\n"
      "trap 'echo shell got USR1' USR1\n"
      "sleep 100 &\n"
      "echo $! > $SLURM_JOB_ID.sleep\n"
      "wait\n"
      "pid=$(cat $SLURM_JOB_ID.sleep)\n"
      "dead() { ! [ -e /proc/$pid ] || [ \"$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)\" = Z ]; "
      "}\n"
      "for i in $(seq ",
      tenths,
      "); do dead && break; sleep 0.1; done\n"
      "if dead; then echo sleep dead; else echo sleep alive; kill $pid; fi\n");
}

// The background sleep's pid (from its pid file's text), once that process has
// exec'd sleep; 0 for text that is no pid.
pid_t WaitForSleep(const std::string& pid_text) {
  pid_t pid = 0;
  if (!absl::SimpleAtoi(pid_text, &pid)) return 0;
  WaitUntil([&] { return Slurp(absl::StrCat("/proc/", pid, "/comm")) == "sleep\n"; },
            milliseconds(30000));
  return pid;
}

TEST_F(JobManagerTest, SignalBatchOnlyReachesOnlyTheBatchShell) {
  // A sleep the signal reached would die: half a second shows it did not.
  Launch(Spec(14), SignalScript(5));
  ASSERT_NE(WaitForSleep(WaitForFile(out_ + "/14.sleep")), 0);
  ASSERT_TRUE(manager_->Signal(14, SIGUSR1, JobManager::SignalTarget::kBatchShell).ok());
  ASSERT_TRUE(WaitFinished(14));
  EXPECT_EQ(Slurp(Out(14)), "shell got USR1\nsleep alive\n");
}

TEST_F(JobManagerTest, SignalReachesEveryProcessOfTheJob) {
  Launch(Spec(15), SignalScript(600));
  ASSERT_NE(WaitForSleep(WaitForFile(out_ + "/15.sleep")), 0);
  ASSERT_TRUE(manager_->Signal(15, SIGUSR1, JobManager::SignalTarget::kEveryProcess).ok());
  ASSERT_TRUE(WaitFinished(15, milliseconds(90000)));
  EXPECT_EQ(Slurp(Out(15)), "shell got USR1\nsleep dead\n");
  EXPECT_FALSE(
      manager_->Signal(15, SIGUSR1, JobManager::SignalTarget::kEveryProcess).ok());  // finished
}

TEST_F(JobManagerTest, SignalBatchGroupReachesTheShellAndItsChildren) {
  Launch(Spec(19), SignalScript(600));
  ASSERT_NE(WaitForSleep(WaitForFile(out_ + "/19.sleep")), 0);
  ASSERT_TRUE(manager_->Signal(19, SIGUSR1, JobManager::SignalTarget::kBatchGroup).ok());
  ASSERT_TRUE(WaitFinished(19, milliseconds(90000)));
  EXPECT_EQ(Slurp(Out(19)), "shell got USR1\nsleep dead\n");
}

TEST_F(JobManagerTest, RunsAsTheJobsUserWhenRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to nobody";
  LaunchSpec spec = Spec(16);
  spec.uid = 65534;
  spec.gid = 65534;
  spec.user_name = "nobody";
  Launch(spec, "#!/bin/sh\nid -u\nid -g\ntouch made-by-job\n");
  std::optional<JobReport> report = WaitFinished(16);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.failure, "");
  EXPECT_EQ(Slurp(Out(16)), "65534\n65534\n");
  struct stat st;
  ASSERT_EQ(stat(Out(16).c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);  // opened after dropping privileges
  ASSERT_EQ(stat((out_ + "/made-by-job").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
}

TEST_F(JobManagerTest, RefusesAnotherUsersJobWhenNotRoot) {
  if (geteuid() == 0) GTEST_SKIP() << "root may run any user's job";
  LaunchSpec spec = Spec(17);
  spec.uid = 65534;
  spec.gid = 65534;
  spec.user_name = "nobody";
  Launch(spec, "#!/bin/sh\nid -u\n");
  std::optional<JobReport> report = WaitFinished(17);
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure, HasSubstr("cannot start a job as uid 65534"));
}

TEST_F(JobManagerTest, UserNameMustMatchTheUid) {
  LaunchSpec spec = Spec(18);
  spec.user_name = "root";
  spec.uid = 12345;
  EXPECT_EQ(Launch(spec, "#!/bin/sh\n"), 0);
  std::optional<JobReport> report = WaitFinished(18, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_THAT(report->result.failure, HasSubstr("on this node, not uid"));
}

TEST_F(JobManagerTest, AJobKeepsRunningWhileNodedIsDownAndIsReportedAfterRestart) {
  const pid_t shepherd = Launch(Spec(20), "#!/bin/sh\nsleep 2\nexit 3\n");
  ASSERT_GT(shepherd, 0);
  manager_.reset();  // noded dies
  EXPECT_FALSE(ProcessGone(shepherd));

  StartManager();  // noded restarts on the same spool
  EXPECT_TRUE(IsRunning(20));
  std::optional<JobReport> report = WaitFinished(20);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.exit_code, 3);
  EXPECT_EQ(report->result.failure, "");
}

TEST_F(JobManagerTest, AJobThatEndedWhileNodedWasDownIsReportedAfterRestart) {
  Launch(Spec(21), "#!/bin/sh\nsleep 0.3\nexit 5\n");
  const std::string status = manager_->JobDir(21) + "/status";
  manager_.reset();
  ASSERT_TRUE(WaitUntil([&] { return access(status.c_str(), F_OK) == 0; }, milliseconds(5000)));
  StartManager();
  std::optional<JobReport> report = WaitFinished(21, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.exit_code, 5);
}

TEST_F(JobManagerTest, AJobWhoseShepherdDiedIsReportedLost) {
  const pid_t shepherd = Launch(Spec(22), "#!/bin/sh\nsleep 100\n");
  ASSERT_GT(shepherd, 0);
  manager_.reset();
  kill(shepherd, SIGKILL);
  ASSERT_TRUE(WaitUntil([&] { return ProcessGone(shepherd); }, milliseconds(5000)));
  StartManager();
  std::optional<JobReport> report = WaitFinished(22, milliseconds(5000));
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.failure, "shepherd lost");
}

TEST_F(JobManagerTest, TerminateWorksOnAReadoptedJob) {
  Launch(Spec(23), "#!/bin/sh\nsleep 100\n");
  manager_.reset();
  StartManager();
  ASSERT_TRUE(IsRunning(23));
  ASSERT_TRUE(manager_->Terminate(23, 5).ok());
  std::optional<JobReport> report = WaitFinished(23, milliseconds(3000));
  ASSERT_TRUE(report);
  EXPECT_EQ(report->result.signal, SIGTERM);
}

TEST_F(JobManagerTest, AcknowledgedJobIsForgottenAndItsDirectoryRemoved) {
  Launch(Spec(24), "#!/bin/sh\nexit 0\n");
  ASSERT_TRUE(WaitFinished(24));
  const std::string dir = manager_->JobDir(24);
  EXPECT_EQ(access((dir + "/status").c_str(), F_OK), 0);
  manager_->Acknowledge(24);
  EXPECT_TRUE(manager_->Jobs().empty());
  EXPECT_NE(access(dir.c_str(), F_OK), 0);
  manager_.reset();
  StartManager();  // nothing comes back
  EXPECT_TRUE(manager_->Jobs().empty());
}

TEST_F(JobManagerTest, AbandonedJobIsKilledNeverReportedAndCleanedUp) {
  Launch(Spec(25), "#!/bin/sh\nsleep 100\n");
  ASSERT_TRUE(IsRunning(25));
  manager_->Abandon(25);
  EXPECT_TRUE(manager_->Jobs().empty());
  const std::string dir = manager_->JobDir(25);
  EXPECT_TRUE(WaitUntil([&] { return access(dir.c_str(), F_OK) != 0; }, milliseconds(5000)));
  EXPECT_TRUE(manager_->FinishedJobs().empty());
}

TEST_F(JobManagerTest, FinishedListenerIsCalled) {
  manager_.reset();
  std::atomic<int> calls{0};
  manager_ = std::make_unique<JobManager>(options_, *spdlog::default_logger());
  manager_->SetFinishedListener([&calls] { ++calls; });
  manager_->Start();
  Launch(Spec(26), "#!/bin/sh\n");
  ASSERT_TRUE(WaitFinished(26));
  EXPECT_TRUE(WaitUntil([&] { return calls.load() > 0; }, milliseconds(5000)));
}

TEST_F(JobManagerTest, JobDirectoryIsPrivateAndScriptBelongsToTheUser) {
  LaunchSpec spec = Spec(27);
  Launch(spec, "#!/bin/sh\nsleep 100\n");
  const std::string dir = manager_->JobDir(27);
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0711u);
  ASSERT_EQ(stat((dir + "/slurm_script").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, spec.uid);
  ASSERT_EQ(stat((dir + "/spec").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::StatusOr<LaunchSpec> written = ParseLaunchSpec(Slurp(dir + "/spec"));
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->node_name, "tn1");
  EXPECT_FALSE(written->groups.empty());  // resolved by noded
  ASSERT_TRUE(manager_->Terminate(27, 1).ok());
  ASSERT_TRUE(WaitFinished(27));
}

// ------------------------------------------------------------------ cgroups
// The job manager's side of confinement against a fake backend (the real ones
// are tested in noded/cgroup/ and tests/integration/cgroup_test.cc). The fake
// reports no hierarchy version, so the shepherd runs the job unconfined.
class FakeCgroups : public Cgroups {
 public:
  CgroupVersion version() const override { return CgroupVersion::kNone; }
  std::vector<std::string> controllers() const override { return {}; }
  absl::Status PrepareNode(const std::string&) override { return absl::OkStatus(); }
  std::vector<int> NodeCpus(const std::string&) const override { return {}; }
  absl::Status CreateJob(const std::string& rel, const JobCgroupLimits& limits) override {
    absl::MutexLock lock(&mu);
    created[rel] = limits;
    return absl::OkStatus();
  }
  std::vector<std::string> ProcsFiles(const std::string&) const override { return {}; }
  std::vector<pid_t> Pids(const std::string&) const override { return {}; }
  absl::Status Signal(const std::string& rel, int sig) override {
    absl::MutexLock lock(&mu);
    signals.push_back(absl::StrCat(rel, " ", sig));
    return absl::OkStatus();
  }
  absl::Status KillAll(const std::string& rel) override { return Signal(rel, SIGKILL); }
  uint64_t OomKills(const std::string&) const override { return 0; }
  absl::Status Remove(const std::string& rel) override {
    absl::MutexLock lock(&mu);
    removed.push_back(rel);
    return absl::OkStatus();
  }

  std::vector<int> CpusOf(const std::string& rel) {
    absl::MutexLock lock(&mu);
    auto it = created.find(rel);
    return it == created.end() ? std::vector<int>{-1} : it->second.cpus;
  }

  absl::Mutex mu;
  std::map<std::string, JobCgroupLimits> created;
  std::vector<std::string> signals;
  std::vector<std::string> removed;
};

class JobManagerCgroupTest : public JobManagerTest {
 protected:
  void SetUp() override {
    fake_ = std::make_shared<FakeCgroups>();
    options_.cgroups = fake_;
    options_.cgroup_settings.enabled = true;
    options_.cgroup_settings.constrain_cores = true;
    options_.cgroup_settings.constrain_ram = true;
    options_.cgroup_settings.constrain_devices = true;
    options_.node_cpus = 4;
    options_.host_cpus = {10, 11, 12, 13};
    options_.gpu_devices = {{{'c', 195, 0}}, {{'c', 195, 1}}};
    JobManagerTest::SetUp();
  }

  std::shared_ptr<FakeCgroups> fake_;
};

TEST_F(JobManagerCgroupTest, JobsGetTheirOwnCpusLimitsAndDevicesInTheirCgroup) {
  LaunchSpec first = Spec(31);
  first.memory_mb = 100;
  first.gpu_indices = {1};
  ASSERT_GT(Launch(first, "#!/bin/sh\nsleep 30\n"), 0);
  ASSERT_GT(Launch(Spec(32), "#!/bin/sh\nsleep 30\n"), 0);
  EXPECT_EQ(fake_->CpusOf("skiff/tn1/job_31"), (std::vector<int>{10, 11}));
  EXPECT_EQ(fake_->CpusOf("skiff/tn1/job_32"), (std::vector<int>{12, 13}));
  {
    absl::MutexLock lock(&fake_->mu);
    const JobCgroupLimits& limits = fake_->created["skiff/tn1/job_31"];
    EXPECT_EQ(limits.ram_bytes, 100ull << 20);
    EXPECT_EQ(limits.denied_devices, (std::vector<DeviceNumber>{{'c', 195, 0}}));
  }
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(Slurp(manager_->JobDir(31) + "/spec"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->cpu_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(spec->cgroup_version, 0) << "the fake names no hierarchy for the shepherd";

  // scancel: every process of the cgroup hears it, not only the process group.
  ASSERT_TRUE(manager_->Terminate(31, 1).ok());
  ASSERT_TRUE(WaitFinished(31));
  {
    absl::MutexLock lock(&fake_->mu);
    EXPECT_THAT(fake_->signals, testing::Contains(absl::StrCat("skiff/tn1/job_31 ", SIGTERM)));
  }
  // Its CPUs are free again for the next job.
  ASSERT_GT(Launch(Spec(33), "#!/bin/sh\nsleep 30\n"), 0);
  EXPECT_EQ(fake_->CpusOf("skiff/tn1/job_33"), (std::vector<int>{10, 11}));
  manager_->Acknowledge(31);
  {
    absl::MutexLock lock(&fake_->mu);
    EXPECT_THAT(fake_->removed, testing::Contains("skiff/tn1/job_31"));
  }
  ASSERT_TRUE(manager_->Terminate(32, 0).ok());
  ASSERT_TRUE(manager_->Terminate(33, 0).ok());
  ASSERT_TRUE(WaitFinished(32));
  ASSERT_TRUE(WaitFinished(33));
}

TEST_F(JobManagerCgroupTest, ARestartedManagerKnowsTheCpusOfTheJobsItReadopts) {
  ASSERT_GT(Launch(Spec(41), "#!/bin/sh\nsleep 30\n"), 0);
  EXPECT_EQ(fake_->CpusOf("skiff/tn1/job_41"), (std::vector<int>{10, 11}));
  StartManager();  // noded restarted: job 41 runs on, re-adopted from its directory
  ASSERT_GT(Launch(Spec(42), "#!/bin/sh\nsleep 30\n"), 0);
  EXPECT_EQ(fake_->CpusOf("skiff/tn1/job_42"), (std::vector<int>{12, 13}));
  ASSERT_TRUE(manager_->Terminate(41, 0).ok());
  ASSERT_TRUE(manager_->Terminate(42, 0).ok());
  ASSERT_TRUE(WaitFinished(41));
  ASSERT_TRUE(WaitFinished(42));
}

}  // namespace
}  // namespace skiff::noded
