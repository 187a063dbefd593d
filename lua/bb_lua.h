// BbLua: one loaded burst_buffer.lua and the calls Slurm's burst_buffer/lua
// plugin makes into it.
//
// Each BbLua owns one lua_State. It is NOT thread-safe: use one per thread (or a
// small pool handing out instances), never share one between threads. ctld calls
// only the fast synchronous hooks (slurm_bb_job_process, slurm_bb_pools,
// slurm_bb_paths) through it, and never under its state lock; the asynchronous
// hooks run in a helper process that scriptd execs (see README.md), which
// uses this same class for its single call.
//
// ctld's states are built with BbLuaOptions::InCtld(): the script runs inside
// ctld's process, so each call (and the top level at load) has a time budget
// and a memory limit, and what could end, fork or block the process (os.exit,
// os.execute, io.popen, reading stdin, ...) fails the call instead. Those are
// guards against accidents, not a sandbox: the script is the admin's. The
// helper keeps the defaults (full Lua, no limits; scriptd times it out).
//
// What the script sees (Slurm's API; see the seed guide):
//   slurm.SUCCESS = 0, slurm.ERROR = slurm.FAILURE = -1, slurm.SLURM_BB_BUSY = "BUSY"
//   slurm.log_error/log_info/log_verbose/log_debug/log_debug2/log_debug3/log_debug4
//     (fmt, ...) printf-style through string.format, into the injected logger
//   slurm.log([level,] msg)  level 0 info, 1 verbose, 2 debug, 3 debug2, 4 debug3,
//     5+ debug4 (Slurm's numbering); slurm.error(msg)
//   slurm.time_str2mins(str)  Slurm's time limit text -> minutes (rounded up);
//     -1 for UNLIMITED and -2 for invalid text, which is what Slurm's int
//     INFINITE / NO_VAL read as in Lua
//   slurm.to_json(value) -> string | nil, err;  slurm.from_json(str) -> value | nil, err
// and Skiff's own, in a table of its own so a script can test for it:
//   skiff.make_user_dir(path, uid, gid [, mode]) -> true | nil, err: MakeUserDir
//     (user_dir.h), a job directory made and handed over without following links
//   skiff.user_can_read(path, uid, gid) -> boolean: UserCanReadFile
//     (user_access.h), a regular file the user may read, decided without opening it
//   print(...) goes to the logger at info level: the exec'd helper answers on
//     stdout, so a stray print must not reach it.
// Arguments are passed as strings, as Slurm does (job_id "42", hurry
// "true"/"false", bb_size in bytes), with the Slurm 24.05 argument lists, whose
// leading arguments are Slurm 22.05's so older scripts run unchanged (Lua
// ignores extra arguments). job_info is a fresh read-only table per call.
#ifndef SKIFF_LUA_BB_LUA_H_
#define SKIFF_LUA_BB_LUA_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

struct lua_State;

