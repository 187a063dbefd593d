// ctld: the Skiff controller. Thin main: flags, config, scriptd, server, signals.
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/clock.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/rpc/channel.h"
#include "ctld/controller.h"
#include "ctld/rpc/services.h"
#include "ctld/scriptd_launcher.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff {
namespace {

int Fatal(const std::string& message) {
  fprintf(stderr, "ctld: fatal: %s\n", message.c_str());
  return 1;
}

// Calls in a loop until `stop` is set, every `period`.
class Ticker {
 public:
  Ticker(std::chrono::milliseconds period, std::function<void()> tick)
      : thread_([this, period, tick] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
            lock.unlock();
            tick();
            lock.lock();
          }
        }) {}
  ~Ticker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Waits until scriptd answers on its socket, so a broken scriptd is reported at start.
bool WaitForScriptd(const std::string& socket_path, spdlog::logger& logger) {
  auto stub = v1::Scriptd::NewStub(MakeChannel("unix:" + socket_path));
  grpc::ClientContext context;
  context.set_wait_for_ready(true);  // the socket appears a moment after the fork
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::ScriptdPingReply reply;
  grpc::Status status = stub->Ping(&context, v1::ScriptdPingRequest(), &reply);
  if (!status.ok()) {
    logger.error("scriptd ping: {}", status.error_message());
    return false;
  }
  logger.info("scriptd ready: pid {} (parent {})", reply.pid(), reply.parent_pid());
  return true;
}

int Run(int argc, char** argv) {
  CLI::App app{"ctld: the Skiff controller"};
  std::string conf_flag;
  std::string scriptd_flag;
  bool foreground = true;
  int verbose = 0;
  app.add_option("-f,--conf", conf_flag, "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  app.add_flag("-D", foreground, "run in the foreground (ctld always does; kept for Slurm habits)");
  app.add_flag("-v", verbose, "more logging (repeat for more)");
  app.add_option("--scriptd", scriptd_flag, "path of the scriptd binary");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(ResolveConfPath(conf_flag));
  if (!loaded.ok()) return Fatal(std::string(loaded.status().message()));
  const SkiffConfig& config = loaded->skiff;
  for (const std::string& warning : config.warnings) {
    fprintf(stderr, "ctld: warning: %s\n", warning.c_str());
  }
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(config.ctld_debug);
  if (!level.ok()) return Fatal(absl::StrCat("SlurmctldDebug: ", level.status().message()));
  int numeric_level = static_cast<int>(*level) - verbose;
  if (numeric_level < 0) numeric_level = 0;

  if (absl::Status s = MakeDirs(config.state_save_location, 0700); !s.ok()) {
    return Fatal(absl::StrCat("StateSaveLocation: ", s.message()));
  }
  const std::string scriptd_socket = config.scriptd_socket.empty()
                                         ? config.state_save_location + "/scriptd.sock"
                                         : config.scriptd_socket;
  uid_t slurm_user_uid = 0;
  if (struct passwd* pw = getpwnam(config.slurm_user.c_str())) {
    slurm_user_uid = pw->pw_uid;
  } else {
    return Fatal(absl::StrCat("SlurmUser: no such user '", config.slurm_user, "'"));
  }

  // Everything before this point is single-threaded, and so is the fork below.
  BlockDaemonSignals();
  std::vector<std::string> scriptd_args = {"-f", loaded->conf_path, "--socket", scriptd_socket};
  for (int i = 0; i < verbose; ++i) scriptd_args.push_back("-v");
  absl::StatusOr<ScriptdProcess> scriptd =
      StartScriptd(FindScriptdBinary(scriptd_flag), scriptd_args);
  if (!scriptd.ok()) return Fatal(std::string(scriptd.status().message()));

  auto logger_or = SetupLogging("ctld", static_cast<spdlog::level::level_enum>(numeric_level),
                                config.ctld_log_file);
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;
  for (const std::string& warning : config.warnings) logger.warn("{}", warning);

  // Serve nothing until scriptd answers: a ctld that is up can run scripts.
  if (!WaitForScriptd(scriptd_socket, logger)) {
    kill(scriptd->pid, SIGKILL);
    return Fatal(absl::StrCat("scriptd (pid ", scriptd->pid, ") does not answer on ",
                              scriptd_socket));
  }

  MungeAuthenticator auth(config.auth_socket);
  SystemClock clock;
  Controller controller(config, clock, logger);
  CtldService ctld_service(controller, auth);
  NodeService node_service(controller, auth, Privileged{slurm_user_uid});

  const std::string listen =
      absl::StrCat(config.ctld_addr.empty() ? config.ctld_host : config.ctld_addr, ":",
                   config.ctld_port);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(&ctld_service);
  builder.RegisterService(&node_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound_port == 0) {
    kill(scriptd->pid, SIGTERM);
    return Fatal(absl::StrCat("cannot listen on ", listen, " (SlurmctldHost/SlurmctldPort)"));
  }
  if (absl::Status s = WritePidFile(config.ctld_pid_file); !s.ok()) {
    logger.error("SlurmctldPidFile: {}", std::string(s.message()));
  }
  logger.info("ctld started: ClusterName={} listening on {} with {} nodes, {} partitions",
              config.cluster_name, listen, config.nodes.size(), config.partitions.size());

  {
    Ticker housekeeping(std::chrono::seconds(1), [&] { controller.CheckNodeTimeouts(); });
    for (;;) {
      int sig = WaitForSignal();
      if (sig == SIGCHLD) {
        int status = 0;
        if (waitpid(scriptd->pid, &status, WNOHANG) == scriptd->pid) {
          logger.error("scriptd (pid {}) exited with status {}", scriptd->pid, status);
          scriptd->pid = -1;
        }
        continue;
      }
      if (sig == SIGHUP) {
        logger.info("SIGHUP: reconfigure is not supported yet; restart ctld to apply changes");
        continue;
      }
      logger.info("signal {}: shutting down", sig);
      break;
    }
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  // Closing the lifeline tells scriptd to stop its children and exit.
  close(scriptd->lifeline_fd);
  if (scriptd->pid > 0) {
    for (int i = 0; i < 50 && waitpid(scriptd->pid, nullptr, WNOHANG) == 0; ++i) usleep(100000);
    if (kill(scriptd->pid, 0) == 0) {
      kill(scriptd->pid, SIGKILL);
      waitpid(scriptd->pid, nullptr, 0);
    }
  }
  if (!config.ctld_pid_file.empty()) unlink(config.ctld_pid_file.c_str());
  logger.info("ctld stopped");
  return 0;
}

}  // namespace
}  // namespace skiff

int main(int argc, char** argv) { return skiff::Run(argc, argv); }
