// The controller: all cluster state ctld holds, behind one mutex.
//
// Concurrency model: one absl::Mutex (mu_) guards every piece of state here. gRPC
// handler threads and the housekeeping thread take it only to read a snapshot or
// apply a change to the pure core (NodeTable); logging, RPCs and (later) SQLite
// writes happen after it is released, from the list of changes the core returns.
// There is no other lock in ctld's state, so there is no lock order to keep.
#ifndef SKIFF_CTLD_CONTROLLER_H_
#define SKIFF_CTLD_CONTROLLER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/config/config.h"
#include "ctld/core/node_table.h"
#include "spdlog/spdlog.h"

namespace skiff {

class Controller {
 public:
  // `clock` and `logger` must outlive the controller.
  Controller(SkiffConfig config, const Clock& clock, spdlog::logger& logger);

  const SkiffConfig& config() const { return config_; }  // immutable after start
  int64_t start_time() const { return start_time_; }

  // A node daemon registered; returns the heartbeat interval it should use.
  absl::StatusOr<int64_t> RegisterNode(const NodeRegistration& registration);

  // False tells the node daemon to register again.
  bool Heartbeat(const std::string& node_name);

  // Called every few seconds by the housekeeping thread.
  void CheckNodeTimeouts();

  // Copies of the current state, in configuration order. Empty `names` = all.
  std::vector<Node> SnapshotNodes(const std::vector<std::string>& names);
  std::vector<PartitionConfig> SnapshotPartitions(const std::vector<std::string>& names);

 private:
  void LogChanges(const std::vector<NodeChange>& changes);

  const SkiffConfig config_;
  const Clock& clock_;
  spdlog::logger& logger_;
  const int64_t start_time_;
  const bool config_overrides_;  // SlurmdParameters=config_overrides

  absl::Mutex mu_;
  NodeTable nodes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff

#endif  // SKIFF_CTLD_CONTROLLER_H_
