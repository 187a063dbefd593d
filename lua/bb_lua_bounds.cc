// The bounds of a BbLua's state (BbLuaOptions): the allocator's memory limit,
// the count hook's time budget, restricted mode's replaced functions, and the
// protected call that applies them and names the limit a call crossed.
#include <chrono>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lua/bb_lua_internal.h"

namespace skiff {
namespace bb_lua_internal {
namespace {

BbLuaGuard* GuardOf(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<BbLuaGuard*>(ud);
}

// "256 MiB", "512 KiB", "1000 bytes".
std::string FormatBytes(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return absl::StrCat(bytes >> 20, " MiB");
  if (bytes % 1024 == 0) return absl::StrCat(bytes >> 10, " KiB");
  return absl::StrCat(bytes, " bytes");
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

}  // namespace

// "5 s", "200 ms".
std::string FormatBudget(std::chrono::milliseconds budget) {
  if (budget.count() % 1000 == 0) return absl::StrCat(budget.count() / 1000, " s");
  return absl::StrCat(budget.count(), " ms");
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

// xpcall(f, msgh, ...) with msgh wrapped in LuaBudgetedHandler. Upvalue 1: xpcall.
int LuaXpcallBudgeted(lua_State* L) {
  if (lua_type(L, 2) == LUA_TFUNCTION) {  // otherwise xpcall says what is wrong
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, LuaBudgetedHandler, 1);
    lua_replace(L, 2);
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

}  // namespace bb_lua_internal

using bb_lua_internal::BudgetHook;
using bb_lua_internal::FormatBytes;

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

}  // namespace skiff
