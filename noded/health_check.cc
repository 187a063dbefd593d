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

namespace skiff {

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
  HealthCheckResult result;
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    result.output = absl::StrCat("cannot run HealthCheckProgram: pipe: ", strerror(errno));
    result.exit_code = 1;
    return result;
  }
  // Everything the child needs, built before fork: it calls only
  // async-signal-safe functions, as noded has other threads.
  std::vector<char> path(program.begin(), program.end());
  path.push_back('\0');
  char* const argv[] = {path.data(), nullptr};
  char env_path[] = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  char* const envp[] = {env_path, nullptr};
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    execve(path.data(), argv, envp);
    static const char kFailed[] = "cannot execute HealthCheckProgram\n";
    ssize_t ignored = write(STDERR_FILENO, kFailed, sizeof(kFailed) - 1);
    (void)ignored;
    _exit(127);
  }
  close(out[1]);
  if (pid < 0) {
    close(out[0]);
    result.output = absl::StrCat("cannot run HealthCheckProgram: fork: ", strerror(errno));
    result.exit_code = 1;
    return result;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    struct pollfd ready = {out[0], POLLIN, 0};
    const int n = poll(&ready, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // timeout: the loop's check ends it
    const ssize_t got = read(out[0], buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the program (and what holds its output) is done
    if (result.output.size() < 65536) result.output.append(buf, static_cast<size_t>(got));
  }
  close(out[0]);
  if (result.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  result.passed = !result.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
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

}  // namespace skiff
