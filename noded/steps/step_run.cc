#include "noded/steps/step_run.h"

#include <signal.h>

#include <ctime>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/time_format.h"

namespace skiff::noded {

StepTimeLimit::Action StepTimeLimit::Tick(TimePoint now) {
  if (limit_.count() <= 0 || killed_) return Action::kNone;
  if (!terminated_at_) {
    if (now - start_ < limit_) return Action::kNone;
    terminated_at_ = now;
    return Action::kTerminate;
  }
  if (now - *terminated_at_ < kill_wait_) return Action::kNone;
  killed_ = true;
  return Action::kKill;
}

std::optional<v1::TaskInput> TaskInputFromSrun(const v1::StepInput& input) {
  v1::TaskInput forward;
  switch (input.what_case()) {
    case v1::StepInput::kStdin:
      forward.set_stdin(input.stdin());
      return forward;
    case v1::StepInput::kStdinEof:
      forward.set_stdin_eof(true);
      return forward;
    case v1::StepInput::kSignal:
      forward.set_signal(input.signal());
      return forward;
    case v1::StepInput::kWindow:
      *forward.mutable_window() = input.window();
      return forward;
    default:
      return std::nullopt;
  }
}

StepRun::StepRun(StepRunSpec spec, StepRunDeps deps)
    : spec_(std::move(spec)), deps_(std::move(deps)), started_(deps_.now()) {
  if (!deps_.unix_now) deps_.unix_now = [] { return static_cast<int64_t>(time(nullptr)); };
  for (size_t i = 0; i < spec_.nodes.size(); ++i) {
    auto node = std::make_unique<Node>();
    node->name = spec_.nodes[i];
    if (i < spec_.task_ids.size()) node->task_ids = spec_.task_ids[i];
    node->stream = deps_.open_stream(i);
    nodes_.push_back(std::move(node));
  }
  for (auto& node : nodes_) readers_.emplace_back([this, n = node.get()] { Read(*n); });
  finisher_ = std::thread([this] { Finish(); });
}

StepRun::~StepRun() {
  if (!finisher_.joinable()) return;
  CancelStreams();
  SrunClosed();
  finisher_.join();
}

void StepRun::Signal(int sig) {
  v1::TaskInput input;
  input.set_signal(sig);
  Send(input);
}

void StepRun::Cancel() {
  cancelled_ = true;
  Signal(SIGKILL);
}

void StepRun::Input(const v1::TaskInput& input) { Send(input); }

void StepRun::SrunClosed() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    srun_closed_ = true;
  }
  changed_.notify_all();
  if (!all_ended_) CancelStreams();  // srun went away: end the tasks
}

StepOutcome StepRun::Wait() {
  finisher_.join();
  std::lock_guard<std::mutex> lock(outcome_mu_);
  StepOutcome outcome = outcome_;
  outcome.cancelled = cancelled_ || !deps_.job_running();
  outcome.timed_out = timed_out_;
  return outcome;
}

void StepRun::Send(const v1::TaskInput& input) {
  for (auto& node : nodes_) {
    std::lock_guard<std::mutex> lock(node->mu);
    if (!node->closed) node->stream->Write(input);
  }
}

void StepRun::CancelStreams() {
  for (auto& node : nodes_) node->stream->Cancel();
}

void StepRun::Emit(const v1::StepOutput& out) {
  std::lock_guard<std::mutex> lock(sink_mu_);
  deps_.sink(out);
}

void StepRun::ReaderDone() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++readers_done_;
  }
  changed_.notify_all();
}

