#include "scriptd/script_runner.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace skiff::scriptd {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

std::shared_ptr<spdlog::logger> TestLogger() {
  static auto logger = std::make_shared<spdlog::logger>(
      "scriptd-test", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  return logger;
}

ScriptRequest Shell(const std::string& id, const std::string& command) {
  ScriptRequest request;
  request.request_id = id;
  request.path = "/bin/sh";
  request.argv = {"-c", command};
  request.environment = {{"PATH", "/usr/bin:/bin"}};
  return request;
}

std::string TempDir() {
  const char* dir = getenv("TEST_TMPDIR");
  char resolved[PATH_MAX];
  if (dir != nullptr && realpath(dir, resolved) != nullptr) return resolved;
  return "/tmp";
}

// Gone, or a zombie nobody has reaped yet (it cannot run any more either way).
bool ProcessGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

bool EventuallyGone(pid_t pid) {
  const auto until = Clock::now() + std::chrono::seconds(3);
  while (Clock::now() < until) {
    if (ProcessGone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ProcessGone(pid);
}

void WaitUntilRunning(ScriptRunner& runner, int count) {
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (runner.Running() < count && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(runner.Running(), count);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class ScriptRunnerTest : public ::testing::Test {
 protected:
  ScriptRunner runner_{*TestLogger()};
};

TEST_F(ScriptRunnerTest, ReportsExitCode) {
  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("exit", "exit 3"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->signal, 0);
  EXPECT_FALSE(result->timed_out);
  EXPECT_FALSE(result->killed);
  EXPECT_EQ(result->error, "");
  EXPECT_GT(result->pid, 0);
  EXPECT_EQ(runner_.Running(), 0);
}

TEST_F(ScriptRunnerTest, ReportsTheSignalThatEndedTheScript) {
  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("signal", "kill -USR1 $$; sleep 5"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->signal, SIGUSR1);
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_FALSE(result->killed);
}

TEST_F(ScriptRunnerTest, CapturesStdoutAndStderrTogether) {
  absl::StatusOr<ScriptResult> result =
      runner_.Run(Shell("both", "echo out; echo err >&2; echo out2"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "out\nerr\nout2\n");
}

TEST_F(ScriptRunnerTest, KeepsOnlyTheLastFourKiBOfOutput) {
  std::string expected;
  for (int i = 1; i <= 20000; ++i) expected += std::to_string(i) + "\n";
  ASSERT_GT(expected.size(), 3 * ScriptRunner::kMaxOutputTail);
  expected = expected.substr(expected.size() - ScriptRunner::kMaxOutputTail);

  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("seq", "seq 1 20000"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail.size(), ScriptRunner::kMaxOutputTail);
  EXPECT_EQ(result->output_tail, expected);
}

TEST_F(ScriptRunnerTest, OutputTailIsValidUtf8WhenTheCutSplitsACharacter) {
  // 3000 two-byte characters then "x": the 4 KiB cut lands inside a character.
  absl::StatusOr<ScriptResult> result =
      runner_.Run(Shell("utf8",
                        "i=0; while [ $i -lt 3000 ]; do printf '\\303\\251'; i=$((i+1)); done; "
                        "printf 'x\\377y'"));
  ASSERT_TRUE(result.ok()) << result.status();
  std::string expected;
  for (int i = 0; i < 2046; ++i) expected += "\xc3\xa9";
  expected += "x?y";
  EXPECT_EQ(result->output_tail, expected);
}

TEST_F(ScriptRunnerTest, EnvironmentIsExactlyTheRequestedOne) {
  setenv("SKIFF_SCRIPTD_TEST_LEAK", "1", 1);
  ScriptRequest request;
  request.request_id = "env";
  request.path = "/usr/bin/env";
  request.environment = {{"A", "1"}, {"B", "two words"}};
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "A=1\nB=two words\n");
}

TEST_F(ScriptRunnerTest, RejectsAnEnvironmentNameWithAnEqualsSign) {
  ScriptRequest request = Shell("bad-env", "true");
  request.environment["A=B"] = "1";
  EXPECT_EQ(runner_.Run(request).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ScriptRunnerTest, PassesArgvAfterThePath) {
  ScriptRequest request;
  request.request_id = "argv";
  request.path = "/bin/echo";
  request.argv = {"a b", "c"};
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "a b c\n");
}

TEST_F(ScriptRunnerTest, RunsInWorkDir) {
  ScriptRequest request = Shell("pwd", "pwd");
  request.work_dir = TempDir();
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, TempDir() + "\n");
}

TEST_F(ScriptRunnerTest, WorkDirDefaultsToRoot) {
  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("pwd-default", "pwd"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "/\n");
}

TEST_F(ScriptRunnerTest, MissingWorkDirIsAnErrorThatNamesIt) {
  ScriptRequest request = Shell("no-dir", "true");
  request.work_dir = "/nonexistent-skiff-dir";
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 127);
  EXPECT_EQ(result->error,
            "cannot change directory to /nonexistent-skiff-dir: No such file or directory");
}

TEST_F(ScriptRunnerTest, StdinIsTheRequestBytes) {
  ScriptRequest request = Shell("stdin", "cat");
  request.stdin_data = "hello\nworld";
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "hello\nworld");
}

TEST_F(ScriptRunnerTest, EmptyStdinIsDevNull) {
  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("no-stdin", "cat; echo done"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "done\n");
}

TEST_F(ScriptRunnerTest, StdinLargerThanAPipeBufferIsWrittenWhole) {
  ScriptRequest request = Shell("big-stdin", "wc -c");
  request.stdin_data.assign(1 << 20, 'x');
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "1048576\n");
}

TEST_F(ScriptRunnerTest, ScriptThatIgnoresItsStdinDoesNotHangOrKillUs) {
  ScriptRequest request = Shell("ignore-stdin", "exit 4");
  request.stdin_data.assign(1 << 20, 'x');
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 4);
}

