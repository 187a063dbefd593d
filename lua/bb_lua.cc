#include "lua/bb_lua.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <lua5.4/lua.hpp>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/time_format.h"
#include "lua/user_access.h"
#include "lua/user_dir.h"

namespace skiff {

// What the allocator, the count hook and the refused functions share. They
// reach it through the allocator's user data (lua_getallocf), which every
// coroutine of the state sees too. Only the thread calling into the BbLua
// touches it.
struct BbLuaGuard {
  BbLuaOptions options;
  std::string budget_text;  // "5 s", for the hook's message
  const BbLuaLogger* logger = nullptr;

  size_t used = 0;         // bytes the state holds
  bool enforcing = false;  // the memory limit applies: script code runs under our pcall

  // Per ProtectedCall:
  const char* what = "";   // "slurm_bb_job_process", "the script's top level"
  const char* where = "";  // "in synchronous hooks", "while ctld loads the script"
  std::chrono::steady_clock::time_point deadline;
  bool timed_out = false;
  bool memory_refused = false;  // the allocator refused a block
  std::string refused;          // the first refused function called ("os.exit")

  bool exceeded = false;  // some call crossed the time or memory limit (sticky)
};

namespace {

constexpr int kMaxJsonDepth = 200;

BbLuaGuard* GuardOf(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<BbLuaGuard*>(ud);
}

// "5 s", "200 ms".
std::string FormatBudget(std::chrono::milliseconds budget) {
  if (budget.count() % 1000 == 0) return absl::StrCat(budget.count() / 1000, " s");
  return absl::StrCat(budget.count(), " ms");
}

// "256 MiB", "512 KiB", "1000 bytes".
std::string FormatBytes(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return absl::StrCat(bytes >> 20, " MiB");
  if (bytes % 1024 == 0) return absl::StrCat(bytes >> 10, " KiB");
  return absl::StrCat(bytes, " bytes");
}

// lua_Alloc with the state's memory limit. Shrinking never fails (Lua relies on
// that); growing past the limit fails while script code runs, which Lua turns
// into a "not enough memory" error after an emergency collection. Outside our
// pcalls (pushing arguments, reading results) nothing is refused: an error
// there would be unprotected and abort the process, and those blocks are ours.
void* GuardedAlloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* guard = static_cast<BbLuaGuard*>(ud);
  const size_t old = ptr == nullptr ? 0 : osize;  // for a new block osize is its type
  if (nsize == 0) {
    std::free(ptr);
    guard->used -= old;
    return nullptr;
  }
  const size_t limit = guard->options.memory_limit;
  if (nsize > old && guard->enforcing && limit > 0 && guard->used - old + nsize > limit) {
    guard->memory_refused = true;
    return nullptr;
  }
  void* block = std::realloc(ptr, nsize);
  if (block != nullptr) guard->used = guard->used - old + nsize;
  return block;
}

// Count hook: the time budget. Past the deadline it raises an error, and from
// then on at every instruction of this thread (coroutine), so a script that
// catches the error with pcall cannot keep running: the first instruction
// after the pcall raises it again, up to our own lua_pcall.
void BudgetHook(lua_State* L, lua_Debug* /*ar*/) {
  BbLuaGuard* guard = GuardOf(L);
  if (!guard->timed_out) {
    if (std::chrono::steady_clock::now() < guard->deadline) {
      // A coroutine left at every-instruction by an earlier call's timeout.
      if (lua_gethookcount(L) != kBbLuaInstructionsPerCheck) {
        lua_sethook(L, BudgetHook, LUA_MASKCOUNT, kBbLuaInstructionsPerCheck);
      }
      return;
    }
    guard->timed_out = true;
    guard->exceeded = true;
  }
  lua_sethook(L, BudgetHook, LUA_MASKCOUNT, 1);
  // budget_text, not a temporary string: luaL_error longjmps past destructors.
  luaL_error(L, "%s exceeded %s", guard->what, guard->budget_text.c_str());
}

// A function restricted mode takes away. Upvalue 1: its name ("os.exit"). The
// first one called is remembered, so the call fails even if the script
// catches this error; where it was called from goes to the log.
int LuaRefused(lua_State* L) {
  BbLuaGuard* guard = GuardOf(L);
  const char* name = lua_tostring(L, lua_upvalueindex(1));
  if (guard->refused.empty()) guard->refused = name;
  luaL_where(L, 1);  // "chunk:line: " of the Lua code that called it, or ""
  if (guard->logger != nullptr && *guard->logger) {
    (*guard->logger)(BbLuaLogLevel::kError,
                     absl::StrCat(lua_tostring(L, -1), guard->what, " called ", name,
                                  ", which is not available ", guard->where));
  }
  lua_pop(L, 1);
  return luaL_error(L, "%s is not available %s", name, guard->where);
}

void PushRefused(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_pushcclosure(L, LuaRefused, 1);
}

// Raises the refusal for `name` from inside another C function.
int Refuse(lua_State* L, const char* name) {
  PushRefused(L, name);
  lua_call(L, 0, 0);  // raises
  return 0;
}

int ReturnAll(lua_State* L, int /*status*/, lua_KContext /*ctx*/) { return lua_gettop(L); }

// Calls upvalue 1 with this function's arguments and returns what it returns.
// With a continuation, so a coroutine may still yield through the wrapper.
int CallOriginal(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, ReturnAll);
  return lua_gettop(L);
}

