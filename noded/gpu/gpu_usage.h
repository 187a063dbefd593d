// What the GPUs a job holds did while it ran: the pure part of the GPU monitor
// (gpu_monitor.h), which reads NVML and /proc and keeps the figures here.
//
// At each sample (JobAcctGatherFrequency) every GPU a running job holds adds
// its utilisation, the memory the job's processes hold on it, and its energy
// counter. A process is the job's when its cgroup is the job's
// (skiff/<node>/job_<id>, below it for steps), or, where jobs are not in
// cgroups, when its environment says SLURM_JOB_ID=<id>. Where the driver
// gives no process list, the GPU's whole used memory is the holder's (the job
// holds it whole).
//
// The figures become Slurm 23.02's gres/gpuutil and gres/gpumem (percent and
// bytes, summed over the job's GPUs as Slurm sums them over a task's GPUs) and
// the job's GPU energy (ConsumedEnergy). GpuUse, what is kept per GPU, is in
// job_report.h: it travels with the job's end.
#ifndef SKIFF_NODED_GPU_GPU_USAGE_H_
#define SKIFF_NODED_GPU_GPU_USAGE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "noded/gpu/nvml.h"
#include "noded/job_report.h"

namespace skiff::noded {

// Adds one reading of `use`'s GPU, held by job `job_id`; `job_of_pid` maps the
// processes on it to their jobs (a pid missing there belongs to none).
void AddReading(const GpuReading& reading, uint64_t job_id,
                const std::map<pid_t, uint64_t>& job_of_pid, GpuUse* use);

// A process holding memory on a GPU that is not its job's: no job at all, or a
// job that does not hold that GPU. (What issue 51 drains for.)
struct StrayGpuProcess {
  unsigned minor = 0;
  pid_t pid = 0;
  uint64_t job_id = 0;  // 0: no job
  bool operator==(const StrayGpuProcess& o) const {
    return minor == o.minor && pid == o.pid && job_id == o.job_id;
  }
};
// `holders_of_minor`: the jobs on each GPU now, one, or one per MIG device of
// it (a GPU missing there is free).
std::vector<StrayGpuProcess> StrayGpuProcesses(
    const std::vector<GpuReading>& readings,
    const std::map<unsigned, std::vector<uint64_t>>& holders_of_minor,
    const std::map<pid_t, uint64_t>& job_of_pid);

// The job a process belongs to, from /proc/PID/cgroup's text (Skiff's cgroup
// on node `node_name`) or, failing that, /proc/PID/environ's (NUL-separated).
std::optional<uint64_t> JobOfProcess(const std::string& node_name, const std::string& cgroup_text,
                                     const std::string& environ_text);

// The NVIDIA device minor of a GPU's device file ("/dev/nvidia3" -> 3): the
// digits that end its name. None when it has none.
std::optional<unsigned> DeviceFileMinor(const std::string& path);

// The job directory's gpu_usage file (written at each sample, read with the
// job's end report): a `gpu [node=N] index=I minor=M samples=...` line per GPU.
inline constexpr char kGpuUsageFileName[] = "gpu_usage";
// A multi-node job's GPUs on its other nodes, as they answered its end
// (allocation_epilogs.h), in the same lines with node=; on the batch host only.
inline constexpr char kOtherNodesGpuUsageFileName[] = "gpu_usage_other_nodes";
std::string FormatGpuUses(const std::vector<GpuUse>& uses);
absl::StatusOr<std::vector<GpuUse>> ParseGpuUses(const std::string& text);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_GPU_USAGE_H_
