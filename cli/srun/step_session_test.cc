#include "cli/srun/step_session.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <future>
#include <optional>

namespace skiff::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using TimePoint = std::chrono::steady_clock::time_point;

// How long a test waits for something the session's threads do before
// failing (never reached when it works).
constexpr seconds kPatience{10};

// The step manager's end of the stream, as the test drives it.
class FakeStepStream final : public StepStream {
 public:
  void Push(const v1::StepOutput& out) {
    std::lock_guard<std::mutex> lock(mu_);
    outputs_.push_back(out);
    cv_.notify_all();
  }
  // The call ends once what was pushed has been read, as `status`.
  void End(grpc::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = std::move(status);
    cv_.notify_all();
  }
  // Waits until the session has handled `n` messages (and reads again).
  bool WaitForHandled(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return reads_ > n; });
  }
  // Waits until the session has written an input that `match` accepts.
  bool WaitForInput(const std::function<bool(const v1::StepInput&)>& match) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience,
                        [&] { return std::any_of(written_.begin(), written_.end(), match); });
  }
  std::vector<v1::StepInput> written() {
    std::lock_guard<std::mutex> lock(mu_);
    return written_;
  }
  int Signals(int sig) {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(std::count_if(written_.begin(), written_.end(), [&](const auto& in) {
      return in.what_case() == v1::StepInput::kSignal && in.signal() == sig;
    }));
  }
  bool cancelled() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }
  bool writes_done() {
    std::lock_guard<std::mutex> lock(mu_);
    return writes_done_;
  }

  bool Write(const v1::StepInput& input) override {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_FALSE(writes_done_) << "a write after WritesDone";
    written_.push_back(input);
    cv_.notify_all();
    return true;
  }
  bool Read(v1::StepOutput* out) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++reads_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !outputs_.empty() || ended_ || cancelled_; });
    if (outputs_.empty()) return false;
    *out = outputs_.front();
    outputs_.pop_front();
    return true;
  }
  void WritesDone() override {
    std::lock_guard<std::mutex> lock(mu_);
    writes_done_ = true;
  }
  grpc::Status Finish() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled");
    return ended_.value_or(grpc::Status::OK);
  }
  void Cancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::StepOutput> outputs_;
  std::optional<grpc::Status> ended_;
  std::vector<v1::StepInput> written_;
  int reads_ = 0;
  bool cancelled_ = false;
  bool writes_done_ = false;
};

v1::StepOutput Waiting(const std::string& reason) {
  v1::StepOutput out;
  out.set_waiting_reason(reason);
  return out;
}

// Step 2 with task 0 on n1 and task 1 on n2.
v1::StepOutput Created() {
  v1::StepOutput out;
  out.set_created(true);
  out.set_step_id(2);
  v1::StepTaskPlacement* n1 = out.add_placement();
  n1->set_node("n1");
  n1->add_task_ids(0);
  n1->set_cpus(1);
  v1::StepTaskPlacement* n2 = out.add_placement();
  n2->set_node("n2");
  n2->add_task_ids(1);
  n2->set_cpus(1);
  return out;
}

v1::StepOutput Data(int task, const std::string& text, bool is_stderr = false) {
  v1::StepOutput out;
  out.set_task_id(task);
  out.set_is_stderr(is_stderr);
  out.set_data(text);
  return out;
}

v1::StepOutput Exit(int task, const std::string& node, int code, int sig = 0,
                    const std::string& failure = "") {
  v1::StepOutput out;
  v1::TaskExit* e = out.add_task_exit();
  e->set_task_id(task);
  e->set_node(node);
  e->set_exit_code(code);
  e->set_signal(sig);
  e->set_failure(failure);
  return out;
}

v1::StepOutput Finished() {
  v1::StepOutput out;
  out.set_finished(true);
  return out;
}

// srun's session for a 2-task step of job 7, with a fake stream, a fake
// clock, stdin from a pipe and its stdout and stderr kept.
class StepSessionTest : public ::testing::Test {
 protected:
  StepSessionTest() {
    spec_.request.set_job_id(7);
    spec_.request.set_ntasks(2);
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    stdin_ = fds[0];
    stdin_writer_ = fds[1];
  }
  ~StepSessionTest() override {
    // The stdin thread ends at the pipe's end. The read end stays open: the
    // detached thread may not have read yet, and a reused fd would feed it
    // another test's input.
    CloseStdin();
    stream_.End(grpc::Status::OK);  // a test that failed early leaves no Run behind
    if (run_.valid()) run_.wait();
  }

