// What ctld knows of each running job's GPUs between its node's heartbeats
// (noded/gpu/gpu_monitor.h), and GpuIdlePolicy's decisions on it: a job whose
// every GPU stayed under the threshold for the window is warned, and after the
// grace, still idle, the policy's action is taken; a job whose GPU is busy
// again is left alone (its warning forgotten). Pure: no clock, no I/O.
//
// Thread-safety: none (the Controller's mutex, like the rest of the core).
#ifndef SKIFF_CTLD_CORE_GPU_IDLE_GPU_WATCH_H_
#define SKIFF_CTLD_CORE_GPU_IDLE_GPU_WATCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

// One heartbeat's figures of one running job's GPUs on one node.
struct JobGpuReport {
  uint64_t job_id = 0;
  std::vector<GpuUsage> gpus;     // so far (node filled in by ctld)
  std::vector<int> recent_peaks;  // by position: the peak since the last heartbeat, -1 none
  std::string node;               // whose heartbeat
  // The job's batch host, which samples its GPUs all along; another node of
  // a multi-node job samples its GPUs there only while its steps run there
  // (with no step there, no process of the job is on them: idle).
  bool batch_host = true;
};

struct GpuWatch {
  std::vector<GpuUsage> usage;  // the latest figures (so far), of every node
  int64_t last_report = 0;      // when the batch host's last heartbeat about the job came
  int64_t last_busy = 0;        // when a heartbeat last found one of its GPUs busy
  int64_t idle_since = 0;       // since when every GPU stayed under the threshold; 0: not idle
  int64_t warned_at = 0;        // when it was warned (this idle stretch); 0: not warned
};

// Adds one heartbeat's report (its figures replace that node's): busy as soon
// as one GPU reached `threshold_percent` (0: no policy, never idle), on any
// node; idle when the batch host's GPUs were all sampled since its last
// report and stayed under it, from that report (the period these peaks
// cover) or the last busy report on another node, whichever is later. A GPU
// not sampled since changes nothing.
void ObserveGpus(const JobGpuReport& report, int threshold_percent, int64_t now, GpuWatch* watch);

enum class IdleStep { kNone, kWarn, kAct };
// What `policy` does now to a job watched as `watch`.
IdleStep NextIdleStep(const GpuIdlePolicy& policy, const GpuWatch& watch, int64_t now);

// The policy for a job in `partition` under `qos`: the partition's, else the
// cluster's; null when none is enabled or the QOS is exempt.
const GpuIdlePolicy* GpuIdlePolicyFor(const SkiffConfig& config, const std::string& partition,
                                      const std::string& qos);

// The words of the warning, in the job's output, its mail, `scontrol show
// job` and `squeue --explain` ("every GPU under 5% since 2026-12-04T10:00:00;
// it will be cancelled at 2026-12-04T10:10:00 unless one is used"), with
// `format_time` writing a time.
std::string GpuIdleWarning(const GpuIdlePolicy& policy, const GpuWatch& watch,
                           std::string (*format_time)(int64_t));
// The reason a job gets when the action is taken ("GPUs idle under 5% for 30 min").
std::string GpuIdleReason(const GpuIdlePolicy& policy);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_GPU_IDLE_GPU_WATCH_H_
