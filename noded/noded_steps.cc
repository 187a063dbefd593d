// NodedService's job steps: RunStep (the step manager, on a job's first node)
// and RunTasks (a step's tasks on one node). See noded.proto and
// noded/steps/.
//
// Threads of one RunStep call: the gRPC thread reads srun's input (stdin,
// signals) until srun closes its side and passes it to the step's StepRun
// (noded/steps/step_run.h), whose threads read the nodes' streams (a RunTasks
// call, or for this node a LocalTaskStream with its own thread), forward them
// to srun through `write` (serialized by `write_mu`) and end the step.
//
// A node's call is closed only once srun has heard the step's end (srun closes
// its side after the last message, having printed every task's failure), or
// srun went away, or the job ended here, or kSrunHearsTheEnd passed: a node
// whose Prolog failed reports it when its call closes, and ctld's requeue then
// ends the batch script and its srun, which must have said why first.
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/peer_address.h"
#include "common/rpc/status.h"
#include "common/users.h"
#include "noded/container/container_support.h"
#include "noded/container/image_container.h"
#include "noded/file_io.h"
#include "noded/gpu/gpu_usage_proto.h"
#include "noded/noded_service.h"
#include "noded/steps/step_env.h"
#include "noded/steps/step_record.h"
#include "noded/steps/step_run.h"
#include "noded/steps/step_tasks.h"
#include "noded/steps/task_usage.h"
#include "noded/task_streams.h"

