#include "common/rpc/auth_metadata.h"

#include <ctime>
#include <string>
#include <utility>

#include "common/auth/login_failures.h"

namespace skiff {
namespace {

LoginFailureLog& Failures() {
  static auto* const log = new LoginFailureLog();
  return *log;
}

std::function<void(const std::string&)>& Sink() {
  static auto* const sink = new std::function<void(const std::string&)>();
  return *sink;
}

std::function<void(const std::string&, uid_t)>& AuthenticatedHook() {
  static auto* const hook = new std::function<void(const std::string&, uid_t)>();
  return *hook;
}

std::function<void(const grpc::ServerContext&, uid_t)>& CallerHook() {
  static auto* const hook = new std::function<void(const grpc::ServerContext&, uid_t)>();
  return *hook;
}

std::function<std::string(const std::string&)>& Describer() {
  static auto* const describe = new std::function<std::string(const std::string&)>();
  return *describe;
}

absl::StatusOr<Identity> Refused(const grpc::ServerContext& context, absl::Status why) {
  if (Sink()) {
    const std::string peer = Describer() ? Describer()(context.peer()) : context.peer();
    if (std::optional<std::string> line = Failures().Refused(peer, std::string(why.message()),
                                                             static_cast<int64_t>(time(nullptr)))) {
      Sink()(*line);
    }
  }
  return why;
}

}  // namespace

void SetLoginFailureSink(std::function<void(const std::string& line)> sink) {
  Sink() = std::move(sink);
}

void SetAuthenticatedHook(std::function<void(const std::string& peer, uid_t uid)> hook) {
  AuthenticatedHook() = std::move(hook);
}

void SetCallerHook(std::function<void(const grpc::ServerContext& context, uid_t uid)> hook) {
  CallerHook() = std::move(hook);
}

void SetPeerDescriber(std::function<std::string(const std::string& peer)> describe) {
  Describer() = std::move(describe);
}

absl::Status AttachCredential(Authenticator& auth, grpc::ClientContext* context) {
  absl::StatusOr<std::string> cred = auth.CreateCredential();
  if (!cred.ok()) return cred.status();
  context->AddMetadata(kCredentialMetadataKey, *cred);
  return absl::OkStatus();
}

absl::StatusOr<Identity> AuthenticateCall(Authenticator& auth, const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kCredentialMetadataKey);
  if (it == metadata.end()) {
    return Refused(context, absl::UnauthenticatedError("request carries no munge credential"));
  }
  absl::StatusOr<Identity> identity =
      auth.VerifyCredential(std::string(it->second.data(), it->second.size()));
  if (!identity.ok() && identity.status().code() == absl::StatusCode::kUnauthenticated) {
    return Refused(context, identity.status());
  }
  if (identity.ok() && AuthenticatedHook()) AuthenticatedHook()(context.peer(), identity->uid);
  if (identity.ok() && CallerHook()) CallerHook()(context, identity->uid);
  return identity;
}

}  // namespace skiff
