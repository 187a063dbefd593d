#include "cli/srun/step_session.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/ctld_client.h"

namespace skiff::cli {

// The session's writes to the stream: the request first, then srun's input
// until Run closes it. Shared with the stdin thread, which may outlive the
// session; once closed, the stream is never touched again.
class StepSession::Link {
 public:
  // Writes the request; inputs may follow.
  void Open(StepStream* stream, const v1::StepInput& request) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stream_ = stream;
      stream_->Write(request);
      state_ = State::kOpen;
    }
    opened_.notify_all();
  }
  // Waits for the request to be written; dropped once closed.
  void Send(const v1::StepInput& input) {
    std::unique_lock<std::mutex> lock(mu_);
    opened_.wait(lock, [this] { return state_ != State::kNotYet; });
    if (state_ == State::kOpen) stream_->Write(input);
  }
  // Ends the call at once (after Send, so that the input goes first).
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ == State::kOpen) stream_->Cancel();
  }
  // No more writes: WritesDone, and the stream is let go.
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (state_ == State::kOpen) stream_->WritesDone();
      state_ = State::kClosed;
      stream_ = nullptr;
    }
    opened_.notify_all();
  }

 private:
  enum class State { kNotYet, kOpen, kClosed };
  std::mutex mu_;
  std::condition_variable opened_;  // with mu_: state_ left kNotYet
  State state_ = State::kNotYet;    // under mu_
  StepStream* stream_ = nullptr;    // under mu_; set while kOpen
};

namespace {

constexpr char kProgram[] = "srun";

int64_t Millis(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

v1::StepInput SignalInput(int sig) {
  v1::StepInput input;
  input.set_signal(sig);
  return input;
}

}  // namespace

StepSession::StepSession(StepSessionSpec spec, StepSessionIo io)
    : spec_(std::move(spec)), io_(std::move(io)), link_(std::make_shared<Link>()) {}

int StepSession::Run(StepStream& stream) {
  {
    v1::StepInput first;
    *first.mutable_request() = spec_.request;
    link_->Open(&stream, first);
  }
  std::thread wait_limit;
  if (spec_.wait_seconds > 0) wait_limit = std::thread([this] { EnforceWait(); });
  ForwardStdin(link_, io_.stdin_fd);

  LabeledOutput output(spec_.label, spec_.request.ntasks(), io_.write);
  bool waited = false;
  bool finished = false;
  for (v1::StepOutput out; !finished && stream.Read(&out);) finished = Take(out, output, &waited);
  if (io_.restore_terminal) io_.restore_terminal();
  ended_ = true;
  if (wait_limit.joinable()) wait_limit.join();
  link_->Close();
  const grpc::Status status = stream.Finish();
  if (!finished) {
    if (!created_) {
      const std::string why = status.ok() ? "the step manager went away" : status.error_message();
      for (const std::string& line : client::ErrorLines(
               kProgram,
               absl::StrCat("Unable to create step for job ", spec_.request.job_id(), ": ", why))) {
        Say(line);
      }
      return 1;
    }
    Say(absl::StrCat("srun: error: ", StepName(),
                     ": the step manager went away: ", status.error_message()));
    return 1;
  }
  std::lock_guard<std::mutex> lock(results_mu_);
  for (const std::string& line : TaskErrorLines(results_)) Say(line);
  return SrunExitCode(results_);
}

bool StepSession::Take(const v1::StepOutput& out, LabeledOutput& output, bool* waited) {
  const uint64_t job_id = spec_.request.job_id();
  if (!out.waiting_reason().empty()) {
    Say(absl::StrCat("srun: Job ", job_id, " step creation temporarily disabled, retrying (",
                     out.waiting_reason(), ")"));
    *waited = true;
  }
  if (out.created()) {
    step_id_ = out.step_id();
    created_ = true;
    if (spec_.verbose > 0) {
      for (const std::string& line : VerboseLaunchLines(job_id, step_id_, out.placement())) {
        Say(absl::StrCat("srun: ", line));
      }
    }
    if (*waited) Say(absl::StrCat("srun: Step created for job ", job_id));
    if (spec_.pty) {
      link_->Send(io_.window_input());
      io_.raw_terminal();
    }
  }
  if (!out.data().empty()) {
    output.Add(out.task_id(), out.is_stderr() && !spec_.stderr_to_stdout, out.data());
  }
  for (const v1::TaskExit& exit : out.task_exit()) {
    output.Flush(exit.task_id());
    if (!exit.failure().empty()) Say(absl::StrCat("srun: error: ", exit.failure()));
    {
      std::lock_guard<std::mutex> lock(results_mu_);
      results_.push_back(
          {exit.task_id(), exit.node(), exit.exit_code(), exit.signal(), exit.failure()});
    }
    if (first_exit_ms_ == 0) first_exit_ms_ = Millis(io_.now());
  }
  return out.finished();
}

void StepSession::Signal(int sig) {
  std::lock_guard<std::mutex> lock(signal_mu_);
  if (sig == SIGWINCH) {
    if (spec_.pty && created_) link_->Send(io_.window_input());
    return;
  }
  v1::StepInput input = SignalInput(sig);
  if (sig == SIGINT) {
    // Ctrl-C once: the step's state; twice within a second: kill the step.
    const auto now = io_.now();
    if (created_ && !spec_.quit_on_interrupt && now - last_interrupt_ > std::chrono::seconds(1)) {
      last_interrupt_ = now;
      Say("srun: interrupt (one more within 1 sec to abort)");
      SayStatus();
      return;
    }
    Say(absl::StrCat("srun: sending Ctrl-C to ", StepName()));
    input = SignalInput(SIGKILL);
  }
  link_->Send(input);
  if (!created_) link_->Cancel();  // still waiting for resources
}

void StepSession::EnforceWait() {
  while (!ended_) {
    const int64_t first = first_exit_ms_;
    if (first != 0 && Millis(io_.now()) - first >= int64_t{spec_.wait_seconds} * 1000) {
      Say(absl::StrCat("srun: First task exited ", spec_.wait_seconds, "s ago"));
      SayStatus();
      Say(absl::StrCat("srun: Terminating ", StepName()));
      link_->Send(SignalInput(SIGKILL));
      return;
    }
    std::this_thread::sleep_for(io_.wait_poll);
  }
}

void StepSession::Say(const std::string& line) { io_.write(2, line + "\n"); }

void StepSession::SayStatus() {
  std::lock_guard<std::mutex> lock(results_mu_);
  for (const std::string& line :
       StepStatusLines(spec_.request.job_id(), step_id_, spec_.request.ntasks(), results_)) {
    Say(absl::StrCat("srun: ", line));
  }
}

std::string StepSession::StepName() const {
  return absl::StrCat("StepId=", spec_.request.job_id(), ".", step_id_.load());
}

void StepSession::ForwardStdin(std::shared_ptr<Link> link, int fd) {
  std::thread([link = std::move(link), fd] {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      v1::StepInput input;
      if (n <= 0) {
        input.set_stdin_eof(true);
        link->Send(input);
        return;
      }
      input.set_stdin(std::string(buf, static_cast<size_t>(n)));
      link->Send(input);
    }
  }).detach();
}

}  // namespace skiff::cli
