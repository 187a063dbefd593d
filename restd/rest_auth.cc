#include "restd/rest_auth.h"

#include <sys/stat.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace skiff::restd {
namespace {

// The token's "sun" (or "username") claim, unverified: only to compare with
// X-SLURM-USER-NAME; ctld verifies the token itself.
std::string ClaimedUser(const std::string& token) {
  const std::vector<std::string> parts = absl::StrSplit(token, '.');
  std::string payload;
  if (parts.size() != 3 || !absl::WebSafeBase64Unescape(parts[1], &payload)) return "";
  const nlohmann::json claims = nlohmann::json::parse(payload, nullptr, false);
  if (!claims.is_object()) return "";
  for (const char* name : {"sun", "username"}) {
    auto it = claims.find(name);
    if (it != claims.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

// The token of "Authorization: Bearer <token>" (RFC 6750; the scheme in any
// case), or "" for no header or another scheme.
std::string BearerToken(const HttpRequest& request) {
  const std::string header = request.Header("Authorization");
  const absl::string_view value = absl::StripAsciiWhitespace(header);
  constexpr absl::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
    return "";
  }
  return std::string(absl::StripAsciiWhitespace(value.substr(kScheme.size())));
}

}  // namespace

bool IsMetricsCredential(const HttpRequest& request, const std::string& secret) {
  if (secret.empty()) return false;
  const std::string given = BearerToken(request);
  if (given.size() != secret.size()) return false;
  unsigned char differs = 0;
  for (size_t i = 0; i < given.size(); ++i) {
    differs |= static_cast<unsigned char>(given[i] ^ secret[i]);
  }
  return differs == 0;
}

bool IsMetricsPath(const std::string& method, const std::string& path) {
  return (method == "GET" || method == "HEAD") &&
         (path == "/metrics" || absl::StartsWith(path, "/metrics/"));
}

absl::Status CheckMetricsTokenFile(const std::string& path, bool regular, mode_t mode,
                                   const std::string& text) {
  auto problem = [&](const std::string& what) {
    return absl::FailedPreconditionError(absl::StrCat("--metrics-token-file ", path, ": ", what));
  };
  if (!regular) return problem("not a regular file");
  if ((mode & (S_IWGRP | S_IWOTH | S_IROTH)) != 0) {
    return problem("group or others may write it, or others read it (chmod 600 or 640)");
  }
  const absl::string_view secret = absl::StripAsciiWhitespace(text);
  if (secret.size() < 32 || secret.find_first_of(" \t\r\n") != absl::string_view::npos) {
    return problem(
        "holds no secret of 32 characters or more on one line "
        "(openssl rand -hex 32 > FILE)");
  }
  return absl::OkStatus();
}

absl::StatusOr<RestCaller> CallerOf(const HttpRequest& request, const HttpPeer& peer) {
  RestCaller caller;
  caller.token = request.Header("X-SLURM-USER-TOKEN");
  if (caller.token.empty()) caller.token = BearerToken(request);
  if (!caller.token.empty()) {
    caller.user_name = ClaimedUser(caller.token);
    const std::string named = request.Header("X-SLURM-USER-NAME");
    if (!named.empty() && named != caller.user_name) caller.act_as = named;
    return caller;
  }
  if (peer.unix_socket && peer.uid) {
    caller.uid = peer.uid;
    return caller;
  }
  return absl::UnauthenticatedError(
      "authentication required: send X-SLURM-USER-TOKEN (scontrol token) or "
      "Authorization: Bearer TOKEN, or connect to restd's Unix socket");
}

}  // namespace skiff::restd
