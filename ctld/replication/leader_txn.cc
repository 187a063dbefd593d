#include "ctld/replication/leader_txn.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace skiff::ctld::replication {
namespace {

using etcdserverpb::Compare;

Compare* AddCompare(etcdserverpb::TxnRequest* txn, const std::string& key,
                    Compare::CompareTarget target) {
  Compare* compare = txn->add_compare();
  compare->set_result(Compare::EQUAL);
  compare->set_target(target);
  compare->set_key(key);
  return compare;
}

void AddRange(google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>* ops,
              const std::string& key) {
  ops->Add()->mutable_request_range()->set_key(key);
}

// Written only while the leader key holds me.id on my lease.
void AddLeaderCompares(etcdserverpb::TxnRequest* txn, const Candidate& me) {
  const std::string leader = LeaderKey(me.prefix);
  AddCompare(txn, leader, Compare::VALUE)->set_value(me.id);
  AddCompare(txn, leader, Compare::LEASE)->set_lease(me.lease);
}

std::string Padded(uint64_t n) {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%020llu", static_cast<unsigned long long>(n));
  return digits;
}

bool ParseDecimal(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) return false;
    n = n * 10 + digit;
  }
  *out = n;
  return true;
}

std::string SnapshotsStart(const std::string& prefix) { return prefix + "/snapshot/"; }

// The key-values of the i-th operation's answer, when it was a read.
const etcdserverpb::RangeResponse* RangeAnswer(const etcdserverpb::TxnResponse& response, int i) {
  if (i >= response.responses_size() || !response.responses(i).has_response_range()) {
    return nullptr;
  }
  return &response.responses(i).response_range();
}

}  // namespace

std::string LeaderKey(const std::string& prefix) { return prefix + "/leader"; }

std::string CommitKey(const std::string& prefix, uint64_t seq) {
  return prefix + "/commits/" + Padded(seq);
}

uint64_t CommitSeqOf(const std::string& prefix, const std::string& key) {
  const std::string start = prefix + "/commits/";
  if (key.size() != start.size() + 20 || key.compare(0, start.size(), start) != 0) return 0;
  uint64_t seq = 0;
  for (size_t i = start.size(); i < key.size(); ++i) {
    if (key[i] < '0' || key[i] > '9') return 0;
    seq = seq * 10 + static_cast<uint64_t>(key[i] - '0');
  }
  return seq;
}

// '/' + 1: past every key under "<prefix>/commits/".
std::string CommitKeysEnd(const std::string& prefix) { return prefix + "/commits0"; }

etcdserverpb::TxnRequest CampaignTxn(const Candidate& me) {
  etcdserverpb::TxnRequest txn;
  // A key that does not exist has create revision 0.
  AddCompare(&txn, LeaderKey(me.prefix), Compare::CREATE)->set_create_revision(0);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(LeaderKey(me.prefix));
  put->set_value(me.id);
  put->set_lease(me.lease);
  AddRange(txn.mutable_failure(), LeaderKey(me.prefix));
  return txn;
}

std::string CampaignWinner(const Candidate& me, const etcdserverpb::TxnResponse& response) {
  if (response.succeeded()) return me.id;
  const etcdserverpb::RangeResponse* leader = RangeAnswer(response, 0);
  if (leader == nullptr || leader->kvs_size() == 0) return "";
  return leader->kvs(0).value();
}

etcdserverpb::TxnRequest CommitTxn(const Candidate& me, uint64_t seq, const std::string& record) {
  return CommitGroupTxn(me, seq, {record});
}

etcdserverpb::TxnRequest CommitGroupTxn(const Candidate& me, uint64_t first_seq,
                                        const std::vector<std::string>& records) {
  etcdserverpb::TxnRequest txn;
  const std::string leader = LeaderKey(me.prefix);
  AddLeaderCompares(&txn, me);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string key = CommitKey(me.prefix, first_seq + i);
    AddCompare(&txn, key, Compare::CREATE)->set_create_revision(0);
    etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value(records[i]);
  }
  // Why it failed: who leads, and what the first seq holds.
  AddRange(txn.mutable_failure(), leader);
  AddRange(txn.mutable_failure(), CommitKey(me.prefix, first_seq));
  return txn;
}

CommitOutcome ReadCommitOutcome(const etcdserverpb::TxnResponse& response,
                                const std::string& record) {
  if (response.succeeded()) return CommitOutcome::kCommitted;
  const etcdserverpb::RangeResponse* written = RangeAnswer(response, 1);
  if (written != nullptr && written->kvs_size() > 0) {
    return written->kvs(0).value() == record ? CommitOutcome::kAlreadyWritten
                                             : CommitOutcome::kConflict;
  }
  return CommitOutcome::kNotLeader;
}

