// HealthCheckProgram (Slurm's slurmd health check): noded runs the program every
// HealthCheckInterval seconds (and once at start) while the node's state matches
// HealthCheckNodeState. A failing run (exit status not 0, or killed after
// kHealthCheckTimeout) drains the node with the program's output as the reason,
// through ctld's UpdateNode (noded calls as root). A passing run later undrains
// the node only when the drain is still the one the check set (same reason): a
// drain an admin set, before or since, stays.
//
// DecideHealthAction and NodeStateMatches are pure; RunHealthCheckProgram forks
// and execs at once (async-signal-safe child), so it may be called from the
// threaded daemon. HealthChecker owns one thread (Start() to Stop()); it is the
// only user of its NodeControl. Stop() is thread-safe.
#ifndef SKIFF_NODED_HEALTH_CHECK_H_
#define SKIFF_NODED_HEALTH_CHECK_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

inline constexpr std::chrono::seconds kHealthCheckTimeout{60};  // as Slurm's slurmd

struct HealthCheckResult {
  bool passed = false;
  std::string output;  // stdout and stderr together
  int exit_code = 0;
  bool timed_out = false;
};

// The node as ctld shows it.
struct HealthNodeView {
  std::string state;  // IDLE, MIXED, ALLOCATED, DOWN, ...
  bool drain = false;
  std::string reason;
};

struct HealthAction {
  enum Kind { kNone, kDrain, kUndrain };
  Kind kind = kNone;
  std::string reason;  // kDrain
};

// The reason a failed run drains with: the output's first non-empty line
// (at most 200 bytes), else how it failed.
std::string HealthDrainReason(const HealthCheckResult& result);

// What to do after a run. `own_drain` is the reason of the drain the check set
// last and has not seen lifted ("" for none); it is updated.
HealthAction DecideHealthAction(const HealthCheckResult& result, const HealthNodeView& node,
                                std::string* own_drain);

// HealthCheckNodeState (comma list of ANY, IDLE, ALLOC, MIXED, NONDRAINED_IDLE,
// CYCLE; CYCLE is taken as ANY: one node per noded needs no spreading).
bool NodeStateMatches(const std::string& health_check_node_state, const HealthNodeView& node);

// Runs `program` (no arguments) as noded's user with stdin /dev/null, in its
// own process group, killed with that group after `timeout`.
HealthCheckResult RunHealthCheckProgram(const std::string& program,
                                        std::chrono::milliseconds timeout);

// What the checker needs of ctld; the real one (MakeCtldNodeControl) calls
// Ctld.GetNodes and Ctld.UpdateNode.
class NodeControl {
 public:
  virtual ~NodeControl() = default;
  virtual absl::StatusOr<HealthNodeView> GetNode() = 0;
  virtual absl::Status Drain(const std::string& reason) = 0;
  virtual absl::Status Undrain() = 0;
  // scontrol requeuehold JOB (ARRAY_TASK >= 0: JOB_TASK): a step's Prolog
  // failed on this node.
  virtual absl::Status RequeueHeld(uint64_t job_id, int32_t array_task_id) {
    (void)array_task_id;
    return absl::UnimplementedError(absl::StrCat("cannot requeue JobId=", job_id));
  }
  // scontrol requeue JOB: the GPU it runs on broke.
  virtual absl::Status Requeue(uint64_t job_id) {
    return absl::UnimplementedError(absl::StrCat("cannot requeue JobId=", job_id));
  }
};

struct HealthCheckOptions {
  std::string program;               // HealthCheckProgram
  std::chrono::seconds interval{0};  // HealthCheckInterval; 0: only once at start
  std::string node_state = "ANY";    // HealthCheckNodeState
  std::chrono::milliseconds timeout = kHealthCheckTimeout;
};

class HealthChecker {
 public:
  // `control` and `logger` must outlive the checker.
  HealthChecker(HealthCheckOptions options, NodeControl& control, spdlog::logger& logger);
  ~HealthChecker();
  void Start();
  void Stop();
  // One check now (the thread's body; tests call it directly).
  void RunOnce();

 private:
  void Loop();

  const HealthCheckOptions options_;
  NodeControl& control_;
  spdlog::logger& logger_;
  std::string own_drain_;  // the thread's only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_HEALTH_CHECK_H_
