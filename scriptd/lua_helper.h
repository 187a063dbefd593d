// The Lua helper: `skiff-lua-hook --run-lua FUNCTION --script PATH [--rc-fd N]`.
//
// scriptd is a threaded gRPC server, so it never runs Lua in a forked copy of
// itself: LuaRunner execs this helper, which calls one burst_buffer.lua function
// and exits (lua/README.md, "Running asynchronous hooks"). The helper is its own
// small program, installed beside scriptd: it links Lua and none of gRPC, so a
// hook starts in a few milliseconds rather than the ~25 ms of CPU that loading
// scriptd's 60 shared libraries took (issue 48: a burst-buffer job makes nine
// such calls). Where it is missing, `scriptd --run-lua ...` is the same helper
// (scriptd's main dispatches here before it starts any thread).
//
//   stdin   the request: {"args": [...], "job_info": {...}} (ParseBbLuaRequest)
//   stdout  the hook's message, verbatim (nothing else is ever written there:
//           print(), io.write and commands the script runs go to stderr)
//   stderr  the script's log lines, `LEVEL: message` (LEVEL as
//           BbLuaLogLevelName: error, info, verbose, debug, debug2..4), one line
//           each (a message with newlines becomes several lines); anything else
//           there is output of commands the script ran
//   --rc-fd the hook's exact rc as one decimal line ("0\n", "-1\n", "7\n"),
//           written last: its absence means the helper did not finish
//   exit    kLuaHelper* below; killed by a signal on timeout or cancel
//   --as-uid/--as-gid  the job's user, for the hooks that touch its data
//           (ctld decides which: the stages whose second argument is the job
//           script). The helper loads the script with scriptd's privileges,
//           then copies the job script into a memfd the user can read (its
//           path, /proc/self/fd/N, replaces the second argument), takes the
//           user's uid, gid and groups, and only then calls the hook: what the
//           hook opens, copies or runs, it does as the user. Ignored unless the
//           helper runs as root.
//
// The helper's process group is the one scriptd made for it. When scriptd dies
// the helper gets SIGTERM (PR_SET_PDEATHSIG, set by scriptd before exec) and
// passes it on to its whole group, so `cp`/`sleep` children of the hook end too.
#ifndef SKIFF_SCRIPTD_LUA_HELPER_H_
#define SKIFF_SCRIPTD_LUA_HELPER_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "lua/bb_lua.h"
#include "lua/bb_lua_json.h"

namespace skiff::scriptd {

// Exit statuses of `scriptd --run-lua`.
inline constexpr int kLuaHelperSuccess = 0;      // slurm.SUCCESS (message may be "BUSY")
inline constexpr int kLuaHelperScriptError = 1;  // the hook returned an error rc
inline constexpr int kLuaHelperCallFailed = 2;   // Lua error, bad return values, bad request
inline constexpr int kLuaHelperLoadFailed = 3;   // script failed to load, required hook missing

struct LuaHookAnswer {
  int exit_status = kLuaHelperSuccess;
  int rc = kBbLuaSuccess;  // the hook's rc; kBbLuaError when the call itself failed
  std::string message;     // the hook's message, or what went wrong
};

// Called after the script loaded and before the hook runs; may change the
// request's arguments. An error fails the call with its message.
using BeforeHook = std::function<absl::Status(BbLuaRequest& request)>;

// Loads `script_path` and calls `function` with the request (JSON text). A
// missing slurm_bb_test_data_in/out is success with no message, as in Slurm.
// Log lines go to `logger`. In-process: for the helper's main and for tests.
LuaHookAnswer CallLuaHook(const std::string& function, const std::string& script_path,
                          std::string_view request_json, BbLuaLogger logger,
                          const BeforeHook& before_hook = nullptr);

// The user a hook runs as; uid 0 = the helper's own.
struct HookUser {
  uid_t uid = 0;
  gid_t gid = 0;
};

// The helper process: reads stdin, calls CallLuaHook, answers as above and
// returns the exit status. `rc_fd` < 0: no rc line. REQUIRES: no other thread.
int RunLuaHelper(const std::string& function, const std::string& script_path, int rc_fd,
                 HookUser user = {});

// The helper's command line (the flags above); returns its exit status.
int LuaHelperMain(int argc, char** argv);
// Whether argv asks for the helper (--run-lua): scriptd's main checks it first.
bool IsLuaHelperCall(int argc, char** argv);

// The helper program's name, and its path beside `scriptd_path` (scriptd's
// own), or "" when it is not there or not executable.
inline constexpr char kLuaHookBinaryName[] = "skiff-lua-hook";
std::string LuaHookBinaryBeside(const std::string& scriptd_path);

// "LEVEL: message\n" lines for one log message, as the helper writes them.
std::string FormatLuaLogLines(BbLuaLogLevel level, std::string_view message);

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_LUA_HELPER_H_
