// sdiag's RPC statistics: every call ctld's main server handles is timed by a
// gRPC server interceptor, from its arrival to its status, and counted by
// message type and by the uid its munge credential proved (DiagStats). No
// handler does anything for it: AuthenticateCall, the one place every handler
// learns its caller, reports the uid through auth_metadata.h's caller hook.
// Calls that never authenticated are not counted (Slurm counts only the
// requests it accepted). The join port's server is not timed (its callers have
// no uid).
//
// Message types: each of Skiff's RPCs is reported under the Slurm request
// with the same purpose and Slurm's number for it (REQUEST_JOB_INFO 2003 for
// Ctld.GetJobs, DBD_GET_QOS 1448 for Ctld.GetQos: sacctmgr's requests go to
// slurmdbd in Slurm), so that tools that parse sdiag find the names they
// know. RPCs Slurm has no counterpart for get SKIFF_ names numbered from
// 60001, above every Slurm message number.
//
// Thread-safety: the recorder is called from gRPC's threads; one leaf mutex
// guards the callers of calls in progress.
#ifndef SKIFF_CTLD_RPC_RPC_STATS_H_
#define SKIFF_CTLD_RPC_RPC_STATS_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "ctld/diag_stats.h"

namespace skiff::ctld {

// The message type sdiag reports for gRPC method `method`
// ("/skiff.v1.Ctld/GetJobs"). A method missing from the table (none should be:
// rpc_stats_test checks every service) is SKIFF_ plus its name, number 0.
RpcType RpcTypeOf(std::string_view method);

class RpcStatsRecorder {
 public:
  // `stats` must outlive the recorder, which must outlive the server.
  explicit RpcStatsRecorder(DiagStats& stats) : stats_(stats) {}

  // For ServerBuilder::experimental().SetInterceptorCreators.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> InterceptorFactory();

  // The call on `context` authenticated as `uid` (auth_metadata.h's caller hook).
  void NoteCaller(const grpc::ServerContextBase* context, uid_t uid);

  // For the interceptor: a call began / ended after `micros`.
  void Started();
  void Finished(const grpc::ServerContextBase* context, const RpcType& type, int64_t micros);

 private:
  DiagStats& stats_;
  absl::Mutex mu_;
  std::map<const grpc::ServerContextBase*, uid_t> callers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_RPC_STATS_H_