namespace skiff::noded {
namespace {

// How long the nodes' calls stay open after the step's last message waiting for
// srun to close its side (it does at once unless stopped or stuck; a dead srun's
// stream ends at once).
constexpr std::chrono::seconds kSrunHearsTheEnd{30};

// How far one sattach may fall behind the step's output before it is dropped.
constexpr size_t kAttachBufferBytes = 8 << 20;

// The job's nodes a step is carved from, once its request is known runnable.
absl::StatusOr<std::vector<StepNode>> StepNodesOf(const v1::StepRequest& request,
                                                  const LaunchSpec& job) {
  if (request.ntasks() < 1 || request.argv().empty()) {
    return absl::InvalidArgumentError("a step needs a command and ntasks >= 1");
  }
  std::vector<StepNode> nodes;
  for (const AllocatedNode& n : job.allocation) {
    nodes.push_back({n.name, n.address, n.cpus, n.memory_mb, n.gpus});
  }
  if (nodes.empty()) {
    return absl::FailedPreconditionError(
        "the job was launched without its allocation (an older ctld): no steps");
  }
  return nodes;
}

// srun's first answer: the step exists, and where its tasks run.
v1::StepOutput StepCreated(const StepGrant& grant) {
  v1::StepOutput created;
  created.set_created(true);
  created.set_step_id(grant.step_id);
  for (const StepNodeShare& share : grant.share.nodes) {
    v1::StepTaskPlacement* place = created.add_placement();
    place->set_node(grant.nodes[share.node].name);
    for (int t : share.task_ids) place->add_task_ids(t);
    place->set_cpus(share.cpus);
    place->set_memory_mb(share.memory_mb);
    for (int g : share.gpus) place->add_gpu_indices(g);
  }
  return created;
}

// The launch of each node's tasks, in the grant's order, with the step's
// environment. `manager_node` (this node) needs no job spec: its Prolog ran
// with the job.
std::vector<v1::TaskInput> TaskLaunches(const v1::StepRequest& request, const LaunchSpec& job,
                                        const StepGrant& grant, const std::string& srun_address,
                                        const std::string& manager_node) {
  StepFacts facts;
  facts.job_id = request.job_id();
  facts.step_id = grant.step_id;
  facts.ntasks = request.ntasks();
  facts.cpus_per_task = request.cpus_per_task() > 1 ? request.cpus_per_task() : 0;
  facts.srun_address = srun_address;
  facts.distribution = request.distribution_name().empty() ? "block" : request.distribution_name();
  if (request.distribution() == v1::StepRequest::PLANE) facts.plane_size = request.plane_size();
  for (const StepNodeShare& share : grant.share.nodes) {
    facts.nodes.push_back(grant.nodes[share.node].name);
    facts.tasks_per_node.push_back(static_cast<int>(share.task_ids.size()));
  }
  std::map<std::string, std::string> env(request.environment().begin(),
                                         request.environment().end());
  AddStepEnvironment(facts, &env);
  const std::string job_spec_text = FormatLaunchSpec(job);
  std::vector<v1::TaskInput> launches;
  for (size_t i = 0; i < grant.share.nodes.size(); ++i) {
    const StepNodeShare& share = grant.share.nodes[i];
    const StepNode& node = grant.nodes[share.node];
    v1::TaskLaunch* launch = launches.emplace_back().mutable_launch();
    launch->set_job_id(request.job_id());
    launch->set_step_id(grant.step_id);
    launch->set_uid(job.uid);
    launch->set_gid(job.gid);
    launch->set_user_name(job.user_name);
    for (int t : share.task_ids) launch->add_task_ids(t);
    for (const std::string& arg : request.argv()) launch->add_argv(arg);
    for (const std::string& arg : request.task_argv()) launch->add_task_argv(arg);
    for (const auto& [key, value] : env) (*launch->mutable_environment())[key] = value;
    launch->set_work_dir(request.work_dir());
    launch->set_node_id(static_cast<int>(i));
    launch->set_cpus(share.cpus);
    for (int g : share.gpus) launch->add_gpu_indices(g);
    launch->set_gpus_per_task(request.gpu_bind_per_task() == 0
                                  ? request.gpus_per_task()
                                  : std::max(0, request.gpu_bind_per_task()));
    launch->set_gpu_bind(request.gpu_bind());
    launch->set_stdin_all(request.stdin_task() == -1);  // -2: no task's (-i none, -i FILE)
    launch->set_stdin_task(request.stdin_task());
    launch->set_pty(request.pty());
    if (request.has_window()) *launch->mutable_window() = request.window();
    launch->set_task_prolog(request.task_prolog());
    launch->set_task_epilog(request.task_epilog());
    *launch->mutable_container() = request.container();
    launch->set_output_pattern(request.output_pattern());
    launch->set_error_pattern(request.error_pattern());
    launch->set_input_pattern(request.input_pattern());
    if (request.has_output_task()) launch->set_output_task(request.output_task());
    if (request.has_error_task()) launch->set_error_task(request.error_task());
    launch->set_slurmd_debug(request.slurmd_debug());
    if (auto name = job.environment.find("SLURM_JOB_NAME"); name != job.environment.end()) {
      launch->set_job_name(name->second);
    }
    // Another node runs its Prolog with it before the job's first step there.
    if (node.name != manager_node) launch->set_job_spec(job_spec_text);
  }
  return launches;
}

StepRunSpec StepRunSpecOf(const v1::StepRequest& request, const StepGrant& grant,
                          const std::string& manager_node, int kill_wait) {
  StepRunSpec spec;
  spec.job_id = request.job_id();
  spec.step_id = grant.step_id;
  spec.manager_node = manager_node;
  for (const StepNodeShare& share : grant.share.nodes) {
    spec.nodes.push_back(grant.nodes[share.node].name);
    spec.task_ids.push_back(share.task_ids);
  }
  spec.time_limit = std::chrono::seconds(std::max<int64_t>(0, request.time_limit()));
  spec.kill_wait = std::chrono::seconds(kill_wait);
  spec.kill_on_bad_exit = request.kill_on_bad_exit();
  spec.srun_hears_the_end = kSrunHearsTheEnd;
  return spec;
}

void AddTaskUsage(int task_id, const std::string& node, const TaskUsage& usage,
                  v1::StatStepReply* reply) {
  v1::TaskUsage* out = reply->add_tasks();
  out->set_task_id(task_id);
  out->set_node(node);
  out->set_cpu_seconds(usage.cpu_seconds);
  out->set_rss_bytes(usage.rss_bytes);
  out->set_max_rss_bytes(usage.max_rss_bytes);
  out->set_vmsize_bytes(usage.vmsize_bytes);
  out->set_max_vmsize_bytes(usage.max_vmsize_bytes);
  out->set_pages(usage.pages);
  out->set_read_bytes(usage.read_bytes);
  out->set_write_bytes(usage.write_bytes);
  for (pid_t p : usage.pids) out->add_pids(p);
}

}  // namespace

StepAsk StepAskFromProto(const v1::StepRequest& request) {
  StepAsk ask;
  ask.ntasks = request.ntasks();
  ask.min_nodes = request.min_nodes();
  ask.max_nodes = request.max_nodes();
  ask.ntasks_per_node = request.ntasks_per_node();
  ask.cpus_per_task = std::max(1, request.cpus_per_task());
  ask.mem_given = request.mem_given();
  ask.mem_per_node_mb = request.mem_per_node_mb();
  ask.mem_per_cpu_mb = request.mem_per_cpu_mb();
  ask.mem_per_gpu_mb = request.mem_per_gpu_mb();
  ask.gpus_per_node = request.gpus_per_node();
  ask.gpus_total = request.gpus_total();
  ask.gpus_per_task = request.gpus_per_task();
  ask.nodelist.assign(request.nodelist().begin(), request.nodelist().end());
  ask.exclude.assign(request.exclude().begin(), request.exclude().end());
  ask.exact = request.exact();
  ask.overlap = request.overlap();
  ask.overcommit = request.overcommit();
  if (request.distribution() == v1::StepRequest::CYCLIC) {
    ask.distribution = StepAsk::Distribution::kCyclic;
  } else if (request.distribution() == v1::StepRequest::PLANE) {
    ask.distribution = StepAsk::Distribution::kPlane;
    ask.plane_size = std::max(1, request.plane_size());
  }
  return ask;
}

NodedService::StreamSlot::~StreamSlot() {
  std::lock_guard<std::mutex> lock(service_->streams_mu_);
  if (--service_->open_streams_[uid_] == 0) service_->open_streams_.erase(uid_);
}

absl::Status NodedService::TakeStreamSlot(uid_t uid, std::optional<StreamSlot>* slot) {
  if (uid == 0 || uid == slurm_user_uid_) return absl::OkStatus();
  if (!jobs_.RunsAJobOf(uid)) return absl::PermissionDeniedError("Access/permission denied");
  std::lock_guard<std::mutex> lock(streams_mu_);
  int& open = open_streams_[uid];
  if (open >= max_step_streams_per_user_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "uid ", uid, " has ", open, " step streams open on this node, the most one user may"));
  }
  ++open;
  slot->emplace(this, uid);
  return absl::OkStatus();
}

