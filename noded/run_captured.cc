#include "noded/run_captured.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace skiff::noded {

CapturedRun RunCaptured(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        const std::string& what, const RunSetup& setup) {
  CapturedRun result;
  if (argv.empty()) {
    result.output = absl::StrCat("cannot run ", what, ": no command");
    result.exit_code = 1;
    return result;
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    result.output = absl::StrCat("cannot run ", what, ": pipe: ", strerror(errno));
    result.exit_code = 1;
    return result;
  }
  // Everything the child needs, built before fork: it calls only
  // async-signal-safe functions, as noded has other threads.
  std::vector<std::vector<char>> args;
  for (const std::string& arg : argv) {
    args.emplace_back(arg.begin(), arg.end());
    args.back().push_back('\0');
  }
  std::vector<char*> args_p;
  for (std::vector<char>& arg : args) args_p.push_back(arg.data());
  args_p.push_back(nullptr);
  const std::string failed = absl::StrCat("cannot execute ", what, "\n");
  std::vector<std::string> env = setup.environment;
  if (env.empty())
    env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  std::vector<char*> envp;
  for (std::string& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const std::vector<gid_t> groups = setup.as ? setup.as->groups : std::vector<gid_t>{};
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
    if (setup.as && (setgroups(groups.size(), groups.data()) != 0 || setgid(setup.as->gid) != 0 ||
                     setuid(setup.as->uid) != 0)) {
      _exit(126);
    }
    if (!setup.work_dir.empty() && chdir(setup.work_dir.c_str()) != 0) _exit(126);
    execve(args_p[0], args_p.data(), envp.data());
    ssize_t ignored = write(STDERR_FILENO, failed.data(), failed.size());
    (void)ignored;
    _exit(127);
  }
  close(out[1]);
  if (pid < 0) {
    close(out[0]);
    result.output = absl::StrCat("cannot run ", what, ": fork: ", strerror(errno));
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
    if (result.output.size() < (1u << 20)) result.output.append(buf, static_cast<size_t>(got));
  }
  close(out[0]);
  if (result.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  result.ok = !result.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

}  // namespace skiff::noded
