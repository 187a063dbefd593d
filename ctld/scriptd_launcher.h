// Starts scriptd, the process that runs every script ctld would otherwise fork.
//
// StartScriptd must be called while ctld is still single-threaded (before gRPC,
// logging threads or anything else starts): it forks, and a fork from a threaded
// process may copy a lock held by another thread. This is the slurmscriptd idea.
//
// scriptd learns that ctld has gone away through a "lifeline" pipe: ctld holds the
// write end and never writes; when ctld exits (even by SIGKILL) the kernel closes
// it, scriptd reads EOF, kills its children and exits.
#ifndef SKIFF_CTLD_SCRIPTD_LAUNCHER_H_
#define SKIFF_CTLD_SCRIPTD_LAUNCHER_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::ctld {

struct ScriptdProcess {
  pid_t pid = -1;
  int lifeline_fd = -1;  // write end, close-on-exec; keep open for scriptd's lifetime
};

// Where the scriptd binary is: `flag_value` if set, else $SKIFF_SCRIPTD, else next
// to ctld's own executable (".../scriptd" or "../scriptd/scriptd", the Bazel layout).
std::string FindScriptdBinary(const std::string& flag_value);

// Forks and execs `binary` with `args` plus --lifeline-fd=N. The child resets the
// signal mask and dispositions ctld set up, so scriptd starts clean.
// REQUIRES: the calling process has no other thread.
absl::StatusOr<ScriptdProcess> StartScriptd(const std::string& binary,
                                            const std::vector<std::string>& args);

// The same for a running, threaded ctld whose scriptd died: posix_spawn (vfork +
// exec, no copy of ctld's locks) instead of fork. Closes `old.lifeline_fd`.
absl::StatusOr<ScriptdProcess> RespawnScriptd(const std::string& binary,
                                              const std::vector<std::string>& args,
                                              const ScriptdProcess& old);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_SCRIPTD_LAUNCHER_H_