// load(chunk [, chunkname [, mode [, env]]]) with mode "t". Upvalue 1: load.
int LuaLoadText(lua_State* L) {
  const int n = lua_gettop(L);
  lua_settop(L, n < 3 ? 3 : n);  // nil chunkname means the default, as when absent
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  return CallOriginal(L);
}

// loadfile(filename [, mode [, env]]) with mode "t" and a file name. Upvalue 1: loadfile.
int LuaLoadfileText(lua_State* L) {
  if (lua_isnoneornil(L, 1)) return Refuse(L, "loadfile() without a file name (stdin)");
  const int n = lua_gettop(L);
  lua_settop(L, n < 2 ? 2 : n);
  lua_pushliteral(L, "t");
  lua_replace(L, 2);
  return CallOriginal(L);
}

int DofileResults(lua_State* L, int /*status*/, lua_KContext /*ctx*/) {
  return lua_gettop(L) - 1;  // all but the file name
}

// dofile(filename) through text-only loadfile. Upvalue 1: loadfile.
int LuaDofileText(lua_State* L) {
  if (lua_isnoneornil(L, 1)) return Refuse(L, "dofile() without a file name (stdin)");
  lua_settop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushliteral(L, "t");
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) return lua_error(L);  // loadfile's message is on top
  lua_pop(L, 1);
  lua_callk(L, 0, LUA_MULTRET, 0, DofileResults);
  return DofileResults(L, LUA_OK, 0);
}

// xpcall's message handler under a time budget. Lua calls it from where the
// error was raised, which for the budget's error is inside the count hook,
// where hooks are off: a handler that loops could never be stopped. So once
// the budget is spent, the error passes through unhandled. Upvalue 1: the
// script's handler.
int LuaBudgetedHandler(lua_State* L) {
  if (GuardOf(L)->timed_out) return 1;  // the error as it is
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// xpcall(f, msgh, ...) with msgh wrapped in LuaBudgetedHandler. Upvalue 1: xpcall.
int LuaXpcallBudgeted(lua_State* L) {
  if (lua_type(L, 2) == LUA_TFUNCTION) {  // otherwise xpcall says what is wrong
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, LuaBudgetedHandler, 1);
    lua_replace(L, 2);
  }
  return CallOriginal(L);
}