void StepRun::Read(Node& node) {
  v1::TaskOutput out;
  bool finished = false;
  while (node.stream->Read(&out)) {
    if (!out.data().empty()) {
      v1::StepOutput forward;
      forward.set_task_id(out.task_id());
      forward.set_is_stderr(out.is_stderr());
      forward.set_data(out.data());
      Emit(forward);
    }
    if (out.task_exit_size() > 0) {
      v1::StepOutput forward;
      bool bad = false;
      for (const v1::TaskExit& exit : out.task_exit()) {
        v1::TaskExit* e = forward.add_task_exit();
        *e = exit;
        e->set_node(node.name);
        node.ended.insert(exit.task_id());
        bad = bad || exit.exit_code() != 0 || exit.signal() != 0;
        std::lock_guard<std::mutex> lock(outcome_mu_);
        outcome_.Add(exit.exit_code(), exit.signal(), !exit.failure().empty());
        outcome_.AddUsage(exit.task_id(), node.name, exit.user_cpu_usec(), exit.system_cpu_usec(),
                          exit.max_rss_kb());
      }
      Emit(forward);
      if (bad && spec_.kill_on_bad_exit) Signal(SIGKILL);
    }
    if (out.finished()) {
      finished = true;
      break;
    }
  }
  if (finished) {
    // This node's part is told; its call stays open until srun has heard.
    ReaderDone();
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return release_nodes_; });
  }
  {
    std::lock_guard<std::mutex> lock(node.mu);
    node.closed = true;
    node.stream->WritesDone();
  }
  const grpc::Status status = node.stream->Finish();
  if (finished) return;
  // The node's call broke: its tasks that were not reported end here.
  v1::StepOutput lost;
  for (int t : node.task_ids) {
    if (node.ended.count(t) != 0) continue;
    v1::TaskExit* e = lost.add_task_exit();
    e->set_task_id(t);
    e->set_node(node.name);
    e->set_exit_code(1);
    e->set_failure(
        absl::StrCat("node ", node.name, " lost the step's tasks: ", status.error_message()));
    std::lock_guard<std::mutex> lock(outcome_mu_);
    outcome_.Add(1, 0, true);
  }
  if (lost.task_exit_size() > 0) Emit(lost);
  ReaderDone();
}

void StepRun::Finish() {
  // Every node's tasks, meanwhile watching the job (its end here, by scancel
  // or its time limit, ends its steps everywhere) and the step's time limit.
  StepTimeLimit limit(started_, spec_.time_limit, spec_.kill_wait);
  bool streams_cancelled = false;
  for (;;) {
    if (!streams_cancelled && !deps_.job_running()) {
      CancelStreams();
      streams_cancelled = true;
    }
    switch (limit.Tick(deps_.now())) {
      case StepTimeLimit::Action::kTerminate: {
        timed_out_ = true;
        v1::StepOutput note;
        note.set_task_id(0);
        note.set_is_stderr(true);
        note.set_data(absl::StrCat("slurmstepd: error: *** STEP ", spec_.job_id, ".", spec_.step_id,
                                   " ON ", spec_.manager_node, " CANCELLED AT ",
                                   FormatTimestamp(deps_.unix_now()), " DUE TO TIME LIMIT ***\n"));
        Emit(note);
        Signal(SIGTERM);
        break;
      }
      case StepTimeLimit::Action::kKill:
        Signal(SIGKILL);
        break;
      case StepTimeLimit::Action::kNone:
        break;
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (changed_.wait_for(lock, spec_.poll, [this] { return readers_done_ == nodes_.size(); })) {
      break;
    }
  }
  all_ended_ = true;
  // The nodes' calls close once srun has heard the end (see StepRunSpec),
  // counted from before it is told.
  const auto deadline = deps_.now() + spec_.srun_hears_the_end;
  v1::StepOutput last;
  last.set_finished(true);
  Emit(last);
  if (deps_.told_srun) {
    StepOutcome outcome;
    {
      std::lock_guard<std::mutex> lock(outcome_mu_);
      outcome = outcome_;
    }
    deps_.told_srun(outcome);
  }
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (!srun_closed_ && deps_.job_running() && deps_.now() < deadline) {
      changed_.wait_for(lock, spec_.poll);
    }
    release_nodes_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : readers_) t.join();
}

}  // namespace skiff::noded
