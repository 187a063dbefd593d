// The pure core of job confinement through cgroups: which settings apply
// (skiff.conf's ProctrackType/TaskPlugin with cgroup.conf), where a job's cgroup
// lives, its limits, which CPUs it gets and which devices it is denied. No I/O:
// the backends in cgroup_fs.h write what these functions compute.
//
// Thread-safety: free functions over values; safe from any thread.
#ifndef SKIFF_NODED_CGROUP_CGROUP_PLAN_H_
#define SKIFF_NODED_CGROUP_CGROUP_PLAN_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "common/cpu_list.h"

namespace skiff::noded {

// What noded does with cgroups, from its configuration.
struct CgroupSettings {
  bool enabled = false;      // ProctrackType=proctrack/cgroup (and not CgroupPlugin=disabled)
  std::string disabled_why;  // when !enabled: the one line noded logs at start
  std::string plugin = "autodetect";  // CgroupPlugin: autodetect, cgroup/v1, cgroup/v2
  std::string mountpoint = "/sys/fs/cgroup";
  // The constraints, only with TaskPlugin naming task/cgroup (as in Slurm).
  bool constrain_cores = false;
  bool constrain_ram = false;
  bool constrain_swap = false;
  bool constrain_devices = false;
  double allowed_ram_percent = 100;  // of the job's --mem
  double allowed_swap_percent = 0;   // of the job's --mem, on top of the RAM limit
  double max_ram_percent = 100;      // MaxRAMPercent, of the node's RealMemory
  double max_swap_percent = 100;     // MaxSwapPercent, of the node's RealMemory
  uint64_t min_ram_mb = 30;          // MinRAMSpace: no limit below this
  uint64_t node_real_memory_mb = 0;  // the node's RealMemory (0: the Max*Percent unused)
  int64_t memory_swappiness = -1;    // v1 only; -1 = leave the kernel's
};

// Settings from skiff.conf and cgroup.conf (nullopt: no cgroup.conf, Slurm's
// defaults). Never fails: a configuration that does not ask for cgroups gives
// enabled = false with the reason.
CgroupSettings CgroupSettingsFromConfig(const SkiffConfig& config,
                                        const std::optional<CgroupConfig>& cgroup_conf);

// "skiff/<node>/job_<id>", relative to a controller's (v1) or the unified (v2)
// mount. The node name is part of it because tests run several noded on one host.
std::string NodeCgroupRelPath(const std::string& node_name);
std::string JobCgroupRelPath(const std::string& node_name, uint64_t job_id);

// The memory limit in bytes for a job allocated `memory_mb` (0: none asked, no
// limit: returns 0), as Slurm computes it: AllowedRAMSpace percent of it, at
// most MaxRAMPercent of the node's RealMemory, at least MinRAMSpace.
uint64_t RamLimitBytes(const CgroupSettings& settings, uint64_t memory_mb);
// RAM + swap limit (v1 memory.memsw.limit_in_bytes) in bytes: the RAM limit plus
// AllowedSwapSpace percent of the allocation, that part at most MaxSwapPercent
// of the node's RealMemory. 0 when RamLimitBytes is 0.
uint64_t RamSwapLimitBytes(const CgroupSettings& settings, uint64_t memory_mb);

// The host CPUs behind logical ids: host_cpus[id % host_cpus.size()], sorted and
// without repeats. A node may be configured with more CPUs than its host has
// (tests run 4 nodes of 2 CPUs on a 2-core machine): logical ids then wrap
// around the real cores, and a job's cpuset may be smaller than its CPU count.
std::vector<int> MapToHostCpus(const std::vector<int>& ids, const std::vector<int>& host_cpus);

// A character or block device, as the devices controller names it.
struct DeviceNumber {
  char type = 'c';  // 'c' or 'b'
  unsigned major = 0;
  unsigned minor = 0;
  bool operator==(const DeviceNumber& o) const {
    return type == o.type && major == o.major && minor == o.minor;
  }
  bool operator<(const DeviceNumber& o) const {
    return type != o.type ? type < o.type : major != o.major ? major < o.major : minor < o.minor;
  }
};
// "c 195:0 rwm": a line for devices.deny / devices.allow (v1).
std::string DeviceRule(const DeviceNumber& device);

// The devices a job must not open: those of the node's GPUs (`gpus`, by
// index, each GPU's devices: one, or a MIG device's GPU and capability
// devices) whose index is not in `allowed`. A device shared with an allowed
// GPU (a MIG device's GPU) stays allowed. Sorted, without repeats.
std::vector<DeviceNumber> DeniedDevices(const std::vector<std::vector<DeviceNumber>>& gpus,
                                        const std::vector<int32_t>& allowed);

// Slurm's line in the job's error output after the kernel killed some of its
// processes for memory (task_cgroup_memory.c, Slurm 23.02 and later):
// "slurmstepd: error: Detected 1 oom_kill event in StepId=42.batch. Some of the
// step tasks have been OOM Killed.\n"
std::string OomMessage(uint64_t job_id, uint64_t oom_kills);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CGROUP_CGROUP_PLAN_H_
