#include "ctld/clients/scriptd_client.h"

#include <chrono>
#include <thread>

#include "common/rpc/channel.h"
#include "common/rpc/status.h"

namespace skiff {

ScriptdClient::ScriptdClient(const std::string& socket_path, int retry_window_seconds)
    : stub_(v1::Scriptd::NewStub(MakeChannel("unix:" + socket_path))),
      retry_window_seconds_(retry_window_seconds) {}

absl::StatusOr<v1::RunScriptReply> ScriptdClient::RunScript(const v1::RunScriptRequest& request) {
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(retry_window_seconds_);
  // The script's own timeout plus slack: scriptd enforces the real limit.
  const int64_t rpc_seconds =
      request.timeout_seconds() > 0 ? request.timeout_seconds() + 30 : 365LL * 24 * 3600;
  for (;;) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(rpc_seconds));
    v1::RunScriptReply reply;
    grpc::Status status = stub_->RunScript(&context, request, &reply);
    if (status.ok()) return reply;
    // UNAVAILABLE: scriptd died (taking the script with it) or is restarting.
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || stopping_ ||
        std::chrono::steady_clock::now() > give_up) {
      return FromGrpcStatus(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

void ScriptdClient::KillScript(const std::string& request_id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::KillScriptRequest request;
  request.set_request_id(request_id);
  v1::KillScriptReply reply;
  stub_->KillScript(&context, request, &reply);
}

}  // namespace skiff
