#include "noded/ctld_node_control.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff::noded {
namespace {

constexpr std::chrono::seconds kCallTimeout{10};

absl::Status FromGrpc(const grpc::Status& status, const std::string& what) {
  if (status.ok()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(what, ": ", status.error_message()));
}

class CtldNodeControl final : public NodeControl {
 public:
  CtldNodeControl(const std::vector<std::string>& targets, std::string node_name,
                  Authenticator& auth)
      : node_name_(std::move(node_name)), auth_(auth) {
    for (const std::string& target : targets) {
      stubs_.push_back(v1::Ctld::NewStub(MakeChannel(target)));
    }
  }

  absl::StatusOr<HealthNodeView> GetNode() override {
    v1::GetNodesRequest request;
    request.add_names(node_name_);
    v1::GetNodesReply reply;
    if (absl::Status s =
            FromGrpc(CallServing(&v1::Ctld::Stub::GetNodes, request, &reply), "GetNodes");
        !s.ok()) {
      return s;
    }
    for (const v1::NodeInfo& node : reply.nodes()) {
      if (node.name() != node_name_) continue;
      HealthNodeView view;
      view.state = node.state();
      view.drain = node.drain();
      view.reason = node.reason();
      return view;
    }
    return absl::NotFoundError(absl::StrCat("ctld does not know NodeName=", node_name_));
  }

  absl::Status Drain(const std::string& reason) override { return Update("DRAIN", reason); }
  absl::Status Undrain() override { return Update("UNDRAIN", ""); }
  absl::Status RequeueHeld(uint64_t job_id, int32_t array_task_id) override {
    v1::UpdateJobRequest request;
    request.set_job_id(job_id);
    if (array_task_id >= 0) request.set_array_task_id(array_task_id);
    request.set_requeue_hold(true);
    v1::UpdateJobReply reply;
    return FromGrpc(CallServing(&v1::Ctld::Stub::UpdateJob, request, &reply),
                    "UpdateJob requeuehold");
  }
  absl::Status Requeue(uint64_t job_id) override {
    v1::UpdateJobRequest request;
    request.set_job_id(job_id);
    request.set_requeue(true);
    v1::UpdateJobReply reply;
    return FromGrpc(CallServing(&v1::Ctld::Stub::UpdateJob, request, &reply), "UpdateJob requeue");
  }

 private:
  // The call to the controller that answered last, then each other in turn
  // while one is unreachable or stands by (UNAVAILABLE): with a standby over
  // etcd (issue 53), whichever serves.
  template <typename Request, typename Reply>
  grpc::Status CallServing(grpc::Status (v1::Ctld::Stub::*method)(grpc::ClientContext*,
                                                                  const Request&, Reply*),
                           const Request& request, Reply* reply) {
    grpc::Status status;
    for (size_t k = 0; k < stubs_.size(); ++k) {
      const size_t i = (serving_ + k) % stubs_.size();
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
      if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(s.message()));
      }
      status = (stubs_[i].get()->*method)(&context, request, reply);
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE) {
        serving_ = i;
        return status;
      }
    }
    return status;
  }

  absl::Status Update(const std::string& state, const std::string& reason) {
    v1::UpdateNodeRequest request;
    request.add_names(node_name_);
    request.set_state(state);
    request.set_reason(reason);
    v1::UpdateNodeReply reply;
    return FromGrpc(CallServing(&v1::Ctld::Stub::UpdateNode, request, &reply),
                    absl::StrCat("UpdateNode State=", state));
  }

  const std::string node_name_;
  Authenticator& auth_;
  std::vector<std::unique_ptr<v1::Ctld::Stub>> stubs_;  // in SlurmctldHost order
  std::atomic<size_t> serving_{0};
};

}  // namespace

std::unique_ptr<NodeControl> MakeCtldNodeControl(const std::vector<std::string>& ctld_targets,
                                                 const std::string& node_name,
                                                 Authenticator& auth) {
  return std::make_unique<CtldNodeControl>(ctld_targets, node_name, auth);
}

}  // namespace skiff::noded
