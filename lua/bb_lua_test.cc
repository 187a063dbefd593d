#include "lua/bb_lua.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace skiff {
namespace {

using LogLines = std::vector<std::pair<BbLuaLogLevel, std::string>>;

// All 11 required functions, each returning nothing, plus `extra`.
std::string Script(const std::string& extra, const std::string& skip = "") {
  std::string text;
  for (const char* name : kBbRequiredFunctions) {
    if (name == skip) continue;
    text += std::string("function ") + name + "(...) end\n";
  }
  return text + extra;
}

std::unique_ptr<BbLua> MustLoad(const std::string& text, LogLines* logs = nullptr) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(text, "test.lua", [logs](BbLuaLogLevel level, std::string_view message) {
        if (logs != nullptr) logs->emplace_back(level, std::string(message));
      });
  EXPECT_TRUE(lua.ok()) << lua.status();
  return lua.ok() ? *std::move(lua) : nullptr;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(BbLuaLoad, MissingRequiredFunctionIsNamed) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(Script("", "slurm_bb_real_size"), "test.lua", nullptr);
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lua.status().message(),
            "burst_buffer.lua: required function(s) not defined: slurm_bb_real_size");
}

TEST(BbLuaLoad, AFunctionMustBeAFunction) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(Script("slurm_bb_pools = 5\n", "slurm_bb_pools"), "test.lua", nullptr);
  ASSERT_FALSE(lua.ok());
  EXPECT_NE(lua.status().message().find("slurm_bb_pools"), absl::string_view::npos);
}

TEST(BbLuaLoad, TestDataFunctionsAreOptional) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(""));
  ASSERT_NE(lua, nullptr);
  EXPECT_FALSE(lua->HasFunction("slurm_bb_test_data_in"));
  for (const char* fn : kBbOptionalFunctions) {
    absl::StatusOr<BbLuaResult> r = lua->JobStage(fn, 1, "/dev/null", 1000, 1000, BbJobInfo{});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->ok());
    EXPECT_FALSE(r->busy());
  }
}

TEST(BbLuaLoad, SyntaxAndRuntimeErrorsAndMissingFile) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::LoadString(Script("function broken(\n"), "test.lua", nullptr);
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(lua.status().message().find("test.lua"), absl::string_view::npos);

  lua = BbLua::LoadString(Script("error('top level failed')\n"), "test.lua", nullptr);
  ASSERT_FALSE(lua.ok());
  EXPECT_NE(lua.status().message().find("top level failed"), absl::string_view::npos);

  lua = BbLua::Load(TempPath("no_such_burst_buffer.lua"), nullptr);
  ASSERT_FALSE(lua.ok());
  EXPECT_EQ(lua.status().code(), absl::StatusCode::kNotFound);
}

TEST(BbLuaLoad, LoadsFromFile) {
  const std::string path = TempPath("from_file.lua");
  std::ofstream(path) << Script("function slurm_bb_pools() return slurm.SUCCESS, 'x' end\n",
                                "slurm_bb_pools");
  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::Load(path, nullptr);
  ASSERT_TRUE(lua.ok()) << lua.status();
  absl::StatusOr<BbLuaResult> r = (*lua)->Pools();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message, "x");
}

