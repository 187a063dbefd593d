#include "noded/node_agent.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "noded/gpu/gpu_usage_proto.h"

namespace skiff::noded {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr auto kRpcTimeout = std::chrono::seconds(5);
constexpr double kMinBackoff = 0.2;
constexpr double kMaxBackoff = 10.0;
constexpr size_t kStepBatch = 500;
constexpr double kStepLinger = 0.1;  // seconds

void ToProto(const JobReport& report, v1::NodeJobReport* out) {
  out->set_job_id(report.job_id);
  out->set_finished(report.finished);
  if (!report.finished) return;
  out->set_exit_code(report.result.exit_code);
  out->set_exit_signal(report.result.signal);
  out->set_failure(report.result.failure);
  out->set_fenced(report.result.fenced);
  out->set_oom_kills(report.result.oom_kills);
  out->set_prolog_error(report.result.prolog_error);
  out->set_epilog_error(report.result.epilog_error);
  for (const NodeScriptError& failure : report.result.node_epilog_errors) {
    v1::NodeScriptFailure* f = out->add_node_epilog_errors();
    f->set_node(failure.node);
    f->set_error(failure.error);
  }
  out->set_run(report.result.run);
  if (report.result.has_usage) {
    out->set_has_usage(true);
    out->set_user_cpu_usec(report.result.user_cpu_usec);
    out->set_system_cpu_usec(report.result.system_cpu_usec);
    out->set_max_rss_kb(report.result.max_rss_kb);
  }
  for (const GpuUse& gpu : report.result.gpus) GpuUseToProto(gpu, out->add_gpus());
}

SteadyClock::time_point After(double seconds) {
  return SteadyClock::now() +
         std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

NodeAgent::NodeAgent(std::vector<std::string> ctld_targets, v1::RegisterRequest hardware,
                     JobReportSource& jobs, Authenticator& auth, spdlog::logger& logger)
    : ctld_targets_(std::move(ctld_targets)),
      ctld_target_(ctld_targets_.front()),
      hardware_(std::move(hardware)),
      jobs_(jobs),
      auth_(auth),
      logger_(logger),
      stub_(v1::NodeService::NewStub(MakeChannel(ctld_target_))) {}

NodeAgent::~NodeAgent() { Stop(); }

void NodeAgent::NextControllerAfter(const grpc::Status& status) {
  // A standby's refusal or a stopped controller (UNAVAILABLE), or one whose
  // machine is off or cut off (no answer before the deadline).
  if (ctld_targets_.size() < 2 || (status.error_code() != grpc::StatusCode::UNAVAILABLE &&
                                   status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED)) {
    return;
  }
  auto at = std::find(ctld_targets_.begin(), ctld_targets_.end(), ctld_target_);
  const size_t next = (static_cast<size_t>(at - ctld_targets_.begin()) + 1) % ctld_targets_.size();
  ctld_target_ = ctld_targets_[next];
  stub_ = v1::NodeService::NewStub(MakeChannel(ctld_target_));
}

void NodeAgent::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void NodeAgent::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NodeAgent::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void NodeAgent::WakeForSteps() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (steps_woken_) return;  // a send is already due
    steps_woken_ = true;
  }
  cv_.notify_all();
}

bool NodeAgent::Sleep(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_; });
}

bool NodeAgent::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void NodeAgent::GrowReportBackoff() {
  report_backoff_ = report_backoff_ == 0 ? kMinBackoff : std::min(report_backoff_ * 2, kMaxBackoff);
}

