// noded's gRPC service for ctld. Runs on gRPC's pool; authenticates every call
// (root or SlurmUser only) and converts between protobuf and the job manager.
//
// LaunchJob answers OK for every job it accepts, with the shepherd's pid, or
// shepherd_pid 0 when the job could not even start a shepherd. A job that fails
// to launch (unknown user, unusable work_dir, unwritable output file, script not
// executable...) is not an RPC error: it finishes at once and its NodeJobReport
// (sent with NodeService.JobComplete, and at registration) carries the reason in
// `failure`, naming the field. LaunchJob fails only with PERMISSION_DENIED /
// UNAUTHENTICATED, or INVALID_ARGUMENT for job_id 0.
#ifndef SKIFF_NODED_NODED_SERVICE_H_
#define SKIFF_NODED_NODED_SERVICE_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/auth/authenticator.h"
#include "common/config/parameters.h"
#include "common/rpc/controller_epoch.h"
#include "noded/container/image_container.h"
#include "noded/gpu/mps_servers.h"
#include "noded/health_check.h"
#include "noded/job_files.h"
#include "noded/job_manager.h"
#include "noded/job_report.h"
#include "noded/step_reports.h"
#include "noded/steps/step_manager.h"
#include "noded/steps/step_record.h"
#include "noded/steps/step_tasks.h"
#include "noded/steps/step_watchers.h"
#include "noded/task_streams.h"
#include "proto/noded.grpc.pb.h"

namespace skiff::noded {

// The request as the job manager takes it (groups and node_name unresolved).
LaunchSpec LaunchSpecFromProto(const v1::LaunchJobRequest& request);

// StepAsk from srun's request (srun applied Slurm's defaults).
StepAsk StepAskFromProto(const v1::StepRequest& request);

// One user's concurrent srun streams to one step manager, unless
// SlurmdParameters=max_step_streams_per_user=N says otherwise.
inline constexpr int kMaxStepStreamsPerUser = kDefaultMaxStepStreamsPerUser;

class NodedService final : public v1::Noded::Service {
 public:
  // Only root and `slurm_user_uid` (ctld's user) may call, except RunStep,
  // EndAllocation and BroadcastFile, which the job's user may call too. `auth`, `jobs`, `steps`
  // and `step_reports` (where RunStep reports its steps for ctld) must outlive
  // the service.
  NodedService(std::string node_name, int64_t start_time, Authenticator& auth, uid_t slurm_user_uid,
               JobManager& jobs, StepManager& steps, StepReportQueue& step_reports);

  grpc::Status Ping(grpc::ServerContext* context, const v1::NodedPingRequest* request,
                    v1::NodedPingReply* reply) override;
  grpc::Status LaunchJob(grpc::ServerContext* context, const v1::LaunchJobRequest* request,
                         v1::LaunchJobReply* reply) override;
  grpc::Status SignalJob(grpc::ServerContext* context, const v1::SignalJobRequest* request,
                         v1::SignalJobReply* reply) override;
  grpc::Status TerminateJob(grpc::ServerContext* context, const v1::TerminateJobRequest* request,
                            v1::TerminateJobReply* reply) override;
  grpc::Status NotifyJob(grpc::ServerContext* context, const v1::NotifyJobRequest* request,
                         v1::NotifyJobReply* reply) override;
  // noded_steps.cc.
  grpc::Status RunStep(grpc::ServerContext* context,
                       grpc::ServerReaderWriter<v1::StepOutput, v1::StepInput>* stream) override;
  grpc::Status RunTasks(grpc::ServerContext* context,
                        grpc::ServerReaderWriter<v1::TaskOutput, v1::TaskInput>* stream) override;
  grpc::Status EndAllocation(grpc::ServerContext* context, const v1::EndAllocationRequest* request,
                             v1::EndAllocationReply* reply) override;
  grpc::Status SignalStep(grpc::ServerContext* context, const v1::SignalStepRequest* request,
                          v1::SignalStepReply* reply) override;
  grpc::Status StatStep(grpc::ServerContext* context, const v1::StatStepRequest* request,
                        v1::StatStepReply* reply) override;
  grpc::Status StatTasks(grpc::ServerContext* context, const v1::StatStepRequest* request,
                         v1::StatStepReply* reply) override;
  // noded_attach.cc.
  grpc::Status AttachStep(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::StepOutput, v1::AttachInput>* stream) override;
  // noded_bcast.cc: sbcast.
  grpc::Status BroadcastFile(grpc::ServerContext* context,
                             grpc::ServerReader<v1::FileChunk>* reader,
                             v1::BroadcastFileReply* reply) override;
  // noded_node_scripts.cc.
  grpc::Status EndJobOnNode(grpc::ServerContext* context, const v1::EndJobOnNodeRequest* request,
                            v1::EndJobOnNodeReply* reply) override;