  void Start() {
    StepSessionIo io;
    io.write = [this](int fd, const std::string& bytes) {
      std::lock_guard<std::mutex> lock(out_mu_);
      (fd == 1 ? out_ : err_) += bytes;
      out_cv_.notify_all();
    };
    io.stdin_fd = stdin_;
    io.window_input = [] {
      v1::StepInput input;
      input.mutable_window()->set_rows(40);
      input.mutable_window()->set_cols(100);
      return input;
    };
    io.raw_terminal = [this] { ++raw_; };
    io.restore_terminal = [this] { ++restored_; };
    io.now = [this] { return TimePoint(milliseconds(clock_ms_.load())); };
    io.wait_poll = milliseconds(1);
    session_ = std::make_unique<StepSession>(spec_, std::move(io));
    run_ = std::async(std::launch::async, [this] { return session_->Run(stream_); });
  }

  // Run's exit code once it has returned.
  int ExitCode() {
    EXPECT_EQ(run_.wait_for(kPatience), std::future_status::ready);
    return run_.get();
  }

  void CloseStdin() {
    if (stdin_writer_ >= 0) close(stdin_writer_);
    stdin_writer_ = -1;
  }

  // Waits until srun's stderr holds `text`.
  bool WaitForErr(const std::string& text) {
    std::unique_lock<std::mutex> lock(out_mu_);
    return out_cv_.wait_for(lock, kPatience, [&] { return err_.find(text) != std::string::npos; });
  }
  std::string out() {
    std::lock_guard<std::mutex> lock(out_mu_);
    return out_;
  }
  std::string err() {
    std::lock_guard<std::mutex> lock(out_mu_);
    return err_;
  }

  StepSessionSpec spec_;
  FakeStepStream stream_;
  std::unique_ptr<StepSession> session_;
  std::future<int> run_;
  int stdin_ = -1;
  int stdin_writer_ = -1;
  std::atomic<int64_t> clock_ms_{1'000'000};
  std::atomic<int> raw_{0};
  std::atomic<int> restored_{0};
  std::mutex out_mu_;
  std::condition_variable out_cv_;
  std::string out_;  // fd 1
  std::string err_;  // fd 2
};

TEST_F(StepSessionTest, SendsTheRequestFirstPrintsTheOutputAndExitsWithTheHighestCode) {
  spec_.label = true;
  Start();
  stream_.Push(Created());
  stream_.Push(Data(1, "from one\n"));
  stream_.Push(Data(0, "from zero, part"));
  stream_.Push(Exit(0, "n1", 0));
  stream_.Push(Data(1, "oops\n", true));
  stream_.Push(Exit(1, "n2", 3));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 3);

  const std::vector<v1::StepInput> written = stream_.written();
  ASSERT_FALSE(written.empty());
  EXPECT_TRUE(written.front().has_request());
  EXPECT_EQ(written.front().request().job_id(), 7u);
  EXPECT_EQ(std::count_if(written.begin(), written.end(),
                          [](const v1::StepInput& in) { return in.has_request(); }),
            1);
  EXPECT_TRUE(stream_.writes_done());
  // A task's partial line ends with its task.
  EXPECT_EQ(out(), "1: from one\n0: from zero, part\n");
  EXPECT_EQ(err(), "1: oops\nsrun: error: n2: task 1: Exited with exit code 3\n");
}

// srun -l -o 1 (no -e): the one task's stderr shares its stdout, srun's, as
// Slurm 22.05's srun prints it on the anchor ("1: out 1", "1: err 1").
TEST_F(StepSessionTest, StderrSharingOutputsTaskGoesToStdout) {
  spec_.label = true;
  spec_.stderr_to_stdout = true;
  Start();
  stream_.Push(Created());
  stream_.Push(Data(1, "out 1\n"));
  stream_.Push(Data(1, "err 1\n", true));
  stream_.Push(Exit(0, "n1", 0));
  stream_.Push(Exit(1, "n2", 0));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 0);
  EXPECT_EQ(out(), "1: out 1\n1: err 1\n");
  EXPECT_EQ(err(), "");
}

