#include "noded/steps/step_run.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>

namespace skiff::noded {
namespace {

using std::chrono::seconds;
using TimePoint = std::chrono::steady_clock::time_point;

// How long a test waits for something StepRun's threads do before failing
// (never reached when it works).
constexpr std::chrono::seconds kPatience{10};

// One node's side of a fake TaskStream, as the test drives it: what the node
// says (Push), its call breaking (Break), and what the step manager did.
class FakeNode {
 public:
  void Push(const v1::TaskOutput& out) {
    std::lock_guard<std::mutex> lock(mu_);
    outputs_.push_back(out);
    cv_.notify_all();
  }
  void Break(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = grpc::Status(grpc::StatusCode::UNAVAILABLE, why);
    cv_.notify_all();
  }
  // Waits until the step manager has written `sig` to this node.
  bool WaitForSignal(int sig) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return SignalCountLocked(sig) > 0; });
  }
  bool WaitForCancel() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return cancelled_; });
  }
  int SignalCount(int sig) {
    std::lock_guard<std::mutex> lock(mu_);
    return SignalCountLocked(sig);
  }
  std::vector<v1::TaskInput> written() {
    std::lock_guard<std::mutex> lock(mu_);
    return written_;
  }
  bool cancelled() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }
  bool writes_done() {
    std::lock_guard<std::mutex> lock(mu_);
    return writes_done_;
  }

  // The TaskStream side.
  bool Write(const v1::TaskInput& input) {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_FALSE(writes_done_) << "a write after WritesDone";
    written_.push_back(input);
    cv_.notify_all();
    return true;
  }
  bool Read(v1::TaskOutput* out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !outputs_.empty() || broken_ || cancelled_; });
    if (outputs_.empty()) return false;
    *out = outputs_.front();
    outputs_.pop_front();
    return true;
  }
  void WritesDone() {
    std::lock_guard<std::mutex> lock(mu_);
    writes_done_ = true;
  }
  grpc::Status Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (broken_) return *broken_;
    if (cancelled_) return grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled");
    return grpc::Status::OK;
  }
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  int SignalCountLocked(int sig) const {
    return static_cast<int>(std::count_if(written_.begin(), written_.end(), [&](const auto& in) {
      return in.what_case() == v1::TaskInput::kSignal && in.signal() == sig;
    }));
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::TaskOutput> outputs_;
  std::optional<grpc::Status> broken_;
  std::vector<v1::TaskInput> written_;
  bool cancelled_ = false;
  bool writes_done_ = false;
};

class FakeTaskStream final : public TaskStream {
 public:
  explicit FakeTaskStream(std::shared_ptr<FakeNode> node) : node_(std::move(node)) {}
  bool Write(const v1::TaskInput& input) override { return node_->Write(input); }
  bool Read(v1::TaskOutput* output) override { return node_->Read(output); }
  void WritesDone() override { node_->WritesDone(); }
  grpc::Status Finish() override { return node_->Finish(); }
  void Cancel() override { node_->Cancel(); }

 private:
  std::shared_ptr<FakeNode> node_;
};

// srun's end of the step: everything the StepRun sent it.
class FakeSrun {
 public:
  void Take(const v1::StepOutput& out) {
    std::lock_guard<std::mutex> lock(mu_);
    got_.push_back(out);
    cv_.notify_all();
  }
  // Waits until `n` task ends have arrived.
  bool WaitForExits(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return ExitsLocked().size() >= size_t(n); });
  }
  bool WaitForFinished() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, [&] { return FinishedCountLocked() > 0; });
  }
  std::vector<v1::TaskExit> exits() {
    std::lock_guard<std::mutex> lock(mu_);
    return ExitsLocked();
  }
  int finished_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return FinishedCountLocked();
  }
  std::vector<v1::StepOutput> got() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_;
  }

 private:
  std::vector<v1::TaskExit> ExitsLocked() const {
    std::vector<v1::TaskExit> exits;
    for (const v1::StepOutput& out : got_) {
      for (const v1::TaskExit& e : out.task_exit()) exits.push_back(e);
    }
    return exits;
  }
  int FinishedCountLocked() const {
    return static_cast<int>(std::count_if(got_.begin(), got_.end(),
                                          [](const v1::StepOutput& o) { return o.finished(); }));
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<v1::StepOutput> got_;
};