TEST(BbLuaCall, ReturnConventions) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function nothing() end
    function ok_msg() return slurm.SUCCESS, "fine" end
    function err_msg() return slurm.ERROR, "stage_in source /x not found" end
    function rc_only() return 7 end
    function numeric_string_rc() return "0" end
    function number_message() return 0, 42 end
    function busy() return slurm.SUCCESS, slurm.SLURM_BB_BUSY end
    function bad_rc() return "oops" end
    function nil_rc() return nil end
    function table_message() return 0, {} end
    function nil_message() return 0, nil end
    function raises() error("boom") end
    function raises_table() error({}) end
  )"));
  ASSERT_NE(lua, nullptr);
  auto call = [&](const std::string& fn) { return lua->Call(fn, {}); };

  EXPECT_TRUE(call("nothing")->ok());
  EXPECT_EQ(call("nothing")->message, "");
  EXPECT_EQ(call("ok_msg")->message, "fine");
  EXPECT_EQ(call("err_msg")->rc, -1);
  EXPECT_EQ(call("err_msg")->message, "stage_in source /x not found");
  EXPECT_FALSE(call("err_msg")->ok());
  EXPECT_EQ(call("rc_only")->rc, 7);
  EXPECT_TRUE(call("numeric_string_rc")->ok());
  EXPECT_EQ(call("number_message")->message, "42");
  EXPECT_TRUE(call("busy")->busy());
  EXPECT_FALSE(call("ok_msg")->busy());

  for (const char* fn : {"bad_rc", "nil_rc"}) {
    absl::StatusOr<BbLuaResult> r = call(fn);
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("non-numeric return code"), absl::string_view::npos);
  }
  for (const char* fn : {"table_message", "nil_message"}) {
    absl::StatusOr<BbLuaResult> r = call(fn);
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("non-string second value"), absl::string_view::npos);
  }
  absl::StatusOr<BbLuaResult> raised = call("raises");
  ASSERT_FALSE(raised.ok());
  EXPECT_EQ(raised.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(raised.status().message().find("raises: "), absl::string_view::npos);
  EXPECT_NE(raised.status().message().find("boom"), absl::string_view::npos);
  EXPECT_FALSE(call("raises_table").ok());

  absl::StatusOr<BbLuaResult> missing = call("no_such_function");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);

  // The state stays usable and the stack balanced after all of that.
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(call("ok_msg")->message, "fine");
}

TEST(BbLuaCall, SlurmConstants) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function constants()
      return 0, string.format("%d %d %d %s", slurm.SUCCESS, slurm.ERROR, slurm.FAILURE,
                              slurm.SLURM_BB_BUSY)
    end
  )"));
  ASSERT_NE(lua, nullptr);
  EXPECT_EQ(lua->Call("constants", {})->message, "0 -1 -1 BUSY");
}

