// Process plumbing shared by the three daemons' mains.
#ifndef SKIFF_COMMON_DAEMON_H_
#define SKIFF_COMMON_DAEMON_H_

#include <signal.h>

#include <string>

#include "absl/status/status.h"

namespace skiff {

// Blocks SIGTERM, SIGINT, SIGHUP and SIGCHLD in the calling thread; call before
// starting any thread so that every thread inherits the mask and the main thread
// alone receives them through WaitForSignal.
void BlockDaemonSignals();

// Waits for one of the blocked signals and returns its number.
int WaitForSignal();
// The same for at most `timeout_ms`: 0 when none came.
int WaitForSignalFor(int timeout_ms);

// mkdir -p with `mode` for the directories it creates.
absl::Status MakeDirs(const std::string& path, mode_t mode = 0755);

// Writes getpid() to `path` (no-op for an empty path).
absl::Status WritePidFile(const std::string& path);

// Replaces every "%n" in `pattern` with `node_name` (SlurmdLogFile and friends).
std::string SubstituteNodeName(const std::string& pattern, const std::string& node_name);

}  // namespace skiff

#endif  // SKIFF_COMMON_DAEMON_H_
