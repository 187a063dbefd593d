#include "client/ctld_client.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/auth/munge_authenticator.h"
#include "common/auth/token_credential.h"
#include "common/config/configless.h"
#include "common/mutex_mode.h"
#include "common/rpc/channel.h"
#include "common/rpc/config_fetch.h"
#include "common/rpc/http2/unary_call.h"
#include "common/rpc/http2/unary_exchange.h"
#include "common/rpc/standby.h"

namespace skiff::client {

absl::StatusOr<LoadedConfig> LoadClientConfig(const std::string& conf_path) {
  const char* conf_env = std::getenv("SKIFF_CONF");
  const bool local = !conf_path.empty() || (conf_env != nullptr && conf_env[0] != '\0') ||
                     access(kDefaultConfPath, F_OK) == 0 || errno != ENOENT;
  if (local) return LoadConfig(ResolveConfPath(conf_path));
  // The controllers to ask, in turn, until one serves.
  std::vector<std::string> targets;
  const char* server = std::getenv("SKIFF_CONF_SERVER");
  if (server != nullptr && server[0] != '\0') {
    absl::StatusOr<std::vector<std::string>> parsed =
        ParseConfServers(server, SkiffConfig().ctld_port);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SKIFF_CONF_SERVER: ", parsed.status().message()));
    }
    targets = *std::move(parsed);
  } else {
    absl::StatusOr<std::vector<std::string>> srv = LookupCtldSrv();
    if (!srv.ok()) {
      return absl::NotFoundError(absl::StrCat(
          "no configuration: ", kDefaultConfPath,
          " does not exist, SKIFF_CONF and SKIFF_CONF_SERVER are not set, and DNS has no ",
          kCtldSrvName, " SRV record (", srv.status().message(), ")"));
    }
    targets = *std::move(srv);
  }
  MungeAuthenticator auth(ConfiglessMungeSocket());
  absl::StatusOr<FetchedConfig> fetched = FetchConfigFromControllers(targets, auth, 10);
  if (!fetched.ok()) return fetched.status();
  // Messages name the files as "/ctld@HOST:PORT/skiff.conf:LINE", HOST:PORT
  // the controller that served them.
  const std::string dir = absl::StrCat("/ctld@", fetched->target);
  std::vector<std::pair<std::string, std::string>> in_memory;
  for (const ConfigFile& file : fetched->files.files) {
    in_memory.emplace_back(absl::StrCat(dir, "/", file.name), file.text);
  }
  return LoadConfigFromMemory(dir, in_memory);
}

absl::StatusOr<std::unique_ptr<CtldClient>> CtldClient::Connect(const std::string& conf_path,
                                                                CtldCalls calls) {
  TurnOffMutexDeadlockDetection();  // before gRPC starts its threads (mutex_mode.h)
  absl::StatusOr<LoadedConfig> loaded = LoadClientConfig(conf_path);
  if (!loaded.ok()) return loaded.status();
  const SkiffConfig& config = loaded->skiff;
  std::vector<std::string> targets = config.CtldTargets();
  // SLURM_JWT=TOKEN: the token is the credential (AuthAltTypes=auth/jwt), as
  // Slurm's commands do; no munged is needed then.
  std::unique_ptr<Authenticator> auth;
  if (const char* token = getenv(kJwtEnvironmentVariable); token != nullptr && *token != '\0') {
    auth = std::make_unique<TokenCredential>(token);
  } else {
    auth = std::make_unique<MungeAuthenticator>(config.auth_socket);
  }
  if (!http2::DirectCallsAllowed()) calls = CtldCalls::kChannel;
  return std::unique_ptr<CtldClient>(
      new CtldClient(std::move(*loaded), std::move(targets), std::move(auth), calls));
}

CtldClient::CtldClient(LoadedConfig config, std::vector<std::string> targets,
                       std::unique_ptr<Authenticator> auth, CtldCalls calls)
    : config_(std::move(config)),
      targets_(std::move(targets)),
      auth_(std::move(auth)),
      calls_(calls),
      channels_(targets_.size()),
      stubs_(targets_.size()) {}

v1::Ctld::Stub& CtldClient::Stub(size_t i) {
  std::lock_guard<std::mutex> lock(channels_mu_);
  if (stubs_[i] == nullptr) {
    channels_[i] = MakeChannel(targets_[i]);
    stubs_[i] = v1::Ctld::NewStub(channels_[i]);
  }
  return *stubs_[i];
}

absl::Status CtldClient::PingController(size_t i, v1::PingReply* reply) {
  const v1::PingRequest request;
  if (calls_ == CtldCalls::kDirect) {
    std::optional<absl::Status> done = CallDirect(
        i, v1::CtldMethodPathFor(request.GetTypeName(), reply->GetTypeName()), request, reply);
    return done.value_or(absl::UnavailableError(absl::StrCat(targets_[i], " does not answer")));
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(config_.skiff.message_timeout));
  if (absl::Status s = AttachCredential(*auth_, &context); !s.ok()) return s;
  return FromGrpcStatus(Stub(i).Ping(&context, request, reply));
}

bool CtldClient::FitsDirectCall(const google::protobuf::MessageLite& request) {
  return request.ByteSizeLong() <= http2::kMaxUnaryRequestBytes;
}

