#include "common/join/join_token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {
namespace {

constexpr char kBase32[] = "abcdefghijklmnopqrstuvwxyz234567";
constexpr int64_t kMaxTtl = 30 * 24 * 3600;

bool AllBase32(absl::string_view text) {
  for (char c : text) {
    if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) return false;
  }
  return true;
}

bool AllLowerHex(absl::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// `n` characters of kBase32 from random bytes (5 bits each, from a byte's low bits).
absl::StatusOr<std::string> RandomBase32(int n, const RandomBytes& random) {
  std::vector<unsigned char> bytes(static_cast<size_t>(n));
  if (!random(bytes.data(), bytes.size())) {
    return absl::InternalError("no random bytes for a join token (RAND_bytes failed)");
  }
  std::string out;
  for (unsigned char b : bytes) out.push_back(kBase32[b & 31]);
  return out;
}

absl::Status NotValid() { return absl::PermissionDeniedError("join token is not valid"); }

}  // namespace

std::string FormatJoinToken(const JoinToken& token) {
  return absl::StrCat(token.id, ".", token.secret, ".", token.pin);
}

absl::StatusOr<JoinToken> ParseJoinToken(absl::string_view text) {
  auto malformed = [](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("join token is malformed: ", std::string(what),
                     " (expected ID.SECRET.PIN as `skiff token create` prints it)"));
  };
  std::vector<absl::string_view> parts = absl::StrSplit(text, '.');
  if (parts.size() != 3) return malformed("it has not three parts separated by '.'");
  if (parts[0].size() != kJoinTokenIdLength || !AllBase32(parts[0])) {
    return malformed(absl::StrCat("the id is not ", kJoinTokenIdLength, " characters of a-z, 2-7"));
  }
  if (parts[1].size() != kJoinTokenSecretLength || !AllBase32(parts[1])) {
    return malformed(
        absl::StrCat("the secret is not ", kJoinTokenSecretLength, " characters of a-z, 2-7"));
  }
  if (parts[2].size() != 64 || !AllLowerHex(parts[2])) {
    return malformed("the certificate pin is not 64 hex digits");
  }
  return JoinToken{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

RandomBytes SystemRandomBytes() {
  return [](unsigned char* out, size_t n) { return RAND_bytes(out, static_cast<int>(n)) == 1; };
}

absl::StatusOr<std::string> NewNodeKey(const RandomBytes& random) {
  return RandomBase32(kNodeKeyLength, random);
}

absl::StatusOr<JoinToken> NewJoinToken(const std::string& pin, const RandomBytes& random) {
  absl::StatusOr<std::string> id = RandomBase32(kJoinTokenIdLength, random);
  if (!id.ok()) return id.status();
  absl::StatusOr<std::string> secret = RandomBase32(kJoinTokenSecretLength, random);
  if (!secret.ok()) return secret.status();
  return JoinToken{*std::move(id), *std::move(secret), pin};
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool StoredJoinToken::operator==(const StoredJoinToken& o) const {
  return id == o.id && secret_hash == o.secret_hash && created == o.created &&
         expires == o.expires && created_by_uid == o.created_by_uid && used == o.used &&
         used_by == o.used_by && used_at == o.used_at;
}

std::string EncodeStoredJoinToken(const StoredJoinToken& t) {
  // "v1 HASH CREATED EXPIRES UID USED USED_AT [USED_BY]"
  std::string out = absl::StrCat("v1 ", t.secret_hash, " ", t.created, " ", t.expires, " ",
                                 t.created_by_uid, " ", t.used ? 1 : 0, " ", t.used_at);
  if (!t.used_by.empty()) absl::StrAppend(&out, " ", t.used_by);
  return out;
}

absl::StatusOr<StoredJoinToken> DecodeStoredJoinToken(const std::string& id,
                                                      const std::string& blob) {
  auto bad = [&] {
    return absl::DataLossError(
        absl::StrCat("join token record '", id, "' does not parse: '", blob, "'"));
  };
  std::vector<std::string> words = absl::StrSplit(blob, ' ', absl::SkipEmpty());
  if (words.size() < 7 || words.size() > 8 || words[0] != "v1") return bad();
  StoredJoinToken t;
  t.id = id;
  t.secret_hash = words[1];
  int used = 0;
  if (t.secret_hash.size() != 64 || !AllLowerHex(t.secret_hash) ||
      !absl::SimpleAtoi(words[2], &t.created) || !absl::SimpleAtoi(words[3], &t.expires) ||
      !absl::SimpleAtoi(words[4], &t.created_by_uid) || !absl::SimpleAtoi(words[5], &used) ||
      (used != 0 && used != 1) || !absl::SimpleAtoi(words[6], &t.used_at)) {
    return bad();
  }
  t.used = used == 1;
  if (words.size() == 8) t.used_by = words[7];
  return t;
}

absl::Status CheckJoinToken(const StoredJoinToken* stored, absl::string_view secret, int64_t now) {
  if (stored == nullptr) return NotValid();
  // The secret first: whoever lacks it learns nothing about the token.
  if (!ConstantTimeEquals(Sha256Hex(secret), stored->secret_hash)) return NotValid();
  if (stored->used) {
    return absl::PermissionDeniedError(
        stored->used_by.empty()
            ? std::string("join token was already used")
            : absl::StrCat("join token was already used (by node ", stored->used_by, ")"));
  }
  if (now >= stored->expires) return absl::PermissionDeniedError("join token has expired");
  return absl::OkStatus();
}

std::string JoinTokenStateText(const StoredJoinToken& token, int64_t now) {
  if (token.used) return token.used_by.empty() ? "used" : absl::StrCat("used by ", token.used_by);
  if (now >= token.expires) return "expired";
  return "valid";
}

absl::StatusOr<int64_t> ParseJoinTtl(absl::string_view text) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--ttl '", std::string(text), "' ",
                                                   std::string(why),
                                                   " (seconds, or a number with s, m, h or d)"));
  };
  if (text.empty()) return bad("is empty");
  int64_t unit = 1;
  absl::string_view number = text;
  switch (absl::ascii_tolower(static_cast<unsigned char>(text.back()))) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 24 * 3600;
      break;
    default:
      unit = 0;
  }
  if (unit != 0) {
    number.remove_suffix(1);
  } else {
    unit = 1;
  }
  int64_t value = 0;
  if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    return bad("is not a duration");
  }
  if (!absl::SimpleAtoi(number, &value) || value > kMaxTtl) return bad("is longer than 30 days");
  value *= unit;
  if (value > kMaxTtl) return bad("is longer than 30 days");
  if (value <= 0) return bad("must be at least 1 second");
  return value;
}