absl::StatusOr<LaunchSpec> NodedService::JobOfCaller(const Identity& caller, uint64_t job_id) {
  absl::StatusOr<LaunchSpec> job = jobs_.RunningJobSpec(job_id);
  if (!job.ok()) return absl::NotFoundError("Job/step already completing or completed");
  if (caller.uid != 0 && caller.uid != slurm_user_uid_ && caller.uid != job->uid) {
    return absl::PermissionDeniedError("Access/permission denied");
  }
  return job;
}

v1::Noded::Stub& NodedService::StubFor(const std::string& address) {
  std::lock_guard<std::mutex> lock(stubs_mu_);
  std::unique_ptr<v1::Noded::Stub>& stub = stubs_[address];
  if (!stub) stub = v1::Noded::NewStub(MakeChannel(address));
  return *stub;
}

std::unique_ptr<TaskStream> NodedService::OpenTaskStream(const v1::TaskInput& launch,
                                                         const StepNode& node) {
  if (node.name == node_name_) {
    // This node's own tasks: the same service, without a call to itself.
    return std::make_unique<LocalTaskStream>(
        [this, launch = launch.launch()](TaskPeer& peer) { ServeTasks(launch, peer); });
  }
  v1::Noded::Stub& stub = StubFor(node.address);
  return std::make_unique<RemoteTaskStream>(
      [&](grpc::ClientContext* context)
          -> std::unique_ptr<grpc::ClientReaderWriter<v1::TaskInput, v1::TaskOutput>> {
        if (!AttachCredential(auth_, context).ok()) return nullptr;
        auto stream = stub.RunTasks(context);
        stream->Write(launch);
        return stream;
      });
}

