// The node daemon's link to ctld, and the only thread that calls it.
//
// Registers (the node's hardware plus every job the job manager knows, the
// request rebuilt each time), then heartbeats; registers again whenever ctld says
// it does not know the node (a restarted ctld) or cannot be reached. After
// registering it kills and forgets the jobs ctld lists in jobs_to_terminate.
//
// Step reports (step_reports.h) go first, in batches, through
// NodeService.ReportSteps, with the same retries; a batch ctld did not take
// goes back to the queue.
//
// Finished jobs are sent with NodeService.JobComplete as soon as the job manager
// reports them (Wake()), and again, with backoff (0.2 s doubling to 10 s), until
// ctld answers OK; only then are they acknowledged to the job manager, which
// removes their directory. Heartbeats go on meanwhile. NOT_FOUND or
// FAILED_PRECONDITION from JobComplete makes the agent register again (with the
// same backoff), so that ctld can reconcile through jobs_to_terminate; any other
// error (UNAVAILABLE, UNIMPLEMENTED, DEADLINE_EXCEEDED...) is retried as is.
//
// Owns one thread (Start() to Stop()); Wake() and Stop() are thread-safe.
#ifndef SKIFF_NODED_NODE_AGENT_H_
#define SKIFF_NODED_NODE_AGENT_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/auth/authenticator.h"
#include "common/rpc/controller_epoch.h"
#include "noded/hardware.h"
#include "noded/job_report.h"
#include "noded/step_reports.h"
#include "proto/ctld.grpc.pb.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

class NodeAgent {
 public:
  // `hardware` is the registration without jobs; the jobs come from `jobs` at
  // each registration. `jobs`, `auth` and `logger` must outlive the agent.
  // `ctld_targets`: every controller, in SlurmctldHost order. With more than
  // one (a standby over etcd), a registration that finds its controller
  // unreachable or standing by goes to the next one, and the agent stays
  // with whichever took it.
  NodeAgent(std::vector<std::string> ctld_targets, v1::RegisterRequest hardware,
            JobReportSource& jobs, Authenticator& auth, spdlog::logger& logger);
  ~NodeAgent();

  void Start();
  void Stop();

  // A job has finished: report it now, unless earlier reports are backing off.
  void Wake();

  // Where the step manager queues its step reports (before Start; may be
  // null). They are sent with the job reports, in batches, before them.
  void SetStepReports(StepReportQueue* steps) { step_reports_ = steps; }
  // With a standby over etcd: the registration reply's controller epoch is
  // admitted to `fence` (shared with NodedService, which refuses an earlier
  // controller's calls); a reply from an earlier controller is not acted on.
  void SetControllerFence(ControllerFence* fence) { fence_ = fence; }
  // Called on the agent's thread with the config hash of every Register and
  // Heartbeat answer (empty unless ctld serves its config files): a configless
  // node fetches again when it changed (configless_node.h). Before Start.
  void SetConfigHashListener(std::function<void(const std::string&)> listener) {
    config_hash_listener_ = std::move(listener);
  }
  // Called on the agent's thread when ctld refuses the node's credential
  // (UNAUTHENTICATED from Register or Heartbeat): the cluster's munge key may
  // have been replaced (munge_key_renewal.h). Before Start.
  void SetCredentialRefusedListener(std::function<void()> listener) {
    credential_refused_listener_ = std::move(listener);
  }
  // What the node's load is now (scontrol's CPULoad=, FreeMem=), read at each
  // registration and heartbeat; ReadNodeLoad unless replaced (before Start).
  // nullopt: nothing is reported.
  void SetLoadSource(std::function<std::optional<NodeLoad>()> source) {
    load_source_ = std::move(source);
  }
  // The running jobs' GPUs for each heartbeat (gpu_monitor.h's TakeRunning),
  // and where they go back when the heartbeat fails (Restore). Before Start;
  // unset, heartbeats carry none.
  void SetGpuSource(std::function<std::vector<RunningJobGpus>()> take,
                    std::function<void(const std::vector<RunningJobGpus>&)> restore) {
    gpu_take_ = std::move(take);
    gpu_restore_ = std::move(restore);
  }
  // A step report was queued: send within 0.1 s (sooner with a job report),
  // so that reports close together share one call.
  void WakeForSteps();

 private:
  enum class ReportOutcome { kAllSent, kRetry, kRegisterAgain };

  void Loop();
  bool Register();
  bool Heartbeat();
  // Renews the leases when `status` says ctld is down; remembers whether it did.
  void RenewLeasesIfCtldIsDown(const grpc::Status& status);  // false: register again
  // Calls the credential-refused listener when `status` is UNAUTHENTICATED.
  void NoteCredentialRefused(const grpc::Status& status);
  // Returns when the agent must register again (the seconds to wait first), or
  // is stopping.
  double ServeRegistered();
  ReportOutcome SendReports();
  void GrowReportBackoff();
  // Sleeps up to `seconds`; returns false when stopping.
  bool Sleep(double seconds);
  bool Stopping();

  // The next controller, after `status` ended a registration.
  void NextControllerAfter(const grpc::Status& status);

  const std::vector<std::string> ctld_targets_;
  std::string ctld_target_;  // the one called now (agent thread only)
  const v1::RegisterRequest hardware_;
  JobReportSource& jobs_;
  Authenticator& auth_;
  spdlog::logger& logger_;
  std::unique_ptr<v1::NodeService::Stub> stub_;
  StepReportQueue* step_reports_ = nullptr;
  std::function<void(const std::string&)> config_hash_listener_;
  std::function<void()> credential_refused_listener_;
  std::function<std::optional<NodeLoad>()> load_source_ = ReadNodeLoad;
  std::function<std::vector<RunningJobGpus>()> gpu_take_;
  std::function<void(const std::vector<RunningJobGpus>&)> gpu_restore_;
  // Agent thread only.
  int64_t heartbeat_interval_ = 30;
  ControllerFence* fence_ = nullptr;
  bool ctld_refused_ = false;  // the last failed call found ctld down (Loop thread only)
  double report_backoff_ = 0;  // seconds; 0 while reports are not failing

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;     // guarded by mu_
  bool woken_ = false;        // guarded by mu_
  bool steps_woken_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_NODE_AGENT_H_
