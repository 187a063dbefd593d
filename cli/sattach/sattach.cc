// sattach: attach to a running job step, as Slurm's sattach. ctld says where
// the job's step manager is (GetJobs); the step manager (noded AttachStep)
// sends the step's layout, then a copy of its tasks' output and ends from now
// on, and passes sattach's stdin to the tasks. sattach exits when the step
// ends, with its tasks' highest exit code; killing sattach leaves the step
// running.
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/common/task_output.h"
#include "cli/sattach/sattach_options.h"
#include "client/ctld_client.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/noded.grpc.pb.h"

namespace {

int g_error_exit = 1;

[[noreturn]] void Fail(const std::string& message) {
  fprintf(stderr, "sattach: error: %s\n", message.c_str());
  exit(g_error_exit);
}

termios g_saved_terminal;
bool g_raw = false;
void RestoreTerminal() {
  if (g_raw) tcsetattr(STDIN_FILENO, TCSANOW, &g_saved_terminal);
}

}  // namespace

int skiff::cli::SattachMain(int argc, char** argv) {
  std::string warning;
  g_error_exit = skiff::cli::SattachErrorExit(getenv("SLURM_EXIT_ERROR"), &warning);
  if (!warning.empty()) fprintf(stderr, "%s\n", warning.c_str());
  const skiff::cli::SattachParse parsed =
      skiff::cli::ParseSattachArgs(std::vector<std::string>(argv, argv + argc));
  if (!parsed.args) {
    for (const std::string& line : parsed.errors) fprintf(stderr, "%s\n", line.c_str());
    if (parsed.print_usage) std::cout << skiff::cli::SattachUsage();
    return g_error_exit;
  }
  const skiff::cli::SattachArgs& args = *parsed.args;
  if (args.help) {
    std::cout << skiff::cli::SattachHelp();
    return 0;
  }
  if (args.usage) {
    std::cout << skiff::cli::SattachUsage();
    return 0;
  }
  if (args.version) {
    std::cout << skiff::cli::VersionLine();
    return 0;
  }

  absl::StatusOr<std::unique_ptr<skiff::client::CtldClient>> connected =
      skiff::client::CtldClient::Connect("");
  if (!connected.ok())
    return skiff::client::ReportError("sattach", connected.status(), g_error_exit);
  skiff::client::CtldClient& client = **connected;
  // Slurm asks slurmctld for the step's layout, which answers for the job
  // (job_alloc_info) with these texts.
  skiff::v1::GetJobsRequest job_request;
  job_request.add_job_ids(args.job_id);
  skiff::v1::GetJobsReply jobs;
  if (absl::Status s = client.Call(&skiff::v1::Ctld::Stub::GetJobs, job_request, &jobs); !s.ok()) {
    Fail(absl::StrCat("Could not get job step info: ", s.message()));
  }
  if (jobs.jobs_size() == 0) Fail("Could not get job step info: Invalid job id specified");
  const skiff::v1::JobInfo& job = jobs.jobs(0);
  if (job.state() == skiff::v1::PENDING) {
    Fail("Could not get job step info: Job is pending execution");
  }
  // CONFIGURING: its script may already run (ctld hears of the launch after
  // it started); the step manager decides.
  if ((job.state() != skiff::v1::RUNNING && job.state() != skiff::v1::CONFIGURING) ||
      job.stepmgr_address().empty()) {
    Fail("Could not get job step info: Job/step already completing or completed");
  }

  auto stub = skiff::v1::Noded::NewStub(skiff::MakeChannel(job.stepmgr_address()));
  grpc::ClientContext context;
  if (absl::Status s = skiff::AttachCredential(client.auth(), &context); !s.ok()) {
    return skiff::client::ReportError("sattach", s, g_error_exit);
  }
  auto stream = stub->AttachStep(&context);
  std::mutex write_mu;
  bool closed = false;  // under write_mu: WritesDone sent
  auto send = [&](const skiff::v1::AttachInput& input) {
    std::lock_guard<std::mutex> lock(write_mu);
    if (!closed) stream->Write(input);
  };
  auto close_input = [&] {
    std::lock_guard<std::mutex> lock(write_mu);
    if (!closed) stream->WritesDone();
    closed = true;
  };
  {
    skiff::v1::AttachInput first;
    first.mutable_request()->set_job_id(args.job_id);
    first.mutable_request()->set_step_id(args.step_id);
    first.mutable_request()->set_layout_only(args.layout_only);
    send(first);
  }
  skiff::v1::StepOutput layout;
  if (!stream->Read(&layout) || !layout.created()) {
    close_input();
    const grpc::Status status = stream->Finish();
    Fail(absl::StrCat("Could not get job step info: ",
                      status.ok() ? "the step manager went away" : status.error_message()));
  }
  if (args.layout_only) {
    close_input();
    stream->Finish();
    std::cout << skiff::cli::SattachLayout(layout);
    return 0;
  }
  const int ntasks = skiff::cli::StepTaskCount(layout);

  if (args.pty && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &g_saved_terminal) == 0) {
    termios raw = g_saved_terminal;
    cfmakeraw(&raw);
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) g_raw = true;
    atexit(RestoreTerminal);
  }
  // stdin to the step. Its end is not passed on: the step's stdin belongs to
  // its srun, and a sattach started with </dev/null must not close it.
  std::thread([&] {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      skiff::v1::AttachInput input;
      if (args.input_filter) {
        input.mutable_task_stdin()->set_task_id(*args.input_filter);
        input.mutable_task_stdin()->set_data(std::string(buf, static_cast<size_t>(n)));
      } else {
        input.set_stdin(std::string(buf, static_cast<size_t>(n)));
      }
      send(input);
    }
  }).detach();

  skiff::cli::LabeledOutput output(args.label, ntasks, skiff::cli::WriteAll);
  int exit_code = 0;
  bool finished = false;
  std::string error;
  skiff::v1::StepOutput out;
  while (stream->Read(&out)) {
    if (!out.data().empty()) {
      const std::optional<int>& filter = out.is_stderr() ? args.error_filter : args.output_filter;
      if (!filter || *filter == out.task_id())
        output.Add(out.task_id(), out.is_stderr(), out.data());
    }
    for (const skiff::v1::TaskExit& exit : out.task_exit()) {
      output.Flush(exit.task_id());
      if (exit.signal() == 0 && exit.exit_code() != 0) {
        fprintf(stderr, "sattach: error: task %d exited with exit code %d\n", exit.task_id(),
                exit.exit_code());
        exit_code = std::max(exit_code, exit.exit_code());
      }
    }
    if (!out.error().empty()) error = out.error();
    if (out.finished()) {
      finished = true;
      break;
    }
  }
  close_input();
  const grpc::Status status = stream->Finish();
  RestoreTerminal();
  fflush(stdout);
  if (!error.empty()) Fail(error);
  if (!finished) {
    Fail(absl::StrCat("StepId=", args.job_id, ".", args.step_id, ": the step manager went away",
                      status.ok() ? "" : ": " + status.error_message()));
  }
  return exit_code;
}
