// Starts the real scriptd binary, as ctld does (a lifeline pipe, a Unix socket), and
// talks to it over gRPC.
#include <dirent.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
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
#include "scriptd/test_support.h"

namespace skiff::scriptd {
namespace {

using Clock = std::chrono::steady_clock;

using scriptd_testing::ReadFile;
using scriptd_testing::TempDir;

std::string ExampleLuaScript() { return scriptd_testing::Runfile("lua/burst_buffer.lua"); }

// Gone, or a zombie nobody has reaped yet (it cannot run any more either way).
bool ProcessGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// Fields of /proc/PID/stat after the command name: state, ppid, pgrp.
struct ProcStat {
  char state = '?';
  pid_t ppid = 0;
  pid_t pgrp = 0;
};
bool ReadProcStat(pid_t pid, ProcStat* stat) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(line.substr(paren + 1));
  return static_cast<bool>(rest >> stat->state >> stat->ppid >> stat->pgrp);
}

// Live (not zombie) processes in process group `pgid`.
std::vector<pid_t> GroupMembers(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return members;
  while (struct dirent* entry = readdir(proc)) {
    const pid_t pid = atoi(entry->d_name);
    ProcStat stat;
    if (pid > 0 && ReadProcStat(pid, &stat) && stat.pgrp == pgid && stat.state != 'Z') {
      members.push_back(pid);
    }
  }
  closedir(proc);
  return members;
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
    // sun_path holds 108 bytes: TEST_TMPDIR is too deep for it.
    socket_path_ = "/tmp/skiff-sd-" + std::to_string(getpid()) + ".sock";
    // For the example burst_buffer.lua: scriptd's environment reaches the helper.
    setenv("SKIFF_BB_ROOT", (dir_ + "/bbroot").c_str(), 1);
    journal_path_ = dir_ + "/scriptd.journal";
    unlink(journal_path_.c_str());
    StartAndConnect();
  }

  // Starts scriptd (again, after a test killed it) and waits until it answers.
  void StartAndConnect() {
    const scriptd_testing::ScriptdChild child =
        scriptd_testing::StartScriptd(dir_, socket_path_, log_path_, journal_path_);
    ASSERT_GE(child.pid, 0);
    pid_ = child.pid;
    lifeline_ = child.lifeline;
    exited_ = false;

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

  grpc::Status RunLua(const v1::RunLuaRequest& request, v1::RunLuaReply* reply) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return stub_->RunLua(&context, request, reply);
  }

  // A burst_buffer.lua in the test's directory: every required hook returns
  // success, then `body` (which may redefine any of them).
  std::string LuaScript(const std::string& name, const std::string& body) {
    std::string text;
    for (const char* fn :
         {"slurm_bb_job_process", "slurm_bb_pools", "slurm_bb_job_teardown", "slurm_bb_setup",
          "slurm_bb_data_in", "slurm_bb_real_size", "slurm_bb_paths", "slurm_bb_pre_run",
          "slurm_bb_post_run", "slurm_bb_data_out", "slurm_bb_get_status"}) {
      text += std::string("function ") + fn + "() return slurm.SUCCESS end\n";
    }
    text += body;
    const std::string path = dir_ + "/" + name + ".lua";
    std::ofstream(path) << text;
    return path;
  }

