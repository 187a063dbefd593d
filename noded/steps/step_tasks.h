// The tasks of one step on this node (slurmstepd's part for srun steps): forked
// by noded, fork + exec at once with only async-signal-safe calls in between
// (DESIGN.md), their stdin, stdout and stderr pipes kept by this object.
//
// Threads: Start, Pump and the destructor run on the RunTasks call's thread;
// WriteStdin, CloseStdin and Signal may run on another (the call's reader);
// mu_ guards the stdin descriptors and the pids those use.
#ifndef SKIFF_NODED_STEPS_STEP_TASKS_H_
#define SKIFF_NODED_STEPS_STEP_TASKS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace skiff::noded {

struct TaskSpawn {
  int task_id = 0;
  std::vector<std::string> argv;  // argv[0] searched in the environment's PATH
  std::vector<std::string> env;   // "NAME=VALUE"
  bool stdin_pipe = false;        // else /dev/null
  // srun --pty: the task runs in its own session on a pseudo-terminal, which is
  // its stdin, stdout and stderr (its output comes as stdout); stdin_pipe is
  // implied.
  bool pty = false;
  // The terminal's size from the start (srun's when it asked), so the task's
  // first `stty size` is right; 0 leaves the kernel's 0x0 until a resize.
  int rows = 0;
  int cols = 0;
  // srun -o/-e/-i: files (opened by the task as its user, relative to the work
  // dir) instead of the streams; stderr_path empty with stdout_path set: the
  // same file, unless stderr_streamed (srun -e all, -e N). Truncated by the
  // first task of this step here that opens it.
  std::string stdout_path;
  std::string stderr_path;
  std::string stdin_path;
  bool stderr_streamed = false;
  // srun's umask (-1: noded's) and resource limits (RLIMIT_*, soft limit,
  // capped at the hard limit), applied before exec; and SLURM_TASK_PID, the
  // task's own pid, added to `env`.
  int umask = -1;
  std::vector<std::pair<int, uint64_t>> rlimits;
  // srun --task-prolog / --task-epilog (noded/task_wrapper.h): the task then runs
  // under StepTasksSpec::task_wrapper.
  std::string task_prolog;
  std::string task_epilog;
  // srun --container: the runner's flags (noded/container/oci_runner.h); the
  // task then runs as `task_wrapper --oci-run FLAGS -- ARGV` (its prolog and
  // epilog are not run). Empty: on the host.
  std::vector<std::string> container_flags;
  // An image container's mount namespace (container_namespace.h): entered
  // before privileges are dropped. Empty: noded's.
  std::string mount_namespace;
};

struct StepTasksSpec {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string work_dir;
  // Each task writes its pid to these before exec (the job's cgroup), as the
  // batch script does (shepherd.h).
  std::vector<std::string> cgroup_procs_files;
  // The shepherd binary, whose --task-wrap mode runs a task's prolog and
  // epilog around it; "" refuses tasks that have either.
  std::string task_wrapper;
  std::vector<TaskSpawn> tasks;
  // srun --slurmd-debug: what Slurm adds to slurmstepd's error level for the
  // step's stderr (0..4). From 2 (verbose) on, this node's lines about the
  // tasks come as the first task's stderr (when that is streamed: not to its
  // -e file), each after "slurmstepd: ", as slurmstepd logs to that task's
  // stderr: the levels ("debug levels are stderr='verbose', logfile='info',
  // syslog='quiet'", logfile being `log_level`, noded's own), "starting 2
  // tasks", "task 0 (4242) started 2026-12-03T12:11:13" and "task 0 (4242)
  // exited with exit code 0." (or "exited. Killed by signal 9."). Higher
  // levels add none of Slurm's internal debug lines.
  int debug = 0;
  std::string log_level = "info";
};

struct TaskEnd {
  int task_id = 0;
  int exit_code = 0;
  int signal = 0;
  // Its wait4 rusage: CPU time in microseconds, peak resident set in KiB.
  int64_t user_cpu_usec = 0;
  int64_t system_cpu_usec = 0;
  int64_t max_rss_kb = 0;
  std::string failure;  // could not start: "execve(): nosuch: No such file or directory"
};

// Where `command` runs from: itself when it holds a '/', else the first
// executable file of that name in `path` (colon-separated); `command` itself
// when none is (exec then fails with ENOENT).
std::string ResolveCommand(const std::string& command, const std::string& path);

class StepTasks {
 public:
  // Starts every task. Never fails as a whole: a task that cannot start ends at
  // once (exit code 2 and a failure text, as slurmstepd's failed execve).
  static std::unique_ptr<StepTasks> Start(const StepTasksSpec& spec);
  // Kills what is left of the tasks (their process groups) and reaps them.
  ~StepTasks();

  using OutputFn = std::function<void(int task_id, bool is_stderr, const std::string& data)>;
  using EndFn = std::function<void(const TaskEnd& end)>;
  // Waits up to `timeout_ms` for output or ends and reports them, a task's end
  // after all of its output. Returns false once every task has been reported.
  bool Pump(int timeout_ms, const OutputFn& output, const EndFn& ended);

  // `task_id` -1: every task with a stdin pipe.
  void WriteStdin(int task_id, const std::string& data);
  // End of input: pipes are closed; a terminal gets its end-of-file character.
  void CloseStdin();
  // srun's terminal changed size: every pty task's terminal follows.
  void Resize(int rows, int cols);
  // To every task's process group.
  void Signal(int sig);
  // The tasks still running: (task id, pid).
  std::vector<std::pair<int, pid_t>> RunningTasks();

 private:
  struct Task {
    int task_id = 0;
    pid_t pid = 0;
    int out_fd = -1;
    int err_fd = -1;
    int in_fd = -1;
    int pid_fd = -1;   // pidfd_open: readable once the task has exited
    bool pty = false;  // in_fd is the pseudo-terminal's master
    bool reaped = false;
    int wstatus = 0;
    struct rusage usage {};  // from wait4 when reaped
    std::string failure;
    bool reported = false;
  };
  StepTasks() = default;

  absl::Mutex mu_;
  std::vector<Task> tasks_;       // the vector itself is fixed after Start
  int64_t all_reaped_at_ms_ = 0;  // when the last task was reaped (Pump's thread)
  std::string chdir_note_;        // slurmstepd's line when the work dir was not usable
  // --slurmd-debug: the tasks' lines not yet sent (Pump's thread), and as
  // what they go: the first task's stderr stream, its terminal (--pty: its
  // stdout stream) or nothing (its stderr is a file).
  bool debug_ = false;
  enum class DebugTo { kStderr, kTerminal, kNowhere } debug_to_ = DebugTo::kNowhere;
  std::string debug_lines_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_TASKS_H_