bool NodeAgent::Register() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
    logger_.error("cannot register: {}", std::string(s.message()));
    return false;
  }
  v1::RegisterRequest request = hardware_;
  if (std::optional<NodeLoad> load = load_source_()) {
    request.set_cpu_load(load->cpu_load);
    request.set_free_memory_mb(load->free_memory_mb);
  }
  for (const JobReport& job : jobs_.Jobs()) ToProto(job, request.add_jobs());
  v1::RegisterReply reply;
  grpc::Status status = stub_->Register(&context, request, &reply);
  if (!status.ok()) {
    logger_.warn("registration with ctld at {} failed: {}", ctld_target_, status.error_message());
    RenewLeasesIfCtldIsDown(status);
    NoteCredentialRefused(status);
    NextControllerAfter(status);
    return false;
  }
  // A deposed controller's answer (it woke from a hang and has not yet seen
  // its lease gone): nothing it says is acted on, and the next one is asked.
  if (fence_ != nullptr) {
    if (absl::Status s = fence_->Admit(reply.controller_epoch()); !s.ok()) {
      logger_.warn("registration with ctld at {}: {}", ctld_target_, std::string(s.message()));
      NextControllerAfter(grpc::Status(grpc::StatusCode::UNAVAILABLE, "deposed"));
      return false;
    }
  }
  jobs_.RenewLeases();
  heartbeat_interval_ = std::max<int64_t>(1, reply.heartbeat_interval());
  logger_.info("NodeName={} registered with ctld at {} ({} jobs); heartbeat every {}s",
               hardware_.node_name(), ctld_target_, request.jobs_size(), heartbeat_interval_);
  for (uint64_t job_id : reply.jobs_to_terminate()) {
    logger_.info("JobId={}: ctld no longer wants it", job_id);
    jobs_.Abandon(job_id);
  }
  if (config_hash_listener_) config_hash_listener_(reply.config_hash());
  return true;
}

// A refused connection means ctld's host answered and nothing listens on ctld's
// port: ctld is down (or restarting), and a ctld that is down requeues nothing;
// once it is back it counts every node as silent only from its own start, so the
// node has a whole SlurmdTimeout to register again. Jobs keep running. A timeout
// (ctld stopped, the network cut) renews nothing: ctld may be up on the far side
// and about to requeue.
void NodeAgent::RenewLeasesIfCtldIsDown(const grpc::Status& status) {
  ctld_refused_ = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
                  status.error_message().find("Connection refused") != std::string::npos;
  if (ctld_refused_) jobs_.RenewLeases();
}

void NodeAgent::NoteCredentialRefused(const grpc::Status& status) {
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED && credential_refused_listener_) {
    credential_refused_listener_();
  }
}

bool NodeAgent::Heartbeat() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
    logger_.error("heartbeat: {}", std::string(s.message()));
    return true;  // a munge hiccup is no reason to re-register
  }
  v1::HeartbeatRequest request;
  request.set_node_name(hardware_.node_name());
  if (std::optional<NodeLoad> load = load_source_()) {
    request.set_cpu_load(load->cpu_load);
    request.set_free_memory_mb(load->free_memory_mb);
  }
  std::vector<RunningJobGpus> gpus;
  if (gpu_take_) gpus = gpu_take_();
  for (const RunningJobGpus& job : gpus) {
    v1::NodeJobGpus* out = request.add_job_gpus();
    out->set_job_id(job.job_id);
    for (size_t i = 0; i < job.gpus.size(); ++i) {
      v1::GpuUsage* g = out->add_gpus();
      GpuUseToProto(job.gpus[i], g);
      if (i < job.recent_peaks.size() && job.recent_peaks[i] >= 0) {
        g->set_recent_util_max(job.recent_peaks[i]);
      }
    }
  }
  v1::HeartbeatReply reply;
  grpc::Status status = stub_->Heartbeat(&context, request, &reply);
  if (!status.ok()) {
    if (gpu_restore_) gpu_restore_(gpus);
    logger_.warn("heartbeat to ctld failed: {}", status.error_message());
    RenewLeasesIfCtldIsDown(status);
    NoteCredentialRefused(status);
    return false;
  }
  jobs_.RenewLeases();
  if (config_hash_listener_ && reply.registered()) config_hash_listener_(reply.config_hash());
  if (!reply.registered())
    logger_.info("ctld asks NodeName={} to register again", hardware_.node_name());
  return reply.registered();
}

