#include "common/auth/jwt.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace skiff {
namespace {

using Json = nlohmann::json;

std::string Base64Url(absl::string_view data) {
  std::string out;
  absl::WebSafeBase64Escape(data, &out);  // unpadded, as JWT wants
  return out;
}

std::string HmacSha256(absl::string_view key, absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

absl::Status Refused(const std::string& why) { return absl::UnauthenticatedError(why); }

}  // namespace

std::string MakeJwt(absl::string_view key, const std::string& username, int64_t now,
                    int64_t lifespan) {
  const std::string header = Base64Url(R"({"alg":"HS256","typ":"JWT"})");
  const Json claims = {{"iat", now}, {"exp", now + lifespan}, {"sun", username}};
  const std::string signing_input = absl::StrCat(header, ".", Base64Url(claims.dump()));
  return absl::StrCat(signing_input, ".", Base64Url(HmacSha256(key, signing_input)));
}

absl::StatusOr<JwtClaims> VerifyJwt(absl::string_view key, absl::string_view token, int64_t now) {
  const std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  std::string header_text, claims_text, signature;
  if (parts.size() != 3 || !absl::WebSafeBase64Unescape(parts[0], &header_text) ||
      !absl::WebSafeBase64Unescape(parts[1], &claims_text) ||
      !absl::WebSafeBase64Unescape(parts[2], &signature)) {
    return Refused("malformed token");
  }
  const Json header = Json::parse(header_text, nullptr, /*allow_exceptions=*/false);
  const Json claims = Json::parse(claims_text, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object() || !claims.is_object()) return Refused("malformed token");
  const auto alg = header.find("alg");
  if (alg == header.end() || !alg->is_string() || *alg != "HS256") {
    return Refused(absl::StrCat("unsupported alg=", alg != header.end() && alg->is_string()
                                                        ? alg->get<std::string>()
                                                        : "(none)"));
  }
  const std::string expected = HmacSha256(key, absl::StrCat(parts[0], ".", parts[1]));
  if (expected.size() != signature.size() ||
      CRYPTO_memcmp(expected.data(), signature.data(), expected.size()) != 0) {
    return Refused("bad signature");
  }
  JwtClaims out;
  const auto exp = claims.find("exp");
  if (exp == claims.end() || !exp->is_number_integer()) return Refused("malformed token");
  out.expires_at = exp->get<int64_t>();
  if (out.expires_at < now) return Refused("token expired");
  if (const auto iat = claims.find("iat"); iat != claims.end() && iat->is_number_integer()) {
    out.issued_at = iat->get<int64_t>();
  }
  for (const char* name : {"sun", "username"}) {
    const auto user = claims.find(name);
    if (user != claims.end() && user->is_string() && !user->get<std::string>().empty()) {
      out.username = user->get<std::string>();
      return out;
    }
  }
  return Refused("no username in token");
}

}  // namespace skiff