// io.lines(filename, ...) needs a file name: without one it reads stdin.
// Upvalue 1: io.lines.
int LuaLinesOfFile(lua_State* L) {
  if (lua_isnoneornil(L, 1)) return Refuse(L, "io.lines() without a file name (stdin)");
  return CallOriginal(L);
}

// setmetatable / debug.setmetatable without __gc: Lua runs finalizers with
// hooks off, out of the time budget's reach, at any allocation of any later
// call. Upvalue 1: the original.
int LuaSetMetatableNoGc(lua_State* L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    const bool has_gc = lua_rawget(L, 2) != LUA_TNIL;
    lua_pop(L, 1);
    if (has_gc) return Refuse(L, "__gc (a finalizer)");
  }
  return CallOriginal(L);
}

// Replaces table[field] (the table on top of the stack) with a closure over
// the original, or with a refusal when `wrapper` is null.
void Replace(lua_State* L, const char* table_name, const char* field, lua_CFunction wrapper) {
  if (wrapper == nullptr) {
    PushRefused(L, absl::StrCat(table_name, ".", field).c_str());
  } else {
    lua_getfield(L, -1, field);
    lua_pushcclosure(L, wrapper, 1);
  }
  lua_setfield(L, -2, field);
}

// What restricted mode takes away (BbLuaOptions::restricted). Changing the
// library tables in place also covers package.loaded and require("os").
void Restrict(lua_State* L) {
  lua_pushglobaltable(L);
  lua_getfield(L, -1, "loadfile");
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, LuaLoadfileText, 1);
  lua_setfield(L, -3, "loadfile");
  lua_pushcclosure(L, LuaDofileText, 1);
  lua_setfield(L, -2, "dofile");
  Replace(L, "", "load", LuaLoadText);
  Replace(L, "", "setmetatable", LuaSetMetatableNoGc);
  lua_pop(L, 1);

  lua_getglobal(L, "os");
  for (const char* field : {"exit", "execute", "setlocale"}) Replace(L, "os", field, nullptr);
  lua_pop(L, 1);

  lua_getglobal(L, "io");
  for (const char* field : {"popen", "read", "input"}) Replace(L, "io", field, nullptr);
  Replace(L, "io", "lines", LuaLinesOfFile);
  lua_pushnil(L);
  lua_setfield(L, -2, "stdin");
  lua_pop(L, 1);

  // debug.sethook would take the time budget away; debug.debug reads stdin.
  lua_getglobal(L, "debug");
  for (const char* field : {"sethook", "debug"}) Replace(L, "debug", field, nullptr);
  Replace(L, "debug", "setmetatable", LuaSetMetatableNoGc);
  lua_pop(L, 1);
}

int Panic(lua_State* L) {
  const char* message = lua_tostring(L, -1);
  std::fprintf(stderr, "PANIC: unprotected error in call to Lua API (%s)\n",
               message == nullptr ? "?" : message);
  return 0;  // Lua aborts
}

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

// A uid, gid or mode argument: a Lua integer, or a string of digits in `base`
// (Slurm passes uid and gid as strings). False when absent or malformed.
bool NumberArgument(lua_State* L, int index, int base, lua_Integer* out) {
  if (lua_type(L, index) == LUA_TNUMBER && lua_isinteger(L, index)) {
    *out = lua_tointeger(L, index);
    return *out >= 0;
  }
  if (lua_type(L, index) != LUA_TSTRING) return false;
  const std::string text = lua_tostring(L, index);
  if (text.empty() || text.size() > 10) return false;
  char* end = nullptr;
  const unsigned long long value = strtoull(text.c_str(), &end, base);
  if (*end != '\0' || !isdigit(static_cast<unsigned char>(text[0]))) return false;
  *out = static_cast<lua_Integer>(value);
  return true;
}

