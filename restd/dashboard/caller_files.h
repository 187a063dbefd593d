// Opening a file as a given user from restd, which runs as root (issue 36):
// the job-output tail must read a job's output only where its caller could
// read it themselves. On Linux a thread's credentials are its own; glibc's
// setuid/setgroups wrappers change every thread's (they signal each one), so
// this uses the raw per-thread syscalls setfsuid, setfsgid and setgroups on
// the calling thread only, opens the file, and switches back before the
// descriptor is read. restd's other threads keep root's identity throughout.
//
// Thread-safe: each call changes only its own thread's identity, and
// restores it before returning.
#ifndef SKIFF_RESTD_DASHBOARD_CALLER_FILES_H_
#define SKIFF_RESTD_DASHBOARD_CALLER_FILES_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::restd {

// The identity a file is opened with.
struct FileIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups
};

// `uid`'s identity: its primary group `gid` and the groups the system lists
// for its user name (getgrouplist). NotFound when the uid has no user.
absl::StatusOr<FileIdentity> IdentityOf(uid_t uid, gid_t gid);

// Opens `path` read-only as `who`, on this thread only. The descriptor is
// the caller's to close. Refuses what is not a regular file (a FIFO or a
// device would block or say nothing of a job's output). NotFound for a
// missing file, PermissionDenied where `who` may not read it; Internal when
// this thread's identity cannot be switched (restd not running as root).
absl::StatusOr<int> OpenAs(const FileIdentity& who, const std::string& path);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DASHBOARD_CALLER_FILES_H_
