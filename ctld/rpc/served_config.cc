#include "ctld/rpc/served_config.h"

#include <utility>

#include "absl/status/statusor.h"

namespace skiff::ctld {

std::vector<std::string> ServedConfig::Set(const LoadedConfig& loaded) {
  std::vector<std::string> skipped;
  auto files = std::make_shared<const ConfigFileSet>(ServableConfigFiles(loaded, &skipped));
  std::lock_guard<std::mutex> lock(mu_);
  files_ = std::move(files);
  return skipped;
}

absl::Status ServedConfig::Reload() {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(conf_path_);
  if (!loaded.ok()) return loaded.status();
  Set(*loaded);
  return absl::OkStatus();
}

std::shared_ptr<const ConfigFileSet> ServedConfig::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return files_;
}

std::string ServedConfig::Hash() const {
  std::shared_ptr<const ConfigFileSet> files = Get();
  return files ? files->hash : std::string();
}

}  // namespace skiff::ctld
