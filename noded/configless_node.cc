#include "noded/configless_node.h"

#include "absl/strings/str_cat.h"
#include "common/config/config_loader.h"
#include "common/rpc/config_fetch.h"

namespace skiff::noded {

std::vector<std::string> CachedControllerTargets(const std::string& cache_dir) {
  absl::StatusOr<LoadedConfig> cached = LoadConfig(absl::StrCat(cache_dir, "/skiff.conf"));
  if (!cached.ok()) return {};
  return cached->skiff.CtldTargets();
}

absl::StatusOr<ConfiglessStart> PrepareConfiglessConfig(const std::vector<std::string>& servers,
                                                        const std::string& cache_dir,
                                                        Authenticator& auth, int timeout_seconds) {
  ConfiglessStart start;
  start.conf_path = absl::StrCat(cache_dir, "/skiff.conf");
  absl::StatusOr<FetchedConfig> fetched = FetchConfigFromControllers(
      MergeControllerTargets(servers, CachedControllerTargets(cache_dir)), auth, timeout_seconds);
  if (fetched.ok()) {
    const ConfigFileSet& files = fetched->files;
    if (absl::Status s = WriteConfigCache(cache_dir, files); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--conf-cache: ", s.message()));
    }
    start.hash = files.hash;
    start.served_by = fetched->target;
    start.note = absl::StrCat("configless: fetched ", files.files.size(), " config file(s) from ",
                              fetched->target, " into ", cache_dir, " (hash ", files.hash, ")");
    return start;
  }
  absl::StatusOr<ConfigFileSet> cached = ReadConfigCache(cache_dir);
  if (!cached.ok()) {
    return absl::UnavailableError(
        absl::StrCat("configless: no configuration: ", fetched.status().message(),
                     ", and no cached copy to start from (", cached.status().message(), ")"));
  }
  start.hash = cached->hash;
  start.note = absl::StrCat("configless: ", fetched.status().message(),
                            "; starting from the cached copy in ", cache_dir, " (hash ",
                            cached->hash, "), fetched again once ctld answers");
  return start;
}

void ConfigFollower::OnAnnouncedHash(const std::string& announced) {
  if (announced.empty() || announced == hash_) return;
  absl::StatusOr<FetchedConfig> fetched = FetchConfigFromControllers(targets_, auth_, 10);
  if (!fetched.ok()) {
    logger_.warn("configless: ctld's configuration changed (hash {}) but fetching it failed: {}",
                 announced, std::string(fetched.status().message()));
    return;
  }
  if (absl::Status s = WriteConfigCache(cache_dir_, fetched->files); !s.ok()) {
    logger_.error("configless: cannot update the cache: {}", std::string(s.message()));
    return;
  }
  logger_.info("configless: fetched {} config file(s) from {} into {} (hash {}, was {})",
               fetched->files.files.size(), fetched->target, cache_dir_, fetched->files.hash,
               hash_);
  hash_ = fetched->files.hash;
  if (changed_) changed_();
}

}  // namespace skiff::noded
