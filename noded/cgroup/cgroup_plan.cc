#include "noded/cgroup/cgroup_plan.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace skiff::noded {

CgroupSettings CgroupSettingsFromConfig(const SkiffConfig& config,
                                        const std::optional<CgroupConfig>& cgroup_conf) {
  CgroupSettings s;
  const CgroupConfig conf = cgroup_conf.value_or(CgroupConfig{});
  s.plugin = conf.plugin;
  s.mountpoint = conf.mountpoint;
  if (config.proctrack_type != "proctrack/cgroup") {
    s.disabled_why = absl::StrCat("ProctrackType=", config.proctrack_type,
                                  " (not proctrack/cgroup): jobs are tracked by process group");
    return s;
  }
  if (conf.plugin == "disabled") {
    s.disabled_why = "CgroupPlugin=disabled in cgroup.conf: jobs are tracked by process group";
    return s;
  }
  s.enabled = true;
  bool task_cgroup = false;
  for (absl::string_view plugin : absl::StrSplit(config.task_plugin, ',')) {
    if (absl::StripAsciiWhitespace(plugin) == "task/cgroup") task_cgroup = true;
  }
  if (task_cgroup) {
    s.constrain_cores = conf.constrain_cores;
    s.constrain_ram = conf.constrain_ram_space;
    s.constrain_swap = conf.constrain_swap_space;
    s.constrain_devices = conf.constrain_devices;
  }
  s.allowed_ram_percent = conf.allowed_ram_space;
  s.allowed_swap_percent = conf.allowed_swap_space;
  s.max_ram_percent = conf.max_ram_percent;
  s.max_swap_percent = conf.max_swap_percent;
  s.min_ram_mb = conf.min_ram_space_mb;
  s.memory_swappiness = conf.memory_swappiness;
  return s;
}

std::string NodeCgroupRelPath(const std::string& node_name) {
  return absl::StrCat("skiff/", node_name);
}

std::string JobCgroupRelPath(const std::string& node_name, uint64_t job_id) {
  return absl::StrCat(NodeCgroupRelPath(node_name), "/job_", job_id);
}

namespace {
constexpr uint64_t kMiB = 1024 * 1024;

uint64_t PercentOfMiB(uint64_t memory_mb, double percent) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(memory_mb) * kMiB * percent / 100));
}
}  // namespace

uint64_t RamLimitBytes(const CgroupSettings& settings, uint64_t memory_mb) {
  if (memory_mb == 0) return 0;
  uint64_t limit = PercentOfMiB(memory_mb, settings.allowed_ram_percent);
  if (settings.node_real_memory_mb != 0) {
    limit = std::min(limit, PercentOfMiB(settings.node_real_memory_mb, settings.max_ram_percent));
  }
  return std::max(limit, settings.min_ram_mb * kMiB);
}

uint64_t RamSwapLimitBytes(const CgroupSettings& settings, uint64_t memory_mb) {
  const uint64_t ram = RamLimitBytes(settings, memory_mb);
  if (ram == 0) return 0;
  uint64_t swap = PercentOfMiB(memory_mb, settings.allowed_swap_percent);
  if (settings.node_real_memory_mb != 0) {
    swap = std::min(swap, PercentOfMiB(settings.node_real_memory_mb, settings.max_swap_percent));
  }
  return ram + swap;
}

std::vector<int> MapToHostCpus(const std::vector<int>& ids, const std::vector<int>& host_cpus) {
  std::vector<int> out;
  if (host_cpus.empty()) return out;
  for (int id : ids) {
    if (id < 0) continue;
    out.push_back(host_cpus[static_cast<size_t>(id) % host_cpus.size()]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string DeviceRule(const DeviceNumber& device) {
  return absl::StrCat(std::string(1, device.type), " ", device.major, ":", device.minor, " rwm");
}

std::vector<DeviceNumber> DeniedDevices(const std::vector<std::vector<DeviceNumber>>& gpus,
                                        const std::vector<int32_t>& allowed) {
  std::set<DeviceNumber> allowed_devices;
  for (int32_t index : allowed) {
    if (index >= 0 && static_cast<size_t>(index) < gpus.size()) {
      const std::vector<DeviceNumber>& devices = gpus[static_cast<size_t>(index)];
      allowed_devices.insert(devices.begin(), devices.end());
    }
  }
  std::set<DeviceNumber> denied;
  for (const std::vector<DeviceNumber>& devices : gpus) {
    for (const DeviceNumber& device : devices) {
      if (allowed_devices.count(device) == 0) denied.insert(device);
    }
  }
  return std::vector<DeviceNumber>(denied.begin(), denied.end());
}

std::string OomMessage(uint64_t job_id, uint64_t oom_kills) {
  return absl::StrCat("slurmstepd: error: Detected ", oom_kills, " oom_kill event",
                      oom_kills == 1 ? "" : "s", " in StepId=", job_id,
                      ".batch. Some of the step tasks have been OOM Killed.\n");
}

}  // namespace skiff::noded
