#include "lua/bb_lua.h"

#include <lua5.4/lua.hpp>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/time_format.h"

namespace skiff {
namespace {

constexpr int kMaxJsonDepth = 200;

const BbLuaLogger* LoggerFrom(lua_State* L, int upvalue) {
  return static_cast<const BbLuaLogger*>(lua_touserdata(L, lua_upvalueindex(upvalue)));
}

void Emit(const BbLuaLogger* logger, BbLuaLogLevel level, const char* message) {
  if (logger != nullptr && *logger) (*logger)(level, message == nullptr ? "" : message);
}

BbLuaLogLevel LevelFromSlurm(lua_Integer level) {
  switch (level) {
    case 0:
      return BbLuaLogLevel::kInfo;
    case 1:
      return BbLuaLogLevel::kVerbose;
    case 2:
      return BbLuaLogLevel::kDebug;
    case 3:
      return BbLuaLogLevel::kDebug2;
    case 4:
      return BbLuaLogLevel::kDebug3;
    default:
      return level < 0 ? BbLuaLogLevel::kInfo : BbLuaLogLevel::kDebug4;
  }
}

// slurm.log([level,] msg). Upvalue 1: the logger.
int LuaLog(lua_State* L) {
  const int n = lua_gettop(L);
  if (n == 0) return 0;
  lua_Integer level = 0;
  if (n >= 2) level = lua_tointeger(L, 1);
  Emit(LoggerFrom(L, 1), LevelFromSlurm(level), luaL_tolstring(L, n, nullptr));
  return 0;
}

// slurm.error(msg). Upvalue 1: the logger.
int LuaError(lua_State* L) {
  if (lua_gettop(L) == 0) return 0;
  Emit(LoggerFrom(L, 1), BbLuaLogLevel::kError, luaL_tolstring(L, 1, nullptr));
  return 0;
}

// slurm.log_*(fmt, ...). Upvalues: 1 logger, 2 level, 3 string.format (captured
// at start-up so a script that reassigns `string` cannot break logging).
int LuaLogFormatted(lua_State* L) {
  const int n = lua_gettop(L);
  if (n == 0) return 0;
  const auto level = static_cast<BbLuaLogLevel>(lua_tointeger(L, lua_upvalueindex(2)));
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_insert(L, 1);
  lua_call(L, n, 1);  // a bad format raises a Lua error in the calling hook
  Emit(LoggerFrom(L, 1), level, lua_tostring(L, -1));
  return 0;
}

// print(...) -> the logger at info, tab separated as Lua's print. Built in a
// luaL_Buffer, not a std::string: __tostring may raise a Lua error, which
// longjmps past C++ destructors.
int LuaPrint(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (int i = 1; i <= n; ++i) {
    if (i > 1) luaL_addchar(&buffer, '\t');
    luaL_tolstring(L, i, nullptr);
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  Emit(LoggerFrom(L, 1), BbLuaLogLevel::kInfo, lua_tostring(L, -1));
  return 0;
}

int LuaTimeStr2Mins(lua_State* L) {
  const char* text = lua_tostring(L, 1);
  lua_Integer minutes = -2;  // Slurm's NO_VAL read as an int
  if (text != nullptr) {
    absl::StatusOr<int64_t> seconds = ParseDuration(text);
    if (seconds.ok()) {
      minutes = *seconds == kInfiniteDuration ? -1 : (*seconds + 59) / 60;
    }
  }
  lua_pushinteger(L, minutes);
  return 1;
}

absl::StatusOr<JsonValue> ToJsonValue(lua_State* L, int index, int depth) {
  index = lua_absindex(L, index);
  if (depth > kMaxJsonDepth) {
    return absl::InvalidArgumentError("nesting too deep (a table that contains itself?)");
  }
  // Each level holds a key and a value on the Lua stack. lua_checkstack returns
  // false instead of raising a Lua error, which would longjmp past the
  // StatusOr destructors on this C++ stack.
  if (!lua_checkstack(L, 4)) return absl::ResourceExhaustedError("Lua stack exhausted");
  switch (lua_type(L, index)) {
    case LUA_TNIL:
      return JsonValue();
    case LUA_TBOOLEAN:
      return JsonValue::Bool(lua_toboolean(L, index));
    case LUA_TNUMBER:
      if (lua_isinteger(L, index)) return JsonValue::Integer(lua_tointeger(L, index));
      return JsonValue::Double(lua_tonumber(L, index));
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, index, &len);
      return JsonValue::String(std::string(s, len));
    }
    case LUA_TTABLE: {
      // An array when the keys are exactly 1..n (n > 0); otherwise an object
      // whose keys are strings or numbers. An empty table is {}.
      const lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, index));
      lua_Integer count = 0;
      bool sequence = n > 0;
      lua_pushnil(L);
      while (lua_next(L, index) != 0) {
        ++count;
        if (!lua_isinteger(L, -2)) sequence = false;
        lua_pop(L, 1);
      }
      if (sequence && count == n) {
        JsonValue::Array array;
        for (lua_Integer i = 1; i <= n; ++i) {
          lua_rawgeti(L, index, i);
          absl::StatusOr<JsonValue> v = ToJsonValue(L, -1, depth + 1);
          lua_pop(L, 1);
          if (!v.ok()) return v.status();
          array.push_back(*std::move(v));
        }
        return JsonValue::MakeArray(std::move(array));
      }
      JsonValue::Object object;
      lua_pushnil(L);
      while (lua_next(L, index) != 0) {
        const int key_type = lua_type(L, -2);
        if (key_type != LUA_TSTRING && key_type != LUA_TNUMBER) {
          lua_pop(L, 2);
          return absl::InvalidArgumentError(
              absl::StrCat("cannot use a ", lua_typename(L, key_type), " as a JSON key"));
        }
        // Copy the key: lua_tolstring on a number key would confuse lua_next.
        lua_pushvalue(L, -2);
        size_t len = 0;
        const char* k = lua_tolstring(L, -1, &len);
        std::string key(k, len);
        lua_pop(L, 1);
        absl::StatusOr<JsonValue> v = ToJsonValue(L, -1, depth + 1);
        lua_pop(L, 1);
        if (!v.ok()) {
          lua_pop(L, 1);
          return v.status();
        }
        object[std::move(key)] = *std::move(v);
      }
      return JsonValue::MakeObject(std::move(object));
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot convert a ", luaL_typename(L, index), " to JSON"));
  }
}

