#include "common/auth/jwt_authenticator.h"

#include <gtest/gtest.h>

#include "common/auth/jwt.h"

namespace skiff {
namespace {

constexpr char kKey[] = "cluster key";

// Stands in for munge: "munge:UID" credentials.
class FakeMunge final : public Authenticator {
 public:
  absl::StatusOr<std::string> CreateCredential() override { return "munge:7"; }
  absl::StatusOr<Identity> VerifyCredential(const std::string& credential) override {
    if (credential == "munge:7") return Identity{7, 7};
    return absl::UnauthenticatedError("invalid munge credential");
  }
};

std::optional<Identity> Users(const std::string& name) {
  if (name == "alice") return Identity{1001, 1001};
  return std::nullopt;
}

TEST(JwtOrMungeAuthenticatorTest, ATokenIsTheIdentityOfItsUser) {
  FakeMunge munge;
  JwtOrMungeAuthenticator auth(munge, kKey, Users, [] { return int64_t{5000}; });
  TokenCredential client(MakeJwt(kKey, "alice", 4000, 1800));
  absl::StatusOr<Identity> who = auth.VerifyCredential(*client.CreateCredential());
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_EQ(who->uid, 1001u);
  EXPECT_EQ(who->gid, 1001u);
  // Munge's credentials still work beside tokens.
  EXPECT_EQ(auth.VerifyCredential("munge:7")->uid, 7u);
  EXPECT_EQ(*auth.CreateCredential(), "munge:7");
}

TEST(JwtOrMungeAuthenticatorTest, RefusesBadExpiredAndUnknownUsersTokens) {
  FakeMunge munge;
  JwtOrMungeAuthenticator auth(munge, kKey, Users, [] { return int64_t{5000}; });
  EXPECT_EQ(auth.VerifyCredential("jwt:" + MakeJwt(kKey, "alice", 1000, 60)).status().message(),
            "invalid token: token expired");
  EXPECT_EQ(
      auth.VerifyCredential("jwt:" + MakeJwt("other key", "alice", 4000, 1800)).status().message(),
      "invalid token: bad signature");
  EXPECT_EQ(auth.VerifyCredential("jwt:" + MakeJwt(kKey, "mallory", 4000, 1800)).status().message(),
            "invalid token: user mallory is unknown here");
  EXPECT_EQ(auth.VerifyCredential("jwt:garbage").status().code(),
            absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace skiff
