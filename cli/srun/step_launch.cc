#include "cli/srun/step_launch.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/srun/step_session.h"
#include "client/ctld_client.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/config_loader.h"
#include "common/propagated_limits.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/noded.grpc.pb.h"

namespace skiff::cli {
namespace {

constexpr char kProgram[] = "srun";

int Fail(const std::string& message) {
  return client::ReportError(kProgram, absl::UnknownError(message), 1);
}

// --pty: srun's terminal is raw while the step runs (keys, Ctrl-C included, go
// to the remote terminal) and restored when it ends.
class Terminal {
 public:
  void MakeRaw() {
    if (tcgetattr(0, &saved_) != 0) return;
    struct termios raw = saved_;
    cfmakeraw(&raw);
    if (tcsetattr(0, TCSADRAIN, &raw) == 0) raw_ = true;
  }
  void Restore() {
    if (raw_) tcsetattr(0, TCSADRAIN, &saved_);
    raw_ = false;
  }

 private:
  struct termios saved_ {};
  bool raw_ = false;
};

v1::StepInput WindowInput() {
  v1::StepInput input;
  struct winsize size {};
  if (ioctl(0, TIOCGWINSZ, &size) == 0) {
    input.mutable_window()->set_rows(size.ws_row);
    input.mutable_window()->set_cols(size.ws_col);
  }
  return input;
}

std::string ShortHostname() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host).substr(0, std::string(host).find('.'));
}

// What Slurm's srun passes its tasks of itself: its umask (unless already
// set, as in a batch job), its nice value, and its resource limits
// (PropagateResourceLimits=ALL; noded applies them and drops these).
void AddSrunProcessEnvironment(std::map<std::string, std::string>* env) {
  if (env->find("SLURM_UMASK") == env->end()) {
    const mode_t mask = umask(0);
    umask(mask);
    char octal[8];
    snprintf(octal, sizeof(octal), "%04o", static_cast<unsigned>(mask));
    (*env)["SLURM_UMASK"] = octal;
  }
  errno = 0;
  const int nice_value = getpriority(PRIO_PROCESS, 0);
  if (errno == 0) (*env)["SLURM_PRIO_PROCESS"] = std::to_string(nice_value);
  for (const auto& [name, resource] : kPropagatedLimits) {
    struct rlimit limit {};
    if (getrlimit(resource, &limit) == 0) {
      (*env)[absl::StrCat("SLURM_RLIMIT_", name)] = std::to_string(limit.rlim_cur);
    }
  }
}

// --multi-prog's configuration file, the command's first word.
absl::StatusOr<std::string> ReadMultiProg(const SrunArgs& args) {
  const std::string& file = args.command.front();
  std::ifstream in(file);
  if (!in) return absl::UnknownError("Could not open multi_prog config file " + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The step request; errors are srun's texts (without "srun: error: ").
absl::StatusOr<v1::StepRequest> StepRequestOf(const SrunArgs& args,
                                              const std::map<std::string, std::string>& env,
                                              const std::string& cwd) {
  absl::StatusOr<v1::StepRequest> request = BuildStepRequest(args, env, cwd);
  if (!request.ok()) return request;
  // The terminal's size travels with the request, so the task starts with it;
  // later changes follow as SIGWINCH messages.
  if (args.pty) *request->mutable_window() = WindowInput().window();
  if (args.multi_prog) {
    absl::StatusOr<std::string> text = ReadMultiProg(args);
    if (!text.ok()) return text.status();
    absl::StatusOr<std::vector<std::vector<std::string>>> commands =
        ParseMultiProg(*text, args.command.front(), request->ntasks(), /*ntasks_set=*/true);
    if (!commands.ok()) return commands.status();
    for (size_t task = 0; task < commands->size(); ++task) {
      std::string packed = std::to_string(task);
      for (const std::string& arg : (*commands)[task]) packed += std::string(1, '\0') + arg;
      request->add_task_argv(packed);
    }
  }
  request->set_srun_host(ShortHostname());
  request->set_srun_pid(static_cast<int32_t>(getpid()));
  return request;
}

// srun's end of its RunStep call.
class GrpcStepStream final : public StepStream {
 public:
  GrpcStepStream(grpc::ClientContext* context,
                 grpc::ClientReaderWriter<v1::StepInput, v1::StepOutput>* stream)
      : context_(context), stream_(stream) {}
  bool Write(const v1::StepInput& input) override { return stream_->Write(input); }
  bool Read(v1::StepOutput* output) override { return stream_->Read(output); }
  void WritesDone() override { stream_->WritesDone(); }
  grpc::Status Finish() override { return stream_->Finish(); }
  void Cancel() override { context_->TryCancel(); }

 private:
  grpc::ClientContext* context_;
  grpc::ClientReaderWriter<v1::StepInput, v1::StepOutput>* stream_;
};

// The signals srun forwards, taken by one thread: blocked in the calling
// thread, and so in every thread started after.
sigset_t BlockSrunSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH}) {
    sigaddset(&signals, sig);
  }
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