void PushJsonValue(lua_State* L, const JsonValue& v) {
  luaL_checkstack(L, 4, "JSON too deep");
  switch (v.type()) {
    case JsonValue::Type::kNull:
      lua_pushnil(L);
      return;
    case JsonValue::Type::kBool:
      lua_pushboolean(L, v.as_bool());
      return;
    case JsonValue::Type::kInteger:
      lua_pushinteger(L, v.as_integer());
      return;
    case JsonValue::Type::kDouble:
      lua_pushnumber(L, v.as_double());
      return;
    case JsonValue::Type::kString:
      lua_pushlstring(L, v.as_string().data(), v.as_string().size());
      return;
    case JsonValue::Type::kArray: {
      lua_createtable(L, static_cast<int>(v.as_array().size()), 0);
      lua_Integer i = 1;
      for (const JsonValue& e : v.as_array()) {
        PushJsonValue(L, e);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
    case JsonValue::Type::kObject:
      lua_createtable(L, 0, static_cast<int>(v.as_object().size()));
      for (const auto& [key, e] : v.as_object()) {
        PushJsonValue(L, e);
        lua_setfield(L, -2, key.c_str());
      }
      return;
  }
}

int LuaToJson(lua_State* L) {
  absl::StatusOr<JsonValue> v = ToJsonValue(L, 1, 0);
  if (!v.ok()) {
    lua_pushnil(L);
    lua_pushstring(L, std::string(v.status().message()).c_str());
    return 2;
  }
  const std::string text = WriteJson(*v);
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

int LuaFromJson(lua_State* L) {
  size_t len = 0;
  const char* text = lua_tolstring(L, 1, &len);
  if (text == nullptr) {
    lua_pushnil(L);
    lua_pushstring(L, "from_json expects a string");
    return 2;
  }
  absl::StatusOr<JsonValue> v = ParseJson(std::string_view(text, len));
  if (!v.ok()) {
    lua_pushnil(L);
    lua_pushstring(L, std::string(v.status().message()).c_str());
    return 2;
  }
  PushJsonValue(L, *v);
  return 1;
}

int LuaReadOnlyError(lua_State* L) {
  return luaL_error(L, "job_info is read-only (field '%s')", luaL_tolstring(L, 2, nullptr));
}

// __pairs for the job_info proxy: iterate the real table. Upvalue 1: it.
int LuaReadOnlyPairs(lua_State* L) {
  lua_getglobal(L, "next");
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushnil(L);
  return 3;
}

void SetInt(lua_State* L, const char* key, lua_Integer value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, key);
}

void SetStr(lua_State* L, const char* key, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, key);
}

// Pushes a proxy table: reads go to a hidden table, writes raise an error, and
// getmetatable returns a string so setmetatable cannot swap it.
void PushJobInfo(lua_State* L, const BbJobInfo& info) {
  lua_newtable(L);            // proxy
  lua_createtable(L, 0, 16);  // data
  SetInt(L, "job_id", info.job_id);
  SetInt(L, "user_id", info.user_id);
  SetInt(L, "group_id", info.group_id);
  SetStr(L, "user_name", info.user_name);
  SetStr(L, "account", info.account);
  SetStr(L, "partition", info.partition);
  SetStr(L, "qos", info.qos);
  SetInt(L, "time_limit", info.time_limit);
  SetStr(L, "nodes", info.nodes);
  SetStr(L, "work_dir", info.work_dir);
  SetStr(L, "burst_buffer", info.burst_buffer);
  SetStr(L, "burst_buffer_state", info.burst_buffer_state);
  SetStr(L, "job_state", info.job_state);
  SetInt(L, "array_job_id", info.array_job_id);
  SetInt(L, "array_task_id", info.array_task_id);
  SetStr(L, "gres_total", info.gres_total);
  lua_createtable(L, 0, 4);  // metatable
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, LuaReadOnlyError);
  lua_setfield(L, -2, "__newindex");
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, LuaReadOnlyPairs, 1);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -3);  // proxy's metatable
  lua_pop(L, 1);            // data (still reachable through __index)
}

