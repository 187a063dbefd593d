// The GPU monitor: every JobAcctGatherFrequency (task=) seconds it reads, through
// NVML, the node's GPUs: a broken one (gpu_faults.h) is reported to its fault
// listener (noded drains the node and requeues the jobs on that GPU); for
// the GPUs the running batch jobs of this node hold, it adds each job's
// figures (gpu_usage.h) and keeps them in the job's directory (gpu_usage), so
// that a restarted noded goes on from them and a job's end report carries
// them to ctld (sacct's gres/gpuutil and gres/gpumem, seff's GPU lines, the
// job's GPU energy), with those of its other nodes (the batch host's
// AllocationEpilogs keeps them in gpu_usage_other_nodes).
//
// On a multi-node job's other nodes, the job's processes are its steps'
// tasks: while they run, the GPUs they use here are sampled too, kept in
// memory (a restarted noded starts them again from nothing), sent with the
// heartbeats, and handed over when the job ends here (EndedJobGpus, for
// Noded.EndJobOnNode's answer). A GPU the job holds here while no step of it
// runs here has no process of the job on it: idle, and nothing to sample.
//
// It sits between the job reports and the NodeAgent (a JobReportSource that
// adds each finished job's GPU uses to the inner source's report), so that the
// directory is never written once ctld has acknowledged the job's end.
//
// Without NVML on the node (no driver, most nodes), without GPUs in gres.conf
// or with a frequency of 0, it logs why once and samples nothing.
//
// Threads: the sampling thread (Start to Stop) owns nvml_, the strays
// already logged and the job mapping written, and calls the step GPU source
// (NodedService's, which takes its own lock) without mu_; mu_ guards uses_,
// recent_peaks_, running_ and visits_ended_, and is held from the check that a
// job runs (or, another node's, has not ended here) to the end of its
// figures' update and file write, so that an acknowledgement (the agent's
// thread) or EndedJobGpus (a gRPC thread), which take mu_, wait for an update
// in flight and none follows them. The JobReportSource methods run on the
// agent's thread and read the files without mu_.
#ifndef SKIFF_NODED_GPU_GPU_MONITOR_H_
#define SKIFF_NODED_GPU_GPU_MONITOR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "noded/gpu/gpu_faults.h"
#include "noded/gpu/gpu_usage.h"
#include "noded/gpu/nvml.h"
#include "noded/job_manager.h"
#include "noded/job_report.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

struct GpuMonitorOptions {
  std::string node_name;
  std::chrono::seconds period{30};     // JobAcctGatherFrequency's task=; 0: off
  std::vector<std::string> gpu_files;  // by gres index (gres.conf File=)
  std::string library = kNvmlLibrary;
  // HpcJobMappingDir: a file per GPU a job holds, named by its NVML index,
  // holding the job's id (dcgm-exporter's --hpc-job-mapping-dir; a free GPU
  // has none); "" = none. It
  // must be a directory of noded's user that no one else may write.
  std::string job_mapping_dir;
};

class GpuMonitor final : public JobReportSource {
 public:
  // `jobs` says which jobs run and what they hold; `reports` is the source
  // whose reports this one completes. Both and `logger` outlive the monitor.
  GpuMonitor(GpuMonitorOptions options, JobManager& jobs, JobReportSource& reports,
             spdlog::logger& logger);
  ~GpuMonitor() override;

  // The jobs whose steps run tasks here and the GPU indices they use here
  // (NodedService::StepGpus), called on the sampling thread. Before Start.
  void SetStepGpuSource(std::function<std::map<uint64_t, std::vector<int>>()> source) {
    step_gpus_ = std::move(source);
  }

  // Called (on the sampling thread) for each GPU fault found (gpu_faults.h):
  // the drain reason and the running jobs that hold that GPU. Before Start.
  void SetFaultListener(
      std::function<void(const std::string& reason, const std::vector<uint64_t>& jobs)> listener) {
    fault_listener_ = std::move(listener);
  }

  // Opens NVML and starts sampling, or logs why not.
  void Start();
  void Stop();  // idempotent
  // One sample of every running job's GPUs, as the thread takes it (tests).
  void SampleNow();

  // The running jobs' GPUs, each with its peak since the last call (the
  // heartbeat's), which starts the next period.
  std::vector<RunningJobGpus> TakeRunning();
  // The heartbeat did not reach ctld: its peaks count again in the next.
  void Restore(const std::vector<RunningJobGpus>& taken);
  // A running job's GPUs so far (sstat's batch step); empty when unknown.
  std::vector<GpuUse> UsesOf(uint64_t job_id);
  // Another node's job has ended here: its GPUs' figures here (node set), no
  // longer sampled; the same again if asked again (a retried EndJobOnNode).
  std::vector<GpuUse> EndedJobGpus(uint64_t job_id);

  // JobReportSource: `reports`' reports, each finished job's with its GPUs.
  std::vector<JobReport> Jobs() override;
  std::vector<JobReport> FinishedJobs() override;
  void Acknowledge(uint64_t job_id) override;
  void Abandon(uint64_t job_id) override;
  void RenewLeases() override;

 private:
  void Loop();
  // Writes the files of HpcJobMappingDir that changed.
  void WriteJobMapping(const std::vector<GpuReading>& readings,
                       const std::map<unsigned, std::vector<uint64_t>>& holders_of_minor);
  void AddGpus(std::vector<JobReport>* reports);

  const GpuMonitorOptions options_;
  JobManager& jobs_;
  JobReportSource& reports_;
  spdlog::logger& logger_;
  std::unique_ptr<Nvml> nvml_;
  GpuFaultWatch faults_;
  std::function<void(const std::string&, const std::vector<uint64_t>&)> fault_listener_;
  std::set<std::pair<unsigned, pid_t>> strays_logged_;
  std::map<size_t, std::string> mapping_written_;  // NVML index -> its file's text
  bool mapping_usable_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<uint64_t, std::vector<GpuUse>> uses_;
  // The running jobs' GPUs' peaks since the last TakeRunning: job -> index -> %.
  std::map<uint64_t, std::map<int, int>> recent_peaks_;
  std::set<uint64_t> running_;  // the jobs the last sample saw running
  // Other nodes' jobs that ended here (EndedJobGpus), kept an hour for a
  // retried question and never sampled again: job -> when (steady seconds).
  std::map<uint64_t, int64_t> visits_ended_;
  std::function<std::map<uint64_t, std::vector<int>>()> step_gpus_;
  std::thread thread_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_GPU_MONITOR_H_
