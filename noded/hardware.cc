#include "noded/hardware.h"

#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace skiff::noded {

Hardware DetectHardware() {
  Hardware hw;
  hw.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  struct sysinfo info;
  if (sysinfo(&info) == 0) {
    hw.real_memory_mb = static_cast<uint64_t>(info.totalram) * info.mem_unit / (1024 * 1024);
    hw.boot_time = static_cast<int64_t>(time(nullptr)) - info.uptime;
  }
  struct utsname name;
  if (uname(&name) == 0) {
    hw.os = absl::StrCat(name.sysname, " ", name.release, " ", name.version);
    hw.arch = name.machine;
  }
  return hw;
}

absl::StatusOr<std::vector<NodeGres>> CollectNodeGres(const NodeConfig& node,
                                                      const GresConfig& gres_conf,
                                                      const std::vector<DetectedGpu>* detected) {
  std::vector<NodeGres> out;
  const bool gpus_detected = detected != nullptr && !detected->empty();
  if (gpus_detected) {
    // The configured type when the device's name contains it ("a100" in
    // "nvidia_a100-sxm4-40gb"), untyped when Gres= is, else NVML's own.
    std::vector<std::string> configured_types;
    for (const GresCount& g : node.gres) {
      if (g.name == "gpu") configured_types.push_back(g.type);
    }
    for (const DetectedGpu& gpu : *detected) {
      const std::string detected_type = NvmlGpuType(gpu.name);
      std::string type = detected_type;
      for (const std::string& t : configured_types) {
        if (t.empty() || detected_type.find(absl::AsciiStrToLower(t)) != std::string::npos) {
          type = t;
          break;
        }
      }
      NodeGres* group = nullptr;
      for (NodeGres& g : out) {
        if (g.name == "gpu" && g.type == type) group = &g;
      }
      if (group == nullptr) {
        out.push_back(NodeGres{"gpu", type, 0, {}});
        group = &out.back();
      }
      ++group->count;
      group->files.push_back(absl::StrCat("/dev/nvidia", gpu.minor));
    }
  }
  for (const GresDevice& device : gres_conf.ForNode(node.name)) {
    if (gpus_detected && device.name == "gpu") continue;  // NVML's word wins
    for (const std::string& file : device.files) {
      struct stat st;
      if (stat(file.c_str(), &st) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("gres.conf: Name=", device.name, " File=", file,
                         " does not exist on NodeName=", node.name));
      }
    }
    NodeGres* group = nullptr;
    for (NodeGres& g : out) {
      if (g.name == device.name && g.type == device.type) group = &g;
    }
    if (group == nullptr) {
      out.push_back(NodeGres{device.name, device.type, 0, {}});
      group = &out.back();
    }
    group->count += device.count;
    group->files.insert(group->files.end(), device.files.begin(), device.files.end());
  }
  for (const GresCount& configured : node.gres) {
    bool described = false;
    for (const NodeGres& g : out) {
      described |=
          g.name == configured.name && (configured.type.empty() || g.type == configured.type);
    }
    if (!described) out.push_back(NodeGres{configured.name, configured.type, configured.count, {}});
  }
  return out;
}

NodeLoad NodeLoadFrom(unsigned long load_5min, unsigned long free_ram, unsigned int mem_unit) {
  NodeLoad load;
  load.cpu_load = static_cast<uint32_t>(static_cast<double>(load_5min) /
                                        static_cast<double>(1 << SI_LOAD_SHIFT) * 100.0);
  load.free_memory_mb = static_cast<uint64_t>(free_ram) * std::max(1u, mem_unit) / (1024 * 1024);
  return load;
}

std::optional<NodeLoad> ReadNodeLoad() {
  struct sysinfo info;
  if (sysinfo(&info) != 0) return std::nullopt;
  return NodeLoadFrom(info.loads[1], info.freeram, info.mem_unit);
}

}  // namespace skiff::noded
