// The leadership and commit transactions, read from synthetic etcd answers.
#include "ctld/replication/leader_txn.h"

#include <gtest/gtest.h>

namespace skiff::ctld::replication {
namespace {

using etcdserverpb::Compare;
using etcdserverpb::TxnResponse;

const Candidate kMe{"/skiff/lab", "head", 7};

// An answer whose failure branch read `values` (one read each; "" = no key).
TxnResponse Failed(const std::vector<std::string>& values) {
  TxnResponse response;
  response.set_succeeded(false);
  for (const std::string& value : values) {
    etcdserverpb::RangeResponse* range = response.add_responses()->mutable_response_range();
    if (!value.empty()) range->add_kvs()->set_value(value);
  }
  return response;
}

TEST(LeaderTxn, CommitKeysSortInCommitOrder) {
  EXPECT_EQ(LeaderKey("/skiff/lab"), "/skiff/lab/leader");
  EXPECT_EQ(CommitKey("/skiff/lab", 42), "/skiff/lab/commits/00000000000000000042");
  EXPECT_LT(CommitKey("/skiff/lab", 9), CommitKey("/skiff/lab", 10));
}

TEST(LeaderTxn, ACampaignWritesTheLeaderKeyOnlyWhereThereIsNone) {
  const etcdserverpb::TxnRequest txn = CampaignTxn(kMe);
  ASSERT_EQ(txn.compare_size(), 1);
  EXPECT_EQ(txn.compare(0).key(), "/skiff/lab/leader");
  EXPECT_EQ(txn.compare(0).target(), Compare::CREATE);
  EXPECT_EQ(txn.compare(0).create_revision(), 0);
  ASSERT_EQ(txn.success_size(), 1);
  EXPECT_EQ(txn.success(0).request_put().value(), "head");
  EXPECT_EQ(txn.success(0).request_put().lease(), 7);

  TxnResponse won;
  won.set_succeeded(true);
  EXPECT_EQ(CampaignWinner(kMe, won), "head");
  EXPECT_EQ(CampaignWinner(kMe, Failed({"standby"})), "standby");
  EXPECT_EQ(CampaignWinner(kMe, Failed({""})), "");  // gone again since
}

TEST(LeaderTxn, ACommitIsWrittenOnlyByTheLeaderOnItsLeaseAndOnlyOnce) {
  const etcdserverpb::TxnRequest txn = CommitTxn(kMe, 3, "record-3");
  ASSERT_EQ(txn.compare_size(), 3);
  EXPECT_EQ(txn.compare(0).target(), Compare::VALUE);
  EXPECT_EQ(txn.compare(0).value(), "head");
  EXPECT_EQ(txn.compare(1).target(), Compare::LEASE);
  EXPECT_EQ(txn.compare(1).lease(), 7);
  EXPECT_EQ(txn.compare(2).key(), "/skiff/lab/commits/00000000000000000003");
  EXPECT_EQ(txn.compare(2).create_revision(), 0);
  EXPECT_EQ(txn.success(0).request_put().value(), "record-3");

  TxnResponse committed;
  committed.set_succeeded(true);
  EXPECT_EQ(ReadCommitOutcome(committed, "record-3"), CommitOutcome::kCommitted);
  EXPECT_EQ(ReadCommitOutcome(Failed({"head", "record-3"}), "record-3"),
            CommitOutcome::kAlreadyWritten);
  EXPECT_EQ(ReadCommitOutcome(Failed({"standby", "other"}), "record-3"), CommitOutcome::kConflict);
  EXPECT_EQ(ReadCommitOutcome(Failed({"standby", ""}), "record-3"), CommitOutcome::kNotLeader);
  EXPECT_EQ(ReadCommitOutcome(Failed({"", ""}), "record-3"), CommitOutcome::kNotLeader);
}

TEST(LeaderTxn, AGroupCommitWritesEveryRecordOrNone) {
  const etcdserverpb::TxnRequest txn = CommitGroupTxn(kMe, 10, {"a", "b", "c"});
  ASSERT_EQ(txn.compare_size(), 5);  // leader value and lease, each key unwritten
  EXPECT_EQ(txn.compare(4).key(), "/skiff/lab/commits/00000000000000000012");
  ASSERT_EQ(txn.success_size(), 3);
  EXPECT_EQ(txn.success(1).request_put().key(), "/skiff/lab/commits/00000000000000000011");
  EXPECT_EQ(txn.success(1).request_put().value(), "b");
  EXPECT_EQ(txn.failure(1).request_range().key(), "/skiff/lab/commits/00000000000000000010");
}

TEST(LeaderTxn, CommitKeysReadBackAndEndBeforeTheRangeEnd) {
  EXPECT_LT(CommitKey("/skiff/lab", 18446744073709551615u), CommitKeysEnd("/skiff/lab"));
  EXPECT_EQ(CommitSeqOf("/skiff/lab", CommitKey("/skiff/lab", 42)), 42u);
  EXPECT_EQ(CommitSeqOf("/skiff/lab", CommitKey("/skiff/other", 42)), 0u);
  EXPECT_EQ(CommitSeqOf("/skiff/lab", "/skiff/lab/leader"), 0u);
  EXPECT_EQ(CommitSeqOf("/skiff/lab", "/skiff/lab/commits/0000000000000000004x"), 0u);
}

TEST(LeaderTxn, TheLogIsTrimmedThroughWhatEveryOtherControllerHolds) {
  EXPECT_EQ(HeldKey("/skiff/lab", "head2"), "/skiff/lab/held/head2");
  EXPECT_EQ(TrimThrough({"b", "c"}, {{"b", 40}, {"c", 25}, {"a", 3}}), 25u);
  EXPECT_EQ(TrimThrough({"b", "c"}, {{"b", 40}}), std::nullopt);  // c never said
  EXPECT_EQ(TrimThrough({"b"}, {{"b", 0}}), std::nullopt);
  EXPECT_EQ(TrimThrough({}, {}), std::nullopt);

  const Candidate head{"/skiff/lab", "head", 7};
  const etcdserverpb::TxnRequest trim = TrimTxn(head, 25);
  ASSERT_EQ(trim.compare_size(), 2);
  EXPECT_EQ(trim.compare(0).value(), "head");
  EXPECT_EQ(trim.compare(1).lease(), 7);
  ASSERT_EQ(trim.success_size(), 2);
  EXPECT_EQ(trim.success(0).request_delete_range().key(), CommitKey("/skiff/lab", 1));
  EXPECT_EQ(trim.success(0).request_delete_range().range_end(), CommitKey("/skiff/lab", 26));
  // Where the log starts once every commit is gone.
  EXPECT_EQ(trim.success(1).request_put().key(), "/skiff/lab/trimmed");
  EXPECT_EQ(trim.success(1).request_put().value(), "25");
}

TEST(LeaderTxn, AStandbyAsksForASnapshotSayingWhatItHolds) {
  const Candidate standby{"/skiff/lab", "head2", 9};
  const etcdserverpb::TxnRequest want = WantSnapshotTxn(standby, 3);
  EXPECT_EQ(want.compare_size(), 0);
  ASSERT_EQ(want.success_size(), 2);
  // Its held key drops to what its database holds: no more is trimmed.
  EXPECT_EQ(want.success(0).request_put().key(), "/skiff/lab/held/head2");
  EXPECT_EQ(want.success(0).request_put().value(), "3");
  EXPECT_EQ(want.success(0).request_put().lease(), 0);
  EXPECT_EQ(want.success(1).request_put().key(), "/skiff/lab/snapshot-wanted/head2");
  EXPECT_EQ(want.success(1).request_put().value(), "3");
  EXPECT_EQ(want.success(1).request_put().lease(), 9);
  EXPECT_EQ(SnapshotWantedKey("/skiff/lab", "head2").rfind(SnapshotWantedPrefix("/skiff/lab"), 0),
            0u);
}

TEST(LeaderTxn, ASnapshotIsWrittenChunkByChunkByTheLeaderThenNamed) {
  const etcdserverpb::TxnRequest chunk = SnapshotChunkTxn(kMe, 42, 1, "rows");
  ASSERT_EQ(chunk.compare_size(), 2);
  EXPECT_EQ(chunk.compare(0).key(), "/skiff/lab/leader");
  EXPECT_EQ(chunk.compare(0).target(), Compare::VALUE);
  EXPECT_EQ(chunk.compare(0).value(), "head");
  EXPECT_EQ(chunk.compare(1).target(), Compare::LEASE);
  EXPECT_EQ(chunk.compare(1).lease(), 7);
  ASSERT_EQ(chunk.success_size(), 1);
  EXPECT_EQ(chunk.success(0).request_put().key(),
            "/skiff/lab/snapshot/00000000000000000042/00000000000000000001");
  EXPECT_EQ(chunk.success(0).request_put().value(), "rows");

  const etcdserverpb::TxnRequest publish =
      PublishSnapshotTxn(kMe, {42, 3}, {SnapshotWantedKey("/skiff/lab", "head2")});
  ASSERT_EQ(publish.compare_size(), 2);
  EXPECT_EQ(publish.compare(0).value(), "head");
  EXPECT_EQ(publish.compare(1).lease(), 7);
  ASSERT_EQ(publish.success_size(), 4);
  EXPECT_EQ(publish.success(0).request_put().key(), SnapshotLatestKey("/skiff/lab"));
  EXPECT_EQ(publish.success(0).request_put().value(), "42 3");
  EXPECT_EQ(publish.success(3).request_delete_range().key(), "/skiff/lab/snapshot-wanted/head2");
  EXPECT_EQ(publish.success(3).request_delete_range().range_end(), "");  // that key alone

  // The two ranges deleted hold every other snapshot's chunks, and neither
  // this one's nor the latest key.
  auto deleted = [&](const std::string& key) {
    for (int i : {1, 2}) {
      const etcdserverpb::DeleteRangeRequest& range = publish.success(i).request_delete_range();
      if (range.key() <= key && key < range.range_end()) return true;
    }
    return false;
  };
  for (uint64_t seq : {1u, 9u, 41u, 43u, 100u, 1000000u}) {
    EXPECT_TRUE(deleted(SnapshotChunkKey("/skiff/lab", seq, 0))) << seq;
    EXPECT_TRUE(deleted(SnapshotChunkKey("/skiff/lab", seq, 7))) << seq;
  }
  EXPECT_TRUE(deleted(SnapshotChunkKey("/skiff/lab", 18446744073709551615u, 0)));
  for (uint64_t index : {0u, 2u, 3u, 99u}) {
    EXPECT_FALSE(deleted(SnapshotChunkKey("/skiff/lab", 42, index))) << index;
  }
  EXPECT_FALSE(deleted(SnapshotLatestKey("/skiff/lab")));
  EXPECT_FALSE(deleted("/skiff/lab/snapshot-wanted/head2"));
  EXPECT_FALSE(deleted(CommitKey("/skiff/lab", 42)));
}

TEST(LeaderTxn, ASnapshotsNameReadsBack) {
  const std::optional<SnapshotName> name = ParseSnapshotName(FormatSnapshotName({42, 3}));
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->seq, 42u);
  EXPECT_EQ(name->chunks, 3u);
  EXPECT_EQ(ParseSnapshotName("18446744073709551615 0")->seq, 18446744073709551615u);
  for (const char* bad : {"", "42", "42 ", " 3", "42 3x", "-1 3", "18446744073709551616 1"}) {
    EXPECT_FALSE(ParseSnapshotName(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace skiff::ctld::replication
