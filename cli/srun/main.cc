// srun: runs a job step, as Slurm's srun. Inside an allocation (SLURM_JOB_ID
// set) it asks the job's step manager (the noded of the job's first node,
// SKIFF_STEPMGR_ADDR) to create the step; ctld is not involved. Task output
// streams back in order per task; stdin, Ctrl-C and signals go forward.
//
// Threads: main reads the step's stream and writes stdout/stderr; one thread
// forwards srun's stdin; one waits for signals (blocked everywhere else).
// Writes to the stream are serialized by write_mu.
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cli/common/allocation.h"
#include "cli/common/ctld_client.h"
#include "cli/common/environment.h"
#include "cli/common/getopt_args.h"
#include "cli/common/task_output.h"
#include "cli/sbatch/sbatch_options.h"
#include "cli/srun/srun_help.h"
#include "cli/srun/srun_options.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/config_loader.h"
#include "common/propagated_limits.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/version.h"
#include "proto/noded.grpc.pb.h"

namespace {

constexpr char kProgram[] = "srun";

volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

// --pty: srun's terminal is raw while the step runs (keys, Ctrl-C included, go
// to the remote terminal) and restored however srun ends.
struct termios g_saved_terminal;
bool g_terminal_raw = false;

void MakeTerminalRaw() {
  if (tcgetattr(0, &g_saved_terminal) != 0) return;
  struct termios raw = g_saved_terminal;
  cfmakeraw(&raw);
  if (tcsetattr(0, TCSADRAIN, &raw) == 0) g_terminal_raw = true;
}

void RestoreTerminal() {
  if (g_terminal_raw) tcsetattr(0, TCSADRAIN, &g_saved_terminal);
  g_terminal_raw = false;
}

skiff::v1::StepInput WindowInput() {
  skiff::v1::StepInput input;
  struct winsize size {};
  if (ioctl(0, TIOCGWINSZ, &size) == 0) {
    input.mutable_window()->set_rows(size.ws_row);
    input.mutable_window()->set_cols(size.ws_col);
  }
  return input;
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// srun outside a job: the allocation request its options make (salloc's).
skiff::SbatchRawOptions AllocationOptions(const skiff::SrunArgs& args) {
  skiff::SbatchRawOptions o;
  auto text = [](const std::optional<int>& n) -> std::optional<std::string> {
    return n ? std::optional<std::string>(std::to_string(*n)) : std::nullopt;
  };
  o.partition = args.partition;
  o.time = args.time;
  o.account = args.account;
  o.qos = args.qos;
  o.constraint = args.constraint;
  if (args.exclusive) o.exclusive = "exclusive";
  o.nodes = args.nodes;
  o.ntasks = text(args.ntasks);
  o.ntasks_per_node = text(args.ntasks_per_node);
  o.cpus_per_task = text(args.cpus_per_task);
  o.mincpus = text(args.mincpus);
  if (args.overcommit) o.overcommit = true;
  if (args.spread_job) o.spread_job = true;
  if (args.contiguous) o.contiguous = true;
  if (args.use_min_nodes) o.use_min_nodes = true;
  o.mem = args.mem;
  o.gres = args.gres;
  o.gpus = args.gpus;
  o.gpus_per_node = args.gpus_per_node;
  if (args.gpus_per_task && !args.gpus) {
    // In 64 bits: sbatch's parser refuses a total past int, never a wrapped one.
    o.gpus = std::to_string(int64_t{*args.gpus_per_task} * args.ntasks.value_or(1));
  }
  o.nodelist = args.nodelist;
  o.exclude = args.exclude;
  o.chdir = args.chdir;
  o.job_name = args.job_name ? *args.job_name
                             : (args.command.empty() ? "srun" : Basename(args.command.front()));
  o.output = "/dev/null";
  o.export_env = "NONE";
  return o;
}

// Each line of `message` as its own "srun: error: " line (ctld's refusals
// come as slurmctld's err_msg line, then the summary).
int Fail(const std::string& message, int code = 1) {
  return skiff::ReportError(kProgram, absl::UnknownError(message), code);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"srun"};
  app.set_help_flag();
  skiff::SrunArgs args;
  bool help = false, usage = false, version = false, quiet = false;
  int verbose = 0;
  std::string immediate_secs;
  // Slurm's input variables first; the command line overrides them.
  std::map<std::string, std::string> env = skiff::ProcessEnvironment();
  for (const std::string& error : skiff::ApplySrunEnvironment(env, &args, &verbose)) {
    fprintf(stderr, "srun: error: %s\n", error.c_str());
  }
  std::optional<std::string> begin, tmp, threads, slurmd_debug;
  bool hold = false, quit_on_interrupt = false;
  app.add_option("-A,--account", args.account);
  app.add_option("-c,--cpus-per-task", args.cpus_per_task);
  app.add_option("-C,--constraint", args.constraint);
  app.add_option("--cpu-bind,--cpu_bind", args.cpu_bind);
  app.add_option("-D,--chdir", args.chdir);
  app.add_option("-i,--input", args.input);
  app.add_option("-o,--output", args.output);
  app.add_option("-e,--error", args.error);
  app.add_flag("--multi-prog", args.multi_prog);
  app.add_flag("--exact", args.exact);
  app.add_flag("--exclusive", args.exclusive);
  app.add_option("--export", args.export_env);
  app.add_option("-x,--exclude", args.exclude);
  app.add_option("-G,--gpus", args.gpus);
  app.add_option("--gpus-per-node", args.gpus_per_node);
  app.add_option("--gpus-per-task", args.gpus_per_task);
  app.add_option("--gres", args.gres);
  app.add_flag("-h,--help", help);
  app.add_flag("-I,--immediate", args.immediate);
  app.add_option("-J,--job-name", args.job_name);
  app.add_flag("-K,--kill-on-bad-exit", args.kill_on_bad_exit);
  app.add_flag("-l,--label", args.label);
  app.add_option("--mem", args.mem);
  app.add_option("--mpi", args.mpi);
  app.add_option("-n,--ntasks", args.ntasks);
  app.add_option("--ntasks-per-node", args.ntasks_per_node);
  app.add_option("-N,--nodes", args.nodes);
  app.add_option("-w,--nodelist", args.nodelist);
  app.add_flag("--overlap", args.overlap);
  app.add_flag("-O,--overcommit", args.overcommit);
  app.add_flag("--spread-job", args.spread_job);
  app.add_flag("--contiguous", args.contiguous);
  app.add_flag("--use-min-nodes", args.use_min_nodes);
  app.add_option("--mincpus", args.mincpus);
  app.add_option("-p,--partition", args.partition);
  app.add_flag("--pty", args.pty);
  app.add_option("-q,--qos", args.qos);
  app.add_flag("-Q,--quiet", quiet);
  app.add_option("-t,--time", args.time);
  app.add_flag("-u,--unbuffered", args.unbuffered);
  app.add_flag("--usage", usage);
  app.add_flag("-v,--verbose", verbose);
  app.add_flag("-V,--version", version);
  app.add_option("-W,--wait", args.wait);
  // An allocation's (srun outside a job), as sbatch's.
  app.add_option("-b,--begin", begin);
  app.add_flag("-H,--hold", hold);
  app.add_option("--tmp", tmp);
  // Accepted as Slurm's, with nothing to change here: srun's own fan-out
  // threads (one stream serves every node) and slurmstepd's log level.
  app.add_option("-T,--threads", threads);
  app.add_option("--slurmd-debug", slurmd_debug);
  app.add_flag("--quit-on-interrupt", quit_on_interrupt);
  app.add_option("--task-prolog", args.task_prolog);
  app.add_option("--task-epilog", args.task_epilog);
  if (int rc = skiff::ParseGetoptCommandLine(app, kProgram, argc, argv, &args.command,
                                             skiff::GetoptOrder::kStopAtOperand);
      rc >= 0) {
    return rc;
  }
  if (version) {
    std::cout << "skiff " << skiff::kSkiffVersion << "\n";
    return 0;
  }
  if (help) {
    std::cout << skiff::SrunHelp();
    return 0;
  }
  if (usage) {
    std::cout << skiff::SrunUsage();
    return 0;
  }
  // Skiff keeps no TmpDisk per node, as sbatch says of it too.
  if (tmp) fprintf(stderr, "srun: warning: --tmp is not supported by Skiff and was ignored\n");
  if (args.pty && !isatty(0)) return Fail("--pty needs a terminal on stdin");
  if (args.command.empty()) return Fail("No command given to execute.");
  char cwd_buf[4096];
  const std::string cwd = getcwd(cwd_buf, sizeof(cwd_buf)) ? cwd_buf : "/";
  // Outside a job: an allocation of srun's own first, relinquished at the end.
  std::unique_ptr<skiff::CtldClient> ctld;
  std::optional<skiff::v1::JobInfo> own;
  if (env.find("SLURM_JOB_ID") == env.end()) {
    skiff::SbatchCommandLine line;
    line.options = AllocationOptions(args);
    line.options.begin = begin;
    if (hold) line.options.hold = true;
    skiff::SubmitContext submit;
    submit.cwd = cwd;
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    submit.hostname = std::string(host).substr(0, std::string(host).find('.'));
    submit.now = time(nullptr);
    absl::StatusOr<skiff::SbatchSubmission> submission =
        skiff::BuildSubmission(line, skiff::kAllocationHolderScript, submit);
    if (!submission.ok()) return Fail(std::string(submission.status().message()));
    absl::StatusOr<std::unique_ptr<skiff::CtldClient>> client = skiff::CtldClient::Connect("");
    if (!client.ok()) return Fail(std::string(client.status().message()));
    ctld = std::move(*client);
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
    absl::StatusOr<skiff::v1::JobInfo> job = skiff::Allocate(
        *ctld, submission->spec, {kProgram, false}, [] { return g_interrupted != 0; });
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (!job.ok()) {
      if (absl::IsCancelled(job.status()) || absl::IsUnavailable(job.status())) {
        fprintf(stderr, "srun: %s\n", std::string(job.status().message()).c_str());
        return 1;
      }
      return Fail(std::string(job.status().message()));
    }
    own = *job;
    for (const auto& [key, value] : skiff::AllocationEnvironment(
             *own, ctld->config().skiff.cluster_name, cwd, submit.hostname)) {
      env[key] = value;
    }
  }
  // Ends srun: relinquishes its own allocation with the step's exit code.
  auto finish = [&](int code) {
    RestoreTerminal();
    fflush(stdout);
    fflush(stderr);
    if (own) {
      if (absl::Status s = skiff::Relinquish(*ctld, *own, code); !s.ok()) {
        fprintf(stderr, "srun: error: %s\n", std::string(s.message()).c_str());
      }
    }
    _exit(code);
  };
  // What Slurm's srun passes its tasks of itself: its umask (unless already
  // set, as in a batch job), its nice value, and its resource limits
  // (PropagateResourceLimits=ALL; noded applies them and drops these).
  if (env.find("SLURM_UMASK") == env.end()) {
    const mode_t mask = umask(0);
    umask(mask);
    char octal[8];
    snprintf(octal, sizeof(octal), "%04o", static_cast<unsigned>(mask));
    env["SLURM_UMASK"] = octal;
  }
  errno = 0;
  const int nice_value = getpriority(PRIO_PROCESS, 0);
  if (errno == 0) env["SLURM_PRIO_PROCESS"] = std::to_string(nice_value);
  for (const auto& [name, resource] : skiff::kPropagatedLimits) {
    struct rlimit limit {};
    if (getrlimit(resource, &limit) == 0) {
      env[absl::StrCat("SLURM_RLIMIT_", name)] = std::to_string(limit.rlim_cur);
    }
  }
  absl::StatusOr<skiff::v1::StepRequest> request = skiff::BuildStepRequest(args, env, cwd);
  if (!request.ok()) finish(Fail(std::string(request.status().message())));
  // The terminal's size travels with the request, so the task starts with it;
  // later changes follow as SIGWINCH messages.
  if (args.pty) *request->mutable_window() = WindowInput().window();
  if (args.multi_prog) {
    // The command is the configuration file, read here as Slurm's srun does.
    const std::string& file = args.command.front();
    std::ifstream in(file);
    if (!in) finish(Fail("Unable to open configuration file " + file));
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<std::vector<std::string>>> commands =
        skiff::ParseMultiProg(text.str(), file, request->ntasks());
    if (!commands.ok()) finish(Fail(std::string(commands.status().message())));
    for (size_t task = 0; task < commands->size(); ++task) {
      std::string packed = std::to_string(task);
      for (const std::string& arg : (*commands)[task]) packed += std::string(1, '\0') + arg;
      request->add_task_argv(packed);
    }
  }
  {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    request->set_srun_host(std::string(host).substr(0, std::string(host).find('.')));
    request->set_srun_pid(static_cast<int32_t>(getpid()));
  }
  const uint64_t job_id = request->job_id();
  auto addr = env.find("SKIFF_STEPMGR_ADDR");
  if (addr == env.end() || addr->second.empty()) {
    finish(
        Fail(absl::StrCat("Unable to create step for job ", job_id,
                          ": the job's environment lacks SKIFF_STEPMGR_ADDR (its step manager)")));
  }
  absl::StatusOr<skiff::LoadedConfig> config = skiff::LoadClientConfig("");
  if (!config.ok()) finish(Fail(std::string(config.status().message())));
  skiff::MungeAuthenticator auth(config->skiff.auth_socket);

  // Signals: one thread takes them all.
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH}) {
    sigaddset(&signals, sig);
  }
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::shared_ptr<grpc::Channel> channel = skiff::MakeChannel(addr->second);
  // The step lasts as long as it runs; only reaching the step manager is bounded.
  if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                 std::chrono::seconds(config->skiff.message_timeout))) {
    finish(Fail(absl::StrCat("Unable to create step for job ", job_id,
                             ": cannot reach its step manager at ", addr->second,
                             " within MessageTimeout=", config->skiff.message_timeout, "s")));
  }
  auto stub = skiff::v1::Noded::NewStub(channel);
  grpc::ClientContext context;
  if (absl::Status s = skiff::AttachCredential(auth, &context); !s.ok()) {
    finish(Fail(std::string(s.message())));
  }
  auto stream = stub->RunStep(&context);
  std::mutex write_mu;
  bool closed = false;
  auto send = [&](const skiff::v1::StepInput& input) {
    std::lock_guard<std::mutex> lock(write_mu);
    if (!closed) stream->Write(input);
  };
  {
    skiff::v1::StepInput first;
    *first.mutable_request() = *request;
    send(first);
  }
  uint32_t step_id = 0;
  std::atomic<bool> created{false};
  // The tasks that ended, as srun heard it (the reader adds; status reads).
  std::mutex results_mu;
  std::vector<skiff::TaskResult> results;
  auto PrintStatus = [&] {
    std::lock_guard<std::mutex> lock(results_mu);
    for (const std::string& line :
         skiff::StepStatusLines(job_id, step_id, request->ntasks(), results)) {
      fprintf(stderr, "srun: %s\n", line.c_str());
    }
  };
  // -W SECONDS: once the first task has ended, the rest get that long.
  std::atomic<bool> all_done{false};
  std::atomic<int64_t> first_exit_ms{0};
  std::thread wait_limit;
  if (args.wait && *args.wait > 0) {
    wait_limit = std::thread([&] {
      while (!all_done) {
        const int64_t first = first_exit_ms;
        const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count();
        if (first != 0 && now_ms - first >= int64_t{*args.wait} * 1000) {
          fprintf(stderr, "srun: First task exited %ds ago\n", *args.wait);
          PrintStatus();
          fprintf(stderr, "srun: Terminating StepId=%lu.%u\n", static_cast<unsigned long>(job_id),
                  step_id);
          skiff::v1::StepInput kill;
          kill.set_signal(SIGKILL);
          send(kill);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  std::thread([&] {
    // Ctrl-C once: the step's state; twice within a second: kill the step.
    auto last_int = std::chrono::steady_clock::time_point();
    for (;;) {
      int sig = 0;
      if (sigwait(&signals, &sig) != 0) continue;
      skiff::v1::StepInput input;
      if (sig == SIGWINCH) {
        if (args.pty && created) send(WindowInput());
        continue;
      }
      if (sig == SIGINT) {
        const auto now = std::chrono::steady_clock::now();
        if (created && !quit_on_interrupt && now - last_int > std::chrono::seconds(1)) {
          last_int = now;
          fprintf(stderr, "srun: interrupt (one more within 1 sec to abort)\n");
          PrintStatus();
          continue;
        }
        fprintf(stderr, "srun: sending Ctrl-C to StepId=%lu.%u\n",
                static_cast<unsigned long>(job_id), step_id);
        input.set_signal(SIGKILL);
      } else {
        input.set_signal(sig);
      }
      send(input);
      if (!created) context.TryCancel();  // still waiting for resources
    }
  }).detach();
  std::thread([&] {
    char buf[65536];
    for (;;) {
      const ssize_t n = read(0, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      skiff::v1::StepInput input;
      if (n <= 0) {
        input.set_stdin_eof(true);
        send(input);
        return;
      }
      input.set_stdin(std::string(buf, static_cast<size_t>(n)));
      send(input);
    }
  }).detach();

  skiff::LabeledOutput output(args.label, request->ntasks(), skiff::WriteAll);
  bool waited = false;
  bool finished = false;
  skiff::v1::StepOutput out;
  while (stream->Read(&out)) {
    if (!out.waiting_reason().empty()) {
      fprintf(stderr, "srun: Job %lu step creation temporarily disabled, retrying (%s)\n",
              static_cast<unsigned long>(job_id), out.waiting_reason().c_str());
      waited = true;
    }
    if (out.created()) {
      created = true;
      step_id = out.step_id();
      if (verbose > 0) {
        for (const std::string& line :
             skiff::VerboseLaunchLines(job_id, step_id, out.placement())) {
          fprintf(stderr, "srun: %s\n", line.c_str());
        }
      }
      if (waited)
        fprintf(stderr, "srun: Step created for job %lu\n", static_cast<unsigned long>(job_id));
      if (args.pty) {
        send(WindowInput());
        MakeTerminalRaw();
      }
    }
    if (!out.data().empty()) output.Add(out.task_id(), out.is_stderr(), out.data());
    for (const skiff::v1::TaskExit& exit : out.task_exit()) {
      output.Flush(exit.task_id());
      if (!exit.failure().empty()) fprintf(stderr, "srun: error: %s\n", exit.failure().c_str());
      {
        std::lock_guard<std::mutex> lock(results_mu);
        results.push_back(
            {exit.task_id(), exit.node(), exit.exit_code(), exit.signal(), exit.failure()});
      }
      if (first_exit_ms == 0) {
        first_exit_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
      }
    }
    if (out.finished()) {
      finished = true;
      break;
    }
  }
  RestoreTerminal();
  all_done = true;
  if (wait_limit.joinable()) wait_limit.join();
  {
    std::lock_guard<std::mutex> lock(write_mu);
    closed = true;
    stream->WritesDone();
  }
  const grpc::Status status = stream->Finish();
  if (!finished) {
    if (!created) {
      finish(
          Fail(absl::StrCat("Unable to create step for job ", job_id, ": ",
                            status.ok() ? "the step manager went away" : status.error_message())));
    }
    fprintf(stderr, "srun: error: StepId=%lu.%u: the step manager went away: %s\n",
            static_cast<unsigned long>(job_id), step_id, status.error_message().c_str());
    finish(1);
  }
  for (const std::string& line : skiff::TaskErrorLines(results)) {
    fprintf(stderr, "%s\n", line.c_str());
  }
  finish(skiff::SrunExitCode(results));
}
