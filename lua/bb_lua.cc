#include "lua/bb_lua.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lua/bb_lua_internal.h"

namespace skiff {

using bb_lua_internal::BudgetHook;
using bb_lua_internal::FormatBudget;
using bb_lua_internal::GuardedAlloc;
using bb_lua_internal::InstallSkiffTable;
using bb_lua_internal::InstallSlurmTable;
using bb_lua_internal::LuaXpcallBudgeted;
using bb_lua_internal::PushJobInfo;
using bb_lua_internal::Replace;
using bb_lua_internal::Restrict;

namespace {

int Panic(lua_State* L) {
  const char* message = lua_tostring(L, -1);
  std::fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n",
               message == nullptr ? "?" : message);
  return 0;  // Lua aborts
}

std::string PopMessage(lua_State* L) {
  const char* m = lua_tostring(L, -1);
  std::string message = m == nullptr ? "(error object is not a string)" : m;
  lua_pop(L, 1);
  return message;
}

}  // namespace

const char* BbLuaLogLevelName(BbLuaLogLevel level) {
  switch (level) {
    case BbLuaLogLevel::kError:
      return "error";
    case BbLuaLogLevel::kInfo:
      return "info";
    case BbLuaLogLevel::kVerbose:
      return "verbose";
    case BbLuaLogLevel::kDebug:
      return "debug";
    case BbLuaLogLevel::kDebug2:
      return "debug2";
    case BbLuaLogLevel::kDebug3:
      return "debug3";
    case BbLuaLogLevel::kDebug4:
      return "debug4";
  }
  return "?";
}

BbLuaOptions BbLuaOptions::InCtld() {
  BbLuaOptions options;
  options.restricted = true;
  options.time_budget = kBbSyncTimeBudget;
  options.memory_limit = kBbSyncMemoryLimit;
  return options;
}

BbLua::BbLua(BbLuaLogger logger, const BbLuaOptions& options)
    : guard_(std::make_unique<BbLuaGuard>()), logger_(std::move(logger)) {
  guard_->options = options;
  guard_->budget_text = FormatBudget(options.time_budget);
  guard_->logger = &logger_;
  // guard_ and logger_ live as long as L_ (all owned here), so the allocator's
  // user data and the light userdata in the closures stay valid.
  L_ = lua_newstate(GuardedAlloc, guard_.get());
  if (L_ == nullptr) return;
  lua_atpanic(L_, Panic);
  luaL_openlibs(L_);
  InstallSlurmTable(L_, &logger_);
  InstallSkiffTable(L_);
  if (options.restricted) Restrict(L_);
  // Coroutines inherit the hook of the thread that creates them.
  if (options.time_budget.count() > 0) {
    lua_pushglobaltable(L_);
    Replace(L_, "", "xpcall", LuaXpcallBudgeted);
    lua_pop(L_, 1);
    lua_sethook(L_, BudgetHook, LUA_MASKCOUNT, kBbLuaInstructionsPerCheck);
  }
}

