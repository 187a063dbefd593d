// What this machine has, as the node daemon reports it at registration.
#ifndef SKIFF_NODED_HARDWARE_H_
#define SKIFF_NODED_HARDWARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "noded/gpu/mig.h"
#include "noded/gpu/nvml.h"

namespace skiff::noded {

struct Hardware {
  int cpus = 0;
  uint64_t real_memory_mb = 0;
  int64_t boot_time = 0;
  std::string os;    // "Linux 6.1.0 #1 SMP ..."
  std::string arch;  // "x86_64"
};

// Reads CPUs (online), memory and boot time from the running kernel.
Hardware DetectHardware();

// What slurmd reports with every registration and ping: the 5-minute load
// average x 100 (scontrol's CPULoad=) and free memory in MB (FreeMem=),
// both as sysinfo(2) gives them.
struct NodeLoad {
  uint32_t cpu_load = 0;
  uint64_t free_memory_mb = 0;
};

// From sysinfo's raw values: `load_5min` fixed point with SI_LOAD_SHIFT bits,
// `free_ram` in units of `mem_unit` bytes.
NodeLoad NodeLoadFrom(unsigned long load_5min, unsigned long free_ram, unsigned int mem_unit);

// The machine's now; nullopt when sysinfo fails.
std::optional<NodeLoad> ReadNodeLoad();

// One device of a gres: a GPU, or a MIG device of a GPU in MIG mode.
struct GresUnit {
  // What a job given it may open: its gres.conf File=, or a MIG device's GPU
  // file and its two capability devices (gpu/mig.h).
  std::vector<std::string> files;
  // A MIG device's name in CUDA_VISIBLE_DEVICES ("MIG-..."); "" = its index.
  std::string cuda_name;
};

// One gres as found on this node: gres.conf's devices checked against the disk.
struct NodeGres {
  std::string name;
  std::string type;
  int64_t count = 0;
  std::vector<GresUnit> units;  // by index within the gres; empty = counted, no devices
};

// The node's gres from gres.conf, grouped by (name, type) in file order. Every
// File= must exist (a fake device file is fine); FailedPrecondition names the
// missing one. Gres the node is configured with (Gres= in skiff.conf) but that
// gres.conf does not describe are reported by count alone, without files.
// With `detected` (AutoDetect=nvml found GPUs), those GPUs (/dev/nvidiaN,
// typed as Gres= types them when NVML's name contains that type) replace
// gres.conf's gpu lines for this node. A MultipleFiles= line is one device
// with all its files. A GPU in MIG mode is its MIG devices,
// typed as Slurm types them ("nvidia_a100-sxm4-40gb_3g.20gb"; a Gres= type
// "a100_3g.20gb" or "3g.20gb" names them), their capability devices read
// from `mig_minors_path` (the driver's table).
absl::StatusOr<std::vector<NodeGres>> CollectNodeGres(
    const NodeConfig& node, const GresConfig& gres_conf,
    const std::vector<DetectedGpu>* detected = nullptr,
    const std::string& mig_minors_path = kMigMinorsPath);

// The files of every unit of `gres`, each unit's joined with ',' as Slurm
// writes a MIG device's File=.
std::vector<std::string> UnitFiles(const NodeGres& gres);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_HARDWARE_H_
