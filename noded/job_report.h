// What noded tells ctld about a job, as plain structs (the agent converts them to
// v1::NodeJobReport at the gRPC edge), and the interface through which the agent
// reads and acknowledges them.
#ifndef SKIFF_NODED_JOB_REPORT_H_
#define SKIFF_NODED_JOB_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::noded {

// A node script that failed on another node of the job: which node, and why.
struct NodeScriptError {
  std::string node;
  std::string error;
  bool operator==(const NodeScriptError& o) const { return node == o.node && error == o.error; }
};

// What one GPU the job held did while it ran, as the GPU monitor sampled it
// (noded/gpu/gpu_usage.h).
struct GpuUse {
  // Where the GPU is: "" this node; another node of a multi-node job, as that
  // node's noded sent it (Noded.EndJobOnNode).
  std::string node;
  int index = 0;         // the GPU's gres index on its node (LaunchSpec::gpu_indices)
  unsigned minor = 0;    // /dev/nvidia<minor>
  int64_t samples = 0;   // samples with a utilisation figure
  int64_t util_sum = 0;  // percent, summed over those samples
  int util_max = 0;
  int64_t memory_samples = 0;   // samples with a memory figure
  uint64_t memory_sum_mib = 0;  // the job's memory on it, MiB summed over those
  uint64_t memory_max_bytes = 0;
  uint64_t memory_total_bytes = 0;
  // The GPU's energy counter at the job's first and latest sample (mJ); the
  // difference is the job's. Absent on GPUs without one.
  std::optional<uint64_t> energy_first_mj;
  std::optional<uint64_t> energy_last_mj;

  uint64_t EnergyMj() const {
    return energy_first_mj && energy_last_mj && *energy_last_mj > *energy_first_mj
               ? *energy_last_mj - *energy_first_mj
               : 0;
  }
  bool operator==(const GpuUse& o) const {
    return node == o.node && index == o.index && minor == o.minor && samples == o.samples && util_sum == o.util_sum &&
           util_max == o.util_max && memory_samples == o.memory_samples &&
           memory_sum_mib == o.memory_sum_mib && memory_max_bytes == o.memory_max_bytes &&
           memory_total_bytes == o.memory_total_bytes && energy_first_mj == o.energy_first_mj &&
           energy_last_mj == o.energy_last_mj;
  }
};

// A running job's GPUs for the heartbeat: what they did so far, and each one's
// utilisation peak since the last heartbeat (-1: not sampled since), from
// which ctld tells an idle job (GpuIdlePolicy).
struct RunningJobGpus {
  uint64_t job_id = 0;
  std::vector<GpuUse> gpus;
  std::vector<int> recent_peaks;  // by position in gpus
};

// How a job ended. Written by the shepherd into <jobdir>/status (see job_files.h).
struct JobResult {
  int exit_code = 0;    // the batch script's exit status; 0 when killed by a signal
  int signal = 0;       // the signal that killed the batch script, 0 if it exited
  std::string failure;  // why the script could not be started; empty when it ran
  bool fenced = false;  // killed by the shepherd when its lease ran out (failure says so)
  int32_t run = 0;      // the launch's run (LaunchSpec::run); 0 = unknown
  // Processes of the job the kernel killed for memory (its cgroup's oom_kill
  // count): ctld ends such a job OUT_OF_MEMORY.
  uint64_t oom_kills = 0;
  // The node's Prolog or Epilog failed (noded/node_scripts.h): what it said or
  // how it ended. ctld drains the node; a failed Prolog also requeues the job.
  std::string prolog_error;
  std::string epilog_error;
  // The Epilog's failures on the job's other nodes (a multi-node job): not the
  // shepherd's, added by AllocationEpilogs (allocation_epilogs.h) from the job
  // directory's node_epilogs file.
  std::vector<NodeScriptError> node_epilog_errors;
  // What the batch script used (its wait4 rusage, with the children it waited
  // for): sacct's batch step. has_usage false: not measured (a launch failure).
  bool has_usage = false;
  int64_t user_cpu_usec = 0;
  int64_t system_cpu_usec = 0;
  int64_t max_rss_kb = 0;
  // The GPUs it held here, sampled while it ran (not the shepherd's: the GPU
  // monitor's gpu_usage file in the job directory, added to the report).
  std::vector<GpuUse> gpus;

  bool operator==(const JobResult& o) const {
    return exit_code == o.exit_code && signal == o.signal && failure == o.failure &&
           fenced == o.fenced && run == o.run && oom_kills == o.oom_kills &&
           prolog_error == o.prolog_error && epilog_error == o.epilog_error &&
           node_epilog_errors == o.node_epilog_errors && has_usage == o.has_usage &&
           user_cpu_usec == o.user_cpu_usec && system_cpu_usec == o.system_cpu_usec &&
           max_rss_kb == o.max_rss_kb && gpus == o.gpus;
  }
};

struct JobReport {
  uint64_t job_id = 0;
  bool finished = false;  // false: still running (result is meaningless)
  JobResult result;
};

// The part of the job manager that the NodeAgent talks to ctld about.
// Implementations are thread-safe.
class JobReportSource {
 public:
  virtual ~JobReportSource() = default;

  // Every job ctld should hear about at registration: running ones (finished =
  // false) and finished ones whose end ctld has not acknowledged yet. Ordered by id.
  virtual std::vector<JobReport> Jobs() = 0;

  // Finished jobs whose end ctld has not acknowledged yet, ordered by id.
  virtual std::vector<JobReport> FinishedJobs() = 0;

  // ctld has recorded the end of `job_id` (JobComplete answered OK): forget the
  // job and remove its directory. Unknown ids are ignored.
  virtual void Acknowledge(uint64_t job_id) = 0;

  // ctld no longer wants `job_id` (RegisterReply.jobs_to_terminate): terminate it
  // if it is running, never report it again, and remove its directory once its
  // processes are gone. Unknown ids are ignored.
  virtual void Abandon(uint64_t job_id) = 0;

  // ctld has just confirmed this node (or is down, so that nobody can requeue its
  // jobs): every running job's lease starts again (job_files.h, kLeaseFileName).
  virtual void RenewLeases() {}
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_JOB_REPORT_H_
