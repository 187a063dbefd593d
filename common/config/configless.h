// Configless nodes and login hosts (Slurm's SlurmctldParameters=enable_configless,
// `slurmd --conf-server`, SLURM_CONF_SERVER and DNS SRV _slurmctld._tcp).
//
// ctld serves the files it loaded (skiff.conf, its Includes, gres.conf,
// cgroup.conf, burst_buffer.conf) as ConfigFiles: names relative to its config
// directory, never anything outside it, so no key travels (munge's key is not a
// config file). A node keeps the last copy in a cache directory (WriteConfigCache)
// and starts from it when ctld is down; a command loads the fetched files from
// memory (LoadConfigFromMemory).
//
// Pure functions apart from WriteConfigCache/ReadConfigCache (disk) and
// LookupCtldSrv (DNS). Thread-compatible.
#ifndef SKIFF_COMMON_CONFIG_CONFIGLESS_H_
#define SKIFF_COMMON_CONFIG_CONFIGLESS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config/config_loader.h"

namespace skiff {

// The DNS SRV name commands look up when nothing else says where ctld is.
inline constexpr char kCtldSrvName[] = "_skiffctld._tcp";
// Where `noded --conf-server` keeps its copy unless --conf-cache says otherwise
// (%n is the node name).
inline constexpr char kDefaultConfCache[] = "/var/spool/skiff/conf-cache";

struct ConfigFile {
  std::string name;  // relative to the config directory: "skiff.conf", "nodes/gpu.conf"
  std::string text;
};

struct ConfigFileSet {
  std::vector<ConfigFile> files;  // sorted by name
  std::string hash;               // ConfigHash(files)
};

// A stable digest of names and texts (FNV-1a 64, 16 hex digits), independent of
// order. ctld sends it with every registration and heartbeat answer; a node whose
// copy has another refetches.
std::string ConfigHash(const std::vector<ConfigFile>& files);

// The files of `loaded` that lie in its config directory, as names relative to
// it, sorted, with their hash. A file read from outside the directory (an
// absolute Include elsewhere) is left out and named in `skipped` when given:
// the node reads that path on its own disk.
ConfigFileSet ServableConfigFiles(const LoadedConfig& loaded,
                                  std::vector<std::string>* skipped = nullptr);

// A name that may be written under a cache directory: relative, not empty, no
// "." or ".." component, no NUL, no leading dot in the last component (the
// cache's own files start with a dot).
absl::Status CheckConfigFileName(const std::string& name);

// "host", "host:port", "[v6addr]:port" -> "host:port" (port `default_port`
// when absent). InvalidArgument names what is wrong.
absl::StatusOr<std::string> ParseConfServer(const std::string& server, int default_port);

// Slurm's `--conf-server host1[:port1],host2[:port2]` (and SLURM_CONF_SERVER):
// each entry as ParseConfServer reads it, white space around it ignored, in
// the order given (the first is the primary), a repeated one dropped. One
// entry's errors are ParseConfServer's; in a list, InvalidArgument names the
// whole value and the entry ("entry 2 is empty").
absl::StatusOr<std::vector<std::string>> ParseConfServers(const std::string& servers,
                                                          int default_port);

// `first`, then each of `more` not in it yet, empty entries left out: where a
// configless node looks for its files (its --conf-server list, then the
// controllers its fetched skiff.conf names: CtldTargets).
std::vector<std::string> MergeControllerTargets(const std::vector<std::string>& first,
                                                const std::vector<std::string>& more);

// One DNS SRV record.
struct SrvRecord {
  uint16_t priority = 0;
  uint16_t weight = 0;
  uint16_t port = 0;
  std::string target;  // without the trailing dot
};

// The SRV records in the answer section of a DNS reply (res_query's buffer).
// InvalidArgument when the message does not parse.
absl::StatusOr<std::vector<SrvRecord>> ParseSrvAnswer(const unsigned char* message, int length);

// "target:port" of each usable record, in the order to try them: the lowest
// priority first (as Slurm sorts _slurmctld._tcp's records), then the highest
// weight, then as listed; a repeated one once. NotFound when there is none.
absl::StatusOr<std::vector<std::string>> SrvTargetsInOrder(const std::vector<SrvRecord>& records);

// res_query(kCtldSrvName, IN, SRV) through the resolver's search list, as
// Slurm's commands look up _slurmctld._tcp: every record's target, in
// SrvTargetsInOrder's order. NotFound when there is no record.
absl::StatusOr<std::vector<std::string>> LookupCtldSrv();

// Writes `set` into `dir` (created 0755 if missing): each file to a temporary
// name, fsynced, renamed over its own name, then the list of names and the hash
// (.manifest), last; files of the previous copy that are not in `set` are
// removed. A reader sees each file whole, old or new.
absl::Status WriteConfigCache(const std::string& dir, const ConfigFileSet& set);

// Reads back what WriteConfigCache wrote. NotFound when `dir` holds no cache.
absl::StatusOr<ConfigFileSet> ReadConfigCache(const std::string& dir);

}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_CONFIGLESS_H_
