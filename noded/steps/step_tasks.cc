#include "noded/steps/step_tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "noded/cgroup/cgroup_fs.h"

namespace skiff::noded {
namespace {

// What a task child reports through its close-on-exec pipe when it cannot
// exec: the stage and errno. End of file: exec succeeded.
enum ChildStage : int {
  kJoinCgroup = 1,
  kDropPrivileges = 2,
  kExec = 3,
  kOpenStdout = 4,
  kOpenStderr = 5,
  kOpenStdin = 6,
  kEnterNamespace = 7
};
struct ChildFailure {
  int stage;
  int err;
};

int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// After this long with every task reaped, pipes still held open by processes
// that left the tasks' groups are closed.
constexpr int64_t kDrainAfterExitMs = 500;

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// A pseudo-terminal for a --pty task: out = {master for reading, slave},
// in = {-1, master for writing}; the slave is the task user's, as login
// terminals are. Returns why not, or "".
std::string OpenPty(const StepTasksSpec& spec, const TaskSpawn& spawn, int out[2], int in[2]) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return absl::StrCat("cannot open a pseudo-terminal: ", strerror(errno));
  if (spawn.rows > 0 && spawn.cols > 0) {
    struct winsize size {};
    size.ws_row = static_cast<unsigned short>(spawn.rows);
    size.ws_col = static_cast<unsigned short>(spawn.cols);
    ioctl(master, TIOCSWINSZ, &size);
  }
  char name[128];
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof(name)) != 0) {
    const std::string why = strerror(errno);
    close(master);
    return absl::StrCat("cannot set up a pseudo-terminal: ", why);
  }
  if (geteuid() == 0 && chown(name, spec.uid, spec.gid) != 0) {
    const std::string why = strerror(errno);
    close(master);
    return absl::StrCat("cannot give ", name, " to uid ", spec.uid, ": ", why);
  }
  const int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  const int reader = slave < 0 ? -1 : fcntl(master, F_DUPFD_CLOEXEC, 0);
  if (slave < 0 || reader < 0) {
    const std::string why = strerror(errno);
    if (slave >= 0) close(slave);
    close(master);
    return absl::StrCat("cannot open ", name, ": ", why);
  }
  out[0] = reader;
  out[1] = slave;
  in[0] = -1;
  in[1] = master;
  return "";
}

// slurmstepd's log line as it reaches a task's stderr.
std::string StepdLine(const std::string& text) { return absl::StrCat("slurmstepd: ", text, "\n"); }

// Slurm's name of log level `level` (log_num2string).
const char* LogLevelName(int level) {
  static const char* const kNames[] = {"quiet", "fatal",  "error",  "info",   "verbose",
                                       "debug", "debug2", "debug3", "debug4", "debug5"};
  return level >= 0 && level < 10 ? kNames[level] : "unknown";
}

