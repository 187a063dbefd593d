// ctld: the Skiff controller. Thin main: flags, the checks before start
// (ctld_setup.h), scriptd (scriptd_supervisor.h), the controller, its servers
// (ctld_servers.h), then signals until asked to stop.
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/clock.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/mutex_mode.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/guarded_server.h"
#include "ctld/bb_runtime.h"
#include "ctld/clients/node_client.h"
#include "ctld/clients/scriptd_client.h"
#include "ctld/controller.h"
#include "ctld/ctld_servers.h"
#include "ctld/ctld_setup.h"
#include "ctld/malloc_tuning.h"
#include "ctld/rpc/served_config.h"
#include "ctld/rpc/token_issuer.h"
#include "ctld/scriptd_supervisor.h"
#include "ctld/stand_by.h"
#include "ctld/state/job_store.h"
#include "ctld/state/state_marker.h"

namespace skiff::ctld {
namespace {

// How long a prolog/epilog waits for a dead scriptd to be replaced before it is
// recorded as failed.
constexpr int kScriptdRetryWindowSeconds = 60;

int Fatal(const std::string& message) {
  fprintf(stderr, "ctld: fatal: %s\n", message.c_str());
  return 1;
}

// As slurmctld: SIGHUP is `scontrol reconfigure` (its outcome is logged);
// configless nodes then fetch the files served now.
void ReconfigureOnSighup(Controller& controller, ServedConfig* served, spdlog::logger& logger) {
  logger.info("SIGHUP: reconfiguring");
  if (!controller.Reconfigure({0, 0}).ok() || served == nullptr) return;
  if (absl::Status s = served->Reload(); !s.ok()) {
    logger.error("enable_configless: still serving the previous files: {}",
                 std::string(s.message()));
  }
}

// ctld's signal loop: a dead scriptd is replaced, SIGHUP reconfigures, and any
// other signal (SIGTERM, SIGINT) stops ctld.
void ServeUntilStopped(ScriptdSupervisor& scriptd, Controller& controller, ServedConfig* served,
                       spdlog::logger& logger) {
  for (int sig = WaitForSignal();; sig = WaitForSignal()) {
    if (sig == SIGCHLD) {
      scriptd.RestartIfDied(logger);
    } else if (sig == SIGHUP) {
      ReconfigureOnSighup(controller, served, logger);
    } else {
      logger.info("signal {}: shutting down", sig);
      return;
    }
  }
}

// SlurmctldParameters=enable_configless: nodes and commands may fetch the
// config files (GetConfigFiles); their hash rides on every heartbeat answer.
std::unique_ptr<ServedConfig> ServeConfigFiles(const LoadedConfig& loaded, spdlog::logger& logger) {
  if (!loaded.skiff.slurmctld_parameters.enable_configless) return nullptr;
  auto served = std::make_unique<ServedConfig>(loaded.conf_path);
  for (const std::string& path : served->Set(loaded)) {
    logger.warn("enable_configless: {} is outside {} and is not served; nodes read it locally",
                path, loaded.conf_dir);
  }
  logger.info("enable_configless: serving {} config file(s) from {} (hash {})",
              served->Get()->files.size(), loaded.conf_dir, served->Hash());
  return served;
}

Controller::JoinSettings JoinSettingsFrom(const CtldSetup& setup, const std::string& host) {
  Controller::JoinSettings settings;
  settings.pin = setup.join->tls.pin;
  settings.munge_key = setup.join->munge_key;
  settings.munge_key_path = setup.join->munge_key_path;
  settings.join_target = absl::StrCat(host, ":", setup.join->port);
  settings.token_admins = {0, setup.slurm_user_uid};
  settings.slurm_user = setup.loaded.skiff.slurm_user;
  settings.slurm_user_uid = setup.slurm_user_uid;
  return settings;
}

// From a running scriptd to ctld's stop: the store, the controller over it,
// its servers, then signals until one asks ctld to stop. `handing_over`: in
// (the last run handed over: stand by first) and out (this one did: scriptd
// is left running for the next).
int Serve(const CtldSetup& setup, const ConnectionLimits& connection_limits,
          ScriptdSupervisor& scriptd, spdlog::logger& logger, bool* handing_over) {
  const SkiffConfig& config = setup.loaded.skiff;
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store =
      SqliteJobStore::Open(absl::StrCat(config.state_save_location, "/", kStateDatabaseName));
  if (!store.ok()) return Fatal(absl::StrCat("StateSaveLocation: ", store.status().message()));
  if (absl::Status s = MarkStateKept(config.state_save_location); !s.ok()) {
    return Fatal(absl::StrCat("StateSaveLocation: ", s.message()));
  }
  MungeAuthenticator auth(config.auth_socket);
  bool stopped = false;
  absl::StatusOr<std::unique_ptr<replication::Replica>> replica =
      StandByUntilLeading(setup, **store, auth, scriptd, logger, *handing_over, &stopped);
  *handing_over = false;
  if (!replica.ok()) return Fatal(std::string(replica.status().message()));
  if (stopped) {
    scriptd.Stop();
    logger.info("ctld stopped");
    return 0;
  }

  const std::set<uid_t> privileged = PrivilegedUids(config, setup.slurm_user_uid, logger);
  SystemClock clock;
  // With etcd, this controller's epoch goes with each call to noded and each
  // registration reply: noded refuses any earlier controller from then on.
  const std::string epoch = *replica != nullptr ? (*replica)->epoch() : "";
  NodeClient node_client(auth, static_cast<int>(config.message_timeout), epoch);
  ScriptdClient scriptd_client(setup.scriptd_socket, kScriptdRetryWindowSeconds);
  // burst_buffer/lua: a script that does not load (or loops, or calls os.exit
  // at its top level) is logged naming the file and leaves burst buffers
  // unavailable; ctld starts anyway, as the admin's script must never keep
  // the controller down.
  std::unique_ptr<BbRuntime> burst_buffers;
  if (config.burst_buffer_type == "burst_buffer/lua") {
    burst_buffers = BbRuntime::Create(setup.loaded.burst_buffer.value_or(BurstBufferConfig{}),
                                      setup.loaded.conf_dir + "/burst_buffer.lua",
                                      config.state_save_location + "/bb", &logger);
  }
  Controller controller(
      config, setup.loaded.conf_path, privileged,
      {&clock, &logger, store->get(), &node_client, &scriptd_client, burst_buffers.get(),
       [path = setup.loaded.conf_path] { return LoadConfig(path); }});
  const std::string& listen_host = setup.self.addr;
  if (setup.join) controller.EnableJoin(JoinSettingsFrom(setup, listen_host));
  if (absl::Status s = controller.Recover(); !s.ok()) {
    return Fatal(
        absl::StrCat("recovering state from ", config.state_save_location, ": ", s.message()));
  }
  std::unique_ptr<ServedConfig> served = ServeConfigFiles(setup.loaded, logger);
  const TokenIssuer token_issuer(TokenSettingsFrom(config, setup.jwt_key, logger));
  // scontrol takeover: stop serving as a signal would, then stand by.
  std::atomic<bool> hand_over_asked{false};
  std::function<absl::Status()> hand_over;
  if (*replica != nullptr) {
    hand_over = [&hand_over_asked, &logger] {
      logger.info("scontrol takeover: handing over to a standby");
      hand_over_asked = true;
      kill(getpid(), SIGTERM);
      return absl::OkStatus();
    };
  }
  absl::StatusOr<std::unique_ptr<CtldServers>> servers = CtldServers::Start(
      {listen_host, static_cast<int>(config.ctld_port), connection_limits,
       MaxRequestBytes(config.scheduler_parameters.max_script_size), privileged,
       setup.join ? &*setup.join : nullptr},
      {&controller, &auth, served.get(), &token_issuer, hand_over, epoch}, logger);
  if (!servers.ok()) return Fatal(std::string(servers.status().message()));
  if (absl::Status s = WritePidFile(config.ctld_pid_file); !s.ok()) {
    logger.error("SlurmctldPidFile: {}", std::string(s.message()));
  }
  logger.info("ctld started: ClusterName={} listening on {}:{} with {} nodes, {} partitions",
              config.cluster_name, listen_host, config.ctld_port, config.nodes.size(),
              config.partitions.size());

  controller.Start();
  ServeUntilStopped(scriptd, controller, served.get(), logger);
  *handing_over = hand_over_asked;
  (*servers)->Stop();
  scriptd_client.Stop();
  // Closing the lifeline tells scriptd to stop its children and exit; a
  // controller that hands over keeps it for its standby's turn.
  if (!*handing_over) scriptd.Stop();
  controller.Stop();
  // Nothing more is stored: a standby may serve at once.
  if (*replica != nullptr) (*replica)->Resign();
  if (*handing_over) {
    logger.info("handed over; standing by");
    return 0;
  }
  if (!config.ctld_pid_file.empty()) unlink(config.ctld_pid_file.c_str());
  logger.info("ctld stopped");
  return 0;
}

int Run(int argc, char** argv) {
  CLI::App app{"ctld: the Skiff controller"};
  std::string conf_flag;
  std::string scriptd_flag;
  bool foreground = true;
  CtldFlags flags;
  app.add_option("-f,--conf", conf_flag,
                 "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  app.add_flag("-D", foreground, "run in the foreground (ctld always does; kept for Slurm habits)");
  app.add_flag("-v", flags.verbose, "more logging (repeat for more)");
  app.add_option("--scriptd", scriptd_flag, "path of the scriptd binary");
  app.add_option("--host", flags.host,
                 "which SlurmctldHost this controller is (default: this host's short name, "
                 "else the first)");
  app.add_flag("-c", flags.clear_state,
               "start with no jobs: move ctld.db aside (to ctld.db.cleared-TIME) first");
  CLI11_PARSE(app, argc, argv);
  flags.conf_path = ResolveConfPath(conf_flag);

  absl::StatusOr<CtldSetup> setup = SetUpCtld(flags, time(nullptr));
  if (!setup.ok()) return Fatal(std::string(setup.status().message()));
  const SkiffConfig& config = setup->loaded.skiff;
  for (const std::string& warning : setup->loaded.warnings) {
    fprintf(stderr, "ctld: warning: %s\n", warning.c_str());
  }
  if (!setup->cleared_state.empty()) {
    fprintf(stderr, "ctld: -c: starting with no jobs; the old database is %s\n",
            setup->cleared_state.c_str());
  }

  // Everything before this point is single-threaded, and so is the fork below.
  const ConnectionLimits connection_limits = DaemonConnectionLimits();
  BlockDaemonSignals();
  absl::StatusOr<std::unique_ptr<ScriptdSupervisor>> scriptd = ScriptdSupervisor::Start(
      {FindScriptdBinary(scriptd_flag), setup->loaded.conf_path, setup->scriptd_socket,
       config.state_save_location + "/scriptd.journal", flags.verbose});
  if (!scriptd.ok()) return Fatal(std::string(scriptd.status().message()));

  auto logger_or = SetupLogging("ctld", setup->log_level, config.ctld_log_file);
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;
  SetLoginFailureSink([&logger](const std::string& line) { logger.warn("{}", line); });
  for (const std::string& warning : setup->loaded.warnings) logger.warn("{}", warning);

  // Serve nothing until scriptd answers: a ctld that is up can run scripts.
  if (!(*scriptd)->WaitUntilAnswering(logger)) {
    return Fatal(absl::StrCat("scriptd (pid ", (*scriptd)->pid(), ") does not answer on ",
                              setup->scriptd_socket));
  }
  bool handing_over = false;
  for (;;) {
    const int rc = Serve(*setup, connection_limits, **scriptd, logger, &handing_over);
    if (rc != 0 || !handing_over) return rc;
  }
}

}  // namespace
}  // namespace skiff::ctld

int main(int argc, char** argv) {
  // First: it may start the program again (malloc_tuning.h).
  skiff::ctld::TuneAllocator(argv);
  // glibc gives each thread that allocates its own arena (up to 8 per core):
  // gRPC's handler threads then hold freed reply buffers in arenas the others
  // never reuse, and ctld's resident size grew with every large squeue. Two
  // arenas keep allocation contention low enough for ctld's few busy threads.
  mallopt(M_ARENA_MAX, 2);
  // A large reply (squeue of a big queue, tens of MB) is mmapped and goes back
  // to the system when freed. By default glibc raises this threshold after the
  // first such free, up to 32 MiB, and later replies then come from the heap,
  // between the jobs' long-lived allocations, where freeing cannot return them.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  skiff::TurnOffMutexDeadlockDetection();  // mutex_mode.h
  return skiff::ctld::Run(argc, argv);
}
