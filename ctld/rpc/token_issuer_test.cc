#include "ctld/rpc/token_issuer.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
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
            "Requested time limit is invalid (missing or exceeds some limit): lifespan=601 is "
            "longer than the 600 s a user's token may last "
            "(AuthAltParameters=max_token_lifespan); only root and SlurmUser may ask for longer");
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

// Issue 47 item 12: without max_token_lifespan a user asked for any lifespan,
// "infinite" and overflowing ones included.
TEST(TokenIssuerTest, WithoutMaxTokenLifespanUsersGetADayAtMost) {
  EXPECT_EQ(Claims(Issuer().Issue({"alice", false}, "", kMaxUserTokenLifespan, 100)).expires_at,
            100 + kMaxUserTokenLifespan);
  for (int64_t lifespan : {kMaxUserTokenLifespan + 1, kMaxTokenLifespan}) {
    absl::Status s = Issuer().Issue({"alice", false}, "", lifespan, 100).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << lifespan;
    EXPECT_NE(s.message().find("lifespan="), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find("only root and SlurmUser may ask for longer"),
              absl::string_view::npos)
        << s;
  }
  EXPECT_NE(Issuer()
                .Issue({"alice", false}, "", kMaxTokenLifespan, 100)
                .status()
                .message()
                .find("lifespan=infinite"),
            absl::string_view::npos);
  // max_token_lifespan set by the admin is the users' cap, above a day too.
  EXPECT_TRUE(Issuer(7 * 86400).Issue({"alice", false}, "", 7 * 86400, 100).ok());
}

TEST(TokenIssuerTest, NoLifespanOverflowsForAnyone) {
  const JwtClaims forever = Claims(Issuer().Issue({"root", true}, "alice", kMaxTokenLifespan, 100));
  EXPECT_EQ(forever.expires_at, 100 + kMaxTokenLifespan);
  for (int64_t lifespan : {kMaxTokenLifespan + 1, std::numeric_limits<int64_t>::max(), int64_t{-1},
                           std::numeric_limits<int64_t>::min()}) {
    for (bool root : {true, false}) {
      absl::Status s = Issuer().Issue({root ? "root" : "alice", root}, "", lifespan, 100).status();
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << lifespan;
      EXPECT_NE(s.message().find(absl::StrCat("lifespan=", lifespan)), absl::string_view::npos)
          << s;
    }
  }
}

TEST(TokenIssuerTest, AKeyFileOthersCanReadOrThatIsShortIsRefused) {
  const uid_t skiff = 990;
  JwtKeyFile good{true, 0600, skiff, 48};
  EXPECT_TRUE(CheckJwtKeyFile("/k", good, skiff).ok());
  good.owner = 0;
  EXPECT_TRUE(CheckJwtKeyFile("/k", good, skiff).ok());
  good.mode = 0400;
  EXPECT_TRUE(CheckJwtKeyFile("/k", good, skiff).ok());
  good.size = kMinJwtKeyBytes;
  EXPECT_TRUE(CheckJwtKeyFile("/k", good, skiff).ok());
  struct Bad {
    JwtKeyFile file;
    std::string says;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{true, 0644, 0, 48},
            "AuthAltParameters: jwt_key /k is open to group or other users "
            "(mode 0644)"},
           {{true, 0640, 0, 48}, "(mode 0640)"},
           {{true, 0602, 0, 48}, "(mode 0602)"},
           {{true, 0600, 1000, 48}, "AuthAltParameters: jwt_key /k is owned by uid 1000"},
           {{true, 0600, 0, 1}, "AuthAltParameters: jwt_key /k is 1 bytes long"},
           {{true, 0600, 0, kMinJwtKeyBytes - 1}, "is 31 bytes long"},
           {{true, 0600, 0, kMaxJwtKeyBytes + 1}, "bytes long: a key is at most"},
           {{false, 0600, 0, 48}, "AuthAltParameters: jwt_key /k is not a regular file"}}) {
    absl::Status s = CheckJwtKeyFile("/k", bad.file, skiff);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << bad.says;
    EXPECT_NE(s.message().find(bad.says), absl::string_view::npos) << s;
  }
}

}  // namespace
}  // namespace skiff::ctld
