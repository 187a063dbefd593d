// ctld: the Skiff controller. Thin main: flags, config, scriptd, server, signals.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <malloc.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/auth/jwt_authenticator.h"
#include "common/auth/munge_authenticator.h"
#include "common/clock.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "common/join/tls.h"
#include "common/logging.h"
#include "common/mutex_mode.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/guarded_server.h"
#include "common/users.h"
#include "ctld/bb_runtime.h"
#include "ctld/clients/node_client.h"
#include "ctld/clients/scriptd_client.h"
#include "ctld/controller.h"
#include "ctld/malloc_tuning.h"
#include "ctld/rpc/join_service.h"
#include "ctld/rpc/rpc_stats.h"
#include "ctld/rpc/served_config.h"
#include "ctld/rpc/services.h"
#include "ctld/rpc/token_issuer.h"
#include "ctld/scriptd_launcher.h"
#include "ctld/state/job_store.h"
#include "ctld/state/state_marker.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff::ctld {
namespace {

// How long a prolog/epilog waits for a dead scriptd to be replaced before it is
// recorded as failed.
constexpr int kScriptdRetryWindowSeconds = 60;

int Fatal(const std::string& message) {
  fprintf(stderr, "ctld: fatal: %s\n", message.c_str());
  return 1;
}

// AuthAltParameters=jwt_key=PATH: the key's bytes (Slurm reads the whole
// file), from a file CheckJwtKeyFile accepts: whoever can read the key can
// make anyone's token, root's too. The checks are on what was opened
// (O_NONBLOCK: a FIFO cannot hold ctld's start).
absl::StatusOr<std::string> ReadJwtKey(const std::string& path, uid_t slurm_user) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("AuthAltParameters: jwt_key ", path, " cannot be read: ", strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const std::string why = strerror(errno);
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("AuthAltParameters: jwt_key ", path, ": ", why));
  }
  JwtKeyFile file;
  file.regular = S_ISREG(st.st_mode);
  file.mode = st.st_mode & 07777;
  file.owner = st.st_uid;
  file.size = st.st_size;
  if (absl::Status s = CheckJwtKeyFile(path, file, slurm_user); !s.ok()) {
    close(fd);
    return s;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, &bytes[done], bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  bytes.resize(done);
  file.size = static_cast<int64_t>(done);  // what was read is what counts
  if (absl::Status s = CheckJwtKeyFile(path, file, slurm_user); !s.ok()) return s;
  return bytes;
}

// The join port's share of ctld's descriptors, under the same guard as its
// main port. Nothing authenticates there (a joining node has no munge key
// yet), so every connection counts as unauthenticated: few at once, few per
// address, and none for longer than a join takes on a loaded machine. A flood
// of idle connections then costs ctld at most kJoinPortConnections
// descriptors, and a joining node's connection, which speaks at once, pushes
// out a silent one.
constexpr int kJoinPortConnections = 64;
ConnectionLimits JoinPortLimits() {
  ConnectionLimits limits;
  limits.max_connections = kJoinPortConnections;
  limits.max_unauthenticated = kJoinPortConnections;
  limits.max_unauthenticated_per_peer = 16;
  limits.unauthenticated_ms = 30000;
  return limits;
}

// Waits until scriptd answers on its socket, so a broken scriptd is reported at start.
// Waits for scriptd's first answer as long as it runs, up to a minute: a
// loaded machine (a fresh install paging in, many daemons starting at once)
// may take longer than one ping's 10 seconds, and a ctld that gave up then
// would leave the service failed for nothing. A scriptd that exited fails at once.
bool WaitForScriptd(const std::string& socket_path, pid_t scriptd_pid, spdlog::logger& logger) {
  auto stub = v1::Scriptd::NewStub(MakeChannel("unix:" + socket_path));
  constexpr int kTries = 6;
  for (int attempt = 1; attempt <= kTries; ++attempt) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);  // the socket appears a moment after the fork
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ScriptdPingReply reply;
    grpc::Status status = stub->Ping(&context, v1::ScriptdPingRequest(), &reply);
    if (status.ok()) {
      logger.info("scriptd ready: pid {} (parent {})", reply.pid(), reply.parent_pid());
      return true;
    }
    int wstatus = 0;
    if (waitpid(scriptd_pid, &wstatus, WNOHANG) == scriptd_pid) {
      logger.error("scriptd (pid {}) exited before answering: {}", scriptd_pid,
                   status.error_message());
      return false;
    }
    logger.warn("scriptd ping {} of {}: {}", attempt, kTries, status.error_message());
  }
  return false;
}

