#include "common/node_topology.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace skiff {

NodeTopology NodeLayout(int cpus, int sockets, int cores_per_socket, int threads_per_core) {
  NodeTopology layout;
  layout.sockets = std::max(1, sockets);
  layout.threads_per_core = std::max(1, threads_per_core);
  layout.cores_per_socket = cores_per_socket > 0
                                ? cores_per_socket
                                : std::max(1, cpus / (layout.sockets * layout.threads_per_core));
  return layout;
}

bool TopologyHolds(const NodeTopology& node, const NodeTopology& wanted) {
  return wanted.sockets <= node.sockets && wanted.cores_per_socket <= node.cores_per_socket &&
         wanted.threads_per_core <= node.threads_per_core;
}

std::string TopologyField(int32_t value) { return value > 0 ? absl::StrCat(value) : "*"; }

std::string FormatSocketsCoresThreads(const NodeTopology& wanted) {
  return absl::StrCat(TopologyField(wanted.sockets), ":", TopologyField(wanted.cores_per_socket),
                      ":", TopologyField(wanted.threads_per_core));
}

}  // namespace skiff
