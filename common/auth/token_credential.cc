#include "common/auth/token_credential.h"

#include "absl/strings/str_cat.h"

namespace skiff {

absl::StatusOr<std::string> TokenCredential::CreateCredential() {
  return absl::StrCat(kJwtCredentialPrefix, token_);
}

absl::StatusOr<Identity> TokenCredential::VerifyCredential(const std::string&) {
  return absl::UnimplementedError("a token credential is only sent, never verified here");
}

}  // namespace skiff
