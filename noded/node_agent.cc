#include "noded/node_agent.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"

namespace skiff {
namespace {

constexpr auto kRpcTimeout = std::chrono::seconds(5);

}  // namespace

NodeAgent::NodeAgent(std::string ctld_target, v1::RegisterRequest registration,
                     Authenticator& auth, spdlog::logger& logger)
    : ctld_target_(std::move(ctld_target)),
      registration_(std::move(registration)),
      auth_(auth),
      logger_(logger),
      stub_(v1::NodeService::NewStub(
          MakeChannel(ctld_target_))) {}

NodeAgent::~NodeAgent() { Stop(); }

void NodeAgent::Start() { thread_ = std::thread([this] { Loop(); }); }

void NodeAgent::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool NodeAgent::Sleep(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_; });
}

bool NodeAgent::Register() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
    logger_.error("cannot register: {}", std::string(s.message()));
    return false;
  }
  v1::RegisterReply reply;
  grpc::Status status = stub_->Register(&context, registration_, &reply);
  if (!status.ok()) {
    logger_.warn("registration with ctld at {} failed: {}", ctld_target_, status.error_message());
    return false;
  }
  heartbeat_interval_ = std::max<int64_t>(1, reply.heartbeat_interval());
  logger_.info("NodeName={} registered with ctld at {}; heartbeat every {}s",
               registration_.node_name(), ctld_target_, heartbeat_interval_);
  return true;
}

bool NodeAgent::Heartbeat() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kRpcTimeout);
  if (absl::Status s = AttachCredential(auth_, &context); !s.ok()) {
    logger_.error("heartbeat: {}", std::string(s.message()));
    return true;  // a munge hiccup is no reason to re-register
  }
  v1::HeartbeatRequest request;
  request.set_node_name(registration_.node_name());
  v1::HeartbeatReply reply;
  grpc::Status status = stub_->Heartbeat(&context, request, &reply);
  if (!status.ok()) {
    logger_.warn("heartbeat to ctld failed: {}", status.error_message());
    return false;
  }
  if (!reply.registered()) logger_.info("ctld asks NodeName={} to register again",
                                        registration_.node_name());
  return reply.registered();
}

void NodeAgent::Loop() {
  double backoff = 0.2;
  for (;;) {
    if (Register()) {
      backoff = 0.2;
      while (Sleep(heartbeat_interval_)) {
        if (!Heartbeat()) break;
      }
    } else {
      backoff = std::min(backoff * 2, 10.0);  // ctld may be starting or restarting
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (!Sleep(backoff)) return;
  }
}

}  // namespace skiff
