#include "lua/user_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/unique_fd.h"

namespace skiff {
namespace {

absl::Status Refused(const std::string& path, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", why));
}

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(what, " ", path, ": ", strerror(errno)));
}

// A directory another user could rearrange: theirs, or open to their writes
// without the sticky bit (which keeps them from renaming entries not theirs).
absl::Status CheckTrusted(const struct stat& st, const std::string& path) {
  if (st.st_uid != 0 && st.st_uid != geteuid()) {
    return Refused(path, absl::StrCat("owned by uid ", st.st_uid,
                                      ", not root: another user could replace what is in it"));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return Refused(path, "writable by others without the sticky bit (chmod o-w or +t)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MakeUserDir(const std::string& path, uid_t uid, gid_t gid, mode_t mode) {
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an absolute path"));
  }
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  const std::string name = trimmed.substr(slash + 1);
  const std::string parent = slash == 0 ? "/" : trimmed.substr(0, slash);
  if (name.empty() || name == "." || name == "..") {
    return absl::InvalidArgumentError(absl::StrCat(path, ": names no directory to create"));
  }

  // The parent as the admin wrote it may go through links (BB_ROOT on a
  // scratch file system); its resolved form is then walked without following
  // any, so a link swapped in after this point stops the walk.
  char resolved[PATH_MAX];
  if (realpath(parent.c_str(), resolved) == nullptr) return Errno("cannot resolve", parent);

  // Every directory from / down to the parent is checked: a user able to
  // rearrange any of them could put another directory where this one goes.
  struct stat st;
  UniqueFd dir(open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC));
  if (dir.get() < 0 || fstat(dir.get(), &st) != 0) return Errno("cannot open", "/");
  if (absl::Status s = CheckTrusted(st, "/"); !s.ok()) return s;
  std::string walked;
  for (absl::string_view component : absl::StrSplit(resolved, '/', absl::SkipEmpty())) {
    walked = absl::StrCat(walked, "/", component);
    UniqueFd next(openat(dir.get(), std::string(component).c_str(),
                         O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) return Errno("cannot open", walked);
    if (fstat(next.get(), &st) != 0) return Errno("cannot stat", walked);
    if (absl::Status s = CheckTrusted(st, walked); !s.ok()) return s;
    dir = std::move(next);
  }

  if (mkdirat(dir.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno("cannot create", path);
  }
  UniqueFd target(openat(dir.get(), name.c_str(), O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (target.get() < 0) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return Refused(path, "is a symbolic link or not a directory; refusing to use it");
    }
    return Errno("cannot open", path);
  }
  if (fstat(target.get(), &st) != 0) return Errno("cannot stat", path);
  if (st.st_uid != geteuid() && st.st_uid != uid) {
    return Refused(path, absl::StrCat("exists and belongs to uid ", st.st_uid,
                                      "; refusing to give it to uid ", uid));
  }
  if (geteuid() == 0 && fchown(target.get(), uid, gid) != 0) {
    return Errno(absl::StrCat("cannot give to uid ", uid, ":"), path);
  }
  if (fchmod(target.get(), mode) != 0) return Errno("cannot chmod", path);
  return absl::OkStatus();
}

}  // namespace skiff
