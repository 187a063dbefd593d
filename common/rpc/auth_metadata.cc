#include "common/rpc/auth_metadata.h"

#include <string>

namespace skiff {

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
    return absl::UnauthenticatedError("request carries no munge credential");
  }
  return auth.VerifyCredential(std::string(it->second.data(), it->second.size()));
}

}  // namespace skiff
