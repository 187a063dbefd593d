#include "noded/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

// errno is read first thing, before building the message can change it.
template <typename... Pieces>
absl::Status ErrnoError(const Pieces&... what) {
  const int err = errno;
  std::string message = absl::StrCat(what..., ": ", strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

absl::Status WriteAll(int fd, const std::string& content, const std::string& path) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot write ", path);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open ", path);
  std::string content;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      errno = err;
      return ErrnoError("cannot read ", path);
    }
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return content;
}

namespace {

// rename(tmp, path), without what a plain rename costs on ext4 when `path`
// exists: replacing a file makes ext4 (auto_da_alloc) send the new file's data
// to the disk at once, ~80 us of CPU here, and the shepherd rewrites its pids
// file for every job. Exchanging the two names and unlinking the old file gives
// readers the same view (the whole old file or the whole new one) without it.
// Filesystems without renameat2's flags get the plain rename.
absl::Status ReplaceWith(const std::string& tmp, const std::string& path) {
  if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  if (errno == EEXIST &&
      renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    unlink(tmp.c_str());  // the old content, now under the temporary name
    return absl::OkStatus();
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return ErrnoError("cannot rename ", tmp, " to ", path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, const std::string& content, mode_t mode) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("cannot create ", tmp);
  // No fsync: the rename makes the write atomic for readers and survives the
  // death of any process (the page cache outlives it), which is the crash Skiff
  // guards against here; an fsync per job cost more than the job itself.
  absl::Status s = WriteAll(fd, content, tmp);
  close(fd);
  if (s.ok()) s = ReplaceWith(tmp, path);
  if (!s.ok()) unlink(tmp.c_str());
  return s;
}

absl::Status WriteNewFile(const std::string& path, const std::string& content, mode_t mode,
                          uid_t owner_uid, gid_t owner_gid) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("cannot create ", path);
  absl::Status s = WriteAll(fd, content, path);
  if (s.ok() && owner_uid != static_cast<uid_t>(-1) && fchown(fd, owner_uid, owner_gid) != 0) {
    s = ErrnoError("cannot chown ", path, " to ", owner_uid, ":", owner_gid);
  }
  if (s.ok() && fchmod(fd, mode) != 0) {
    s = ErrnoError("cannot chmod ", path);
  }
  close(fd);
  return s;
}

absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return ErrnoError("cannot open directory ", dir);
  std::vector<std::string> names;
  while (struct dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  closedir(d);
  return names;
}

absl::Status RemoveJobDir(const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir);
  if (!names.ok()) return absl::IsNotFound(names.status()) ? absl::OkStatus() : names.status();
  for (const std::string& name : *names) {
    const std::string path = absl::StrCat(dir, "/", name);
    if (unlink(path.c_str()) != 0 && errno != ENOENT) {
      return ErrnoError("cannot remove ", path);
    }
  }
  if (rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    return ErrnoError("cannot remove ", dir);
  }
  return absl::OkStatus();
}

std::string ReadProcCmdline(pid_t pid) {
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat("/proc/", pid, "/cmdline"));
  return text.ok() ? *text : std::string();
}

}  // namespace skiff::noded
