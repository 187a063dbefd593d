#include "noded/container/oci_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/config/config.h"
#include "noded/container/container_support.h"
#include "noded/container/oci_task.h"
#include "noded/run_captured.h"

extern char** environ;

namespace skiff::noded {
namespace {

constexpr std::chrono::seconds kRuntimeCallTimeout{60};

struct RunnerArgs {
  std::string oci_conf;
  std::string slurmd_spool;
  OciTask task;
};

int Error(const std::string& what) {
  fprintf(stderr, "slurmstepd: error: container: %s\n", what.c_str());
  return 1;
}

bool ParseArgs(int argc, char** argv, bool command_wanted, RunnerArgs* out, std::string* error) {
  OciTask& task = out->task;
  task.uid = getuid();
  int i = 0;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    bool ok = true;
    if (name == "--oci-conf") {
      out->oci_conf = value;
    } else if (name == "--slurmd-spool") {
      out->slurmd_spool = value;
    } else if (name == "--bundle") {
      task.bundle = value;
    } else if (name == "--node") {
      task.node_name = value;
    } else if (name == "--user") {
      task.user_name = value;
    } else if (name == "--job") {
      ok = absl::SimpleAtoi(value, &task.job_id);
    } else if (name == "--step") {
      ok = absl::SimpleAtoi(value, &task.step_id);
    } else if (name == "--task") {
      ok = absl::SimpleAtoi(value, &task.task_id);
    } else if (name == "--job-dir") {
      task.job_dir = value;
    } else if (name == "--stdin") {
      task.stdin_path = value;
    } else if (name == "--stdout") {
      task.stdout_path = value;
    } else if (name == "--stderr") {
      task.stderr_path = value;
    } else if (name == "--device") {
      task.devices.push_back(value);
    } else if (name == "--entry") {
      task.entry.push_back(value);
    } else if (name == "--pty") {
      task.terminal = true;
    } else {
      ok = false;
    }
    if (!ok) {
      *error = absl::StrCat("bad argument ", arg);
      return false;
    }
  }
  for (; i < argc; ++i) task.argv.push_back(argv[i]);
  if (task.bundle.empty() || task.bundle[0] != '/') {
    *error = "--bundle must be an absolute path";
    return false;
  }
  if (command_wanted && task.argv.empty()) {
    *error = "no command";
    return false;
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) task.env.push_back(*e);
  return true;
}

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<OciConfig> LoadOciConfig(const std::string& path) {
  if (path.empty()) return HostDefaultOciConfig();
  absl::StatusOr<std::string> text = ReadWhole(path);
  if (!text.ok()) return text.status();
  return ParseOciConfig(*text, path, nullptr);
}

// mkdir -p, as the caller (0700 for what it creates).
bool MakePath(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    const std::string prefix = path.substr(0, at);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return close(fd) == 0;
}

// What a runtime call needs besides its pattern.
struct Runtime {
  OciConfig config;
  OciTask task;
  OciPatternValues values;
  std::string spool_dir;
  std::vector<std::string> env;  // the runtime's own (RunTimeEnvExclude applied)

  absl::StatusOr<std::string> Expand(const std::string& pattern) const {
    return ExpandOciPattern(pattern, task, values);
  }
  // A short call (create, start, query, kill, delete): its output.
  CapturedRun Call(const std::string& pattern, const char* what) const {
    absl::StatusOr<std::string> command = Expand(pattern);
    if (!command.ok()) return CapturedRun{};
    return RunCaptured({"/bin/sh", "-c", *command}, kRuntimeCallTimeout, what,
                       RunSetup{env, std::nullopt, spool_dir});
  }
  // RunTimeQuery's "status" ("" when the runtime does not know the container).
  std::string Status() const {
    if (config.run_time_query.empty()) return "";
    const CapturedRun run = Call(config.run_time_query, "RunTimeQuery");
    if (!run.ok) return "";
    const nlohmann::json state = nlohmann::json::parse(run.output, nullptr, false);
    if (!state.is_object() || !state.contains("status") || !state["status"].is_string()) return "";
    return state["status"].get<std::string>();
  }
};

volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_pending_signal = 0;

void ForwardSignal(int sig) {
  g_pending_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

void CatchSignals() {
  struct sigaction action = {};
  action.sa_handler = ForwardSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT}) {
    sigaction(sig, &action, nullptr);
  }
}

