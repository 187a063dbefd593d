// Runs one burst_buffer.lua function in a fresh helper process: the RunLua side of
// scriptd (lua/README.md, "Running asynchronous hooks").
//
// Each Run() execs the scriptd binary with --run-lua (see lua_helper.h) through
// the ScriptRunner, so Lua calls share its table of running requests:
// ScriptRunner::Kill(request_id) and KillJob(job_id) end them like scripts. The
// helper runs in its own process group with scriptd's environment and privileges;
// a timeout, Kill() or KillJob() sends SIGTERM to the group and SIGKILL after
// `kill_grace`; whatever the hook left in its group is killed when it returns;
// the helper gets SIGTERM if scriptd dies. Its log lines are forwarded to
// scriptd's log as "JobId=N slurm_bb_data_in: message".
//
// Threads: Run() blocks until the helper has ended; any number at once.
// Ownership: the runner and logger are borrowed and must outlive this.
#ifndef SKIFF_SCRIPTD_LUA_RUNNER_H_
#define SKIFF_SCRIPTD_LUA_RUNNER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scriptd/script_runner.h"
#include "spdlog/spdlog.h"

namespace skiff::scriptd {

struct LuaCall {
  std::string request_id;   // unique among running requests (scripts included)
  uint64_t job_id = 0;      // for logs and KillJob; 0 = none
  std::string script_path;  // burst_buffer.lua
  std::string function;     // one of kBbRequiredFunctions / kBbOptionalFunctions
  std::vector<std::string> args;
  std::string job_info_json;    // BbJobInfoToJson; "" = the hook takes none
  int64_t timeout_seconds = 0;  // 0 = none
  // The hook runs as this user (lua_helper.h, --as-uid); 0 = scriptd's own.
  uid_t run_as_uid = 0;
  gid_t run_as_gid = 0;
};

struct LuaCallResult {
  // The hook's rc (0 = slurm.SUCCESS, else its exact error rc), or -1 when the
  // call failed: Lua error, bad return values, load failure, timeout, kill.
  int rc = 0;
  std::string message;  // the hook's message, or what went wrong (UTF-8)
  bool timed_out = false;
  bool killed = false;  // by Kill() / KillJob()
  pid_t pid = 0;        // the helper's pid
};

class LuaRunner {
 public:
  struct Options {
    std::string helper_path = "/proc/self/exe";      // the scriptd binary
    std::string helper_argv0 = "scriptd";            // what ps shows
    std::map<std::string, std::string> environment;  // the helper's (scriptd's own)
    absl::Duration kill_grace = absl::Seconds(2);    // SIGTERM .. SIGKILL
  };

  LuaRunner(ScriptRunner& runner, spdlog::logger& logger, Options options);

  // InvalidArgument for an unknown function, a relative script_path, an empty request_id,
  // a malformed job_info_json or a negative timeout; otherwise ScriptRunner::Run's
  // errors (AlreadyExists, Unavailable). A hook that fails is an OK result.
  absl::StatusOr<LuaCallResult> Run(const LuaCall& call);

 private:
  void ForwardLogLine(const LuaCall& call, std::string_view line);

  ScriptRunner& runner_;
  spdlog::logger& logger_;
  const Options options_;
};

// The calling process's environment as a map (call before threads start).
std::map<std::string, std::string> CurrentEnvironment();

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_LUA_RUNNER_H_