grpc::Status NodedService::RunStep(
    grpc::ServerContext* context, grpc::ServerReaderWriter<v1::StepOutput, v1::StepInput>* stream) {
  const StepCall counted(open_step_calls_);
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // Refused before this thread waits for the request: a user with no job here
  // has nothing to run, and one user's streams are capped.
  std::optional<StreamSlot> slot;
  if (absl::Status s = TakeStreamSlot(caller->uid, &slot); !s.ok()) return ToGrpcStatus(s);
  v1::StepInput first;
  if (!stream->Read(&first) || !first.has_request()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of a step must be its request");
  }
  const v1::StepRequest& request = first.request();
  const uint64_t job_id = request.job_id();
  absl::StatusOr<LaunchSpec> job = JobOfCaller(*caller, job_id);
  if (!job.ok()) return ToGrpcStatus(job.status());
  absl::StatusOr<std::vector<StepNode>> nodes = StepNodesOf(request, *job);
  if (!nodes.ok()) return ToGrpcStatus(nodes.status());

  // sattach's copies: whatever srun is sent from the moment one attaches.
  auto watchers = std::make_shared<StepWatchers>(kAttachBufferBytes);
  std::mutex write_mu;
  auto write = [&](const v1::StepOutput& out) {
    std::lock_guard<std::mutex> lock(write_mu);
    stream->Write(out);
    watchers->Publish(out);
  };
  absl::StatusOr<StepGrant> grant = steps_.CreateStep(
      job_id, *nodes, StepAskFromProto(request), request.immediate(),
      [&](const std::string& reason) {
        v1::StepOutput out;
        out.set_waiting_reason(reason);
        write(out);
      },
      [&] { return context->IsCancelled() || !jobs_.IsRunning(job_id); });
  if (!grant.ok()) {
    if (!jobs_.IsRunning(job_id)) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "Job/step already completing or completed");
    }
    return ToGrpcStatus(grant.status());
  }
  write(StepCreated(*grant));
  // ctld hears about the step now and at its end (for squeue -s and sacct),
  // after the fact: it is not on the step's path.
  v1::AcctStep record = StepRecordAtStart(request, *grant, time(nullptr));
  step_reports_.Push(job_id, record);

  const std::vector<v1::TaskInput> launches =
      TaskLaunches(request, *job, *grant, PeerAddress(context->peer()), node_name_);
  StepRunDeps deps;
  deps.open_stream = [&](size_t i) {
    return OpenTaskStream(launches[i], grant->nodes[grant->share.nodes[i].node]);
  };
  deps.sink = write;
  deps.job_running = [&] { return jobs_.IsRunning(job_id); };
  deps.told_srun = [&](const StepOutcome& outcome) { StepToldSrun(job_id, *grant, outcome); };
  StepRun run(StepRunSpecOf(request, *grant, node_name_, jobs_.kill_wait()), std::move(deps));
  steps_.AddLive(job_id, *grant, &run, watchers);
  // srun's input until it closes its side (after `finished`) or goes away.
  for (v1::StepInput input; stream->Read(&input);) {
    if (std::optional<v1::TaskInput> forward = TaskInputFromSrun(input)) run.Input(*forward);
  }
  run.SrunClosed();
  EndStep(job_id, *grant, run.Wait(), watchers.get(), &record);
  return grpc::Status::OK;
}

void NodedService::StepToldSrun(uint64_t job_id, const StepGrant& grant,
                                const StepOutcome& outcome) {
  if (outcome.failed && logger_ != nullptr) {
    logger_->info(
        "StepId={}.{}: a task failed to start or was lost; the nodes' calls close once srun has "
        "heard why",
        job_id, grant.step_id);
  }
}