// SlurmctldParameters=join_port=N[,join_munge_key=PATH] (docs/decisions.md,
// "Init and join"): the port, the certificate (made on first start) and the
// key handed to joining nodes. nullopt when join is off.
struct JoinSetup {
  int port = 0;
  TlsIdentity tls;
  std::string munge_key;
};

absl::StatusOr<std::optional<JoinSetup>> SetUpJoin(const SkiffConfig& config) {
  // The loader checked the port and that enable_configless comes with it.
  const SlurmctldParameters& parameters = config.slurmctld_parameters;
  if (parameters.join_port == 0) return std::optional<JoinSetup>();
  JoinSetup setup;
  setup.port = parameters.join_port;
  if (setup.port == config.ctld_port) {
    return absl::InvalidArgumentError(
        "SlurmctldParameters: join_port must differ from SlurmctldPort");
  }
  absl::StatusOr<TlsIdentity> tls = LoadOrCreateTlsIdentity(
      config.state_save_location + "/join-tls.crt", config.state_save_location + "/join-tls.key");
  if (!tls.ok())
    return absl::Status(tls.status().code(), absl::StrCat("join_port: ", tls.status().message()));
  setup.tls = *std::move(tls);
  const std::string key_path = parameters.join_munge_key.empty()
                                   ? config.state_save_location + "/munge.key"
                                   : parameters.join_munge_key;
  std::ifstream key_file(key_path, std::ios::binary);
  std::stringstream key;
  key << key_file.rdbuf();
  if (!key_file || key.str().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("join_port: cannot read the munge key to hand to joining nodes from ",
                     key_path, " (", strerror(errno),
                     "): `skiff init` puts a copy there readable by SlurmUser, or set "
                     "SlurmctldParameters=join_munge_key=PATH"));
  }
  setup.munge_key = key.str();
  return std::optional<JoinSetup>(std::move(setup));
}

