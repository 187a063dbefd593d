// BbLuaOptions: the time budget, the memory limit and the refused functions
// that keep a script running inside ctld from taking ctld down, and that the
// helper's unrestricted states keep full Lua.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "lua/bb_lua.h"

namespace skiff {
namespace {

using std::chrono::milliseconds;
using LogLines = std::vector<std::pair<BbLuaLogLevel, std::string>>;

constexpr milliseconds kBudget{300};
// Generous against a loaded test machine; without the budget these never end.
constexpr milliseconds kMustEndWithin{5000};

// All 11 required functions, each returning nothing, plus `extra`.
std::string Script(const std::string& extra) {
  std::string text;
  for (const char* name : kBbRequiredFunctions) {
    text += std::string("function ") + name + "(...) end\n";
  }
  return text + extra;
}

// ctld's options with a short budget and a small memory limit.
BbLuaOptions TestLimits() {
  BbLuaOptions options = BbLuaOptions::InCtld();
  options.time_budget = kBudget;
  options.memory_limit = size_t{64} << 20;
  return options;
}

std::unique_ptr<BbLua> MustLoad(const std::string& text, const BbLuaOptions& options,
                                LogLines* logs = nullptr) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::LoadString(
      text, "test.lua",
      [logs](BbLuaLogLevel level, std::string_view message) {
        if (logs != nullptr) logs->emplace_back(level, std::string(message));
      },
      options);
  EXPECT_TRUE(lua.ok()) << lua.status();
  return lua.ok() ? *std::move(lua) : nullptr;
}

milliseconds Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(BbLuaOptionsTest, CtldDefaultsAreRestrictedFiveSecondsAnd256MiB) {
  const BbLuaOptions ctld = BbLuaOptions::InCtld();
  EXPECT_TRUE(ctld.restricted);
  EXPECT_EQ(ctld.time_budget, milliseconds(5000));
  EXPECT_EQ(ctld.memory_limit, size_t{256} << 20);
  const BbLuaOptions helper;
  EXPECT_FALSE(helper.restricted);
  EXPECT_EQ(helper.time_budget.count(), 0);
  EXPECT_EQ(helper.memory_limit, 0u);
}

TEST(BbLuaBudgetTest, InfiniteLoopInAHookFailsThatCallWithinTheBudget) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function slurm_bb_job_process(job_script, uid, gid, job_info) while true do end end
    function quick() return slurm.SUCCESS, "still here" end
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<BbLuaResult> r = lua->JobProcess("/dev/null", 1000, 1000, BbJobInfo{});
  EXPECT_LT(Since(start), kMustEndWithin);
  EXPECT_GE(Since(start), kBudget);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(), "slurm_bb_job_process exceeded 300 ms");
  EXPECT_TRUE(lua->exceeded_limits());
  // The next call has a budget of its own.
  absl::StatusOr<BbLuaResult> next = lua->Call("quick", {});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->message, "still here");
}

TEST(BbLuaBudgetTest, WholeSecondsReadAsSeconds) {
  BbLuaOptions options = TestLimits();
  options.time_budget = milliseconds(1000);
  std::unique_ptr<BbLua> lua = MustLoad(Script("function spin() while true do end end\n"), options);
  ASSERT_NE(lua, nullptr);
  absl::StatusOr<BbLuaResult> r = lua->Call("spin", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "spin exceeded 1 s");
}

// Each of these catches the budget's error and tries to keep going.
TEST(BbLuaBudgetTest, CatchingTheErrorDoesNotKeepTheScriptRunning) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    local function spin() while true do end end
    function pcall_loop() while true do pcall(spin) end end
    function xpcall_loop() while true do xpcall(spin, function(e) while true do end end) end end
    function nested() while true do pcall(function() while true do pcall(spin) end end) end end
    function coroutines()
      while true do pcall(coroutine.wrap(spin)) end
    end
    function resume_loop()
      local co = coroutine.create(function() while true do pcall(spin) end end)
      while true do coroutine.resume(co) end
    end
    function caught_then_success()
      pcall(spin)
      return slurm.SUCCESS
    end
    function tail_pcall() return pcall(spin) end
    function gsub_callback()
      while true do pcall(string.gsub, "aaaa", "a", function() while true do end end) end
    end
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  for (const char* fn : {"pcall_loop", "xpcall_loop", "nested", "coroutines", "resume_loop",
                         "caught_then_success", "tail_pcall", "gsub_callback"}) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<BbLuaResult> r = lua->Call(fn, {});
    EXPECT_LT(Since(start), kMustEndWithin) << fn;
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << fn << ": " << r.status();
    EXPECT_EQ(r.status().message(), std::string(fn) + " exceeded 300 ms");
  }
}

