#include "common/rpc/config_fetch.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/http2/unary_call.h"
#include "common/rpc/status.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/ctld_method_paths.h"

namespace skiff {

namespace {

absl::Status Unreachable(const std::string& target) {
  return absl::UnavailableError(
      absl::StrCat("cannot reach the skiff controller at ", target, " for its configuration"));
}

absl::Status Refused(const std::string& target, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("configuration from ", target, ": ", status.message()));
}

// The call made directly (common/rpc/http2): a login host's command then
// starts no gRPC for its configuration. nullopt where nothing reached ctld.
std::optional<absl::Status> FetchDirectly(const std::string& target, Authenticator& auth,
                                          int timeout_seconds, v1::GetConfigFilesReply* reply) {
  absl::StatusOr<std::string> credential = auth.CreateCredential();
  if (!credential.ok()) return credential.status();
  const v1::GetConfigFilesRequest request;
  http2::UnaryRequest call{target,
                           v1::CtldMethodPathFor(request.GetTypeName(), reply->GetTypeName()),
                           {{kCredentialMetadataKey, *credential}},
                           request.SerializeAsString()};
  http2::UnaryCallResult result =
      http2::CallUnary(target, std::move(call), std::chrono::seconds(2),
                       std::chrono::seconds(timeout_seconds), kMaxReplyBytes);
  if (result.never_sent) return std::nullopt;
  switch (result.status.code()) {
    case absl::StatusCode::kOk:
      if (!reply->ParseFromString(result.reply)) {
        return absl::DataLossError(absl::StrCat("configuration from ", target, ": unreadable"));
      }
      return absl::OkStatus();
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      return Unreachable(target);
    default:
      return Refused(target, result.status);
  }
}

// Through gRPC's channel, which waits for ctld until the deadline.
absl::Status FetchThroughChannel(const std::string& target, Authenticator& auth,
                                 int timeout_seconds, v1::GetConfigFilesReply* reply) {
  std::shared_ptr<grpc::Channel> channel = MakeChannel(target);
  std::unique_ptr<v1::Ctld::Stub> stub = v1::Ctld::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds));
  // A loaded machine may need more than one connection attempt.
  context.set_wait_for_ready(true);
  if (absl::Status s = AttachCredential(auth, &context); !s.ok()) return s;
  grpc::Status status = stub->GetConfigFiles(&context, v1::GetConfigFilesRequest(), reply);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
       channel->GetState(false) != GRPC_CHANNEL_READY)) {
    return Unreachable(target);
  }
  if (!status.ok()) return Refused(target, FromGrpcStatus(status));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConfigFileSet> FetchConfigFiles(const std::string& target, Authenticator& auth,
                                               int timeout_seconds) {
  v1::GetConfigFilesReply reply;
  std::optional<absl::Status> direct;
  if (http2::DirectCallsAllowed()) direct = FetchDirectly(target, auth, timeout_seconds, &reply);
  absl::Status fetched =
      direct ? *direct : FetchThroughChannel(target, auth, timeout_seconds, &reply);
  if (!fetched.ok()) return fetched;
  ConfigFileSet set;
  for (const v1::ConfigFileText& file : reply.files()) {
    if (absl::Status s = CheckConfigFileName(file.name()); !s.ok()) {
      return absl::DataLossError(absl::StrCat("configuration from ", target, ": ", s.message()));
    }
    set.files.push_back({file.name(), file.text()});
  }
  std::sort(set.files.begin(), set.files.end(),
            [](const ConfigFile& a, const ConfigFile& b) { return a.name < b.name; });
  set.hash = ConfigHash(set.files);
  return set;
}

std::string ConfiglessMungeSocket() {
  const char* socket = std::getenv("SKIFF_MUNGE_SOCKET");
  return socket != nullptr ? socket : "";
}

}  // namespace skiff