  // Where a failing Prolog before a job's first step here drains this node and
  // requeues the job held, and logs it (before serving; both may be null).
  // Before the server starts: the most RunStep streams one unprivileged user
  // may hold open here at once.
  void SetMaxStepStreamsPerUser(int max) { max_step_streams_per_user_ = max; }
  // A running job's GPUs so far (gpu/gpu_monitor.h), for sstat's batch step.
  // Before serving; unset, none are given.
  void SetGpuUses(std::function<std::vector<GpuUse>(uint64_t job_id)> uses) {
    gpu_uses_ = std::move(uses);
  }
  // gres/mps: the GPUs' MPS servers, started for a job before its launch.
  // REQUIRES: before serving; outlives this service.
  void SetMpsServers(MpsServers* mps) { mps_ = mps; }
  // Another node's job ending here (EndJobOnNode): its GPUs here as the GPU
  // monitor sampled them while its steps ran, for the answer. Before serving.
  void SetEndedJobGpus(std::function<std::vector<GpuUse>(uint64_t job_id)> gpus) {
    ended_job_gpus_ = std::move(gpus);
  }
  // The jobs whose steps run tasks here now, and the GPU indices those use
  // here (the GPU monitor samples another node's job through them).
  std::map<uint64_t, std::vector<int>> StepGpus();

  // Step calls this noded serves now (srun's RunStep, a step manager's
  // RunTasks, sattach's AttachStep): noded restarts in place (reconfigure)
  // only when there are none, since its restart would cut their streams.
  int OpenStepCalls() const { return open_step_calls_.load(); }

  // With a standby over etcd: ctld's calls carrying an epoch older than the
  // highest `fence` holds are refused (common/rpc/controller_epoch.h). Calls
  // without one (no etcd) pass.
  void SetControllerFence(ControllerFence* fence) { fence_ = fence; }

  void SetNodeControl(NodeControl* control, spdlog::logger* logger) {
    node_control_ = control;
    logger_ = logger;
  }

 private:
  grpc::Status AuthenticateCtld(const grpc::ServerContext& context);
  // RunTasks's work: starts the tasks `launch` names on this node and serves
  // them through `peer` (a RunTasks call, or the step manager in this process)
  // until they have all ended and the step manager has closed its side.
  void ServeTasks(const v1::TaskLaunch& launch, TaskPeer& peer);
  // The tasks `launch` names on this node as StepTasks starts them, as its user,
  // in the job's cgroup when the job runs here.
  StepTasksSpec TaskSpecFrom(const v1::TaskLaunch& launch);
  // srun --container / --container-image: each task through the shepherd's
  // --oci-run (noded/container/oci_runner.h), its container's directory under
  // <SlurmdSpoolDir>/oci-job<J>-<S> (Slurm's default), made here for the user
  // and removed after the step. `failure`: the reason the step's tasks fail.
  struct StepContainer {
    std::string spool;         // "" without a container
    std::string failure;       // "" when the container is ready
    std::string image_bundle;  // an unnamed image container, released after the step
  };
  StepContainer PrepareStepContainer(const v1::TaskLaunch& launch, StepTasksSpec& spec);
  void EndStepContainers(const StepTasksSpec& spec, const std::string& spool);
  // srun --container-image: the step's container on this node (as root, in
  // the step's thread), or the reason its tasks fail.
  absl::StatusOr<PreparedContainer> PrepareStepImage(const v1::TaskLaunch& launch,
                                                     const StepTasksSpec& spec);
  // <SlurmdSpoolDir>/containers: image containers (image_container.h).
  std::string ContainersDir() const;
  // RunStep's stream to `node`'s tasks, `launch` sent: ServeTasks in this
  // process for this node, else a RunTasks call to the node's noded.
  std::unique_ptr<TaskStream> OpenTaskStream(const v1::TaskInput& launch, const StepNode& node);
  // RunStep's StepRun has told srun the step's end: a failure is logged.
  void StepToldSrun(uint64_t job_id, const StepGrant& grant, const StepOutcome& outcome);
  // RunStep's last part, once its StepRun has ended (`outcome`): sattach's
  // `watchers` hear the end, ctld hears it (`record` settled), and the step
  // manager takes the step's resources back and makes it unreachable.
  void EndStep(uint64_t job_id, const StepGrant& grant, const StepOutcome& outcome,
               StepWatchers* watchers, v1::AcctStep* record);
  // A running job of this node that `caller` may act on (its user, root or
  // SlurmUser): NotFound / PermissionDenied with Slurm's texts otherwise.
  absl::StatusOr<LaunchSpec> JobOfCaller(const Identity& caller, uint64_t job_id);
  // On a node of a multi-node job other than its batch host, the Prolog runs
  // before the job's first step here (Slurm's default, without
  // PrologFlags=Alloc), once per job: "" when it succeeded (or none is
  // configured, or this is the batch host), else its failure. `ran_here`: this
  // call ran it (the others waited for its outcome).
  std::string PrologBeforeFirstStep(const v1::TaskLaunch& launch, bool* ran_here);
  // A failed Prolog: logged, this node drained and the job requeued held
  // (node_control_). Called once the step manager has closed this node's call,
  // which it does once srun has heard the step's end (or went away, or a bound
  // passed), so that srun has said why before the requeue ends the batch script.
  void ReportPrologFailure(const v1::TaskLaunch& launch, const std::string& failure);

