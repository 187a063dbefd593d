// scriptd: runs the scripts ctld must not fork itself. Started by ctld only.
//
// `scriptd --run-lua FUNCTION --script PATH` is the Lua helper scriptd execs for
// each asynchronous burst_buffer.lua call (lua_helper.h): checked first, before
// any thread or server starts, and nothing below runs then.
//
// Threads: main (signals), gRPC's pool (one thread per running script or Lua call:
// RunScript and RunLua block until their child ends), and one lifeline thread that turns EOF on the
// lifeline pipe (ctld gone) into SIGTERM for main. Main only sigwaits: scripts are
// reaped by the threads that run them (ScriptRunner), never by waitpid(-1) here.
//
// Shutdown (SIGTERM/SIGINT, or the lifeline): kill every script's process group,
// let the RunScript calls answer (killed=true), then stop the server.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/mutex_mode.h"
#include "scriptd/lua_helper.h"
#include "scriptd/lua_runner.h"
#include "scriptd/process_groups.h"
#include "scriptd/run_journal.h"
#include "scriptd/script_runner.h"
#include "scriptd/scriptd_service.h"

namespace skiff::scriptd {
namespace {

// RunScript and RunLua hold a gRPC thread for as long as their child runs: room for
// this many at once (prologs, epilogs and stages of many jobs together), plus
// Ping/KillScript/FlushJob.
constexpr int kMaxServerThreads = 256;

// A child's stdin/stdout/stderr are dup2()ed from pipes: keep fds 0..2 taken, so
// that no pipe of ours lands there if ctld started us with them closed.
void OpenStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int null_fd = open("/dev/null", O_RDWR);
      if (null_fd >= 0 && null_fd != fd) close(null_fd);  // not the lowest free fd: give up
    }
  }
}

int Fatal(const std::string& message) {
  fprintf(stderr, "scriptd: fatal: %s\n", message.c_str());
  return 1;
}

// The binary's path for the helper's argv[0] (ps); exec goes through
// /proc/self/exe, which works even after the file was replaced.
std::string OwnPath() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "scriptd";
  return std::string(path, n);
}

// Opens the run journal at `path` (none when empty), kills the process groups a
// scriptd that died left running, and compacts the journal. Its errors are fatal.
absl::StatusOr<std::unique_ptr<RunJournal>> RecoverJournal(const std::string& path,
                                                           spdlog::logger& logger) {
  if (path.empty()) return std::unique_ptr<RunJournal>();
  absl::StatusOr<std::unique_ptr<RunJournal>> opened =
      RunJournal::Open(path, time(nullptr), logger);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<RunJournal> journal = std::move(*opened);
  for (const RunJournal::Leftover& left : journal->leftovers()) {
    const int killed = KillGroupLeftovers(left.pgid, left.start_ticks);
    if (killed > 0) {
      logger.warn("killed {} process(es) left by {} (process group {}) when scriptd died", killed,
                  left.request_id, left.pgid);
    }
  }
  if (absl::Status compacted = journal->Compact(); !compacted.ok()) {
    return absl::Status(compacted.code(), absl::StrCat("run journal: ", compacted.message()));
  }
  return journal;
}

// How the LuaRunner starts burst_buffer.lua hooks: the skiff-lua-hook helper beside
// this binary when there is one, else scriptd itself, with scriptd's environment.
LuaRunner::Options LuaOptions(const std::string& cluster_name, spdlog::logger& logger) {
  LuaRunner::Options lua_options;
  lua_options.helper_argv0 = OwnPath();
  // The hook helper beside this binary starts in a few milliseconds; without it
  // each hook runs in a copy of scriptd, with all of gRPC to load first.
  if (const std::string helper = LuaHookBinaryBeside(OwnPath()); !helper.empty()) {
    lua_options.helper_path = helper;
    lua_options.helper_argv0 = helper;
  } else {
    logger.warn(
        "{} is not beside scriptd: burst_buffer.lua hooks run through scriptd itself, "
        "which starts slower",
        kLuaHookBinaryName);
  }
  lua_options.environment = CurrentEnvironment();
  // The Lua hooks run in helpers that see no skiff.conf; a site's script names
  // the cluster from here (the example's bbstat line), so it is ClusterName.
  lua_options.environment["SKIFF_CLUSTER_NAME"] = cluster_name;
  return lua_options;
}

