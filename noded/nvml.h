// gres.conf AutoDetect=nvml: NVIDIA's management library, loaded with dlopen
// when the node has it (Skiff does not link against it: most nodes have no
// GPU and no driver), asked for its GPUs' device minor numbers and names.
// Where it is missing, noded says so once and uses gres.conf's File= lines,
// as Slurm's slurmd does.
//
// DetectNvmlGpus loads the library, initialises NVML and shuts it down again
// (call it once, at start); the rest is pure.
#ifndef SKIFF_NODED_NVML_H_
#define SKIFF_NODED_NVML_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

inline constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

struct DetectedGpu {
  unsigned minor = 0;  // /dev/nvidia<minor>
  std::string name;    // "NVIDIA A100-SXM4-40GB"
};

// The node's GPUs in NVML's index order. Unavailable when `library` cannot be
// loaded (dlerror's words) or lacks a function; Internal when an NVML call
// fails (nvmlErrorString's words).
absl::StatusOr<std::vector<DetectedGpu>> DetectNvmlGpus(const std::string& library = kNvmlLibrary);

// Slurm's GPU type for a device name, as its gpu/nvml plugin makes it:
// lower case, blanks to '_' ("NVIDIA A100-SXM4-40GB" -> "nvidia_a100-sxm4-40gb").
std::string NvmlGpuType(const std::string& name);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_NVML_H_
