#include "common/daemon.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace skiff {
namespace {

sigset_t DaemonSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&set, sig);
  return set;
}

}  // namespace

void BlockDaemonSignals() {
  sigset_t set = DaemonSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A peer that vanishes mid-write must not kill the daemon.
  signal(SIGPIPE, SIG_IGN);
}

int WaitForSignal() {
  sigset_t set = DaemonSignals();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  return sig;
}

int WaitForSignalFor(int timeout_ms) {
  sigset_t set = DaemonSignals();
  struct timespec timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  for (;;) {
    const int sig = sigtimedwait(&set, nullptr, &timeout);
    if (sig > 0) return sig;
    if (errno != EINTR) return 0;  // EAGAIN: the time is up
  }
}

absl::Status MakeDirs(const std::string& path, mode_t mode) {
  if (path.empty()) return absl::OkStatus();
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    if (mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create directory ", prefix, ": ", strerror(errno)));
    }
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a directory"));
  }
  return absl::OkStatus();
}

absl::Status WritePidFile(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  std::ofstream out(path, std::ios::trunc);
  out << getpid() << "\n";
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write pid file ", path));
  return absl::OkStatus();
}

std::string SubstituteNodeName(const std::string& pattern, const std::string& node_name) {
  return absl::StrReplaceAll(pattern, {{"%n", node_name}});
}

}  // namespace skiff