// The hooks get Slurm 24.05's argument lists, as strings, job_info last.
TEST(BbLuaCall, HookArgumentLists) {
  std::unique_ptr<BbLua> lua = MustLoad(R"(
    local function show(...)
      local parts = {}
      for i = 1, select("#", ...) do
        local v = select(i, ...)
        parts[#parts + 1] = type(v) == "table" and ("job_info:" .. v.job_id) or
                            (type(v) .. ":" .. tostring(v))
      end
      return slurm.SUCCESS, table.concat(parts, " ")
    end
    slurm_bb_job_process = show
    slurm_bb_pools = show
    slurm_bb_job_teardown = show
    slurm_bb_setup = show
    slurm_bb_data_in = show
    slurm_bb_real_size = show
    slurm_bb_paths = show
    slurm_bb_pre_run = show
    slurm_bb_post_run = show
    slurm_bb_data_out = show
    slurm_bb_get_status = show
  )");
  ASSERT_NE(lua, nullptr);
  BbJobInfo info;
  info.job_id = 42;
  EXPECT_EQ(lua->JobProcess("/s/job.sh", 1001, 100, info)->message,
            "string:/s/job.sh string:1001 string:100 job_info:42");
  EXPECT_EQ(lua->Pools()->message, "");
  EXPECT_EQ(lua->Paths(42, "/s/job.sh", "/s/paths", 1001, 100, info)->message,
            "string:42 string:/s/job.sh string:/s/paths string:1001 string:100 job_info:42");
  EXPECT_EQ(lua->Setup(42, 1001, 100, "fast", 1073741824, "/s/job.sh", info)->message,
            "string:42 string:1001 string:100 string:fast string:1073741824 string:/s/job.sh "
            "job_info:42");
  EXPECT_EQ(lua->JobStage("slurm_bb_data_in", 42, "/s/job.sh", 1001, 100, info)->message,
            "string:42 string:/s/job.sh string:1001 string:100 job_info:42");
  EXPECT_EQ(lua->RealSize(42, 1001, 100, info)->message,
            "string:42 string:1001 string:100 job_info:42");
  EXPECT_EQ(lua->Teardown(42, "/s/job.sh", true, 1001, 100, &info)->message,
            "string:42 string:/s/job.sh string:true string:1001 string:100 job_info:42");
  EXPECT_EQ(lua->Teardown(42, "/s/job.sh", false, 1001, 100, nullptr)->message,
            "string:42 string:/s/job.sh string:false string:1001 string:100");
  EXPECT_EQ(lua->GetStatus(0, 0, {"foo", "bar"})->message,
            "string:0 string:0 string:foo string:bar");
}

TEST(BbLuaCall, JobInfoIsReadOnlyAndComplete) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function read(job_info)
      return 0, string.format("%d %d %d %s %s %s %s %d %s %s %s %s %s %d %d %s",
        job_info.job_id, job_info.user_id, job_info.group_id, job_info.user_name,
        job_info.account, job_info.partition, job_info.qos, job_info.time_limit,
        job_info.nodes, job_info.work_dir, job_info.burst_buffer,
        job_info.burst_buffer_state, job_info.job_state, job_info.array_job_id,
        job_info.array_task_id, job_info.gres_total)
    end
    function count(job_info)
      local n = 0
      for k, v in pairs(job_info) do n = n + 1 end
      return 0, tostring(n)
    end
    function write(job_info) job_info.job_id = 1 end
    function add(job_info) job_info.extra = 1 end
    function swap(job_info) setmetatable(job_info, nil) end
    function persist(job_info)
      rawset(job_info, "mine", 1)
      return 0, tostring(job_info.mine)
    end
  )"));
  ASSERT_NE(lua, nullptr);
  BbJobInfo info;
  info.job_id = 42;
  info.user_id = 1001;
  info.group_id = 1001;
  info.user_name = "alice";
  info.account = "research";
  info.partition = "debug";
  info.qos = "normal";
  info.time_limit = 60;
  info.nodes = "n1";
  info.work_dir = "/home/alice";
  info.burst_buffer = "#BB_LUA pool=fast capacity=1G";
  info.burst_buffer_state = "staging-in";
  info.job_state = "PENDING";
  info.gres_total = "gres/gpu=1";
  EXPECT_EQ(lua->Call("read", {}, &info)->message,
            "42 1001 1001 alice research debug normal 60 n1 /home/alice #BB_LUA pool=fast "
            "capacity=1G staging-in PENDING 0 4294967294 gres/gpu=1");
  EXPECT_EQ(lua->Call("count", {}, &info)->message, "16");
  for (const char* fn : {"write", "add", "swap"}) {
    absl::StatusOr<BbLuaResult> r = lua->Call(fn, {}, &info);
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  }
  EXPECT_NE(lua->Call("write", {}, &info).status().message().find("job_info is read-only"),
            absl::string_view::npos);
  // rawset reaches only this call's copy; the next call gets a fresh table.
  EXPECT_EQ(lua->Call("persist", {}, &info)->message, "1");
  EXPECT_EQ(lua->Call("count", {}, &info)->message, "16");
}

