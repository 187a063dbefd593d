#include "common/rpc/config_fetch.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/http2/unary_call.h"
#include "common/rpc/standby.h"
#include "common/rpc/status.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/ctld_method_paths.h"

namespace skiff {

namespace {

using Clock = std::chrono::system_clock;

absl::Status Unreachable(const std::string& target) {
  return absl::UnavailableError(
      absl::StrCat("cannot reach the skiff controller at ", target, " for its configuration"));
}

absl::Status Refused(const std::string& target, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("configuration from ", target, ": ", status.message()));
}

// An UNAVAILABLE answer: a standby's (Unavailable, in its own words: the
// serving controller is elsewhere), else `target` is out of reach.
absl::Status UnavailableAnswer(const std::string& target, const std::string& message) {
  if (IsStandbyAnswer(message)) {
    return Refused(target, absl::UnavailableError(message));
  }
  return Unreachable(target);
}

// The call made directly (common/rpc/http2): a login host's command then
// starts no gRPC for its configuration. nullopt where nothing reached ctld.
std::optional<absl::Status> FetchDirectly(const std::string& target, Authenticator& auth,
                                          std::chrono::milliseconds connect_timeout,
                                          std::chrono::milliseconds timeout,
                                          v1::GetConfigFilesReply* reply) {
  absl::StatusOr<std::string> credential = auth.CreateCredential();
  if (!credential.ok()) return credential.status();
  const v1::GetConfigFilesRequest request;
  http2::UnaryRequest call{target,
                           v1::CtldMethodPathFor(request.GetTypeName(), reply->GetTypeName()),
                           {{kCredentialMetadataKey, *credential}},
                           request.SerializeAsString()};
  http2::UnaryCallResult result = http2::CallUnary(
      target, std::move(call), std::min(connect_timeout, timeout), timeout, kMaxReplyBytes);
  if (result.never_sent) return std::nullopt;
  switch (result.status.code()) {
    case absl::StatusCode::kOk:
      if (!reply->ParseFromString(result.reply)) {
        return absl::DataLossError(absl::StrCat("configuration from ", target, ": unreadable"));
      }
      return absl::OkStatus();
    case absl::StatusCode::kUnavailable:
      return UnavailableAnswer(target, std::string(result.status.message()));
    case absl::StatusCode::kDeadlineExceeded:
      return Unreachable(target);
    default:
      return Refused(target, result.status);
  }
}

// Through gRPC's channel. `wait_for_ready`: wait for ctld until `deadline`
// (one controller), else give up as soon as the connection fails (several).
absl::Status FetchThroughChannel(const std::string& target, Authenticator& auth,
                                 Clock::time_point deadline, bool wait_for_ready,
                                 v1::GetConfigFilesReply* reply) {
  std::shared_ptr<grpc::Channel> channel = MakeChannel(target);
  std::unique_ptr<v1::Ctld::Stub> stub = v1::Ctld::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(deadline);
  // A loaded machine may need more than one connection attempt.
  context.set_wait_for_ready(wait_for_ready);
  if (absl::Status s = AttachCredential(auth, &context); !s.ok()) return s;
  grpc::Status status = stub->GetConfigFiles(&context, v1::GetConfigFilesRequest(), reply);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    return UnavailableAnswer(target, status.error_message());
  }
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
      channel->GetState(false) != GRPC_CHANNEL_READY) {
    return Unreachable(target);
  }
  if (!status.ok()) return Refused(target, FromGrpcStatus(status));
  return absl::OkStatus();
}

// The files of ctld's reply, their names checked and their hash recomputed.
absl::StatusOr<ConfigFileSet> FilesOf(const std::string& target,
                                      const v1::GetConfigFilesReply& reply) {
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

// As long as gRPC's own connection attempt may take (common/rpc/channel.cc).
constexpr std::chrono::milliseconds kConnectTimeout{2000};

// One of several controllers, once, giving up where it does not connect
// within `connect_timeout`: Unavailable then, or when it stands by.
absl::Status FetchOnce(const std::string& target, Authenticator& auth,
                       std::chrono::milliseconds connect_timeout, Clock::time_point deadline,
                       v1::GetConfigFilesReply* reply) {
  if (!http2::DirectCallsAllowed()) {
    return FetchThroughChannel(target, auth, deadline, /*wait_for_ready=*/false, reply);
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  std::optional<absl::Status> direct = FetchDirectly(
      target, auth, connect_timeout, std::max(left, std::chrono::milliseconds(100)), reply);
  return direct ? *direct : Unreachable(target);
}

}  // namespace

absl::StatusOr<ConfigFileSet> FetchConfigFiles(const std::string& target, Authenticator& auth,
                                               int timeout_seconds) {
  v1::GetConfigFilesReply reply;
  std::optional<absl::Status> direct;
  if (http2::DirectCallsAllowed()) {
    direct =
        FetchDirectly(target, auth, kConnectTimeout, std::chrono::seconds(timeout_seconds), &reply);
  }
  absl::Status fetched =
      direct
          ? *direct
          : FetchThroughChannel(target, auth, Clock::now() + std::chrono::seconds(timeout_seconds),
                                /*wait_for_ready=*/true, &reply);
  if (!fetched.ok()) return fetched;
  return FilesOf(target, reply);
}

absl::StatusOr<FetchedConfig> FetchConfigFromControllers(const std::vector<std::string>& targets,
                                                         Authenticator& auth, int timeout_seconds) {
  if (targets.size() == 1) {
    absl::StatusOr<ConfigFileSet> files = FetchConfigFiles(targets[0], auth, timeout_seconds);
    if (!files.ok()) return files.status();
    return FetchedConfig{*std::move(files), targets[0]};
  }
  constexpr std::chrono::milliseconds kPause{200};
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  std::vector<std::string> answers(targets.size());  // each one's last, for the error
  // A controller whose machine is off answers no connection at all: the
  // first round gives each a quarter second to connect (a live one takes well
  // under a millisecond), each later round twice as long up to one
  // controller's 2 s, so that while the head is off the standby is reached
  // at once (as CtldClient::CallControllers does).
  for (int round = 0;; ++round) {
    const std::chrono::milliseconds connect =
        std::min(kConnectTimeout, std::chrono::milliseconds(250) * (1 << std::min(round, 3)));
    for (size_t i = 0; i < targets.size(); ++i) {
      v1::GetConfigFilesReply reply;
      absl::Status status = FetchOnce(targets[i], auth, connect, deadline, &reply);
      if (absl::IsUnavailable(status)) {
        answers[i] = std::string(status.message());
        continue;
      }
      if (!status.ok()) return status;
      absl::StatusOr<ConfigFileSet> files = FilesOf(targets[i], reply);
      if (!files.ok()) return files.status();
      return FetchedConfig{*std::move(files), targets[i]};
    }
    if (Clock::now() + kPause >= deadline) break;
    std::this_thread::sleep_for(kPause);
  }
  return absl::UnavailableError(
      absl::StrCat("no skiff controller at ", absl::StrJoin(targets, ", "),
                   " serves its configuration (", absl::StrJoin(answers, "; "), ")"));
}

std::string ConfiglessMungeSocket() {
  const char* socket = std::getenv("SKIFF_MUNGE_SOCKET");
  return socket != nullptr ? socket : "";
}

}  // namespace skiff