void NodedService::EndStep(uint64_t job_id, const StepGrant& grant, const StepOutcome& outcome,
                           StepWatchers* watchers, v1::AcctStep* record) {
  watchers->Close();
  FinishStepRecord(outcome, time(nullptr), record);
  step_reports_.Push(job_id, *record);
  steps_.EndStep(job_id, grant);
  steps_.ForgetEndedJobs([this](uint64_t id) { return jobs_.IsRunning(id); });
}

grpc::Status NodedService::SignalStep(grpc::ServerContext* context,
                                      const v1::SignalStepRequest* request, v1::SignalStepReply*) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  const bool running =
      steps_.ActOnLive(request->job_id(), request->step_id(), [&](StepHandle& step) {
        if (request->signal() == SIGKILL) {
          step.Cancel();  // the step's record says CANCELLED
        } else {
          step.Signal(request->signal());
        }
      });
  if (!running) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "Job/step already completing or completed");
  }
  return grpc::Status::OK;
}

std::map<uint64_t, std::vector<int>> NodedService::StepGpus() {
  std::map<uint64_t, std::vector<int>> out;
  std::lock_guard<std::mutex> lock(tasks_mu_);
  for (const auto& [key, gpus] : local_gpus_) {
    std::vector<int>& job = out[key.first];
    for (int index : gpus) {
      if (std::find(job.begin(), job.end(), index) == job.end()) job.push_back(index);
    }
  }
  return out;
}

grpc::Status NodedService::StatTasks(grpc::ServerContext* context,
                                     const v1::StatStepRequest* request, v1::StatStepReply* reply) {
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  std::vector<std::pair<int, pid_t>> running;
  {
    std::lock_guard<std::mutex> lock(tasks_mu_);
    auto it = local_tasks_.find({request->job_id(), request->step_id()});
    if (it == local_tasks_.end()) return grpc::Status::OK;  // none left here
    running = it->second->RunningTasks();
  }
  for (const auto& [task_id, pid] : running) {  // /proc is read outside the lock
    AddTaskUsage(task_id, node_name_, SampleTaskUsage(pid), reply);
  }
  return grpc::Status::OK;
}

grpc::Status NodedService::StatStep(grpc::ServerContext* context,
                                    const v1::StatStepRequest* request, v1::StatStepReply* reply) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<LaunchSpec> job = JobOfCaller(*caller, request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  if (request->batch()) {
    absl::StatusOr<pid_t> pid = jobs_.BatchPid(request->job_id());
    if (!pid.ok()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "Job/step already completing or completed");
    }
    const TaskUsage usage = SampleTaskUsage(*pid);
    AddTaskUsage(0, node_name_, usage, reply);
    reply->set_ntasks(1);
    reply->set_node_list(node_name_);
    if (gpu_uses_) {
      for (const GpuUse& gpu : gpu_uses_(request->job_id())) {
        v1::GpuUsage* out = reply->add_gpus();
        GpuUseToProto(gpu, out);
        out->set_node(node_name_);
      }
    }
    return grpc::Status::OK;
  }
  std::optional<LiveStep> live = steps_.FindLive(request->job_id(), request->step_id());
  if (!live) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "Job/step already completing or completed");
  }
  reply->set_ntasks(StepTaskCount(live->grant));
  std::vector<std::string> names;
  for (const auto& [name, address] : StepNodeAddresses(live->grant)) {
    names.push_back(name);
    grpc::ClientContext call;
    call.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!AttachCredential(auth_, &call).ok()) continue;
    v1::StatStepReply part;
    if (StubFor(address).StatTasks(&call, *request, &part).ok()) {
      for (const v1::TaskUsage& task : part.tasks()) *reply->add_tasks() = task;
    }
  }
  std::sort(
      reply->mutable_tasks()->begin(), reply->mutable_tasks()->end(),
      [](const v1::TaskUsage& a, const v1::TaskUsage& b) { return a.task_id() < b.task_id(); });
  reply->set_node_list(CompressHostlist(names));
  return grpc::Status::OK;
}

