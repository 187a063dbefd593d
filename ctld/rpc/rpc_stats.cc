#include "ctld/rpc/rpc_stats.h"

#include <cctype>
#include <chrono>
#include <string>

namespace skiff::ctld {
namespace {

using grpc::experimental::InterceptionHookPoints;

struct MethodType {
  const char* method;
  const char* name;
  uint32_t id;
};

// Skiff's RPCs as Slurm's requests (slurm_protocol_defs.h, slurmdbd_defs.h of
// 22.05 for the numbers); see rpc_stats.h.
constexpr MethodType kMethodTypes[] = {
    {"/skiff.v1.Ctld/Ping", "REQUEST_PING", 1008},
    {"/skiff.v1.Ctld/GetNodes", "REQUEST_NODE_INFO", 2007},
    {"/skiff.v1.Ctld/GetPartitions", "REQUEST_PARTITION_INFO", 2009},
    {"/skiff.v1.Ctld/SubmitJob", "REQUEST_SUBMIT_BATCH_JOB", 4003},
    {"/skiff.v1.Ctld/GetJobs", "REQUEST_JOB_INFO", 2003},
    {"/skiff.v1.Ctld/CancelJobs", "REQUEST_KILL_JOB", 5032},
    {"/skiff.v1.Ctld/UpdateJob", "REQUEST_UPDATE_JOB", 3001},
    {"/skiff.v1.Ctld/NotifyJob", "REQUEST_JOB_NOTIFY", 4022},
    {"/skiff.v1.Ctld/UpdateNode", "REQUEST_UPDATE_NODE", 3002},
    {"/skiff.v1.Ctld/DeleteNodes", "REQUEST_DELETE_NODE", 3014},
    {"/skiff.v1.Ctld/GetConfig", "REQUEST_BUILD_INFO", 2001},
    {"/skiff.v1.Ctld/UpdatePartition", "REQUEST_UPDATE_PARTITION", 3005},
    {"/skiff.v1.Ctld/Reconfigure", "REQUEST_RECONFIGURE", 1003},
    {"/skiff.v1.Ctld/Takeover", "REQUEST_TAKEOVER", 1012},
    {"/skiff.v1.Ctld/GetConfigFiles", "REQUEST_CONFIG", 2015},
    {"/skiff.v1.Ctld/GetQos", "DBD_GET_QOS", 1448},
    {"/skiff.v1.Ctld/UpdateQos", "DBD_MODIFY_QOS", 1451},  // add and delete too
    {"/skiff.v1.Ctld/GetBurstBuffers", "REQUEST_BURST_BUFFER_INFO", 2037},
    {"/skiff.v1.Ctld/GetBbStatus", "REQUEST_BURST_BUFFER_STATUS", 2055},
    {"/skiff.v1.Ctld/GetAccounting", "DBD_GET_JOBS_COND", 1444},
    {"/skiff.v1.Ctld/GetAccounts", "DBD_GET_ASSOCS", 1410},
    {"/skiff.v1.Ctld/GetUsageReport", "DBD_GET_ASSOC_USAGE", 1411},
    {"/skiff.v1.Ctld/UpdateAccounts", "DBD_MODIFY_ASSOCS", 1429},  // add and delete too
    {"/skiff.v1.Ctld/GetSteps", "REQUEST_JOB_STEP_INFO", 2005},
    {"/skiff.v1.Ctld/GetStats", "REQUEST_STATS_INFO", 2035},
    {"/skiff.v1.Ctld/SetTrigger", "REQUEST_TRIGGER_SET", 2017},
    {"/skiff.v1.Ctld/GetTriggers", "REQUEST_TRIGGER_GET", 2018},
    {"/skiff.v1.Ctld/ClearTriggers", "REQUEST_TRIGGER_CLEAR", 2019},
    // Beyond Slurm: squeue --explain.
    {"/skiff.v1.Ctld/ExplainJob", "SKIFF_EXPLAIN_JOB", 60005},
    {"/skiff.v1.Ctld/RequestToken", "REQUEST_AUTH_TOKEN", 5039},
    {"/skiff.v1.Ctld/GetLicenses", "REQUEST_LICENSE_INFO", 1021},
    {"/skiff.v1.Ctld/GetReservations", "REQUEST_RESERVATION_INFO", 2024},
    {"/skiff.v1.Ctld/UpdateReservation", "REQUEST_UPDATE_RESERVATION", 3009},  // create, delete too
    {"/skiff.v1.NodeService/Register", "MESSAGE_NODE_REGISTRATION_STATUS", 1002},
    {"/skiff.v1.NodeService/JobComplete", "REQUEST_COMPLETE_BATCH_SCRIPT", 5018},
    // Slurm's controller pings its nodes; Skiff's nodes report in.
    {"/skiff.v1.NodeService/Heartbeat", "SKIFF_NODE_HEARTBEAT", 60001},
    // Slurm's steps are created through the controller, one RPC each.
    {"/skiff.v1.NodeService/ReportSteps", "SKIFF_REPORT_STEPS", 60002},
    {"/skiff.v1.JoinTokens/CreateJoinToken", "SKIFF_CREATE_JOIN_TOKEN", 60003},
    {"/skiff.v1.JoinTokens/ListJoinTokens", "SKIFF_LIST_JOIN_TOKENS", 60004},
    {"/skiff.v1.JoinTokens/ReloadMungeKey", "SKIFF_RELOAD_MUNGE_KEY", 60006},
};

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One per call: created by gRPC when the call arrives, destroyed when it ends.
class RpcStatsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcStatsInterceptor(RpcStatsRecorder& recorder, RpcType type,
                      const grpc::ServerContextBase* context)
      : recorder_(recorder), type_(std::move(type)), context_(context) {}

