// For tests that run the real scriptd binary as ctld runs it: a config file, a
// lifeline pipe whose read end scriptd inherits, a Unix socket. Used by
// scriptd's own service test and by ctld's ScriptdClient test.
//
// Test-only; not thread-safe (one test thread starts and stops scriptd).
#ifndef SKIFF_SCRIPTD_TEST_SUPPORT_H_
#define SKIFF_SCRIPTD_TEST_SUPPORT_H_

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace skiff::scriptd_testing {

// Bazel's TEST_TMPDIR with symlinks resolved (scriptd checks absolute paths),
// or /tmp outside Bazel.
inline std::string TempDir() {
  const char* dir = getenv("TEST_TMPDIR");
  char resolved[PATH_MAX];
  if (dir != nullptr && realpath(dir, resolved) != nullptr) return resolved;
  return "/tmp";
}

// A data dependency's path: "scriptd/scriptd", "lua/burst_buffer.lua".
inline std::string Runfile(const std::string& relative) {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return relative;
  return std::string(srcdir) + "/" + workspace + "/" + relative;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scriptd started by StartScriptd.
struct ScriptdChild {
  pid_t pid = -1;
  int lifeline = -1;  // the write end ctld would hold; closing it stops scriptd
};

// Writes `dir`/skiff.conf (logging to `log_path`) and starts scriptd on
// `socket_path` with a lifeline, as ctld does, and with `journal_path` as its run
// journal unless empty. pid is -1 if fork failed.
inline ScriptdChild StartScriptd(const std::string& dir, const std::string& socket_path,
                                 const std::string& log_path,
                                 const std::string& journal_path = "") {
  const std::string conf = dir + "/skiff.conf";
  std::ofstream(conf) << "ClusterName=t\nSlurmctldHost=localhost\nSlurmctldLogFile=" << log_path
                      << "\n";
  ScriptdChild child;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return child;
  const int read_end = fds[0];
  std::vector<std::string> args = {Runfile("scriptd/scriptd"),
                                   "-f",
                                   conf,
                                   "--socket",
                                   socket_path,
                                   "--lifeline-fd=" + std::to_string(read_end)};
  if (!journal_path.empty()) args.push_back("--journal=" + journal_path);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  child.pid = fork();
  if (child.pid == 0) {
    fcntl(read_end, F_SETFD, 0);  // the read end survives exec
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(read_end);
  if (child.pid < 0) {
    close(fds[1]);
    return child;
  }
  child.lifeline = fds[1];
  return child;
}

}  // namespace skiff::scriptd_testing

#endif  // SKIFF_SCRIPTD_TEST_SUPPORT_H_
