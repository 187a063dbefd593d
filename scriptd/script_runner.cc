#include "scriptd/script_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace skiff::scriptd {
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
  int output_fd;  // becomes stdout, and stderr unless stderr_fd differs
  int stderr_fd;
  int fd3;  // becomes fd 3; -1 = none
  int report_fd;
  int parent_death_signal;  // 0 = none
  pid_t parent_pid;
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

// Keeps fds the child dup2()s from clear of 0..3, its targets: a daemon started with
// closed standard fds could get 0..2, and 3 is the Lua helper's result pipe.
int AboveStdio(int fd) {
  if (fd < 0 || fd > 3) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 4);
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
  // Every source fd is above 3 (AboveStdio), so no dup2 overwrites another's source.
  if (dup2(plan.stdin_fd, 0) < 0 || dup2(plan.output_fd, 1) < 0 || dup2(plan.stderr_fd, 2) < 0 ||
      (plan.fd3 >= 0 && dup2(plan.fd3, 3) < 0)) {
    fail(Step::kSetup);
  }
  // Nothing of scriptd's (lifeline, gRPC sockets, other requests' pipes) reaches the
  // script; the report pipe stays until execve closes it (O_CLOEXEC).
  const int first = plan.fd3 >= 0 ? 4 : 3;
  const unsigned report = static_cast<unsigned>(plan.report_fd);
  if (!CloseFdsFrom(first, report - 1) || !CloseFdsFrom(report + 1, UINT_MAX)) {
    for (int fd = first; fd < plan.max_fd; ++fd) {
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
  // After setuid, which clears the parent-death signal.
  if (plan.parent_death_signal != 0) {
    if (prctl(PR_SET_PDEATHSIG, plan.parent_death_signal) != 0) fail(Step::kSetup);
    // The parent died before prctl: the signal will never come.
    if (getppid() != plan.parent_pid) _exit(127);
  }
  // After setuid: the directory must be the user's to enter.
  if (chdir(plan.work_dir) != 0) fail(Step::kChdir);
  execve(plan.path, plan.argv, plan.envp);
  fail(Step::kExec);
  _exit(127);  // not reached
}

// vfork in a frame of its own: the child never returns from it (ChildExec ends in
// execve or _exit), and Run()'s locals are not "clobbered" by a second return.
__attribute__((noinline)) pid_t SpawnChild(const ChildPlan& plan) {
  const pid_t pid = vfork();
  if (pid == 0) ChildExec(plan);
  return pid;
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

}  // namespace

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

namespace {

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
  if (has_nul(request.argv0)) return absl::InvalidArgumentError("argv0 may not contain NUL bytes");
  if (request.kill_grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("kill_grace is negative");
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
                      request.request_id, " ",
                      request.argv0.empty() ? request.path : request.argv0);
}

// One pipe from the child, read by Run(): keeps the first `limit` bytes (head) or
// roughly the last (tail), and hands complete lines to `on_line` when set.
class PipeReader {
 public:
  PipeReader(size_t limit, bool keep_head) : limit_(limit), keep_head_(keep_head) {}

  Fd& fd() { return fd_; }
  bool open() const { return fd_.get() >= 0; }
  void set_on_line(const std::function<void(std::string_view)>* on_line) { on_line_ = on_line; }

  // One read(); closes the fd at EOF or on an error.
  void ReadOnce() {
    char buf[16384];
    ssize_t n = read(fd_.get(), buf, sizeof(buf));
    if (n > 0) {
      Append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      fd_.Close();
    }
  }

  // Hands over a last line without its newline; returns what was kept.
  std::string Finish() {
    if (on_line_ != nullptr && *on_line_ && !partial_.empty()) (*on_line_)(partial_);
    partial_.clear();
    if (!keep_head_ && data_.size() > limit_) data_.erase(0, data_.size() - limit_);
    return std::move(data_);
  }
  bool truncated() const { return truncated_; }

 private:
  void Append(const char* data, size_t size) {
    if (keep_head_) {
      const size_t room = limit_ - std::min(limit_, data_.size());
      data_.append(data, std::min(room, size));
      if (size > room) truncated_ = true;
    } else {
      data_.append(data, size);
      if (data_.size() > 4 * limit_) data_.erase(0, data_.size() - limit_);
    }
    if (on_line_ == nullptr || !*on_line_) return;
    for (size_t i = 0; i < size; ++i) {
      if (data[i] == '\n') {
        (*on_line_)(partial_);
        partial_.clear();
      } else {
        partial_.push_back(data[i]);
        if (partial_.size() >= ScriptRunner::kMaxLine) {
          (*on_line_)(partial_);
          partial_.clear();
        }
      }
    }
  }

  Fd fd_;
  const size_t limit_;
  const bool keep_head_;
  bool truncated_ = false;
  std::string data_;
  std::string partial_;
  const std::function<void(std::string_view)>* on_line_ = nullptr;
};

}  // namespace

ScriptRunner::ScriptRunner(spdlog::logger& logger, ChildObserver* observer)
    : logger_(logger), observer_(observer) {}