NodeAgent::ReportOutcome NodeAgent::SendReports() {
  // Steps first, so that a job's steps are recorded before its end.
  while (step_reports_ != nullptr) {
    std::vector<v1::StepReport> batch = step_reports_->Take(kStepBatch);
    if (batch.empty()) break;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
    grpc::Status status;
    if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
      status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(s.message()));
    } else {
      v1::ReportStepsRequest request;
      request.set_node_name(hardware_.node_name());
      for (v1::StepReport& report : batch) *request.add_steps() = report;
      v1::ReportStepsReply reply;
      status = stub_->ReportSteps(&context, request, &reply);
    }
    if (!status.ok()) {
      logger_.warn("{} step reports not taken by ctld ({}: {}); will retry", batch.size(),
                   static_cast<int>(status.error_code()), status.error_message());
      step_reports_->Return(std::move(batch));
      return ReportOutcome::kRetry;
    }
  }
  for (const JobReport& report : jobs_.FinishedJobs()) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
    if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
      logger_.error("JobId={}: cannot report its end: {}", report.job_id, std::string(s.message()));
      return ReportOutcome::kRetry;
    }
    v1::JobCompleteRequest request;
    request.set_node_name(hardware_.node_name());
    ToProto(report, request.mutable_report());
    v1::JobCompleteReply reply;
    grpc::Status status = stub_->JobComplete(&context, request, &reply);
    if (status.ok()) {
      logger_.info("JobId={}: end reported to ctld (exit code {} signal {})", report.job_id,
                   report.result.exit_code, report.result.signal);
      jobs_.Acknowledge(report.job_id);
      continue;
    }
    logger_.warn("JobId={}: ctld did not take its end ({}: {}); will retry", report.job_id,
                 static_cast<int>(status.error_code()), status.error_message());
    if (status.error_code() == grpc::StatusCode::NOT_FOUND ||
        status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      return ReportOutcome::kRegisterAgain;
    }
    return ReportOutcome::kRetry;
  }
  return ReportOutcome::kAllSent;
}

double NodeAgent::ServeRegistered() {
  auto next_heartbeat = After(static_cast<double>(heartbeat_interval_));
  auto next_report = SteadyClock::now();  // whatever finished while unregistered
  for (;;) {
    if (SteadyClock::now() >= next_report) {
      switch (SendReports()) {
        case ReportOutcome::kAllSent:
          report_backoff_ = 0;
          next_report = After(24 * 3600.0);  // until Wake()
          break;
        case ReportOutcome::kRetry:
          GrowReportBackoff();
          next_report = After(report_backoff_);
          break;
        case ReportOutcome::kRegisterAgain:
          GrowReportBackoff();
          return report_backoff_;
      }
    }
    if (SteadyClock::now() >= next_heartbeat) {
      if (!Heartbeat()) return kMinBackoff;
      next_heartbeat = After(static_cast<double>(heartbeat_interval_));
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, std::min(next_heartbeat, next_report),
                   [this] { return stopping_ || woken_ || steps_woken_; });
    if (stopping_) return 0;
    if (woken_) {
      woken_ = false;
      steps_woken_ = false;
      if (report_backoff_ == 0) next_report = SteadyClock::now();
    } else if (steps_woken_) {
      // Step reports linger a little, so that a short step's start and end,
      // and the steps of a busy job, go to ctld in one call.
      steps_woken_ = false;
      if (report_backoff_ == 0) next_report = std::min(next_report, After(kStepLinger));
    }
  }
}

void NodeAgent::Loop() {
  double backoff = kMinBackoff;
  for (;;) {
    if (Register()) {
      backoff = ServeRegistered();
    } else {
      backoff = std::min(backoff * 2, kMaxBackoff);  // ctld may be starting or restarting
      // While ctld refuses, each attempt renews the leases: try at least once per
      // heartbeat interval, well within the lease.
      if (ctld_refused_) backoff = std::min(backoff, static_cast<double>(heartbeat_interval_));
    }
    if (Stopping()) return;
    if (!Sleep(backoff)) return;
  }
}

}  // namespace skiff::noded
