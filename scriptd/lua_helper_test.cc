// The Lua helper's call logic in-process; scriptd_service_test runs the real
// `scriptd --run-lua` through RunLua.
#include "scriptd/lua_helper.h"

#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace skiff::scriptd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* dir = getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// A burst_buffer.lua with every required hook returning success, then `body`
// (which may redefine any of them).
std::string Script(const std::string& name, const std::string& body) {
  std::string text;
  for (const char* fn : kBbRequiredFunctions) {
    text += std::string("function ") + fn + "() return slurm.SUCCESS end\n";
  }
  text += body;
  const std::string path = TempDir() + "/" + name + ".lua";
  std::ofstream(path) << text;
  return path;
}

constexpr char kRequest[] =
    R"({"args": ["42", "/spool/job_42/script", "1001", "1002"],
        "job_info": {"job_id": 42, "user_name": "alice"}})";

class LuaHelperTest : public ::testing::Test {
 protected:
  LuaHookAnswer Call(const std::string& function, const std::string& script,
                     const std::string& request = kRequest) {
    return CallLuaHook(function, script, request, [this](BbLuaLogLevel level, std::string_view m) {
      logs_.push_back(FormatLuaLogLines(level, m));
    });
  }
  std::vector<std::string> logs_;
};

TEST_F(LuaHelperTest, SuccessPassesArgsAndJobInfoAndReturnsTheMessage) {
  const std::string script = Script("ok", R"(
function slurm_bb_data_in(job_id, job_script, uid, gid, job_info)
  slurm.log_info("data_in %s %s %s %s", job_id, job_script, uid, gid)
  return slurm.SUCCESS, job_info.user_name .. " " .. job_info.job_id
end)");
  LuaHookAnswer answer = Call("slurm_bb_data_in", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperSuccess);
  EXPECT_EQ(answer.rc, 0);
  EXPECT_EQ(answer.message, "alice 42");
  EXPECT_THAT(logs_, ElementsAre("info: data_in 42 /spool/job_42/script 1001 1002\n"));
}

TEST_F(LuaHelperTest, NoReturnValueIsSuccessWithNoMessage) {
  const std::string script = Script("none", "function slurm_bb_pre_run() end\n");
  LuaHookAnswer answer = Call("slurm_bb_pre_run", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperSuccess);
  EXPECT_EQ(answer.message, "");
}

TEST_F(LuaHelperTest, ErrorRcIsExitOneWithTheExactRcAndMessage) {
  const std::string script = Script("err", R"(
function slurm_bb_data_in() return slurm.ERROR, "no space on /fast" end
function slurm_bb_data_out() return 7, "seven" end)");
  LuaHookAnswer answer = Call("slurm_bb_data_in", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperScriptError);
  EXPECT_EQ(answer.rc, -1);
  EXPECT_EQ(answer.message, "no space on /fast");
  answer = Call("slurm_bb_data_out", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperScriptError);
  EXPECT_EQ(answer.rc, 7);
  EXPECT_EQ(answer.message, "seven");
}

TEST_F(LuaHelperTest, LuaErrorAndBadReturnValuesAreExitTwo) {
  const std::string script = Script("raise", R"(
function slurm_bb_setup() error("disk on fire") end
function slurm_bb_post_run() return "zero" end
function slurm_bb_real_size() return slurm.SUCCESS, {} end)");
  LuaHookAnswer answer = Call("slurm_bb_setup", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperCallFailed);
  EXPECT_EQ(answer.rc, -1);
  EXPECT_THAT(answer.message, HasSubstr("slurm_bb_setup: "));
  EXPECT_THAT(answer.message, HasSubstr("disk on fire"));
  answer = Call("slurm_bb_post_run", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperCallFailed);
  EXPECT_EQ(answer.message, "slurm_bb_post_run returned a non-numeric return code (string)");
  answer = Call("slurm_bb_real_size", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperCallFailed);
  EXPECT_EQ(answer.message, "slurm_bb_real_size returned a non-string second value (table)");
}

TEST_F(LuaHelperTest, LoadFailuresAreExitThree) {
  LuaHookAnswer answer = Call("slurm_bb_data_in", TempDir() + "/no-such.lua");
  EXPECT_EQ(answer.exit_status, kLuaHelperLoadFailed);
  EXPECT_EQ(answer.rc, -1);
  EXPECT_THAT(answer.message, HasSubstr("no-such.lua"));

  answer = Call("slurm_bb_data_in", Script("syntax", "function ("));
  EXPECT_EQ(answer.exit_status, kLuaHelperLoadFailed);

  const std::string missing = TempDir() + "/missing.lua";
  std::ofstream(missing) << "function slurm_bb_pools() end\n";
  answer = Call("slurm_bb_data_in", missing);
  EXPECT_EQ(answer.exit_status, kLuaHelperLoadFailed);
  EXPECT_THAT(answer.message, HasSubstr("required function(s) not defined: slurm_bb_job_process"));
}

TEST_F(LuaHelperTest, MissingTestDataHooksAreDoneAndBusyIsPassedUp) {
  const std::string script = Script("poll", R"(
function slurm_bb_test_data_out() return slurm.SUCCESS, slurm.SLURM_BB_BUSY end)");
  LuaHookAnswer answer = Call("slurm_bb_test_data_in", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperSuccess);
  EXPECT_EQ(answer.message, "");
  answer = Call("slurm_bb_test_data_out", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperSuccess);
  EXPECT_EQ(answer.rc, 0);
  EXPECT_EQ(answer.message, "BUSY");
}

TEST_F(LuaHelperTest, UndefinedFunctionAndBadRequestAreExitTwo) {
  const std::string script = Script("plain", "");
  LuaHookAnswer answer = Call("slurm_bb_no_such_hook", script);
  EXPECT_EQ(answer.exit_status, kLuaHelperCallFailed);
  EXPECT_THAT(answer.message, HasSubstr("not defined"));
  answer = Call("slurm_bb_data_in", script, R"({"args": [1]})");
  EXPECT_EQ(answer.exit_status, kLuaHelperCallFailed);
  EXPECT_THAT(answer.message, HasSubstr("slurm_bb_data_in: bad request from scriptd"));
}

TEST_F(LuaHelperTest, HookWithoutJobInfoGetsOnlyItsArgs) {
  const std::string script = Script("status", R"(
function slurm_bb_get_status(uid, gid, ...)
  return slurm.SUCCESS, uid .. "," .. gid .. "," .. select("#", ...) .. "," .. table.concat({...}, "+")
end)");
  LuaHookAnswer answer = Call("slurm_bb_get_status", script, R"({"args": ["0", "0", "a", "b"]})");
  EXPECT_EQ(answer.exit_status, kLuaHelperSuccess);
  EXPECT_EQ(answer.message, "0,0,2,a+b");
}

TEST(FormatLuaLogLines, OneLinePerMessageLineWithTheLevel) {
  EXPECT_EQ(FormatLuaLogLines(BbLuaLogLevel::kError, "bad"), "error: bad\n");
  EXPECT_EQ(FormatLuaLogLines(BbLuaLogLevel::kDebug2, "a\nb\n"), "debug2: a\ndebug2: b\n");
  EXPECT_EQ(FormatLuaLogLines(BbLuaLogLevel::kInfo, ""), "info: \n");
}

}  // namespace
}  // namespace skiff::scriptd