v1::TaskOutput Data(int task, const std::string& text) {
  v1::TaskOutput out;
  out.set_task_id(task);
  out.set_data(text);
  return out;
}

v1::TaskOutput Exit(int task, int code, int sig = 0) {
  v1::TaskOutput out;
  v1::TaskExit* e = out.add_task_exit();
  e->set_task_id(task);
  e->set_exit_code(code);
  e->set_signal(sig);
  return out;
}

v1::TaskOutput Finished() {
  v1::TaskOutput out;
  out.set_finished(true);
  return out;
}

// A step of job 7, step 3 on n1 (tasks 0 and 1) and n2 (task 2), with fake
// nodes, a fake clock and srun.
class StepRunTest : public ::testing::Test {
 protected:
  StepRunTest() {
    spec_.job_id = 7;
    spec_.step_id = 3;
    spec_.manager_node = "n1";
    spec_.nodes = {"n1", "n2"};
    spec_.task_ids = {{0, 1}, {2}};
    spec_.kill_wait = seconds(5);
    spec_.poll = std::chrono::milliseconds(1);
  }

  std::unique_ptr<StepRun> Start() {
    StepRunDeps deps;
    deps.open_stream = [this](size_t i) { return std::make_unique<FakeTaskStream>(nodes_[i]); };
    deps.sink = [this](const v1::StepOutput& out) { srun_.Take(out); };
    deps.job_running = [this] { return job_running_.load(); };
    deps.now = [this] { return TimePoint(seconds(clock_.load())); };
    deps.unix_now = [] { return int64_t{0}; };
    return std::make_unique<StepRun>(spec_, std::move(deps));
  }

  // Both nodes report every task with `codes` (task id order) and finish.
  void EndAll(const std::vector<int>& codes) {
    n1().Push(Exit(0, codes[0]));
    n1().Push(Exit(1, codes[1]));
    n1().Push(Finished());
    n2().Push(Exit(2, codes[2]));
    n2().Push(Finished());
  }

  FakeNode& n1() { return *nodes_[0]; }
  FakeNode& n2() { return *nodes_[1]; }

  StepRunSpec spec_;
  std::vector<std::shared_ptr<FakeNode>> nodes_ = {std::make_shared<FakeNode>(),
                                                   std::make_shared<FakeNode>()};
  FakeSrun srun_;
  std::atomic<bool> job_running_{true};
  std::atomic<int64_t> clock_{1000};  // seconds
};

TEST_F(StepRunTest, NormalEndSendsFinishedOnceAfterEveryNodeWithTheHighestExitCode) {
  auto run = Start();
  n1().Push(Data(1, "hello\n"));
  n1().Push(Exit(0, 0));
  n1().Push(Exit(1, 3));
  n1().Push(Finished());
  ASSERT_TRUE(srun_.WaitForExits(2));
  // n2's task still runs: no `finished` yet.
  EXPECT_EQ(srun_.finished_count(), 0);
  n2().Push(Exit(2, 2));
  n2().Push(Finished());
  ASSERT_TRUE(srun_.WaitForFinished());
  // The nodes' calls stay open until srun has heard the end.
  EXPECT_FALSE(n1().writes_done());
  EXPECT_FALSE(n2().writes_done());
  run->SrunClosed();
  const StepOutcome outcome = run->Wait();

  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_FALSE(outcome.failed);
  EXPECT_FALSE(outcome.cancelled);
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_TRUE(n1().writes_done());
  EXPECT_TRUE(n2().writes_done());
  EXPECT_FALSE(n1().cancelled());
  const std::vector<v1::StepOutput> got = srun_.got();
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.front().data(), "hello\n");
  EXPECT_EQ(got.front().task_id(), 1);
  EXPECT_TRUE(got.back().finished());
  EXPECT_EQ(srun_.finished_count(), 1);
  const std::vector<v1::TaskExit> exits = srun_.exits();
  ASSERT_EQ(exits.size(), 3u);
  EXPECT_EQ(exits[2].task_id(), 2);
  EXPECT_EQ(exits[2].node(), "n2");  // named by the step manager
}