// Kills and deletes the container if the runtime still has it (Slurm's
// _kill_container), then removes what the runner wrote.
void EndContainer(const Runtime& runtime) {
  const OciConfig& config = runtime.config;
  std::string status = runtime.Status();
  int backoff_us = 2500;
  for (int attempt = 0; attempt < 10 && absl::EqualsIgnoreCase(status, "running"); ++attempt) {
    if (!config.run_time_kill.empty()) runtime.Call(config.run_time_kill, "RunTimeKill");
    usleep(backoff_us);
    backoff_us = std::min(backoff_us * 2, 1000000);
    status = runtime.Status();
  }
  // Without RunTimeQuery the runner cannot know: delete anyway (a runtime that
  // no longer has the container says so and nothing happens).
  if ((!status.empty() || config.run_time_query.empty()) && !config.run_time_delete.empty()) {
    runtime.Call(config.run_time_delete, "RunTimeDelete");
  }
  if (config.disable_cleanup) return;
  unlink(absl::StrCat(runtime.spool_dir, "/config.json").c_str());
  unlink(absl::StrCat(runtime.spool_dir, "/", kContainerEnvFile).c_str());
  // The runtime's own state directories (crun --root=%m/...) are gone by now
  // or belong to it: remove the spool directory only if it is empty.
  rmdir(runtime.spool_dir.c_str());
}

// Builds everything the calls need; `write` = the task's files are written
// (--oci-run) rather than only named (--oci-cleanup).
absl::StatusOr<Runtime> Prepare(const RunnerArgs& args, bool write) {
  Runtime runtime;
  absl::StatusOr<OciConfig> config = LoadOciConfig(args.oci_conf);
  if (!config.ok()) return config.status();
  runtime.config = *std::move(config);
  runtime.task = args.task;
  absl::StatusOr<std::string> spool = OciSpoolDir(runtime.config, runtime.task, args.slurmd_spool);
  if (!spool.ok()) return spool.status();
  runtime.spool_dir = *spool;
  std::string bundle_config;
  if (!runtime.config.ignore_file_config_json && write) {
    absl::StatusOr<std::string> text = ReadWhole(absl::StrCat(args.task.bundle, "/config.json"));
    if (!text.ok()) return text.status();
    bundle_config = *std::move(text);
  }
  absl::StatusOr<OciTaskPlan> plan =
      PlanOciTask(runtime.config, bundle_config, runtime.task, runtime.spool_dir);
  if (!plan.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(args.task.bundle, "/", plan.status().message()));
  }
  runtime.values.bundle = plan->config_json.empty() && write ? args.task.bundle : runtime.spool_dir;
  runtime.values.spool_dir = runtime.spool_dir;
  runtime.values.rootfs = plan->rootfs;
  runtime.values.env_file = absl::StrCat(runtime.spool_dir, "/", kContainerEnvFile);
  runtime.values.argv = plan->argv;
  runtime.env = WithoutExcluded(runtime.config.run_time_env_exclude, runtime.task.env);
  if (!write) return runtime;
  if (!MakePath(runtime.spool_dir)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", runtime.spool_dir, ": ", strerror(errno)));
  }
  if (!plan->config_json.empty() &&
      !WriteFile(absl::StrCat(runtime.spool_dir, "/config.json"), plan->config_json, 0600)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", runtime.spool_dir, "/config.json: ", strerror(errno)));
  }
  if (runtime.config.create_env_file != "disabled" &&
      !WriteFile(runtime.values.env_file, plan->env_file, 0600)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", runtime.values.env_file, ": ", strerror(errno)));
  }
  return runtime;
}