BbLua::~BbLua() {
  if (L_ != nullptr) lua_close(L_);
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::Create(BbLuaLogger logger,
                                                     const BbLuaOptions& options) {
  std::unique_ptr<BbLua> lua(new BbLua(std::move(logger), options));
  if (lua->L_ == nullptr) return absl::ResourceExhaustedError("cannot create a Lua state");
  return lua;
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::Load(const std::string& script_path,
                                                   BbLuaLogger logger,
                                                   const BbLuaOptions& options) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua = Create(std::move(logger), options);
  if (!lua.ok()) return lua.status();
  lua_State* L = (*lua)->L_;
  const int rc = luaL_loadfilex(L, script_path.c_str(), "t");
  if (rc == LUA_ERRFILE) {
    return absl::NotFoundError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
  return Finish(*std::move(lua), rc);
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::LoadString(std::string_view script,
                                                         const std::string& chunk_name,
                                                         BbLuaLogger logger,
                                                         const BbLuaOptions& options) {
  absl::StatusOr<std::unique_ptr<BbLua>> lua = Create(std::move(logger), options);
  if (!lua.ok()) return lua.status();
  lua_State* L = (*lua)->L_;
  const int rc = luaL_loadbufferx(L, script.data(), script.size(), chunk_name.c_str(), "t");
  return Finish(*std::move(lua), rc);
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::Finish(std::unique_ptr<BbLua> lua, int load_rc) {
  lua_State* L = lua->L_;
  if (load_rc != LUA_OK) {
    return absl::InvalidArgumentError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
  const int status = lua->ProtectedCall(0, "the script's top level", /*loading=*/true);
  if (absl::Status limit = lua->LimitError(status, "burst_buffer.lua: "); !limit.ok()) {
    lua_settop(L, 0);
    return limit;
  }
  if (status != LUA_OK) {
    return absl::InvalidArgumentError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
  lua_settop(L, 0);
  std::string missing;
  for (const char* name : kBbRequiredFunctions) {
    if (!lua->HasFunction(name)) absl::StrAppend(&missing, missing.empty() ? "" : ", ", name);
  }
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("burst_buffer.lua: required function(s) not defined: ", missing));
  }
  return lua;
}

bool BbLua::HasFunction(const std::string& name) const {
  lua_pushglobaltable(L_);
  lua_pushlstring(L_, name.data(), name.size());
  lua_rawget(L_, -2);
  const bool is_function = lua_isfunction(L_, -1);
  lua_pop(L_, 2);
  return is_function;
}

absl::StatusOr<BbLuaResult> BbLua::Call(const std::string& function,
                                        const std::vector<std::string>& args,
                                        const BbJobInfo* job_info) {
  lua_settop(L_, 0);
  // Raw, as HasFunction: a metamethod here would run outside any protected call.
  lua_pushglobaltable(L_);
  lua_pushlstring(L_, function.data(), function.size());
  lua_rawget(L_, -2);
  lua_remove(L_, 1);
  if (!lua_isfunction(L_, -1)) {
    lua_settop(L_, 0);
    return absl::NotFoundError(absl::StrCat(function, ": not defined in burst_buffer.lua"));
  }
  // lua_checkstack, not luaL_checkstack: we are outside any protected call here,
  // where a Lua error would abort the process.
  if (!lua_checkstack(L_, static_cast<int>(args.size()) + 2)) {
    lua_settop(L_, 0);
    return absl::ResourceExhaustedError(absl::StrCat(function, ": too many arguments"));
  }
  for (const std::string& arg : args) lua_pushlstring(L_, arg.data(), arg.size());
  int nargs = static_cast<int>(args.size());
  if (job_info != nullptr) {
    PushJobInfo(L_, *job_info);
    ++nargs;
  }
  const int status = ProtectedCall(nargs, function.c_str(), /*loading=*/false);
  if (absl::Status limit = LimitError(status, ""); !limit.ok()) {
    lua_settop(L_, 0);
    if (limit.code() == absl::StatusCode::kFailedPrecondition) {
      return absl::FailedPreconditionError(absl::StrCat(function, ": ", limit.message()));
    }
    return limit;
  }
  if (status != LUA_OK) {
    std::string message = PopMessage(L_);
    lua_settop(L_, 0);
    return absl::InternalError(absl::StrCat(function, ": ", message));
  }
  // Slurm's convention: nothing returned is success; the first value must be a
  // number (lua_isnumber, so "0" also counts, as in Slurm); the second, when
  // present, must be a string (numbers convert, as lua_isstring allows).
  BbLuaResult result;
  const int returned = lua_gettop(L_);
  if (returned >= 1) {
    if (!lua_isnumber(L_, 1)) {
      const std::string type = luaL_typename(L_, 1);
      lua_settop(L_, 0);
      return absl::InvalidArgumentError(
          absl::StrCat(function, " returned a non-numeric return code (", type, ")"));
    }
    result.rc = static_cast<int>(lua_tointeger(L_, 1));
    if (!lua_isinteger(L_, 1)) result.rc = static_cast<int>(lua_tonumber(L_, 1));
  }
  if (returned >= 2) {
    if (!lua_isstring(L_, 2)) {
      const std::string type = luaL_typename(L_, 2);
      lua_settop(L_, 0);
      return absl::InvalidArgumentError(
          absl::StrCat(function, " returned a non-string second value (", type, ")"));
    }
    size_t len = 0;
    const char* m = lua_tolstring(L_, 2, &len);
    result.message.assign(m, len);
  }
  lua_settop(L_, 0);
  return result;
}

absl::StatusOr<BbLuaResult> BbLua::JobProcess(const std::string& job_script, uint32_t uid,
                                              uint32_t gid, const BbJobInfo& job_info) {
  return Call("slurm_bb_job_process", {job_script, std::to_string(uid), std::to_string(gid)},
              &job_info);
}

absl::StatusOr<BbLuaResult> BbLua::Pools() { return Call("slurm_bb_pools", {}); }

absl::StatusOr<BbLuaResult> BbLua::Paths(uint32_t job_id, const std::string& job_script,
                                         const std::string& path_file, uint32_t uid, uint32_t gid,
                                         const BbJobInfo& job_info) {
  return Call(
      "slurm_bb_paths",
      {std::to_string(job_id), job_script, path_file, std::to_string(uid), std::to_string(gid)},
      &job_info);
}

absl::StatusOr<BbLuaResult> BbLua::Setup(uint32_t job_id, uint32_t uid, uint32_t gid,
                                         const std::string& pool, uint64_t bb_size,
                                         const std::string& job_script, const BbJobInfo& job_info) {
  return Call("slurm_bb_setup",
              {std::to_string(job_id), std::to_string(uid), std::to_string(gid), pool,
               std::to_string(bb_size), job_script},
              &job_info);
}

absl::StatusOr<BbLuaResult> BbLua::JobStage(const std::string& function, uint32_t job_id,
                                            const std::string& job_script, uint32_t uid,
                                            uint32_t gid, const BbJobInfo& job_info) {
  for (const char* optional : kBbOptionalFunctions) {
    if (function == optional && !HasFunction(function)) return BbLuaResult{};
  }
  return Call(function,
              {std::to_string(job_id), job_script, std::to_string(uid), std::to_string(gid)},
              &job_info);
}

absl::StatusOr<BbLuaResult> BbLua::RealSize(uint32_t job_id, uint32_t uid, uint32_t gid,
                                            const BbJobInfo& job_info) {
  return Call("slurm_bb_real_size",
              {std::to_string(job_id), std::to_string(uid), std::to_string(gid)}, &job_info);
}

absl::StatusOr<BbLuaResult> BbLua::Teardown(uint32_t job_id, const std::string& job_script,
                                            bool hurry, uint32_t uid, uint32_t gid,
                                            const BbJobInfo* job_info) {
  return Call("slurm_bb_job_teardown",
              {std::to_string(job_id), job_script, hurry ? "true" : "false", std::to_string(uid),
               std::to_string(gid)},
              job_info);
}

absl::StatusOr<BbLuaResult> BbLua::GetStatus(uint32_t uid, uint32_t gid,
                                             const std::vector<std::string>& words) {
  std::vector<std::string> args = {std::to_string(uid), std::to_string(gid)};
  args.insert(args.end(), words.begin(), words.end());
  return Call("slurm_bb_get_status", args);
}

}  // namespace skiff
