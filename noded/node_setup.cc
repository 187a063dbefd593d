#include "noded/node_setup.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/auth/munge_authenticator.h"
#include "common/config/configless.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/rpc/config_fetch.h"
#include "common/version.h"
#include "noded/configless_node.h"
#include "noded/gpu/mig.h"
#include "noded/gpu/nvml.h"

namespace skiff::noded {
namespace {

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

absl::Status Fail(std::string message) { return absl::FailedPreconditionError(message); }

// Configless (as slurmd --conf-server): the config comes from the first
// controller that serves it into a cache directory, and from that cache alone
// while none does.
absl::Status FetchConfig(const NodedFlags& flags, NodeSetup& setup) {
  if (!flags.conf.empty()) return Fail("use -f or --conf-server, not both");
  absl::StatusOr<std::vector<std::string>> servers =
      ParseConfServers(flags.conf_server, SkiffConfig().ctld_port);
  if (!servers.ok()) return servers.status();
  setup.conf_servers = *std::move(servers);
  setup.conf_cache = SubstituteNodeName(
      flags.conf_cache.empty() ? kDefaultConfCache : flags.conf_cache, setup.node_name);
  MungeAuthenticator bootstrap_auth(ConfiglessMungeSocket());
  absl::StatusOr<ConfiglessStart> start =
      PrepareConfiglessConfig(setup.conf_servers, setup.conf_cache, bootstrap_auth, 10);
  if (!start.ok()) return start.status();
  setup.conf_path = start->conf_path;
  setup.conf_hash = start->hash;
  setup.conf_served_by = start->served_by;
  setup.configless_note = start->note;
  fprintf(stderr, "noded: %s\n", setup.configless_note.c_str());
  // noded's own helpers (Prolog, Epilog) find this copy; jobs get it too
  // (JobManagerOptions::job_conf_path), as Slurm points SLURM_CONF at
  // slurmd's conf-cache.
  setenv("SKIFF_CONF", setup.conf_path.c_str(), 1);
  return absl::OkStatus();
}

// The node's NodeName line, or for a dynamic node (joined with `skiff join`)
// what this machine has: ctld knows the node from its join.
absl::Status FindNode(const NodedFlags& flags, NodeSetup& setup) {
  const SkiffConfig& config = setup.loaded.skiff;
  if (const NodeConfig* node = config.FindNode(setup.node_name)) {
    setup.node = *node;
    return absl::OkStatus();
  }
  if (!flags.dynamic) {
    return Fail(absl::StrCat("NodeName=", setup.node_name, " is not in ", setup.loaded.conf_path,
                             " (a node that joined with `skiff join` runs noded -Z)"));
  }
  setup.node.name = setup.node_name;
  setup.node.hostname = setup.node_name;
  setup.node.cpus = setup.hw.cpus;
  setup.node.cores_per_socket = setup.hw.cpus;
  setup.node.real_memory_mb = setup.hw.real_memory_mb;
  setup.node.port = flags.dynamic_port != 0 ? flags.dynamic_port : config.slurmd_port;
  // addr stays empty: listen on every address; ctld reaches the node where it joined from.
  setup.listen_anywhere = true;
  return absl::OkStatus();
}

// AutoDetect=nvml: NVIDIA's library when the node has it, else gres.conf. A
// joined node has no Gres= of its own: it finds its GPUs as `skiff join` did
// (which told ctld what it found), unless gres.conf says AutoDetect=off.
absl::Status FindGres(NodeSetup& setup) {
  std::vector<DetectedGpu> detected;
  const bool detect_gpus = setup.loaded.gres.auto_detect == "nvml" ||
                           (setup.listen_anywhere && setup.loaded.gres.auto_detect.empty());
  if (detect_gpus) {
    absl::StatusOr<std::vector<DetectedGpu>> gpus = DetectNvmlGpus();
    if (gpus.ok()) {
      detected = std::move(*gpus);
      // Which, by name and the type Slurm gives that name, for the admin
      // writing Gres=gpu:TYPE:N.
      std::vector<std::string> found;
      for (const DetectedGpu& gpu : detected) {
        std::vector<std::string> migs;
        for (const DetectedMig& mig : gpu.migs) {
          migs.push_back(absl::StrCat(NvmlGpuType(gpu.name), "_",
                                      MigProfile(mig.slices, mig.memory_mb), " ", mig.cuda_name));
        }
        found.push_back(
            absl::StrCat("/dev/nvidia", gpu.minor, " ", gpu.name,
                         migs.empty() ? absl::StrCat(" (type ", NvmlGpuType(gpu.name), ")")
                                      : absl::StrCat(" in MIG mode: ", absl::StrJoin(migs, ", "))));
      }
      setup.detect_note = absl::StrCat("AutoDetect=nvml: ", detected.size(), " GPU(s) found",
                                       found.empty() ? "" : ": ", absl::StrJoin(found, ", "));
    } else {
      setup.detect_note = absl::StrCat("AutoDetect=nvml: ", gpus.status().message(),
                                       "; using gres.conf's File= lines");
    }
  }
  // The driver's MIG table; a test with the fake NVML names its own.
  const char* mig_minors = getenv(kMigMinorsVariable);
  absl::StatusOr<std::vector<NodeGres>> gres =
      CollectNodeGres(setup.node, setup.loaded.gres, &detected,
                      mig_minors != nullptr && *mig_minors != '\0' ? mig_minors : kMigMinorsPath);
  if (!gres.ok()) return gres.status();
  setup.gres = *std::move(gres);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NodeSetup> SetUpNode(NodedFlags flags) {
  NodeSetup setup;
  setup.node_name = flags.node_name.empty() ? ShortHostname() : flags.node_name;
  setup.conf_path = ResolveConfPath(flags.conf);
  if (!flags.conf_server.empty()) {
    if (absl::Status s = FetchConfig(flags, setup); !s.ok()) return s;
  }
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(setup.conf_path);
  if (!loaded.ok()) return loaded.status();
  setup.loaded = *std::move(loaded);
  // A configless node's munged is this machine's: $SKIFF_MUNGE_SOCKET, when
  // set, wins over the fetched AuthInfo, which names the head node's socket.
  if (!flags.conf_server.empty() && !ConfiglessMungeSocket().empty()) {
    setup.loaded.skiff.auth_socket = ConfiglessMungeSocket();
  }
  const SkiffConfig& config = setup.loaded.skiff;
  setup.hw = DetectHardware();
  if (absl::Status s = FindNode(flags, setup); !s.ok()) return s;
  if (absl::Status s = FindGres(setup); !s.ok()) return s;
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(config.slurmd_debug);
  if (!level.ok()) return Fail(absl::StrCat("SlurmdDebug: ", level.status().message()));
  setup.log_level = std::max(0, static_cast<int>(*level) - flags.verbose);

  setup.spool = SubstituteNodeName(config.slurmd_spool_dir, setup.node_name);
  if (absl::Status s = MakeDirs(setup.spool, 0755); !s.ok()) {
    return Fail(absl::StrCat("SlurmdSpoolDir: ", s.message()));
  }
  if (std::string problem = SpoolDirProblem(setup.spool); !problem.empty()) {
    return Fail(absl::StrCat("SlurmdSpoolDir ", problem));
  }
  if (struct passwd* pw = getpwnam(config.slurm_user.c_str())) setup.slurm_user_uid = pw->pw_uid;
  setup.port = setup.node.port != 0 ? setup.node.port : config.slurmd_port;
  setup.listen_host =
      setup.listen_anywhere ? "" : (setup.node.addr.empty() ? setup.node_name : setup.node.addr);
  return setup;
}

JobManagerOptions JobManagerOptionsFrom(const NodeSetup& setup, const std::string& shepherd,
                                        const Confinement& confinement,
                                        const ContainerSupport& containers) {
  const SkiffConfig& config = setup.loaded.skiff;
  JobManagerOptions options;
  options.spool_dir = setup.spool;
  options.node_name = setup.node_name;
  if (!setup.conf_servers.empty()) options.job_conf_path = setup.conf_path;
  options.shepherd_binary = shepherd;
  options.kill_wait = static_cast<int>(config.kill_wait);
  options.prolog = config.prolog;
  options.epilog = config.epilog;
  options.task_prolog = config.task_prolog;
  options.task_epilog = config.task_epilog;
  options.prolog_epilog_timeout = config.prolog_epilog_timeout;
  options.fence_lease = std::chrono::seconds(config.FenceLeaseSeconds());
  options.cgroups = confinement.cgroups;
  options.cgroup_settings = confinement.settings;
  options.node_cpus = confinement.node_cpus;
  options.host_cpus = confinement.host_cpus;
  options.gpu_devices = confinement.gpu_devices;
  for (const NodeGres& g : setup.gres) {
    if (g.name != "gpu") continue;
    for (const GresUnit& unit : g.units) options.gpu_cuda_names.push_back(unit.cuda_name);
  }
  options.oci_conf = containers.oci_conf;
  options.container_config_json = containers.config_json;
  options.gpu_files = containers.gpu_files;
  options.control_devices = containers.control_devices;
  options.container_unavailable = containers.unavailable;
  // Images (--container-image): the cache, the mirror, the driver's files, and
  // the user helper installed beside the shepherd.
  options.image_cache = config.container_image_cache.empty()
                            ? absl::StrCat(options.spool_dir, "/images")
                            : config.container_image_cache;
  options.image_cache_bytes = config.container_image_cache_bytes;
  options.registry_mirror = config.container_registry_mirror;
  options.container_driver_files = containers.driver_files;
  options.container_user_helper = ContainerUserHelperBeside(shepherd);
  return options;
}

v1::RegisterRequest RegistrationFrom(const NodeSetup& setup, int64_t start_time,
                                     const std::string& drain_reason) {
  v1::RegisterRequest registration;
  registration.set_node_name(setup.node_name);
  registration.set_cpus(setup.hw.cpus);
  registration.set_real_memory_mb(setup.hw.real_memory_mb);
  registration.set_boot_time(setup.hw.boot_time);
  registration.set_noded_start_time(start_time);
  registration.set_version(kSkiffVersion);
  registration.set_os(setup.hw.os);
  registration.set_arch(setup.hw.arch);
  registration.set_port(setup.port);
  registration.set_drain_reason(drain_reason);
  for (const NodeGres& g : setup.gres) {
    v1::Gres* out = registration.add_gres();
    out->set_name(g.name);
    out->set_type(g.type);
    out->set_count(g.count);
    for (const std::string& files : UnitFiles(g)) out->add_files(files);
  }
  return registration;
}

}  // namespace skiff::noded
