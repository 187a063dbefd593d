// ctld's leadership and commits (ctld/replication) against a real etcd,
// Debian's etcd-server (issue 53): one candidate wins the campaign and the
// other sees it lead; the leader appends commits, a retried commit is not
// applied twice, and the other candidate cannot append; once the leader's
// lease is revoked (what its death does when the lease lapses, only at once)
// its next commit is refused, and the other candidate takes over and appends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ctld/replication/etcd_client.h"
#include "ctld/replication/etcd_member.h"
#include "ctld/replication/leader_txn.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

using ctld::replication::CampaignTxn;
using ctld::replication::CampaignWinner;
using ctld::replication::Candidate;
using ctld::replication::CommitOutcome;
using ctld::replication::CommitTxn;
using ctld::replication::EtcdClient;
using ctld::replication::LocalEtcd;
using ctld::replication::ReadCommitOutcome;

TEST(EtcdLeadershipTest, ADeposedLeaderCanNoLongerCommit) {
  if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
    GTEST_SKIP() << "needs Debian's etcd-server";
  }
  ScratchDir scratch("skiff-etcd");
  ASSERT_FALSE(scratch.path().empty());
  LocalEtcd etcd(scratch.path());
  ASSERT_TRUE(etcd.started());
  EtcdClient client(etcd.target());
  absl::Status last;
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           last = client.Get("/skiff/ready").status();
                           return last.ok();
                         }))
      << last << "\n"
      << etcd.Log();

  auto lease = [&] {
    absl::StatusOr<int64_t> id = client.GrantLease(30);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(0);
  };
  Candidate head{"/skiff/lab", "head", lease()};
  Candidate standby{"/skiff/lab", "standby", lease()};
  auto campaign = [&](const Candidate& who) {
    absl::StatusOr<etcdserverpb::TxnResponse> answer = client.Txn(CampaignTxn(who));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? CampaignWinner(who, *answer) : "(no answer)";
  };
  auto commit = [&](const Candidate& who, uint64_t seq, const std::string& record) {
    absl::StatusOr<etcdserverpb::TxnResponse> answer = client.Txn(CommitTxn(who, seq, record));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? ReadCommitOutcome(*answer, record) : CommitOutcome::kNotLeader;
  };

  EXPECT_EQ(campaign(head), "head");
  EXPECT_EQ(campaign(standby), "head");
  EXPECT_EQ(commit(head, 1, "record-1"), CommitOutcome::kCommitted);
  EXPECT_EQ(commit(head, 2, "record-2"), CommitOutcome::kCommitted);
  EXPECT_EQ(commit(head, 2, "record-2"), CommitOutcome::kAlreadyWritten);  // a retry
  EXPECT_EQ(commit(standby, 3, "standby-3"), CommitOutcome::kNotLeader);

  // The head's lease ends: its leader key goes with it, and its writes stop.
  ASSERT_TRUE(client.RevokeLease(head.lease).ok());
  EXPECT_EQ(client.KeepAlive(head.lease).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(commit(head, 3, "record-3"), CommitOutcome::kNotLeader);
  EXPECT_EQ(campaign(standby), "standby");
  EXPECT_EQ(commit(head, 3, "record-3"), CommitOutcome::kNotLeader);
  EXPECT_EQ(commit(standby, 3, "standby-3"), CommitOutcome::kCommitted);
  EXPECT_EQ(commit(standby, 2, "standby-2"), CommitOutcome::kConflict);  // seq 2 is the head's
  absl::StatusOr<int64_t> ttl = client.KeepAlive(standby.lease);
  ASSERT_TRUE(ttl.ok()) << ttl.status();
  EXPECT_GT(*ttl, 0);

  // What a standby replays: every commit, in order, each once.
  absl::StatusOr<etcdserverpb::RangeResponse> log = client.GetPrefix("/skiff/lab/commits/");
  ASSERT_TRUE(log.ok()) << log.status();
  std::vector<std::string> records;
  for (const etcdserverpb::KeyValue& kv : log->kvs()) records.push_back(kv.value());
  EXPECT_EQ(records, (std::vector<std::string>{"record-1", "record-2", "standby-3"}));
}

}  // namespace
}  // namespace skiff::testing