// Serves `service` on the Unix socket at `socket_path`; null when it cannot listen.
std::unique_ptr<grpc::Server> StartServer(const std::string& socket_path, ScriptdService& service) {
  grpc::ServerBuilder builder;
  grpc::ResourceQuota quota("scriptd");
  quota.SetMaxThreads(kMaxServerThreads);
  builder.SetResourceQuota(quota);
  // Each script holds a thread while it runs, so jobs' prologs and epilogs
  // overlap; gRPC keeps only MAX_POLLERS (2 by default) of them once idle and
  // creates them again for the next ones: a thread's creation and exit per
  // script (strace: 177 clone3 for 297 scripts over a 1,000-job array).
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 32);
  builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  // Only ctld's user may connect: the socket is created under a 0077 umask.
  const mode_t old_umask = umask(0077);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  umask(old_umask);
  return server;
}

// The lifeline thread (detached): EOF on ctld's pipe means ctld is gone, and
// becomes SIGTERM for main.
void StartLifeline(int lifeline_fd) {
  std::thread lifeline([lifeline_fd] {
    char byte;
    for (;;) {
      ssize_t n = read(lifeline_fd, &byte, 1);
      if (n == 0 || (n < 0 && errno != EINTR)) break;  // EOF: ctld is gone
    }
    kill(getpid(), SIGTERM);
  });
  lifeline.detach();
}

// Main's only job while serving: sigwait until a signal that means shutdown
// (SIGCHLD and SIGHUP are ignored).
void WaitForShutdownSignal(spdlog::logger& logger) {
  for (;;) {
    int sig = WaitForSignal();
    if (sig == SIGCHLD || sig == SIGHUP) continue;
    logger.info("signal {}: shutting down", sig);
    break;
  }
}

int Run(int argc, char** argv) {
  if (IsLuaHelperCall(argc, argv)) return LuaHelperMain(argc, argv);
  CLI::App app{"scriptd: runs PrologSlurmctld/EpilogSlurmctld and burst-buffer stages for ctld"};
  std::string conf_flag;
  std::string socket_path;
  std::string journal_path;
  int lifeline_fd = -1;
  int verbose = 0;
  app.add_option("-f,--conf", conf_flag, "skiff.conf");
  app.add_option("--socket", socket_path, "Unix socket to serve ctld on")->required();
  app.add_option("--lifeline-fd", lifeline_fd, "pipe from ctld; EOF means ctld is gone")
      ->required();
  app.add_option("--journal", journal_path,
                 "file that remembers running groups and run_once results across crashes");
  app.add_flag("-v", verbose, "more logging");
  CLI11_PARSE(app, argc, argv);
  OpenStandardFds();

  // Belt and braces with the lifeline: die with the thread that forked us.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  const pid_t parent = getppid();
  if (parent == 1) return Fatal("ctld is already gone");

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(ResolveConfPath(conf_flag));
  if (!loaded.ok()) return Fatal(std::string(loaded.status().message()));
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(loaded->skiff.ctld_debug);
  int numeric_level =
      std::max(0, static_cast<int>(level.ok() ? *level : spdlog::level::info) - verbose);

  BlockDaemonSignals();
  auto logger_or = SetupLogging("scriptd", static_cast<spdlog::level::level_enum>(numeric_level),
                                loaded->skiff.ctld_log_file);
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;

  // Before serving: kill what a scriptd that died by SIGKILL left running, so that
  // no script ctld issues again runs beside its cut-off first run.
  absl::StatusOr<std::unique_ptr<RunJournal>> journal = RecoverJournal(journal_path, logger);
  if (!journal.ok()) return Fatal(std::string(journal.status().message()));

  unlink(socket_path.c_str());  // a stale socket from a killed scriptd
  ScriptRunner runner(logger, journal->get());
  LuaRunner lua(runner, logger, LuaOptions(loaded->skiff.cluster_name, logger));
  ScriptdService service(runner, lua, journal->get());
  std::unique_ptr<grpc::Server> server = StartServer(socket_path, service);
  if (!server) return Fatal(absl::StrCat("cannot listen on unix:", socket_path));
  logger.info("scriptd started: pid {}, ctld pid {}, socket {}", getpid(), parent, socket_path);

  StartLifeline(lifeline_fd);
  WaitForShutdownSignal(logger);
  // New RunScript calls are refused from here; running ones end at once and answer.
  // Shutdown then waits for the last replies, and for ctld to drop its connection
  // after GOAWAY: at once when ctld is gone; an idle ctld may not notice, hence the
  // short deadline, after which gRPC closes the connections itself.
  runner.KillAll();
  if (!runner.WaitUntilIdle(absl::Seconds(5))) {
    logger.warn("{} script(s) still running at shutdown", runner.Running());
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  unlink(socket_path.c_str());
  logger.info("scriptd stopped");
  return 0;
}

}  // namespace
}  // namespace skiff::scriptd

int main(int argc, char** argv) {
  skiff::TurnOffMutexDeadlockDetection();  // mutex_mode.h
  return skiff::scriptd::Run(argc, argv);
}
