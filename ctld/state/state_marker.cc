#include "ctld/state/state_marker.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

std::string PathIn(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, "/", name);
}

absl::Status ErrnoStatus(const std::string& what, const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(what, " ", path, ": ", strerror(errno)));
}

}  // namespace

absl::Status CheckStateNotLost(const std::string& state_dir) {
  const std::string marker = PathIn(state_dir, kStateMarkerName);
  if (access(marker.c_str(), F_OK) != 0) return absl::OkStatus();
  const std::string db = PathIn(state_dir, kStateDatabaseName);
  struct stat st;
  std::string what;
  if (stat(db.c_str(), &st) != 0) {
    if (errno != ENOENT) return ErrnoStatus("cannot stat", db);
    what = "is missing";
  } else if (st.st_size == 0) {
    what = "is empty";
  } else {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      db, " ", what, ", but ", marker,
      " says this controller has stored its jobs there before: starting would lose every job "
      "and reuse job ids. Restore ctld.db (with its -wal file) from a backup, or start once "
      "with `ctld -c` to begin with no jobs (Slurm's slurmctld -c)"));
}

absl::StatusOr<std::string> ClearState(const std::string& state_dir, int64_t now) {
  const std::string db = PathIn(state_dir, kStateDatabaseName);
  const std::string aside = absl::StrCat(db, ".cleared-", now);
  std::string moved;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string from = db + suffix;
    const std::string to = aside + suffix;
    if (rename(from.c_str(), to.c_str()) != 0) {
      if (errno == ENOENT) continue;
      return ErrnoStatus(absl::StrCat("cannot move aside (to ", to, ")"), from);
    }
    if (suffix[0] == '\0') moved = aside;
  }
  return moved;
}

absl::Status MarkStateKept(const std::string& state_dir) {
  const std::string marker = PathIn(state_dir, kStateMarkerName);
  if (access(marker.c_str(), F_OK) == 0) return absl::OkStatus();
  const int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EEXIST ? absl::OkStatus() : ErrnoStatus("cannot create", marker);
  const std::string text =
      "This directory holds a Skiff controller's state (ctld.db). ctld refuses to start\n"
      "when ctld.db is missing or empty while this file exists; `ctld -c` starts afresh.\n";
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = errno;
  close(fd);
  if (!written) {
    errno = err;
    return ErrnoStatus("cannot write", marker);
  }
  return absl::OkStatus();
}

}  // namespace skiff::ctld
