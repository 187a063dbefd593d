// Starts the real scriptd binary, as ctld does (a lifeline pipe, a Unix socket), and
// talks to it over gRPC.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/rpc/channel.h"
#include "gtest/gtest.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff {
namespace {

using Clock = std::chrono::steady_clock;

std::string TempDir() {
  const char* dir = getenv("TEST_TMPDIR");
  char resolved[PATH_MAX];
  if (dir != nullptr && realpath(dir, resolved) != nullptr) return resolved;
  return "/tmp";
}

std::string ScriptdBinary() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "scriptd/scriptd";
  return std::string(srcdir) + "/" + workspace + "/scriptd/scriptd";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Gone, or a zombie nobody has reaped yet (it cannot run any more either way).
bool ProcessGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

template <typename Predicate>
bool Eventually(Predicate predicate, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return predicate();
}

v1::RunScriptRequest Shell(const std::string& id, const std::string& command) {
  v1::RunScriptRequest request;
  request.set_request_id(id);
  request.set_path("/bin/sh");
  request.add_argv("-c");
  request.add_argv(command);
  (*request.mutable_environment())["PATH"] = "/usr/bin:/bin";
  return request;
}

class ScriptdServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    log_path_ = dir_ + "/log";
    const std::string conf = dir_ + "/skiff.conf";
    std::ofstream(conf) << "ClusterName=t\nSlurmctldHost=localhost\nSlurmctldLogFile=" << log_path_
                        << "\n";
    // sun_path holds 108 bytes: TEST_TMPDIR is too deep for it.
    socket_path_ = "/tmp/skiff-sd-" + std::to_string(getpid()) + ".sock";

    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    const int read_end = fds[0];
    lifeline_ = fds[1];
    std::vector<std::string> args = {
        ScriptdBinary(), "-f",         conf,
        "--socket",      socket_path_, "--lifeline-fd=" + std::to_string(read_end)};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_ = fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      fcntl(read_end, F_SETFD, 0);  // the read end survives exec
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(read_end);

    stub_ = v1::Scriptd::NewStub(MakeChannel("unix:" + socket_path_));
    // As ctld does: wait for the socket, polling the connection meanwhile (a
    // fail-fast call in TRANSIENT_FAILURE would leave it to gRPC's 5 s backup poller).
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ScriptdPingReply reply;
    grpc::Status status = stub_->Ping(&context, v1::ScriptdPingRequest(), &reply);
    ASSERT_TRUE(status.ok()) << "scriptd did not answer: " << status.error_message();
  }

  void TearDown() override {
    // As when ctld exits: drop the connection, close the lifeline, and scriptd kills
    // what still runs. SIGKILL only if it does not stop.
    stub_.reset();
    if (lifeline_ >= 0) close(lifeline_);
    if (pid_ > 0 && !Eventually([this] { return Exited(); })) {
      ADD_FAILURE() << "scriptd did not stop when its lifeline closed";
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    unlink(socket_path_.c_str());
    if (HasFailure()) std::cerr << "scriptd log:\n" << ReadFile(log_path_);
  }

  // Reaps scriptd if it has exited.
  bool Exited() {
    if (exited_) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exited_ = true;
    exit_status_ = status;
    return true;
  }

  grpc::Status RunScript(const v1::RunScriptRequest& request, v1::RunScriptReply* reply) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return stub_->RunScript(&context, request, reply);
  }

  int Running() {
    grpc::ClientContext context;
    v1::ScriptdPingReply reply;
    if (!stub_->Ping(&context, v1::ScriptdPingRequest(), &reply).ok()) return -1;
    return reply.running();
  }

  std::string dir_;
  std::string log_path_;
  std::string socket_path_;
  int lifeline_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_status_ = 0;
  std::unique_ptr<v1::Scriptd::Stub> stub_;
};

TEST_F(ScriptdServiceTest, PingReportsScriptdAndItsParent) {
  grpc::ClientContext context;
  v1::ScriptdPingReply reply;
  ASSERT_TRUE(stub_->Ping(&context, v1::ScriptdPingRequest(), &reply).ok());
  EXPECT_EQ(reply.pid(), pid_);
  EXPECT_EQ(reply.parent_pid(), getpid());
  EXPECT_EQ(reply.running(), 0);
}

