// scriptd: runs the scripts ctld must not fork itself. Started by ctld only.
//
// Threads: main (signals), gRPC's pool, and one lifeline thread that turns EOF on
// the lifeline pipe (ctld gone) into SIGTERM for main.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "scriptd/scriptd_service.h"

namespace skiff {
namespace {

int Fatal(const std::string& message) {
  fprintf(stderr, "scriptd: fatal: %s\n", message.c_str());
  return 1;
}

int Run(int argc, char** argv) {
  CLI::App app{"scriptd: runs PrologSlurmctld/EpilogSlurmctld and burst-buffer stages for ctld"};
  std::string conf_flag;
  std::string socket_path;
  int lifeline_fd = -1;
  int verbose = 0;
  app.add_option("-f,--conf", conf_flag, "skiff.conf");
  app.add_option("--socket", socket_path, "Unix socket to serve ctld on")->required();
  app.add_option("--lifeline-fd", lifeline_fd, "pipe from ctld; EOF means ctld is gone")
      ->required();
  app.add_flag("-v", verbose, "more logging");
  CLI11_PARSE(app, argc, argv);

  // Belt and braces with the lifeline: die with the thread that forked us.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  const pid_t parent = getppid();
  if (parent == 1) return Fatal("ctld is already gone");

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(ResolveConfPath(conf_flag));
  if (!loaded.ok()) return Fatal(std::string(loaded.status().message()));
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(loaded->skiff.ctld_debug);
  int numeric_level = std::max(0, static_cast<int>(level.ok() ? *level : spdlog::level::info) - verbose);

  BlockDaemonSignals();
  auto logger_or = SetupLogging("scriptd", static_cast<spdlog::level::level_enum>(numeric_level),
                                loaded->skiff.ctld_log_file);
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;

  unlink(socket_path.c_str());  // a stale socket from a killed scriptd
  ScriptdService service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  // Only ctld's user may connect: the socket is created under a 0077 umask.
  const mode_t old_umask = umask(0077);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  umask(old_umask);
  if (!server) return Fatal(absl::StrCat("cannot listen on unix:", socket_path));
  logger.info("scriptd started: pid {}, ctld pid {}, socket {}", getpid(), parent, socket_path);

  std::thread lifeline([lifeline_fd] {
    char byte;
    while (read(lifeline_fd, &byte, 1) != 0) {
      if (errno != EINTR) break;
    }
    kill(getpid(), SIGTERM);
  });
  lifeline.detach();

  for (;;) {
    int sig = WaitForSignal();
    if (sig == SIGCHLD || sig == SIGHUP) continue;
    logger.info("signal {}: shutting down", sig);
    break;
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  unlink(socket_path.c_str());
  logger.info("scriptd stopped");
  return 0;
}

}  // namespace
}  // namespace skiff

int main(int argc, char** argv) { return skiff::Run(argc, argv); }
