#include "common/join/join_token.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace skiff {
namespace {

const std::string kPin(64, 'a');

// Bytes 0, 1, 2, ... : a token whose characters are the alphabet in order.
RandomBytes Counting() {
  return [n = 0](unsigned char* out, size_t size) mutable {
    for (size_t i = 0; i < size; ++i) out[i] = static_cast<unsigned char>(n++);
    return true;
  };
}

StoredJoinToken Stored(const std::string& secret, int64_t expires) {
  StoredJoinToken t;
  t.id = "abcdef";
  t.secret_hash = Sha256Hex(secret);
  t.created = 100;
  t.expires = expires;
  return t;
}

TEST(JoinTokenTest, NewTokenFormatsAndParsesBack) {
  absl::StatusOr<JoinToken> token = NewJoinToken(kPin, Counting());
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->id, "abcdef");
  EXPECT_EQ(token->secret, "ghijklmnopqrstuvwxyz234567");
  const std::string text = FormatJoinToken(*token);
  EXPECT_EQ(text, "abcdef.ghijklmnopqrstuvwxyz234567." + kPin);
  absl::StatusOr<JoinToken> parsed = ParseJoinToken(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->id, token->id);
  EXPECT_EQ(parsed->secret, token->secret);
  EXPECT_EQ(parsed->pin, kPin);
}

TEST(JoinTokenTest, SystemRandomTokensDiffer) {
  absl::StatusOr<JoinToken> a = NewJoinToken(kPin, SystemRandomBytes());
  absl::StatusOr<JoinToken> b = NewJoinToken(kPin, SystemRandomBytes());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->secret, b->secret);
  EXPECT_TRUE(ParseJoinToken(FormatJoinToken(*a)).ok());
}

TEST(JoinTokenTest, FailingRandomSourceIsAnError) {
  absl::StatusOr<JoinToken> token =
      NewJoinToken(kPin, [](unsigned char*, size_t) { return false; });
  EXPECT_EQ(token.status().code(), absl::StatusCode::kInternal);
}

TEST(JoinTokenTest, MalformedTokensSayWhatIsWrong) {
  const std::string secret = "ghijklmnopqrstuvwxyz234567";
  struct Case {
    std::string text;
    std::string says;
  } cases[] = {
      {"", "three parts"},
      {"abcdef." + secret, "three parts"},
      {"abcdef." + secret + "." + kPin + ".x", "three parts"},
      {"abcde." + secret + "." + kPin, "the id"},
      {"ABCDEF." + secret + "." + kPin, "the id"},
      {"abcdef." + secret.substr(1) + "." + kPin, "the secret"},
      {"abcdef." + secret.substr(1) + "1." + kPin, "the secret"},
      {"abcdef." + secret + "." + kPin.substr(1), "pin"},
      {"abcdef." + secret + "." + std::string(64, 'g'), "pin"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<JoinToken> parsed = ParseJoinToken(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("join token is malformed"), absl::string_view::npos);
    EXPECT_NE(parsed.status().message().find(c.says), absl::string_view::npos)
        << c.text << ": " << parsed.status();
  }
}

TEST(JoinTokenTest, Sha256HexIsTheKnownDigest) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(JoinTokenTest, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(JoinTokenTest, StoredTokenRoundTrips) {
  StoredJoinToken t = Stored("s3cret", 4000);
  t.created_by_uid = 64030;
  EXPECT_EQ(DecodeStoredJoinToken(t.id, EncodeStoredJoinToken(t)).value(), t);
  t.used = true;
  t.used_by = "gpu01";
  t.used_at = 200;
  EXPECT_EQ(DecodeStoredJoinToken(t.id, EncodeStoredJoinToken(t)).value(), t);
  // The secret is not in the record.
  EXPECT_EQ(EncodeStoredJoinToken(t).find("s3cret"), std::string::npos);
}

TEST(JoinTokenTest, BrokenStoredTokenIsDataLossNamingIt) {
  for (const std::string& blob :
       std::vector<std::string>{"", "v2 x 1 2 3 0 0", "v1 short 1 2 3 0 0",
                                "v1 " + std::string(64, 'a') + " 1 2 3 7 0"}) {
    absl::StatusOr<StoredJoinToken> t = DecodeStoredJoinToken("abcdef", blob);
    ASSERT_FALSE(t.ok()) << blob;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(t.status().message().find("'abcdef'"), absl::string_view::npos);
  }
}

TEST(JoinTokenTest, CheckAcceptsTheRightSecretBeforeExpiry) {
  const StoredJoinToken t = Stored("right", 1000);
  EXPECT_TRUE(CheckJoinToken(&t, "right", 999).ok());
  EXPECT_EQ(JoinTokenStateText(t, 999), "valid");
}

TEST(JoinTokenTest, UnknownTokenAndWrongSecretAreNotValid) {
  const StoredJoinToken t = Stored("right", 1000);
  for (const absl::Status& s : {CheckJoinToken(nullptr, "right", 0), CheckJoinToken(&t, "wrong", 0),
                                CheckJoinToken(&t, "", 0)}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_EQ(s.message(), "join token is not valid");
  }
}

TEST(JoinTokenTest, ExpiresAtItsExpiryTime) {
  const StoredJoinToken t = Stored("right", 1000);
  absl::Status s = CheckJoinToken(&t, "right", 1000);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "join token has expired");
  EXPECT_EQ(JoinTokenStateText(t, 1000), "expired");
  // An expired token with the wrong secret tells nothing about its expiry.
  EXPECT_EQ(CheckJoinToken(&t, "wrong", 1000).message(), "join token is not valid");
}

TEST(JoinTokenTest, UsedTokenSaysWhichNodeUsedIt) {
  StoredJoinToken t = Stored("right", 1000);
  t.used = true;
  t.used_by = "n3";
  absl::Status s = CheckJoinToken(&t, "right", 10);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "join token was already used (by node n3)");
  EXPECT_EQ(JoinTokenStateText(t, 2000), "used by n3");  // used wins over expired
  EXPECT_EQ(CheckJoinToken(&t, "right", 2000).message(), s.message());
}

