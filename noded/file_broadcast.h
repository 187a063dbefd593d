// sbcast's copy of a file on one node (noded's BroadcastFile), written as the
// job's user: a forked child that has taken the user's uid, gid and groups
// opens (creates or truncates) the file and hands noded the descriptor, so the
// user can write only where they could write anyway; noded then writes the
// bytes through it, and a second such child sets the mode and times at the end.
// Nothing is done to the path as root.
//
// The children call only async-signal-safe functions between fork and _exit
// (setgroups, setgid, setresuid, open, mkdir, sendmsg, fchmod, futimens), as
// noded is threaded: the user's groups are resolved before (GroupsOfUser).
//
// A BroadcastCopy belongs to the one thread that serves its call; it is not
// thread-safe. Functions here are safe to call from any thread.
#ifndef SKIFF_NODED_FILE_BROADCAST_H_
#define SKIFF_NODED_FILE_BROADCAST_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::noded {

// Whose file it is.
struct FileOwner {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary, resolved before any fork
};

// What went wrong with one node's copy, as Slurm's slurmd answers sbcast: an
// errno (error_number) and its text, or error_number -1 and a sentence.
struct CopyError {
  int error_number = 0;
  std::string text;
};

// Pure: why `path` cannot be a destination (Slurm's sbcast resolves relative
// names before sending, and refuses a directory), or "" when it can.
std::string BadDestination(const std::string& path);

// The times -p keeps.
struct FileTimes {
  int64_t atime = 0;
  int64_t mtime = 0;
};

class BroadcastCopy {
 public:
  // Opens `path` for writing as `owner`: created with mode 0700 (O_EXCL) or,
  // with `force`, replaced (O_TRUNC). With `make_libs_dir` also creates the
  // directory path + "_libs" (0700) for --send-libs (an existing one is
  // accepted only with `force`). nullptr with `error` set when it cannot.
  static std::unique_ptr<BroadcastCopy> Open(const FileOwner& owner, const std::string& path,
                                             bool force, bool make_libs_dir, CopyError* error);
  ~BroadcastCopy();
  BroadcastCopy(const BroadcastCopy&) = delete;
  BroadcastCopy& operator=(const BroadcastCopy&) = delete;

  // Appends `data`. False with `error` set on a failed write (ENOSPC...).
  bool Write(std::string_view data, CopyError* error);
  uint64_t written() const { return written_; }

  // The end of the file: as the owner, the mode becomes `mode & 0777` (as
  // Slurm's slurmd does with every copy) and, with `times`, the atime and
  // mtime those (-p); then the file is closed. A mode or times that cannot be
  // set are an error only with `times` (-p asked for them); a failed close is.
  bool Finish(uint32_t mode, const std::optional<FileTimes>& times, CopyError* error);

 private:
  BroadcastCopy(FileOwner owner, std::string path, int fd);

  const FileOwner owner_;
  const std::string path_;
  int fd_ = -1;
  uint64_t written_ = 0;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_FILE_BROADCAST_H_
