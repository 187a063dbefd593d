// Reads a Skiff configuration directory from disk: the only config code that does I/O.
//
// The directory holds skiff.conf and, optionally, gres.conf, burst_buffer.conf and
// cgroup.conf.
// Its location comes from, in order: an explicit path, $SKIFF_CONF (the path of
// skiff.conf, as $SLURM_CONF is for slurm.conf), then /etc/skiff/skiff.conf.
#ifndef SKIFF_COMMON_CONFIG_CONFIG_LOADER_H_
#define SKIFF_COMMON_CONFIG_CONFIG_LOADER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"

namespace skiff {

inline constexpr char kDefaultConfPath[] = "/etc/skiff/skiff.conf";

struct LoadedConfig {
  std::string conf_path;  // absolute path of skiff.conf
  std::string conf_dir;   // its directory
  SkiffConfig skiff;
  GresConfig gres;                                // empty when gres.conf is absent
  std::optional<BurstBufferConfig> burst_buffer;  // set when burst_buffer.conf exists
  std::optional<CgroupConfig> cgroup;             // set when cgroup.conf exists
  std::optional<OciConfig> oci;                   // set when oci.conf exists
  // Every file's warnings, "<file>:<line>: <Key>: <what>", in the order skiff.conf,
  // gres.conf, burst_buffer.conf, cgroup.conf, oci.conf (the structs keep their own too). The
  // loader does not print them: each daemon logs them its own way.
  std::vector<std::string> warnings;
  // Every file read, in the order read (skiff.conf, its Includes, gres.conf, ...):
  // absolute path and text. What a configless ctld serves (configless.h).
  std::vector<std::pair<std::string, std::string>> files_read;
};

// Path of skiff.conf to use: `explicit_path` if not empty, else $SKIFF_CONF, else
// kDefaultConfPath.
std::string ResolveConfPath(const std::string& explicit_path);

// Reads and parses the directory. NotFound names the missing skiff.conf; parse
// errors come back as the parsers give them (file:line: Key: ...), with the file
// shown as its full path. Relative Include paths resolve against the including file.
// gres.conf is checked against skiff.conf (CheckGresAgainstSkiff).
absl::StatusOr<LoadedConfig> LoadConfig(const std::string& conf_path);

// As LoadConfig, from files held in memory instead of disk: `files` maps each
// file's absolute path to its text, and skiff.conf is `dir`/skiff.conf. A path
// not in `files` reads as missing. What the commands of a login host use with
// the files fetched from ctld.
absl::StatusOr<LoadedConfig> LoadConfigFromMemory(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

// Reads a whole file; NotFound / PermissionDenied name the path.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_CONFIG_LOADER_H_
