// A node's broken GPUs, from each reading of them (nvml.h): a GPU fault Xid
// (ECC, fallen off the bus, NVLink, GSP: not an application's own error such
// as Xid 13 or 31), new uncorrected ECC errors since noded started, or a GPU
// NVML says is lost or no longer lists. noded drains the node with a reason
// naming the GPU and the error and requeues the jobs on that GPU
// (gpu_monitor.h). Pure.
#ifndef SKIFF_NODED_GPU_GPU_FAULTS_H_
#define SKIFF_NODED_GPU_GPU_FAULTS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "noded/gpu/nvml.h"

namespace skiff::noded {

struct GpuFault {
  unsigned minor = 0;
  std::string what;  // "Xid 79 (GPU has fallen off the bus)", "2 uncorrected ECC errors", ...
  bool operator==(const GpuFault& o) const { return minor == o.minor && what == o.what; }
};

// Whether Xid `code` says the GPU itself is broken (NVIDIA's list of Xids
// that need a reset or a node drain), not that a program misbehaved.
bool IsGpuFaultXid(uint64_t code);

// The drain reason: "GPU /dev/nvidia1: Xid 79 (GPU has fallen off the bus)".
std::string GpuFaultReason(const GpuFault& fault);

class GpuFaultWatch {
 public:
  // The new faults in one reading of every GPU; `expected_minors` are the
  // node's GPUs (gres.conf), any of which NVML should list. A lost GPU is
  // reported once until it reads well again; ECC errors when their count
  // grows past what the first reading found.
  std::vector<GpuFault> Check(const std::vector<GpuReading>& readings,
                              const std::vector<unsigned>& expected_minors);

 private:
  std::map<size_t, unsigned> minor_at_index_;  // from good readings
  std::map<unsigned, uint64_t> ecc_seen_;
  std::set<unsigned> lost_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_GPU_FAULTS_H_
