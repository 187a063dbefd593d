#include "ctld/scriptd_launcher.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

bool IsExecutable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, n);
  return path.substr(0, path.find_last_of('/'));
}

}  // namespace

std::string FindScriptdBinary(const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  if (const char* env = getenv("SKIFF_SCRIPTD"); env != nullptr && *env != '\0') return env;
  const std::string dir = SelfDir();
  for (const std::string& candidate : {dir + "/scriptd", dir + "/../scriptd/scriptd"}) {
    if (IsExecutable(candidate)) return candidate;
  }
  return dir + "/scriptd";
}

absl::StatusOr<ScriptdProcess> StartScriptd(const std::string& binary,
                                            const std::vector<std::string>& args) {
  if (!IsExecutable(binary)) {
    return absl::NotFoundError(absl::StrCat("scriptd binary ", binary, " is not executable"));
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  const int read_end = fds[0];
  const int write_end = fds[1];

  // Build argv before fork: the child may only call async-signal-safe functions.
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  argv_strings.push_back(absl::StrCat("--lifeline-fd=", read_end));
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(read_end);
    close(write_end);
    return absl::InternalError(absl::StrCat("fork scriptd: ", strerror(err)));
  }
  if (pid == 0) {
    // Child: keep the read end across exec, drop the write end.
    int flags = fcntl(read_end, F_GETFD);
    fcntl(read_end, F_SETFD, flags & ~FD_CLOEXEC);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE}) signal(sig, SIG_DFL);
    // Own process group: a terminal's ^C reaches ctld, which then stops scriptd in order.
    setpgid(0, 0);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(read_end);
  return ScriptdProcess{pid, write_end};
}

absl::StatusOr<ScriptdProcess> RespawnScriptd(const std::string& binary,
                                              const std::vector<std::string>& args,
                                              const ScriptdProcess& old) {
  if (old.lifeline_fd >= 0) close(old.lifeline_fd);
  int fds[2];
  // The read end must survive exec; no other ctld thread forks, so the window in
  // which it lacks close-on-exec cannot leak it into another child.
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  argv_strings.push_back(absl::StrCat("--lifeline-fd=", fds[0]));
  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = -1;
  int err = posix_spawn(&pid, binary.c_str(), nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  close(fds[0]);
  if (err != 0) {
    close(fds[1]);
    return absl::InternalError(absl::StrCat("spawn scriptd: ", strerror(err)));
  }
  return ScriptdProcess{pid, fds[1]};
}

}  // namespace skiff::ctld
