// NodeService: the RPCs node daemons (noded) make to ctld: registration,
// heartbeats, job completions and step reports, from root or SlurmUser only.
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/status.h"
#include "ctld/rpc/acct_convert.h"
#include "ctld/rpc/convert.h"
#include "ctld/rpc/gpu_usage_convert.h"
#include "ctld/rpc/services.h"

namespace skiff::ctld {

NodeService::NodeService(Controller& controller, Authenticator& auth, ServedConfig* served,
                         std::string controller_epoch)
    : controller_(controller),
      auth_(auth),
      served_(served),
      controller_epoch_(std::move(controller_epoch)) {}

grpc::Status NodeService::AuthenticateNode(const grpc::ServerContext& context) {
  absl::StatusOr<Identity> caller = AuthenticateCall(auth_, context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!controller_.IsPrivileged(caller->uid)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("uid ", caller->uid,
                                     " may not act as a node daemon (root or SlurmUser only)"));
  }
  return grpc::Status::OK;
}

grpc::Status NodeService::Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                                   v1::RegisterReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  std::vector<NodeRunReport> reports;
  for (const v1::NodeJobReport& job : request->jobs()) reports.push_back(ReportFromProto(job));
  absl::StatusOr<Controller::Registration> registration =
      controller_.RegisterNode(RegistrationFromProto(*request), reports);
  if (!registration.ok()) return ToGrpcStatus(registration.status());
  reply->set_heartbeat_interval(registration->heartbeat_interval);
  for (uint64_t id : registration->jobs_to_terminate) reply->add_jobs_to_terminate(id);
  if (served_ != nullptr) reply->set_config_hash(served_->Hash());
  reply->set_controller_epoch(controller_epoch_);
  return grpc::Status::OK;
}

grpc::Status NodeService::Heartbeat(grpc::ServerContext* context,
                                    const v1::HeartbeatRequest* request,
                                    v1::HeartbeatReply* reply) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  ReportedLoad load;
  if (request->has_cpu_load()) load.cpu_load = request->cpu_load();
  if (request->has_free_memory_mb()) load.free_memory_mb = request->free_memory_mb();
  std::vector<JobGpuReport> gpus;
  for (const v1::NodeJobGpus& job : request->job_gpus()) {
    JobGpuReport report;
    report.job_id = job.job_id();
    for (const v1::GpuUsage& gpu : job.gpus()) {
      report.gpus.push_back(GpuUsageFromProto(gpu));
      report.recent_peaks.push_back(gpu.has_recent_util_max() ? gpu.recent_util_max() : -1);
    }
    gpus.push_back(std::move(report));
  }
  reply->set_registered(controller_.Heartbeat(request->node_name(), load, gpus));
  if (served_ != nullptr) reply->set_config_hash(served_->Hash());
  return grpc::Status::OK;
}

grpc::Status NodeService::JobComplete(grpc::ServerContext* context,
                                      const v1::JobCompleteRequest* request,
                                      v1::JobCompleteReply*) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  return ToGrpcStatus(
      controller_.JobComplete(request->node_name(), ReportFromProto(request->report())));
}

grpc::Status NodeService::ReportSteps(grpc::ServerContext* context,
                                      const v1::ReportStepsRequest* request,
                                      v1::ReportStepsReply*) {
  if (grpc::Status auth = AuthenticateNode(*context); !auth.ok()) return auth;
  std::vector<std::pair<uint64_t, StepRecord>> reports;
  for (const v1::StepReport& report : request->steps()) {
    reports.emplace_back(report.job_id(), StepFromProto(report.step()));
  }
  return ToGrpcStatus(controller_.ReportSteps(request->node_name(), reports));
}

}  // namespace skiff::ctld
