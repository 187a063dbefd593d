#include "noded/hardware.h"

#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

namespace {

// Whether Gres='s `configured` type names a detected GPU of NVML type
// `detected` (its MIG profile `profile`, "" for a whole GPU): contained in it
// ("a100" in "nvidia_a100-sxm4-40gb"), or for a MIG device also the GPU part
// contained and the profile equal ("a100_3g.20gb").
bool TypeNames(const std::string& configured, const std::string& detected,
               const std::string& profile) {
  const std::string t = absl::AsciiStrToLower(configured);
  if (t.empty() || detected.find(t) != std::string::npos) return true;
  if (profile.empty() || !absl::EndsWith(t, absl::StrCat("_", profile))) return false;
  const std::string gpu_part = t.substr(0, t.size() - profile.size() - 1);
  return detected.find(gpu_part) != std::string::npos;
}

}  // namespace

absl::StatusOr<std::vector<NodeGres>> CollectNodeGres(const NodeConfig& node,
                                                      const GresConfig& gres_conf,
                                                      const std::vector<DetectedGpu>* detected,
                                                      const std::string& mig_minors_path) {
  std::vector<NodeGres> out;
  const bool gpus_detected = detected != nullptr && !detected->empty();
  if (gpus_detected) {
    // The configured type when it names the device, untyped when Gres= is,
    // else NVML's own.
    std::vector<std::string> configured_types;
    for (const GresCount& g : node.gres) {
      if (g.name == "gpu") configured_types.push_back(g.type);
    }
    // The longest configured type that names it: "a100_3g.20gb" before
    // "a100" for a MIG device of an A100 (Gres=gpu:a100:1,gpu:a100_3g.20gb:2).
    auto add = [&](const std::string& detected_type, const std::string& profile, GresUnit unit) {
      std::string type = detected_type;
      bool named = false;
      for (const std::string& t : configured_types) {
        if (TypeNames(t, detected_type, profile) && (!named || t.size() > type.size())) {
          type = t;
          named = true;
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
      group->units.push_back(std::move(unit));
    };
    std::optional<std::string> mig_minors;  // read at the first MIG device
    for (const DetectedGpu& gpu : *detected) {
      if (gpu.migs.empty()) {
        add(NvmlGpuType(gpu.name), "", GresUnit{{absl::StrCat("/dev/nvidia", gpu.minor)}, ""});
        continue;
      }
      if (!mig_minors) {
        std::ifstream in(mig_minors_path);
        if (!in) {
          return absl::FailedPreconditionError(absl::StrCat("GPU /dev/nvidia", gpu.minor,
                                                            " is in MIG mode but ", mig_minors_path,
                                                            " cannot be read: ", strerror(errno)));
        }
        mig_minors.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      for (const DetectedMig& mig : gpu.migs) {
        absl::StatusOr<MigCapMinors> caps =
            FindMigCapMinors(*mig_minors, gpu.minor, mig.gpu_instance, mig.compute_instance);
        if (!caps.ok()) {
          return absl::FailedPreconditionError(
              absl::StrCat("GPU /dev/nvidia", gpu.minor, " MIG device GI ", mig.gpu_instance,
                           " CI ", mig.compute_instance, ": ", caps.status().message()));
        }
        const std::string profile = MigProfile(mig.slices, mig.memory_mb);
        add(absl::StrCat(NvmlGpuType(gpu.name), "_", profile), profile,
            GresUnit{MigDeviceFiles(gpu.minor, *caps), mig.cuda_name});
      }
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
    if (device.multiple_files) {
      group->units.push_back(GresUnit{device.files, ""});
    } else {
      for (const std::string& file : device.files) group->units.push_back(GresUnit{{file}, ""});
    }
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

std::vector<std::string> UnitFiles(const NodeGres& gres) {
  std::vector<std::string> out;
  for (const GresUnit& unit : gres.units) out.push_back(absl::StrJoin(unit.files, ","));
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