bool CtldClient::PauseBeforeNextRound(std::chrono::system_clock::time_point deadline) {
  constexpr std::chrono::milliseconds kPause{200};
  if (std::chrono::system_clock::now() + kPause >= deadline) return false;
  std::this_thread::sleep_for(kPause);
  return true;
}

absl::Status CtldClient::CallControllers(const char* path,
                                         const google::protobuf::MessageLite& request,
                                         google::protobuf::MessageLite* reply) {
  // A controller whose machine is off answers no connection at all: the first
  // round gives each a quarter second to connect (the kernel completes a live
  // one's handshake in well under a millisecond on the cluster's network),
  // each later round twice as long up to a second, so that while the head is
  // down every command reaches the standby at once, and one that waits out a
  // takeover tries again within about a second of the standby serving.
  size_t attempts = 0;
  return EachControllerInTurn(
      std::chrono::system_clock::now() + std::chrono::seconds(config_.skiff.message_timeout),
      [&](size_t i) {
        const size_t round = std::min<size_t>(attempts++ / targets_.size(), 2);
        const std::chrono::milliseconds connect = std::chrono::milliseconds(250) * (1 << round);
        return CallDirect(i, path, request, reply, connect);
      });
}

std::optional<absl::Status> CtldClient::CallDirect(size_t i, const char* path,
                                                   const google::protobuf::MessageLite& request,
                                                   google::protobuf::MessageLite* reply,
                                                   std::chrono::milliseconds connect_timeout) {
  absl::StatusOr<std::string> credential = auth_->CreateCredential();
  if (!credential.ok()) return credential.status();
  const std::string& target = targets_[i];
  http2::UnaryRequest call{
      target, path, {{kCredentialMetadataKey, *credential}}, request.SerializeAsString()};
  http2::UnaryCallResult result =
      http2::CallUnary(target, std::move(call), connect_timeout,
                       std::chrono::seconds(config_.skiff.message_timeout), kMaxReplyBytes);
  if (result.never_sent) return std::nullopt;
  switch (result.status.code()) {
    case absl::StatusCode::kOk:
      if (!reply->ParseFromString(result.reply)) {
        return absl::InternalError(absl::StrCat("unreadable reply from ", path));
      }
      return absl::OkStatus();
    case absl::StatusCode::kUnavailable:
      // A standby ran nothing: another controller serves.
      if (IsStandbyAnswer(std::string(result.status.message()))) return std::nullopt;
      return Unreachable();
    case absl::StatusCode::kDeadlineExceeded:
      return NoAnswer(i);
    default:
      return result.status;
  }
}

absl::Status CtldClient::Unreachable() const {
  return absl::UnavailableError(absl::StrCat("Unable to contact skiff controller at ",
                                             absl::StrJoin(targets_, " or "),
                                             " (connect failure)"));
}

absl::Status CtldClient::NoAnswer(size_t i) const {
  return absl::DeadlineExceededError(
      absl::StrCat("skiff controller at ", targets_[i],
                   " did not answer within MessageTimeout=", config_.skiff.message_timeout, "s"));
}

absl::Status CtldClient::Explain(const grpc::Status& status, size_t i) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return absl::OkStatus();
    case grpc::StatusCode::UNAVAILABLE:
      return Unreachable();
    case grpc::StatusCode::DEADLINE_EXCEEDED: {
      // Never connected within MessageTimeout: ctld is down or unreachable.
      std::lock_guard<std::mutex> lock(channels_mu_);
      if (channels_[i]->GetState(false) != GRPC_CHANNEL_READY) return Unreachable();
      return NoAnswer(i);
    }
    default:
      return FromGrpcStatus(status);
  }
}

int PrintJobExplanation(CtldClient& client, const std::string& program,
                        const std::string& id_text) {
  uint64_t id = 0;
  if (!absl::SimpleAtoi(id_text, &id) || id == 0) {
    return ReportError(program, absl::InvalidArgumentError("Invalid job id: " + id_text));
  }
  v1::ExplainJobRequest request;
  request.set_job_id(id);
  v1::ExplainJobReply explanation;
  absl::Status status = client.Call(&v1::Ctld::Stub::ExplainJob, request, &explanation);
  if (status.code() == absl::StatusCode::kNotFound) {
    std::cerr << "slurm_load_jobs error: Invalid job id specified\n";
    return 1;
  }
  if (!status.ok()) return ReportError(program, status);
  std::cout << explanation.text() << "\n";
  return 0;
}

int ReportError(const std::string& program, const absl::Status& status, int exit_code) {
  for (const std::string& line : ErrorLines(program, std::string(status.message()))) {
    fprintf(stderr, "%s\n", line.c_str());
  }
  return exit_code;
}

std::vector<std::string> ErrorLines(const std::string& program, const std::string& message) {
  std::vector<std::string> lines;
  size_t start = 0;
  do {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    lines.push_back(absl::StrCat(program, ": error: ", message.substr(start, end - start)));
    start = end + 1;
  } while (start < message.size());
  return lines;
}

void ExitNow(int exit_code) {
  std::cout.flush();
  std::cerr.flush();
  fflush(stdout);
  fflush(stderr);
  _exit(exit_code);
}

}  // namespace skiff::client
