// An association as Slurm's assoc_mgr names it: an account, and for a user's
// association the user (and the partition, for one per partition). The same
// type keys ctld's tables (accounts, usage, the bank, the jobs in use), the
// wire (v1::AssocKey) and what the commands and restd look up, so no one
// spells "account|user" by hand.
//
// The state store files associations and their usage under text keys that
// every release has written ("acct|user|part", "acct|user"); RecordKey and
// FromRecordKey are the one place that spells them.
//
// Threads: none; a plain value.
#ifndef SKIFF_COMMON_ASSOC_KEY_H_
#define SKIFF_COMMON_ASSOC_KEY_H_

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace skiff {

struct AssocKey {
  std::string account;
  std::string user;       // "": the account's own association (for usage: its subtree)
  std::string partition;  // "": not per partition

  static AssocKey Account(std::string account) { return AssocKey{std::move(account), "", ""}; }
  static AssocKey User(std::string account, std::string user) {
    return AssocKey{std::move(account), std::move(user), ""};
  }
  bool is_account() const { return user.empty(); }
  // The same association without its partition: what the bank, the usage
  // tables and the jobs in use count by (one balance per account and user).
  AssocKey WithoutPartition() const { return AssocKey{account, user, ""}; }

  // "acct|user|part": the association's key in the state store.
  std::string RecordKey() const;
  // "acct|user": an association's usage record key in the state store.
  std::string UsageRecordKey() const;
  // Reads either spelling back; nullopt for text with more than two '|'.
  static std::optional<AssocKey> FromRecordKey(std::string_view text);

  // "account lab" or "user alice in account lab": who a message is about.
  std::string Describe() const;

  friend bool operator<(const AssocKey& a, const AssocKey& b) {
    return std::tie(a.account, a.user, a.partition) < std::tie(b.account, b.user, b.partition);
  }
  friend bool operator==(const AssocKey& a, const AssocKey& b) {
    return a.account == b.account && a.user == b.user && a.partition == b.partition;
  }
  friend bool operator!=(const AssocKey& a, const AssocKey& b) { return !(a == b); }
};

// A QOS, or one user's jobs under it ("" user: all of the QOS's jobs).
struct QosKey {
  std::string qos;
  std::string user;

  friend bool operator<(const QosKey& a, const QosKey& b) {
    return std::tie(a.qos, a.user) < std::tie(b.qos, b.user);
  }
  friend bool operator==(const QosKey& a, const QosKey& b) {
    return a.qos == b.qos && a.user == b.user;
  }
};

}  // namespace skiff

#endif  // SKIFF_COMMON_ASSOC_KEY_H_