// `signals` to `session` from a thread of their own, until srun exits (it
// holds the session so that a signal after the step still finds it).
void ForwardSignals(const sigset_t& signals, std::shared_ptr<StepSession> session) {
  std::thread([signals, session = std::move(session)] {
    for (;;) {
      int sig = 0;
      if (sigwait(&signals, &sig) == 0) session->Signal(sig);
    }
  }).detach();
}

}  // namespace

absl::Status CountTasksOfMultiProg(const std::map<std::string, std::string>& env, SrunArgs* args) {
  if (!args->multi_prog || args->command.empty() || TaskCountGiven(*args, env)) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> text = ReadMultiProg(*args);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<std::vector<std::string>>> commands =
      ParseMultiProg(*text, args->command.front(), 1, /*ntasks_set=*/false);
  if (!commands.ok()) return commands.status();
  args->ntasks = static_cast<int>(commands->size());
  return absl::OkStatus();
}

int LaunchStep(const SrunCommandLine& line, const std::string& cwd,
               std::map<std::string, std::string> env) {
  AddSrunProcessEnvironment(&env);
  absl::StatusOr<v1::StepRequest> request = StepRequestOf(line.args, env, cwd);
  if (!request.ok()) return Fail(std::string(request.status().message()));
  if (line.slurmd_debug) {
    bool capped = false;  // srun.cc said so
    request->set_slurmd_debug(SlurmdDebugIncrement(*line.slurmd_debug, &capped));
  }
  const uint64_t job_id = request->job_id();
  auto addr = env.find("SKIFF_STEPMGR_ADDR");
  if (addr == env.end() || addr->second.empty()) {
    return Fail(
        absl::StrCat("Unable to create step for job ", job_id,
                     ": the job's environment lacks SKIFF_STEPMGR_ADDR (its step manager)"));
  }
  absl::StatusOr<LoadedConfig> config = client::LoadClientConfig("");
  if (!config.ok()) return Fail(std::string(config.status().message()));
  MungeAuthenticator auth(config->skiff.auth_socket);
  const sigset_t signals = BlockSrunSignals();

  std::shared_ptr<grpc::Channel> channel = MakeChannel(addr->second);
  // The step lasts as long as it runs; only reaching the step manager is bounded.
  if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                 std::chrono::seconds(config->skiff.message_timeout))) {
    return Fail(absl::StrCat("Unable to create step for job ", job_id,
                             ": cannot reach its step manager at ", addr->second,
                             " within MessageTimeout=", config->skiff.message_timeout, "s"));
  }
  auto stub = v1::Noded::NewStub(channel);
  grpc::ClientContext context;
  if (absl::Status s = AttachCredential(auth, &context); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  auto call = stub->RunStep(&context);
  GrpcStepStream stream(&context, call.get());

  StepSessionSpec spec;
  spec.request = *std::move(request);
  spec.label = line.args.label;
  spec.pty = line.args.pty;
  spec.quit_on_interrupt = line.quit_on_interrupt;
  spec.verbose = line.verbose;
  spec.wait_seconds = line.args.wait.value_or(0);
  // -o N's stderr shares its "file" (Slurm's err_shares_out): srun's stdout.
  spec.stderr_to_stdout =
      spec.request.has_output_task() && (!line.args.error || *line.args.error == *line.args.output);
  auto terminal = std::make_shared<Terminal>();
  StepSessionIo io;
  io.window_input = WindowInput;
  io.raw_terminal = [terminal] { terminal->MakeRaw(); };
  io.restore_terminal = [terminal] { terminal->Restore(); };
  auto session = std::make_shared<StepSession>(std::move(spec), std::move(io));
  ForwardSignals(signals, session);
  return session->Run(stream);
}

}  // namespace skiff::cli