std::string HeldKey(const std::string& prefix, const std::string& id) {
  return prefix + "/held/" + id;
}

std::optional<uint64_t> TrimThrough(const std::vector<std::string>& others,
                                    const std::map<std::string, uint64_t>& held) {
  std::optional<uint64_t> through;
  for (const std::string& id : others) {
    auto it = held.find(id);
    if (it == held.end()) return std::nullopt;
    through = through.has_value() ? std::min(*through, it->second) : it->second;
  }
  if (through.has_value() && *through == 0) return std::nullopt;
  return through;
}

etcdserverpb::TxnRequest TrimTxn(const Candidate& me, uint64_t through) {
  etcdserverpb::TxnRequest txn;
  AddLeaderCompares(&txn, me);
  etcdserverpb::DeleteRangeRequest* remove = txn.add_success()->mutable_request_delete_range();
  remove->set_key(CommitKey(me.prefix, 1));
  remove->set_range_end(CommitKey(me.prefix, through + 1));
  etcdserverpb::PutRequest* mark = txn.add_success()->mutable_request_put();
  mark->set_key(TrimmedKey(me.prefix));
  mark->set_value(std::to_string(through));
  return txn;
}

std::string TrimmedKey(const std::string& prefix) { return prefix + "/trimmed"; }

std::string SnapshotWantedKey(const std::string& prefix, const std::string& id) {
  return SnapshotWantedPrefix(prefix) + id;
}

std::string SnapshotWantedPrefix(const std::string& prefix) { return prefix + "/snapshot-wanted/"; }

std::string SnapshotChunkKey(const std::string& prefix, uint64_t seq, uint64_t index) {
  return SnapshotsStart(prefix) + Padded(seq) + "/" + Padded(index);
}

// After every digit: outside the ranges PublishSnapshotTxn deletes.
std::string SnapshotLatestKey(const std::string& prefix) {
  return SnapshotsStart(prefix) + "latest";
}

std::string FormatSnapshotName(const SnapshotName& name) {
  return std::to_string(name.seq) + " " + std::to_string(name.chunks);
}

std::optional<SnapshotName> ParseSnapshotName(const std::string& value) {
  const size_t space = value.find(' ');
  SnapshotName name;
  if (space == std::string::npos || !ParseDecimal(value.substr(0, space), &name.seq) ||
      !ParseDecimal(value.substr(space + 1), &name.chunks)) {
    return std::nullopt;
  }
  return name;
}

etcdserverpb::TxnRequest WantSnapshotTxn(const Candidate& me, uint64_t held) {
  etcdserverpb::TxnRequest txn;
  etcdserverpb::PutRequest* says = txn.add_success()->mutable_request_put();
  says->set_key(HeldKey(me.prefix, me.id));
  says->set_value(std::to_string(held));
  etcdserverpb::PutRequest* asks = txn.add_success()->mutable_request_put();
  asks->set_key(SnapshotWantedKey(me.prefix, me.id));
  asks->set_value(std::to_string(held));
  asks->set_lease(me.lease);  // gone with a standby that stops waiting
  return txn;
}

etcdserverpb::TxnRequest SnapshotChunkTxn(const Candidate& me, uint64_t seq, uint64_t index,
                                          const std::string& chunk) {
  etcdserverpb::TxnRequest txn;
  AddLeaderCompares(&txn, me);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(SnapshotChunkKey(me.prefix, seq, index));
  put->set_value(chunk);
  return txn;
}

etcdserverpb::TxnRequest PublishSnapshotTxn(const Candidate& me, const SnapshotName& name,
                                            const std::vector<std::string>& served) {
  etcdserverpb::TxnRequest txn;
  AddLeaderCompares(&txn, me);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(SnapshotLatestKey(me.prefix));
  put->set_value(FormatSnapshotName(name));
  // Every other snapshot's chunks (older ones, and any a deposed leader left
  // half written): the keys of snapshots below name.seq, then above it.
  const std::string start = SnapshotsStart(me.prefix);
  const std::string mine = start + Padded(name.seq);
  etcdserverpb::DeleteRangeRequest* below = txn.add_success()->mutable_request_delete_range();
  below->set_key(start + "0");
  below->set_range_end(mine + "/");
  etcdserverpb::DeleteRangeRequest* above = txn.add_success()->mutable_request_delete_range();
  above->set_key(mine + "0");         // '0' follows '/': past this snapshot's chunks
  above->set_range_end(start + ":");  // ':' follows '9': before "latest"
  for (const std::string& key : served) {
    txn.add_success()->mutable_request_delete_range()->set_key(key);
  }
  return txn;
}

}  // namespace skiff::ctld::replication
