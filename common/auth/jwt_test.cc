#include "common/auth/jwt.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"

namespace skiff {
namespace {

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

TEST(JwtTest, RoundTripsSlurmsClaims) {
  const std::string token = MakeJwt(kKey, "alice", 1000, 1800);
  absl::StatusOr<JwtClaims> claims = VerifyJwt(kKey, token, 1500);
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->username, "alice");
  EXPECT_EQ(claims->issued_at, 1000);
  EXPECT_EQ(claims->expires_at, 2800);
  // The claims are Slurm's names, readable by any JWT library.
  const std::vector<std::string> parts = absl::StrSplit(token, '.');
  ASSERT_EQ(parts.size(), 3u);
  std::string payload;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(parts[1], &payload));
  EXPECT_EQ(payload, R"({"exp":2800,"iat":1000,"sun":"alice"})");
}

// RFC 7515's HS256 example (appendix A.1), made by another implementation:
// its signature checks out here; it names no user, so it is still refused.
TEST(JwtTest, ChecksRfc7515sExampleSignature) {
  std::string key;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(
      "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
      &key));
  const std::string token =
      "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9."
      "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVl"
      "fQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  EXPECT_EQ(VerifyJwt(key, token, 1300819000).status().message(), "no username in token");
  EXPECT_EQ(VerifyJwt(key, token, 1300819381).status().message(), "token expired");
  EXPECT_EQ(VerifyJwt(kKey, token, 1300819000).status().message(), "bad signature");
}

TEST(JwtTest, RefusesWhatSlurmRefuses) {
  const std::string token = MakeJwt(kKey, "alice", 1000, 60);
  EXPECT_EQ(VerifyJwt(kKey, token, 1061).status().message(), "token expired");
  EXPECT_EQ(VerifyJwt("another key", token, 1000).status().message(), "bad signature");
  EXPECT_EQ(VerifyJwt(kKey, "not.a-token", 1000).status().message(), "malformed token");
  EXPECT_EQ(VerifyJwt(kKey, "", 1000).status().message(), "malformed token");
  const std::string none = absl::WebSafeBase64Escape(R"({"alg":"none"})") + "." +
                           absl::WebSafeBase64Escape(R"({"sun":"root","exp":9999999999})") + ".";
  EXPECT_EQ(VerifyJwt(kKey, none, 1000).status().message(), "unsupported alg=none");
  // A token changed after signing: its signature no longer matches.
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  parts[1] = absl::WebSafeBase64Escape(R"({"exp":9999999999,"iat":1000,"sun":"root"})");
  EXPECT_EQ(VerifyJwt(kKey, parts[0] + "." + parts[1] + "." + parts[2], 1000).status().message(),
            "bad signature");
}

}  // namespace
}  // namespace skiff
