// noded: the Skiff node daemon. Thin main: flags, config, hardware, server, agent.
#include <grpcpp/grpcpp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/config_loader.h"
#include "common/config/configless.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/mutex_mode.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/config_fetch.h"
#include "common/rpc/guarded_server.h"
#include "common/version.h"
#include "noded/allocation_epilogs.h"
#include "noded/cgroup/confinement.h"
#include "noded/configless_node.h"
#include "noded/container/container_support.h"
#include "noded/ctld_node_control.h"
#include "noded/hardware.h"
#include "noded/health_check.h"
#include "noded/job_manager.h"
#include "noded/node_agent.h"
#include "noded/noded_service.h"
#include "noded/other_nodes_grpc.h"
#include "noded/shepherd_launcher.h"

namespace skiff::noded {
namespace {

int Fatal(const std::string& message) {
  fprintf(stderr, "noded: fatal: %s\n", message.c_str());
  return 1;
}

// noded keeps job scripts, credentials and step sockets in SlurmdSpoolDir and
// reads and runs them as root: whoever else may write the directory (its
// owner, or group and others through its mode) can plant or swap them. Why
// `spool` is not noded's alone, "" when it is.
std::string SpoolDirProblem(const std::string& spool) {
  struct stat st {};
  if (stat(spool.c_str(), &st) != 0) return absl::StrCat(spool, ": ", strerror(errno));
  if (!S_ISDIR(st.st_mode)) return absl::StrCat(spool, " is not a directory");
  const uid_t self = geteuid();
  auto name_of = [](uid_t uid) {
    struct passwd pw {};
    struct passwd* found = nullptr;
    char buffer[4096];
    return getpwuid_r(uid, &pw, buffer, sizeof(buffer), &found) == 0 && found != nullptr
               ? std::string(pw.pw_name)
               : absl::StrCat(uid);
  };
  if (st.st_uid != self) {
    const std::string owner = name_of(st.st_uid);
    const std::string wanted = name_of(self);
    return absl::StrCat(spool, " is owned by ", owner, " (uid ", st.st_uid, "), not by ", wanted,
                        ", which noded runs as: chown ", wanted, " ", spool);
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return absl::StrCat(spool, " has mode ", mode,
                        ": group and others must not write it (chmod go-w ", spool, ")");
  }
  return "";
}

std::string ShortHostname() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  std::string name(buf);
  return name.substr(0, name.find('.'));
}

int Run(int argc, char** argv) {
  CLI::App app{"noded: the Skiff node daemon"};
  std::string conf_flag;
  std::string node_name;
  std::string shepherd_flag;
  bool foreground = true;
  int verbose = 0;
  app.add_option("-f,--conf", conf_flag,
                 "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  app.add_option("-N,--node-name", node_name, "NodeName to serve (default: short hostname)");
  app.add_option("--shepherd", shepherd_flag,
                 "the shepherd binary (default: $SKIFF_SHEPHERD, or next to noded)");
  app.add_flag("-D", foreground, "run in the foreground (noded always does)");
  app.add_flag("-v", verbose, "more logging (repeat for more)");
  std::string conf_server;
  std::string conf_cache = kDefaultConfCache;
  app.add_option("--conf-server", conf_server,
                 "HOST[:PORT] of ctld: fetch the config from it (SlurmctldParameters="
                 "enable_configless there) instead of reading skiff.conf; munge's socket is "
                 "$SKIFF_MUNGE_SOCKET or munge's default");
  app.add_option("--conf-cache", conf_cache,
                 "with --conf-server: where the fetched config is kept, %n = node name "
                 "(default /var/spool/skiff/conf-cache)");
  bool dynamic = false;
  int dynamic_port = 0;
  app.add_flag("-Z,--dynamic", dynamic,
               "a dynamic node (Slurm's slurmd -Z, `skiff join`): with no NodeName line for "
               "this node, register with the CPUs, memory and GPUs found here");
  app.add_option("--port", dynamic_port,
                 "with -Z and no NodeName line: the port to listen on (default SlurmdPort)");
  CLI11_PARSE(app, argc, argv);
  if (node_name.empty()) node_name = ShortHostname();

  // Configless (as slurmd --conf-server): the config comes from ctld into a
  // cache directory, and from that cache alone while ctld is down.
  std::string conf_path = ResolveConfPath(conf_flag);
  std::string conf_target;
  std::string conf_hash;
  std::string configless_note;
  if (!conf_server.empty()) {
    if (!conf_flag.empty()) return Fatal("use -f or --conf-server, not both");
    absl::StatusOr<std::string> target = ParseConfServer(conf_server, SkiffConfig().ctld_port);
    if (!target.ok()) return Fatal(std::string(target.status().message()));
    conf_target = *target;
    conf_cache = SubstituteNodeName(conf_cache, node_name);
    MungeAuthenticator bootstrap_auth(ConfiglessMungeSocket());
    absl::StatusOr<ConfiglessStart> start =
        PrepareConfiglessConfig(conf_target, conf_cache, bootstrap_auth, 10);
    if (!start.ok()) return Fatal(std::string(start.status().message()));
    conf_path = start->conf_path;
    conf_hash = start->hash;
    configless_note = start->note;
    fprintf(stderr, "noded: %s\n", configless_note.c_str());
    // noded's own helpers (Prolog, Epilog) find this copy; jobs get it too
    // (JobManagerOptions::job_conf_path), as Slurm points SLURM_CONF at
    // slurmd's conf-cache.
    setenv("SKIFF_CONF", conf_path.c_str(), 1);
  }

  absl::StatusOr<LoadedConfig> loaded = LoadConfig(conf_path);
  if (!loaded.ok()) return Fatal(std::string(loaded.status().message()));
  const SkiffConfig& config = loaded->skiff;
  const Hardware hw = DetectHardware();
  const NodeConfig* node = config.FindNode(node_name);
  // A dynamic node (joined with `skiff join`): what this machine has stands
  // for the NodeName line; ctld knows the node from its join.
  NodeConfig dynamic_node;
  if (node == nullptr && dynamic) {
    dynamic_node.name = node_name;
    dynamic_node.hostname = node_name;
    dynamic_node.cpus = hw.cpus;
    dynamic_node.cores_per_socket = hw.cpus;
    dynamic_node.real_memory_mb = hw.real_memory_mb;
    dynamic_node.port = dynamic_port != 0 ? dynamic_port : config.slurmd_port;
    // addr stays empty: listen on every address; ctld reaches the node where it joined from.
    node = &dynamic_node;
  }
  if (node == nullptr) {
    return Fatal(absl::StrCat("NodeName=", node_name, " is not in ", loaded->conf_path,
                              " (a node that joined with `skiff join` runs noded -Z)"));
  }
  const bool listen_anywhere = node == &dynamic_node;
  // AutoDetect=nvml: NVIDIA's library when the node has it, else gres.conf. A
  // joined node has no Gres= of its own: it finds its GPUs as `skiff join` did
  // (which told ctld what it found), unless gres.conf says AutoDetect=off.
  std::vector<DetectedGpu> detected;
  std::string detect_note;
  const bool detect_gpus = loaded->gres.auto_detect == "nvml" ||
                           (node == &dynamic_node && loaded->gres.auto_detect.empty());
  if (detect_gpus) {
    absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus();
    if (gpus.ok()) {
      detected = std::move(*gpus);
      detect_note = absl::StrCat("AutoDetect=nvml: ", detected.size(), " GPU(s) found");
    } else {
      detect_note = absl::StrCat("AutoDetect=nvml: ", gpus.status().message(),
                                 "; using gres.conf's File= lines");
    }
  }
  absl::StatusOr<std::vector<NodeGres>> gres = CollectNodeGres(*node, loaded->gres, &detected);
  if (!gres.ok()) return Fatal(std::string(gres.status().message()));
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(config.slurmd_debug);
  if (!level.ok()) return Fatal(absl::StrCat("SlurmdDebug: ", level.status().message()));
  const int numeric_level = std::max(0, static_cast<int>(*level) - verbose);

  const std::string spool = SubstituteNodeName(config.slurmd_spool_dir, node_name);
  if (absl::Status s = MakeDirs(spool, 0755); !s.ok()) {
    return Fatal(absl::StrCat("SlurmdSpoolDir: ", s.message()));
  }
  if (std::string problem = SpoolDirProblem(spool); !problem.empty()) {
    return Fatal(absl::StrCat("SlurmdSpoolDir ", problem));
  }
  uid_t slurm_user_uid = 0;
  if (struct passwd* pw = getpwnam(config.slurm_user.c_str())) slurm_user_uid = pw->pw_uid;

  const ConnectionLimits connection_limits = DaemonConnectionLimits();
  BlockDaemonSignals();
  auto logger_or = SetupLogging("noded", static_cast<spdlog::level::level_enum>(numeric_level),
                                SubstituteNodeName(config.slurmd_log_file, node_name));
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;
  if (!configless_note.empty()) logger.info("{}", configless_note);
  if (!detect_note.empty()) logger.info("{}", detect_note);
  SetLoginFailureSink([&logger](const std::string& line) { logger.warn("{}", line); });

  const int64_t start_time = time(nullptr);
  const int port = node->port != 0 ? node->port : config.slurmd_port;
  const std::string listen_host =
      listen_anywhere ? "" : (node->addr.empty() ? node_name : node->addr);
  const std::string listen = absl::StrCat(listen_host.empty() ? "*" : listen_host, ":", port);

  MungeAuthenticator auth(config.auth_socket);

  JobManagerOptions job_options;
  job_options.spool_dir = spool;
  job_options.node_name = node_name;
  if (!conf_target.empty()) job_options.job_conf_path = conf_path;
  job_options.shepherd_binary = FindShepherdBinary(shepherd_flag);
  job_options.kill_wait = static_cast<int>(config.kill_wait);
  job_options.prolog = config.prolog;
  job_options.epilog = config.epilog;
  job_options.task_prolog = config.task_prolog;
  job_options.task_epilog = config.task_epilog;
  job_options.prolog_epilog_timeout = config.prolog_epilog_timeout;
  job_options.fence_lease = std::chrono::seconds(config.FenceLeaseSeconds());
  absl::StatusOr<Confinement> confinement = SetUpConfinement(config, loaded->cgroup, *node, *gres);
  if (!confinement.ok()) {
    logger.error("{}", std::string(confinement.status().message()));
    return Fatal(std::string(confinement.status().message()));
  }
  // The one line on cgroups: used, or why not (an error when jobs cannot be
  // confined as configured: the node then registers drained).
  if (confinement->drain_reason.empty()) {
    logger.info("{}", confinement->log_line);
  } else {
    logger.error("{}", confinement->log_line);
  }
  job_options.cgroups = confinement->cgroups;
  job_options.cgroup_settings = confinement->settings;
  job_options.node_cpus = confinement->node_cpus;
  job_options.host_cpus = confinement->host_cpus;
  job_options.gpu_devices = confinement->gpu_devices;
  std::vector<std::string> gpu_files;  // by GPU index
  for (const NodeGres& g : *gres) {
    if (g.name == "gpu") gpu_files.insert(gpu_files.end(), g.files.begin(), g.files.end());
  }
  const ContainerSupport containers = CheckContainerSupport(*loaded, gpu_files);
  job_options.oci_conf = containers.oci_conf;
  job_options.container_config_json = containers.config_json;
  job_options.gpu_files = containers.gpu_files;
  job_options.control_devices = containers.control_devices;
  job_options.container_unavailable = containers.unavailable;
  if (!containers.unavailable.empty()) logger.warn("containers: {}", containers.unavailable);
  // Images (--container-image): the cache, the mirror, and the user helper
  // installed beside the shepherd.
  job_options.image_cache = config.container_image_cache.empty()
                                ? absl::StrCat(job_options.spool_dir, "/images")
                                : config.container_image_cache;
  job_options.image_cache_bytes = config.container_image_cache_bytes;
  job_options.registry_mirror = config.container_registry_mirror;
  job_options.container_driver_files = containers.driver_files;
  if (const std::string helper = ContainerUserHelperBeside(job_options.shepherd_binary);
      access(helper.c_str(), X_OK) == 0) {
    job_options.container_user_helper = helper;
  } else {
    logger.warn("containers: {} is missing: jobs with --container-image will fail here", helper);
  }
  if (access(job_options.shepherd_binary.c_str(), X_OK) != 0) {
    logger.error(
        "shepherd {} is not executable: every job launched here will fail "
        "(use --shepherd or $SKIFF_SHEPHERD)",
        job_options.shepherd_binary);
  }
  JobManager jobs(job_options, logger);

  v1::RegisterRequest registration;  // the hardware; the agent adds the jobs
  registration.set_node_name(node_name);
  registration.set_cpus(hw.cpus);
  registration.set_real_memory_mb(hw.real_memory_mb);
  registration.set_boot_time(hw.boot_time);
  registration.set_noded_start_time(start_time);
  registration.set_version(kSkiffVersion);
  registration.set_os(hw.os);
  registration.set_arch(hw.arch);
  registration.set_port(port);
  // A node meant to run containers (it has an oci.conf) without its runtime
  // says so in sinfo -R rather than failing each container job.
  registration.set_drain_reason(!confinement->drain_reason.empty() ? confinement->drain_reason
                                                                   : containers.drain_reason);
  for (const NodeGres& g : *gres) {
    v1::Gres* out = registration.add_gres();
    out->set_name(g.name);
    out->set_type(g.type);
    out->set_count(g.count);
    for (const std::string& file : g.files) out->add_files(file);
  }
  const std::string ctld_target = absl::StrCat(
      config.ctld_addr.empty() ? config.ctld_host : config.ctld_addr, ":", config.ctld_port);
  // A multi-node job's end goes to ctld once its other nodes have run their
  // Epilog (allocation_epilogs.h).
  std::unique_ptr<OtherNodes> other_nodes = MakeGrpcOtherNodes(auth, config.prolog_epilog_timeout);
  AllocationEpilogs epilogs(
      jobs, [&jobs](uint64_t id) { return jobs.JobDir(id); }, *other_nodes, logger);
  NodeAgent agent(ctld_target, registration, epilogs, auth, logger);
  // SKIFF_NODED_NO_LOAD=1: report no load or free memory (CPULoad=N/A, as
  // before a slurmd reports), for test clusters whose outputs are compared
  // with golden files; these change from run to run.
  if (const char* no_load = getenv("SKIFF_NODED_NO_LOAD");
      no_load != nullptr && no_load[0] == '1') {
    agent.SetLoadSource([] { return std::optional<NodeLoad>(); });
  }
  std::unique_ptr<ConfigFollower> follower;
  if (!conf_target.empty()) {
    follower = std::make_unique<ConfigFollower>(conf_target, conf_cache, conf_hash, auth, logger);
    agent.SetConfigHashListener(
        [&follower](const std::string& hash) { follower->OnAnnouncedHash(hash); });
  }
  jobs.SetFinishedListener([&agent, &epilogs] {
    epilogs.Wake();
    agent.Wake();
  });
  epilogs.SetFinishedListener([&agent] { agent.Wake(); });
  // Re-adopt the jobs in the spool before ctld can launch or ask about any.
  jobs.Start();
  epilogs.Start();
  // Drains this node and requeues a job when a step's Prolog fails here, and
  // the health check's drains.
  std::unique_ptr<NodeControl> node_control = MakeCtldNodeControl(ctld_target, node_name, auth);

  // The step managers of the jobs whose first node this is; step ids are kept
  // in each job's directory.
  StepManager steps([&jobs](uint64_t job_id) { return jobs.NextStepId(job_id); });
  StepReportQueue step_reports;  // what they tell ctld, sent by the agent
  step_reports.SetWake([&agent] { agent.WakeForSteps(); });
  agent.SetStepReports(&step_reports);
  NodedService service(node_name, start_time, auth, slurm_user_uid, jobs, steps, step_reports);
  service.SetNodeControl(node_control.get(), &logger);
  service.SetMaxStepStreamsPerUser(config.slurmd_parameters.max_step_streams_per_user);
  // Connections are accepted by the listener, under its limits (guarded_server.h),
  // and handed to the server; declared first, it outlives the server.
  absl::StatusOr<std::unique_ptr<GuardedListener>> listener =
      GuardedListener::Listen(listen_host, port, connection_limits, logger);
  if (!listener.ok()) {
    return Fatal(absl::StrCat("cannot listen on ", listen, " (NodeName=", node_name,
                              " Port=): ", listener.status().message()));
  }
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(MaxRequestBytes(config.scheduler_parameters.max_script_size));
  // Every stream (srun's RunStep, a step manager's RunTasks) holds one of the
  // sync server's threads for its life: past this many, new calls are refused
  // with RESOURCE_EXHAUSTED instead of the node running out of tasks.
  grpc::ResourceQuota quota("noded");
  quota.SetMaxThreads(2048);
  builder.SetResourceQuota(quota);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) return Fatal(absl::StrCat("cannot start the server for ", listen));
  // ctld and the other nodes call as root or SlurmUser: never evicted.
  (*listener)->Start(server.get(),
                     [slurm_user_uid](uid_t uid) { return uid == 0 || uid == slurm_user_uid; });
  if (absl::Status s = WritePidFile(SubstituteNodeName(config.slurmd_pid_file, node_name));
      !s.ok()) {
    logger.error("SlurmdPidFile: {}", std::string(s.message()));
  }
  logger.info("noded started: NodeName={} listening on {}, CPUs={} RealMemory={} gres={}",
              node_name, listen, hw.cpus, hw.real_memory_mb, gres->size());
  agent.Start();
  // HealthCheckProgram: at start, then every HealthCheckInterval (Slurm's slurmd).
  std::unique_ptr<HealthChecker> health;
  if (!config.health_check_program.empty()) {
    HealthCheckOptions health_options;
    health_options.program = config.health_check_program;
    health_options.interval = std::chrono::seconds(config.health_check_interval);
    health_options.node_state = config.health_check_node_state;
    health = std::make_unique<HealthChecker>(health_options, *node_control, logger);
    health->Start();
    logger.info("HealthCheckProgram {} every {} s (HealthCheckNodeState={})",
                config.health_check_program, config.health_check_interval,
                config.health_check_node_state);
  }

  for (;;) {
    int sig = WaitForSignal();
    if (sig == SIGCHLD || sig == SIGHUP) continue;
    logger.info("signal {}: shutting down", sig);
    break;
  }
  (*listener)->Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  if (health) health->Stop();
  agent.Stop();
  epilogs.Stop();  // a job whose other nodes were not all asked is asked again at start
  jobs.Stop();     // jobs keep running; a restarted noded re-adopts them
  const std::string pid_file = SubstituteNodeName(config.slurmd_pid_file, node_name);
  if (!pid_file.empty()) unlink(pid_file.c_str());
  logger.info("noded stopped");
  return 0;
}

}  // namespace
}  // namespace skiff::noded

int main(int argc, char** argv) {
  skiff::TurnOffMutexDeadlockDetection();  // mutex_mode.h
  return skiff::noded::Run(argc, argv);
}