TEST(BbLuaBudgetTest, TopLevelInfiniteLoopFailsTheLoad) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(Script("while true do pcall(function() while true do end end) end\n"),
                        "test.lua", nullptr, TestLimits());
  EXPECT_LT(Since(start), kMustEndWithin);
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(lua.status().message(), "burst_buffer.lua: the script's top level exceeded 300 ms");
}

TEST(BbLuaBudgetTest, TopLevelLoopFromAFileFailsTheLoad) {
  const std::string path = TempPath("looping_top_level.lua");
  std::ofstream(path) << Script("while true do end\n");
  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::Load(path, nullptr, TestLimits());
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(BbLuaRestrictedTest, FinalizersAreRefused) {
  // Lua runs __gc with hooks off, where no budget could stop a loop.
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function finalizer()
      setmetatable({}, {__gc = function() while true do end end})
    end
    function debug_finalizer()
      debug.setmetatable({}, {__gc = function() end})
    end
    function plain() return slurm.SUCCESS, getmetatable(setmetatable({}, {__index = {a = 1}})).__index.a end
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  for (const char* fn : {"finalizer", "debug_finalizer"}) {
    absl::StatusOr<BbLuaResult> r = lua->Call(fn, {});
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().message(),
              std::string(fn) + ": __gc (a finalizer) is not available in synchronous hooks");
  }
  absl::StatusOr<BbLuaResult> plain = lua->Call("plain", {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->message, "1");
}

// A small limit and a long budget: near the limit Lua collects garbage at
// each allocation, and the limit must be what stops these.
BbLuaOptions MemoryLimits() {
  BbLuaOptions options = BbLuaOptions::InCtld();
  options.memory_limit = size_t{16} << 20;
  return options;
}

TEST(BbLuaMemoryTest, AHugeStringFailsTheCallInsteadOfAllocating) {
  // 1 GiB: under Lua's own 2 GiB cap on string.rep, so only the limit stops it.
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function huge() local s = string.rep("x", 2^30) return slurm.SUCCESS end
    function grows()
      local t = {}
      for i = 1, 1e9 do t[i] = string.rep("y", 1000) .. i end
    end
    function caught()
      local ok, err = pcall(string.rep, "x", 2^30)
      return slurm.SUCCESS, tostring(ok) .. " " .. err
    end
    function small() return slurm.SUCCESS, string.rep("z", 1000) end
  )"),
                                        MemoryLimits());
  ASSERT_NE(lua, nullptr);
  for (const char* fn : {"huge", "grows"}) {
    absl::StatusOr<BbLuaResult> r = lua->Call(fn, {});
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
    EXPECT_EQ(r.status().message(), std::string(fn) + " exceeded the 16 MiB memory limit");
  }
  EXPECT_TRUE(lua->exceeded_limits());
  // A script may catch a failed allocation and carry on; nothing was allocated.
  absl::StatusOr<BbLuaResult> caught = lua->Call("caught", {});
  ASSERT_TRUE(caught.ok()) << caught.status();
  EXPECT_EQ(caught->message, "false not enough memory");
  absl::StatusOr<BbLuaResult> small = lua->Call("small", {});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->message.size(), 1000u);
}

TEST(BbLuaMemoryTest, TopLevelOverTheLimitFailsTheLoad) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::LoadString(
      Script("big = string.rep('x', 2^30)\n"), "test.lua", nullptr, MemoryLimits());
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(lua.status().message(),
            "burst_buffer.lua: the script's top level exceeded the 16 MiB memory limit");
}

