#include "scriptd/script_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

using Clock = std::chrono::steady_clock;

// What the child reports on its CLOEXEC pipe when it cannot reach execve.
enum class Step : int { kSetup = 1, kGroups, kGid, kUid, kChdir, kExec };
struct ChildFailure {
  Step step;
  int err;
};

// Everything the child needs, prepared before fork (the child may not allocate).
struct ChildPlan {
  const char* path;
  char* const* argv;
  char* const* envp;
  const char* work_dir;
  int stdin_fd;
  int output_fd;
  int report_fd;
  int max_fd;  // for closing fds when close_range is missing
  bool switch_user;
  uid_t uid;
  gid_t gid;
  const gid_t* groups;
  size_t group_count;
};

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r: returns the message, which may or may not be in buf.
  return strerror_r(err, buf, sizeof(buf));
}

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Keeps fds the child dup2()s from clear of 0..2, where a daemon started with closed
// standard fds could get them.
int AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

absl::Status MakePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::UnavailableError(absl::StrCat("pipe: ", ErrnoText(errno)));
  }
  read_end.Reset(AboveStdio(fds[0]));
  write_end.Reset(AboveStdio(fds[1]));
  if (read_end.get() < 0 || write_end.get() < 0) {
    return absl::UnavailableError(absl::StrCat("pipe: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

bool CloseFdsFrom(unsigned first, unsigned last) {
#ifdef SYS_close_range
  return first > last || syscall(SYS_close_range, first, last, 0) == 0;
#else
  return false;
#endif
}

// In the child, between vfork and execve: async-signal-safe calls only, no writes
// to memory the parent uses (locals of this frame are fine).
[[noreturn]] void ChildExec(const ChildPlan& plan) {
  auto fail = [&plan](Step step) {
    ChildFailure failure{step, errno};
    ssize_t ignored = write(plan.report_fd, &failure, sizeof(failure));
    (void)ignored;
    _exit(127);
  };
  // scriptd blocks its daemon signals and ignores SIGPIPE; the script gets defaults.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);  // EINVAL for some: fine
  }
  if (setpgid(0, 0) != 0) fail(Step::kSetup);
  if (dup2(plan.stdin_fd, 0) < 0 || dup2(plan.output_fd, 1) < 0 || dup2(plan.output_fd, 2) < 0) {
    fail(Step::kSetup);
  }
  // Nothing of scriptd's (lifeline, gRPC sockets, other requests' pipes) reaches the
  // script; the report pipe stays until execve closes it (O_CLOEXEC).
  const unsigned report = static_cast<unsigned>(plan.report_fd);
  if (!CloseFdsFrom(3, report - 1) || !CloseFdsFrom(report + 1, UINT_MAX)) {
    for (int fd = 3; fd < plan.max_fd; ++fd) {
      if (fd != plan.report_fd) close(fd);
    }
  }
  if (plan.switch_user) {
    // Raw system calls: glibc's wrappers would try to change the credentials of
    // every thread of the parent, whose memory this vfork child shares.
    if (syscall(SYS_setgroups, plan.group_count, plan.groups) != 0) fail(Step::kGroups);
    if (syscall(SYS_setgid, plan.gid) != 0) fail(Step::kGid);
    if (syscall(SYS_setuid, plan.uid) != 0) fail(Step::kUid);
  }
  // After setuid: the directory must be the user's to enter.
  if (chdir(plan.work_dir) != 0) fail(Step::kChdir);
  execve(plan.path, plan.argv, plan.envp);
  fail(Step::kExec);
  _exit(127);  // not reached
}

std::string FailureText(const ChildFailure& failure, const ScriptRequest& request,
                        const std::string& work_dir, uid_t uid, gid_t gid) {
  const std::string why = ErrnoText(failure.err);
  switch (failure.step) {
    case Step::kExec:
      return absl::StrCat("cannot execute ", request.path, ": ", why);
    case Step::kChdir:
      return absl::StrCat("cannot change directory to ", work_dir, ": ", why);
    case Step::kGroups:
      return absl::StrCat("cannot set the supplementary groups of uid ", uid, ": ", why);
    case Step::kGid:
      return absl::StrCat("cannot set gid ", gid, ": ", why);
    case Step::kUid:
      return absl::StrCat("cannot set uid ", uid, ": ", why);
    case Step::kSetup:
      break;
  }
  return absl::StrCat("cannot set up the child for ", request.path, ": ", why);
}

// The user's primary group (when `gid` is 0) and supplementary groups, resolved
// before fork: getpwuid_r and getgrouplist are not async-signal-safe. A uid without
// a passwd entry gets its primary group alone. Empty name = unknown uid.
std::vector<gid_t> ResolveGroups(uid_t uid, gid_t& gid, std::string& name) {
  long size_hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size_hint > 0 ? size_hint : 16384);
  struct passwd pwd;
  struct passwd* found = nullptr;
  int rc;
  while ((rc = getpwuid_r(uid, &pwd, buf.data(), buf.size(), &found)) == ERANGE &&
         buf.size() < (1u << 20)) {
    buf.resize(buf.size() * 2);
  }
  if (rc != 0 || found == nullptr) return {gid};
  name = pwd.pw_name;
  if (gid == 0) gid = pwd.pw_gid;
  int count = 32;
  std::vector<gid_t> groups(count);
  while (getgrouplist(name.c_str(), gid, groups.data(), &count) < 0) {
    if (count <= static_cast<int>(groups.size())) count = groups.size() * 2;
    groups.resize(count);
  }
  groups.resize(count);
  return groups;
}

// proto3 strings must be UTF-8: the tail is cut at a byte count, and scripts may
// print anything. Drops a partial character at the start and turns every other
// invalid byte into '?', so the size never grows.
std::string ValidUtf8(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size() && (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80) ++i;
  while (i < bytes.size()) {
    const unsigned char c = bytes[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len > 0 && i + len <= bytes.size();
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(bytes[i + k]) & 0xC0) == 0x80;
    }
    if (ok && len > 1) {
      // Reject overlong forms, surrogates and code points above U+10FFFF.
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (bytes[i + k] & 0x3F);
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (ok) {
      out.append(bytes, i, len);
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

absl::Status Validate(const ScriptRequest& request) {
  auto has_nul = [](const std::string& s) { return s.find('\0') != std::string::npos; };
  if (request.request_id.empty()) return absl::InvalidArgumentError("request_id is empty");
  if (request.path.empty()) return absl::InvalidArgumentError("path is empty");
  if (has_nul(request.path) || has_nul(request.work_dir)) {
    return absl::InvalidArgumentError("path and work_dir may not contain NUL bytes");
  }
  for (const std::string& arg : request.argv) {
    if (has_nul(arg)) return absl::InvalidArgumentError("argv may not contain NUL bytes");
  }
  for (const auto& [key, value] : request.environment) {
    if (key.empty() || key.find('=') != std::string::npos || has_nul(key) || has_nul(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad environment variable name '", ValidUtf8(key), "'"));
    }
  }
  if (request.timeout_seconds < 0) {
    return absl::InvalidArgumentError("timeout_seconds is negative");
  }
  return absl::OkStatus();
}

// Writes to the child's stdin without letting SIGPIPE (a script that exits without
// reading) kill the process: the signal is blocked in this thread and any pending
// one is consumed.
ssize_t WriteNoSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t n = write(fd, data, size);
  const int err = errno;
  if (n < 0 && err == EPIPE && !sigismember(&old, SIGPIPE)) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return n;
}

bool ChildHasExited(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

std::string Describe(const ScriptRequest& request) {
  return absl::StrCat(request.job_id != 0 ? absl::StrCat("JobId=", request.job_id, " ") : "",
                      request.request_id, " ", request.path);
}

}  // namespace

ScriptRunner::ScriptRunner(spdlog::logger& logger) : logger_(logger) {}

absl::StatusOr<ScriptResult> ScriptRunner::Run(const ScriptRequest& request) {
  if (absl::Status valid = Validate(request); !valid.ok()) return valid;

  // Everything the child touches is built here, before fork.
  std::vector<std::string> argv_strings = {request.path};
  argv_strings.insert(argv_strings.end(), request.argv.begin(), request.argv.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : request.environment) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& var : env_strings) envp.push_back(var.data());
  envp.push_back(nullptr);
  const std::string work_dir = request.work_dir.empty() ? "/" : request.work_dir;

  const bool switch_user = geteuid() == 0 && request.uid != 0;
  gid_t gid = request.gid;
  std::string user_name;
  std::vector<gid_t> groups;
  if (switch_user) {
    groups = ResolveGroups(request.uid, gid, user_name);
    if (user_name.empty()) {
      logger_.warn("{}: uid {} has no passwd entry: running with gid {} and no other groups",
                   Describe(request), request.uid, gid);
    }
  } else if (request.uid != 0 && request.uid != geteuid()) {
    logger_.debug("{}: not root: running as uid {}, not {}", Describe(request), geteuid(),
                  request.uid);
  }
  struct rlimit nofile;
  int max_fd = 65536;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY) {
    max_fd = static_cast<int>(std::min<rlim_t>(nofile.rlim_cur, 1 << 20));
  }

  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("scriptd is shutting down");
    if (!running_.emplace(request.request_id, Entry{}).second) {
      return absl::AlreadyExistsError(
          absl::StrCat("request ", request.request_id, " is already running"));
    }
  }
  // From here on, every return erases the entry (after the child has been reaped).
  auto forget = [this, &request] {
    absl::MutexLock lock(&mu_);
    running_.erase(request.request_id);
  };

  Fd output_read, output_write, report_read, report_write, stdin_read, stdin_write;
  absl::Status piped = MakePipe(output_read, output_write);
  if (piped.ok()) piped = MakePipe(report_read, report_write);
  if (piped.ok() && !request.stdin_data.empty()) piped = MakePipe(stdin_read, stdin_write);
  if (piped.ok() && request.stdin_data.empty()) {
    stdin_read.Reset(AboveStdio(open("/dev/null", O_RDONLY | O_CLOEXEC)));
    if (stdin_read.get() < 0) {
      piped = absl::UnavailableError(absl::StrCat("/dev/null: ", ErrnoText(errno)));
    }
  }
  if (!piped.ok()) {
    forget();
    return piped;
  }

  const ChildPlan plan{request.path.c_str(),
                       argv.data(),
                       envp.data(),
                       work_dir.c_str(),
                       stdin_read.get(),
                       output_write.get(),
                       report_write.get(),
                       max_fd,
                       switch_user,
                       request.uid,
                       gid,
                       groups.data(),
                       groups.size()};
  const Clock::time_point start = Clock::now();
  // vfork, not fork: a fork of this threaded daemon makes every page copy-on-write,
  // and the page faults and TLB shootdowns that follow cost ~8 ms of system time per
  // script (measured with perf on the e2e benchmark). The child shares our memory
  // until execve, so it only makes system calls on data prepared above.
  const pid_t pid = vfork();
  if (pid == 0) ChildExec(plan);
  if (pid < 0) {
    const int err = errno;
    forget();
    return absl::UnavailableError(absl::StrCat("fork: ", ErrnoText(err)));
  }
  // Also here, so that a kill(-pid) right after this cannot miss the group.
  setpgid(pid, pid);
  Fd pidfd;
#ifdef SYS_pidfd_open
  pidfd.Reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
#endif
  output_write.Close();
  report_write.Close();
  stdin_read.Close();
  {
    absl::MutexLock lock(&mu_);
    Entry& entry = running_[request.request_id];
    entry.pid = pid;
    if (entry.killed) kill(-pid, SIGKILL);  // Kill() or KillAll() came before fork
  }
  logger_.info("{} started: pid {}", Describe(request), pid);

  ScriptResult result;
  result.pid = pid;
  // EOF: execve succeeded (the pipe is O_CLOEXEC); a record: it did not.
  ChildFailure failure;
  ssize_t got;
  do {
    got = read(report_read.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  report_read.Close();
  const bool exec_failed = got == static_cast<ssize_t>(sizeof(failure));
  if (exec_failed) result.error = FailureText(failure, request, work_dir, request.uid, gid);

  const bool has_deadline = request.timeout_seconds > 0;
  const Clock::time_point deadline =
      start + std::chrono::seconds(std::min<int64_t>(request.timeout_seconds, INT32_MAX));
  std::string tail;
  auto append_output = [&tail](const char* data, size_t size) {
    tail.append(data, size);
    if (tail.size() > 4 * kMaxOutputTail) tail.erase(0, tail.size() - kMaxOutputTail);
  };
  auto read_output = [&output_read, &append_output] {
    char buf[16384];
    ssize_t n = read(output_read.get(), buf, sizeof(buf));
    if (n > 0) {
      append_output(buf, n);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      output_read.Close();
    }
  };
  size_t stdin_written = 0;
  if (stdin_write.get() >= 0) fcntl(stdin_write.get(), F_SETFL, O_NONBLOCK);
  bool timed_out = false;

  for (;;) {
    if (pidfd.get() < 0 && ChildHasExited(pid)) break;
    struct pollfd fds[3];
    int nfds = 0;
    int pid_index = -1, output_index = -1, stdin_index = -1;
    if (pidfd.get() >= 0) {
      pid_index = nfds;
      fds[nfds++] = {pidfd.get(), POLLIN, 0};
    }
    if (output_read.get() >= 0) {
      output_index = nfds;
      fds[nfds++] = {output_read.get(), POLLIN, 0};
    }
    if (stdin_write.get() >= 0) {
      stdin_index = nfds;
      fds[nfds++] = {stdin_write.get(), POLLOUT, 0};
    }
    int timeout_ms = pidfd.get() < 0 ? 20 : -1;  // without a pidfd: poll the child
    if (has_deadline && !timed_out) {
      const int64_t left = std::min<int64_t>(
          std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count(), INT_MAX);
      if (left <= 0) {
        absl::MutexLock lock(&mu_);
        kill(-pid, SIGKILL);
        timed_out = running_[request.request_id].timed_out = true;
        continue;
      }
      timeout_ms =
          timeout_ms < 0 ? static_cast<int>(left) : std::min(timeout_ms, static_cast<int>(left));
    }
    int ready = poll(fds, nfds, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      logger_.error("{}: poll: {}", Describe(request), ErrnoText(errno));
      break;
    }
    if (ready <= 0) continue;
    if (output_index >= 0 && fds[output_index].revents != 0) read_output();
    if (stdin_index >= 0 && fds[stdin_index].revents != 0) {
      ssize_t n = WriteNoSigpipe(stdin_write.get(), request.stdin_data.data() + stdin_written,
                                 request.stdin_data.size() - stdin_written);
      if (n > 0) stdin_written += n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
          stdin_written == request.stdin_data.size()) {
        stdin_write.Close();  // EOF for the script (or it stopped reading)
      }
    }
    if (pid_index >= 0 && fds[pid_index].revents != 0) break;
  }
  stdin_write.Close();

  // The child is a zombie: its pid, hence its group id, cannot be reused yet. Kill
  // what it left in its group, then reap it, under mu_ so that Kill() never signals
  // a reaped pid. The entry stays (reaped) until this call returns.
  int status = 0;
  Entry final_entry;
  {
    absl::MutexLock lock(&mu_);
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    Entry& entry = running_[request.request_id];
    entry.reaped = true;
    final_entry = entry;
  }
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();

  // The rest of the output: EOF comes once the group is gone. Something that left
  // the group (setsid) may hold the pipe open; it gets a short grace, no more.
  const Clock::time_point drain_until = Clock::now() + std::chrono::milliseconds(500);
  if (output_read.get() >= 0) fcntl(output_read.get(), F_SETFL, O_NONBLOCK);
  while (output_read.get() >= 0) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(drain_until - Clock::now()).count();
    if (left <= 0) break;
    struct pollfd pfd = {output_read.get(), POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left)) > 0) read_output();
  }
  if (tail.size() > kMaxOutputTail) tail.erase(0, tail.size() - kMaxOutputTail);
  result.output_tail = ValidUtf8(tail);

  result.timed_out = final_entry.timed_out;
  result.killed = final_entry.killed && !final_entry.timed_out;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (exec_failed) result.exit_code = 127;

  std::string outcome;
  if (exec_failed) {
    outcome = result.error;
  } else if (result.signal != 0) {
    outcome = absl::StrCat("signal=", result.signal);
  } else {
    outcome = absl::StrCat("rc=", result.exit_code);
  }
  if (result.timed_out) absl::StrAppend(&outcome, " timed out");
  if (result.killed) absl::StrAppend(&outcome, " killed");
  logger_.info("{} {} in {}ms", Describe(request), outcome, elapsed_ms);
  forget();
  return result;
}

bool ScriptRunner::Kill(const std::string& request_id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(request_id);
  if (it == running_.end() || it->second.reaped) return false;
  // Ended by itself, about to be reaped: too late to count as killed.
  if (it->second.pid > 0 && ChildHasExited(it->second.pid)) return false;
  it->second.killed = true;
  if (it->second.pid > 0) kill(-it->second.pid, SIGKILL);
  logger_.info("{}: killing (pid {})", request_id, it->second.pid);
  return true;
}

void ScriptRunner::KillAll() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  for (auto& [id, entry] : running_) {
    if (entry.reaped) continue;
    entry.killed = true;
    if (entry.pid > 0) kill(-entry.pid, SIGKILL);
  }
  if (!running_.empty()) logger_.info("killed {} running script(s)", running_.size());
}

bool ScriptRunner::WaitUntilIdle(absl::Duration limit) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(
      absl::Condition(
          +[](std::map<std::string, Entry>* running) { return running->empty(); }, &running_),
      limit);
}

int ScriptRunner::Running() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

}  // namespace skiff