namespace skiff {

struct BbLuaGuard;  // bb_lua_internal.h: the limits' per-state bookkeeping

// The 11 hooks Slurm 22.05 requires; loading fails naming any that is missing.
inline constexpr const char* kBbRequiredFunctions[] = {
    "slurm_bb_job_process", "slurm_bb_pools",     "slurm_bb_job_teardown", "slurm_bb_setup",
    "slurm_bb_data_in",     "slurm_bb_real_size", "slurm_bb_paths",        "slurm_bb_pre_run",
    "slurm_bb_post_run",    "slurm_bb_data_out",  "slurm_bb_get_status"};
// Added in Slurm 24.05. When absent, the stage counts as done at once.
inline constexpr const char* kBbOptionalFunctions[] = {"slurm_bb_test_data_in",
                                                       "slurm_bb_test_data_out"};

inline constexpr int kBbLuaSuccess = 0;
inline constexpr int kBbLuaError = -1;
inline constexpr char kBbLuaBusy[] = "BUSY";

enum class BbLuaLogLevel { kError, kInfo, kVerbose, kDebug, kDebug2, kDebug3, kDebug4 };
const char* BbLuaLogLevelName(BbLuaLogLevel level);

// Receives the script's log lines. Called on the thread that calls into BbLua.
using BbLuaLogger = std::function<void(BbLuaLogLevel level, std::string_view message)>;

// The job as burst_buffer.lua's job_info table shows it (field names are the
// table's keys). Numbers are Lua integers, the rest strings.
struct BbJobInfo {
  uint32_t job_id = 0;
  uint32_t user_id = 0;
  uint32_t group_id = 0;
  std::string user_name;
  std::string account;
  std::string partition;
  std::string qos;
  int64_t time_limit = 0;  // minutes; -1 for UNLIMITED
  std::string nodes;       // allocated node list, "" while pending
  std::string work_dir;
  std::string burst_buffer;              // the directive lines, '\n' separated
  std::string burst_buffer_state;        // "pending", "staging-in", ...
  std::string job_state;                 // "PENDING", "RUNNING", ...
  uint32_t array_job_id = 0;             // 0 for a plain job
  uint32_t array_task_id = 4294967294u;  // Slurm's NO_VAL for a plain job
  std::string gres_total;                // e.g. "gres/gpu=2", "" without gres
};

// Limits for a state that runs inside ctld (see the top of this file). The
// defaults are the helper's: full Lua, no limits.
struct BbLuaOptions {
  // os.exit, os.execute, io.popen, os.setlocale, io.read, io.input, io.lines()
  // without a file name, debug.sethook, debug.debug and metatables with __gc
  // (Lua runs finalizers with hooks off, beyond the budget's reach) fail the
  // call naming themselves, and io.stdin is nil; load, loadfile and dofile
  // accept text chunks only (a malformed binary chunk can crash the Lua VM),
  // and loadfile/dofile need a file name (without one they read stdin). Files
  // stay open to the script (io.open, io.lines(name), os.remove, os.rename):
  // Slurm's scripts read and write them.
  bool restricted = false;
  // How long one Call (or the top level, at load) may run, checked every
  // kBbLuaInstructionsPerCheck Lua instructions against a monotonic clock.
  // Zero: unlimited. Time spent inside one C function (a system call that
  // blocks, one huge string.rep) is not interrupted; it is counted.
  std::chrono::milliseconds time_budget{0};
  // Most bytes the state may hold while script code runs; an allocation past
  // it fails as "not enough memory" would. Zero: unlimited.
  size_t memory_limit = 0;

  // ctld's in-process states: restricted, 5 s, 256 MiB.
  static BbLuaOptions InCtld();
};

inline constexpr std::chrono::milliseconds kBbSyncTimeBudget{5000};
inline constexpr size_t kBbSyncMemoryLimit = size_t{256} << 20;
// Cheap enough not to show (one clock read per thousand instructions) and
// fine enough to stop a loop within microseconds of its deadline.
inline constexpr int kBbLuaInstructionsPerCheck = 1000;

// What a hook returned: rc (slurm.SUCCESS or an error number) and the optional
// message. No return value at all is success with no message.
struct BbLuaResult {
  int rc = kBbLuaSuccess;
  std::string message;

  bool ok() const { return rc == kBbLuaSuccess; }
  // slurm_bb_test_data_in/out: still working, poll again.
  bool busy() const { return ok() && message == kBbLuaBusy; }
};

class BbLua {
 public:
  // Opens the Lua standard libraries, installs `slurm` and runs the script's
  // top level, within `options`. Errors (messages start "burst_buffer.lua: "):
  // NotFound (no such file), InvalidArgument (syntax error or an error raised
  // while running the top level, with Lua's message), FailedPrecondition
  // naming every missing required function or a refused function the top level
  // called ("os.exit is not available while ctld loads the script"),
  // DeadlineExceeded ("the script's top level exceeded 5 s"),
  // ResourceExhausted (over options.memory_limit).
  static absl::StatusOr<std::unique_ptr<BbLua>> Load(const std::string& script_path,
                                                     BbLuaLogger logger,
                                                     const BbLuaOptions& options = {});

  // Same, from text (`chunk_name` appears in Lua's error messages). For tests
  // and for a helper that received the script over a pipe.
  static absl::StatusOr<std::unique_ptr<BbLua>> LoadString(std::string_view script,
                                                           const std::string& chunk_name,
                                                           BbLuaLogger logger,
                                                           const BbLuaOptions& options = {});