TEST(BbLuaRestrictedTest, ProcessWideFunctionsFailTheCallNamingThemselves) {
  LogLines logs;
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function slurm_bb_job_process(job_script, uid, gid, job_info) os.exit(3) end
    function execute() return os.execute("true") end
    function popen() return io.popen("echo hi"):read("a") end
    function setlocale() os.setlocale("C") end
    function read_stdin() return io.read("l") end
    function lines_stdin() for l in io.lines() do end end
    function input() io.input() end
    function sethook() debug.sethook() end
    function debug_debug() debug.debug() end
    function dofile_stdin() dofile() end
    function loadfile_stdin() loadfile() end
    function caught() pcall(os.exit, 1) return slurm.SUCCESS end
  )"),
                                        TestLimits(), &logs);
  ASSERT_NE(lua, nullptr);
  absl::StatusOr<BbLuaResult> r = lua->JobProcess("/dev/null", 1000, 1000, BbJobInfo{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(),
            "slurm_bb_job_process: os.exit is not available in synchronous hooks");
  // The log says where the script called it.
  ASSERT_FALSE(logs.empty());
  EXPECT_EQ(logs.back().first, BbLuaLogLevel::kError);
  EXPECT_EQ(
      logs.back().second,
      "[string \"test.lua\"]:13: slurm_bb_job_process called os.exit, which is not available in "
      "synchronous hooks");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"execute", "os.execute"},
      {"popen", "io.popen"},
      {"setlocale", "os.setlocale"},
      {"read_stdin", "io.read"},
      {"lines_stdin", "io.lines() without a file name (stdin)"},
      {"input", "io.input"},
      {"sethook", "debug.sethook"},
      {"debug_debug", "debug.debug"},
      {"dofile_stdin", "dofile() without a file name (stdin)"},
      {"loadfile_stdin", "loadfile() without a file name (stdin)"},
      {"caught", "os.exit"},  // caught with pcall: the call fails all the same
  };
  for (const auto& [fn, name] : cases) {
    absl::StatusOr<BbLuaResult> c = lua->Call(fn, {});
    ASSERT_FALSE(c.ok()) << fn;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition) << fn;
    EXPECT_EQ(c.status().message(), fn + ": " + name + " is not available in synchronous hooks");
  }
  EXPECT_FALSE(lua->exceeded_limits());  // a refusal leaves the state usable
}

TEST(BbLuaRestrictedTest, TopLevelOsExitFailsTheLoad) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(Script("os.exit(0)\n"), "test.lua", nullptr, TestLimits());
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lua.status().message(),
            "burst_buffer.lua: os.exit is not available while ctld loads the script");
}

TEST(BbLuaRestrictedTest, FilesStayAvailable) {
  const std::string in = TempPath("restricted_in.txt");
  const std::string out = TempPath("restricted_out.txt");
  std::ofstream(in) << "line one\nline two\n";
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function files(input, output)
      local n = 0
      for _ in io.lines(input) do n = n + 1 end
      local f = assert(io.open(input, "r"))
      local first = f:read("l")
      f:close()
      local o = assert(io.open(output, "w"))
      o:write(first, " ", n)
      o:close()
      local back = io.open(output):read("a")
      os.remove(output)
      return slurm.SUCCESS, back .. " " .. tostring(os.getenv("PATH") ~= nil)
    end
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  absl::StatusOr<BbLuaResult> r = lua->Call("files", {in, out});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->message, "line one 2 true");
}

TEST(BbLuaRestrictedTest, LoadAcceptsTextChunksOnly) {
  const std::string module = TempPath("restricted_module.lua");
  std::ofstream(module) << "return 40 + 2\n";
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function text(module)
      local env_f = load("return x", "chunk", nil, {x = 5})
      return slurm.SUCCESS, load("return 1 + 1")() .. " " .. env_f() .. " " ..
          dofile(module) .. " " .. loadfile(module)()
    end
    function binary()
      local f, err = load(string.dump(function() return 1 end))
      return slurm.SUCCESS, tostring(f) .. " " .. err
    end
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  absl::StatusOr<BbLuaResult> text = lua->Call("text", {module});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->message, "2 5 42 42");
  absl::StatusOr<BbLuaResult> binary = lua->Call("binary", {});
  ASSERT_TRUE(binary.ok()) << binary.status();
  EXPECT_NE(binary->message.find("nil attempt to load a binary chunk"), std::string::npos)
      << binary->message;
}

TEST(BbLuaRestrictedTest, AStrictGlobalTableDoesNotBreakLookups) {
  // strict.lua-style _G: reading an undefined global raises. Looking up the
  // optional hooks must not run that outside a protected call.
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    setmetatable(_G, {__index = function(_, k) error("undefined global " .. k) end})
  )"),
                                        TestLimits());
  ASSERT_NE(lua, nullptr);
  EXPECT_FALSE(lua->HasFunction("slurm_bb_test_data_in"));
  absl::StatusOr<BbLuaResult> r =
      lua->JobStage("slurm_bb_test_data_in", 1, "/dev/null", 1000, 1000, BbJobInfo{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(lua->Call("nope", {}).status().code(), absl::StatusCode::kNotFound);
}

// The helper's states (scriptd --run-lua) keep full Lua: stage scripts run
// commands.
TEST(BbLuaUnrestrictedTest, HelperStatesKeepFullLua) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function run()
      local ok = os.execute("true")
      local out = io.popen("echo hi"):read("l")
      return slurm.SUCCESS, tostring(ok) .. " " .. out
    end
    function leave(code) os.exit(tonumber(code)) end
  )"),
                                        BbLuaOptions{});
  ASSERT_NE(lua, nullptr);
  absl::StatusOr<BbLuaResult> r = lua->Call("run", {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->message, "true hi");
  EXPECT_EXIT(lua->Call("leave", {"7"}), ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace skiff
