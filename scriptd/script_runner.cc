#include "scriptd/script_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/unique_fd.h"
#include "scriptd/child_exec.h"

namespace skiff::scriptd {
namespace {

using Clock = std::chrono::steady_clock;

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r: returns the message, which may or may not be in buf.
  return strerror_r(err, buf, sizeof(buf));
}

// Keeps fds the child dup2()s from clear of 0..3, its targets: a daemon started with
// closed standard fds could get 0..2, and 3 is the Lua helper's result pipe.
int AboveStdio(int fd) {
  if (fd < 0 || fd > 3) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 4);
  close(fd);
  return moved;
}

absl::Status MakePipe(UniqueFd& read_end, UniqueFd& write_end) {
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

std::string FailureText(const ChildFailure& failure, const ScriptRequest& request,
                        const std::string& work_dir, uid_t uid, gid_t gid) {
  const std::string why = ErrnoText(failure.err);
  switch (failure.step) {
    case ChildStep::kExec:
      return absl::StrCat("cannot execute ", request.path, ": ", why);
    case ChildStep::kChdir:
      return absl::StrCat("cannot change directory to ", work_dir, ": ", why);
    case ChildStep::kGroups:
      return absl::StrCat("cannot set the supplementary groups of uid ", uid, ": ", why);
    case ChildStep::kGid:
      return absl::StrCat("cannot set gid ", gid, ": ", why);
    case ChildStep::kUid:
      return absl::StrCat("cannot set uid ", uid, ": ", why);
    case ChildStep::kSetup:
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

  UniqueFd& fd() { return fd_; }
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

  UniqueFd fd_;
  const size_t limit_;
  const bool keep_head_;
  bool truncated_ = false;
  std::string data_;
  std::string partial_;
  const std::function<void(std::string_view)>* on_line_ = nullptr;
};

// The child's argv, envp and directory as C strings, built before fork (the child
// may not allocate). Not copyable: argv and envp point into the strings.
struct ChildCommand {
  explicit ChildCommand(const ScriptRequest& request) {
    argv_strings = {request.argv0.empty() ? request.path : request.argv0};
    argv_strings.insert(argv_strings.end(), request.argv.begin(), request.argv.end());
    for (std::string& arg : argv_strings) argv.push_back(arg.data());
    argv.push_back(nullptr);
    for (const auto& [key, value] : request.environment) env_strings.push_back(key + "=" + value);
    for (std::string& var : env_strings) envp.push_back(var.data());
    envp.push_back(nullptr);
    work_dir = request.work_dir.empty() ? "/" : request.work_dir;
  }
  ChildCommand(const ChildCommand&) = delete;
  ChildCommand& operator=(const ChildCommand&) = delete;

  std::vector<std::string> argv_strings;
  std::vector<char*> argv;  // null-terminated
  std::vector<std::string> env_strings;
  std::vector<char*> envp;  // null-terminated
  std::string work_dir;
};

// Whom the child runs as: a root runner switches to the request's uid (when not 0),
// with groups resolved here, before fork; any other runner keeps its own user.
struct ChildUser {
  bool switch_user = false;
  gid_t gid = 0;  // the request's gid; with switch_user, 0 became the user's primary group
  std::vector<gid_t> groups;
};

// Resolves the request's user (ChildUser) and logs what could not be honoured: a uid
// without a passwd entry, or a uid other than the runner's own when not root.
ChildUser ResolveChildUser(const ScriptRequest& request, spdlog::logger& logger) {
  ChildUser user;
  user.switch_user = geteuid() == 0 && request.uid != 0;
  user.gid = request.gid;
  if (user.switch_user) {
    std::string user_name;
    user.groups = ResolveGroups(request.uid, user.gid, user_name);
    if (user_name.empty()) {
      logger.warn("{}: uid {} has no passwd entry: running with gid {} and no other groups",
                  Describe(request), request.uid, user.gid);
    }
  } else if (request.uid != 0 && request.uid != geteuid()) {
    logger.debug("{}: not root: running as uid {}, not {}", Describe(request), geteuid(),
                 request.uid);
  }
  return user;
}

// Waits for the child to reach execve, and closes the report pipe. EOF: execve
// succeeded (the pipe is O_CLOEXEC); a record: it did not, and this is why.
std::optional<ChildFailure> ReadExecFailure(UniqueFd& report_read) {
  ChildFailure failure;
  ssize_t got;
  do {
    got = read(report_read.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  report_read.Close();
  if (got != static_cast<ssize_t>(sizeof(failure))) return std::nullopt;
  return failure;
}

// Milliseconds from now until `when` (0 once it has passed), as poll() takes them.
int MsUntil(Clock::time_point when) {
  return static_cast<int>(std::clamp<int64_t>(
      std::chrono::ceil<std::chrono::milliseconds>(when - Clock::now()).count(), 0, INT_MAX));
}

// How the script ended, for the log line Run() ends with.
std::string OutcomeText(const ScriptResult& result, bool exec_failed) {
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
  return outcome;
}

}  // namespace

// One Run() call's child, from its pipes to its last output: the fds Run() polls
// and the readers that keep what the child wrote. Owned by Run() and used on its
// thread only; its fds close when Run() returns, after the entry is erased.
struct ScriptRunner::Child {
  explicit Child(const ScriptRequest& for_request);

  // Wakes WaitForChild()'s loop when Kill() sends SIGTERM, so that SIGKILL follows
  // on time even if the child ignores it. Only with a kill_grace.
  absl::Status OpenWakeFd();
  // The child's output pipes (stdout, stderr when split, fd 3), its report pipe,
  // and its stdin: a pipe for stdin_data, /dev/null without.
  absl::Status OpenPipes();
  // What SpawnChild() runs; points into `command`, `user` and this child's fds.
  ChildPlan Plan(const ChildCommand& command, const ChildUser& user, int max_fd) const;
  // After fork: closes the pipe ends the child now holds.
  void CloseChildEnds();

  std::array<PipeReader*, 3> readers() { return {&output, &errors, &fd3}; }
  bool OutputsOpen() const { return output.open() || errors.open() || fd3.open(); }
  // One poll() of the pidfd (until `exited`), the open output pipes, stdin and the
  // wake eventfd, then one read or write on each fd that is ready; sets `exited`
  // when the pidfd says so. Returns poll()'s result (errno set when negative).
  int PollOnce(int timeout_ms, bool& exited);
  // The rest of the output once the child has been reaped.
  void DrainOutput();
  // Hands what the readers kept to `result` (stdout_data, output_tail, fd3_data).
  void CollectOutput(ScriptResult& result);

  const ScriptRequest& request;
  // stdout (and stderr with it, unless split); in split mode stdout is kept whole.
  PipeReader output;
  PipeReader errors;  // split mode: stderr
  PipeReader fd3;
  UniqueFd output_write, errors_write, fd3_write, report_read, report_write, stdin_read,
      stdin_write;
  UniqueFd wake;   // eventfd; -1 without a kill_grace
  UniqueFd pidfd;  // -1 without pidfd_open
  pid_t pid = 0;
  Clock::time_point start;   // just before fork
  size_t stdin_written = 0;  // bytes of stdin_data written so far
};

ScriptRunner::Child::Child(const ScriptRequest& for_request)
    : request(for_request),
      output(for_request.split_output ? kMaxStdout : kMaxOutputTail, for_request.split_output),
      errors(kMaxOutputTail, false),
      fd3(kMaxOutputTail, true) {
  if (request.split_output) errors.set_on_line(&request.on_stderr_line);
}

absl::Status ScriptRunner::Child::OpenWakeFd() {
  if (request.kill_grace > absl::ZeroDuration()) {
    wake.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (wake.get() < 0) return absl::UnavailableError(absl::StrCat("eventfd: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

absl::Status ScriptRunner::Child::OpenPipes() {
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
  return piped;
}

ChildPlan ScriptRunner::Child::Plan(const ChildCommand& command, const ChildUser& user,
                                    int max_fd) const {
  return ChildPlan{request.path.c_str(),
                   command.argv.data(),
                   command.envp.data(),
                   command.work_dir.c_str(),
                   stdin_read.get(),
                   output_write.get(),
                   request.split_output ? errors_write.get() : output_write.get(),
                   request.fd3_pipe ? fd3_write.get() : -1,
                   report_write.get(),
                   request.parent_death_signal,
                   getpid(),
                   max_fd,
                   user.switch_user,
                   request.uid,
                   user.gid,
                   user.groups.data(),
                   user.groups.size()};
}

void ScriptRunner::Child::CloseChildEnds() {
  output_write.Close();
  errors_write.Close();
  fd3_write.Close();
  report_write.Close();
  stdin_read.Close();
}

int ScriptRunner::Child::PollOnce(int timeout_ms, bool& exited) {
  const std::array<PipeReader*, 3> all = readers();
  struct pollfd fds[6];
  int nfds = 0;
  int pid_index = -1, stdin_index = -1, wake_index = -1;
  int reader_index[3] = {-1, -1, -1};
  if (pidfd.get() >= 0 && !exited) {
    pid_index = nfds;
    fds[nfds++] = {pidfd.get(), POLLIN, 0};
  }
  for (int r = 0; r < 3; ++r) {
    if (!all[r]->open()) continue;
    reader_index[r] = nfds;
    fds[nfds++] = {all[r]->fd().get(), POLLIN, 0};
  }
  if (stdin_write.get() >= 0) {
    stdin_index = nfds;
    fds[nfds++] = {stdin_write.get(), POLLOUT, 0};
  }
  if (wake.get() >= 0) {
    wake_index = nfds;
    fds[nfds++] = {wake.get(), POLLIN, 0};
  }
  const int ready = poll(fds, nfds, timeout_ms);
  if (ready <= 0) return ready;
  for (int r = 0; r < 3; ++r) {
    if (reader_index[r] >= 0 && fds[reader_index[r]].revents != 0) all[r]->ReadOnce();
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
  if (pid_index >= 0 && fds[pid_index].revents != 0) exited = true;
  return ready;
}

// The rest of the output: EOF comes once the group is gone. Something that left
// the group (setsid) may hold the pipes open; it gets a short grace, no more.
void ScriptRunner::Child::DrainOutput() {
  const Clock::time_point drain_until = Clock::now() + std::chrono::milliseconds(500);
  for (PipeReader* reader : readers()) {
    if (reader->open()) fcntl(reader->fd().get(), F_SETFL, O_NONBLOCK);
  }
  while (OutputsOpen()) {
    const int left = MsUntil(drain_until);
    if (left <= 0) break;
    struct pollfd fds[3];
    PipeReader* polled[3];
    int nfds = 0;
    for (PipeReader* reader : readers()) {
      if (!reader->open()) continue;
      polled[nfds] = reader;
      fds[nfds++] = {reader->fd().get(), POLLIN, 0};
    }
    if (poll(fds, nfds, left) <= 0) continue;
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].revents != 0) polled[i]->ReadOnce();
    }
  }
}

void ScriptRunner::Child::CollectOutput(ScriptResult& result) {
  if (request.split_output) {
    result.stdout_data = output.Finish();
    result.stdout_truncated = output.truncated();
    result.output_tail = ValidUtf8(errors.Finish());
  } else {
    result.output_tail = ValidUtf8(output.Finish());
  }
  if (request.fd3_pipe) result.fd3_data = fd3.Finish();
}

ScriptRunner::ScriptRunner(spdlog::logger& logger, ChildObserver* observer)
    : logger_(logger), observer_(observer) {}

absl::StatusOr<ScriptResult> ScriptRunner::Run(const ScriptRequest& request) {
  if (absl::Status valid = Validate(request); !valid.ok()) return valid;

  // Everything the child touches is built here, before fork.
  const ChildCommand command(request);
  const ChildUser user = ResolveChildUser(request, logger_);
  const int max_fd = MaxFdForChild();

  Child child(request);
  if (absl::Status woken = child.OpenWakeFd(); !woken.ok()) return woken;
  if (absl::Status added = Register(request, child.wake.get()); !added.ok()) return added;
  // From here on, every return erases the entry (after the child has been reaped).
  if (absl::Status piped = child.OpenPipes(); !piped.ok()) {
    Forget(request.request_id);
    return piped;
  }

  const ChildPlan plan = child.Plan(command, user, max_fd);
  child.start = Clock::now();
  // vfork, not fork: a fork of this threaded daemon makes every page copy-on-write,
  // and the page faults and TLB shootdowns that follow cost ~8 ms of system time per
  // script (measured with perf on the e2e benchmark). The child shares our memory
  // until execve, so it only makes system calls on data prepared above.
  child.pid = SpawnChild(plan);
  if (child.pid < 0) {
    const int err = errno;
    Forget(request.request_id);
    return absl::UnavailableError(absl::StrCat("fork: ", ErrnoText(err)));
  }
  // Also here, so that a kill(-pid) right after this cannot miss the group.
  setpgid(child.pid, child.pid);
  child.pidfd.Reset(OpenPidfd(child.pid));
  child.CloseChildEnds();
  PublishChild(request, child.pid);

  ScriptResult result;
  result.pid = child.pid;
  const std::optional<ChildFailure> failure = ReadExecFailure(child.report_read);
  const bool exec_failed = failure.has_value();
  if (exec_failed) {
    result.error = FailureText(*failure, request, command.work_dir, request.uid, user.gid);
  }

  WaitForChild(child);
  child.stdin_write.Close();
  int status = 0;
  const Entry final_entry = Reap(request.request_id, child.pid, status);
  if (observer_ != nullptr) observer_->ChildEnded(request.request_id);
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - child.start).count();

  child.DrainOutput();
  child.CollectOutput(result);
  result.timed_out = final_entry.timed_out;
  result.killed = final_entry.killed && !final_entry.timed_out;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (exec_failed) result.exit_code = 127;
  logger_.info("{} {} in {}ms", Describe(request), OutcomeText(result, exec_failed), elapsed_ms);
  Forget(request.request_id);
  return result;
}

absl::Status ScriptRunner::Register(const ScriptRequest& request, int wake_fd) {
  absl::MutexLock lock(&mu_);
  if (shutting_down_) return absl::UnavailableError("scriptd is shutting down");
  Entry entry;
  entry.job_id = request.job_id;
  entry.kill_grace = request.kill_grace;
  entry.wake_fd = wake_fd;
  if (!running_.emplace(request.request_id, entry).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("request ", request.request_id, " is already running"));
  }
  return absl::OkStatus();
}

void ScriptRunner::Forget(const std::string& request_id) {
  absl::MutexLock lock(&mu_);
  running_.erase(request_id);
}

void ScriptRunner::PublishChild(const ScriptRequest& request, pid_t pid) {
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
}

void ScriptRunner::WaitForChild(Child& child) {
  const ScriptRequest& request = child.request;
  const bool has_deadline = request.timeout_seconds > 0;
  const Clock::time_point deadline =
      child.start + std::chrono::seconds(std::min<int64_t>(request.timeout_seconds, INT32_MAX));
  if (child.stdin_write.get() >= 0) fcntl(child.stdin_write.get(), F_SETFL, O_NONBLOCK);
  bool timed_out = false;
  bool child_exited = false;
  for (;;) {
    // Timeout and SIGKILL after a grace, decided under mu_ with Kill()'s state.
    const bool deadline_counts = has_deadline && !timed_out && !child_exited;
    const KillTimers timers =
        CheckKillTimers(request.request_id, child.pid, deadline_counts ? &deadline : nullptr);
    if (timers.timed_out) timed_out = true;
    // The leader has ended. During a grace, the rest of its group may still be
    // ending: wait for it to close its output, up to the grace's end.
    if (child_exited && (!timers.grace_running || !child.OutputsOpen())) break;
    if (!child_exited && child.pidfd.get() < 0 && ChildHasExited(child.pid)) {
      child_exited = true;
      continue;
    }
    // Without a pidfd: poll the child.
    int timeout_ms = child.pidfd.get() < 0 && !child_exited ? 20 : -1;
    auto at_most = [&timeout_ms](int ms) {
      timeout_ms = timeout_ms < 0 ? ms : std::min(timeout_ms, ms);
    };
    if (has_deadline && !timed_out && !child_exited) at_most(MsUntil(deadline));
    if (timers.grace_running) at_most(MsUntil(timers.kill_at));
    const int ready = child.PollOnce(timeout_ms, child_exited);
    if (ready < 0 && errno != EINTR) {
      logger_.error("{}: poll: {}", Describe(request), ErrnoText(errno));
      break;
    }
  }
}

ScriptRunner::KillTimers ScriptRunner::CheckKillTimers(const std::string& request_id, pid_t pid,
                                                       const Clock::time_point* deadline) {
  KillTimers timers;
  absl::MutexLock lock(&mu_);
  Entry& entry = running_[request_id];
  if (deadline != nullptr && Clock::now() >= *deadline) {
    timers.timed_out = entry.timed_out = true;
    SignalLocked(entry);
  }
  if (entry.term_sent && !entry.kill_sent && Clock::now() >= entry.kill_at) {
    kill(-pid, SIGKILL);
    entry.kill_sent = true;
  }
  timers.grace_running = entry.term_sent && !entry.kill_sent;
  timers.kill_at = entry.kill_at;
  return timers;
}

// The child is a zombie: its pid, hence its group id, cannot be reused yet. Kill
// what it left in its group, then reap it, under mu_ so that Kill() never signals
// a reaped pid. The entry stays (reaped) until Run() returns.
ScriptRunner::Entry ScriptRunner::Reap(const std::string& request_id, pid_t pid, int& status) {
  absl::MutexLock lock(&mu_);
  kill(-pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Entry& entry = running_[request_id];
  entry.reaped = true;
  return entry;
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
