// NVIDIA's management library, loaded with dlopen when the node has it (Skiff
// does not link against it: most nodes have no GPU and no driver).
//
// gres.conf AutoDetect=nvml asks it once, at start, for its GPUs' device minor
// numbers and names (DetectNvmlGpus); where it is missing, noded says so once
// and uses gres.conf's File= lines, as Slurm's slurmd does. The GPU monitor
// (gpu_monitor.h) keeps it open and reads every GPU's utilisation, memory,
// energy and processes at each sample (Nvml::Read).
//
// An Nvml is used by one thread at a time (the monitor's); NvmlGpuType is pure.
#ifndef SKIFF_NODED_GPU_NVML_H_
#define SKIFF_NODED_GPU_NVML_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

inline constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

// A MIG device of a GPU in MIG mode (mig.h).
struct DetectedMig {
  unsigned gpu_instance = 0;      // GI id
  unsigned compute_instance = 0;  // CI id
  unsigned slices = 0;            // of the GPU's compute slices
  uint64_t memory_mb = 0;
  // What CUDA_VISIBLE_DEVICES names it by: its own "MIG-..." UUID, or with a
  // driver before 470.42.01 "MIG-<GPU UUID>/<GI>/<CI>".
  std::string cuda_name;
};

struct DetectedGpu {
  unsigned minor = 0;  // /dev/nvidia<minor>
  std::string name;    // "NVIDIA A100-SXM4-40GB"
  std::string uuid;    // "GPU-..."; "" when the driver does not say
  // In MIG mode: its MIG devices, which are the node's GPUs in its place.
  std::vector<DetectedMig> migs;
};

// A process that holds GPU memory (NVML's compute processes), pid in the
// host's pid namespace.
struct GpuProcess {
  pid_t pid = 0;
  std::optional<uint64_t> used_bytes;  // none: the driver does not say
};

// One GPU at one moment. A figure the GPU or driver does not give is absent
// (older GPUs have no energy counter; some drivers no process list).
struct GpuReading {
  unsigned minor = 0;
  std::optional<unsigned> util_percent;  // SM utilisation over the driver's last period
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> energy_mj;  // millijoules since the driver loaded
  std::optional<std::vector<GpuProcess>> processes;
  // Uncorrected ECC errors since the driver loaded (volatile count); absent
  // on GPUs without ECC.
  std::optional<uint64_t> uncorrected_ecc;
  std::vector<uint64_t> xids;  // Xid errors NVML reported since the last Read
  std::string error;           // the device could not be read at all (NVML's words)
  bool lost = false;           // NVML says the GPU is lost (fallen off the bus)
};

class Nvml {
 public:
  // Loads `library` and initialises NVML. Unavailable when it cannot be
  // loaded (dlerror's words) or lacks a function; Internal when nvmlInit fails.
  static absl::StatusOr<std::unique_ptr<Nvml>> Open(const std::string& library = kNvmlLibrary);
  ~Nvml();  // nvmlShutdown, dlclose
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The node's GPUs in NVML's index order, a GPU in MIG mode with its MIG
  // devices. Internal when a call fails (nvmlErrorString's words), or when a
  // GPU is in MIG mode without a MIG device (as Slurm refuses it).
  absl::StatusOr<std::vector<DetectedGpu>> Gpus();
  // Every GPU now, in NVML's index order, with the Xid errors NVML reported
  // since the last call; Internal when they cannot be counted.
  absl::StatusOr<std::vector<GpuReading>> Read();

  struct Functions;  // the entry points, resolved by Open

 private:
  Nvml(void* handle, std::unique_ptr<Functions> functions);
  absl::Status ReadMigs(void* device, DetectedGpu* gpu);
  void* handle_;
  std::unique_ptr<Functions> fn_;
  void* events_ = nullptr;  // NVML's event set for Xid errors; null: none
};

// Open, Gpus, close: for the start.
absl::StatusOr<std::vector<DetectedGpu>> DetectNvmlGpus(const std::string& library = kNvmlLibrary);

// Open, Read, close: GPU /dev/nvidia<minor>'s memory in bytes; nullopt when
// NVML cannot be opened, has no such GPU or does not say.
std::optional<uint64_t> NvmlGpuMemory(unsigned minor, const std::string& library = kNvmlLibrary);

// Slurm's GPU type for a device name, as its gpu/nvml plugin makes it:
// lower case, blanks to '_' ("NVIDIA A100-SXM4-40GB" -> "nvidia_a100-sxm4-40gb").
std::string NvmlGpuType(const std::string& name);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_NVML_H_
