// Starts shepherd processes from noded, a multi-threaded daemon: argv is built
// before fork, and the child calls only async-signal-safe functions before exec.
#ifndef SKIFF_NODED_SHEPHERD_LAUNCHER_H_
#define SKIFF_NODED_SHEPHERD_LAUNCHER_H_

#include <sys/types.h>

#include <chrono>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::noded {

// The shepherd binary: `flag_value` when set, else $SKIFF_SHEPHERD, else
// "shepherd" next to the running executable or in ../noded/ (bazel-bin layout).
std::string FindShepherdBinary(const std::string& flag_value);

struct StartedShepherd {
  pid_t pid = 0;
  // False when the shepherd did not say it was ready within the timeout, or died
  // first; it is noded's child either way, and its end shows in the job dir.
  bool ready = false;
};

// Fork+execs `binary` for `job_dir` (see shepherd_protocol.h) and waits up to
// `timeout` for it to be ready. The caller owns the child and must waitpid it.
// Errors (nothing left running): fork failed, or exec of `binary` failed (the
// message names the binary and the errno text).
absl::StatusOr<StartedShepherd> StartShepherd(const std::string& binary, const std::string& job_dir,
                                              std::chrono::milliseconds timeout);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_SHEPHERD_LAUNCHER_H_