TEST_F(StepSessionTest, AStepThatWaitsForResourcesSaysSoAndWhenItIsCreated) {
  spec_.verbose = 1;
  Start();
  stream_.Push(Waiting("Requested nodes are busy"));
  stream_.Push(Created());
  stream_.Push(Exit(0, "n1", 0));
  stream_.Push(Exit(1, "n2", 0));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 0);
  EXPECT_EQ(err(),
            "srun: Job 7 step creation temporarily disabled, retrying (Requested nodes are busy)\n"
            "srun: jobid 7: nodes(2):`n[1-2]', cpu counts: 1(x2)\n"
            "srun: launching StepId=7.2 on host n1, 1 tasks: 0\n"
            "srun: launching StepId=7.2 on host n2, 1 tasks: 1\n"
            "srun: Step created for job 7\n");
}

TEST_F(StepSessionTest, ATaskThatFailedToStartIsPrintedWithItsReason) {
  Start();
  stream_.Push(Created());
  stream_.Push(
      Exit(0, "n1", 1, 0, "Task launch for StepId=7.2 failed on node n1: Job prolog failed"));
  stream_.Push(Exit(1, "n2", 0, SIGKILL));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 128 + SIGKILL);
  EXPECT_EQ(err(),
            "srun: error: Task launch for StepId=7.2 failed on node n1: Job prolog failed\n"
            "srun: error: n1: task 0: Exited with exit code 1\n"
            "srun: error: n2: task 1: Killed\n");
}

TEST_F(StepSessionTest, AStreamThatEndsBeforeTheStepExistsCouldNotCreateIt) {
  Start();
  stream_.End(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                           "More processors requested than permitted"));
  EXPECT_EQ(ExitCode(), 1);
  EXPECT_EQ(err(),
            "srun: error: Unable to create step for job 7: More processors requested than "
            "permitted\n");
}

TEST_F(StepSessionTest, AStreamThatEndsWithoutAWordBeforeTheStepExistsSaysTheManagerWentAway) {
  Start();
  stream_.End(grpc::Status::OK);
  EXPECT_EQ(ExitCode(), 1);
  EXPECT_EQ(err(), "srun: error: Unable to create step for job 7: the step manager went away\n");
}

TEST_F(StepSessionTest, AStreamThatBreaksUnderARunningStepSaysTheManagerWentAway) {
  Start();
  stream_.Push(Created());
  stream_.Push(Exit(0, "n1", 0));
  stream_.End(grpc::Status(grpc::StatusCode::UNAVAILABLE, "Socket closed"));
  EXPECT_EQ(ExitCode(), 1);
  EXPECT_EQ(err(), "srun: error: StepId=7.2: the step manager went away: Socket closed\n");
}

TEST_F(StepSessionTest, StdinGoesToTheStepAfterTheRequestThenItsEnd) {
  Start();
  ASSERT_EQ(write(stdin_writer_, "line\n", 5), 5);
  ASSERT_TRUE(stream_.WaitForInput([](const v1::StepInput& in) { return in.stdin() == "line\n"; }));
  CloseStdin();
  ASSERT_TRUE(stream_.WaitForInput([](const v1::StepInput& in) { return in.stdin_eof(); }));
  stream_.Push(Created());
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 0);
  const std::vector<v1::StepInput> written = stream_.written();
  ASSERT_EQ(written.size(), 3u);
  EXPECT_TRUE(written[0].has_request());
  EXPECT_EQ(written[1].stdin(), "line\n");
  EXPECT_TRUE(written[2].stdin_eof());
}

TEST_F(StepSessionTest, OneCtrlCShowsTheStatusASecondWithinASecondKillsTheStep) {
  Start();
  stream_.Push(Created());
  stream_.Push(Exit(1, "n2", 0));
  ASSERT_TRUE(stream_.WaitForHandled(2));
  session_->Signal(SIGINT);
  EXPECT_EQ(err(),
            "srun: interrupt (one more within 1 sec to abort)\n"
            "srun: StepId=7.2 task 0: running\n"
            "srun: StepId=7.2 task 1: exited\n");
  EXPECT_EQ(stream_.Signals(SIGKILL), 0);

  clock_ms_ += 1001;  // a second press, more than a second later: the status again
  session_->Signal(SIGINT);
  EXPECT_EQ(stream_.Signals(SIGKILL), 0);

  clock_ms_ += 500;
  session_->Signal(SIGINT);
  EXPECT_EQ(stream_.Signals(SIGKILL), 1);
  EXPECT_FALSE(stream_.cancelled()) << "the step exists: it ends by its tasks' end";
  EXPECT_NE(err().find("srun: sending Ctrl-C to StepId=7.2\n"), std::string::npos);
  stream_.Push(Exit(0, "n1", 0, SIGKILL));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 128 + SIGKILL);
}

