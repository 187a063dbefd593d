#include "noded/task_wrapper.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "noded/node_scripts.h"
#include "noded/run_captured.h"

extern char** environ;

namespace skiff::noded {
namespace {

// Slurm gives a task prolog as long as the task may wait; a stuck one must not
// hold the step forever.
constexpr std::chrono::minutes kPrologTimeout(5);

void SetVariable(const std::string& name, const std::string& value, std::vector<std::string>* env) {
  ApplyTaskProlog({{{name, value}}, {}, ""}, env);
}

// Runs `prolog` (if any) with `env` and applies what it printed to `env`;
// SLURM_TASK_PID is this process, which becomes the task.
void RunProlog(const std::string& prolog, std::vector<std::string>* env) {
  SetVariable("SLURM_TASK_PID", std::to_string(getpid()), env);
  if (prolog.empty()) return;
  const CapturedRun run = RunCaptured({prolog}, kPrologTimeout, "task prolog", {*env, {}, ""});
  const TaskPrologOutput output = ParseTaskPrologOutput(run.output);
  ApplyTaskProlog(output, env);
  if (!output.print.empty()) (void)!write(STDOUT_FILENO, output.print.data(), output.print.size());
}

[[noreturn]] void ExecTask(char** argv, std::vector<std::string>& env) {
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  execve(argv[0], argv, envp.data());
  fprintf(stderr, "slurmstepd: error: execve(): %s: %s\n", argv[0], strerror(errno));
  _exit(2);
}

}  // namespace

int RunWrappedTask(int argc, char** argv, std::chrono::milliseconds epilog_timeout) {
  std::string prolog, epilog;
  int i = 0;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--prolog=")) {
      prolog = arg.substr(9);
    } else if (absl::StartsWith(arg, "--epilog=")) {
      epilog = arg.substr(9);
    } else if (arg == "--") {
      ++i;
      break;
    } else {
      fprintf(stderr, "shepherd --task-wrap: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "usage: shepherd --task-wrap [--prolog=P] [--epilog=E] -- PROGRAM ARGS...\n");
    return 2;
  }
  char** task_argv = argv + i;
  // A relative program is the task's work dir's (where this runs).
  char cwd[4096];
  for (std::string* path : {&prolog, &epilog}) {
    if (!path->empty() && (*path)[0] != '/' && getcwd(cwd, sizeof(cwd)) != nullptr) {
      *path = absl::StrCat(cwd, "/", *path);
    }
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  if (epilog.empty()) {
    RunProlog(prolog, &env);
    ExecTask(task_argv, env);
  }
  const pid_t task = fork();
  if (task < 0) {
    fprintf(stderr, "slurmstepd: error: fork: %s\n", strerror(errno));
    return 2;
  }
  if (task == 0) {
    RunProlog(prolog, &env);
    ExecTask(task_argv, env);
  }
  // The wrapper outlives the signals noded sends the task's process group, so
  // that the epilog runs; SIGKILL still ends both.
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE}) {
    signal(sig, SIG_IGN);
  }
  int status = 0;
  while (waitpid(task, &status, 0) < 0 && errno == EINTR) {
  }
  SetVariable("SLURM_TASK_PID", std::to_string(task), &env);
  RunCaptured({epilog}, epilog_timeout, "task epilog", {env, {}, ""});
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, nullptr);
    kill(getpid(), sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace skiff::noded