  static v1::RunLuaRequest Lua(const std::string& id, uint64_t job_id, const std::string& script,
                               const std::string& function) {
    v1::RunLuaRequest request;
    request.set_request_id(id);
    request.set_job_id(job_id);
    request.set_script_path(script);
    request.set_function(function);
    for (const std::string& arg : {std::to_string(job_id), std::string("/nonexistent/job_script"),
                                   std::string("1001"), std::string("1001")}) {
      request.add_args(arg);
    }
    request.set_job_info_json("{\"job_id\": " + std::to_string(job_id) +
                              ", \"user_name\": \"alice\"}");
    return request;
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
  std::string journal_path_;
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

// A hook that starts `sleep 100` as a grandchild (through os.execute) and writes
// the sleep's pid to `pid_file` first.
std::string SleepingHook(const std::string& function, const std::string& pid_file) {
  return "function " + function +
         "()\n"
         "  os.execute(\"sh -c 'echo $$ > " +
         pid_file +
         "; exec sleep 100'\")\n"
         "  return slurm.SUCCESS\n"
         "end\n";
}

TEST_F(ScriptdServiceTest, RunLuaCallsTheHookInAHelperThatScriptdForkedInItsOwnGroup) {
  // The hook answers with its own /proc/self/stat: pid, parent and group.
  const std::string script = LuaScript("ok", R"lua(
function slurm_bb_data_in(job_id, job_script, uid, gid, job_info)
  slurm.log_info("hello from lua for JobId=%s user %s", job_id, job_info.user_name)
  print("printed")
  os.execute("echo command output")
  local stat = io.open("/proc/self/stat"):read("l")
  local pid, ppid, pgrp = stat:match("^(%d+) %b() %a (%d+) (%d+)")
  return slurm.SUCCESS, pid .. " " .. ppid .. " " .. pgrp
end)lua");
  v1::RunLuaReply reply;
  grpc::Status status = RunLua(Lua("bb-data_in-42", 42, script, "slurm_bb_data_in"), &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.rc(), 0);
  const std::string pid = std::to_string(reply.pid());
  EXPECT_EQ(reply.message(), pid + " " + std::to_string(pid_) + " " + pid);
  EXPECT_FALSE(reply.timed_out());
  EXPECT_FALSE(reply.killed());
  const std::string log = ReadFile(log_path_);
  EXPECT_NE(log.find("JobId=42 slurm_bb_data_in: hello from lua for JobId=42 user alice"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("JobId=42 slurm_bb_data_in: printed"), std::string::npos) << log;
  EXPECT_NE(log.find("JobId=42 slurm_bb_data_in: command output"), std::string::npos) << log;
  EXPECT_EQ(Running(), 0);
}

TEST_F(ScriptdServiceTest, RunLuaPassesTheScriptsExactRcAndMessage) {
  const std::string script = LuaScript("rc", R"(
function slurm_bb_data_in() return slurm.ERROR, "no space left in pool fast" end
function slurm_bb_data_out() return 7, "seven" end)");
  v1::RunLuaReply reply;
  ASSERT_TRUE(RunLua(Lua("in-1", 1, script, "slurm_bb_data_in"), &reply).ok());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_EQ(reply.message(), "no space left in pool fast");
  ASSERT_TRUE(RunLua(Lua("out-1", 1, script, "slurm_bb_data_out"), &reply).ok());
  EXPECT_EQ(reply.rc(), 7);
  EXPECT_EQ(reply.message(), "seven");
  EXPECT_NE(ReadFile(log_path_).find("JobId=1 slurm_bb_data_out failed: rc=7: seven"),
            std::string::npos);
}

TEST_F(ScriptdServiceTest, RunLuaReportsLuaErrorsAndLoadFailuresAsRcMinusOne) {
  const std::string script = LuaScript("raise", R"(
function slurm_bb_setup() error("disk on fire") end)");
  v1::RunLuaReply reply;
  ASSERT_TRUE(RunLua(Lua("setup-2", 2, script, "slurm_bb_setup"), &reply).ok());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_NE(reply.message().find("slurm_bb_setup: "), std::string::npos) << reply.message();
  EXPECT_NE(reply.message().find("disk on fire"), std::string::npos) << reply.message();

  ASSERT_TRUE(RunLua(Lua("setup-3", 3, dir_ + "/missing.lua", "slurm_bb_setup"), &reply).ok());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_NE(reply.message().find("missing.lua"), std::string::npos) << reply.message();

  const std::string broken = dir_ + "/broken.lua";
  std::ofstream(broken) << "function slurm_bb_pools() end\n";
  ASSERT_TRUE(RunLua(Lua("setup-4", 4, broken, "slurm_bb_setup"), &reply).ok());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_NE(reply.message().find("required function(s) not defined"), std::string::npos)
      << reply.message();
}

TEST_F(ScriptdServiceTest, RunLuaPassesBusyUpAndAMissingTestDataHookIsDone) {
  const std::string script = LuaScript("busy", R"(
function slurm_bb_test_data_in() return slurm.SUCCESS, slurm.SLURM_BB_BUSY end)");
  v1::RunLuaReply reply;
  ASSERT_TRUE(RunLua(Lua("test-in-5", 5, script, "slurm_bb_test_data_in"), &reply).ok());
  EXPECT_EQ(reply.rc(), 0);
  EXPECT_EQ(reply.message(), "BUSY");
  ASSERT_TRUE(RunLua(Lua("test-out-5", 5, script, "slurm_bb_test_data_out"), &reply).ok());
  EXPECT_EQ(reply.rc(), 0);
  EXPECT_EQ(reply.message(), "");
}

TEST_F(ScriptdServiceTest, RunLuaRejectsMalformedRequests) {
  const std::string script = LuaScript("plain", "");
  v1::RunLuaReply reply;
  EXPECT_EQ(RunLua(Lua("x-1", 1, script, "os.execute"), &reply).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(RunLua(Lua("x-2", 1, "burst_buffer.lua", "slurm_bb_setup"), &reply).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::RunLuaRequest bad_info = Lua("x-3", 1, script, "slurm_bb_setup");
  bad_info.set_job_info_json("{\"job_id\": \"one\"}");
  grpc::Status status = RunLua(bad_info, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "job_info: job_id must be an integer from 0 to 4294967295");
}

TEST_F(ScriptdServiceTest, RunLuaTimeoutKillsTheHelperGroupWithItsSleepGrandchild) {
  const std::string pid_file = dir_ + "/timeout-sleep.pid";
  unlink(pid_file.c_str());
  const std::string script = LuaScript("slow", SleepingHook("slurm_bb_data_in", pid_file));
  v1::RunLuaRequest request = Lua("bb-data_in-6", 6, script, "slurm_bb_data_in");
  request.set_timeout_seconds(1);
  const auto start = Clock::now();
  v1::RunLuaReply reply;
  grpc::Status status = RunLua(request, &reply);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GE(seconds, 0.9);
  EXPECT_LT(seconds, 3.0) << "not ended within 2 s of its timeout";
  EXPECT_TRUE(reply.timed_out());
  EXPECT_FALSE(reply.killed());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_EQ(reply.message(), "slurm_bb_data_in timed out after 1 seconds");
  const pid_t sleep_pid = atoi(ReadFile(pid_file).c_str());
  ASSERT_GT(sleep_pid, 0);
  // SIGKILL was sent before the reply; on a loaded machine the process may not
  // have run since, so give it a moment to die.
  EXPECT_TRUE(Eventually([&] { return ProcessGone(sleep_pid); }))
      << "sleep " << sleep_pid << " outlived the timeout";
  EXPECT_TRUE(Eventually([&] { return ProcessGone(reply.pid()); }));
  EXPECT_TRUE(Eventually([&] { return GroupMembers(reply.pid()).empty(); }))
      << GroupMembers(reply.pid()).size() << " left in the helper's group";
  EXPECT_EQ(Running(), 0);
}

TEST_F(ScriptdServiceTest, KillScriptEndsALongLuaHookWithinTwoSeconds) {
  const std::string pid_file = dir_ + "/kill-sleep.pid";
  unlink(pid_file.c_str());
  const std::string script = LuaScript("long", SleepingHook("slurm_bb_data_in", pid_file));
  auto run = std::async(std::launch::async, [&] {
    v1::RunLuaReply reply;
    grpc::Status status = RunLua(Lua("bb-data_in-7", 7, script, "slurm_bb_data_in"), &reply);
    return std::make_pair(status, reply);
  });
  pid_t sleep_pid = 0;
  ASSERT_TRUE(Eventually([&] { return (sleep_pid = atoi(ReadFile(pid_file).c_str())) > 0; }));

  const auto start = Clock::now();
  grpc::ClientContext context;
  v1::KillScriptRequest kill_request;
  kill_request.set_request_id("bb-data_in-7");
  v1::KillScriptReply kill_reply;
  ASSERT_TRUE(stub_->KillScript(&context, kill_request, &kill_reply).ok());
  EXPECT_TRUE(kill_reply.was_running());
  auto [status, reply] = run.get();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(reply.killed());
  EXPECT_FALSE(reply.timed_out());
  EXPECT_EQ(reply.rc(), -1);
  EXPECT_EQ(reply.message(), "slurm_bb_data_in was cancelled");
  EXPECT_TRUE(Eventually([&] { return ProcessGone(sleep_pid); }));
  // SIGKILL to the group was sent before the reply; a loaded machine may not
  // have run the dying members since.
  EXPECT_TRUE(Eventually([&] { return GroupMembers(reply.pid()).empty(); }))
      << GroupMembers(reply.pid()).size() << " left in the helper's group";
}

TEST_F(ScriptdServiceTest, FlushJobKillsTheJobsScriptsAndLuaCallsOnly) {
  const std::string pid_file = dir_ + "/flush-sleep.pid";
  unlink(pid_file.c_str());
  const std::string script = LuaScript("flush", SleepingHook("slurm_bb_data_in", pid_file));
  auto lua = std::async(std::launch::async, [&] {
    v1::RunLuaReply reply;
    grpc::Status status = RunLua(Lua("bb-data_in-9", 9, script, "slurm_bb_data_in"), &reply);
    return std::make_pair(status, reply);
  });
  auto job_script = std::async(std::launch::async, [&] {
    v1::RunScriptRequest request = Shell("prolog-9", "sleep 100");
    request.set_job_id(9);
    v1::RunScriptReply reply;
    grpc::Status status = RunScript(request, &reply);
    return std::make_pair(status, reply);
  });
  auto other = std::async(std::launch::async, [&] {
    v1::RunScriptRequest request = Shell("prolog-10", "sleep 100");
    request.set_job_id(10);
    v1::RunScriptReply reply;
    return RunScript(request, &reply);
  });
  pid_t sleep_pid = 0;
  ASSERT_TRUE(Eventually([&] { return (sleep_pid = atoi(ReadFile(pid_file).c_str())) > 0; }));
  ASSERT_TRUE(Eventually([this] { return Running() == 3; }));

  const auto start = Clock::now();
  grpc::ClientContext context;
  v1::FlushJobRequest flush;
  flush.set_job_id(9);
  v1::FlushJobReply flushed;
  ASSERT_TRUE(stub_->FlushJob(&context, flush, &flushed).ok());
  EXPECT_EQ(flushed.killed(), 2);
  auto [lua_status, lua_reply] = lua.get();
  auto [script_status, script_reply] = job_script.get();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
  ASSERT_TRUE(lua_status.ok()) << lua_status.error_message();
  EXPECT_TRUE(lua_reply.killed());
  ASSERT_TRUE(script_status.ok()) << script_status.error_message();
  EXPECT_TRUE(script_reply.killed());
  EXPECT_TRUE(Eventually([&] { return ProcessGone(sleep_pid); }));
  EXPECT_EQ(Running(), 1);  // job 10's prolog runs on

  grpc::ClientContext kill_context;
  v1::KillScriptRequest kill_request;
  kill_request.set_request_id("prolog-10");
  v1::KillScriptReply kill_reply;
  ASSERT_TRUE(stub_->KillScript(&kill_context, kill_request, &kill_reply).ok());
  EXPECT_TRUE(other.get().ok());
}

TEST_F(ScriptdServiceTest, LuaHelperAndItsChildrenDieWithScriptd) {
  const std::string pid_file = dir_ + "/orphan-sleep.pid";
  unlink(pid_file.c_str());
  const std::string script = LuaScript("orphan", SleepingHook("slurm_bb_data_in", pid_file));
  auto run = std::async(std::launch::async, [&] {
    v1::RunLuaReply reply;
    return RunLua(Lua("bb-data_in-11", 11, script, "slurm_bb_data_in"), &reply);
  });
  pid_t sleep_pid = 0;
  ASSERT_TRUE(Eventually([&] { return (sleep_pid = atoi(ReadFile(pid_file).c_str())) > 0; }));
  ProcStat sleep_stat;
  ASSERT_TRUE(ReadProcStat(sleep_pid, &sleep_stat));
  const pid_t helper = sleep_stat.pgrp;
  ProcStat helper_stat;
  ASSERT_TRUE(ReadProcStat(helper, &helper_stat));
  EXPECT_EQ(helper_stat.ppid, pid_);  // the helper is scriptd's child

  kill(pid_, SIGKILL);  // no chance to clean up: the helper must notice by itself
  ASSERT_TRUE(Eventually([this] { return Exited(); }));
  EXPECT_TRUE(Eventually([&] { return ProcessGone(helper) && ProcessGone(sleep_pid); },
                         std::chrono::seconds(2)))
      << "helper " << helper << " or its sleep " << sleep_pid << " outlived scriptd";
  EXPECT_FALSE(run.get().ok());
}

// Skiff's example script: setup makes the job directory, data_in copies the
// stage_in file, teardown removes the directory; a stage_delay is cancelled.
TEST_F(ScriptdServiceTest, ExampleScriptStagesThroughRunLua) {
  const std::string bb_root = dir_ + "/bbroot";
  const std::string source = dir_ + "/input.dat";
  const std::string destination = dir_ + "/staged.dat";
  std::ofstream(source) << "experiment data\n";
  unlink(destination.c_str());
  const std::string job_script = dir_ + "/job_12.sh";
  std::ofstream(job_script) << "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n"
                            << "#BB_LUA stage_in source=" << source
                            << " destination=" << destination << "\nhostname\n";
  const std::string script = ExampleLuaScript();
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(script.c_str(), resolved), nullptr) << script;
  const std::string example(resolved);
  auto hook = [&](const std::string& id, const std::string& function,
                  std::vector<std::string> args) {
    v1::RunLuaRequest request = Lua(id, 12, example, function);
    request.clear_args();
    for (const std::string& arg : args) request.add_args(arg);
    request.set_timeout_seconds(30);
    return request;
  };
  const std::string env_note = "scriptd's environment has SKIFF_BB_ROOT=" + bb_root;

  v1::RunLuaReply reply;
  ASSERT_TRUE(RunLua(hook("setup-12", "slurm_bb_setup",
                          {"12", "1001", "1001", "fast", "1073741824", job_script}),
                     &reply)
                  .ok());
  EXPECT_EQ(reply.rc(), 0) << reply.message();
  EXPECT_EQ(access((bb_root + "/job_12").c_str(), F_OK), 0) << env_note;

  ASSERT_TRUE(
      RunLua(hook("data_in-12", "slurm_bb_data_in", {"12", job_script, "1001", "1001"}), &reply)
          .ok());
  EXPECT_EQ(reply.rc(), 0) << reply.message();
  EXPECT_EQ(ReadFile(destination), "experiment data\n");
  EXPECT_NE(ReadFile(log_path_).find("JobId=12 slurm_bb_data_in: burst_buffer.lua: JobId=12 "
                                     "stage_in " +
                                     source + " -> " + destination),
            std::string::npos)
      << ReadFile(log_path_);

  ASSERT_TRUE(RunLua(hook("teardown-12", "slurm_bb_job_teardown",
                          {"12", job_script, "false", "1001", "1001"}),
                     &reply)
                  .ok());
  EXPECT_EQ(reply.rc(), 0) << reply.message();
  EXPECT_NE(access((bb_root + "/job_12").c_str(), F_OK), 0);

  // A stage that sleeps (stage_delay) is ended by FlushJob.
  const std::string slow_script = dir_ + "/job_13.sh";
  std::ofstream(slow_script) << "#!/bin/bash\n#BB_LUA stage_delay=100\nhostname\n";
  auto run = std::async(std::launch::async, [&] {
    v1::RunLuaReply slow;
    v1::RunLuaRequest request =
        hook("data_in-13", "slurm_bb_data_in", {"13", slow_script, "1001", "1001"});
    request.set_job_id(13);
    grpc::Status status = RunLua(request, &slow);
    return std::make_pair(status, slow);
  });
  ASSERT_TRUE(Eventually([this] { return Running() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the sleep
  const auto start = Clock::now();
  grpc::ClientContext context;
  v1::FlushJobRequest flush;
  flush.set_job_id(13);
  v1::FlushJobReply flushed;
  ASSERT_TRUE(stub_->FlushJob(&context, flush, &flushed).ok());
  EXPECT_EQ(flushed.killed(), 1);
  auto [status, slow] = run.get();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(slow.killed());
  // SIGKILLed members may linger a moment while the kernel tears them down.
  EXPECT_TRUE(Eventually([&] { return GroupMembers(slow.pid()).empty(); }))
      << GroupMembers(slow.pid()).size();
}

}  // namespace
}  // namespace skiff::scriptd

namespace skiff::scriptd {
namespace {

// scriptd killed with SIGKILL: the script dies with it (parent-death signal), what
// it started in its group is killed by the next scriptd before that one serves.
TEST_F(ScriptdServiceTest, AKilledScriptdsScriptsDieAndTheNextScriptdKillsWhatTheyLeft) {
  const std::string pid_file = dir_ + "/left-sleep.pid";
  unlink(pid_file.c_str());
  auto run = std::async(std::launch::async, [&] {
    v1::RunScriptReply reply;
    return RunScript(Shell("prolog-5-0", "sleep 60 & echo $! > " + pid_file + "; wait"), &reply);
  });
  pid_t sleep_pid = 0;
  ASSERT_TRUE(Eventually([&] { return (sleep_pid = atoi(ReadFile(pid_file).c_str())) > 0; }));
  ProcStat sleep_stat;
  ASSERT_TRUE(ReadProcStat(sleep_pid, &sleep_stat));
  const pid_t shell = sleep_stat.pgrp;

  kill(pid_, SIGKILL);
  ASSERT_TRUE(Eventually([this] { return Exited(); }));
  EXPECT_FALSE(run.get().ok());
  EXPECT_TRUE(Eventually([&] { return ProcessGone(shell); }, std::chrono::seconds(2)))
      << "the script " << shell << " outlived scriptd";
  close(lifeline_);
  StartAndConnect();
  EXPECT_TRUE(Eventually([&] { return ProcessGone(sleep_pid); }, std::chrono::seconds(2)))
      << "the next scriptd left the dead script's sleep " << sleep_pid << " running";
  EXPECT_NE(ReadFile(log_path_).find("left by prolog-5-0"), std::string::npos)
      << ReadFile(log_path_);
}

// A run_once script that ended is never run again, even by the next scriptd: the
// same request is answered with the recorded result.
TEST_F(ScriptdServiceTest, ARunOnceScriptThatEndedIsAnsweredFromTheJournalAfterARestart) {
  const std::string marks = dir_ + "/run-once.marks";
  unlink(marks.c_str());
  v1::RunScriptRequest request = Shell("epilog-6-0", "echo ran >> " + marks + "; exit 3");
  request.set_run_once(true);
  v1::RunScriptReply first;
  ASSERT_TRUE(RunScript(request, &first).ok());
  EXPECT_EQ(first.exit_code(), 3);

  kill(pid_, SIGKILL);
  ASSERT_TRUE(Eventually([this] { return Exited(); }));
  close(lifeline_);
  StartAndConnect();
  v1::RunScriptReply again;
  ASSERT_TRUE(RunScript(request, &again).ok());
  EXPECT_EQ(again.exit_code(), 3);
  EXPECT_EQ(again.pid(), first.pid());
  EXPECT_EQ(ReadFile(marks), "ran\n");

  // Without run_once, or with another id, it runs.
  request.set_run_once(false);
  ASSERT_TRUE(RunScript(request, &again).ok());
  request.set_run_once(true);
  request.set_request_id("epilog-6-1");
  ASSERT_TRUE(RunScript(request, &again).ok());
  EXPECT_EQ(ReadFile(marks), "ran\nran\nran\n");
}

}  // namespace
}  // namespace skiff::scriptd

namespace skiff::scriptd {
namespace {

// A hook with run_as_uid runs as that user, after the script loaded, and reads
// the job script through a copy although the original is in a root-only directory.
TEST_F(ScriptdServiceTest, RunLuaAsTheJobsUserReadsTheJobScriptAndNothingOfRoots) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const std::string private_dir = dir_ + "/private";
  mkdir(private_dir.c_str(), 0700);
  const std::string job_script = private_dir + "/job_script";
  std::ofstream(job_script) << "#!/bin/sh\n#BB_LUA secret-directive\n";
  chmod(job_script.c_str(), 0600);
  const std::string script = LuaScript("as_user", R"lua(
function slurm_bb_data_in(job_id, job_script, uid, gid)
  local id = io.popen("id -u"):read("l")
  local f = io.open(job_script, "r")
  local text = f and f:read("a") or "unreadable"
  local shadow = io.open("/etc/shadow", "r")
  return slurm.SUCCESS, id .. "|" .. text:match("#BB_LUA (%S+)") .. "|" .. tostring(shadow)
end
)lua");
  v1::RunLuaRequest request = Lua("bb-data_in-21", 21, script, "slurm_bb_data_in");
  request.set_args(1, job_script);
  request.set_run_as_uid(65534);
  request.set_run_as_gid(65534);
  v1::RunLuaReply reply;
  ASSERT_TRUE(RunLua(request, &reply).ok());
  EXPECT_EQ(reply.rc(), 0) << reply.message();
  EXPECT_EQ(reply.message(), "65534|secret-directive|nil");

  // Without run_as_uid: scriptd's own user.
  request.set_request_id("bb-data_in-22");
  request.clear_run_as_uid();
  ASSERT_TRUE(RunLua(request, &reply).ok());
  EXPECT_EQ(reply.message().substr(0, 2), "0|");
}

}  // namespace
}  // namespace skiff::scriptd
