#include "ctld/controller.h"

#include <algorithm>
#include <utility>

namespace skiff {

Controller::Controller(SkiffConfig config, const Clock& clock, spdlog::logger& logger)
    : config_(std::move(config)),
      clock_(clock),
      logger_(logger),
      start_time_(clock.Now()),
      config_overrides_(config_.slurmd_parameters.count("config_overrides") > 0),
      nodes_(config_) {}

absl::StatusOr<int64_t> Controller::RegisterNode(const NodeRegistration& registration) {
  std::vector<NodeChange> changes;
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    status = nodes_.Register(registration, clock_.Now(), config_overrides_, &changes);
  }
  if (!status.ok()) {
    logger_.warn("registration refused: {}", std::string(status.message()));
    return status;
  }
  logger_.info("NodeName={} registered: CPUs={} RealMemory={} port {}", registration.node_name,
               registration.cpus, registration.real_memory_mb, registration.port);
  LogChanges(changes);
  return config_.heartbeat_interval;
}

bool Controller::Heartbeat(const std::string& node_name) {
  std::vector<NodeChange> changes;
  bool registered;
  {
    absl::MutexLock lock(&mu_);
    registered = nodes_.Heartbeat(node_name, clock_.Now(), &changes);
  }
  LogChanges(changes);
  return registered;
}

void Controller::CheckNodeTimeouts() {
  std::vector<NodeChange> changes;
  {
    absl::MutexLock lock(&mu_);
    nodes_.CheckTimeouts(clock_.Now(), config_.heartbeat_interval, config_.slurmd_timeout,
                         &changes);
  }
  LogChanges(changes);
}

std::vector<Node> Controller::SnapshotNodes(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  if (names.empty()) return nodes_.nodes();
  std::vector<Node> out;
  for (const Node& node : nodes_.nodes()) {
    if (std::find(names.begin(), names.end(), node.config.name) != names.end()) {
      out.push_back(node);
    }
  }
  return out;
}

std::vector<PartitionConfig> Controller::SnapshotPartitions(const std::vector<std::string>& names) {
  // Partitions are configuration only for now: no lock needed to read them.
  std::vector<PartitionConfig> out;
  for (const PartitionConfig& partition : config_.partitions) {
    if (names.empty() || std::find(names.begin(), names.end(), partition.name) != names.end()) {
      out.push_back(partition);
    }
  }
  return out;
}

void Controller::LogChanges(const std::vector<NodeChange>& changes) {
  for (const NodeChange& change : changes) {
    logger_.info("NodeName={} {}", change.node_name, change.what);
  }
}

}  // namespace skiff