TEST_F(StepRunTest, ATaskThatDiesSetsTheExitCodeAndLeavesTheOthersWithoutKillOnBadExit) {
  auto run = Start();
  n1().Push(Exit(1, 9));
  ASSERT_TRUE(srun_.WaitForExits(1));
  n1().Push(Exit(0, 0));
  n1().Push(Finished());
  n2().Push(Exit(2, 0));
  n2().Push(Finished());
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  EXPECT_EQ(run->Wait().exit_code, 9);
  EXPECT_EQ(n1().SignalCount(SIGKILL), 0);
  EXPECT_EQ(n2().SignalCount(SIGKILL), 0);
}

TEST_F(StepRunTest, ATaskThatDiesWithKillOnBadExitKillsEveryNode) {
  spec_.kill_on_bad_exit = true;
  auto run = Start();
  n2().Push(Exit(2, 1));
  ASSERT_TRUE(n1().WaitForSignal(SIGKILL));
  ASSERT_TRUE(n2().WaitForSignal(SIGKILL));
  n1().Push(Exit(0, 0, SIGKILL));
  n1().Push(Exit(1, 0, SIGKILL));
  n1().Push(Finished());
  n2().Push(Finished());
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  const StepOutcome outcome = run->Wait();
  EXPECT_EQ(outcome.exit_code, 1);
  EXPECT_EQ(outcome.signal, SIGKILL);
}

TEST_F(StepRunTest, ABrokenNodeStreamEndsItsUnreportedTasksWithAFailureNamingTheNode) {
  auto run = Start();
  n1().Push(Exit(0, 0));
  n1().Push(Exit(1, 0));
  n1().Push(Finished());
  n2().Break("Socket closed");
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  const StepOutcome outcome = run->Wait();

  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(outcome.exit_code, 1);
  const std::vector<v1::TaskExit> exits = srun_.exits();
  ASSERT_EQ(exits.size(), 3u);
  // The nodes' readers run side by side: n2's loss may come before n1's ends.
  auto lost = std::find_if(exits.begin(), exits.end(),
                           [](const v1::TaskExit& e) { return e.task_id() == 2; });
  ASSERT_NE(lost, exits.end());
  EXPECT_EQ(lost->node(), "n2");
  EXPECT_EQ(lost->exit_code(), 1);
  EXPECT_EQ(lost->failure(), "node n2 lost the step's tasks: Socket closed");
  EXPECT_TRUE(srun_.got().back().finished());
}

TEST_F(StepRunTest, ALostTaskIsToldBeforeTheNodesCallsWaitForSrun) {
  std::promise<bool> told;  // with the outcome's `failed`
  auto run = std::make_unique<StepRun>(spec_, [&] {
    StepRunDeps deps;
    deps.open_stream = [this](size_t i) { return std::make_unique<FakeTaskStream>(nodes_[i]); };
    deps.sink = [this](const v1::StepOutput& out) { srun_.Take(out); };
    deps.job_running = [] { return true; };
    deps.told_srun = [&](const StepOutcome& outcome) { told.set_value(outcome.failed); };
    return deps;
  }());
  n1().Break("Socket closed");
  n2().Push(Exit(2, 0));
  n2().Push(Finished());
  std::future<bool> failed = told.get_future();
  ASSERT_EQ(failed.wait_for(kPatience), std::future_status::ready);
  EXPECT_TRUE(failed.get());
  EXPECT_FALSE(n2().writes_done());  // its call waits for srun
  run->SrunClosed();
  run->Wait();
  EXPECT_TRUE(n2().writes_done());
}