// skiff.make_user_dir(path, uid, gid [, mode]) -> true | nil, message.
// mode is octal text ("0700") or an integer; 0700 when absent.
int LuaMakeUserDir(lua_State* L) {
  const char* path = luaL_checkstring(L, 1);
  lua_Integer uid = 0, gid = 0, mode = 0700;
  if (!NumberArgument(L, 2, 10, &uid) || uid > 0xfffffffe) {
    return luaL_argerror(L, 2, "uid: a number of 0 or more expected");
  }
  if (!NumberArgument(L, 3, 10, &gid) || gid > 0xfffffffe) {
    return luaL_argerror(L, 3, "gid: a number of 0 or more expected");
  }
  if (!lua_isnoneornil(L, 4) && (!NumberArgument(L, 4, 8, &mode) || mode > 07777)) {
    return luaL_argerror(L, 4, "mode: octal permissions such as \"0700\" expected");
  }
  const absl::Status status = MakeUserDir(path, static_cast<uid_t>(uid), static_cast<gid_t>(gid),
                                          static_cast<mode_t>(mode));
  if (status.ok()) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushnil(L);
  lua_pushstring(L, std::string(status.message()).c_str());
  return 2;
}

// skiff.user_can_read(path, uid, gid) -> boolean.
int LuaUserCanRead(lua_State* L) {
  const char* path = luaL_checkstring(L, 1);
  lua_Integer uid = 0, gid = 0;
  if (!NumberArgument(L, 2, 10, &uid) || uid > 0xfffffffe) {
    return luaL_argerror(L, 2, "uid: a number of 0 or more expected");
  }
  if (!NumberArgument(L, 3, 10, &gid) || gid > 0xfffffffe) {
    return luaL_argerror(L, 3, "gid: a number of 0 or more expected");
  }
  lua_pushboolean(L, UserCanReadFile(path, static_cast<uid_t>(uid), static_cast<gid_t>(gid)));
  return 1;
}

// Skiff's own helpers, apart from Slurm's `slurm` table so that a script can
// test for them (`if skiff then ... end`) and still run under Slurm.
void InstallSkiffTable(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, LuaMakeUserDir);
  lua_setfield(L, -2, "make_user_dir");
  lua_pushcfunction(L, LuaUserCanRead);
  lua_setfield(L, -2, "user_can_read");
  lua_setglobal(L, "skiff");
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

int BbLua::ProtectedCall(int nargs, const char* what, bool loading) {
  BbLuaGuard& guard = *guard_;
  guard.what = what;
  guard.where = loading ? "while ctld loads the script" : "in synchronous hooks";
  guard.timed_out = false;
  guard.memory_refused = false;
  guard.refused.clear();
  if (guard.options.time_budget.count() > 0) {
    guard.deadline = std::chrono::steady_clock::now() + guard.options.time_budget;
    // An earlier timeout left the main thread at every instruction.
    lua_sethook(L_, BudgetHook, LUA_MASKCOUNT, kBbLuaInstructionsPerCheck);
  }
  guard.enforcing = true;
  const int status = lua_pcall(L_, nargs, LUA_MULTRET, 0);
  guard.enforcing = false;
  if (status != LUA_OK && guard.memory_refused) guard.exceeded = true;
  return status;
}

absl::Status BbLua::LimitError(int status, const std::string& prefix) const {
  const BbLuaGuard& guard = *guard_;
  if (guard.timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat(prefix, guard.what, " exceeded ", guard.budget_text));
  }
  if (status != LUA_OK && guard.memory_refused) {
    return absl::ResourceExhaustedError(absl::StrCat(prefix, guard.what, " exceeded the ",
                                                     FormatBytes(guard.options.memory_limit),
                                                     " memory limit"));
  }
  if (!guard.refused.empty()) {
    // Not prefixed with `what`: the caller adds the function's name ("FUNCTION: ").
    return absl::FailedPreconditionError(
        absl::StrCat(prefix, guard.refused, " is not available ", guard.where));
  }
  return absl::OkStatus();
}

bool BbLua::exceeded_limits() const { return guard_->exceeded; }

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
