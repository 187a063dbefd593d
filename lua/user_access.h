// UserCanReadFile: whether a user could open a path as a regular file for
// reading, decided from file modes alone, without opening anything and without
// taking the user's credentials.
//
// burst_buffer.lua's slurm_bb_job_process runs inside ctld, as root, while a
// user waits for sbatch. Checking a stage_in source there by opening it tells
// the user whether any path exists (root can see everything), and opening a
// FIFO the user planted blocks that ctld thread until someone writes to it.
// This check only stats (a FIFO or device is refused as not a regular file),
// and answers one bit whatever the reason, so it says no more than the user's
// own `test -r` would.
//
// Modes only: POSIX ACLs and capabilities are not consulted, so a file that
// an ACL opens to the user reads as unreadable here (the stage itself, run as
// the user, is the authority). Thread-safe: no state; it looks the user's
// groups up (getpwuid_r, getgrouplist).
#ifndef SKIFF_LUA_USER_ACCESS_H_
#define SKIFF_LUA_USER_ACCESS_H_

#include <sys/types.h>

#include <string>

namespace skiff {

// True when `path` (absolute) names a regular file that uid, with primary
// group gid and the supplementary groups of uid's account, may read: every
// directory on the way, as written and as resolved, lets the user search it,
// and the file's mode lets the user read. uid 0 needs only a regular file.
bool UserCanReadFile(const std::string& path, uid_t uid, gid_t gid);

}  // namespace skiff

#endif  // SKIFF_LUA_USER_ACCESS_H_
