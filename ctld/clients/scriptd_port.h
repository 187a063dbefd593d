// ctld's port to scriptd, as plain data: the scripts and burst_buffer.lua calls
// the Controller and the burst-buffer stages ask for, and how they ended.
// ScriptdClient (scriptd_client.h) is the real port over scriptd's socket, the
// one place that knows scriptd's wire messages; tests fake the port.
#ifndef SKIFF_CTLD_CLIENTS_SCRIPTD_PORT_H_
#define SKIFF_CTLD_CLIENTS_SCRIPTD_PORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::ctld {

// A program scriptd runs: PrologSlurmctld/EpilogSlurmctld, MailProg, a
// trigger's program.
struct ScriptCall {
  std::string request_id;         // unique per ctld ("prolog-42"); KillScript names it
  std::string path;               // the executable
  std::vector<std::string> argv;  // the arguments after the path
  std::map<std::string, std::string> environment;  // complete
  int64_t timeout_seconds = 0;                     // SIGKILL the process group after this; 0 = none
  std::string work_dir;                            // "" = /
  uint64_t job_id = 0;                             // whose calls FlushJob kills; 0 = nobody's
  uint32_t uid = 0;                                // run as this user; 0 = scriptd's own
  uint32_t gid = 0;
  std::string stdin_data;  // written to the child's stdin, then closed
  // At most once to its end: asked again with the request_id of a script that
  // ended (its answer lost to a crash), scriptd answers the recorded result.
  bool run_once = false;
};

// How a ScriptCall ended.
struct ScriptEnd {
  int exit_code = 0;
  int signal = 0;  // when a signal ended it
  bool timed_out = false;
  bool killed = false;      // by KillScript or FlushJob
  std::string output_tail;  // the last 4 KiB of stdout and stderr
  int64_t pid = 0;
  std::string error;  // could not start: why

  bool Succeeded() const { return error.empty() && !timed_out && signal == 0 && exit_code == 0; }
};

// One asynchronous burst_buffer.lua hook, run in a scriptd helper.
struct LuaCall {
  std::string request_id;  // unique per ctld ("bb-slurm_bb_data_in-42-0")
  uint64_t job_id = 0;     // whose calls FlushJob kills; 0 = nobody's (get_status)
  std::string script_path;
  std::string function;           // "slurm_bb_data_in"
  std::vector<std::string> args;  // as strings, in Slurm 24.05's order
  std::string job_info_json;      // the job_info table; "" = none
  int64_t timeout_seconds = 0;    // SIGTERM then SIGKILL after this; 0 = none
  // The hook runs as this user (0 = scriptd's own): the stages that touch the
  // job's data.
  uint32_t run_as_uid = 0;
  uint32_t run_as_gid = 0;
};

// How a LuaCall ended: rc 0 is slurm.SUCCESS; -1 the call itself failed.
struct LuaEnd {
  int rc = 0;
  std::string message;  // the hook's message, or what went wrong
  bool timed_out = false;
  bool killed = false;  // by KillScript or FlushJob
  int64_t pid = 0;
};

class ScriptdPort {
 public:
  virtual ~ScriptdPort() = default;
  // Blocks until the script ended. Unavailable when scriptd stayed away.
  virtual absl::StatusOr<ScriptEnd> RunScript(const ScriptCall& call) = 0;
  virtual void KillScript(const std::string& request_id) = 0;

  // Blocks until the hook returned. KillScript with its request_id cancels it.
  // The default is for fakes that run no Lua.
  virtual absl::StatusOr<LuaEnd> RunLua(const LuaCall& call) {
    return absl::UnimplementedError("this ScriptdPort cannot run burst_buffer.lua");
  }

  // Kills every script and Lua call running for the job (scancel, teardown);
  // returns how many were running. The default does nothing.
  virtual absl::StatusOr<int> FlushJob(uint64_t job_id) { return 0; }
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CLIENTS_SCRIPTD_PORT_H_
