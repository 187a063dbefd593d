// What noded decides at start about confining jobs: cgroups (which hierarchy,
// which controllers, the node's CPUs and GPU devices) or the fallback to
// process-group tracking, with the one line it logs about it. Used by main.cc
// only, once, before any thread starts.
#ifndef SKIFF_NODED_CGROUP_CONFINEMENT_H_
#define SKIFF_NODED_CGROUP_CONFINEMENT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "noded/cgroup/cgroup_fs.h"
#include "noded/cgroup/cgroup_plan.h"
#include "noded/hardware.h"

namespace skiff::noded {

struct Confinement {
  std::shared_ptr<Cgroups> cgroups;  // null: process-group tracking only
  CgroupSettings settings;
  int node_cpus = 0;           // CPUs= of the node
  std::vector<int> host_cpus;  // the node cgroup's cpuset (ConstrainCores)
  // By GPU index: its devices (a MIG device's are its GPU's and its two
  // capability devices), for ConstrainDevices.
  std::vector<std::vector<DeviceNumber>> gpu_devices;
  std::string log_line;  // what noded says at start: the hierarchy used, or why none
  // Non-empty when cgroup.conf asks for confinement (Constrain*=yes) that cannot
  // be had: the node registers with it and ctld drains the node, so that no job
  // runs here unconfined (Slurm's slurmd does not start when its task/cgroup
  // plugin fails). Its one line: "cgroups unavailable (ConstrainCores=yes): why".
  std::string drain_reason;
};

// Falls back (cgroups null, log_line naming why) when cgroups are not configured
// or the hierarchy is missing or not writable; when constraints were asked for,
// drain_reason says so too (tracking alone, ProctrackType=proctrack/cgroup
// without Constrain*, only falls back). Errors, which noded treats as
// fatal rather than running jobs unconfined: ConstrainDevices=yes where devices
// cannot be confined (cgroup v2 without an eBPF device program; a gres File=
// that is not a device node).
absl::StatusOr<Confinement> SetUpConfinement(const SkiffConfig& config,
                                             const std::optional<CgroupConfig>& cgroup_conf,
                                             const NodeConfig& node,
                                             const std::vector<NodeGres>& gres);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CGROUP_CONFINEMENT_H_
