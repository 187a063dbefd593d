// ctld's leadership and its commits as etcd transactions (issue 53): the pure
// part of replication, which builds the requests and reads the answers. No
// I/O; EtcdClient (etcd_client.h) sends them.
//
// The keys, under the cluster's prefix ("/skiff/<ClusterName>"):
//   <prefix>/leader                      the serving ctld's id, on its lease
//   <prefix>/commits/<seq, 20 digits>    one ctld commit each, in order
//   <prefix>/held/<id>                   the last commit that controller's
//                                        database holds (a standby's, decimal)
// The leader deletes the commits every other controller holds (TrimTxn).
// A campaign writes the leader key only where there is none. A commit is
// written only while the leader key holds this ctld's id on this ctld's
// lease, and only once: a deposed ctld (its lease lapsed or revoked, the key
// gone or another's) can no longer append, whatever it still believes, and
// a retried commit whose first try was applied is not applied twice.
#ifndef SKIFF_CTLD_REPLICATION_LEADER_TXN_H_
#define SKIFF_CTLD_REPLICATION_LEADER_TXN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ctld/replication/etcd.pb.h"

namespace skiff::ctld::replication {

// One ctld in the election: who it is and the etcd lease it holds.
struct Candidate {
  std::string prefix;  // "/skiff/lab"
  std::string id;      // this ctld's name (its SlurmctldHost)
  int64_t lease = 0;   // its etcd lease
};

std::string LeaderKey(const std::string& prefix);
// Zero-padded, so that the keys sort in commit order.
std::string CommitKey(const std::string& prefix, uint64_t seq);
// The seq CommitKey put in `key`; 0 when `key` is not a commit key of `prefix`.
uint64_t CommitSeqOf(const std::string& prefix, const std::string& key);
// The end of the range of every commit key of `prefix`.
std::string CommitKeysEnd(const std::string& prefix);

// Writes the leader key as `me`, on my lease, where there is none; else reads it.
etcdserverpb::TxnRequest CampaignTxn(const Candidate& me);
// Who leads once the campaign's answer is in: me.id when it won, else the
// key's holder; "" when the key was gone again by the time it was read.
std::string CampaignWinner(const Candidate& me, const etcdserverpb::TxnResponse& response);

// Commit `seq` (`record`, ctld's serialized commit) as leader `me`.
etcdserverpb::TxnRequest CommitTxn(const Candidate& me, uint64_t seq, const std::string& record);
// Commits first_seq, first_seq + 1, ... (`records`) in one transaction, all
// or none: a group commit. Its answer reads as the first record's commit.
// etcd takes at most 128 operations a transaction (--max-txn-ops).
etcdserverpb::TxnRequest CommitGroupTxn(const Candidate& me, uint64_t first_seq,
                                        const std::vector<std::string>& records);

enum class CommitOutcome {
  kCommitted,       // written now
  kAlreadyWritten,  // the key holds this very record (an earlier try was applied)
  kConflict,        // the key holds another record: another leader wrote seq
  kNotLeader,       // the leader key is not mine on my lease: deposed
};
CommitOutcome ReadCommitOutcome(const etcdserverpb::TxnResponse& response,
                                const std::string& record);

std::string HeldKey(const std::string& prefix, const std::string& id);
// The commits that may go: through the lowest `held` of the controllers in
// `others` (every controller but the leader). nullopt while one of them has
// not said what it holds (it may need every commit), or when there are none.
std::optional<uint64_t> TrimThrough(const std::vector<std::string>& others,
                                    const std::map<std::string, uint64_t>& held);
// Deletes commits 1 .. `through` as leader `me`.
etcdserverpb::TxnRequest TrimTxn(const Candidate& me, uint64_t through);

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_LEADER_TXN_H_
