// ctld's calls to node daemons over gRPC: the real NodedPort (noded_port.h),
// one channel per node, cached. Thread-safe; calls block for at most
// MessageTimeout.
#ifndef SKIFF_CTLD_CLIENTS_NODE_CLIENT_H_
#define SKIFF_CTLD_CLIENTS_NODE_CLIENT_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "common/auth/authenticator.h"
#include "ctld/clients/noded_port.h"
#include "proto/noded.grpc.pb.h"

namespace skiff::ctld {

// noded's LaunchJob request for `launch`, as NodeClient sends it.
v1::LaunchJobRequest ToLaunchJobRequest(const BatchLaunch& launch);

class NodeClient final : public NodedPort {
 public:
  // `controller_epoch`: with a standby over etcd, this controller's epoch,
  // sent with every call so that noded refuses an earlier controller's
  // (common/rpc/controller_epoch.h); "" without etcd.
  NodeClient(Authenticator& auth, int timeout_seconds, std::string controller_epoch = "");

  absl::Status LaunchJob(const std::string& target, const BatchLaunch& launch) override;
  absl::Status SignalJob(const std::string& target, uint64_t job_id, int signal,
                         SignalScope scope) override;
  absl::Status TerminateJob(const std::string& target, uint64_t job_id, int kill_wait) override;
  absl::Status SignalStep(const std::string& target, uint64_t job_id, uint32_t step_id,
                          int signal) override;
  absl::Status NotifyJob(const std::string& target, uint64_t job_id,
                         const std::string& message) override;

 private:
  v1::Noded::Stub& Stub(const std::string& target);
  absl::Status Prepare(grpc::ClientContext* context, bool wait_for_ready = false);

  Authenticator& auth_;
  const int timeout_seconds_;
  const std::string controller_epoch_;
  std::mutex mu_;  // guards stubs_ only (a leaf lock)
  std::map<std::string, std::unique_ptr<v1::Noded::Stub>> stubs_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CLIENTS_NODE_CLIENT_H_
