// Runs scripts in killable children: the process side of scriptd, without gRPC.
//
// One child per Run(), in its own process group, with exactly the given
// environment, stdin from the request's bytes, stdout+stderr captured together
// (the last kMaxOutputTail bytes are kept). A timeout or Kill() sends SIGKILL to the
// whole group; when the script ends by itself, whatever it left in its group is
// killed too (as Slurm does after PrologSlurmctld/EpilogSlurmctld).
//
// The Lua helper (`scriptd --run-lua`, see LuaRunner) uses a few options scripts
// leave off: stdout kept apart from stderr, stderr handed over line by line, a
// result pipe on the child's fd 3, SIGTERM before SIGKILL (kill_grace), and
// the child's death with scriptd (parent_death_signal).
//
// Threads: Run() blocks the calling thread until the child has ended (it polls the
// child's pidfd, its output pipes and its stdin pipe) and reaps the child itself with
// waitpid on that pid; nothing else in the process may reap it, so the process must
// neither ignore SIGCHLD nor call waitpid(-1). Any number of Run() calls may proceed
// at once, each on its own thread. Kill(), KillJob(), KillAll() and Running() may be
// called from any thread. Between fork and exec the child calls only
// async-signal-safe functions: everything it needs (argv, envp, groups, /dev/null)
// is prepared first.
//
// Ownership: the runner owns the table of running requests (behind mu_); each entry
// is created and erased by the Run() call that owns it. The logger must outlive the
// runner, and the runner must outlive every Run() call (in scriptd: KillAll(), then
// the gRPC server's Shutdown(), which waits for its handlers, then the runner goes).
#ifndef SKIFF_SCRIPTD_SCRIPT_RUNNER_H_
#define SKIFF_SCRIPTD_SCRIPT_RUNNER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "spdlog/spdlog.h"

namespace skiff::scriptd {

struct ScriptRequest {
  std::string request_id;                          // unique among running requests
  std::string path;                                // executable, run without a PATH search
  std::vector<std::string> argv;                   // arguments after the path
  std::map<std::string, std::string> environment;  // the child's complete environment
  int64_t timeout_seconds = 0;                     // 0 = none
  std::string work_dir;                            // empty = "/"
  uint64_t job_id = 0;                             // for logs only
  uid_t uid = 0;           // 0 = the runner's own user; honoured only when the runner is root
  gid_t gid = 0;           // 0 with a uid = the user's primary group
  std::string stdin_data;  // written to stdin, then closed

  // Options for the Lua helper; scripts keep the defaults.
  std::string argv0;  // the child's argv[0] and its name in logs; empty = path
  // > 0: a timeout, Kill() or KillJob() sends SIGTERM to the group first, and
  // SIGKILL once this has passed or the group has ended (its leader exited and
  // every output pipe is closed), whichever comes first. 0: SIGKILL at once.
  // KillAll() (shutdown) always sends SIGKILL.
  absl::Duration kill_grace = absl::ZeroDuration();
  // stdout kept apart from stderr: ScriptResult::stdout_data holds stdout (its
  // first kMaxStdout bytes), output_tail the tail of stderr alone.
  bool split_output = false;
  // With split_output: called on the Run() thread with each line of stderr
  // (without its newline; a line longer than kMaxLine is cut into pieces).
  std::function<void(std::string_view line)> on_stderr_line;
  // The child gets a pipe as fd 3; what it writes there is ScriptResult::fd3_data
  // (the first kMaxOutputTail bytes).
  bool fd3_pipe = false;
  // Set as the child's PR_SET_PDEATHSIG (0 = none): the signal it gets when the
  // runner's process dies (the thread that runs Run() stays until the child ends).
  int parent_death_signal = 0;
};

struct ScriptResult {
  int exit_code = 0;  // when it exited; 127 when it could not start
  int signal = 0;     // when a signal ended it
  bool timed_out = false;
  bool killed = false;      // by Kill() or KillAll()
  std::string output_tail;  // last kMaxOutputTail bytes of stdout+stderr
  pid_t pid = 0;
  std::string error;        // could not start: why ("cannot execute /x: No such file or directory")
  std::string stdout_data;  // split_output only: raw bytes, possibly not UTF-8
  bool stdout_truncated = false;  // stdout was longer than kMaxStdout
  std::string fd3_data;           // fd3_pipe only: raw bytes
};

// Told when a child (and so its process group) starts and when Run() has reaped it
// and killed what it left in its group. Called on the Run() thread, outside the
// runner's lock; must not call back into the runner.
class ChildObserver {
 public:
  virtual ~ChildObserver() = default;
  virtual void ChildStarted(const std::string& request_id, pid_t pgid) = 0;
  virtual void ChildEnded(const std::string& request_id) = 0;
};

// proto3 strings must be UTF-8: drops a partial character at the start (a tail cut
// at a byte count) and turns every other invalid byte into '?'; never grows.
std::string ValidUtf8(const std::string& bytes);

class ScriptRunner {
 public:
  static constexpr size_t kMaxOutputTail = 4096;
  static constexpr size_t kMaxStdout = 1 << 20;
  static constexpr size_t kMaxLine = 16384;