void InstallSlurmTable(lua_State* L, BbLuaLogger* logger) {
  lua_newtable(L);
  lua_pushinteger(L, kBbLuaSuccess);
  lua_setfield(L, -2, "SUCCESS");
  lua_pushinteger(L, kBbLuaError);
  lua_setfield(L, -2, "ERROR");
  lua_pushinteger(L, kBbLuaError);
  lua_setfield(L, -2, "FAILURE");
  lua_pushstring(L, kBbLuaBusy);
  lua_setfield(L, -2, "SLURM_BB_BUSY");

  lua_pushlightuserdata(L, logger);
  lua_pushcclosure(L, LuaLog, 1);
  lua_setfield(L, -2, "log");
  lua_pushlightuserdata(L, logger);
  lua_pushcclosure(L, LuaError, 1);
  lua_setfield(L, -2, "error");

  lua_getglobal(L, "string");
  lua_getfield(L, -1, "format");
  const int format_index = lua_gettop(L);
  const struct {
    const char* name;
    BbLuaLogLevel level;
  } kFormatted[] = {
      {"log_error", BbLuaLogLevel::kError},     {"log_info", BbLuaLogLevel::kInfo},
      {"log_verbose", BbLuaLogLevel::kVerbose}, {"log_debug", BbLuaLogLevel::kDebug},
      {"log_debug2", BbLuaLogLevel::kDebug2},   {"log_debug3", BbLuaLogLevel::kDebug3},
      {"log_debug4", BbLuaLogLevel::kDebug4},
  };
  for (const auto& f : kFormatted) {
    lua_pushlightuserdata(L, logger);
    lua_pushinteger(L, static_cast<lua_Integer>(f.level));
    lua_pushvalue(L, format_index);
    lua_pushcclosure(L, LuaLogFormatted, 3);
    lua_setfield(L, -4, f.name);  // the slurm table, below string and format
  }
  lua_pop(L, 2);  // string, format

  lua_pushcfunction(L, LuaTimeStr2Mins);
  lua_setfield(L, -2, "time_str2mins");
  lua_pushcfunction(L, LuaToJson);
  lua_setfield(L, -2, "to_json");
  lua_pushcfunction(L, LuaFromJson);
  lua_setfield(L, -2, "from_json");
  lua_setglobal(L, "slurm");

  lua_pushlightuserdata(L, logger);
  lua_pushcclosure(L, LuaPrint, 1);
  lua_setglobal(L, "print");
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

BbLua::BbLua(lua_State* state, BbLuaLogger logger) : L_(state), logger_(std::move(logger)) {
  luaL_openlibs(L_);
  // logger_ lives as long as L_ (both owned here), so the light userdata stays valid.
  InstallSlurmTable(L_, &logger_);
}

BbLua::~BbLua() { lua_close(L_); }

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::Load(const std::string& script_path,
                                                   BbLuaLogger logger) {
  lua_State* L = luaL_newstate();
  if (L == nullptr) return absl::ResourceExhaustedError("cannot create a Lua state");
  std::unique_ptr<BbLua> lua(new BbLua(L, std::move(logger)));
  const int rc = luaL_loadfilex(L, script_path.c_str(), "t");
  if (rc == LUA_ERRFILE) {
    return absl::NotFoundError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
  return Finish(std::move(lua), rc);
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::LoadString(std::string_view script,
                                                         const std::string& chunk_name,
                                                         BbLuaLogger logger) {
  lua_State* L = luaL_newstate();
  if (L == nullptr) return absl::ResourceExhaustedError("cannot create a Lua state");
  std::unique_ptr<BbLua> lua(new BbLua(L, std::move(logger)));
  const int rc = luaL_loadbufferx(L, script.data(), script.size(), chunk_name.c_str(), "t");
  return Finish(std::move(lua), rc);
}

absl::StatusOr<std::unique_ptr<BbLua>> BbLua::Finish(std::unique_ptr<BbLua> lua, int load_rc) {
  lua_State* L = lua->L_;
  if (load_rc != LUA_OK) {
    return absl::InvalidArgumentError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    return absl::InvalidArgumentError(absl::StrCat("burst_buffer.lua: ", PopMessage(L)));
  }
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
  lua_getglobal(L_, name.c_str());
  const bool is_function = lua_isfunction(L_, -1);
  lua_pop(L_, 1);
  return is_function;
}

absl::StatusOr<BbLuaResult> BbLua::Call(const std::string& function,
                                        const std::vector<std::string>& args,
                                        const BbJobInfo* job_info) {
  lua_settop(L_, 0);
  lua_getglobal(L_, function.c_str());
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
  if (lua_pcall(L_, nargs, LUA_MULTRET, 0) != LUA_OK) {
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