TEST_F(ScriptRunnerTest, TimeoutKillsTheScriptAndItsGrandchild) {
  ScriptRequest request = Shell("timeout", "sleep 100 & echo $!; sleep 100");
  request.timeout_seconds = 1;
  const auto start = Clock::now();
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(SecondsSince(start), 0.9);
  EXPECT_LT(SecondsSince(start), 5);
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->killed);
  EXPECT_EQ(result->signal, SIGKILL);
  const pid_t grandchild = atoi(result->output_tail.c_str());
  ASSERT_GT(grandchild, 0) << result->output_tail;
  EXPECT_TRUE(EventuallyGone(grandchild)) << "grandchild " << grandchild << " survived";
  EXPECT_TRUE(ProcessGone(result->pid));
}

TEST_F(ScriptRunnerTest, WhatTheScriptLeftInItsGroupIsKilledWhenItEnds) {
  const auto start = Clock::now();
  absl::StatusOr<ScriptResult> result = runner_.Run(Shell("leftover", "sleep 100 & echo $!"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(SecondsSince(start), 5);
  EXPECT_EQ(result->exit_code, 0);
  const pid_t grandchild = atoi(result->output_tail.c_str());
  ASSERT_GT(grandchild, 0) << result->output_tail;
  EXPECT_TRUE(EventuallyGone(grandchild)) << "leftover " << grandchild << " survived";
}

TEST_F(ScriptRunnerTest, KillEndsTheScriptAndReportsKilled) {
  const auto start = Clock::now();
  auto run = std::async(std::launch::async,
                        [this] { return runner_.Run(Shell("kill-me", "sleep 100 & sleep 100")); });
  WaitUntilRunning(runner_, 1);
  EXPECT_TRUE(runner_.Kill("kill-me"));
  absl::StatusOr<ScriptResult> result = run.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(SecondsSince(start), 5);
  EXPECT_TRUE(result->killed);
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->signal, SIGKILL);
  EXPECT_FALSE(runner_.Kill("kill-me"));
  EXPECT_EQ(runner_.Running(), 0);
}

TEST_F(ScriptRunnerTest, KillOfAnUnknownRequestIsNotRunning) {
  EXPECT_FALSE(runner_.Kill("never-started"));
}

TEST_F(ScriptRunnerTest, ExecFailureNamesThePathAndTheReason) {
  ScriptRequest request;
  request.request_id = "missing";
  request.path = "/etc/skiff/no-such-prolog.sh";
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 127);
  EXPECT_EQ(result->error,
            "cannot execute /etc/skiff/no-such-prolog.sh: No such file or directory");
}

TEST_F(ScriptRunnerTest, NonExecutableFileIsAnExecFailure) {
  const std::string path = TempDir() + "/not-executable.sh";
  std::ofstream(path) << "#!/bin/sh\necho hi\n";
  chmod(path.c_str(), 0644);
  ScriptRequest request;
  request.request_id = "noexec";
  request.path = path;
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 127);
  EXPECT_EQ(result->error, "cannot execute " + path + ": Permission denied");
}