grpc::Status NodedService::EndAllocation(grpc::ServerContext* context,
                                         const v1::EndAllocationRequest* request,
                                         v1::EndAllocationReply*) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, *context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<LaunchSpec> job = JobOfCaller(*caller, request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  return ToGrpcStatus(jobs_.EndAllocation(request->job_id(), request->exit_code()));
}

namespace {

// RunTasks's server stream as ServeTasks sees it.
class GrpcTaskPeer final : public TaskPeer {
 public:
  GrpcTaskPeer(grpc::ServerContext* context,
               grpc::ServerReaderWriter<v1::TaskOutput, v1::TaskInput>* stream)
      : context_(context), stream_(stream) {}
  bool Read(v1::TaskInput* input) override { return stream_->Read(input); }
  bool Write(const v1::TaskOutput& output) override { return stream_->Write(output); }
  bool Cancelled() override { return context_->IsCancelled(); }

 private:
  grpc::ServerContext* context_;
  grpc::ServerReaderWriter<v1::TaskOutput, v1::TaskInput>* stream_;
};

}  // namespace

grpc::Status NodedService::RunTasks(
    grpc::ServerContext* context, grpc::ServerReaderWriter<v1::TaskOutput, v1::TaskInput>* stream) {
  const StepCall counted(open_step_calls_);
  if (grpc::Status auth = AuthenticateCtld(*context); !auth.ok()) return auth;
  v1::TaskInput first;
  if (!stream->Read(&first) || !first.has_launch()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of RunTasks must be the launch");
  }
  GrpcTaskPeer peer(context, stream);
  ServeTasks(first.launch(), peer);
  return grpc::Status::OK;
}