int Run(int argc, char** argv) {
  CLI::App app{"ctld: the Skiff controller"};
  std::string conf_flag;
  std::string scriptd_flag;
  bool foreground = true;
  int verbose = 0;
  app.add_option("-f,--conf", conf_flag,
                 "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  app.add_flag("-D", foreground, "run in the foreground (ctld always does; kept for Slurm habits)");
  app.add_flag("-v", verbose, "more logging (repeat for more)");
  app.add_option("--scriptd", scriptd_flag, "path of the scriptd binary");
  bool clear_state = false;
  app.add_flag("-c", clear_state,
               "start with no jobs: move ctld.db aside (to ctld.db.cleared-TIME) first");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(ResolveConfPath(conf_flag));
  if (!loaded.ok()) return Fatal(std::string(loaded.status().message()));
  const SkiffConfig& config = loaded->skiff;
  for (const std::string& warning : loaded->warnings) {
    fprintf(stderr, "ctld: warning: %s\n", warning.c_str());
  }
  // burst_buffer.conf's AllowUsers/DenyUsers name users of this host's databases.
  if (config.burst_buffer_type == "burst_buffer/lua" && loaded->burst_buffer.has_value()) {
    if (absl::Status s = CheckBurstBufferUsers(
            *loaded->burst_buffer, [](const std::string& user) { return UidOf(user).has_value(); });
        !s.ok()) {
      return Fatal(std::string(s.message()));
    }
  }
  // AuthAltTypes=auth/jwt: scontrol token's key, read once, before anything
  // starts: a key others can read, or one short enough to guess, stops ctld.
  std::optional<std::string> jwt_key;
  if (config.auth_jwt && !config.jwt_key.empty()) {
    const std::optional<uid_t> slurm_user = UidOf(config.slurm_user);
    absl::StatusOr<std::string> key = ReadJwtKey(config.jwt_key, slurm_user.value_or(0));
    if (!key.ok()) return Fatal(std::string(key.status().message()));
    jwt_key = *std::move(key);
  }
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(config.ctld_debug);
  if (!level.ok()) return Fatal(absl::StrCat("SlurmctldDebug: ", level.status().message()));
  int numeric_level = static_cast<int>(*level) - verbose;
  if (numeric_level < 0) numeric_level = 0;

  if (absl::Status s = MakeDirs(config.state_save_location, 0700); !s.ok()) {
    return Fatal(absl::StrCat("StateSaveLocation: ", s.message()));
  }
  if (clear_state) {
    absl::StatusOr<std::string> aside = ClearState(config.state_save_location, time(nullptr));
    if (!aside.ok()) return Fatal(absl::StrCat("-c: ", aside.status().message()));
    if (!aside->empty()) {
      fprintf(stderr, "ctld: -c: starting with no jobs; the old database is %s\n", aside->c_str());
    }
  } else if (absl::Status s = CheckStateNotLost(config.state_save_location); !s.ok()) {
    return Fatal(absl::StrCat("StateSaveLocation: ", s.message()));
  }
  absl::StatusOr<std::optional<JoinSetup>> join = SetUpJoin(config);
  if (!join.ok()) return Fatal(std::string(join.status().message()));
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
  const ConnectionLimits connection_limits = DaemonConnectionLimits();
  BlockDaemonSignals();
  std::vector<std::string> scriptd_args = {
      "-f",           loaded->conf_path, "--socket",
      scriptd_socket, "--journal",       config.state_save_location + "/scriptd.journal"};
  for (int i = 0; i < verbose; ++i) scriptd_args.push_back("-v");
  absl::StatusOr<ScriptdProcess> scriptd =
      StartScriptd(FindScriptdBinary(scriptd_flag), scriptd_args);
  if (!scriptd.ok()) return Fatal(std::string(scriptd.status().message()));

  auto logger_or = SetupLogging("ctld", static_cast<spdlog::level::level_enum>(numeric_level),
                                config.ctld_log_file);
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;
  SetLoginFailureSink([&logger](const std::string& line) { logger.warn("{}", line); });
  for (const std::string& warning : loaded->warnings) logger.warn("{}", warning);

  // Serve nothing until scriptd answers: a ctld that is up can run scripts.
  if (!WaitForScriptd(scriptd_socket, scriptd->pid, logger)) {
    kill(scriptd->pid, SIGKILL);
    return Fatal(
        absl::StrCat("scriptd (pid ", scriptd->pid, ") does not answer on ", scriptd_socket));
  }

  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store =
      SqliteJobStore::Open(absl::StrCat(config.state_save_location, "/", kStateDatabaseName));
  if (!store.ok()) return Fatal(absl::StrCat("StateSaveLocation: ", store.status().message()));
  if (absl::Status s = MarkStateKept(config.state_save_location); !s.ok()) {
    return Fatal(absl::StrCat("StateSaveLocation: ", s.message()));
  }

  std::set<uid_t> privileged = {slurm_user_uid};
  for (const std::string& name : config.operators) {
    if (std::optional<uid_t> uid = UidOf(name)) {
      privileged.insert(*uid);
    } else {
      logger.warn("SkiffOperators: no such user '{}'", name);
    }
  }
  MungeAuthenticator auth(config.auth_socket);
  SystemClock clock;
  NodeClient node_client(auth, static_cast<int>(config.message_timeout));
  ScriptdClient scriptd_client(scriptd_socket, kScriptdRetryWindowSeconds);
  // burst_buffer/lua: a script that does not load (or loops, or calls os.exit
  // at its top level) is logged naming the file and leaves burst buffers
  // unavailable; ctld starts anyway, as the admin's script must never keep
  // the controller down.
  std::unique_ptr<BbRuntime> burst_buffers;
  if (config.burst_buffer_type == "burst_buffer/lua") {
    burst_buffers = BbRuntime::Create(loaded->burst_buffer.value_or(BurstBufferConfig{}),
                                      loaded->conf_dir + "/burst_buffer.lua",
                                      config.state_save_location + "/bb", &logger);
  }
  Controller controller(
      config, loaded->conf_path, privileged,
      {&clock, &logger, store->get(), &node_client, &scriptd_client, burst_buffers.get(),
       [path = loaded->conf_path] { return LoadConfig(path); }});
  const std::string listen_host = config.ctld_addr.empty() ? config.ctld_host : config.ctld_addr;
  if (*join) {
    Controller::JoinSettings settings;
    settings.pin = (*join)->tls.pin;
    settings.munge_key = (*join)->munge_key;
    settings.join_target = absl::StrCat(listen_host, ":", (*join)->port);
    settings.token_admins = {0, slurm_user_uid};
    settings.slurm_user = config.slurm_user;
    settings.slurm_user_uid = slurm_user_uid;
    controller.EnableJoin(std::move(settings));
  }
  if (absl::Status s = controller.Recover(); !s.ok()) {
    kill(scriptd->pid, SIGTERM);
    return Fatal(
        absl::StrCat("recovering state from ", config.state_save_location, ": ", s.message()));
  }
  // SlurmctldParameters=enable_configless: nodes and commands may fetch the
  // config files (GetConfigFiles); their hash rides on every heartbeat answer.
  std::unique_ptr<ServedConfig> served;
  if (config.slurmctld_parameters.enable_configless) {
    served = std::make_unique<ServedConfig>(loaded->conf_path);
    for (const std::string& path : served->Set(*loaded)) {
      logger.warn("enable_configless: {} is outside {} and is not served; nodes read it locally",
                  path, loaded->conf_dir);
    }
    logger.info("enable_configless: serving {} config file(s) from {} (hash {})",
                served->Get()->files.size(), loaded->conf_dir, served->Hash());
  }
  // AuthAltTypes=auth/jwt: scontrol token's key, read once (root's file).
  TokenSettings token_settings;
  token_settings.max_lifespan = config.max_token_lifespan;
  token_settings.disable_creation = config.disable_token_creation;
  if (jwt_key) {
    token_settings.enabled = true;
    token_settings.key = *std::move(jwt_key);
  } else if (config.auth_jwt) {
    logger.error(
        "AuthAltTypes=auth/jwt: no jwt_key= set (AuthAltParameters=jwt_key=PATH); scontrol token "
        "is refused");
  }
  const TokenIssuer token_issuer(token_settings);
  // The commands' service also takes a token as a credential (SLURM_JWT=).
  std::unique_ptr<JwtOrMungeAuthenticator> command_auth;
  if (token_settings.enabled) {
    command_auth = std::make_unique<JwtOrMungeAuthenticator>(auth, token_settings.key);
  }
  CtldService ctld_service(controller,
                           command_auth ? static_cast<Authenticator&>(*command_auth) : auth,
                           served.get(), &token_issuer);
  NodeService node_service(controller, auth, served.get());

  JoinTokensService join_tokens_service(controller, auth);
  const std::string listen = absl::StrCat(listen_host, ":", config.ctld_port);
  // Connections are accepted by the listener, under its limits (guarded_server.h),
  // and handed to the server; declared first, it outlives the server.
  absl::StatusOr<std::unique_ptr<GuardedListener>> listener = GuardedListener::Listen(
      listen_host, static_cast<int>(config.ctld_port), connection_limits, logger);
  if (!listener.ok()) {
    kill(scriptd->pid, SIGTERM);
    return Fatal(absl::StrCat("cannot listen on ", listen,
                              " (SlurmctldHost/SlurmctldPort): ", listener.status().message()));
  }
  // sdiag's RPC statistics: every call is timed by an interceptor and
  // attributed to the uid AuthenticateCall proved (rpc_stats.h). Declared
  // before the server, so it outlives it.
  RpcStatsRecorder rpc_stats(controller.stats());
  SetCallerHook([&rpc_stats](const grpc::ServerContext& context, uid_t uid) {
    rpc_stats.NoteCaller(&context, uid);
  });
  grpc::ServerBuilder builder;
  {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
    creators.push_back(rpc_stats.InterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  builder.SetMaxReceiveMessageSize(MaxRequestBytes(config.scheduler_parameters.max_script_size));
  // gRPC's synchronous server keeps at most MAX_POLLERS idle threads (2 by
  // default): after a burst of concurrent calls every thread beyond that exits,
  // and the next burst creates them again. Keeping more cuts that churn.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 32);
  builder.RegisterService(&ctld_service);
  builder.RegisterService(&node_service);
  builder.RegisterService(&join_tokens_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    kill(scriptd->pid, SIGTERM);
    return Fatal(absl::StrCat("cannot start the server for ", listen));
  }
  // The join port: TLS with ctld's own certificate, no munge (the joining node
  // has no key yet); requests are small and few. Its connections are accepted
  // by a guarded listener as the main port's are (JoinPortLimits), and handed
  // to a server that has no listener of its own.
  JoinService join_service(controller);
  std::unique_ptr<GuardedListener> join_listener;  // declared first: it outlives join_server
  std::unique_ptr<grpc::Server> join_server;
  if (*join) {
    const std::string join_listen = absl::StrCat(listen_host, ":", (*join)->port);
    absl::StatusOr<std::unique_ptr<GuardedListener>> listening =
        GuardedListener::Listen(listen_host, (*join)->port, JoinPortLimits(), logger);
    if (!listening.ok()) {
      server->Shutdown();
      kill(scriptd->pid, SIGTERM);
      return Fatal(
          absl::StrCat("cannot listen on ", join_listen,
                       " (SlurmctldParameters=join_port): ", listening.status().message()));
    }
    join_listener = *std::move(listening);
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({(*join)->tls.key_pem, (*join)->tls.cert_pem});
    grpc::ServerBuilder join_builder;
    std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
        join_builder.experimental().AddExternalConnectionAcceptor(
            grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
            grpc::SslServerCredentials(tls));
    join_builder.SetMaxReceiveMessageSize(64 << 10);
    grpc::ResourceQuota quota("ctld-join");
    quota.SetMaxThreads(8);
    join_builder.SetResourceQuota(quota);
    join_builder.RegisterService(&join_service);
    join_server = join_builder.BuildAndStart();
    if (!join_server) {
      server->Shutdown();
      kill(scriptd->pid, SIGTERM);
      return Fatal(absl::StrCat("cannot start the join server for ", join_listen,
                                " (SlurmctldParameters=join_port)"));
    }
    join_listener->StartExternal(std::move(acceptor));
    logger.info("join_port: nodes join at {} (certificate sha256 pin {})", join_listen,
                (*join)->tls.pin);
  }
  // Admins and nodes (which call as root or SlurmUser) always find a connection.
  (*listener)->Start(server.get(),
                     [privileged](uid_t uid) { return uid == 0 || privileged.count(uid) != 0; });
  if (absl::Status s = WritePidFile(config.ctld_pid_file); !s.ok()) {
    logger.error("SlurmctldPidFile: {}", std::string(s.message()));
  }
  logger.info("ctld started: ClusterName={} listening on {} with {} nodes, {} partitions",
              config.cluster_name, listen, config.nodes.size(), config.partitions.size());

  controller.Start();
  for (;;) {
    int sig = WaitForSignal();
    if (sig == SIGCHLD) {
      int status = 0;
      if (scriptd->pid > 0 && waitpid(scriptd->pid, &status, WNOHANG) == scriptd->pid) {
        logger.error("scriptd (pid {}) died (status {}); starting a new one", scriptd->pid, status);
        absl::StatusOr<ScriptdProcess> respawned =
            RespawnScriptd(FindScriptdBinary(scriptd_flag), scriptd_args, *scriptd);
        if (respawned.ok()) {
          *scriptd = *respawned;
          logger.info("scriptd restarted: pid {}", scriptd->pid);
        } else {
          logger.error("cannot restart scriptd: {}", std::string(respawned.status().message()));
          scriptd->pid = -1;
        }
      }
      continue;
    }
    if (sig == SIGHUP) {
      // As slurmctld: SIGHUP is `scontrol reconfigure` (its outcome is logged).
      logger.info("SIGHUP: reconfiguring");
      if (controller.Reconfigure({0, 0}).ok() && served) {
        if (absl::Status s = served->Reload(); !s.ok()) {
          logger.error("enable_configless: still serving the previous files: {}",
                       std::string(s.message()));
        }
      }
      continue;
    }
    logger.info("signal {}: shutting down", sig);
    break;
  }
  (*listener)->Stop();
  if (join_listener) join_listener->Stop();
  if (join_server) join_server->Shutdown(std::chrono::system_clock::now());
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  scriptd_client.Stop();
  // Closing the lifeline tells scriptd to stop its children and exit.
  close(scriptd->lifeline_fd);
  if (scriptd->pid > 0) {
    for (int i = 0; i < 50 && waitpid(scriptd->pid, nullptr, WNOHANG) == 0; ++i) usleep(100000);
    if (kill(scriptd->pid, 0) == 0) {
      kill(scriptd->pid, SIGKILL);
      waitpid(scriptd->pid, nullptr, 0);
    }
  }
  controller.Stop();
  if (!config.ctld_pid_file.empty()) unlink(config.ctld_pid_file.c_str());
  logger.info("ctld stopped");
  return 0;
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
