#include "common/rpc/config_fetch.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth_metadata.h"
#include "common/rpc/channel.h"
#include "common/rpc/status.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff {

absl::StatusOr<ConfigFileSet> FetchConfigFiles(const std::string& target, Authenticator& auth,
                                               int timeout_seconds) {
  std::shared_ptr<grpc::Channel> channel = MakeChannel(target);
  std::unique_ptr<v1::Ctld::Stub> stub = v1::Ctld::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds));
  // A loaded machine may need more than one connection attempt.
  context.set_wait_for_ready(true);
  if (absl::Status s = AttachCredential(auth, &context); !s.ok()) return s;
  v1::GetConfigFilesReply reply;
  grpc::Status status = stub->GetConfigFiles(&context, v1::GetConfigFilesRequest(), &reply);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
       channel->GetState(false) != GRPC_CHANNEL_READY)) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach the skiff controller at ", target, " for its configuration"));
  }
  if (!status.ok()) {
    absl::Status s = FromGrpcStatus(status);
    return absl::Status(s.code(), absl::StrCat("configuration from ", target, ": ", s.message()));
  }
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
