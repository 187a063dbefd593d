// noded: the Skiff node daemon. Its main: flags, the node (node_setup.h), the job
// manager, the agent that talks to ctld, the server, and the wait for a signal.
#include <grpcpp/grpcpp.h>
#include <sys/syscall.h>
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
#include <vector>

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
#include "noded/gpu/gpu_monitor.h"
#include "noded/gpu/gpu_usage.h"
#include "noded/gpu/mps_servers.h"
#include "noded/gpu/nvml.h"
#include "noded/hardware.h"
#include "noded/health_check.h"
#include "noded/job_manager.h"
#include "noded/munge_key_renewal.h"
#include "noded/node_agent.h"
#include "noded/node_setup.h"
#include "noded/noded_service.h"
#include "noded/other_nodes_grpc.h"
#include "noded/shepherd_launcher.h"

namespace skiff::noded {
namespace {

int Fatal(const std::string& message) {
  fprintf(stderr, "noded: fatal: %s\n", message.c_str());
  return 1;
}

// How jobs run here: the cgroup confinement (one log line: used, or why
// not), container support, the shepherd and the image helper, each checked
// now so that a node that cannot run jobs as configured says so at start.
// `drain_reason`: why the node registers drained ("" when it need not).
absl::StatusOr<JobManagerOptions> JobOptionsFor(const NodeSetup& setup,
                                                const std::string& shepherd_flag,
                                                spdlog::logger& logger, std::string* drain_reason) {
  const SkiffConfig& config = setup.loaded.skiff;
  absl::StatusOr<Confinement> confinement =
      SetUpConfinement(config, setup.loaded.cgroup, setup.node, setup.gres);
  if (!confinement.ok()) {
    logger.error("{}", std::string(confinement.status().message()));
    return confinement.status();
  }
  // The one line on cgroups: used, or why not (an error when jobs cannot be
  // confined as configured: the node then registers drained).
  if (confinement->drain_reason.empty()) {
    logger.info("{}", confinement->log_line);
  } else {
    logger.error("{}", confinement->log_line);
  }
  std::vector<std::vector<std::string>> gpu_files;  // by GPU index
  for (const NodeGres& g : setup.gres) {
    if (g.name != "gpu") continue;
    for (const GresUnit& unit : g.units) gpu_files.push_back(unit.files);
  }
  const ContainerSupport containers = CheckContainerSupport(setup.loaded, gpu_files);
  if (!containers.unavailable.empty()) logger.warn("containers: {}", containers.unavailable);
  JobManagerOptions job_options =
      JobManagerOptionsFrom(setup, FindShepherdBinary(shepherd_flag), *confinement, containers);
  if (access(job_options.container_user_helper.c_str(), X_OK) != 0) {
    logger.warn("containers: {} is missing: jobs with --container-image will fail here",
                job_options.container_user_helper);
    job_options.container_user_helper.clear();
  }
  if (access(job_options.shepherd_binary.c_str(), X_OK) != 0) {
    logger.error(
        "shepherd {} is not executable: every job launched here will fail "
        "(use --shepherd or $SKIFF_SHEPHERD)",
        job_options.shepherd_binary);
  }
  // A node meant to run containers (it has an oci.conf) without its runtime
  // says so in sinfo -R rather than failing each container job.
  *drain_reason =
      !confinement->drain_reason.empty() ? confinement->drain_reason : containers.drain_reason;
  return job_options;
}

// The node's gRPC server. Connections are accepted by the listener, under its
// limits (guarded_server.h), and handed to the server; declared first, the
// listener outlives the server.
struct NodeServer {
  std::unique_ptr<GuardedListener> listener;
  std::unique_ptr<grpc::Server> server;
  void Stop() {
    listener->Stop();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
};

absl::StatusOr<NodeServer> StartNodeServer(const NodeSetup& setup,
                                           const ConnectionLimits& connection_limits,
                                           NodedService& service, spdlog::logger& logger) {
  const std::string listen =
      absl::StrCat(setup.listen_host.empty() ? "*" : setup.listen_host, ":", setup.port);
  NodeServer node_server;
  absl::StatusOr<std::unique_ptr<GuardedListener>> listener =
      GuardedListener::Listen(setup.listen_host, setup.port, connection_limits, logger);
  if (!listener.ok()) {
    return absl::Status(listener.status().code(),
                        absl::StrCat("cannot listen on ", listen, " (NodeName=", setup.node_name,
                                     " Port=): ", listener.status().message()));
  }
  node_server.listener = *std::move(listener);
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(
      MaxRequestBytes(setup.loaded.skiff.scheduler_parameters.max_script_size));
  // Every stream (srun's RunStep, a step manager's RunTasks) holds one of the
  // sync server's threads for its life: past this many, new calls are refused
  // with RESOURCE_EXHAUSTED instead of the node running out of tasks.
  grpc::ResourceQuota quota("noded");
  quota.SetMaxThreads(2048);
  builder.SetResourceQuota(quota);
  builder.RegisterService(&service);
  node_server.server = builder.BuildAndStart();
  if (!node_server.server) {
    return absl::InternalError(absl::StrCat("cannot start the server for ", listen));
  }
  // ctld and the other nodes call as root or SlurmUser: never evicted.
  node_server.listener->Start(node_server.server.get(),
                              [slurm_user_uid = setup.slurm_user_uid](uid_t uid) {
                                return uid == 0 || uid == slurm_user_uid;
                              });
  return node_server;
}

// HealthCheckProgram: at start, then every HealthCheckInterval (Slurm's
// slurmd); null when none is configured.
std::unique_ptr<HealthChecker> StartHealthChecks(const SkiffConfig& config,
                                                 NodeControl& node_control,
                                                 spdlog::logger& logger) {
  if (config.health_check_program.empty()) return nullptr;
  HealthCheckOptions health_options;
  health_options.program = config.health_check_program;
  health_options.interval = std::chrono::seconds(config.health_check_interval);
  health_options.node_state = config.health_check_node_state;
  auto health = std::make_unique<HealthChecker>(health_options, node_control, logger);
  health->Start();
  logger.info("HealthCheckProgram {} every {} s (HealthCheckNodeState={})",
              config.health_check_program, config.health_check_interval,
              config.health_check_node_state);
  return health;
}

// How noded's signal loop ended.
enum class Ending { kShutDown, kRestartInPlace };

// noded's signal loop. SIGTERM and SIGINT stop noded. SIGHUP (an admin's
// `systemctl reload`, or a configless node whose new files from `scontrol
// reconfigure` are in its cache) restarts it in place, as Slurm 23.11's slurmd
// does on reconfigure, once no step's tasks run here: a restart cuts the
// streams of the steps it serves, while batch jobs and their scripts keep
// running (their shepherds hold them) and are re-adopted.
Ending ServeUntilStopped(NodedService& service, spdlog::logger& logger) {
  bool restart = false;
  int waiting_for = 0;
  for (;;) {
    const int sig = restart ? WaitForSignalFor(1000) : WaitForSignal();
    if (sig == SIGTERM || sig == SIGINT) {
      logger.info("signal {}: shutting down", sig);
      return Ending::kShutDown;
    }
    if (sig == SIGHUP && !restart) {
      logger.info("SIGHUP: reconfiguring: noded restarts in place to read its configuration");
      restart = true;
    }
    if (!restart) continue;
    const int steps = service.OpenStepCalls();
    if (steps == 0) return Ending::kRestartInPlace;
    if (steps != waiting_for) {
      logger.info("reconfigure: waiting for {} running step(s) to end before restarting", steps);
      waiting_for = steps;
    }
  }
}

// Runs noded's own program again with the same command line, in this process
// (same pid: systemd and the pid file see no change). Returns only when that
// failed.
int RestartInPlace(char** argv, spdlog::logger& logger) {
  logger.info("noded restarting in place");
  logger.flush();
  // No descriptor of this process (the log file, a socket) is handed on.
#ifdef SYS_close_range
  syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
#endif
  execv("/proc/self/exe", argv);
  const int err = errno;
  logger.error("cannot restart in place: {}: restart noded by hand", strerror(err));
  return 1;
}

// From a node set up to noded's stop: the jobs it runs (re-adopted from the
// spool first), its agent towards ctld, the step managers, its server, then
// signals until one asks noded to stop.
int Serve(const NodeSetup& setup, const NodedFlags& flags,
          const ConnectionLimits& connection_limits, char** argv, spdlog::logger& logger) {
  const SkiffConfig& config = setup.loaded.skiff;
  const std::string& node_name = setup.node_name;
  const int64_t start_time = time(nullptr);
  const std::string listen =
      absl::StrCat(setup.listen_host.empty() ? "*" : setup.listen_host, ":", setup.port);
  MungeAuthenticator auth(config.auth_socket);

  std::string drain_reason;
  absl::StatusOr<JobManagerOptions> job_options =
      JobOptionsFor(setup, flags.shepherd, logger, &drain_reason);
  if (!job_options.ok()) return Fatal(std::string(job_options.status().message()));
  JobManager jobs(*job_options, logger);

  const v1::RegisterRequest registration = RegistrationFrom(setup, start_time, drain_reason);
  // A multi-node job's end goes to ctld once its other nodes have run their
  // Epilog (allocation_epilogs.h).
  std::unique_ptr<OtherNodes> other_nodes = MakeGrpcOtherNodes(auth, config.prolog_epilog_timeout);
  AllocationEpilogs epilogs(
      jobs, [&jobs](uint64_t id) { return jobs.JobDir(id); }, *other_nodes, logger);
  // The GPUs' use by each job, sampled while it runs and added to its end
  // report (noded/gpu/gpu_monitor.h).
  GpuMonitorOptions gpu_options;
  gpu_options.node_name = node_name;
  gpu_options.period = std::chrono::seconds(config.job_acct_gather_frequency);
  // A GPU's (or MIG device's) first file is its GPU's: what NVML samples.
  for (const std::vector<std::string>& files : job_options->gpu_files) {
    gpu_options.gpu_files.push_back(files.empty() ? "" : files.front());
  }
  gpu_options.job_mapping_dir = config.hpc_job_mapping_dir;
  GpuMonitor gpus(gpu_options, jobs, epilogs, logger);
  NodeAgent agent(config.CtldTargets(), registration, gpus, auth, logger);
  // The serving controller's epoch, from its registration replies and calls:
  // an earlier controller (deposed while it hung) is refused from then on.
  ControllerFence controller_fence;
  agent.SetControllerFence(&controller_fence);
  agent.SetGpuSource([&gpus] { return gpus.TakeRunning(); },
                     [&gpus](const std::vector<RunningJobGpus>& taken) { gpus.Restore(taken); });
  // SKIFF_NODED_NO_LOAD=1: report no load or free memory (CPULoad=N/A, as
  // before a slurmd reports), for test clusters whose outputs are compared
  // with golden files; these change from run to run.
  if (const char* no_load = getenv("SKIFF_NODED_NO_LOAD");
      no_load != nullptr && no_load[0] == '1') {
    agent.SetLoadSource([] { return std::optional<NodeLoad>(); });
  }
  std::unique_ptr<ConfigFollower> follower;
  if (!setup.conf_servers.empty()) {
    // New files come from the controller that served these, else from the
    // first of --conf-server's and then of the fetched skiff.conf's
    // controllers that serves (a standby that took over while the head is down).
    follower = std::make_unique<ConfigFollower>(
        MergeControllerTargets(MergeControllerTargets({setup.conf_served_by}, setup.conf_servers),
                               config.CtldTargets()),
        setup.conf_cache, setup.conf_hash, auth, logger);
    agent.SetConfigHashListener(
        [&follower](const std::string& hash) { follower->OnAnnouncedHash(hash); });
    // New files in the cache are applied as a SIGHUP would apply them.
    follower->SetChangedListener([] { kill(getpid(), SIGHUP); });
  }
  // A joined node fetches the cluster's new munge key when ctld refuses its
  // credential (skiff node remove replaced it).
  std::unique_ptr<MungeKeyRenewer> key_renewer;
  if (!flags.node_key.empty()) {
    key_renewer = std::make_unique<MungeKeyRenewer>(flags.node_key, logger);
    agent.SetCredentialRefusedListener([&key_renewer] { key_renewer->OnCredentialRefused(); });
  }
  // gres/mps: a GPU's MPS control daemon, from its first MPS job to its last
  // (noded/gpu/mps_servers.h), in the spool noded keeps as root.
  MpsServerOptions mps_options;
  mps_options.run_dir = setup.spool + "/mps";
  mps_options.control = MpsServers::FindControl();
  mps_options.gpu_cuda_names = job_options->gpu_cuda_names;
  // Fenced shares' memory limits: a whole GPU's memory from NVML (a MIG
  // device's is not read: its fenced share runs without a memory limit).
  mps_options.gpu_memory_bytes = [files = job_options->gpu_files,
                                  names = job_options->gpu_cuda_names](int gpu) {
    const size_t index = static_cast<size_t>(gpu);
    if (index >= files.size() || files[index].empty() ||
        (index < names.size() && !names[index].empty())) {
      return std::optional<uint64_t>();
    }
    const std::optional<unsigned> minor = DeviceFileMinor(files[index].front());
    return minor ? NvmlGpuMemory(*minor) : std::optional<uint64_t>();
  };
  MpsServers mps(mps_options, logger);
  jobs.SetFinishedListener([&agent, &epilogs, &mps, &jobs] {
    epilogs.Wake();
    agent.Wake();
    mps.JobsRunning(jobs.RunningJobIds());
  });
  epilogs.SetFinishedListener([&agent] { agent.Wake(); });
  // Re-adopt the jobs in the spool before ctld can launch or ask about any.
  jobs.Start();
  epilogs.Start();
  for (uint64_t job_id : jobs.RunningJobIds()) {
    absl::StatusOr<LaunchSpec> spec = jobs.RunningJobSpec(job_id);
    if (spec.ok() && spec->mps_gpu >= 0) mps.Adopt(job_id, spec->mps_gpu, spec->uid, spec->gid);
  }
  mps.Start();
  // Drains this node and requeues a job when a step's Prolog fails here, and
  // the health check's drains.
  std::unique_ptr<NodeControl> node_control =
      MakeCtldNodeControl(config.CtldTargets(), node_name, auth);
  // A broken GPU drains the node and sends the jobs on it back to the queue.
  gpus.SetFaultListener(
      [&node_control, &logger](const std::string& reason, const std::vector<uint64_t>& jobs_on_it) {
        if (absl::Status s = node_control->Drain(reason); !s.ok()) {
          logger.error("cannot drain the node ({}): {}", reason, std::string(s.message()));
        }
        for (uint64_t job_id : jobs_on_it) {
          if (absl::Status s = node_control->Requeue(job_id); !s.ok()) {
            logger.error("JobId={}: cannot requeue it ({}): {}", job_id, reason,
                         std::string(s.message()));
          }
        }
      });

  // The step managers of the jobs whose first node this is; step ids are kept
  // in each job's directory.
  StepManager steps([&jobs](uint64_t job_id) { return jobs.NextStepId(job_id); });
  StepReportQueue step_reports;  // what they tell ctld, sent by the agent
  step_reports.SetWake([&agent] { agent.WakeForSteps(); });
  agent.SetStepReports(&step_reports);
  NodedService service(node_name, start_time, auth, setup.slurm_user_uid, jobs, steps,
                       step_reports);
  service.SetNodeControl(node_control.get(), &logger);
  service.SetControllerFence(&controller_fence);
  service.SetMaxStepStreamsPerUser(config.slurmd_parameters.max_step_streams_per_user);
  service.SetGpuUses([&gpus](uint64_t job_id) { return gpus.UsesOf(job_id); });
  service.SetMpsServers(&mps);
  // Another node's job: the GPUs its steps use here are sampled too, and go
  // back with EndJobOnNode's answer.
  service.SetEndedJobGpus([&gpus](uint64_t job_id) { return gpus.EndedJobGpus(job_id); });
  gpus.SetStepGpuSource([&service] { return service.StepGpus(); });
  gpus.Start();
  absl::StatusOr<NodeServer> server = StartNodeServer(setup, connection_limits, service, logger);
  if (!server.ok()) return Fatal(std::string(server.status().message()));
  if (absl::Status s = WritePidFile(SubstituteNodeName(config.slurmd_pid_file, node_name));
      !s.ok()) {
    logger.error("SlurmdPidFile: {}", std::string(s.message()));
  }
  logger.info("noded started: NodeName={} listening on {}, CPUs={} RealMemory={} gres={}",
              node_name, listen, setup.hw.cpus, setup.hw.real_memory_mb, setup.gres.size());
  agent.Start();
  std::unique_ptr<HealthChecker> health = StartHealthChecks(config, *node_control, logger);

  const Ending ending = ServeUntilStopped(service, logger);
  server->Stop();
  if (health) health->Stop();
  agent.Stop();
  gpus.Stop();
  epilogs.Stop();  // a job whose other nodes were not all asked is asked again at start
  jobs.Stop();     // jobs keep running; a restarted noded re-adopts them
  mps.Stop();      // the GPUs' MPS daemons keep serving those jobs
  if (ending == Ending::kRestartInPlace) return RestartInPlace(argv, logger);
  const std::string pid_file = SubstituteNodeName(config.slurmd_pid_file, node_name);
  if (!pid_file.empty()) unlink(pid_file.c_str());
  logger.info("noded stopped");
  return 0;
}

int Run(int argc, char** argv) {
  CLI::App app{"noded: the Skiff node daemon"};
  NodedFlags flags;
  bool foreground = true;
  app.add_option("-f,--conf", flags.conf,
                 "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  app.add_option("-N,--node-name", flags.node_name, "NodeName to serve (default: short hostname)");
  app.add_option("--shepherd", flags.shepherd,
                 "the shepherd binary (default: $SKIFF_SHEPHERD, or next to noded)");
  app.add_flag("-D", foreground, "run in the foreground (noded always does)");
  app.add_flag("-v", flags.verbose, "more logging (repeat for more)");
  app.add_option("--conf-server", flags.conf_server,
                 "HOST[:PORT] of ctld, or a comma-separated list of controllers: fetch the "
                 "config from the first that serves (SlurmctldParameters=enable_configless "
                 "there; then the controllers the last fetched skiff.conf names) instead of "
                 "reading skiff.conf; munge's socket is $SKIFF_MUNGE_SOCKET or munge's default");
  app.add_option("--conf-cache", flags.conf_cache,
                 "with --conf-server: where the fetched config is kept, %n = node name "
                 "(default /var/spool/skiff/conf-cache)");
  app.add_flag("-Z,--dynamic", flags.dynamic,
               "a dynamic node (Slurm's slurmd -Z, `skiff join`): with no NodeName line for "
               "this node, register with the CPUs, memory and GPUs found here");
  app.add_option("--port", flags.dynamic_port,
                 "with -Z and no NodeName line: the port to listen on (default SlurmdPort)");
  app.add_option("--node-key", flags.node_key,
                 "the node key file `skiff join` wrote: fetch the cluster's munge key with it "
                 "when ctld refuses this node's credential");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<NodeSetup> setup_or = SetUpNode(flags);
  if (!setup_or.ok()) return Fatal(std::string(setup_or.status().message()));
  const NodeSetup& setup = *setup_or;
  const SkiffConfig& config = setup.loaded.skiff;
  const std::string& node_name = setup.node_name;
  const ConnectionLimits connection_limits = DaemonConnectionLimits();
  BlockDaemonSignals();
  auto logger_or = SetupLogging("noded", static_cast<spdlog::level::level_enum>(setup.log_level),
                                SubstituteNodeName(config.slurmd_log_file, node_name));
  if (!logger_or.ok()) return Fatal(std::string(logger_or.status().message()));
  spdlog::logger& logger = **logger_or;
  if (!setup.configless_note.empty()) logger.info("{}", setup.configless_note);
  if (!setup.detect_note.empty()) logger.info("{}", setup.detect_note);
  SetLoginFailureSink([&logger](const std::string& line) { logger.warn("{}", line); });
  return Serve(setup, flags, connection_limits, argv, logger);
}

}  // namespace
}  // namespace skiff::noded

int main(int argc, char** argv) {
  skiff::TurnOffMutexDeadlockDetection();  // mutex_mode.h
  return skiff::noded::Run(argc, argv);
}
