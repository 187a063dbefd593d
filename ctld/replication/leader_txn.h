// ctld's leadership and its commits as etcd transactions (issue 53): the pure
// part of replication, which builds the requests and reads the answers. No
// I/O; EtcdClient (etcd_client.h) sends them.
//
// The keys, under the cluster's prefix ("/skiff/<ClusterName>"):
//   <prefix>/leader                      the serving ctld's id, on its lease
//   <prefix>/commits/<seq, 20 digits>    one ctld commit each, in order
//   <prefix>/held/<id>                   the last commit that controller's
//                                        database holds (a standby's, decimal)
//   <prefix>/trimmed                     the last commit trimmed (decimal): the
//                                        log holds the commits after it
//   <prefix>/snapshot-wanted/<id>        a standby whose database lacks trimmed
//                                        commits asks for a snapshot (the last
//                                        commit it holds, decimal; its lease)
//   <prefix>/snapshot/<seq>/<i>          chunk i of the leader's snapshot of its
//                                        database as of commit seq (a
//                                        v1::StoreCommit each; 20 digits each)
//   <prefix>/snapshot/latest             "<seq> <chunks>": the snapshot whose
//                                        chunks are all written
// The leader deletes the commits every other controller holds (TrimTxn), and
// answers a snapshot-wanted key with a snapshot (SnapshotChunkTxn, then
// PublishSnapshotTxn); a standby that finds the log starting past its
// database installs the latest snapshot that reaches the log's start and
// copies on from there. Every write of the leader's is guarded as a commit is.
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
// Deletes commits 1 .. `through` as leader `me`, and says so (TrimmedKey):
// with every commit trimmed, that is where a standby learns the log starts.
// REQUIRES: `through` above TrimmedKey's value (the mark never goes back).
etcdserverpb::TxnRequest TrimTxn(const Candidate& me, uint64_t through);
std::string TrimmedKey(const std::string& prefix);

// Snapshots (a standby whose database lacks trimmed commits).
std::string SnapshotWantedKey(const std::string& prefix, const std::string& id);
// Every snapshot-wanted key starts with it.
std::string SnapshotWantedPrefix(const std::string& prefix);
std::string SnapshotChunkKey(const std::string& prefix, uint64_t seq, uint64_t index);
std::string SnapshotLatestKey(const std::string& prefix);
// A whole snapshot: the commit it is the state after, and its chunk count.
struct SnapshotName {
  uint64_t seq = 0;
  uint64_t chunks = 0;
};
std::string FormatSnapshotName(const SnapshotName& name);  // "<seq> <chunks>"
std::optional<SnapshotName> ParseSnapshotName(const std::string& value);

// A standby (`me`) holding the log to commit `held` asks for a snapshot: its
// held key says `held` (the leader trims nothing more while it is below the
// log's start) and its snapshot-wanted key, on its lease, asks.
etcdserverpb::TxnRequest WantSnapshotTxn(const Candidate& me, uint64_t held);
// Chunk `index` of the snapshot of commit `seq`, as leader `me`: one chunk a
// transaction, each under etcd's request limit.
etcdserverpb::TxnRequest SnapshotChunkTxn(const Candidate& me, uint64_t seq, uint64_t index,
                                          const std::string& chunk);
// Names `name`, every chunk of which is written, the latest snapshot, as
// leader `me`; deletes every other snapshot's chunks and the snapshot-wanted
// keys `served` (the wants it answers).
etcdserverpb::TxnRequest PublishSnapshotTxn(const Candidate& me, const SnapshotName& name,
                                            const std::vector<std::string>& served);

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_LEADER_TXN_H_