  ~BbLua();
  BbLua(const BbLua&) = delete;
  BbLua& operator=(const BbLua&) = delete;

  // Whether the script defines `name` as a function (a raw read of the global,
  // so a metatable on _G, such as strict.lua's, runs no code here).
  bool HasFunction(const std::string& name) const;

  // True once a call ran past its time budget or memory limit: the script's
  // globals may hold half-done work, so a pool should drop this state.
  bool exceeded_limits() const;

  // Calls `function` with `args` as strings, then `job_info` (if given) as a
  // read-only table. Errors (the Lua message or what is wrong, prefixed with
  // the function's name): NotFound when the function is not defined,
  // Internal when it raised a Lua error, InvalidArgument when it returned a
  // non-numeric rc or a non-string message. A returned error rc is NOT an error
  // here: it is a result for the caller to act on.
  // Under BbLuaOptions limits the call also fails, even when the script caught
  // the Lua error with pcall: DeadlineExceeded "FUNCTION exceeded 5 s",
  // ResourceExhausted "FUNCTION exceeded the 256 MiB memory limit",
  // FailedPrecondition "FUNCTION: os.exit is not available in synchronous
  // hooks" (the first refused function it called).
  absl::StatusOr<BbLuaResult> Call(const std::string& function,
                                   const std::vector<std::string>& args,
                                   const BbJobInfo* job_info = nullptr);

  // The hooks with Slurm 24.05's argument lists.
  absl::StatusOr<BbLuaResult> JobProcess(const std::string& job_script, uint32_t uid, uint32_t gid,
                                         const BbJobInfo& job_info);
  absl::StatusOr<BbLuaResult> Pools();  // message: the pools JSON (may be empty)
  absl::StatusOr<BbLuaResult> Paths(uint32_t job_id, const std::string& job_script,
                                    const std::string& path_file, uint32_t uid, uint32_t gid,
                                    const BbJobInfo& job_info);
  absl::StatusOr<BbLuaResult> Setup(uint32_t job_id, uint32_t uid, uint32_t gid,
                                    const std::string& pool, uint64_t bb_size,
                                    const std::string& job_script, const BbJobInfo& job_info);
  // DataIn, TestDataIn, PreRun, PostRun, DataOut, TestDataOut share
  // (job_id, job_script, uid, gid, job_info). A missing test_data_* hook
  // returns success (done) without calling anything.
  absl::StatusOr<BbLuaResult> JobStage(const std::string& function, uint32_t job_id,
                                       const std::string& job_script, uint32_t uid, uint32_t gid,
                                       const BbJobInfo& job_info);
  absl::StatusOr<BbLuaResult> RealSize(uint32_t job_id, uint32_t uid, uint32_t gid,
                                       const BbJobInfo& job_info);
  absl::StatusOr<BbLuaResult> Teardown(uint32_t job_id, const std::string& job_script, bool hurry,
                                       uint32_t uid, uint32_t gid, const BbJobInfo* job_info);
  // scontrol show bbstat ARGS...: (uid, gid, args...).
  absl::StatusOr<BbLuaResult> GetStatus(uint32_t uid, uint32_t gid,
                                        const std::vector<std::string>& words);

 private:
  BbLua(BbLuaLogger logger, const BbLuaOptions& options);
  static absl::StatusOr<std::unique_ptr<BbLua>> Create(BbLuaLogger logger,
                                                       const BbLuaOptions& options);
  static absl::StatusOr<std::unique_ptr<BbLua>> Finish(std::unique_ptr<BbLua> lua, int load_rc);
  // lua_pcall of the function and `nargs` arguments on the stack, under the
  // budget and limits; `what` names it in messages. Returns lua_pcall's status.
  int ProtectedCall(int nargs, const char* what, bool loading);
  // The error for a limit the last ProtectedCall crossed (OK when none).
  absl::Status LimitError(int status, const std::string& prefix) const;

  // Declared before L_: the allocator and the hook use it until lua_close.
  std::unique_ptr<BbLuaGuard> guard_;
  lua_State* L_ = nullptr;
  BbLuaLogger logger_;
};

}  // namespace skiff

#endif  // SKIFF_LUA_BB_LUA_H_