  ~RpcStatsInterceptor() override { Finish(); }  // a call that ended without a status

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA) &&
        start_ < 0) {
      start_ = SteadyMicros();
      recorder_.Started();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) Finish();
    methods->Proceed();
  }

 private:
  void Finish() {
    if (start_ < 0 || finished_) return;
    finished_ = true;
    recorder_.Finished(context_, type_, SteadyMicros() - start_);
  }

  RpcStatsRecorder& recorder_;
  const RpcType type_;
  const grpc::ServerContextBase* const context_;
  int64_t start_ = -1;
  bool finished_ = false;
};

class RpcStatsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcStatsInterceptorFactory(RpcStatsRecorder& recorder) : recorder_(recorder) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RpcStatsInterceptor(recorder_, RpcTypeOf(info->method()), info->server_context());
  }

 private:
  RpcStatsRecorder& recorder_;
};

}  // namespace

RpcType RpcTypeOf(std::string_view method) {
  for (const MethodType& known : kMethodTypes) {
    if (method == known.method) return {known.name, known.id};
  }
  // "/pkg.Service/GetThings" -> SKIFF_GET_THINGS
  const size_t slash = method.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? method : method.substr(slash + 1);
  std::string out = "SKIFF_";
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (i > 0 && std::isupper(c)) out += '_';
    out += static_cast<char>(std::toupper(c));
  }
  return {out, 0};
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
RpcStatsRecorder::InterceptorFactory() {
  return std::make_unique<RpcStatsInterceptorFactory>(*this);
}

void RpcStatsRecorder::NoteCaller(const grpc::ServerContextBase* context, uid_t uid) {
  absl::MutexLock lock(&mu_);
  callers_[context] = uid;
}

void RpcStatsRecorder::Started() { stats_.RpcStarted(); }

void RpcStatsRecorder::Finished(const grpc::ServerContextBase* context, const RpcType& type,
                                int64_t micros) {
  int64_t uid = -1;
  {
    absl::MutexLock lock(&mu_);
    auto it = callers_.find(context);
    if (it != callers_.end()) {
      uid = it->second;
      callers_.erase(it);  // the context may carry another call next
    }
  }
  stats_.RpcFinished(type, uid, micros);
}

}  // namespace skiff::ctld
