#include "noded/shepherd_launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "noded/shepherd_protocol.h"

namespace skiff::noded {
namespace {

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

// Reads up to `size` bytes, until EOF or the deadline.
size_t ReadUntil(int fd, char* buf, size_t size, std::chrono::steady_clock::time_point deadline) {
  size_t got = 0;
  while (got < size) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the shepherd (or the failed child) is gone
    got += static_cast<size_t>(n);
    if (buf[0] == kShepherdReadyByte) break;
  }
  return got;
}

}  // namespace

std::string FindShepherdBinary(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = getenv("SKIFF_SHEPHERD"); env != nullptr && *env != '\0') return env;
  const std::string dir = SelfDir();
  for (const std::string& candidate : {dir + "/shepherd", dir + "/../noded/shepherd"}) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return dir + "/shepherd";
}

absl::StatusOr<StartedShepherd> StartShepherd(const std::string& binary, const std::string& job_dir,
                                              std::chrono::milliseconds timeout) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  const int read_end = fds[0];
  const int write_end = fds[1];

  // Everything the child needs, built before fork.
  std::vector<std::string> args = {binary, job_dir, absl::StrCat(kShepherdReadyFdFlag, write_end)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* path = binary.c_str();

  // vfork: no copy-on-write of this threaded daemon's memory (a fork costs ~10 ms
  // of page faults here); the child only makes system calls before execv.
  const pid_t pid = vfork();
  if (pid < 0) {
    const int err = errno;
    close(read_end);
    close(write_end);
    return absl::InternalError(absl::StrCat("fork: ", strerror(err)));
  }
  if (pid == 0) {
    // Async-signal-safe calls only: noded has other threads.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    fcntl(write_end, F_SETFD, 0);  // keep the ready pipe across exec
    execv(path, argv.data());
    const int err = errno;
    char msg[1 + sizeof(int)];
    msg[0] = kShepherdExecFailedByte;
    memcpy(msg + 1, &err, sizeof(int));
    ssize_t ignored = write(write_end, msg, sizeof(msg));
    (void)ignored;
    _exit(127);
  }
  close(write_end);
  char buf[1 + sizeof(int)] = {};
  const size_t got =
      ReadUntil(read_end, buf, sizeof(buf), std::chrono::steady_clock::now() + timeout);
  close(read_end);
  if (got >= 1 && buf[0] == kShepherdExecFailedByte) {
    int err = 0;
    if (got == sizeof(buf)) memcpy(&err, buf + 1, sizeof(int));
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot execute shepherd ", binary, ": ", strerror(err)));
  }
  StartedShepherd started;
  started.pid = pid;
  started.ready = got >= 1 && buf[0] == kShepherdReadyByte;
  return started;
}

}  // namespace skiff::noded
