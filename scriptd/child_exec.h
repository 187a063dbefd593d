// The child's side of ScriptRunner::Run(): what happens between vfork and execve.
//
// Run() prepares a ChildPlan (argv, envp, fds, credentials) in the parent, then
// SpawnChild() vforks; the child sets up its signals, process group, fds, user and
// directory from the plan alone and execs. When it cannot reach execve it writes a
// ChildFailure to plan.report_fd (a CLOEXEC pipe, so EOF there means execve
// succeeded) and exits 127.
//
// Threads: SpawnChild() may be called from any number of threads at once. The child
// shares the parent's memory until execve: it calls only async-signal-safe functions
// and reads nothing but the plan, which must stay valid until SpawnChild() returns.
#ifndef SKIFF_SCRIPTD_CHILD_EXEC_H_
#define SKIFF_SCRIPTD_CHILD_EXEC_H_

#include <sys/types.h>

#include <cstddef>

namespace skiff::scriptd {

// What the child reports on its CLOEXEC pipe when it cannot reach execve.
enum class ChildStep : int { kSetup = 1, kGroups, kGid, kUid, kChdir, kExec };
struct ChildFailure {
  ChildStep step;
  int err;
};

// Everything the child needs, prepared before fork (the child may not allocate).
// REQUIRES: every fd is above 3 (the child's dup2 targets), so that no dup2
// overwrites another's source.
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

// vforks a child that runs `plan` and returns its pid (-1 with errno when vfork
// failed). The child never returns: it ends in execve or _exit(127).
pid_t SpawnChild(const ChildPlan& plan);

// ChildPlan::max_fd: the open-files limit (capped at 1 << 20), 65536 when there is
// none, for a child that must close its fds one by one.
int MaxFdForChild();

// A pidfd that polls readable when the child exits; -1 where the kernel or libc has
// none (the wait loop then asks waitid every 20 ms).
int OpenPidfd(pid_t pid);

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_CHILD_EXEC_H_