  // `observer` (may be null) must outlive the runner.
  explicit ScriptRunner(spdlog::logger& logger, ChildObserver* observer = nullptr);
  ScriptRunner(const ScriptRunner&) = delete;
  ScriptRunner& operator=(const ScriptRunner&) = delete;

  // Runs one script and returns when it has ended. AlreadyExists when request_id is
  // running, InvalidArgument for a malformed request, Unavailable after KillAll() or
  // when no child could be created (pipes, fork). A script that cannot be executed is
  // an OK result with exit_code 127 and `error` set.
  absl::StatusOr<ScriptResult> Run(const ScriptRequest& request);

  // Kills the request's process group (SIGKILL, or SIGTERM first with a
  // kill_grace); false when it is not running.
  bool Kill(const std::string& request_id);

  // Kill() for every running request of the job (job_id 0 matches nothing);
  // returns how many were running.
  int KillJob(uint64_t job_id);

  // Kills every running request and refuses new ones from now on (shutdown).
  void KillAll();

  // Waits until no Run() call is in progress; false when `limit` passed first.
  bool WaitUntilIdle(absl::Duration limit);

  // Run() calls in progress (a script that has just ended counts until its call
  // returns).
  int Running();

 private:
  struct Entry {
    pid_t pid = 0;  // 0 until forked; the process group id too
    uint64_t job_id = 0;
    absl::Duration kill_grace;
    int wake_fd = -1;  // eventfd that wakes Run() when Kill() starts a grace; -1 = none
    bool killed = false;
    bool timed_out = false;
    bool term_sent = false;  // SIGTERM sent; SIGKILL due at kill_at
    bool kill_sent = false;  // SIGKILL sent
    std::chrono::steady_clock::time_point kill_at;
    bool reaped = false;  // ended; Run() is collecting the last output
  };

  struct Child;  // one Run() call's child: its fds and output readers (script_runner.cc)

  // What WaitForChild() learns under mu_ on each turn of its loop.
  struct KillTimers {
    bool timed_out = false;      // the deadline passed on this turn: the child was signalled
    bool grace_running = false;  // SIGTERM sent, SIGKILL due at kill_at
    std::chrono::steady_clock::time_point kill_at;
  };

  // Adds the request's entry: Unavailable after KillAll(), AlreadyExists when its id
  // is running. `wake_fd` is the entry's wake_fd.
  absl::Status Register(const ScriptRequest& request, int wake_fd) ABSL_LOCKS_EXCLUDED(mu_);
  // Erases the entry Register() added (after its child, if any, has been reaped).
  void Forget(const std::string& request_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Records a forked child's pid in its entry (SIGKILL at once when Kill() or
  // KillAll() came before fork), logs the start and tells the observer.
  void PublishChild(const ScriptRequest& request, pid_t pid) ABSL_LOCKS_EXCLUDED(mu_);
  // Run()'s wait loop: until the child has ended, feeds its stdin, reads its output,
  // times it out and follows a SIGTERM with SIGKILL when its grace has run out.
  void WaitForChild(Child& child) ABSL_LOCKS_EXCLUDED(mu_);
  // One turn's kill decisions, under mu_ with Kill()'s state: times the child out once
  // `deadline` (null = none to check) has passed, and sends SIGKILL when a grace ends.
  KillTimers CheckKillTimers(const std::string& request_id, pid_t pid,
                             const std::chrono::steady_clock::time_point* deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Kills what the ended child left in its group, reaps it into `status` and marks
  // its entry reaped; returns a copy of the entry.
  Entry Reap(const std::string& request_id, pid_t pid, int& status) ABSL_LOCKS_EXCLUDED(mu_);
  // Signals a forked child's group: SIGTERM (starting the grace) or SIGKILL.
  void SignalLocked(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Kill() on one entry; false when it is not running any more.
  bool KillLocked(const std::string& request_id, Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  spdlog::logger& logger_;
  ChildObserver* const observer_;
  absl::Mutex mu_;
  std::map<std::string, Entry> running_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace skiff::scriptd

#endif  // SKIFF_SCRIPTD_SCRIPT_RUNNER_H_
