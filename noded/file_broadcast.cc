#include "noded/file_broadcast.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

std::string ErrnoText(int error_number) {
  char buf[256];
  // GNU strerror_r: returns the text (maybe not in buf).
  return strerror_r(error_number, buf, sizeof(buf));
}

CopyError FromErrno(int error_number) { return {error_number, ErrnoText(error_number)}; }

// In the child only: passes `fd` over `sock` (async-signal-safe: sendmsg).
int SendFd(int sock, int fd) {
  char dummy = 0;
  iovec iov{&dummy, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
  return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : errno;
}

int ReceiveFd(int sock) {
  char dummy = 0;
  iovec iov{&dummy, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n != 1) return -1;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  if (cmsg == nullptr || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) return -1;
  int fd = -1;
  memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
  return fd;
}

// Runs `body(sock)` in a forked child that has taken `owner`'s groups, gid and
// uid (all three of each of its ids: it can never regain root), and returns
// what it returns (0 or an errno). `body` must call only async-signal-safe
// functions. With `fd_out`, the descriptor `body` sent over `sock` is received
// into it (close-on-exec).
template <typename Body>
int AsOwner(const FileOwner& owner, Body&& body, int* fd_out) {
  int socks[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, socks) != 0) return errno;
  const gid_t* groups = owner.groups.empty() ? nullptr : owner.groups.data();
  const size_t ngroups = owner.groups.size();
  const pid_t child = fork();
  if (child < 0) {
    const int error_number = errno;
    close(socks[0]);
    close(socks[1]);
    return error_number;
  }
  if (child == 0) {
    close(socks[1]);
    if (setgroups(ngroups, groups) != 0) _exit(errno);
    if (setresgid(owner.gid, owner.gid, owner.gid) != 0) _exit(errno);
    if (setresuid(owner.uid, owner.uid, owner.uid) != 0) _exit(errno);
    _exit(body(socks[0]));
  }
  close(socks[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  int result = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
  if (result == 0 && fd_out != nullptr) {
    *fd_out = ReceiveFd(socks[1]);
    if (*fd_out < 0) result = EIO;
  }
  close(socks[1]);
  return result;
}

}  // namespace

std::string BadDestination(const std::string& path) {
  if (path.empty() || path.front() != '/') {
    return absl::StrCat("the destination '", path, "' is not an absolute path");
  }
  if (path.back() == '/') return "Target filename cannot be a directory.";
  if (path.find('\0') != std::string::npos) return "the destination holds a NUL byte";
  // "_libs" may be added for --send-libs.
  if (path.size() + 5 >= PATH_MAX) {
    return absl::StrCat("the destination is longer than ", PATH_MAX - 6, " bytes");
  }
  return "";
}

BroadcastCopy::BroadcastCopy(FileOwner owner, std::string path, int fd)
    : owner_(std::move(owner)), path_(std::move(path)), fd_(fd) {}

BroadcastCopy::~BroadcastCopy() {
  if (fd_ >= 0) close(fd_);
}

std::unique_ptr<BroadcastCopy> BroadcastCopy::Open(const FileOwner& owner, const std::string& path,
                                                   bool force, bool make_libs_dir,
                                                   CopyError* error) {
  if (std::string bad = BadDestination(path); !bad.empty()) {
    *error = {EINVAL, bad};
    return nullptr;
  }
  // O_NONBLOCK: opening a FIFO for writing otherwise waits for a reader,
  // holding this thread for as long as the user likes (it is cleared below,
  // once the file is known to be regular). O_NOFOLLOW: the destination is the
  // file named, not where a link of the user's points.
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW |
                    (force ? O_TRUNC : O_EXCL);
  const char* file = path.c_str();
  int fd = -1;
  int rc = AsOwner(
      owner,
      [&](int sock) -> int {
        const int opened = open(file, flags, 0700);
        if (opened < 0) return errno;
        return SendFd(sock, opened);
      },
      &fd);
  if (rc == ELOOP) {
    *error = {ELOOP, absl::StrCat("`", path, "` is a symbolic link")};
    return nullptr;
  }
  if (rc == ENXIO) {  // a FIFO with no reader (O_NONBLOCK), a device without its driver
    *error = {EINVAL, absl::StrCat("`", path, "` is not a regular file")};
    return nullptr;
  }
  if (rc != 0) {
    *error = FromErrno(rc);
    return nullptr;
  }
  // Not a regular file (a FIFO, a device the user may write): refused before a
  // byte is written, as there is no mode or time to give it.
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *error = {EINVAL, absl::StrCat("`", path, "` is not a regular file")};
    return nullptr;
  }
  const int status_flags = fcntl(fd, F_GETFL);
  if (status_flags < 0 || fcntl(fd, F_SETFL, status_flags & ~O_NONBLOCK) != 0) {
    const int failed = errno;
    close(fd);
    *error = FromErrno(failed);
    return nullptr;
  }
  if (make_libs_dir) {
    const std::string dir = path + "_libs";
    const char* dir_name = dir.c_str();
    rc = AsOwner(
        owner,
        [&](int) -> int {
          if (mkdir(dir_name, 0700) == 0) return 0;
          const int made = errno;
          struct stat existing {};
          // -f: a directory left by an earlier sbcast --send-libs is reused.
          if (made == EEXIST && force && stat(dir_name, &existing) == 0 &&
              S_ISDIR(existing.st_mode)) {
            return 0;
          }
          return made;
        },
        nullptr);
    if (rc != 0) {
      close(fd);
      *error = {rc, absl::StrCat("Unable to create directory ", dir, ": ", ErrnoText(rc))};
      return nullptr;
    }
  }
  return std::unique_ptr<BroadcastCopy>(new BroadcastCopy(owner, path, fd));
}

bool BroadcastCopy::Write(std::string_view data, CopyError* error) {
  while (!data.empty()) {
    const ssize_t n = write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      *error = FromErrno(errno);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
    written_ += static_cast<uint64_t>(n);
  }
  return true;
}

bool BroadcastCopy::Finish(uint32_t mode, const std::optional<FileTimes>& times, CopyError* error) {
  const int fd = fd_;
  timespec ts[2] = {};
  if (times) {
    ts[0].tv_sec = times->atime;
    ts[1].tv_sec = times->mtime;
  }
  const bool with_times = times.has_value();
  const int rc = AsOwner(
      owner_,
      [&](int) -> int {
        if (fchmod(fd, mode & 0777) != 0) return errno;
        if (with_times && futimens(fd, ts) != 0) return errno;
        return 0;
      },
      nullptr);
  fd_ = -1;
  if (close(fd) != 0) {
    *error = FromErrno(errno);
    return false;
  }
  if (rc != 0 && with_times) {
    *error = {rc, absl::StrCat("can't set the mode and times of `", path_, "`: ", ErrnoText(rc))};
    return false;
  }
  return true;
}

}  // namespace skiff::noded
