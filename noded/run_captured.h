// Runs a short helper program from the threaded noded and captures what it
// prints: HealthCheckProgram, a user's login environment (--get-user-env).
// Forks and execs at once (the child calls only async-signal-safe functions).
#ifndef SKIFF_NODED_RUN_CAPTURED_H_
#define SKIFF_NODED_RUN_CAPTURED_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace skiff::noded {

struct CapturedRun {
  bool ok = false;     // exited 0 in time
  std::string output;  // stdout and stderr together, at most about 1 MiB
  int exit_code = 0;   // 128 + signal when killed
  bool timed_out = false;
};

// Who runs it, when not the caller (the caller must be root).
struct RunIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};

struct RunSetup {
  std::vector<std::string> environment;  // "NAME=value"; empty: a minimal PATH only
  std::optional<RunIdentity> as;
  std::string work_dir;  // empty: the caller's
};

// Runs argv[0] (an absolute path) with argv, stdin /dev/null, in its own
// process group, killed with that group after `timeout`. `what` names it in
// error texts.
CapturedRun RunCaptured(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        const std::string& what, const RunSetup& setup = {});

}  // namespace skiff::noded

#endif  // SKIFF_NODED_RUN_CAPTURED_H_
