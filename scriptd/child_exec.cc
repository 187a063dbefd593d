#include "scriptd/child_exec.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

namespace skiff::scriptd {
namespace {

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
  auto fail = [&plan](ChildStep step) {
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
  if (setpgid(0, 0) != 0) fail(ChildStep::kSetup);
  // Every source fd is above 3 (AboveStdio), so no dup2 overwrites another's source.
  if (dup2(plan.stdin_fd, 0) < 0 || dup2(plan.output_fd, 1) < 0 || dup2(plan.stderr_fd, 2) < 0 ||
      (plan.fd3 >= 0 && dup2(plan.fd3, 3) < 0)) {
    fail(ChildStep::kSetup);
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
    if (syscall(SYS_setgroups, plan.group_count, plan.groups) != 0) fail(ChildStep::kGroups);
    if (syscall(SYS_setgid, plan.gid) != 0) fail(ChildStep::kGid);
    if (syscall(SYS_setuid, plan.uid) != 0) fail(ChildStep::kUid);
  }
  // After setuid, which clears the parent-death signal.
  if (plan.parent_death_signal != 0) {
    if (prctl(PR_SET_PDEATHSIG, plan.parent_death_signal) != 0) fail(ChildStep::kSetup);
    // The parent died before prctl: the signal will never come.
    if (getppid() != plan.parent_pid) _exit(127);
  }
  // After setuid: the directory must be the user's to enter.
  if (chdir(plan.work_dir) != 0) fail(ChildStep::kChdir);
  execve(plan.path, plan.argv, plan.envp);
  fail(ChildStep::kExec);
  _exit(127);  // not reached
}

}  // namespace

// vfork in a frame of its own: the child never returns from it (ChildExec ends in
// execve or _exit), and Run()'s locals are not "clobbered" by a second return.
__attribute__((noinline)) pid_t SpawnChild(const ChildPlan& plan) {
  const pid_t pid = vfork();
  if (pid == 0) ChildExec(plan);
  return pid;
}

int MaxFdForChild() {
  struct rlimit nofile;
  int max_fd = 65536;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY) {
    max_fd = static_cast<int>(std::min<rlim_t>(nofile.rlim_cur, 1 << 20));
  }
  return max_fd;
}

int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

}  // namespace skiff::scriptd
