// What a script sees besides Lua's own libraries: Slurm's `slurm` table
// (constants, logging, time_str2mins, JSON), Skiff's `skiff` table, and print.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/time_format.h"
#include "lua/bb_lua_internal.h"
#include "lua/user_access.h"
#include "lua/user_dir.h"

namespace skiff {
namespace bb_lua_internal {
namespace {

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

}  // namespace

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

}  // namespace bb_lua_internal
}  // namespace skiff