// Ends the runner as `status` (a waitpid status) says the container ended.
[[noreturn]] void EndAs(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int RunWithRun(const Runtime& runtime) {
  absl::StatusOr<std::string> command = runtime.Expand(runtime.config.run_time_run);
  if (!command.ok()) return Error(std::string(command.status().message()));
  std::vector<std::string> env = runtime.env;
  std::vector<char*> envp;
  for (std::string& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string sh = "/bin/sh", dash_c = "-c";
  std::vector<char*> argv = {sh.data(), dash_c.data(), command->data(), nullptr};
  CatchSignals();
  const pid_t child = fork();
  if (child < 0) return Error(absl::StrCat("fork: ", strerror(errno)));
  if (child == 0) {
    if (chdir(runtime.spool_dir.c_str()) != 0) _exit(127);
    execve(sh.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  g_child = child;
  if (g_pending_signal != 0) kill(child, g_pending_signal);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  EndContainer(runtime);
  EndAs(status);
}

int RunWithCreateStart(const Runtime& runtime) {
  CatchSignals();
  const CapturedRun created = runtime.Call(runtime.config.run_time_create, "RunTimeCreate");
  if (!created.ok) {
    fputs(created.output.c_str(), stderr);
    EndContainer(runtime);
    return Error(absl::StrCat("RunTimeCreate failed with exit code ", created.exit_code));
  }
  int backoff_us = 250;
  for (int attempt = 0;; ++attempt) {
    const std::string status = runtime.Status();
    if (absl::EqualsIgnoreCase(status, "created")) break;
    if (attempt == 10 || (!status.empty() && !absl::EqualsIgnoreCase(status, "creating"))) {
      EndContainer(runtime);
      return Error(status.empty() ? "the container never appeared to RunTimeQuery"
                                  : absl::StrCat("unexpected container status ", status));
    }
    usleep(backoff_us);
    backoff_us = std::min(backoff_us * 2, 1000000);
  }
  const CapturedRun started = runtime.Call(runtime.config.run_time_start, "RunTimeStart");
  fputs(started.output.c_str(), stderr);
  // The runtime started the container's init apart from the runner: poll
  // until it is no longer running, turning signals into RunTimeKill.
  backoff_us = 2500;
  while (absl::EqualsIgnoreCase(runtime.Status(), "running")) {
    if (g_pending_signal != 0) {
      g_pending_signal = 0;
      runtime.Call(runtime.config.run_time_kill, "RunTimeKill");
    }
    usleep(backoff_us);
    backoff_us = std::min(backoff_us * 2, 1000000);
  }
  EndContainer(runtime);
  // As Slurm: the start call's status stands for the container's.
  return started.ok ? 0 : started.exit_code;
}

}  // namespace

std::vector<std::string> OciRunnerFlags(const OciTask& task, const std::string& oci_conf,
                                        const std::string& slurmd_spool) {
  std::vector<std::string> flags = {
      absl::StrCat("--oci-conf=", oci_conf),         absl::StrCat("--bundle=", task.bundle),
      absl::StrCat("--node=", task.node_name),       absl::StrCat("--user=", task.user_name),
      absl::StrCat("--job=", task.job_id),           absl::StrCat("--step=", task.step_id),
      absl::StrCat("--task=", task.task_id),         absl::StrCat("--job-dir=", task.job_dir),
      absl::StrCat("--slurmd-spool=", slurmd_spool),
  };
  const std::pair<const char*, const std::string*> files[] = {{"--stdin=", &task.stdin_path},
                                                              {"--stdout=", &task.stdout_path},
                                                              {"--stderr=", &task.stderr_path}};
  for (const auto& [flag, path] : files) {
    if (!path->empty()) flags.push_back(absl::StrCat(flag, *path));
  }
  for (const std::string& device : task.devices) flags.push_back(absl::StrCat("--device=", device));
  for (const std::string& arg : task.entry) flags.push_back(absl::StrCat("--entry=", arg));
  if (task.terminal) flags.push_back("--pty");
  return flags;
}

int RunOciTask(int argc, char** argv) {
  RunnerArgs args;
  std::string error;
  if (!ParseArgs(argc, argv, /*command_wanted=*/true, &args, &error)) return Error(error);
  absl::StatusOr<Runtime> runtime = Prepare(args, /*write=*/true);
  if (!runtime.ok()) return Error(std::string(runtime.status().message()));
  return runtime->config.UsesRun() ? RunWithRun(*runtime) : RunWithCreateStart(*runtime);
}

int CleanUpOciTask(int argc, char** argv) {
  RunnerArgs args;
  std::string error;
  if (!ParseArgs(argc, argv, /*command_wanted=*/false, &args, &error)) return Error(error);
  absl::StatusOr<Runtime> runtime = Prepare(args, /*write=*/false);
  if (!runtime.ok()) return Error(std::string(runtime.status().message()));
  EndContainer(*runtime);
  return 0;
}

}  // namespace skiff::noded