TEST_F(StepSessionTest, WithQuitOnInterruptOneCtrlCKillsTheStep) {
  spec_.quit_on_interrupt = true;
  Start();
  stream_.Push(Created());
  ASSERT_TRUE(stream_.WaitForHandled(1));
  session_->Signal(SIGINT);
  EXPECT_EQ(stream_.Signals(SIGKILL), 1);
  EXPECT_EQ(err(), "srun: sending Ctrl-C to StepId=7.2\n");
  stream_.Push(Finished());
  ExitCode();
}

TEST_F(StepSessionTest, CtrlCWhileTheStepWaitsForResourcesGivesItUp) {
  Start();
  stream_.Push(Waiting("Requested nodes are busy"));
  ASSERT_TRUE(stream_.WaitForHandled(1));
  session_->Signal(SIGINT);
  EXPECT_EQ(ExitCode(), 1);
  EXPECT_EQ(stream_.Signals(SIGKILL), 1);
  EXPECT_TRUE(stream_.cancelled());
  EXPECT_EQ(err(),
            "srun: Job 7 step creation temporarily disabled, retrying (Requested nodes are busy)\n"
            "srun: sending Ctrl-C to StepId=7.0\n"
            "srun: error: Unable to create step for job 7: Cancelled\n");
}

TEST_F(StepSessionTest, OtherSignalsGoToTheStepAndNothingIsSentAfterTheEnd) {
  Start();
  stream_.Push(Created());
  ASSERT_TRUE(stream_.WaitForHandled(1));
  session_->Signal(SIGUSR1);
  session_->Signal(SIGTERM);
  session_->Signal(SIGWINCH);  // without --pty: nothing
  EXPECT_EQ(stream_.Signals(SIGUSR1), 1);
  EXPECT_EQ(stream_.Signals(SIGTERM), 1);
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 0);
  const size_t before = stream_.written().size();
  session_->Signal(SIGUSR2);
  EXPECT_EQ(stream_.written().size(), before);
  EXPECT_FALSE(stream_.cancelled());
}

TEST_F(StepSessionTest, WithPtyTheTerminalIsRawWhileTheStepRunsAndFollowsItsSize) {
  spec_.pty = true;
  Start();
  stream_.Push(Created());
  ASSERT_TRUE(stream_.WaitForHandled(1));
  EXPECT_EQ(raw_, 1);
  session_->Signal(SIGWINCH);
  std::vector<v1::StepInput> written = stream_.written();
  const auto windows = std::count_if(written.begin(), written.end(),
                                     [](const v1::StepInput& in) { return in.has_window(); });
  EXPECT_EQ(windows, 2) << "one once the step exists, one for SIGWINCH";
  EXPECT_EQ(restored_, 0);
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 0);
  EXPECT_EQ(restored_, 1);
}

TEST_F(StepSessionTest, WaitEndsTheStepThatLongAfterTheFirstTaskEnded) {
  spec_.wait_seconds = 5;
  Start();
  stream_.Push(Created());
  stream_.Push(Exit(0, "n1", 0));
  ASSERT_TRUE(stream_.WaitForHandled(2));
  clock_ms_ += 5000;  // 5 s after the first task's end
  ASSERT_TRUE(stream_.WaitForInput(
      [](const v1::StepInput& in) { return in.has_signal() && in.signal() == SIGKILL; }));
  ASSERT_TRUE(WaitForErr("srun: Terminating StepId=7.2\n"));
  EXPECT_EQ(err(),
            "srun: First task exited 5s ago\n"
            "srun: StepId=7.2 task 1: running\n"
            "srun: StepId=7.2 task 0: exited\n"
            "srun: Terminating StepId=7.2\n");
  stream_.Push(Exit(1, "n2", 0, SIGKILL));
  stream_.Push(Finished());
  EXPECT_EQ(ExitCode(), 128 + SIGKILL);
}

}  // namespace
}  // namespace skiff::cli
