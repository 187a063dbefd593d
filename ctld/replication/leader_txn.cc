#include "ctld/replication/leader_txn.h"

#include <algorithm>
#include <cstdio>

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
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%020llu", static_cast<unsigned long long>(seq));
  return prefix + "/commits/" + digits;
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
  AddCompare(&txn, leader, Compare::VALUE)->set_value(me.id);
  AddCompare(&txn, leader, Compare::LEASE)->set_lease(me.lease);
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
  const std::string leader = LeaderKey(me.prefix);
  AddCompare(&txn, leader, Compare::VALUE)->set_value(me.id);
  AddCompare(&txn, leader, Compare::LEASE)->set_lease(me.lease);
  etcdserverpb::DeleteRangeRequest* remove = txn.add_success()->mutable_request_delete_range();
  remove->set_key(CommitKey(me.prefix, 1));
  remove->set_range_end(CommitKey(me.prefix, through + 1));
  return txn;
}

}  // namespace skiff::ctld::replication
