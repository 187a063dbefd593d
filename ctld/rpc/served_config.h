// What a configless ctld serves (SlurmctldParameters=enable_configless): the
// config files it loaded at start and at each successful reconfigure
// (configless.h), and their hash, which every registration and heartbeat
// answer carries. Thread-safe: Get() from any gRPC thread, Set()/Reload() from
// whoever reconfigured.
#ifndef SKIFF_CTLD_RPC_SERVED_CONFIG_H_
#define SKIFF_CTLD_RPC_SERVED_CONFIG_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config_loader.h"
#include "common/config/configless.h"

namespace skiff::ctld {

class ServedConfig {
 public:
  // Reload() reads `conf_path` again.
  explicit ServedConfig(std::string conf_path) : conf_path_(std::move(conf_path)) {}

  // Serves the files `loaded` read; returns the files left out (outside the
  // config directory) for the caller to log.
  std::vector<std::string> Set(const LoadedConfig& loaded);
  // After a successful reconfigure: loads the directory again and serves it.
  // On error the previous files stay served.
  absl::Status Reload();
  // Never null after the first Set().
  std::shared_ptr<const ConfigFileSet> Get() const;
  std::string Hash() const;

 private:
  const std::string conf_path_;
  mutable std::mutex mu_;
  std::shared_ptr<const ConfigFileSet> files_;  // guarded by mu_
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_SERVED_CONFIG_H_
