// The end of a multi-node job on its other nodes, as Slurm ends a job: the
// Epilog runs on every node of the allocation, and the job is not over (its
// resources stay held) until each of them has run it.
//
// The batch host's noded is the one process that knows when the job ended and
// where its other nodes are (the launch spec's allocation, with their noded
// addresses), so it asks each other node to end the job there
// (Noded.EndJobOnNode: kill what is left of the job's steps, run the Epilog)
// before the job's end goes to ctld. AllocationEpilogs sits between the job
// manager and the node agent: a finished multi-node job is reported as still
// running until every other node has answered (or could not be reached: a
// node that is down is ctld's to notice, through SlurmdTimeout), and then with
// the failures (JobResult::node_epilog_errors), which ctld drains
// ("Epilog error"). The other nodes' GPU figures (their noded sample the
// job's GPUs while its steps run there) go to kOtherNodesGpuUsageFileName,
// which the GPU monitor adds to the report. The outcome is written to the job's directory
// (kNodeEpilogsFileName) before the job is reported, so a restarted noded
// reports it without asking again; a noded stopped while it asks asks again
// when it starts (an Epilog may then run twice on a node, never zero times).
//
// Threads and ownership:
//  - JobReportSource methods: any thread (the agent's); they read the job
//    directories' node_epilogs files, never call a node.
//  - One worker thread (Start() to Stop()) finds the finished jobs that still
//    need their other nodes, and starts one thread per such job, which calls
//    the nodes in parallel (one thread per node) and writes the file; then the
//    listener (the agent's Wake) is called, without the lock.
//  - mu_ guards in_flight_, runners_ and stopping_; no call or file I/O under it.
#ifndef SKIFF_NODED_ALLOCATION_EPILOGS_H_
#define SKIFF_NODED_ALLOCATION_EPILOGS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "noded/job_files.h"
#include "noded/job_report.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

// What one other node said when the job ended there.
struct OtherNodeEnd {
  std::string epilog_error;  // "" when its Epilog succeeded or none is configured
  std::vector<GpuUse> gpus;  // the job's GPUs there, as that node sampled them (node set)
};

// How the batch host reaches the job's other nodes (Noded.EndJobOnNode over
// gRPC in noded; a fake in tests). Thread-safe.
class OtherNodes {
 public:
  virtual ~OtherNodes() = default;
  // Ends the job on `node`: what it said, or an error when it could not be asked.
  virtual absl::StatusOr<OtherNodeEnd> EndJobOnNode(uint64_t job_id, const AllocatedNode& node,
                                                    const std::string& spec_text,
                                                    const JobResult& result) = 0;
  // Makes the calls in flight, and any later one, fail at once (noded stops).
  virtual void CancelAll() = 0;
};

// The nodes of `spec` other than the batch host (allocation[0]), in order.
std::vector<AllocatedNode> OtherNodesOf(const LaunchSpec& spec);

class AllocationEpilogs final : public JobReportSource {
 public:
  // `jobs` (the job manager), `nodes` and `logger` must outlive this;
  // `job_dir(id)` is the job's spool directory.
  AllocationEpilogs(JobReportSource& jobs, std::function<std::string(uint64_t)> job_dir,
                    OtherNodes& nodes, spdlog::logger& logger);
  ~AllocationEpilogs() override;

  // Called whenever a job is ready to be reported. REQUIRES: before Start().
  void SetFinishedListener(std::function<void()> listener);
  void Start();
  // Cancels the calls in flight and joins every thread. Idempotent.
  void Stop();
  // A job has finished (the job manager's listener): look for work now.
  void Wake();

  // JobReportSource: the job manager's reports, with each finished multi-node
  // job held back (Jobs: shown as running) until its node_epilogs file exists,
  // and then carrying its failures.
  std::vector<JobReport> Jobs() override;
  std::vector<JobReport> FinishedJobs() override;
  void Acknowledge(uint64_t job_id) override { jobs_.Acknowledge(job_id); }
  void Abandon(uint64_t job_id) override { jobs_.Abandon(job_id); }
  void RenewLeases() override { jobs_.RenewLeases(); }

 private:
  enum class Readiness { kReady, kWaiting };
  // Whether `report` (finished) may go to ctld; adds the other nodes' failures
  // when it may. kWaiting: its other nodes still have to be asked.
  Readiness Complete(JobReport& report);
  void Loop();
  void EndOnOtherNodes(uint64_t job_id, const JobResult& result);

  JobReportSource& jobs_;
  const std::function<std::string(uint64_t)> job_dir_;
  OtherNodes& nodes_;
  spdlog::logger& logger_;
  std::function<void()> listener_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;                    // under mu_
  bool woken_ = false;                       // under mu_
  std::set<uint64_t> in_flight_;             // under mu_: jobs being ended on their nodes
  std::map<uint64_t, std::thread> runners_;  // under mu_; joined by Loop or Stop
  std::vector<uint64_t> done_runners_;       // under mu_: runners to join
  std::thread worker_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_ALLOCATION_EPILOGS_H_
