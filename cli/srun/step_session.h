// srun's side of one job step: its RunStep stream to the job's step manager
// (noded.proto). It sends the step's request, then srun's stdin and the
// signals srun gets (Ctrl-C as Slurm's srun takes it); prints the tasks'
// output (labelled with -l) and srun's own lines as Slurm's srun does; and
// ends with srun's exit code. srun's terminal, clock and stream are injected:
// step_launch.cc passes the real ones, tests fakes.
//
// Threads: Run's thread reads the stream and prints. Run starts a thread that
// forwards stdin, detached since a read of a terminal cannot be interrupted:
// it may outlive Run and the session, so it holds only the session's link to
// the stream, which takes no write once Run has closed it. With -W, Run starts
// one more that ends the step once the first task has been gone that long,
// and joins it. Signal comes from srun's signal thread, before, during or after
// Run. Writes to the stream are serialized by the link; `write` is called from
// all of these threads (a call is one line or one piece of task output).
#ifndef SKIFF_CLI_SRUN_STEP_SESSION_H_
#define SKIFF_CLI_SRUN_STEP_SESSION_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/common/task_output.h"
#include "cli/srun/srun_options.h"
#include "proto/noded.pb.h"

namespace skiff::cli {

// srun's end of a RunStep call: the gRPC stream in srun, a fake in tests.
// Writes come one at a time; Cancel may come from any thread.
class StepStream {
 public:
  virtual ~StepStream() = default;
  virtual bool Write(const v1::StepInput& input) = 0;
  virtual bool Read(v1::StepOutput* output) = 0;
  virtual void WritesDone() = 0;
  // After Read returned false and WritesDone: how the call ended.
  virtual grpc::Status Finish() = 0;
  // Ends the call at once (Ctrl-C while the step waits for resources).
  virtual void Cancel() = 0;
};

struct StepSessionSpec {
  v1::StepRequest request;         // sent first; its job_id and ntasks name the step
  bool label = false;              // -l: each line starts with its task's label
  bool pty = false;                // --pty: the terminal is raw while the step runs
  bool quit_on_interrupt = false;  // --quit-on-interrupt: one Ctrl-C kills the step
  int verbose = 0;                 // -v: the launch lines once the step exists
  int wait_seconds = 0;            // -W: once the first task ended, the rest get this long; 0: any
  // The tasks' stderr printed on srun's stdout, as Slurm's srun when stderr
  // shares -o's "file" (-o N without -e, or -e N the same task).
  bool stderr_to_stdout = false;
};

// What a session does its I/O and time through.
struct StepSessionIo {
  // Writes `bytes` to fd 1 (the tasks' stdout) or 2 (their stderr and srun's lines).
  LabeledOutput::Writer write = WriteAll;
  int stdin_fd = 0;  // read to its end, each piece sent to the tasks
  // --pty: the terminal's size as srun sends it (a StepInput with nothing set
  // when it cannot be read), and the terminal made raw once the step exists
  // and restored when it ends (restore_terminal is called in any case).
  std::function<v1::StepInput()> window_input;
  std::function<void()> raw_terminal;
  std::function<void()> restore_terminal;
  // The clock of Ctrl-C's second press and of -W.
  std::function<std::chrono::steady_clock::time_point()> now = [] {
    return std::chrono::steady_clock::now();
  };
  std::chrono::milliseconds wait_poll{100};  // how often -W looks at the clock (real time)
};

class StepSession {
 public:
  StepSession(StepSessionSpec spec, StepSessionIo io);
  StepSession(const StepSession&) = delete;
  StepSession& operator=(const StepSession&) = delete;

  // Runs the step over `stream` (nothing sent yet) until the step manager's
  // last message or the stream's end, and returns srun's exit code: the
  // tasks' (SrunExitCode), or 1 when the step could not be created or the
  // step manager went away, having said why. Call once; `stream` need only
  // outlive the call.
  int Run(StepStream& stream);

  // What srun does with signal `sig`. SIGWINCH: with --pty, once the step
  // exists, the terminal's new size. SIGINT: once the step exists, the step's
  // status (a second within a second, or with --quit-on-interrupt: SIGKILL to
  // every task); before, SIGKILL. Any other: to every task. Before the step
  // exists, the call is then cancelled (srun gives up waiting). Sent once Run
  // has sent the request (a signal before waits for it); nothing is sent after
  // Run. REQUIRES: the session outlives the call.
  void Signal(int sig);

 private:
  class Link;

  // Handles one message of the step manager; true for its last.
  bool Take(const v1::StepOutput& out, LabeledOutput& output, bool* waited);
  void Say(const std::string& line);  // one of srun's lines on stderr
  void SayStatus();                   // the tasks' state, as one Ctrl-C shows it
  void EnforceWait();                 // -W's thread
  // srun's stdin to the tasks until its end (then stdin_eof), on a detached
  // thread that holds only `link`.
  static void ForwardStdin(std::shared_ptr<Link> link, int fd);
  std::string StepName() const;  // "StepId=J.S"

  const StepSessionSpec spec_;
  const StepSessionIo io_;
  const std::shared_ptr<Link> link_;

  std::atomic<bool> created_{false};  // the step exists (step_id_ is its id)
  std::atomic<uint32_t> step_id_{0};
  std::atomic<bool> ended_{false};  // Run has read the last message (or the stream ended)
  // When the first task ended (ms on io_.now's clock); 0: none yet.
  std::atomic<int64_t> first_exit_ms_{0};

  std::mutex results_mu_;
  std::vector<TaskResult> results_;  // under results_mu_: the tasks that ended

  std::mutex signal_mu_;                                  // serializes Signal
  std::chrono::steady_clock::time_point last_interrupt_;  // under signal_mu_
};

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SRUN_STEP_SESSION_H_
