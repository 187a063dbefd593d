// Join tokens (docs/decisions.md, "Init and join"): what `skiff token create`
// prints, what ctld stores of it, and the checks a join makes. Pure apart from
// NewJoinToken's random bytes (injected) and OpenSSL's SHA-256.
//
// A token is "ID.SECRET.PIN": ID is 6 characters and SECRET 26 of the
// lower-case base-32 alphabet (a-z, 2-7; 30 and 130 bits), PIN the SHA-256 of
// ctld's TLS public key in 64 lower-case hex digits. ctld stores the id, the
// SHA-256 of the secret, the times and whether the token was used; never the
// secret.
#ifndef SKIFF_COMMON_JOIN_JOIN_TOKEN_H_
#define SKIFF_COMMON_JOIN_JOIN_TOKEN_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/sha256.h"  // Sha256Hex, for the stored secret

namespace skiff {

inline constexpr int kJoinTokenIdLength = 6;
inline constexpr int kJoinTokenSecretLength = 26;
// `skiff token create` without --ttl.
inline constexpr int64_t kDefaultJoinTokenTtl = 3600;
// The record kind ctld stores tokens under (key: the token's id).
inline constexpr char kJoinTokenKind[] = "join_token";

struct JoinToken {
  std::string id;
  std::string secret;
  std::string pin;  // SHA-256 of the controller's public key, hex
};

// "ID.SECRET.PIN".
std::string FormatJoinToken(const JoinToken& token);

// InvalidArgument "join token is malformed: ..." saying what the form is.
absl::StatusOr<JoinToken> ParseJoinToken(absl::string_view text);

// Fills `out` with `n` random bytes; false when none can be had.
using RandomBytes = std::function<bool(unsigned char* out, size_t n)>;
// OpenSSL's RAND_bytes.
RandomBytes SystemRandomBytes();

// A new token for a controller whose key hashes to `pin`. Internal when
// `random` fails.
absl::StatusOr<JoinToken> NewJoinToken(const std::string& pin, const RandomBytes& random);

// A joined node's own key, handed to it once at its join: 32 characters of
// a-z, 2-7 (160 bits). With it the node fetches the munge key again after the
// key was replaced (Join.FetchMungeKey). ctld keeps only its SHA-256, as a
// record of kind kNodeKeyKind keyed by the node's name, which goes with the
// node when it is removed. Internal when `random` fails.
inline constexpr int kNodeKeyLength = 32;
inline constexpr char kNodeKeyKind[] = "node_key";
absl::StatusOr<std::string> NewNodeKey(const RandomBytes& random);

// Equal strings, in time that depends only on their lengths.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

// What ctld keeps of a token.
struct StoredJoinToken {
  std::string id;
  std::string secret_hash;  // Sha256Hex(secret)
  int64_t created = 0;
  int64_t expires = 0;
  uint32_t created_by_uid = 0;
  bool used = false;
  std::string used_by;  // the node name that joined with it
  int64_t used_at = 0;

  bool operator==(const StoredJoinToken& o) const;
};

// The record's blob and back; DataLoss names the token when a blob does not parse.
std::string EncodeStoredJoinToken(const StoredJoinToken& token);
absl::StatusOr<StoredJoinToken> DecodeStoredJoinToken(const std::string& id,
                                                      const std::string& blob);

// Whether `secret` may join now. `stored` is null when no token has that id.
// Errors (PermissionDenied, in these words): "join token is not valid" (no such
// id, or the wrong secret: a caller without the secret learns nothing more),
// "join token was already used" (by NODE), "join token has expired".
absl::Status CheckJoinToken(const StoredJoinToken* stored, absl::string_view secret, int64_t now);

// "valid", "used by n3", "expired".
std::string JoinTokenStateText(const StoredJoinToken& token, int64_t now);

// A token's lifetime as `skiff token create --ttl` takes it: seconds, or a
// number with s, m, h or d ("90s", "30m", "1h", "2d"). InvalidArgument beyond
// 30 days or at zero.
absl::StatusOr<int64_t> ParseJoinTtl(absl::string_view text);

// A name a node may join under: 1 to 64 of letters, digits, '-', '_' and '.',
// starting with a letter or digit (no hostlist brackets or commas).
// InvalidArgument "node name 'x y' is not valid: ...", the name as
// QuotedForLog shows it.
absl::Status CheckJoinNodeName(absl::string_view name);

// A token id as NewJoinToken makes them (kJoinTokenIdLength characters of
// a-z, 2-7). InvalidArgument "join token id '...' is malformed: ...".
absl::Status CheckJoinTokenId(absl::string_view id);

// The address a joining node says ctld reaches it at: empty (where the join
// came from), or 1 to 255 of letters, digits, '.', ':', '-', '_' and '%' (a
// host name, an IPv4 or IPv6 address, with a zone). InvalidArgument "address '...' is not valid".
absl::Status CheckJoinAddress(absl::string_view addr);

// `text` as it may go into a log line or an error: at most `max_chars` of it,
// with anything but printable ASCII escaped (C style: "\n", "\x1b"), and
// "... (N bytes)" when it was cut. Whatever a client sends cannot then start a
// line of its own in a log.
std::string QuotedForLog(absl::string_view text, size_t max_chars = 64);

}  // namespace skiff

#endif  // SKIFF_COMMON_JOIN_JOIN_TOKEN_H_
