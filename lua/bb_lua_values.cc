// Values between C++ and Lua: slurm.to_json and slurm.from_json's conversion
// of Lua values to and from JSON, and the read-only job_info table.
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "lua/bb_lua_internal.h"

namespace skiff {
namespace bb_lua_internal {
namespace {

constexpr int kMaxJsonDepth = 200;

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace bb_lua_internal
}  // namespace skiff