// Local time as slurmstepd stamps a task's start: 2026-12-03T12:11:13.
std::string TimeStamp() {
  const time_t now = time(nullptr);
  struct tm local {};
  localtime_r(&now, &local);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ResolveCommand(const std::string& command, const std::string& path) {
  if (command.find('/') != std::string::npos) return command;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", command);
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return command;
}

std::unique_ptr<StepTasks> StepTasks::Start(const StepTasksSpec& spec) {
  std::unique_ptr<StepTasks> self(new StepTasks());
  self->tasks_.resize(spec.tasks.size());
  // Slurm's slurmstepd falls back to /tmp when the work dir is not usable.
  std::string work_dir = spec.work_dir;
  std::string chdir_note;
  struct stat st {};
  if (work_dir.empty() || stat(work_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    chdir_note =
        absl::StrCat("slurmstepd: error: couldn't chdir to `", work_dir,
                     "': ", strerror(errno != 0 ? errno : ENOTDIR), ": going to /tmp instead\n");
    work_dir = "/tmp";
  }
  const bool as_root = geteuid() == 0;
  // --slurmd-debug: slurmstepd's stderr level is error (2) + the increment,
  // at most debug3; its verbose lines are the tasks' starts and ends.
  self->debug_ = spec.debug >= 2 && !spec.tasks.empty();
  if (self->debug_) {
    self->debug_lines_ = StepdLine(absl::StrCat(
                             "debug levels are stderr='", LogLevelName(std::min(2 + spec.debug, 7)),
                             "', logfile='", spec.log_level, "', syslog='quiet'")) +
                         StepdLine(absl::StrCat("starting ", spec.tasks.size(), " tasks"));
  }
  std::set<std::string> opened;  // -o/-e files a task here has already truncated
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const TaskSpawn& spawn = spec.tasks[i];
    Task& task = self->tasks_[i];
    task.task_id = spawn.task_id;
    std::string path_var;
    for (const std::string& kv : spawn.env) {
      if (kv.rfind("PATH=", 0) == 0) path_var = kv.substr(5);
    }
    if (spawn.argv.empty()) {
      task.failure = "execve(): no command given";
      task.reaped = true;
      task.wstatus = 2 << 8;
      continue;
    }
    std::string exe = ResolveCommand(spawn.argv[0], path_var);
    std::vector<std::string> argv_copy = spawn.argv;
    if (!spawn.container_flags.empty()) {
      // The command is found in the container's PATH, not the host's.
      argv_copy = {spec.task_wrapper, "--oci-run"};
      argv_copy.insert(argv_copy.end(), spawn.container_flags.begin(), spawn.container_flags.end());
      argv_copy.push_back("--");
      argv_copy.insert(argv_copy.end(), spawn.argv.begin(), spawn.argv.end());
      exe = spec.task_wrapper;
    } else if (!spawn.task_prolog.empty() || !spawn.task_epilog.empty()) {
      if (spec.task_wrapper.empty()) {
        task.failure = "task prolog/epilog: this node has no shepherd to run them";
        task.reaped = true;
        task.wstatus = 2 << 8;
        continue;
      }
      argv_copy = {spec.task_wrapper, "--task-wrap"};
      if (!spawn.task_prolog.empty()) argv_copy.push_back("--prolog=" + spawn.task_prolog);
      if (!spawn.task_epilog.empty()) argv_copy.push_back("--epilog=" + spawn.task_epilog);
      argv_copy.push_back("--");
      argv_copy.push_back(exe);
      argv_copy.insert(argv_copy.end(), spawn.argv.begin() + 1, spawn.argv.end());
      exe = spec.task_wrapper;
    }
    std::vector<std::string> env_copy = spawn.env;
    // SLURM_TASK_PID: room for the digits, which the child writes in before
    // exec (it knows its pid only then; nothing there may allocate).
    constexpr char kTaskPid[] = "SLURM_TASK_PID=";
    env_copy.erase(
        std::remove_if(env_copy.begin(), env_copy.end(),
                       [&](const std::string& kv) { return kv.rfind(kTaskPid, 0) == 0; }),
        env_copy.end());  // srun's own (a batch script's) is not the task's
    env_copy.push_back(std::string(kTaskPid) + std::string(20, '\0'));
    const size_t task_pid_entry = env_copy.size() - 1;
    std::vector<char*> argv = CStrings(argv_copy);
    std::vector<char*> envp = CStrings(env_copy);
    char* const task_pid_digits = envp[task_pid_entry] + sizeof(kTaskPid) - 1;
    std::vector<const char*> procs;
    for (const std::string& f : spec.cgroup_procs_files) procs.push_back(f.c_str());

    int mount_namespace = -1;
    if (!spawn.mount_namespace.empty()) {
      mount_namespace = open(spawn.mount_namespace.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (mount_namespace < 0) {
        task.failure = absl::StrCat("container: cannot enter the container's mount namespace ",
                                    spawn.mount_namespace, ": ", strerror(errno));
        task.reaped = true;
        task.wstatus = 1 << 8;
        continue;
      }
    }
    int out[2], err[2], in[2] = {-1, -1}, report[2];
    if (spawn.pty) {
      // The terminal: the master stays here (read for output, written for
      // input), the slave becomes the task's controlling terminal.
      std::string failure = OpenPty(spec, spawn, out, in);
      if (!failure.empty()) {
        if (mount_namespace >= 0) close(mount_namespace);
        task.failure = failure;
        task.reaped = true;
        task.wstatus = 1 << 8;
        continue;
      }
      err[0] = err[1] = -1;
      task.pty = true;
    }
    // Files named by -o/-e/-i replace the streams.
    const bool out_file = !spawn.pty && !spawn.stdout_path.empty();
    const bool err_file =
        !spawn.pty && (!spawn.stderr_path.empty() || (out_file && !spawn.stderr_streamed));
    const bool in_file = !spawn.pty && !spawn.stdin_path.empty();
    const std::string err_path = spawn.stderr_path.empty() ? spawn.stdout_path : spawn.stderr_path;
    // The first task here to open a file truncates it; later ones append.
    const bool truncate_out = out_file && opened.insert(spawn.stdout_path).second;
    const bool truncate_err = err_file && opened.insert(err_path).second;
    if (!spawn.pty) out[0] = out[1] = err[0] = err[1] = -1;
    if ((!spawn.pty &&
         ((!out_file && pipe2(out, O_CLOEXEC) != 0) || (!err_file && pipe2(err, O_CLOEXEC) != 0) ||
          (spawn.stdin_pipe && !in_file && pipe2(in, O_CLOEXEC) != 0))) ||
        pipe2(report, O_CLOEXEC) != 0) {
      task.failure = absl::StrCat("cannot create pipes: ", strerror(errno));
      if (mount_namespace >= 0) close(mount_namespace);
      task.reaped = true;
      task.wstatus = 1 << 8;
      continue;
    }
    // vfork: the child borrows noded's memory until it execs, so a step's start
    // does not copy the page tables of a large multi-threaded daemon. Signals
    // stay blocked until the child has reset their handlers, and the child
    // changes its credentials with raw system calls (glibc's wrappers would
    // broadcast them to noded's threads, whose memory the child shares).
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    const pid_t pid = vfork();
    if (pid == 0) {
      // The child: async-signal-safe calls only, then exec.
      auto fail = [&](int stage) {
        ChildFailure f{stage, errno};
        (void)!write(report[1], &f, sizeof(f));
        _exit(2);
      };
      for (const char* file : procs) {
        if (WritePidAsyncSignalSafe(file, getpid()) != 0) fail(kJoinCgroup);
      }
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
      }
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      if (spawn.pty) {
        // Its own session, with the terminal as its controlling tty.
        setsid();
        ioctl(out[1], TIOCSCTTY, 0);
        dup2(out[1], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
      } else {
        setpgid(0, 0);
        if (spawn.stdin_pipe) {
          dup2(in[0], 0);
        } else {
          const int null_fd = open("/dev/null", O_RDONLY);
          if (null_fd >= 0) dup2(null_fd, 0);
        }
        if (out[1] >= 0) dup2(out[1], 1);
        if (err[1] >= 0) dup2(err[1], 2);
      }
      // Its own file-system context (vfork shares no CLONE_FS), so setns may
      // move it alone; before the work dir, which the namespace resets.
      if (mount_namespace >= 0 && setns(mount_namespace, CLONE_NEWNS) != 0) fail(kEnterNamespace);
      if (as_root) {
        if (syscall(SYS_setgroups, spec.groups.size(), spec.groups.data()) != 0 ||
            syscall(SYS_setgid, spec.gid) != 0 || syscall(SYS_setuid, spec.uid) != 0) {
          fail(kDropPrivileges);
        }
      }
      if (spawn.umask >= 0) umask(static_cast<mode_t>(spawn.umask));
      for (const auto& [resource, soft] : spawn.rlimits) {
        struct rlimit limit {};
        if (getrlimit(resource, &limit) != 0) continue;
        limit.rlim_cur = std::min<rlim_t>(static_cast<rlim_t>(soft), limit.rlim_max);
        setrlimit(resource, &limit);
      }
      {
        char digits[20];
        int n = 0;
        for (pid_t self = getpid(); self > 0 && n < 20; self /= 10) digits[n++] = '0' + self % 10;
        for (int k = 0; k < n; ++k) task_pid_digits[k] = digits[n - 1 - k];
        task_pid_digits[n] = '\0';
      }
      if (chdir(work_dir.c_str()) != 0) (void)!chdir("/");
      // -o/-e/-i files: opened as the user, relative to the work dir.
      if (out_file) {
        const int fd = open(spawn.stdout_path.c_str(),
                            O_WRONLY | O_CREAT | O_APPEND | (truncate_out ? O_TRUNC : 0), 0644);
        if (fd < 0 || dup2(fd, 1) < 0) fail(kOpenStdout);
      }
      if (err_file) {
        if (err_path == spawn.stdout_path && out_file) {
          dup2(1, 2);
        } else {
          const int fd = open(err_path.c_str(),
                              O_WRONLY | O_CREAT | O_APPEND | (truncate_err ? O_TRUNC : 0), 0644);
          if (fd < 0 || dup2(fd, 2) < 0) fail(kOpenStderr);
        }
      }
      if (in_file) {
        const int fd = open(spawn.stdin_path.c_str(), O_RDONLY);
        if (fd < 0 || dup2(fd, 0) < 0) fail(kOpenStdin);
      }
      execve(exe.c_str(), argv.data(), envp.data());
      fail(kExec);
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    if (mount_namespace >= 0) close(mount_namespace);
    if (out[1] >= 0) close(out[1]);
    if (err[1] >= 0) close(err[1]);
    close(report[1]);
    if (in[0] >= 0) close(in[0]);
    if (pid < 0) {
      task.failure = absl::StrCat("fork: ", strerror(errno));
      if (out[0] >= 0) close(out[0]);
      if (err[0] >= 0) close(err[0]);
      close(report[0]);
      if (in[1] >= 0) close(in[1]);
      task.reaped = true;
      task.wstatus = 1 << 8;
      continue;
    }
    task.pid = pid;
    if (i == 0) {
      self->debug_to_ = task.pty      ? DebugTo::kTerminal
                        : err[0] >= 0 ? DebugTo::kStderr
                                      : DebugTo::kNowhere;
    }
    // Its exit wakes Pump's poll (Linux 5.3 and later; -1 before: Pump polls).
    task.pid_fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    task.out_fd = out[0];
    task.err_fd = err[0];
    task.in_fd = in[1];
    // Blocks until the child has exec'd (end of file) or failed.
    ChildFailure failure{0, 0};
    ssize_t n;
    do {
      n = read(report[0], &failure, sizeof(failure));
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == static_cast<ssize_t>(sizeof(failure))) {
      switch (failure.stage) {
        case kJoinCgroup:
          task.failure = absl::StrCat("cannot join the job's cgroup: ", strerror(failure.err));
          break;
        case kEnterNamespace:
          task.failure = absl::StrCat("container: cannot enter the container's mount namespace ",
                                      spawn.mount_namespace, ": ", strerror(failure.err));
          break;
        case kDropPrivileges:
          task.failure = absl::StrCat("cannot become uid ", spec.uid, ": ", strerror(failure.err));
          break;
        case kOpenStdout:
          task.failure = absl::StrCat("Could not open stdout file ", spawn.stdout_path, ": ",
                                      strerror(failure.err));
          break;
        case kOpenStderr:
          task.failure =
              absl::StrCat("Could not open stderr file ", err_path, ": ", strerror(failure.err));
          break;
        case kOpenStdin:
          task.failure = absl::StrCat("Could not open stdin file ", spawn.stdin_path, ": ",
                                      strerror(failure.err));
          break;
        default:
          task.failure = absl::StrCat("execve(): ", spawn.argv[0], ": ", strerror(failure.err));
      }
    }
    if (self->debug_) {
      absl::StrAppend(&self->debug_lines_, StepdLine(absl::StrCat("task ", task.task_id, " (", pid,
                                                                  ") started ", TimeStamp())));
    }
  }
  self->chdir_note_ = chdir_note;  // shown on each task's stderr by the first Pump
  return self;
}

StepTasks::~StepTasks() {
  for (Task& task : tasks_) {
    if (!task.reaped && task.pid > 0) {
      kill(-task.pid, SIGKILL);
      kill(task.pid, SIGKILL);
      waitpid(task.pid, nullptr, 0);
    } else if (task.pid > 0) {
      kill(-task.pid, SIGKILL);
    }
    CloseFd(&task.out_fd);
    CloseFd(&task.err_fd);
    CloseFd(&task.in_fd);
    CloseFd(&task.pid_fd);
  }
}

bool StepTasks::Pump(int timeout_ms, const OutputFn& output, const EndFn& ended) {
  if (!chdir_note_.empty()) {
    for (const Task& task : tasks_) output(task.task_id, true, chdir_note_);
    chdir_note_.clear();
  }
  // --slurmd-debug's lines, as the first task's stderr when srun gets it.
  auto send_debug_lines = [&] {
    if (debug_lines_.empty()) return;
    if (debug_to_ != DebugTo::kNowhere) {
      output(tasks_.front().task_id, debug_to_ == DebugTo::kStderr, debug_lines_);
    }
    debug_lines_.clear();
  };
  if (debug_) send_debug_lines();
  std::vector<pollfd> fds;
  std::vector<std::pair<size_t, int>> owners;  // task index, 0 stdout / 1 stderr / 2 its exit
  bool exits_watched = true;                   // every running task has a pidfd
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (tasks_[i].out_fd >= 0) {
      fds.push_back({tasks_[i].out_fd, POLLIN, 0});
      owners.push_back({i, 0});
    }
    if (tasks_[i].err_fd >= 0) {
      fds.push_back({tasks_[i].err_fd, POLLIN, 0});
      owners.push_back({i, 1});
    }
    if (!tasks_[i].reaped && tasks_[i].pid > 0) {
      if (tasks_[i].pid_fd >= 0) {
        fds.push_back({tasks_[i].pid_fd, POLLIN, 0});
        owners.push_back({i, 2});
      } else {
        exits_watched = false;
      }
    }
  }
  bool all_reaped = true;
  for (const Task& task : tasks_) all_reaped = all_reaped && task.reaped;
  // A task's exit wakes poll through its pidfd; without one (an old kernel),
  // wake now and then to reap it even without output.
  const int wait_ms = fds.empty() ? 0
                                  : std::min(timeout_ms, all_reaped      ? 50
                                                         : exits_watched ? timeout_ms
                                                                         : 20);
  if (!fds.empty()) {
    const int ready = poll(fds.data(), fds.size(), wait_ms);
    if (ready > 0) {
      char buf[65536];
      for (size_t f = 0; f < fds.size(); ++f) {
        if ((fds[f].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        if (owners[f].second == 2) continue;  // reaped below
        Task& task = tasks_[owners[f].first];
        const bool is_stderr = owners[f].second == 1;
        int* fd = is_stderr ? &task.err_fd : &task.out_fd;
        const ssize_t n = read(*fd, buf, sizeof(buf));
        if (n > 0) {
          output(task.task_id, is_stderr, std::string(buf, static_cast<size_t>(n)));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          CloseFd(fd);
        }
      }
    }
  } else if (!all_reaped) {
    usleep(static_cast<useconds_t>(std::min(timeout_ms, 20)) * 1000);
  }
  {
    absl::MutexLock lock(&mu_);
    for (Task& task : tasks_) {
      if (task.reaped || task.pid <= 0) continue;
      const pid_t r = wait4(task.pid, &task.wstatus, WNOHANG, &task.usage);
      if (r == task.pid || (r < 0 && errno == ECHILD)) {
        task.reaped = true;
        if (debug_ && r == task.pid) {
          const std::string who = absl::StrCat("task ", task.task_id, " (", task.pid, ") exited");
          if (WIFSIGNALED(task.wstatus)) {
            absl::StrAppend(
                &debug_lines_,
                StepdLine(absl::StrCat(who, ". Killed by signal ", WTERMSIG(task.wstatus),
                                       WCOREDUMP(task.wstatus) ? " (core dumped)" : "", ".")));
          } else {
            absl::StrAppend(&debug_lines_, StepdLine(absl::StrCat(who, " with exit code ",
                                                                  WEXITSTATUS(task.wstatus), ".")));
          }
        }
        // What the task left running in its group ends with it (Slurm's step end).
        kill(-task.pid, SIGKILL);
        CloseFd(&task.in_fd);
        CloseFd(&task.pid_fd);
      }
    }
  }
  if (debug_) send_debug_lines();  // a task's end line before its end is reported
  all_reaped = true;
  for (const Task& task : tasks_) all_reaped = all_reaped && task.reaped;
  if (all_reaped && all_reaped_at_ms_ == 0) all_reaped_at_ms_ = NowMs();
  const bool give_up_on_pipes = all_reaped && NowMs() - all_reaped_at_ms_ > kDrainAfterExitMs;
  bool pending = false;
  for (Task& task : tasks_) {
    if (task.reported) continue;
    if (task.reaped && give_up_on_pipes) {
      CloseFd(&task.out_fd);
      CloseFd(&task.err_fd);
    }
    if (!task.reaped || task.out_fd >= 0 || task.err_fd >= 0) {
      pending = true;
      continue;
    }
    TaskEnd end;
    end.task_id = task.task_id;
    end.failure = task.failure;
    auto usec = [](const struct timeval& tv) {
      return static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
    };
    end.user_cpu_usec = usec(task.usage.ru_utime);
    end.system_cpu_usec = usec(task.usage.ru_stime);
    end.max_rss_kb = task.usage.ru_maxrss;
    if (WIFSIGNALED(task.wstatus)) {
      end.signal = WTERMSIG(task.wstatus);
    } else if (WIFEXITED(task.wstatus)) {
      end.exit_code = WEXITSTATUS(task.wstatus);
    }
    task.reported = true;
    ended(end);
  }
  return pending;
}

void StepTasks::WriteStdin(int task_id, const std::string& data) {
  absl::MutexLock lock(&mu_);
  for (Task& task : tasks_) {
    if (task.in_fd < 0 || (task_id >= 0 && task.task_id != task_id)) continue;
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = write(task.in_fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        CloseFd(&task.in_fd);  // the task closed its stdin
        break;
      }
      done += static_cast<size_t>(n);
    }
  }
}

void StepTasks::CloseStdin() {
  absl::MutexLock lock(&mu_);
  for (Task& task : tasks_) {
    if (task.pty && task.in_fd >= 0) {
      // A terminal is not closed under its session: it reads end of file.
      termios mode{};
      const char eof = tcgetattr(task.in_fd, &mode) == 0 ? static_cast<char>(mode.c_cc[VEOF]) : 4;
      (void)!write(task.in_fd, &eof, 1);
      continue;
    }
    CloseFd(&task.in_fd);
  }
}

void StepTasks::Resize(int rows, int cols) {
  absl::MutexLock lock(&mu_);
  winsize size{};
  size.ws_row = static_cast<unsigned short>(rows);
  size.ws_col = static_cast<unsigned short>(cols);
  for (const Task& task : tasks_) {
    if (task.pty && task.in_fd >= 0) ioctl(task.in_fd, TIOCSWINSZ, &size);
  }
}

std::vector<std::pair<int, pid_t>> StepTasks::RunningTasks() {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<int, pid_t>> out;
  for (const Task& task : tasks_) {
    if (task.pid > 0 && !task.reaped) out.emplace_back(task.task_id, task.pid);
  }
  return out;
}

void StepTasks::Signal(int sig) {
  absl::MutexLock lock(&mu_);
  for (const Task& task : tasks_) {
    if (task.pid > 0 && !task.reaped) kill(-task.pid, sig);
  }
}

}  // namespace skiff::noded
