// ctld's gRPC services: thin handlers that authenticate, convert and call the
// Controller. Called on gRPC's thread pool; they hold no state of their own.
#ifndef SKIFF_CTLD_RPC_SERVICES_H_
#define SKIFF_CTLD_RPC_SERVICES_H_

#include <sys/types.h>

#include <functional>

#include "common/auth/authenticator.h"
#include "ctld/controller.h"
#include "ctld/rpc/served_config.h"
#include "ctld/rpc/token_issuer.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff::ctld {

// For the CLIs: any authenticated user may read.
class CtldService final : public v1::Ctld::Service {
 public:
  // `served`: the config files of SlurmctldParameters=enable_configless, or
  // null (GetConfigFiles refuses). It must outlive the service.
  // `tokens`: scontrol token's issuer (null: every request is refused as
  // without auth/jwt). It must outlive the service.
  CtldService(Controller& controller, Authenticator& auth, ServedConfig* served = nullptr,
              const TokenIssuer* tokens = nullptr);
  // scontrol takeover's work (ctld's main: stop serving, hand the lease
  // over); unset, Takeover says there is no standby. Before serving.
  void SetHandOver(std::function<absl::Status()> hand_over) { hand_over_ = std::move(hand_over); }

  grpc::Status Ping(grpc::ServerContext* context, const v1::PingRequest* request,
                    v1::PingReply* reply) override;
  grpc::Status Takeover(grpc::ServerContext* context, const v1::TakeoverRequest* request,
                        v1::TakeoverReply* reply) override;
  grpc::Status GetNodes(grpc::ServerContext* context, const v1::GetNodesRequest* request,
                        v1::GetNodesReply* reply) override;
  grpc::Status GetPartitions(grpc::ServerContext* context, const v1::GetPartitionsRequest* request,
                             v1::GetPartitionsReply* reply) override;
  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::SubmitJobReply* reply) override;
  grpc::Status GetJobs(grpc::ServerContext* context, const v1::GetJobsRequest* request,
                       v1::GetJobsReply* reply) override;
  grpc::Status CancelJobs(grpc::ServerContext* context, const v1::CancelJobsRequest* request,
                          v1::CancelJobsReply* reply) override;
  grpc::Status UpdateJob(grpc::ServerContext* context, const v1::UpdateJobRequest* request,
                         v1::UpdateJobReply* reply) override;
  grpc::Status NotifyJob(grpc::ServerContext* context, const v1::JobNotifyRequest* request,
                         v1::JobNotifyReply* reply) override;
  grpc::Status UpdateNode(grpc::ServerContext* context, const v1::UpdateNodeRequest* request,
                          v1::UpdateNodeReply* reply) override;
  grpc::Status DeleteNodes(grpc::ServerContext* context, const v1::DeleteNodesRequest* request,
                           v1::DeleteNodesReply* reply) override;
  grpc::Status GetConfig(grpc::ServerContext* context, const v1::GetConfigRequest* request,
                         v1::GetConfigReply* reply) override;
  grpc::Status UpdatePartition(grpc::ServerContext* context,
                               const v1::UpdatePartitionRequest* request,
                               v1::UpdatePartitionReply* reply) override;
  grpc::Status Reconfigure(grpc::ServerContext* context, const v1::ReconfigureRequest* request,
                           v1::ReconfigureReply* reply) override;
  grpc::Status GetQos(grpc::ServerContext* context, const v1::GetQosRequest* request,
                      v1::GetQosReply* reply) override;
  grpc::Status GetLicenses(grpc::ServerContext* context, const v1::GetLicensesRequest* request,
                           v1::GetLicensesReply* reply) override;
  grpc::Status GetReservations(grpc::ServerContext* context,
                               const v1::GetReservationsRequest* request,
                               v1::GetReservationsReply* reply) override;
  grpc::Status UpdateReservation(grpc::ServerContext* context,
                                 const v1::UpdateReservationRequest* request,
                                 v1::UpdateReservationReply* reply) override;
  grpc::Status UpdateQos(grpc::ServerContext* context, const v1::UpdateQosRequest* request,
                         v1::UpdateQosReply* reply) override;
  grpc::Status GetBurstBuffers(grpc::ServerContext* context,
                               const v1::GetBurstBuffersRequest* request,
                               v1::GetBurstBuffersReply* reply) override;
  grpc::Status GetBbStatus(grpc::ServerContext* context, const v1::GetBbStatusRequest* request,
                           v1::GetBbStatusReply* reply) override;
  grpc::Status GetAccounts(grpc::ServerContext* context, const v1::GetAccountsRequest* request,
                           v1::GetAccountsReply* reply) override;
  grpc::Status UpdateAccounts(grpc::ServerContext* context,
                              const v1::UpdateAccountsRequest* request,
                              v1::UpdateAccountsReply* reply) override;
  grpc::Status GetUsageReport(grpc::ServerContext* context,
                              const v1::GetUsageReportRequest* request,
                              v1::GetUsageReportReply* reply) override;
  grpc::Status GetAccounting(grpc::ServerContext* context, const v1::GetAccountingRequest* request,
                             v1::GetAccountingReply* reply) override;
  grpc::Status GetSteps(grpc::ServerContext* context, const v1::GetStepsRequest* request,
                        v1::GetStepsReply* reply) override;
  grpc::Status GetConfigFiles(grpc::ServerContext* context,
                              const v1::GetConfigFilesRequest* request,
                              v1::GetConfigFilesReply* reply) override;
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                        v1::GetStatsReply* reply) override;
  grpc::Status ExplainJob(grpc::ServerContext* context, const v1::ExplainJobRequest* request,
                          v1::ExplainJobReply* reply) override;
  grpc::Status RequestToken(grpc::ServerContext* context, const v1::RequestTokenRequest* request,
                            v1::RequestTokenReply* reply) override;
  grpc::Status SetTrigger(grpc::ServerContext* context, const v1::SetTriggerRequest* request,
                          v1::SetTriggerReply* reply) override;
  grpc::Status GetTriggers(grpc::ServerContext* context, const v1::GetTriggersRequest* request,
                           v1::GetTriggersReply* reply) override;
  grpc::Status ClearTriggers(grpc::ServerContext* context, const v1::ClearTriggersRequest* request,
                             v1::ClearTriggersReply* reply) override;

 private:
  Controller& controller_;
  Authenticator& auth_;
  ServedConfig* served_;
  const TokenIssuer* tokens_;
  std::function<absl::Status()> hand_over_;
};

// For node daemons: only root, SlurmUser or operator credentials are accepted.
class NodeService final : public v1::NodeService::Service {
 public:
  // `served` as CtldService's: its hash goes in every Register/Heartbeat answer.
  // `controller_epoch`: this controller's, with a standby over etcd, told to
  // each node that registers (common/rpc/controller_epoch.h); else "".
  NodeService(Controller& controller, Authenticator& auth, ServedConfig* served = nullptr,
              std::string controller_epoch = "");

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;
  grpc::Status ReportSteps(grpc::ServerContext* context, const v1::ReportStepsRequest* request,
                           v1::ReportStepsReply* reply) override;
  grpc::Status JobComplete(grpc::ServerContext* context, const v1::JobCompleteRequest* request,
                           v1::JobCompleteReply* reply) override;

 private:
  grpc::Status AuthenticateNode(const grpc::ServerContext& context);

  Controller& controller_;
  Authenticator& auth_;
  ServedConfig* served_;
  const std::string controller_epoch_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_SERVICES_H_
