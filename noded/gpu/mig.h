// MIG (NVIDIA's Multi-Instance GPU) as Slurm's gpu/nvml plugin registers it:
// a GPU in MIG mode is not one gres but its MIG devices, each a typed GPU of
// its own. What a job given one may open is its GPU's device file and the
// two capability devices of its GPU and compute instances
// (/dev/nvidia-caps/nvidia-capN, numbered by the driver's mig-minors table);
// CUDA knows it by its MIG UUID.
//
// Pure functions; the driver's table is read by the caller.
#ifndef SKIFF_NODED_GPU_MIG_H_
#define SKIFF_NODED_GPU_MIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace skiff::noded {

// Where the driver lists the capability devices' minor numbers, and the
// variable that points noded at another table (the tests' stand-in beside
// the fake NVML, which has no driver behind it).
inline constexpr char kMigMinorsPath[] = "/proc/driver/nvidia-caps/mig-minors";
inline constexpr char kMigMinorsVariable[] = "SKIFF_NVIDIA_MIG_MINORS";

// The profile part of a MIG device's type, as Slurm writes it: slices of the
// GPU and memory in whole GB, rounded ("3g.20gb" for 3 slices of 20096 MB).
std::string MigProfile(unsigned slices, uint64_t memory_mb);

// Whether a driver of this version ("535.104.05") names MIG devices by their
// own UUID in CUDA_VISIBLE_DEVICES (from 470.42.01, as Slurm checks);
// older ones by "MIG-<GPU UUID>/<GI>/<CI>".
bool DriverNamesMigByUuid(absl::string_view driver_version);

// The capability devices' minors of one MIG device, from the text of
// mig-minors ("gpu0/gi1/access 21", "gpu0/gi1/ci0/access 22", ...).
// NotFound names the missing line.
struct MigCapMinors {
  unsigned gpu_instance = 0;
  unsigned compute_instance = 0;
};
absl::StatusOr<MigCapMinors> FindMigCapMinors(absl::string_view mig_minors, unsigned gpu_minor,
                                              unsigned gpu_instance, unsigned compute_instance);

// What a job given the MIG device may open: its GPU's device file, then the
// two capability devices.
std::vector<std::string> MigDeviceFiles(unsigned gpu_minor, const MigCapMinors& caps);

// CUDA_VISIBLE_DEVICES for the node's GPUs `indices`: each one's CUDA name
// where it has one (a MIG device's, `cuda_names` by index), else its index.
std::string CudaDeviceList(const std::vector<int>& indices,
                           const std::vector<std::string>& cuda_names);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_MIG_H_