TEST_F(StepRunTest, ABrokenNodeStreamReportsOnlyTheTasksItHadNotReported) {
  auto run = Start();
  n1().Push(Exit(1, 0));
  ASSERT_TRUE(srun_.WaitForExits(1));
  n1().Break("Socket closed");
  n2().Push(Exit(2, 0));
  n2().Push(Finished());
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  run->Wait();
  std::vector<int> lost;
  for (const v1::TaskExit& e : srun_.exits()) {
    if (!e.failure().empty()) lost.push_back(e.task_id());
  }
  EXPECT_EQ(lost, std::vector<int>{0});
}

TEST_F(StepRunTest, TheTimeLimitTermsEveryNodeThenKillsAfterKillWait) {
  spec_.time_limit = seconds(60);
  auto run = Start();
  clock_ += 60;
  ASSERT_TRUE(n1().WaitForSignal(SIGTERM));
  ASSERT_TRUE(n2().WaitForSignal(SIGTERM));
  // The clock has not moved on: no SIGKILL yet.
  EXPECT_EQ(n1().SignalCount(SIGKILL), 0);
  const std::vector<v1::StepOutput> got = srun_.got();
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(got[0].is_stderr());
  EXPECT_NE(got[0].data().find("*** STEP 7.3 ON n1 CANCELLED AT "), std::string::npos)
      << got[0].data();
  EXPECT_NE(got[0].data().find(" DUE TO TIME LIMIT ***\n"), std::string::npos);

  clock_ += 5;  // KillWait
  ASSERT_TRUE(n1().WaitForSignal(SIGKILL));
  ASSERT_TRUE(n2().WaitForSignal(SIGKILL));
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  const StepOutcome outcome = run->Wait();
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_EQ(n1().SignalCount(SIGTERM), 1);
  EXPECT_EQ(n1().SignalCount(SIGKILL), 1);
}

TEST_F(StepRunTest, SrunGoingAwayBeforeTheEndCancelsEveryNodeStream) {
  auto run = Start();
  n1().Push(Exit(0, 0));
  ASSERT_TRUE(srun_.WaitForExits(1));
  run->SrunClosed();
  EXPECT_TRUE(n1().cancelled());
  EXPECT_TRUE(n2().cancelled());
  const StepOutcome outcome = run->Wait();
  EXPECT_TRUE(outcome.failed);  // its tasks were lost with their streams
  EXPECT_EQ(srun_.finished_count(), 1);
}

TEST_F(StepRunTest, SrunClosingAfterTheEndCancelsNothing) {
  auto run = Start();
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  run->Wait();
  EXPECT_FALSE(n1().cancelled());
  EXPECT_FALSE(n2().cancelled());
}

TEST_F(StepRunTest, TheNodesCallsCloseWithoutSrunOnceSrunHearsTheEndHasPassed) {
  spec_.srun_hears_the_end = seconds(30);
  auto run = Start();
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  clock_ += 30;  // srun never closes its side
  run->Wait();
  EXPECT_TRUE(n1().writes_done());
  EXPECT_FALSE(n1().cancelled());
}

TEST_F(StepRunTest, ASignalGoesToEveryNode) {
  auto run = Start();
  run->Signal(SIGUSR1);
  EXPECT_EQ(n1().SignalCount(SIGUSR1), 1);
  EXPECT_EQ(n2().SignalCount(SIGUSR1), 1);
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  EXPECT_FALSE(run->Wait().cancelled);
}

TEST_F(StepRunTest, ASignalFromSrunReachesEveryNodeAndTheTasksItKillsEndTheStep) {
  auto run = Start();
  v1::StepInput in;
  in.set_signal(SIGTERM);  // `kill -TERM` on srun, which forwards it on its stream
  run->Input(*TaskInputFromSrun(in));
  EXPECT_EQ(n1().SignalCount(SIGTERM), 1);
  EXPECT_EQ(n2().SignalCount(SIGTERM), 1);
  n1().Push(Exit(0, 0, SIGTERM));
  n1().Push(Exit(1, 0, SIGTERM));
  n1().Push(Finished());
  n2().Push(Exit(2, 0, SIGTERM));
  n2().Push(Finished());
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  const StepOutcome outcome = run->Wait();
  EXPECT_EQ(outcome.signal, SIGTERM);
  EXPECT_FALSE(outcome.cancelled) << "a signal is not scancel N.S";
  EXPECT_FALSE(outcome.timed_out);
  const std::vector<v1::TaskExit> exits = srun_.exits();
  ASSERT_EQ(exits.size(), 3u);
  for (const v1::TaskExit& e : exits) EXPECT_EQ(e.signal(), SIGTERM) << "task " << e.task_id();
}

