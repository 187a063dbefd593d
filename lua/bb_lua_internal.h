// What BbLua's files (bb_lua.h) share: the per-state guard the limits keep,
// and the functions that bound a state and install what a script sees.
// Internal to //lua:bb_lua.
#ifndef SKIFF_LUA_BB_LUA_INTERNAL_H_
#define SKIFF_LUA_BB_LUA_INTERNAL_H_

#include <chrono>
#include <cstddef>
#include <lua5.4/lua.hpp>
#include <string>

#include "lua/bb_lua.h"

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

namespace bb_lua_internal {

// bb_lua_bounds.cc: the time budget, the memory limit and restricted mode.
std::string FormatBudget(std::chrono::milliseconds budget);
void* GuardedAlloc(void* ud, void* ptr, size_t osize, size_t nsize);
void BudgetHook(lua_State* L, lua_Debug* ar);
int LuaXpcallBudgeted(lua_State* L);
void Replace(lua_State* L, const char* table_name, const char* field, lua_CFunction wrapper);
void Restrict(lua_State* L);

// bb_lua_api.cc: the `slurm` and `skiff` tables and print.
void InstallSlurmTable(lua_State* L, BbLuaLogger* logger);
void InstallSkiffTable(lua_State* L);

// bb_lua_values.cc: values between C++ and Lua.
int LuaToJson(lua_State* L);    // slurm.to_json
int LuaFromJson(lua_State* L);  // slurm.from_json
void PushJobInfo(lua_State* L, const BbJobInfo& info);

}  // namespace bb_lua_internal
}  // namespace skiff

#endif  // SKIFF_LUA_BB_LUA_INTERNAL_H_