std::string QuotedForLog(absl::string_view text, size_t max_chars) {
  std::string out = absl::CHexEscape(text.substr(0, max_chars));
  if (text.size() > max_chars) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

absl::Status CheckJoinTokenId(absl::string_view id) {
  if (id.size() == static_cast<size_t>(kJoinTokenIdLength) && AllBase32(id)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("join token id '", QuotedForLog(id),
                                                 "' is malformed: it is not ", kJoinTokenIdLength,
                                                 " characters of a-z, 2-7"));
}

absl::Status CheckJoinAddress(absl::string_view addr) {
  if (addr.empty()) return absl::OkStatus();
  bool plain = addr.size() <= 255;
  for (char c : addr) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ':' ||
                      c == '-' || c == '_' || c == '%');
  }
  if (plain) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("address '", QuotedForLog(addr),
                   "' is not valid: use a host name or an IP address (letters, digits, '.', "
                   "':', '-', '_' and '%', at most 255)"));
}

absl::Status CheckJoinNodeName(absl::string_view name) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("node name '", QuotedForLog(name), "' is not valid: ", std::string(why)));
  };
  if (name.empty()) return bad("it is empty");
  if (name.size() > 64) return bad("it is longer than 64 characters");
  if (!std::isalnum(static_cast<unsigned char>(name[0]))) {
    return bad("it must start with a letter or digit");
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return bad("only letters, digits, '-', '_' and '.' may be used");
    }
  }
  if (absl::EqualsIgnoreCase(name, "ALL") || absl::EqualsIgnoreCase(name, "DEFAULT")) {
    return bad("it is a reserved word in skiff.conf");
  }
  return absl::OkStatus();
}

}  // namespace skiff
