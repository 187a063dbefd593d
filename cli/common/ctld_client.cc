#include "cli/common/ctld_client.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/auth/munge_authenticator.h"
#include "common/rpc/channel.h"

namespace skiff {

absl::StatusOr<std::unique_ptr<CtldClient>> CtldClient::Connect(const std::string& conf_path) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(ResolveConfPath(conf_path));
  if (!loaded.ok()) return loaded.status();
  const SkiffConfig& config = loaded->skiff;
  std::string target = absl::StrCat(config.ctld_addr.empty() ? config.ctld_host : config.ctld_addr,
                                    ":", config.ctld_port);
  auto auth = std::make_unique<MungeAuthenticator>(config.auth_socket);
  return std::unique_ptr<CtldClient>(
      new CtldClient(std::move(*loaded), std::move(target), std::move(auth)));
}

CtldClient::CtldClient(LoadedConfig config, std::string target, std::unique_ptr<Authenticator> auth)
    : config_(std::move(config)),
      target_(std::move(target)),
      auth_(std::move(auth)),
      channel_(MakeChannel(target_)),
      stub_(v1::Ctld::NewStub(channel_)) {}

absl::Status CtldClient::Explain(const grpc::Status& status) const {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return absl::OkStatus();
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(
          absl::StrCat("Unable to contact skiff controller at ", target_, " (connect failure)"));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      // Never connected within MessageTimeout: ctld is down or unreachable.
      if (channel_->GetState(false) != GRPC_CHANNEL_READY) {
        return absl::UnavailableError(
            absl::StrCat("Unable to contact skiff controller at ", target_, " (connect failure)"));
      }
      return absl::DeadlineExceededError(absl::StrCat(
          "skiff controller at ", target_,
          " did not answer within MessageTimeout=", config_.skiff.message_timeout, "s"));
    default:
      return FromGrpcStatus(status);
  }
}

int ReportError(const std::string& program, const absl::Status& status, int exit_code) {
  std::string message(status.message());
  size_t start = 0;
  do {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    fprintf(stderr, "%s: error: %s\n", program.c_str(), message.substr(start, end - start).c_str());
    start = end + 1;
  } while (start < message.size());
  return exit_code;
}

void ExitNow(int exit_code) {
  std::cout.flush();
  std::cerr.flush();
  fflush(stdout);
  fflush(stderr);
  _exit(exit_code);
}

}  // namespace skiff
