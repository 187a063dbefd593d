// ScriptdClient against the real scriptd binary, started as ctld starts it (a
// lifeline pipe, a Unix socket), killed with SIGKILL and started again.
#include "ctld/clients/scriptd_client.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scriptd/test_support.h"

namespace skiff::ctld {
namespace {

using Clock = std::chrono::steady_clock;

using scriptd_testing::ReadFile;
using scriptd_testing::TempDir;

int CountLines(const std::string& path) {
  const std::string text = ReadFile(path);
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

template <typename Predicate>
bool Eventually(Predicate predicate, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return predicate();
}

// burst_buffer.lua's required hooks but data_in.
constexpr const char* kRequired[] = {
    "slurm_bb_job_process", "slurm_bb_pools",     "slurm_bb_job_teardown", "slurm_bb_setup",
    "slurm_bb_real_size",   "slurm_bb_paths",     "slurm_bb_pre_run",      "slurm_bb_post_run",
    "slurm_bb_data_out",    "slurm_bb_get_status"};

// A burst_buffer.lua whose data_in counts its attempts in `counter` and sleeps
// on the first; every other required hook succeeds.
std::string CountingScript(const std::string& dir, const std::string& counter) {
  std::string text;
  for (const char* fn : kRequired) {
    text += std::string("function ") + fn + "() return slurm.SUCCESS end\n";
  }
  text +=
      "function slurm_bb_data_in(job_id)\n"
      "  local f = io.open(\"" +
      counter +
      "\", \"a\"); f:write(\"x\\n\"); f:close()\n"
      "  local n = 0\n"
      "  for _ in io.lines(\"" +
      counter +
      "\") do n = n + 1 end\n"
      "  if n == 1 then os.execute(\"sleep 100\") end\n"
      "  return slurm.SUCCESS, \"attempt \" .. n\n"
      "end\n";
  const std::string path = dir + "/counting.lua";
  std::ofstream(path) << text;
  return path;
}

class ScriptdClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir();
    log_path_ = dir_ + "/log";
    socket_path_ = "/tmp/skiff-sc-" + std::to_string(getpid()) + ".sock";
    StartScriptd();
    client_ = std::make_unique<ScriptdClient>(socket_path_, 30);
    counter_ = dir_ + "/attempts";
    unlink(counter_.c_str());
    script_ = CountingScript(dir_, counter_);
  }

  void TearDown() override {
    client_->Stop();
    StopScriptd();
    unlink(socket_path_.c_str());
    if (HasFailure()) std::cerr << "scriptd log:\n" << ReadFile(log_path_);
  }

  void StartScriptd() {
    const scriptd_testing::ScriptdChild child =
        scriptd_testing::StartScriptd(dir_, socket_path_, log_path_);
    ASSERT_GE(child.pid, 0);
    pid_ = child.pid;
    lifeline_ = child.lifeline;
  }

  // ctld's view of a crash: scriptd is gone at once, without cleaning up.
  void KillScriptd() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    close(lifeline_);
    lifeline_ = -1;
  }