TEST_F(ScriptdServiceTest, RunScriptRunsAChildOfScriptd) {
  v1::RunScriptRequest request = Shell("prolog-1", "echo $PPID; echo oops >&2; exit 2");
  request.set_job_id(1);
  v1::RunScriptReply reply;
  grpc::Status status = RunScript(request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.output_tail(), std::to_string(pid_) + "\noops\n");
  EXPECT_EQ(reply.exit_code(), 2);
  EXPECT_GT(reply.pid(), 0);
  EXPECT_NE(ReadFile(log_path_).find("JobId=1 prolog-1 /bin/sh rc=2 in "), std::string::npos)
      << ReadFile(log_path_);
}

TEST_F(ScriptdServiceTest, RunScriptReportsExecFailureInTheReply) {
  v1::RunScriptRequest request;
  request.set_request_id("missing");
  request.set_path("/etc/skiff/no-such-prolog.sh");
  v1::RunScriptReply reply;
  grpc::Status status = RunScript(request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.exit_code(), 127);
  EXPECT_EQ(reply.error(),
            "cannot execute /etc/skiff/no-such-prolog.sh: No such file or directory");
}

TEST_F(ScriptdServiceTest, DuplicateRequestIdIsAlreadyExistsAndKillScriptEndsIt) {
  auto first = std::async(std::launch::async, [this] {
    v1::RunScriptReply reply;
    grpc::Status status = RunScript(Shell("epilog-7", "sleep 100"), &reply);
    return std::make_pair(status, reply);
  });
  ASSERT_TRUE(Eventually([this] { return Running() == 1; }));

  v1::RunScriptReply duplicate;
  EXPECT_EQ(RunScript(Shell("epilog-7", "true"), &duplicate).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);

  grpc::ClientContext context;
  v1::KillScriptRequest kill_request;
  kill_request.set_request_id("epilog-7");
  v1::KillScriptReply kill_reply;
  ASSERT_TRUE(stub_->KillScript(&context, kill_request, &kill_reply).ok());
  EXPECT_TRUE(kill_reply.was_running());

  auto [status, reply] = first.get();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(reply.killed());
  EXPECT_EQ(reply.signal(), SIGKILL);
  EXPECT_EQ(Running(), 0);
}

TEST_F(ScriptdServiceTest, RunsSixtyFourScriptsAtOnce) {
  constexpr int kScripts = 64;
  std::vector<std::future<grpc::Status>> runs;
  for (int i = 0; i < kScripts; ++i) {
    runs.push_back(std::async(std::launch::async, [this, i] {
      v1::RunScriptRequest request;
      request.set_request_id("many-" + std::to_string(i));
      request.set_path("/bin/sleep");
      request.add_argv("1");
      v1::RunScriptReply reply;
      return RunScript(request, &reply);
    }));
  }
  EXPECT_TRUE(Eventually([this] { return Running() == kScripts; })) << "running: " << Running();
  for (auto& run : runs) {
    grpc::Status status = run.get();
    EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  }
  EXPECT_EQ(Running(), 0);
}

TEST_F(ScriptdServiceTest, LifelineEofKillsRunningScriptsAndStopsScriptd) {
  const std::string pid_file = dir_ + "/sleep.pid";
  unlink(pid_file.c_str());
  auto run = std::async(std::launch::async, [this, pid_file] {
    v1::RunScriptReply reply;
    grpc::Status status =
        RunScript(Shell("stage-in-3", "echo $$ > " + pid_file + "; exec sleep 100"), &reply);
    return std::make_pair(status, reply);
  });
  pid_t sleep_pid = 0;
  ASSERT_TRUE(Eventually([&] {
    sleep_pid = atoi(ReadFile(pid_file).c_str());
    return sleep_pid > 0;
  }));

  close(lifeline_);  // ctld is gone
  lifeline_ = -1;
  ASSERT_TRUE(Eventually([this] { return Exited(); })) << "scriptd outlived its lifeline";
  EXPECT_TRUE(WIFEXITED(exit_status_) && WEXITSTATUS(exit_status_) == 0) << exit_status_;
  EXPECT_TRUE(Eventually([sleep_pid] { return ProcessGone(sleep_pid); }))
      << "script " << sleep_pid << " outlived scriptd";

  auto [status, reply] = run.get();
  if (status.ok()) {
    EXPECT_TRUE(reply.killed());
  } else {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  }
}

}  // namespace
}  // namespace skiff