TEST_F(ScriptRunnerTest, ScriptDoesNotInheritOurFileDescriptors) {
  const int fd = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: would leak through exec
  ASSERT_GE(fd, 0);
  ASSERT_EQ(dup2(fd, 100), 100);
  close(fd);
  ScriptRequest request;
  request.request_id = "fds";
  request.path = "/bin/ls";
  request.argv = {"/proc/self/fd"};
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  close(100);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output_tail, "0\n1\n2\n3\n");  // 3: ls's own directory handle
}

TEST_F(ScriptRunnerTest, ConcurrentRunsOverlap) {
  constexpr int kRuns = 20;
  const auto start = Clock::now();
  std::vector<std::future<absl::StatusOr<ScriptResult>>> runs;
  for (int i = 0; i < kRuns; ++i) {
    runs.push_back(std::async(std::launch::async, [this, i] {
      ScriptRequest request;
      request.request_id = "sleep-" + std::to_string(i);
      request.path = "/bin/sleep";
      request.argv = {"0.2"};
      return runner_.Run(request);
    }));
  }
  for (auto& run : runs) {
    absl::StatusOr<ScriptResult> result = run.get();
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->exit_code, 0);
  }
  EXPECT_LT(SecondsSince(start), kRuns * 0.2 / 2);
}

TEST_F(ScriptRunnerTest, RunsAsAnotherUserWhenRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  struct passwd* nobody = getpwuid(65534);
  if (nobody == nullptr) GTEST_SKIP() << "no passwd entry for uid 65534";
  ScriptRequest request = Shell("nobody", "id -u; id -g; id -G");
  request.uid = 65534;  // gid 0: the user's primary group
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->error, "");
  const std::string gid = std::to_string(nobody->pw_gid);
  // Root's own groups are gone: only the user's (nobody has no supplementary ones).
  EXPECT_EQ(result->output_tail, "65534\n" + gid + "\n" + gid + "\n");
}

TEST_F(ScriptRunnerTest, DuplicateRequestIdIsRejectedWhileRunning) {
  auto run =
      std::async(std::launch::async, [this] { return runner_.Run(Shell("dup", "sleep 100")); });
  WaitUntilRunning(runner_, 1);
  EXPECT_EQ(runner_.Run(Shell("dup", "true")).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(runner_.Kill("dup"));
  ASSERT_TRUE(run.get().ok());
  // Finished ids may be used again.
  absl::StatusOr<ScriptResult> again = runner_.Run(Shell("dup", "exit 0"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->exit_code, 0);
}

TEST_F(ScriptRunnerTest, KillAllEndsEverythingAndRefusesNewRequests) {
  auto first =
      std::async(std::launch::async, [this] { return runner_.Run(Shell("a", "sleep 100")); });
  auto second =
      std::async(std::launch::async, [this] { return runner_.Run(Shell("b", "sleep 100")); });
  WaitUntilRunning(runner_, 2);
  runner_.KillAll();
  for (auto* run : {&first, &second}) {
    absl::StatusOr<ScriptResult> result = run->get();
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->killed);
  }
  EXPECT_EQ(runner_.Run(Shell("late", "true")).status().code(), absl::StatusCode::kUnavailable);
}

// Waits until the script has written `path` (a sign that it got past its set-up).
bool WaitForFile(const std::string& path) {
  const auto until = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < until) {
    if (access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_F(ScriptRunnerTest, SplitOutputKeepsStdoutWholeAndHandsOverStderrLines) {
  ScriptRequest request =
      Shell("split", "printf 'answer\\nline 2'; echo 'log one' >&2; printf 'log two\\nrest' >&2");
  std::vector<std::string> lines;
  request.split_output = true;
  request.on_stderr_line = [&lines](std::string_view line) { lines.emplace_back(line); };
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stdout_data, "answer\nline 2");
  EXPECT_FALSE(result->stdout_truncated);
  EXPECT_EQ(result->output_tail, "log one\nlog two\nrest");
  EXPECT_EQ(lines, (std::vector<std::string>{"log one", "log two", "rest"}));
}

TEST_F(ScriptRunnerTest, SplitStdoutIsCutAtItsLimit) {
  ScriptRequest request = Shell("big", "head -c 2000000 /dev/zero");
  request.split_output = true;
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->stdout_data.size(), ScriptRunner::kMaxStdout);
  EXPECT_TRUE(result->stdout_truncated);
}

TEST_F(ScriptRunnerTest, Fd3PipeCarriesAResultApartFromTheOutput) {
  ScriptRequest request = Shell("fd3", "echo out; echo 5 >&3; ls /proc/self/fd >&2");
  request.split_output = true;
  request.fd3_pipe = true;
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stdout_data, "out\n");
  EXPECT_EQ(result->fd3_data, "5\n");
  EXPECT_EQ(result->output_tail, "0\n1\n2\n3\n4\n");  // 4: ls's own directory handle
}