TEST(JoinTokenTest, TtlTakesSecondsAndUnits) {
  EXPECT_EQ(ParseJoinTtl("1").value(), 1);
  EXPECT_EQ(ParseJoinTtl("90s").value(), 90);
  EXPECT_EQ(ParseJoinTtl("30m").value(), 1800);
  EXPECT_EQ(ParseJoinTtl("1h").value(), 3600);
  EXPECT_EQ(ParseJoinTtl("2D").value(), 2 * 86400);
  EXPECT_EQ(ParseJoinTtl("30d").value(), 30 * 86400);
  for (const char* bad : {"", "0", "0h", "h", "-1", "1.5h", "1w", "31d", "99999999999999999999"}) {
    absl::StatusOr<int64_t> ttl = ParseJoinTtl(bad);
    EXPECT_EQ(ttl.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(ttl.status().message().find("--ttl"), absl::string_view::npos);
  }
}

TEST(JoinTokenTest, NodeNamesAreSingleHostNames) {
  for (const char* good : {"n3", "gpu-01", "node_7", "a.lab", "9"}) {
    EXPECT_TRUE(CheckJoinNodeName(good).ok()) << good;
  }
  for (const char* bad : {"", "-x", "n[1-2]", "a,b", "a b", "ALL", "default",
                          "x23456789012345678901234567890123456789012345678901234567890123456"}) {
    absl::Status s = CheckJoinNodeName(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("is not valid"), absl::string_view::npos);
  }
}

// Issue 47 item 8: what a joiner sends is checked before ctld logs it, and an
// error quotes it escaped and cut short, so that it cannot write log lines.
TEST(JoinTokenTest, ANodeNameInAnErrorIsEscapedAndCutShort) {
  const std::string name = std::string(60000, 'x') + "\n[ctld] forged line\n";
  absl::Status s = CheckJoinNodeName(name);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "node name '" + std::string(64, 'x') +
                             "... (60020 bytes)' is not valid: it is longer than 64 characters");
  EXPECT_EQ(CheckJoinNodeName("a\nb").message(),
            "node name 'a\\nb' is not valid: only letters, digits, '-', '_' and '.' may be used");
  EXPECT_EQ(QuotedForLog("tab\there\x1b"), "tab\\there\\x1b");
  EXPECT_EQ(QuotedForLog("abcdef", 3), "abc... (6 bytes)");
}

TEST(JoinTokenTest, TokenIdsAreSixBase32Characters) {
  EXPECT_TRUE(CheckJoinTokenId("abc234").ok());
  for (const char* bad : {"", "abc23", "abc2345", "ABC234", "abc18z", "abc\n23"}) {
    absl::Status s = CheckJoinTokenId(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("join token id"), absl::string_view::npos) << s;
    EXPECT_EQ(s.message().find('\n'), absl::string_view::npos) << s;
  }
}

TEST(JoinTokenTest, AJoinAddressIsAHostNameOrAnIpAddress) {
  for (const char* good : {"", "10.0.0.5", "fd00::1", "node-3.lab", "n_3"}) {
    EXPECT_TRUE(CheckJoinAddress(good).ok()) << good;
  }
  for (const std::string& bad :
       {std::string("a b"), std::string("x\ny"), std::string(256, 'a'), std::string("[::1]")}) {
    absl::Status s = CheckJoinAddress(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.message().find('\n'), absl::string_view::npos) << s;
  }
}

}  // namespace
}  // namespace skiff
