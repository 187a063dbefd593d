#include "ctld/ctld_setup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/daemon.h"
#include "common/logging.h"
#include "common/users.h"
#include "ctld/state/state_marker.h"

namespace skiff::ctld {
namespace {

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
  setup.munge_key_path = key_path;
  return std::optional<JoinSetup>(std::move(setup));
}

}  // namespace

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

absl::StatusOr<ControllerHost> ThisController(const SkiffConfig& config, const std::string& flag,
                                              const std::string& short_host_name) {
  std::vector<ControllerHost> hosts = config.ctld_hosts;
  if (hosts.empty()) hosts.push_back({config.ctld_host, config.ctld_addr});
  const std::string& wanted = flag.empty() ? short_host_name : flag;
  for (const ControllerHost& host : hosts) {
    if (host.name == wanted) return host;
  }
  if (flag.empty()) return hosts.front();
  std::vector<std::string> names;
  for (const ControllerHost& host : hosts) names.push_back(host.name);
  return absl::InvalidArgumentError(absl::StrCat("--host: '", flag,
                                                 "' is not a SlurmctldHost of skiff.conf (",
                                                 absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<CtldSetup> SetUpCtld(const CtldFlags& flags, int64_t now) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(flags.conf_path);
  if (!loaded.ok()) return loaded.status();
  CtldSetup setup;
  setup.loaded = *std::move(loaded);
  const SkiffConfig& config = setup.loaded.skiff;
  char host_name[256] = {};
  gethostname(host_name, sizeof(host_name) - 1);
  absl::StatusOr<ControllerHost> self =
      ThisController(config, flags.host, std::string(host_name).substr(0, strcspn(host_name, ".")));
  if (!self.ok()) return self.status();
  setup.self = *std::move(self);
  // burst_buffer.conf's AllowUsers/DenyUsers name users of this host's databases.
  if (config.burst_buffer_type == "burst_buffer/lua" && setup.loaded.burst_buffer.has_value()) {
    if (absl::Status s =
            CheckBurstBufferUsers(*setup.loaded.burst_buffer,
                                  [](const std::string& user) { return UidOf(user).has_value(); });
        !s.ok()) {
      return s;
    }
  }
  // A user name that is not a user of this host stops ctld: credentials carry uids.
  std::optional<uid_t> slurm_user = UidOf(config.slurm_user);
  if (!slurm_user) {
    return absl::FailedPreconditionError(
        absl::StrCat("SlurmUser: no such user '", config.slurm_user, "'"));
  }
  setup.slurm_user_uid = *slurm_user;
  // AuthAltTypes=auth/jwt: scontrol token's key, read once, before anything
  // starts: a key others can read, or one short enough to guess, stops ctld.
  if (config.auth_jwt && !config.jwt_key.empty()) {
    absl::StatusOr<std::string> key = ReadJwtKey(config.jwt_key, setup.slurm_user_uid);
    if (!key.ok()) return key.status();
    setup.jwt_key = *std::move(key);
  }
  absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel(config.ctld_debug);
  if (!level.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("SlurmctldDebug: ", level.status().message()));
  }
  setup.log_level =
      static_cast<spdlog::level::level_enum>(std::max(0, static_cast<int>(*level) - flags.verbose));

  if (absl::Status s = MakeDirs(config.state_save_location, 0700); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("StateSaveLocation: ", s.message()));
  }
  if (flags.clear_state) {
    absl::StatusOr<std::string> aside = ClearState(config.state_save_location, now);
    if (!aside.ok()) {
      return absl::Status(aside.status().code(), absl::StrCat("-c: ", aside.status().message()));
    }
    setup.cleared_state = *aside;
  } else if (absl::Status s = CheckStateNotLost(config.state_save_location); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("StateSaveLocation: ", s.message()));
  }
  absl::StatusOr<std::optional<JoinSetup>> join = SetUpJoin(config);
  if (!join.ok()) return join.status();
  setup.join = *std::move(join);
  setup.scriptd_socket = config.scriptd_socket.empty()
                             ? config.state_save_location + "/scriptd.sock"
                             : config.scriptd_socket;
  return setup;
}

std::set<uid_t> PrivilegedUids(const SkiffConfig& config, uid_t slurm_user_uid,
                               spdlog::logger& logger) {
  std::set<uid_t> privileged = {slurm_user_uid};
  for (const std::string& name : config.operators) {
    if (std::optional<uid_t> uid = UidOf(name)) {
      privileged.insert(*uid);
    } else {
      logger.warn("SkiffOperators: no such user '{}'", name);
    }
  }
  return privileged;
}

TokenSettings TokenSettingsFrom(const SkiffConfig& config, std::optional<std::string> jwt_key,
                                spdlog::logger& logger) {
  TokenSettings settings;
  settings.max_lifespan = config.max_token_lifespan;
  settings.disable_creation = config.disable_token_creation;
  if (jwt_key) {
    settings.enabled = true;
    settings.key = *std::move(jwt_key);
  } else if (config.auth_jwt) {
    logger.error(
        "AuthAltTypes=auth/jwt: no jwt_key= set (AuthAltParameters=jwt_key=PATH); scontrol token "
        "is refused");
  }
  return settings;
}

}  // namespace skiff::ctld
