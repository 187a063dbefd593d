// What ctld checks and reads before it starts anything: the configuration,
// the state directory, the JWT key, the join port's certificate and key,
// SlurmUser. Every check here fails ctld's start with one message naming the
// key or file at fault, before scriptd is forked or a thread runs.
//
// Thread: ctld's main thread, while ctld is single-threaded.
#ifndef SKIFF_CTLD_CTLD_SETUP_H_
#define SKIFF_CTLD_CTLD_SETUP_H_

#include <spdlog/spdlog.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "common/config/config_loader.h"
#include "common/join/tls.h"
#include "ctld/rpc/token_issuer.h"

namespace skiff::ctld {

// SlurmctldParameters=join_port=N[,join_munge_key=PATH] (docs/decisions.md,
// "Init and join"): the port, the certificate (made on first start) and the
// key handed to joining nodes.
struct JoinSetup {
  int port = 0;
  TlsIdentity tls;
  std::string munge_key;
  std::string munge_key_path;  // where it was read: `skiff key rotate` replaces it there
};

struct CtldSetup {
  LoadedConfig loaded;
  spdlog::level::level_enum log_level = spdlog::level::info;  // SlurmctldDebug less -v's
  std::optional<std::string> jwt_key;  // AuthAltParameters=jwt_key's bytes, when set
  std::optional<JoinSetup> join;       // nullopt when join is off
  std::string scriptd_socket;
  uid_t slurm_user_uid = 0;
  std::string cleared_state;  // where -c moved the old database ("" if there was none)
  // Which SlurmctldHost this controller is: where it serves, and its name in
  // etcd's election (issue 53).
  ControllerHost self;
};

struct CtldFlags {
  std::string conf_path;     // resolved (ResolveConfPath)
  int verbose = 0;           // -v count
  bool clear_state = false;  // -c
  // --host NAME: which SlurmctldHost line this controller is; by default the
  // one named after this machine's short host name, else the first.
  std::string host;
};

// The SlurmctldHost entry this controller is (CtldFlags::host).
// InvalidArgument, listing the controllers, for a name none of them has.
absl::StatusOr<ControllerHost> ThisController(const SkiffConfig& config, const std::string& flag,
                                              const std::string& short_host_name);

// Loads and checks everything above; `now` names -c's aside copy.
absl::StatusOr<CtldSetup> SetUpCtld(const CtldFlags& flags, int64_t now);

// AuthAltParameters=jwt_key=PATH: the key's bytes (Slurm reads the whole
// file), from a file CheckJwtKeyFile accepts: whoever can read the key can
// make anyone's token, root's too. The checks are on what was opened
// (O_NONBLOCK: a FIFO cannot hold ctld's start).
absl::StatusOr<std::string> ReadJwtKey(const std::string& path, uid_t slurm_user);

// Root, SlurmUser and SkiffOperators' uids: who always finds a connection and
// may act on anything. An operator without a uid here is logged and skipped.
std::set<uid_t> PrivilegedUids(const SkiffConfig& config, uid_t slurm_user_uid,
                               spdlog::logger& logger);

// scontrol token's settings; AuthAltTypes=auth/jwt without a key is logged
// (tokens are then refused).
TokenSettings TokenSettingsFrom(const SkiffConfig& config, std::optional<std::string> jwt_key,
                                spdlog::logger& logger);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CTLD_SETUP_H_
