// MakeUserDir: create a directory and hand it to a user, as root, without
// following anything a user could have planted.
//
// burst_buffer.lua's setup hook runs as root and makes each job a private
// directory under a shared root (BB_ROOT/job_<id>). Done with `mkdir -p DIR &&
// chmod 700 DIR && chown UID DIR`, a user who names a symbolic link after their
// next job id gets root to chmod and chown whatever the link points at.
// MakeUserDir does the same work on file descriptors: every directory on the
// way is opened without following links and checked, the new directory is
// opened the same way, and its owner and mode are changed through that
// descriptor, so nothing a user renames or plants between the steps is reached.
//
// Scripts reach it as skiff.make_user_dir (bb_lua.h). Thread-safe: no state.
#ifndef SKIFF_LUA_USER_DIR_H_
#define SKIFF_LUA_USER_DIR_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"

namespace skiff {

// Creates `path` (absolute; its parent must exist) if missing, then makes it
// owned by uid:gid (when running as root) with permissions `mode`.
//
// Refused (FailedPrecondition, the message names the path and why), changing
// nothing:
//   - a directory on the way (the parent included) that is not owned by root
//     or by this process's user, or that others may write without the sticky
//     bit (either lets another user swap what the path leads to);
//   - `path` exists and is a symbolic link or not a directory;
//   - `path` exists and belongs to someone other than this process's user or
//     `uid` (someone else's directory is never given away).
// An existing directory of this process's user or of `uid` is reused, so a
// retried setup succeeds. InvalidArgument for a relative path or one ending in
// "." or "..".
absl::Status MakeUserDir(const std::string& path, uid_t uid, gid_t gid, mode_t mode);

}  // namespace skiff

#endif  // SKIFF_LUA_USER_DIR_H_
