// Trees and files a job's user controls (their image stage, their container's
// upper layer), touched by root only through descriptors: every open is
// O_NOFOLLOW, no walk leaves the file system it started on, every file read is
// checked to be a regular file no bigger than its cap, and trees are removed as
// their owner when there is one. A link, FIFO or device swapped in by the user
// is refused, never followed, so the user cannot make root read or delete a
// path of their choosing (issue 47).
//
// No threads, no globals. RemoveTreeAsOwner forks: safe from the threaded
// noded (the child only walks and unlinks, glibc's malloc is fork-safe).
#ifndef SKIFF_NODED_CONTAINER_USER_FILES_H_
#define SKIFF_NODED_CONTAINER_USER_FILES_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::noded {

// Opens `name` under `dir_fd` as a directory, refusing a link (O_NOFOLLOW).
// Returns the descriptor (the caller closes it).
absl::StatusOr<int> OpenDirectoryAt(int dir_fd, const std::string& name);

// The whole of `name` under `dir_fd` when it is a regular file (not a link,
// FIFO or device: opened O_NOFOLLOW | O_NONBLOCK) of at most `max_bytes`.
// Errors name `shown` (the path as a person reads it).
absl::StatusOr<std::string> ReadRegularFileAt(int dir_fd, const std::string& name,
                                              uint64_t max_bytes, const std::string& shown);

// Copies the regular file `name` under `from_dir` to a new file `name` under
// `to_dir` (mode 0600, the caller's), refusing what ReadRegularFileAt refuses
// and a file bigger than `*budget` bytes, which it then lowers by the size.
// Returns the copy's sha256 as lowercase hex.
absl::StatusOr<std::string> CopyRegularFileAt(int from_dir, const std::string& name, int to_dir,
                                              uint64_t* budget, const std::string& shown);

// Removes `name` under `dir_fd` and everything beneath it through descriptors:
// links are removed, never followed; a directory on another file system (a
// mount) is left in place and reported. Directories the caller owns are made
// writable first (a user may leave one 0555). OK when `name` does not exist.
absl::Status RemoveTreeAt(int dir_fd, const std::string& name);

// RemoveTreeAt for a path whose parent directories are root's.
absl::Status RemoveTreePath(const std::string& path);

// A tree that belongs to a user (by the owner of `path`): its contents removed
// by a child running as that owner (RemoveTreeAt), then `path`, which sits in
// root's directory, by root. What the owner could not remove (a file another
// uid made in the tree) is reported in the returned error, and root removes it
// only through descriptors (RemoveTreeAt), never by path. A root-owned `path`
// is removed by root (RemoveTreePath). OK when `path` does not exist.
// REQUIRES: the caller is root; the parent of `path` is root's.
absl::Status RemoveTreeAsOwner(const std::string& path);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_USER_FILES_H_