namespace {

// noded's log level by Slurm's name (srun --slurmd-debug's first line).
std::string SlurmLevelName(const spdlog::logger* logger) {
  switch (logger != nullptr ? logger->level() : spdlog::level::info) {
    case spdlog::level::off:
      return "quiet";
    case spdlog::level::critical:
      return "fatal";
    case spdlog::level::err:
    case spdlog::level::warn:
      return "error";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::trace:
      return "debug2";
    default:
      return "info";
  }
}

// Each task of `launch` on this node as the shepherd starts it: its command
// line (--multi-prog's own, else the step's), its standard streams (srun's
// -o/-e/-i patterns expanded for the task), its environment and limits, and
// a terminal for task zero with --pty. `gpu_cuda_names`: the node's MIG
// devices' names for CUDA, by GPU index.
std::vector<TaskSpawn> TaskSpawnsFrom(const v1::TaskLaunch& launch, const std::string& node_name,
                                      const std::vector<std::string>& gpu_cuda_names) {
  const std::map<std::string, std::string> step_env(launch.environment().begin(),
                                                    launch.environment().end());
  // --multi-prog: each task's own command line ("task_id\0arg0\0arg1...").
  std::map<int, std::vector<std::string>> task_argv;
  for (const std::string& packed : launch.task_argv()) {
    std::vector<std::string> words = absl::StrSplit(packed, '\0');
    int id = 0;
    if (words.size() < 2 || !absl::SimpleAtoi(words[0], &id)) continue;
    task_argv[id].assign(words.begin() + 1, words.end());
  }
  IoPatternFacts io;
  io.job_id = launch.job_id();
  io.step_id = launch.step_id();
  io.node_id = launch.node_id();
  io.node_name = node_name;
  io.user = launch.user_name();
  io.job_name = launch.job_name();
  const TaskLimits limits = TaskLimitsFrom(step_env);
  TaskNodeFacts node;
  node.node_name = node_name;
  node.node_id = launch.node_id();
  node.task_ids.assign(launch.task_ids().begin(), launch.task_ids().end());
  node.cpus = launch.cpus();
  node.gpus.assign(launch.gpu_indices().begin(), launch.gpu_indices().end());
  node.gpu_cuda_names = gpu_cuda_names;
  node.gpus_per_task = launch.gpus_per_task();
  node.gpu_bind = launch.gpu_bind();
  std::vector<TaskSpawn> spawns;
  for (int local = 0; local < launch.task_ids_size(); ++local) {
    const int task_id = launch.task_ids(local);
    TaskSpawn spawn;
    spawn.task_id = task_id;
    if (auto own = task_argv.find(task_id); own != task_argv.end()) {
      spawn.argv = own->second;
    } else {
      spawn.argv.assign(launch.argv().begin(), launch.argv().end());
    }
    io.task_id = task_id;
    if (!launch.output_pattern().empty()) {
      spawn.stdout_path = ExpandIoPattern(launch.output_pattern(), io);
    }
    if (!launch.error_pattern().empty()) {
      spawn.stderr_path = ExpandIoPattern(launch.error_pattern(), io);
    }
    if (!launch.input_pattern().empty())
      spawn.stdin_path = ExpandIoPattern(launch.input_pattern(), io);
    // -o N / -e N: the other tasks' stream is discarded here; -e all or -e N
    // keeps the stream's stderr even when its stdout goes to a file.
    if (launch.has_output_task() && task_id != launch.output_task()) {
      spawn.stdout_path = "/dev/null";
    }
    if (launch.has_error_task()) {
      if (launch.error_task() >= 0 && task_id != launch.error_task()) {
        spawn.stderr_path = "/dev/null";
      } else {
        spawn.stderr_streamed = true;
      }
    }
    spawn.env = TaskEnvironment(step_env, node, task_id, local);
    spawn.umask = limits.umask;
    spawn.rlimits = limits.rlimits;
    spawn.task_prolog = launch.task_prolog();
    spawn.task_epilog = launch.task_epilog();
    spawn.stdin_pipe = launch.stdin_all() || launch.stdin_task() == task_id;
    spawn.pty = launch.pty() && task_id == 0;  // --pty: task zero on a terminal
    if (spawn.pty) {
      spawn.rows = launch.window().rows();
      spawn.cols = launch.window().cols();
    }
    spawns.push_back(std::move(spawn));
  }
  return spawns;
}

// As slurmd answers srun when a step cannot start here: every task of this
// node fails to launch, for `why`.
void AnswerLaunchFailed(const v1::TaskLaunch& launch, const std::string& node_name,
                        const std::string& why, TaskPeer& peer) {
  v1::TaskOutput started;
  started.set_started(true);
  for (int task_id : launch.task_ids()) {
    v1::TaskExit* exit = started.add_task_exit();
    exit->set_task_id(task_id);
    exit->set_exit_code(1);
    exit->set_failure(absl::StrCat("Task launch for StepId=", launch.job_id(), ".",
                                   launch.step_id(), " failed on node ", node_name, ": ", why));
  }
  peer.Write(started);
  v1::TaskOutput last;
  last.set_finished(true);
  peer.Write(last);
  v1::TaskInput ignored;
  // Until the step manager closes the call, which it does once srun has heard
  // the failure (RunStep): a prolog's report then makes ctld end the job and srun.
  while (peer.Read(&ignored)) {
  }
}

// The started tasks' life through `peer`: srun's input and signals go to the
// tasks (a reader thread), their output and ends come back, until all have
// ended (or the call is cancelled: what is left is killed); then `finished`,
// and the step manager closes its side.
void PumpStep(const v1::TaskLaunch& launch, StepTasks& tasks, TaskPeer& peer) {
  v1::TaskOutput started;
  started.set_started(true);
  peer.Write(started);
  std::thread reader([&] {
    v1::TaskInput input;
    while (peer.Read(&input)) {
      if (input.what_case() == v1::TaskInput::kStdin) {
        tasks.WriteStdin(launch.stdin_all() ? -1 : launch.stdin_task(), input.stdin());
      } else if (input.what_case() == v1::TaskInput::kTaskStdin) {
        tasks.WriteStdin(input.task_stdin().task_id(), input.task_stdin().data());
      } else if (input.what_case() == v1::TaskInput::kStdinEof) {
        tasks.CloseStdin();
      } else if (input.what_case() == v1::TaskInput::kSignal) {
        tasks.Signal(input.signal());
      } else if (input.what_case() == v1::TaskInput::kWindow) {
        tasks.Resize(input.window().rows(), input.window().cols());
      }
    }
  });
  bool more = true;
  while (more && !peer.Cancelled()) {
    more = tasks.Pump(
        100,
        [&](int task_id, bool is_stderr, const std::string& data) {
          v1::TaskOutput out;
          out.set_task_id(task_id);
          out.set_is_stderr(is_stderr);
          out.set_data(data);
          peer.Write(out);
        },
        [&](const TaskEnd& end) {
          v1::TaskOutput out;
          v1::TaskExit* exit = out.add_task_exit();
          exit->set_task_id(end.task_id);
          exit->set_exit_code(end.exit_code);
          exit->set_signal(end.signal);
          exit->set_failure(end.failure);
          exit->set_user_cpu_usec(end.user_cpu_usec);
          exit->set_system_cpu_usec(end.system_cpu_usec);
          exit->set_max_rss_kb(end.max_rss_kb);
          peer.Write(out);
        });
  }
  if (peer.Cancelled()) tasks.Signal(SIGKILL);
  v1::TaskOutput last;
  last.set_finished(true);
  peer.Write(last);
  reader.join();  // the step manager closes its side once it has `finished`
}

}  // namespace

