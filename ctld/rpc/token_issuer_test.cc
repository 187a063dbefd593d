#include "ctld/rpc/token_issuer.h"

#include <gtest/gtest.h>

#include "common/auth/jwt.h"

namespace skiff::ctld {
namespace {

constexpr char kKey[] = "a key of thirty-two bytes, or so";

TokenIssuer Issuer(int64_t max_lifespan = 0, bool disabled = false) {
  return TokenIssuer({true, kKey, max_lifespan, disabled});
}

JwtClaims Claims(const absl::StatusOr<std::string>& token) {
  EXPECT_TRUE(token.ok()) << token.status();
  absl::StatusOr<JwtClaims> claims = VerifyJwt(kKey, token.ok() ? *token : "", 100);
  EXPECT_TRUE(claims.ok()) << claims.status();
  return claims.ok() ? *claims : JwtClaims{};
}

TEST(TokenIssuerTest, TheCallersOwnTokenForSlurmsDefaultLifespan) {
  const JwtClaims claims = Claims(Issuer().Issue({"alice", false}, "", 0, 100));
  EXPECT_EQ(claims.username, "alice");
  EXPECT_EQ(claims.expires_at - claims.issued_at, 1800);
  EXPECT_EQ(Claims(Issuer().Issue({"alice", false}, "alice", 60, 100)).expires_at, 160);
}

TEST(TokenIssuerTest, OnlyRootAndSlurmUserGetAnotherUsersToken) {
  EXPECT_EQ(Issuer().Issue({"alice", false}, "bob", 0, 100).status().message(), "Invalid user id");
  EXPECT_EQ(Claims(Issuer().Issue({"root", true}, "bob", 0, 100)).username, "bob");
  EXPECT_EQ(Issuer().Issue({"", false}, "", 0, 100).status().message(), "Invalid user id");
}

TEST(TokenIssuerTest, MaxTokenLifespanCapsUsersNotSlurmUser) {
  const TokenIssuer capped = Issuer(600);
  const JwtClaims defaulted = Claims(capped.Issue({"alice", false}, "", 0, 100));
  EXPECT_EQ(defaulted.expires_at - defaulted.issued_at, 600);
  EXPECT_EQ(capped.Issue({"alice", false}, "", 601, 100).status().message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  EXPECT_TRUE(capped.Issue({"root", true}, "", 86400, 100).ok());
}

TEST(TokenIssuerTest, WithoutAuthJwtOrWithCreationDisabled) {
  TokenIssuer off({false, "", 0, false});
  EXPECT_EQ(off.Issue({"alice", false}, "", 0, 100).status().message(),
            "Required plugin type not loaded or initialized");
  EXPECT_EQ(Issuer(0, true).Issue({"alice", false}, "", 0, 100).status().message(),
            "Access/permission denied");
  EXPECT_TRUE(Issuer(0, true).Issue({"root", true}, "alice", 0, 100).ok());
}

}  // namespace
}  // namespace skiff::ctld
