// One running step as its step manager drives it: the fan-out of srun's input
// and signals to every node of the step, and the fan-in of the nodes' task
// output and ends into one sink (srun's stream and sattach's copies), with the
// step's own time limit (srun -t), kill_on_bad_exit, lost nodes and the end.
// NodedService::RunStep builds one per step with the real node streams; tests
// build it with fake ones and a fake clock.
//
// Threads: the constructor opens one TaskStream per node (on the caller's
// thread) and starts one reader thread per node and a finisher thread. A
// reader forwards its node's output and task ends to the sink; the finisher
// waits for every node, cancels the node streams if the job ends meanwhile,
// enforces the time limit, sends the last message (`finished`) and then keeps
// the nodes' calls open until srun has heard the end (SrunClosed), the job
// ended, or `srun_hears_the_end` passed. Signal, Input, Cancel and SrunClosed
// may come from any thread; Wait from one.
//
// Locks: `mu_` (readers done, srun closed, nodes released) is never held while
// writing to a stream or the sink (only the clock and job_running are asked
// under it). Each node's `mu` guards writes to its stream; `sink_mu_`
// serializes calls of the sink; `outcome_mu_` guards the outcome. None is
// held while taking another.
#ifndef SKIFF_NODED_STEPS_STEP_RUN_H_
#define SKIFF_NODED_STEPS_STEP_RUN_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "noded/steps/step_manager.h"
#include "noded/steps/step_record.h"
#include "noded/task_streams.h"
#include "proto/noded.pb.h"

namespace skiff::noded {

// The step's own time limit (srun -t) as a pure state machine over the
// injected clock: SIGTERM once the limit has passed, SIGKILL `kill_wait`
// later (as slurmstepd does). Each action is returned once.
class StepTimeLimit {
 public:
  enum class Action { kNone, kTerminate, kKill };
  using TimePoint = std::chrono::steady_clock::time_point;

  // `limit` zero: no limit, Tick always answers kNone.
  StepTimeLimit(TimePoint start, std::chrono::seconds limit, std::chrono::seconds kill_wait)
      : start_(start), limit_(limit), kill_wait_(kill_wait) {}
  Action Tick(TimePoint now);
  bool hit() const { return terminated_at_.has_value(); }

 private:
  const TimePoint start_;
  const std::chrono::seconds limit_;
  const std::chrono::seconds kill_wait_;
  std::optional<TimePoint> terminated_at_;
  bool killed_ = false;
};

// What srun sends after its request (stdin, its end, a signal, the terminal's
// size), as every node of the step takes it; nullopt for anything else.
std::optional<v1::TaskInput> TaskInputFromSrun(const v1::StepInput& input);

struct StepRunSpec {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::string manager_node;  // this node, named in the TIME LIMIT line
  // The step's nodes in launch order, and the global task ids on each.
  std::vector<std::string> nodes;
  std::vector<std::vector<int>> task_ids;
  std::chrono::seconds time_limit{0};  // srun -t; zero: none
  std::chrono::seconds kill_wait{30};  // KillWait: SIGTERM to SIGKILL
  bool kill_on_bad_exit = false;       // a task that fails kills the others
  // How long the nodes' calls stay open after `finished` waiting for srun to
  // close its side: a node whose Prolog failed reports it when its call
  // closes, and ctld's requeue then ends srun, which must have said why first.
  std::chrono::seconds srun_hears_the_end{30};
  // How often the finisher looks at the clock and the job (real time).
  std::chrono::milliseconds poll{100};
};

// What StepRun does its I/O and time through; all must outlive the StepRun.
struct StepRunDeps {
  // Opens node `i`'s stream (its launch already sent). Called on the
  // constructor's thread, once per node, in order.
  std::function<std::unique_ptr<TaskStream>(size_t node)> open_stream;
  // Where the step's output goes (srun and sattach); called one at a time.
  std::function<void(const v1::StepOutput&)> sink;
  // Whether the job still runs here; once it does not, the step ends.
  std::function<bool()> job_running;
  // The clock the time limit and srun_hears_the_end are counted on.
  std::function<std::chrono::steady_clock::time_point()> now = [] {
    return std::chrono::steady_clock::now();
  };
  std::function<int64_t()> unix_now;  // the TIME LIMIT line's time; null: time()
  // Called by the finisher once `finished` is sent, before the nodes' calls
  // wait for srun to hear it, with how the tasks ended (may be null).
  std::function<void(const StepOutcome&)> told_srun;
};

// The StepManager reaches it as the step's StepHandle while the step runs.
class StepRun final : public StepHandle {
 public:
  StepRun(StepRunSpec spec, StepRunDeps deps);
  // If Wait was not called: cancels the node streams and waits for the threads.
  ~StepRun() override;
  StepRun(const StepRun&) = delete;
  StepRun& operator=(const StepRun&) = delete;

  // To every task on every node (srun, scancel -s, SignalJob).
  void Signal(int sig) override;
  // scancel N.S: SIGKILL to every task, and the step's record says CANCELLED.
  void Cancel() override;
  // stdin, its end, the window size, one task's stdin: to every node (a node
  // passes it to the tasks it concerns).
  void Input(const v1::TaskInput& input) override;
  // srun closed its side of the stream or went away. Before the step's end
  // this ends its tasks (their streams are cancelled); after it, the nodes'
  // calls may close.
  void SrunClosed();
  // Blocks until the step has ended and its nodes' calls have closed; returns
  // how its tasks ended. Call once.
  StepOutcome Wait();

 private:
  struct Node {
    std::string name;
    std::vector<int> task_ids;
    std::unique_ptr<TaskStream> stream;
    std::mutex mu;        // guards writes to `stream` and `closed`
    bool closed = false;  // WritesDone sent: no more writes
    std::set<int> ended;  // tasks whose end was forwarded (its reader only)
  };

  void Read(Node& node);  // one node's reader thread
  void Finish();          // the finisher thread
  void Send(const v1::TaskInput& input);
  void CancelStreams();
  void Emit(const v1::StepOutput& out);
  void ReaderDone();

  const StepRunSpec spec_;
  StepRunDeps deps_;
  const std::chrono::steady_clock::time_point started_;  // the time limit counts from here
  std::vector<std::unique_ptr<Node>> nodes_;             // fixed after construction

  std::mutex sink_mu_;  // serializes deps_.sink

  std::mutex outcome_mu_;
  StepOutcome outcome_;  // under outcome_mu_

  std::atomic<bool> all_ended_{false};  // `finished` sent
  std::atomic<bool> cancelled_{false};  // scancel N.S
  std::atomic<bool> timed_out_{false};  // srun -t

  std::mutex mu_;
  std::condition_variable changed_;  // with mu_: a reader done, srun closed, nodes released
  size_t readers_done_ = 0;          // under mu_
  bool srun_closed_ = false;         // under mu_
  bool release_nodes_ = false;       // under mu_: the nodes' calls may close

  std::vector<std::thread> readers_;  // joined by the finisher
  std::thread finisher_;              // joined by Wait or the destructor
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_STEPS_STEP_RUN_H_
