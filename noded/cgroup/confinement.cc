#include "noded/cgroup/confinement.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace skiff::noded {
namespace {

absl::StatusOr<std::vector<std::vector<DeviceNumber>>> GpuDevices(
    const std::vector<NodeGres>& gres) {
  std::vector<std::vector<DeviceNumber>> devices;
  for (const NodeGres& g : gres) {
    if (g.name != "gpu") continue;
    for (const GresUnit& unit : g.units) {
      devices.emplace_back();
      for (const std::string& file : unit.files) {
        struct stat st;
        if (stat(file.c_str(), &st) != 0) {
          return absl::FailedPreconditionError(absl::StrCat(
              "ConstrainDevices=yes: cannot stat gres.conf File=", file, ": ", strerror(errno)));
        }
        if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
          return absl::FailedPreconditionError(
              absl::StrCat("ConstrainDevices=yes but gres.conf File=", file,
                           " is not a device file, so it cannot be denied to jobs"));
        }
        devices.back().push_back(
            {S_ISCHR(st.st_mode) ? 'c' : 'b', major(st.st_rdev), minor(st.st_rdev)});
      }
    }
  }
  return devices;
}

// "ConstrainCores,ConstrainRAMSpace=yes": the constraints asked for, "" for none.
std::string AskedConstraints(const CgroupSettings& s) {
  std::vector<std::string> asked;
  if (s.constrain_cores) asked.push_back("ConstrainCores");
  if (s.constrain_ram) asked.push_back("ConstrainRAMSpace");
  if (s.constrain_swap) asked.push_back("ConstrainSwapSpace");
  if (s.constrain_devices) asked.push_back("ConstrainDevices");
  return asked.empty() ? "" : absl::StrCat(absl::StrJoin(asked, ","), "=yes");
}

}  // namespace

absl::StatusOr<Confinement> SetUpConfinement(const SkiffConfig& config,
                                             const std::optional<CgroupConfig>& cgroup_conf,
                                             const NodeConfig& node,
                                             const std::vector<NodeGres>& gres) {
  Confinement c;
  c.settings = CgroupSettingsFromConfig(config, cgroup_conf);
  c.node_cpus = node.cpus;
  c.settings.node_real_memory_mb = node.real_memory_mb;
  if (!c.settings.enabled) {
    c.log_line = absl::StrCat("cgroups not used: ", c.settings.disabled_why);
    return c;
  }
  const std::string fallback = "; jobs are tracked by process group (no limits, no cgroup kill)";
  // Confinement asked for and not to be had: the node drains (the caller
  // registers it so) rather than run jobs unconfined.
  const std::string asked = AskedConstraints(c.settings);
  auto unavailable = [&](absl::string_view why) {
    c.log_line = absl::StrCat("cgroups unavailable: ", why, fallback);
    if (!asked.empty()) {
      c.drain_reason = absl::StrCat("cgroups unavailable (", asked, "): ", why);
      absl::StrAppend(&c.log_line, "; cgroup.conf asks for ", asked,
                      ", so this node registers drained (Reason=", c.drain_reason,
                      "): make the hierarchy usable, restart noded, then scontrol update "
                      "NodeName=",
                      node.name, " State=RESUME");
    }
    return c;
  };
  absl::StatusOr<CgroupVersion> version =
      DetectCgroupVersion(c.settings.mountpoint, c.settings.plugin);
  if (!version.ok()) return unavailable(version.status().message());
  const std::vector<std::string> controllers =
      NeededControllers(*version, c.settings.mountpoint, c.settings);
  std::unique_ptr<Cgroups> cgroups = MakeCgroups(*version, c.settings.mountpoint, controllers);
  const std::string node_rel = NodeCgroupRelPath(node.name);
  if (absl::Status s = cgroups->PrepareNode(node_rel); !s.ok()) {
    if (c.settings.constrain_devices && *version == CgroupVersion::kV2) return s;
    return unavailable(s.message());
  }
  if (c.settings.constrain_devices) {
    absl::StatusOr<std::vector<std::vector<DeviceNumber>>> devices = GpuDevices(gres);
    if (!devices.ok()) return devices.status();
    c.gpu_devices = *devices;
  }
  if (c.settings.constrain_cores) {
    c.host_cpus = cgroups->NodeCpus(node_rel);
    if (c.host_cpus.empty()) {
      return unavailable(absl::StrCat("cannot read the cpuset of ", node_rel));
    }
  }
  c.log_line = absl::StrCat(
      "cgroups: ", *version == CgroupVersion::kV1 ? "v1" : "v2", " at ", c.settings.mountpoint,
      ", jobs under ", node_rel, "/job_<id>, controllers ", absl::StrJoin(controllers, ","),
      "; constraining", c.settings.constrain_cores ? " cores" : "",
      c.settings.constrain_ram ? " memory" : "", c.settings.constrain_swap ? " swap" : "",
      c.settings.constrain_devices ? " devices" : "",
      !(c.settings.constrain_cores || c.settings.constrain_ram || c.settings.constrain_devices)
          ? " nothing (tracking only)"
          : "",
      c.settings.constrain_cores && node.cpus > static_cast<int>(c.host_cpus.size())
          ? absl::StrCat("; CPUs=", node.cpus, " exceeds the ", c.host_cpus.size(),
                         " real CPUs, logical CPU ids wrap around them")
          : "");
  c.cgroups = std::move(cgroups);
  return c;
}

}  // namespace skiff::noded