absl::StatusOr<ScriptResult> ScriptRunner::Run(const ScriptRequest& request) {
  if (absl::Status valid = Validate(request); !valid.ok()) return valid;

  // Everything the child touches is built here, before fork.
  std::vector<std::string> argv_strings = {request.argv0.empty() ? request.path : request.argv0};
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

  // Wakes the loop below when Kill() sends SIGTERM, so that SIGKILL follows on time
  // even if the child ignores it. Destroyed after the entry is erased.
  const bool has_grace = request.kill_grace > absl::ZeroDuration();
  Fd wake;
  if (has_grace) {
    wake.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (wake.get() < 0) return absl::UnavailableError(absl::StrCat("eventfd: ", ErrnoText(errno)));
  }
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("scriptd is shutting down");
    Entry entry;
    entry.job_id = request.job_id;
    entry.kill_grace = request.kill_grace;
    entry.wake_fd = wake.get();
    if (!running_.emplace(request.request_id, entry).second) {
      return absl::AlreadyExistsError(
          absl::StrCat("request ", request.request_id, " is already running"));
    }
  }
  // From here on, every return erases the entry (after the child has been reaped).
  auto forget = [this, &request] {
    absl::MutexLock lock(&mu_);
    running_.erase(request.request_id);
  };

  // stdout (and stderr with it, unless split); in split mode stdout is kept whole.
  PipeReader output(request.split_output ? kMaxStdout : kMaxOutputTail, request.split_output);
  PipeReader errors(kMaxOutputTail, false);  // split mode: stderr
  PipeReader fd3(kMaxOutputTail, true);
  if (request.split_output) errors.set_on_line(&request.on_stderr_line);
  Fd output_write, errors_write, fd3_write, report_read, report_write, stdin_read, stdin_write;
  absl::Status piped = MakePipe(output.fd(), output_write);
  if (piped.ok() && request.split_output) piped = MakePipe(errors.fd(), errors_write);
  if (piped.ok() && request.fd3_pipe) piped = MakePipe(fd3.fd(), fd3_write);
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
                       request.split_output ? errors_write.get() : output_write.get(),
                       request.fd3_pipe ? fd3_write.get() : -1,
                       report_write.get(),
                       request.parent_death_signal,
                       getpid(),
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
  const pid_t pid = SpawnChild(plan);
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
  errors_write.Close();
  fd3_write.Close();
  report_write.Close();
  stdin_read.Close();
  {
    absl::MutexLock lock(&mu_);
    Entry& entry = running_[request.request_id];
    entry.pid = pid;
    if (entry.killed) {  // Kill() or KillAll() came before fork
      kill(-pid, SIGKILL);
      entry.kill_sent = true;
    }
  }
  logger_.info("{} started: pid {}", Describe(request), pid);
  if (observer_ != nullptr) observer_->ChildStarted(request.request_id, pid);

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
  PipeReader* const readers[] = {&output, &errors, &fd3};
  auto outputs_open = [&readers] {
    for (PipeReader* reader : readers) {
      if (reader->open()) return true;
    }
    return false;
  };
  size_t stdin_written = 0;
  if (stdin_write.get() >= 0) fcntl(stdin_write.get(), F_SETFL, O_NONBLOCK);
  bool timed_out = false;
  bool child_exited = false;
  auto ms_until = [](Clock::time_point when) {
    return static_cast<int>(std::clamp<int64_t>(
        std::chrono::ceil<std::chrono::milliseconds>(when - Clock::now()).count(), 0, INT_MAX));
  };

  for (;;) {
    // Timeout and SIGKILL after a grace, decided under mu_ with Kill()'s state.
    bool grace_running = false;
    Clock::time_point kill_at;
    {
      absl::MutexLock lock(&mu_);
      Entry& entry = running_[request.request_id];
      if (has_deadline && !timed_out && !child_exited && Clock::now() >= deadline) {
        timed_out = entry.timed_out = true;
        SignalLocked(entry);
      }
      if (entry.term_sent && !entry.kill_sent && Clock::now() >= entry.kill_at) {
        kill(-pid, SIGKILL);
        entry.kill_sent = true;
      }
      grace_running = entry.term_sent && !entry.kill_sent;
      kill_at = entry.kill_at;
    }
    // The leader has ended. During a grace, the rest of its group may still be
    // ending: wait for it to close its output, up to the grace's end.
    if (child_exited && (!grace_running || !outputs_open())) break;
    if (!child_exited && pidfd.get() < 0 && ChildHasExited(pid)) {
      child_exited = true;
      continue;
    }
    struct pollfd fds[6];
    int nfds = 0;
    int pid_index = -1, stdin_index = -1, wake_index = -1;
    int reader_index[3] = {-1, -1, -1};
    if (pidfd.get() >= 0 && !child_exited) {
      pid_index = nfds;
      fds[nfds++] = {pidfd.get(), POLLIN, 0};
    }
    for (int r = 0; r < 3; ++r) {
      if (!readers[r]->open()) continue;
      reader_index[r] = nfds;
      fds[nfds++] = {readers[r]->fd().get(), POLLIN, 0};
    }
    if (stdin_write.get() >= 0) {
      stdin_index = nfds;
      fds[nfds++] = {stdin_write.get(), POLLOUT, 0};
    }
    if (wake.get() >= 0) {
      wake_index = nfds;
      fds[nfds++] = {wake.get(), POLLIN, 0};
    }
    // Without a pidfd: poll the child.
    int timeout_ms = pidfd.get() < 0 && !child_exited ? 20 : -1;
    auto at_most = [&timeout_ms](int ms) {
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    };
    if (has_deadline && !timed_out && !child_exited) at_most(ms_until(deadline));
    if (grace_running) at_most(ms_until(kill_at));
    int ready = poll(fds, nfds, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      logger_.error("{}: poll: {}", Describe(request), ErrnoText(errno));
      break;
    }
    if (ready <= 0) continue;
    for (int r = 0; r < 3; ++r) {
      if (reader_index[r] >= 0 && fds[reader_index[r]].revents != 0) readers[r]->ReadOnce();
    }
    if (stdin_index >= 0 && fds[stdin_index].revents != 0) {
      ssize_t n = WriteNoSigpipe(stdin_write.get(), request.stdin_data.data() + stdin_written,
                                 request.stdin_data.size() - stdin_written);
      if (n > 0) stdin_written += n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
          stdin_written == request.stdin_data.size()) {
        stdin_write.Close();  // EOF for the script (or it stopped reading)
      }
    }
    if (wake_index >= 0 && fds[wake_index].revents != 0) {
      uint64_t count;
      ssize_t ignored = read(wake.get(), &count, sizeof(count));
      (void)ignored;
    }
    if (pid_index >= 0 && fds[pid_index].revents != 0) child_exited = true;
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
  if (observer_ != nullptr) observer_->ChildEnded(request.request_id);
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();

  // The rest of the output: EOF comes once the group is gone. Something that left
  // the group (setsid) may hold the pipes open; it gets a short grace, no more.
  const Clock::time_point drain_until = Clock::now() + std::chrono::milliseconds(500);
  for (PipeReader* reader : readers) {
    if (reader->open()) fcntl(reader->fd().get(), F_SETFL, O_NONBLOCK);
  }
  while (outputs_open()) {
    const int left = ms_until(drain_until);
    if (left <= 0) break;
    struct pollfd fds[3];
    PipeReader* polled[3];
    int nfds = 0;
    for (PipeReader* reader : readers) {
      if (!reader->open()) continue;
      polled[nfds] = reader;
      fds[nfds++] = {reader->fd().get(), POLLIN, 0};
    }
    if (poll(fds, nfds, left) <= 0) continue;
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].revents != 0) polled[i]->ReadOnce();
    }
  }
  if (request.split_output) {
    result.stdout_data = output.Finish();
    result.stdout_truncated = output.truncated();
    result.output_tail = ValidUtf8(errors.Finish());
  } else {
    result.output_tail = ValidUtf8(output.Finish());
  }
  if (request.fd3_pipe) result.fd3_data = fd3.Finish();

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

