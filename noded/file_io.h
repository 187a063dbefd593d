// Small file helpers for the job directory, shared by noded and the shepherd.
// No threads, no globals; safe to call from either process (not between fork
// and exec).
#ifndef SKIFF_NODED_FILE_IO_H_
#define SKIFF_NODED_FILE_IO_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::noded {

// The whole file. NotFound when it does not exist; other errors name the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes `content` to `path`.tmp with `mode` and puts it in place of `path`, so
// that readers see the old file or the whole new one. No fsync: it survives
// the death of any process, not of the machine (see file_io.cc).
absl::Status WriteFileAtomically(const std::string& path, const std::string& content, mode_t mode);

// Creates `path` (which must not exist) with `mode` exactly (umask ignored),
// writes `content`, and when `owner_uid` is not -1 gives it to owner_uid:owner_gid.
absl::Status WriteNewFile(const std::string& path, const std::string& content, mode_t mode,
                          uid_t owner_uid = static_cast<uid_t>(-1),
                          gid_t owner_gid = static_cast<gid_t>(-1));

// Removes the plain files in `dir` and then `dir` itself (a job directory holds
// no subdirectories). OK when `dir` does not exist.
absl::Status RemoveJobDir(const std::string& dir);

// The names in `dir`, without "." and "..".
absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir);

// The NUL-separated argv of a live process from /proc/<pid>/cmdline; empty for
// a zombie or a process that does not exist.
std::string ReadProcCmdline(pid_t pid);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_FILE_IO_H_
