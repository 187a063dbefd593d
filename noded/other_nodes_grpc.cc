#include "noded/other_nodes_grpc.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "noded/gpu/gpu_usage_proto.h"
#include "noded/node_scripts.h"
#include "proto/noded.grpc.pb.h"

namespace skiff::noded {
namespace {

// A node that does not answer at once (noded restarting) is asked again for
// this long before it is given up; the Epilog itself may take up to
// PrologEpilogTimeout, and killing the job's steps there up to 5 s.
constexpr std::chrono::seconds kReachFor{10};
constexpr std::chrono::seconds kMargin{15};

class GrpcOtherNodes final : public OtherNodes {
 public:
  GrpcOtherNodes(Authenticator& auth, int64_t timeout) : auth_(auth), timeout_(timeout) {}

  absl::StatusOr<OtherNodeEnd> EndJobOnNode(uint64_t job_id, const AllocatedNode& node,
                                            const std::string& spec_text,
                                            const JobResult& result) override {
    v1::EndJobOnNodeRequest request;
    request.set_job_id(job_id);
    request.set_job_spec(spec_text);
    request.set_exit_code(result.exit_code);
    request.set_signal(result.signal);
    const auto give_up = std::chrono::steady_clock::now() + kReachFor;
    for (;;) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + NodeScriptTimeout(timeout_) +
                           kMargin);
      if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) return s;
      if (!Track(&context)) return absl::CancelledError("noded is stopping");
      v1::EndJobOnNodeReply reply;
      const grpc::Status status = StubFor(node.address).EndJobOnNode(&context, request, &reply);
      Untrack(&context);
      if (status.ok()) {
        OtherNodeEnd end;
        end.epilog_error = reply.epilog_error();
        for (const v1::GpuUsage& gpu : reply.gpus()) end.gpus.push_back(GpuUseFromProto(gpu));
        return end;
      }
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE ||
          std::chrono::steady_clock::now() >= give_up || Stopping()) {
        return absl::UnavailableError(
            absl::StrCat("EndJobOnNode at ", node.address, ": ", status.error_message()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }

  void CancelAll() override {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (grpc::ClientContext* context : live_) context->TryCancel();
  }

 private:
  bool Track(grpc::ClientContext* context) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    live_.insert(context);
    return true;
  }
  void Untrack(grpc::ClientContext* context) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(context);
  }
  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  }
  v1::Noded::Stub& StubFor(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<v1::Noded::Stub>& stub = stubs_[address];
    if (!stub) stub = v1::Noded::NewStub(MakeChannel(address));
    return *stub;
  }

  Authenticator& auth_;
  const int64_t timeout_;
  std::mutex mu_;
  bool stopping_ = false;                                          // under mu_
  std::set<grpc::ClientContext*> live_;                            // under mu_
  std::map<std::string, std::unique_ptr<v1::Noded::Stub>> stubs_;  // under mu_
};

}  // namespace

std::unique_ptr<OtherNodes> MakeGrpcOtherNodes(Authenticator& auth, int64_t prolog_epilog_timeout) {
  return std::make_unique<GrpcOtherNodes>(auth, prolog_epilog_timeout);
}

}  // namespace skiff::noded