  void StopScriptd() {
    if (lifeline_ >= 0) close(lifeline_);
    lifeline_ = -1;
    if (pid_ > 0) {
      const auto until = Clock::now() + std::chrono::seconds(5);
      while (waitpid(pid_, nullptr, WNOHANG) == 0) {
        if (Clock::now() > until) {
          kill(pid_, SIGKILL);
          waitpid(pid_, nullptr, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    pid_ = -1;
  }

  LuaCall DataIn(const std::string& id, uint64_t job_id) {
    LuaCall call;
    call.request_id = id;
    call.job_id = job_id;
    call.script_path = script_;
    call.function = "slurm_bb_data_in";
    call.args = {std::to_string(job_id)};
    call.timeout_seconds = 60;
    return call;
  }

  std::string dir_, log_path_, socket_path_, counter_, script_;
  int lifeline_ = -1;
  pid_t pid_ = -1;
  std::unique_ptr<ScriptdClient> client_;
};

TEST_F(ScriptdClientTest, RunLuaAnswersAndFlushJobEndsARunningCall) {
  auto first = std::async(std::launch::async, [this] { return client_->RunLua(DataIn("a", 1)); });
  ASSERT_TRUE(Eventually([this] { return CountLines(counter_) == 1; }));
  // A second call of the same hook does not sleep: it answers at once.
  absl::StatusOr<LuaEnd> second = client_->RunLua(DataIn("b", 2));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->rc, 0);
  EXPECT_EQ(second->message, "attempt 2");

  absl::StatusOr<int> flushed = client_->FlushJob(1);
  ASSERT_TRUE(flushed.ok()) << flushed.status();
  EXPECT_EQ(*flushed, 1);
  absl::StatusOr<LuaEnd> reply = first.get();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_TRUE(reply->killed);
  EXPECT_EQ(reply->rc, -1);
  EXPECT_EQ(*client_->FlushJob(1), 0);
}

// Issue 5, item 5: a stage in flight when scriptd dies is issued again.
TEST_F(ScriptdClientTest, RunLuaInFlightWhenScriptdDiesIsIssuedAgain) {
  auto run = std::async(std::launch::async, [this] { return client_->RunLua(DataIn("in-3", 3)); });
  ASSERT_TRUE(Eventually([this] { return CountLines(counter_) == 1; }));
  KillScriptd();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ctld notices, restarts
  StartScriptd();
  absl::StatusOr<LuaEnd> reply = run.get();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->rc, 0);
  EXPECT_EQ(reply->message, "attempt 2");
  EXPECT_FALSE(reply->killed);
}

TEST_F(ScriptdClientTest, FlushJobWhileScriptdIsDownStopsTheReissue) {
  auto run = std::async(std::launch::async, [this] { return client_->RunLua(DataIn("in-4", 4)); });
  ASSERT_TRUE(Eventually([this] { return CountLines(counter_) == 1; }));
  KillScriptd();
  absl::StatusOr<int> flushed = client_->FlushJob(4);
  EXPECT_FALSE(flushed.ok());
  EXPECT_EQ(flushed.status().code(), absl::StatusCode::kUnavailable) << flushed.status();
  StartScriptd();
  absl::StatusOr<LuaEnd> reply = run.get();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_TRUE(reply->killed);
  EXPECT_EQ(reply->rc, -1);
  // Give a wrongly re-issued call time to show up.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(CountLines(counter_), 1);
}

TEST_F(ScriptdClientTest, KillScriptWhileScriptdIsDownStopsTheReissueOfAScript) {
  const std::string started = dir_ + "/script-started";
  unlink(started.c_str());
  ScriptCall call;
  call.request_id = "prolog-5";
  call.job_id = 5;
  call.path = "/bin/sh";
  call.argv = {"-c", "echo $$ >> " + started + "; exec sleep 100"};
  auto run = std::async(std::launch::async, [&] { return client_->RunScript(call); });
  ASSERT_TRUE(Eventually([&] { return CountLines(started) == 1; }));
  KillScriptd();
  client_->KillScript("prolog-5");
  StartScriptd();
  absl::StatusOr<ScriptEnd> reply = run.get();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_TRUE(reply->killed);
  EXPECT_EQ(reply->signal, SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(CountLines(started), 1);
  // Scripts, unlike Lua helpers, outlive a scriptd killed with SIGKILL.
  const pid_t orphan = atoi(ReadFile(started).c_str());
  if (orphan > 0) kill(-orphan, SIGKILL);
}

TEST_F(ScriptdClientTest, RunLuaGivesUpAfterTheRetryWindow) {
  ScriptdClient impatient(socket_path_, 1);
  auto run = std::async(std::launch::async, [&] { return impatient.RunLua(DataIn("in-6", 6)); });
  ASSERT_TRUE(Eventually([this] { return CountLines(counter_) == 1; }));
  KillScriptd();
  const auto start = Clock::now();
  absl::StatusOr<LuaEnd> reply = run.get();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable) << reply.status();
}

// Fakes written before RunLua existed keep compiling and get these answers.
TEST(ScriptdPortInterface, DefaultsRunNoLuaAndFlushNothing) {
  class OldFake : public ScriptdPort {
   public:
    absl::StatusOr<ScriptEnd> RunScript(const ScriptCall&) override { return ScriptEnd(); }
    void KillScript(const std::string&) override {}
  } fake;
  EXPECT_EQ(fake.RunLua(LuaCall()).status().code(), absl::StatusCode::kUnimplemented);
  absl::StatusOr<int> flushed = fake.FlushJob(42);
  ASSERT_TRUE(flushed.ok());
  EXPECT_EQ(*flushed, 0);
}

}  // namespace
}  // namespace skiff::ctld