  const std::string node_name_;
  const int64_t start_time_;
  Authenticator& auth_;
  const uid_t slurm_user_uid_;
  JobManager& jobs_;
  StepManager& steps_;
  StepReportQueue& step_reports_;
  NodeControl* node_control_ = nullptr;
  spdlog::logger* logger_ = nullptr;
  ControllerFence* fence_ = nullptr;

  // The Prolog's outcome for each job whose steps ran here (this node not its
  // batch host), until the job ends here (EndJobOnNode); later steps wait on
  // the first one's run.
  std::mutex prologs_mu_;
  std::map<uint64_t, std::shared_future<std::string>> prologs_;  // under prologs_mu_

  // RunStep and AttachStep streams open now, per unprivileged user: each holds
  // one of gRPC's threads for its life, so one user may hold at most
  // max_step_streams_per_user_ (6,000 empty streams took noded to 6,015 threads).
  int max_step_streams_per_user_ = kMaxStepStreamsPerUser;
  std::function<std::vector<GpuUse>(uint64_t)> gpu_uses_;
  MpsServers* mps_ = nullptr;
  std::function<std::vector<GpuUse>(uint64_t)> ended_job_gpus_;
  std::atomic<int> open_step_calls_{0};
  // One step call, counted in open_step_calls_ for its life.
  class StepCall {
   public:
    explicit StepCall(std::atomic<int>& open) : open_(open) { ++open_; }
    StepCall(const StepCall&) = delete;
    StepCall& operator=(const StepCall&) = delete;
    ~StepCall() { --open_; }

   private:
    std::atomic<int>& open_;
  };
  std::mutex streams_mu_;
  std::map<uid_t, int> open_streams_;  // under streams_mu_
  // One stream's place in open_streams_, given back when it goes.
  class StreamSlot {
   public:
    StreamSlot(NodedService* service, uid_t uid) : service_(service), uid_(uid) {}
    StreamSlot(const StreamSlot&) = delete;
    StreamSlot& operator=(const StreamSlot&) = delete;
    ~StreamSlot();

   private:
    NodedService* service_;
    uid_t uid_;
  };
  // A place for a stream of `uid` (none needed for root and SlurmUser):
  // PermissionDenied for a user with no job here, ResourceExhausted at the cap.
  absl::Status TakeStreamSlot(uid_t uid, std::optional<StreamSlot>* slot);

  // The tasks RunTasks runs on this node now, for StatTasks and EndJobOnNode
  // (the steps this node manages are StepManager's).
  std::mutex tasks_mu_;
  std::map<std::pair<uint64_t, uint32_t>, StepTasks*> local_tasks_;       // under tasks_mu_
  std::map<std::pair<uint64_t, uint32_t>, std::vector<int>> local_gpus_;  // under tasks_mu_

  // `sig` to every task of every step of `job_id` that this node manages, on
  // all the step's nodes. NotFound when the job does not run here.
  absl::Status SignalLiveSteps(uint64_t job_id, int sig);

  v1::Noded::Stub& StubFor(const std::string& address);
  std::mutex stubs_mu_;
  std::map<std::string, std::unique_ptr<v1::Noded::Stub>> stubs_;  // by "addr:port"
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_NODED_SERVICE_H_