TEST(BbLuaLog, ReachesTheLoggerWithLevels) {
  LogLines logs;
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    slurm.log_info("loaded %s", "ok")
    function logs()
      slurm.log_error("e=%d", 1)
      slurm.log_verbose("v")
      slurm.log_debug("d %s %5.1f", "x", 2.25)
      slurm.log_debug2("d2")
      slurm.log_debug3("d3")
      slurm.log_debug4("d4")
      slurm.log("plain")
      slurm.log(2, "level two")
      slurm.log(9, "level nine")
      slurm.error("an error")
      print("printed", 1, nil)
    end
    function bad_format() slurm.log_info("%d", "not a number") end
  )"),
                                        &logs);
  ASSERT_NE(lua, nullptr);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0], std::make_pair(BbLuaLogLevel::kInfo, std::string("loaded ok")));
  logs.clear();
  ASSERT_TRUE(lua->Call("logs", {}).ok());
  const LogLines want = {
      {BbLuaLogLevel::kError, "e=1"},
      {BbLuaLogLevel::kVerbose, "v"},
      {BbLuaLogLevel::kDebug, "d x   2.2"},
      {BbLuaLogLevel::kDebug2, "d2"},
      {BbLuaLogLevel::kDebug3, "d3"},
      {BbLuaLogLevel::kDebug4, "d4"},
      {BbLuaLogLevel::kInfo, "plain"},
      {BbLuaLogLevel::kDebug, "level two"},
      {BbLuaLogLevel::kDebug4, "level nine"},
      {BbLuaLogLevel::kError, "an error"},
      {BbLuaLogLevel::kInfo, "printed\t1\tnil"},
  };
  EXPECT_EQ(logs, want);
  absl::StatusOr<BbLuaResult> r = lua->Call("bad_format", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_STREQ(BbLuaLogLevelName(BbLuaLogLevel::kDebug2), "debug2");
}

TEST(BbLuaSlurm, TimeStr2Mins) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function mins(s) return 0, tostring(slurm.time_str2mins(s)) end
  )"));
  ASSERT_NE(lua, nullptr);
  auto mins = [&](const std::string& s) { return lua->Call("mins", {s})->message; };
  EXPECT_EQ(mins("10"), "10");
  EXPECT_EQ(mins("1:30"), "2");  // 1 min 30 s rounds up
  EXPECT_EQ(mins("2:00:00"), "120");
  EXPECT_EQ(mins("1-00:00:00"), "1440");
  EXPECT_EQ(mins("1-2"), "1560");
  EXPECT_EQ(mins("UNLIMITED"), "-1");
  EXPECT_EQ(mins("abc"), "-2");
}

TEST(BbLuaSlurm, JsonRoundTrip) {
  std::unique_ptr<BbLua> lua = MustLoad(Script(R"(
    function encode()
      return 0, slurm.to_json({pools = {{id = "fast", quantity = 8192, granularity = 1048576},
                                        {id = "bulk", ratio = 0.5, on = true}},
                               empty = {}, name = "a\"b"})
    end
    function roundtrip()
      local t = slurm.from_json('{"a":[1,2,{"b":"c"}],"d":true,"e":1.5,"f":null}')
      if t.a[3].b ~= "c" or t.d ~= true or t.e ~= 1.5 or t.f ~= nil or #t.a ~= 3 then
        return slurm.ERROR, "bad decode"
      end
      if math.type(t.a[1]) ~= "integer" then return slurm.ERROR, "integer lost" end
      return 0, slurm.to_json(t)
    end
    function errors()
      local v1, e1 = slurm.to_json({f = print})
      local v2, e2 = slurm.from_json("{")
      local loop = {}
      loop.self = loop
      local v3, e3 = slurm.to_json(loop)
      return 0, tostring(v1) .. "|" .. e1 .. "|" .. tostring(v2) .. "|" .. e2 .. "|" ..
                tostring(v3) .. "|" .. e3
    end
  )"));
  ASSERT_NE(lua, nullptr);
  EXPECT_EQ(lua->Call("encode", {})->message,
            R"({"empty":{},"name":"a\"b","pools":[{"granularity":1048576,"id":"fast",)"
            R"("quantity":8192},{"id":"bulk","on":true,"ratio":0.5}]})");
  EXPECT_EQ(lua->Call("roundtrip", {})->message, R"({"a":[1,2,{"b":"c"}],"d":true,"e":1.5})");
  absl::StatusOr<BbLuaResult> errors = lua->Call("errors", {});
  ASSERT_TRUE(errors.ok()) << errors.status();
  EXPECT_EQ(errors->message,
            "nil|cannot convert a function to JSON|nil|invalid JSON at offset 1: expected a "
            "string key|nil|nesting too deep (a table that contains itself?)");
}

}  // namespace
}  // namespace skiff
