// What --container needs on a node, found once when noded starts: oci.conf
// (or Skiff's default runtime), whether the runtime it names is installed,
// and the device files a container's GPUs are bound from.
//
// I/O: looks at the file system (access). Called from noded's main.
#ifndef SKIFF_NODED_CONTAINER_CONTAINER_SUPPORT_H_
#define SKIFF_NODED_CONTAINER_CONTAINER_SUPPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/config/config_loader.h"

namespace skiff::noded {

struct ContainerSupport {
  std::string oci_conf;     // its path; "" = none: Skiff's default runtime
  bool config_json = true;  // bundles need a config.json
  // By GPU index: the device files a job given that GPU may open (a MIG
  // device's are its GPU's and its two capability devices).
  std::vector<std::vector<std::string>> gpu_files;
  std::vector<std::string> control_devices;  // NVIDIA's, those present
  // NVIDIA's user-space driver (libcuda, libnvidia-*, nvidia-smi) on this
  // node, bound into image containers that hold GPUs (image_bundle.h).
  std::vector<std::string> driver_files;
  std::string unavailable;   // why a container job cannot run here
  std::string drain_reason;  // set when oci.conf exists but cannot work
};

// The runtime a node uses without oci.conf (DefaultOciConfig): crun where the
// cgroups are v2 only and crun is installed, else runc when it is installed
// (crun refuses hybrid hosts; runc runs there), else crun, whose absence
// CheckContainerSupport reports.
OciConfig HostDefaultOciConfig();

// `gpu_files`: the node's GPU device files by index (gres.conf File=).
ContainerSupport CheckContainerSupport(const LoadedConfig& loaded,
                                       std::vector<std::vector<std::string>> gpu_files);

// skiff-container-user (image_bundle.h), installed beside the shepherd.
std::string ContainerUserHelperBeside(const std::string& shepherd_binary);

// The device files bound into a container holding GPUs `gpu_indices` of the
// node: those GPUs' files (each once: MIG devices of one GPU share its file),
// then the control devices when it holds any.
std::vector<std::string> ContainerDevices(const std::vector<std::vector<std::string>>& gpu_files,
                                          const std::vector<std::string>& control_devices,
                                          const std::vector<int32_t>& gpu_indices);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_CONTAINER_SUPPORT_H_