StepTasksSpec NodedService::TaskSpecFrom(const v1::TaskLaunch& launch) {
  StepTasksSpec spec;
  spec.uid = launch.uid();
  spec.gid = launch.gid();
  spec.groups = GroupsOfUser(launch.user_name(), launch.gid());
  spec.work_dir = launch.work_dir();
  // On the job's own node its tasks join the job's cgroup, and name its GPUs
  // as the job does (an MPS job's GPU is its server's device 0).
  std::vector<std::string> cuda_names = jobs_.options().gpu_cuda_names;
  if (absl::StatusOr<LaunchSpec> job = jobs_.RunningJobSpec(launch.job_id()); job.ok()) {
    spec.cgroup_procs_files = jobs_.CgroupProcsFiles(*job);
    if (!job->gpu_cuda_names.empty()) cuda_names = job->gpu_cuda_names;
  }
  spec.task_wrapper = jobs_.options().shepherd_binary;
  spec.tasks = TaskSpawnsFrom(launch, node_name_, cuda_names);
  spec.debug = launch.slurmd_debug();
  if (spec.debug > 0) spec.log_level = SlurmLevelName(logger_);
  return spec;
}

void NodedService::ServeTasks(const v1::TaskLaunch& launch, TaskPeer& peer) {
  StepTasksSpec spec = TaskSpecFrom(launch);
  const StepContainer container = PrepareStepContainer(launch, spec);
  bool prolog_ran_here = false;
  const std::string prolog = PrologBeforeFirstStep(launch, &prolog_ran_here);
  if (!prolog.empty() || !container.failure.empty()) {
    AnswerLaunchFailed(launch, node_name_, prolog.empty() ? container.failure : "Job prolog failed",
                       peer);
    if (prolog_ran_here && !prolog.empty()) ReportPrologFailure(launch, prolog);
    if (!container.spool.empty()) (void)RemoveJobDir(container.spool);
    if (!container.image_bundle.empty()) ReleaseImageContainer(container.image_bundle);
    return;
  }
  std::unique_ptr<StepTasks> tasks = StepTasks::Start(spec);
  const std::pair<uint64_t, uint32_t> local_key{launch.job_id(), launch.step_id()};
  {
    std::lock_guard<std::mutex> lock(tasks_mu_);
    local_tasks_[local_key] = tasks.get();
    local_gpus_[local_key].assign(launch.gpu_indices().begin(), launch.gpu_indices().end());
  }
  PumpStep(launch, *tasks, peer);
  {
    std::lock_guard<std::mutex> lock(tasks_mu_);
    local_tasks_.erase(local_key);
    local_gpus_.erase(local_key);
  }
  tasks.reset();  // kills what is left and reaps it
  if (!container.spool.empty()) EndStepContainers(spec, container.spool);
  if (!container.image_bundle.empty()) ReleaseImageContainer(container.image_bundle);
}

}  // namespace skiff::noded
