// A configless noded (`noded --conf-server HOST[:PORT][,HOST[:PORT]...]`, as
// Slurm's slurmd): its config comes from ctld (Ctld.GetConfigFiles) and lives
// in a cache directory, so that the node starts again while ctld is down. It
// is fetched from the first controller that serves: those --conf-server
// names, then those the last fetched skiff.conf names (SlurmctldHost), so
// that a node whose --conf-server names only the head finds the standby that
// serves while the head is down.
//
// PrepareConfig runs once in main before anything else; ConfigFollower is
// called on the agent's thread with the hash in each Register/Heartbeat answer
// and fetches again when ctld's files changed (`scontrol reconfigure`); noded
// then restarts in place to apply them (main.cc).
#ifndef SKIFF_NODED_CONFIGLESS_NODE_H_
#define SKIFF_NODED_CONFIGLESS_NODE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "common/config/configless.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

struct ConfiglessStart {
  std::string conf_path;  // skiff.conf in the cache directory
  std::string hash;       // of the files there
  std::string served_by;  // "host:port" the files came from; "" when started from the cache
  std::string note;       // for the log: fetched, or started from the cache and why
};

// The controllers the skiff.conf in `cache_dir` names (SkiffConfig::CtldTargets),
// empty when the cache holds none or it does not load.
std::vector<std::string> CachedControllerTargets(const std::string& cache_dir);

// Fetches the files into `cache_dir` from the first controller that serves:
// each of `servers` (--conf-server's, "host:port"), then each the cached
// skiff.conf names (FetchConfigFromControllers), and returns where skiff.conf
// is. When none serves (or the serving one refuses) and the cache holds a
// copy, starts from that copy; with neither, the error names the servers and
// the cache. REQUIRES: `servers` not empty.
absl::StatusOr<ConfiglessStart> PrepareConfiglessConfig(const std::vector<std::string>& servers,
                                                        const std::string& cache_dir,
                                                        Authenticator& auth, int timeout_seconds);

// Fetches again when ctld announces another hash. Not thread-safe: one caller
// (the agent's thread). `auth` and `logger` must outlive it.
class ConfigFollower {
 public:
  // `targets`: the controllers to fetch from, tried in turn until one serves
  // (main: the one that served at start, --conf-server's, then those the
  // fetched skiff.conf names). REQUIRES: not empty.
  ConfigFollower(std::vector<std::string> targets, std::string cache_dir, std::string hash,
                 Authenticator& auth, spdlog::logger& logger)
      : targets_(std::move(targets)),
        cache_dir_(std::move(cache_dir)),
        hash_(std::move(hash)),
        auth_(auth),
        logger_(logger) {}

  // `announced`: ctld's hash (empty: ctld does not serve configs; ignored).
  // A failed fetch is logged and tried again on the next announcement.
  void OnAnnouncedHash(const std::string& announced);
  const std::string& hash() const { return hash_; }
  // Called (on the agent's thread) once new files are in the cache.
  void SetChangedListener(std::function<void()> listener) { changed_ = std::move(listener); }

 private:
  const std::vector<std::string> targets_;
  const std::string cache_dir_;
  std::string hash_;
  Authenticator& auth_;
  spdlog::logger& logger_;
  std::function<void()> changed_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONFIGLESS_NODE_H_