TEST_F(StepRunTest, InputGoesToEveryNode) {
  auto run = Start();
  v1::StepInput in;
  in.set_stdin("line\n");
  run->Input(*TaskInputFromSrun(in));
  for (FakeNode* node : {&n1(), &n2()}) {
    const std::vector<v1::TaskInput> written = node->written();
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].stdin(), "line\n");
  }
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  run->Wait();
}

TEST_F(StepRunTest, CancelKillsEveryNodeAndTheOutcomeSaysCancelled) {
  auto run = Start();
  run->Cancel();
  EXPECT_EQ(n1().SignalCount(SIGKILL), 1);
  EXPECT_EQ(n2().SignalCount(SIGKILL), 1);
  EndAll({0, 0, 0});
  ASSERT_TRUE(srun_.WaitForFinished());
  run->SrunClosed();
  EXPECT_TRUE(run->Wait().cancelled);
}

TEST_F(StepRunTest, TheJobEndingHereCancelsEveryNodeStream) {
  auto run = Start();
  job_running_ = false;
  ASSERT_TRUE(n1().WaitForCancel());
  ASSERT_TRUE(n2().WaitForCancel());
  ASSERT_TRUE(srun_.WaitForFinished());
  const StepOutcome outcome = run->Wait();  // no wait for srun: the job is gone
  EXPECT_TRUE(outcome.cancelled);
}

TEST_F(StepRunTest, DestroyingARunWithoutWaitEndsIt) {
  auto run = Start();
  run.reset();
  EXPECT_TRUE(n1().cancelled());
  EXPECT_TRUE(n2().cancelled());
}

TEST(StepTimeLimitTest, TermsOnceAtTheLimitAndKillsOnceKillWaitLater) {
  const TimePoint start(seconds(100));
  StepTimeLimit limit(start, seconds(60), seconds(5));
  EXPECT_EQ(limit.Tick(start + seconds(59)), StepTimeLimit::Action::kNone);
  EXPECT_FALSE(limit.hit());
  EXPECT_EQ(limit.Tick(start + seconds(61)), StepTimeLimit::Action::kTerminate);
  EXPECT_TRUE(limit.hit());
  EXPECT_EQ(limit.Tick(start + seconds(62)), StepTimeLimit::Action::kNone);
  // KillWait counts from the SIGTERM, not from the limit.
  EXPECT_EQ(limit.Tick(start + seconds(65)), StepTimeLimit::Action::kNone);
  EXPECT_EQ(limit.Tick(start + seconds(66)), StepTimeLimit::Action::kKill);
  EXPECT_EQ(limit.Tick(start + seconds(1000)), StepTimeLimit::Action::kNone);
}

TEST(StepTimeLimitTest, NoLimitNeverActs) {
  const TimePoint start(seconds(100));
  StepTimeLimit limit(start, seconds(0), seconds(5));
  EXPECT_EQ(limit.Tick(start + seconds(1000000)), StepTimeLimit::Action::kNone);
}

TEST(TaskInputFromSrunTest, ForwardsStdinEofSignalAndWindowOnly) {
  v1::StepInput in;
  in.set_stdin_eof(true);
  EXPECT_TRUE(TaskInputFromSrun(in)->stdin_eof());
  in.set_signal(SIGINT);
  EXPECT_EQ(TaskInputFromSrun(in)->signal(), SIGINT);
  in.mutable_window()->set_rows(40);
  EXPECT_EQ(TaskInputFromSrun(in)->window().rows(), 40);
  in.mutable_request()->set_ntasks(1);
  EXPECT_FALSE(TaskInputFromSrun(in).has_value());
}

}  // namespace
}  // namespace skiff::noded