TEST_F(ScriptRunnerTest, KillWithAGraceSendsSigtermFirst) {
  const std::string ready = TempDir() + "/term-trap.ready";
  unlink(ready.c_str());
  ScriptRequest request =
      Shell("graceful", "trap 'echo got TERM; exit 3' TERM; sleep 100 & echo $! > " + ready +
                            ".tmp; mv " + ready + ".tmp " + ready + "; wait");
  request.kill_grace = absl::Seconds(5);
  auto run = std::async(std::launch::async, [this, &request] { return runner_.Run(request); });
  ASSERT_TRUE(WaitForFile(ready));
  // Only once the background child has exec'd sleep: a child still in bash
  // between fork and exec runs the inherited trap instead of dying, and on a
  // loaded machine the sleep it then becomes outlives the shell until the grace.
  std::ifstream pid_file(ready);
  pid_t sleep_pid = 0;
  pid_file >> sleep_pid;
  ASSERT_GT(sleep_pid, 0);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  auto comm = [&] {
    std::ifstream in("/proc/" + std::to_string(sleep_pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
  };
  while (comm() != "sleep" && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(comm(), "sleep");
  const auto start = Clock::now();
  EXPECT_TRUE(runner_.Kill("graceful"));
  absl::StatusOr<ScriptResult> result = run.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(SecondsSince(start), 2);  // the group ended well before the grace
  EXPECT_TRUE(result->killed);
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->output_tail, "got TERM\n");
}

TEST_F(ScriptRunnerTest, SigkillFollowsWhenSigtermIsIgnored) {
  const std::string ready = TempDir() + "/term-ignored.ready";
  unlink(ready.c_str());
  // sleep inherits the ignored SIGTERM too.
  ScriptRequest request =
      Shell("stubborn", "trap '' TERM; sleep 100 & echo $!; touch " + ready + "; sleep 100");
  request.kill_grace = absl::Milliseconds(500);
  auto run = std::async(std::launch::async, [this, &request] { return runner_.Run(request); });
  ASSERT_TRUE(WaitForFile(ready));
  const auto start = Clock::now();
  EXPECT_TRUE(runner_.Kill("stubborn"));
  absl::StatusOr<ScriptResult> result = run.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(SecondsSince(start), 0.4);
  EXPECT_LT(SecondsSince(start), 3);
  EXPECT_TRUE(result->killed);
  EXPECT_EQ(result->signal, SIGKILL);
  const pid_t grandchild = atoi(result->output_tail.c_str());
  ASSERT_GT(grandchild, 0) << result->output_tail;
  EXPECT_TRUE(EventuallyGone(grandchild));
}

TEST_F(ScriptRunnerTest, TimeoutWithAGraceEndsIgnoringChildrenByTheGraceEnd) {
  ScriptRequest request = Shell("slow", "trap '' TERM; sleep 100 & echo $!; sleep 100");
  request.timeout_seconds = 1;
  request.kill_grace = absl::Seconds(1);
  const auto start = Clock::now();
  absl::StatusOr<ScriptResult> result = runner_.Run(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(SecondsSince(start), 1.9);
  EXPECT_LT(SecondsSince(start), 4);
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->killed);
  EXPECT_EQ(result->signal, SIGKILL);
  const pid_t grandchild = atoi(result->output_tail.c_str());
  ASSERT_GT(grandchild, 0) << result->output_tail;
  EXPECT_TRUE(EventuallyGone(grandchild));
}

TEST_F(ScriptRunnerTest, KillJobEndsEveryRequestOfThatJobOnly) {
  auto start = [this](const std::string& id, uint64_t job_id) {
    return std::async(std::launch::async, [this, id, job_id] {
      ScriptRequest request = Shell(id, "sleep 100");
      request.job_id = job_id;
      return runner_.Run(request);
    });
  };
  auto a = start("prolog-5", 5);
  auto b = start("bb-data_in-5", 5);
  auto c = start("prolog-6", 6);
  WaitUntilRunning(runner_, 3);
  EXPECT_EQ(runner_.KillJob(0), 0);
  EXPECT_EQ(runner_.KillJob(5), 2);
  for (auto* run : {&a, &b}) {
    absl::StatusOr<ScriptResult> result = run->get();
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->killed);
  }
  EXPECT_EQ(runner_.Running(), 1);
  EXPECT_EQ(runner_.KillJob(5), 0);
  EXPECT_EQ(runner_.KillJob(6), 1);
  ASSERT_TRUE(c.get().ok());
}

}  // namespace
}  // namespace skiff::scriptd