void ScriptRunner::SignalLocked(Entry& entry) {
  if (entry.pid <= 0 || entry.kill_sent) return;
  if (entry.kill_grace <= absl::ZeroDuration()) {
    kill(-entry.pid, SIGKILL);
    entry.kill_sent = true;
    return;
  }
  if (entry.term_sent) return;  // the grace is already running
  kill(-entry.pid, SIGTERM);
  entry.term_sent = true;
  entry.kill_at = Clock::now() + absl::ToChronoNanoseconds(entry.kill_grace);
  if (entry.wake_fd >= 0) {
    const uint64_t one = 1;
    ssize_t ignored = write(entry.wake_fd, &one, sizeof(one));
    (void)ignored;
  }
}

bool ScriptRunner::KillLocked(const std::string& request_id, Entry& entry) {
  if (entry.reaped) return false;
  // Ended by itself, about to be reaped: too late to count as killed.
  if (entry.pid > 0 && ChildHasExited(entry.pid)) return false;
  entry.killed = true;
  SignalLocked(entry);
  logger_.info("{}{}: killing (pid {})",
               entry.job_id != 0 ? absl::StrCat("JobId=", entry.job_id, " ") : "", request_id,
               entry.pid);
  return true;
}

bool ScriptRunner::Kill(const std::string& request_id) {
  absl::MutexLock lock(&mu_);
  auto it = running_.find(request_id);
  if (it == running_.end()) return false;
  return KillLocked(it->first, it->second);
}

int ScriptRunner::KillJob(uint64_t job_id) {
  if (job_id == 0) return 0;
  absl::MutexLock lock(&mu_);
  int killed = 0;
  for (auto& [id, entry] : running_) {
    if (entry.job_id == job_id && KillLocked(id, entry)) ++killed;
  }
  return killed;
}

void ScriptRunner::KillAll() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  for (auto& [id, entry] : running_) {
    if (entry.reaped) continue;
    entry.killed = true;
    if (entry.pid > 0) {
      kill(-entry.pid, SIGKILL);
      entry.kill_sent = true;
    }
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

}  // namespace skiff::scriptd
