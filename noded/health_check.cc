#include "noded/health_check.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "noded/run_captured.h"

namespace skiff::noded {

std::string HealthDrainReason(const HealthCheckResult& result) {
  for (absl::string_view line : absl::StrSplit(result.output, '\n')) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (!text.empty()) return std::string(text.substr(0, 200));
  }
  if (result.timed_out) return "HealthCheckProgram killed after timing out";
  return absl::StrCat("HealthCheckProgram failed with exit code ", result.exit_code);
}

HealthAction DecideHealthAction(const HealthCheckResult& result, const HealthNodeView& node,
                                std::string* own_drain) {
  HealthAction action;
  const bool ours = !own_drain->empty() && node.drain && node.reason == *own_drain;
  if (!ours) own_drain->clear();  // lifted, or replaced by an admin's drain: not ours any more
  if (result.passed) {
    if (ours) {
      action.kind = HealthAction::kUndrain;
      own_drain->clear();
    }
    return action;
  }
  const std::string reason = HealthDrainReason(result);
  if (node.drain && !ours) return action;            // an admin's drain (and reason) stays
  if (ours && node.reason == reason) return action;  // already drained for this
  action.kind = HealthAction::kDrain;
  action.reason = reason;
  *own_drain = reason;
  return action;
}

bool NodeStateMatches(const std::string& health_check_node_state, const HealthNodeView& node) {
  if (health_check_node_state.empty()) return true;
  for (absl::string_view raw : absl::StrSplit(health_check_node_state, ',')) {
    const std::string want = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(raw));
    if (want == "ANY" || want == "CYCLE") return true;
    if (want == "IDLE" && node.state == "IDLE") return true;
    if (want == "NONDRAINED_IDLE" && node.state == "IDLE" && !node.drain) return true;
    if (want == "ALLOC" && node.state == "ALLOCATED") return true;
    if (want == "MIXED" && node.state == "MIXED") return true;
  }
  return false;
}

HealthCheckResult RunHealthCheckProgram(const std::string& program,
                                        std::chrono::milliseconds timeout) {
  const CapturedRun run = RunCaptured({program}, timeout, "HealthCheckProgram");
  HealthCheckResult result;
  result.passed = run.ok;
  result.output = run.output;
  result.exit_code = run.exit_code;
  result.timed_out = run.timed_out;
  return result;
}

HealthChecker::HealthChecker(HealthCheckOptions options, NodeControl& control,
                             spdlog::logger& logger)
    : options_(std::move(options)), control_(control), logger_(logger) {}

HealthChecker::~HealthChecker() { Stop(); }

void HealthChecker::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void HealthChecker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HealthChecker::Loop() {
  for (;;) {
    RunOnce();
    std::unique_lock<std::mutex> lock(mu_);
    if (options_.interval.count() <= 0) {
      cv_.wait(lock, [this] { return stopping_; });
      return;
    }
    if (cv_.wait_for(lock, options_.interval, [this] { return stopping_; })) return;
  }
}

void HealthChecker::RunOnce() {
  absl::StatusOr<HealthNodeView> before = control_.GetNode();
  if (!before.ok()) {
    // ctld not reachable (yet): the check waits for the next round, as the
    // drain it could lead to needs ctld anyway.
    logger_.debug("health check skipped: {}", std::string(before.status().message()));
    return;
  }
  if (!NodeStateMatches(options_.node_state, *before)) return;
  const HealthCheckResult result = RunHealthCheckProgram(options_.program, options_.timeout);
  absl::StatusOr<HealthNodeView> node = control_.GetNode();  // as it is now, after the run
  if (!node.ok()) return;
  const HealthAction action = DecideHealthAction(result, *node, &own_drain_);
  if (!result.passed) {
    logger_.warn("HealthCheckProgram {} failed (exit code {}{}): {}", options_.program,
                 result.exit_code, result.timed_out ? ", timed out" : "",
                 HealthDrainReason(result));
  }
  absl::Status done = absl::OkStatus();
  if (action.kind == HealthAction::kDrain) {
    logger_.warn("draining this node: {}", action.reason);
    done = control_.Drain(action.reason);
  } else if (action.kind == HealthAction::kUndrain) {
    logger_.info("HealthCheckProgram passes again: undraining the drain it set");
    done = control_.Undrain();
  }
  if (!done.ok()) {
    own_drain_.clear();  // not applied: decide again next round
    logger_.warn("health check: {}", std::string(done.message()));
  }
}

}  // namespace skiff::noded
