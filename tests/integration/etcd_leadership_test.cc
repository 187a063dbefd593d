// ctld's leadership and commits (ctld/replication) against a real etcd,
// Debian's etcd-server (issue 53): one candidate wins the campaign and the
// other sees it lead; the leader appends commits, a retried commit is not
// applied twice, and the other candidate cannot append; once the leader's
// lease is revoked (what its death does when the lease lapses, only at once)
// its next commit is refused, and the other candidate takes over and appends.
// Over TLS, only clients with a certificate of the cluster's CA are served.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/tls/certificate_authority.h"
#include "ctld/replication/etcd_client.h"
#include "ctld/replication/etcd_member.h"
#include "ctld/replication/leader_txn.h"
#include "ctld/replication/replica.h"
#include "ctld/state/job_store.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

using ctld::replication::CampaignTxn;
using ctld::replication::CampaignWinner;
using ctld::replication::Candidate;
using ctld::replication::CommitOutcome;
using ctld::replication::CommitTxn;
using ctld::replication::EtcdClient;
using ctld::replication::EtcdTls;
using ctld::replication::LocalEtcd;
using ctld::replication::LocalEtcdTls;
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

// Two controllers' Replicas over real stores (issue 53): the leader's
// transactions reach the standby's database; the leader deletes the commits
// the standby says it holds, and a database that lacks them (lost, or
// restored from an old backup) catches up from a snapshot the leader writes
// when asked, then follows the log again.
TEST(EtcdLeadershipTest, TheStandbyCopiesTheLogAndTheLeaderTrimsWhatItHolds) {
  if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
    GTEST_SKIP() << "needs Debian's etcd-server";
  }
  ScratchDir scratch("skiff-replica");
  ASSERT_FALSE(scratch.path().empty());
  LocalEtcd etcd(scratch.path());
  ASSERT_TRUE(etcd.started());
  EtcdClient client(etcd.target());
  ASSERT_TRUE(Eventually(60, [&] { return client.Get("/skiff/ready").status().ok(); }))
      << etcd.Log();

  auto open = [&](const std::string& name) {
    auto store = ctld::SqliteJobStore::Open(scratch.path() + "/" + name + ".db");
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  };
  std::vector<std::string> lost;
  auto join = [&](const std::string& id) {
    ctld::replication::Replica::Settings settings;
    settings.endpoints = {etcd.target()};
    settings.prefix = "/skiff/lab";
    settings.id = id;
    settings.controllers = {"head", "head2"};
    settings.trim_every = std::chrono::seconds(3600);  // TrimLog is called here
    auto replica = ctld::replication::Replica::Join(
        settings, [&lost](const std::string& why) { lost.push_back(why); },
        *spdlog::default_logger());
    EXPECT_TRUE(replica.ok()) << replica.status();
    return replica.ok() ? std::move(*replica) : nullptr;
  };
  auto job = [](uint64_t id) {
    ctld::Job job;
    job.id = id;
    job.version = 1;
    job.user_name = "alice";
    job.spec_blob = "spec";
    return job;
  };

  auto head_store = open("head");
  auto head = join("head");
  ASSERT_TRUE(head_store && head);
  ASSERT_EQ(head->TryToLead(*head_store).value_or(false), true);
  head_store->ReplicateTo(head.get());
  for (uint64_t id = 1; id <= 5; ++id) {
    std::vector<ctld::RecordRow> records;
    if (id == 3) records.push_back({"qos", "old", "gone by commit 6"});
    ASSERT_TRUE(head_store->Save({job(id)}, records).ok());
  }
  EXPECT_EQ(head_store->AppliedSeq(), 5u);
  // An old backup of a standby's database: the log to commit 3.
  auto backup_store = open("backup");
  ASSERT_TRUE(backup_store);
  {
    absl::StatusOr<etcdserverpb::RangeResponse> log = client.GetPrefix("/skiff/lab/commits/");
    ASSERT_TRUE(log.ok()) << log.status();
    ASSERT_EQ(log->kvs_size(), 5);
    for (uint64_t seq = 1; seq <= 3; ++seq) {
      ASSERT_TRUE(backup_store->ApplyCommit(seq, log->kvs(seq - 1).value()).ok());
    }
  }

  auto standby_store = open("head2");
  auto standby = join("head2");
  ASSERT_TRUE(standby_store && standby);
  EXPECT_EQ(standby->TryToLead(*standby_store).value_or(true), false);
  EXPECT_EQ(standby->leader(), "head");
  EXPECT_EQ(standby_store->AppliedSeq(), 5u);
  EXPECT_EQ(*standby_store->LoadSpec(3), "spec");

  absl::StatusOr<uint64_t> trimmed = head->TrimLog();
  ASSERT_TRUE(trimmed.ok()) << trimmed.status();
  EXPECT_EQ(*trimmed, 5u);
  EXPECT_EQ(client.GetPrefix("/skiff/lab/commits/")->kvs_size(), 0);
  EXPECT_EQ(standby->TrimLog().value_or(1), 0u);  // a standby trims nothing

  ASSERT_TRUE(head_store->Save({job(6)}, {{"qos", "old", ""}}).ok());
  ASSERT_TRUE(head_store->Save({job(7)}).ok());
  EXPECT_EQ(standby->TryToLead(*standby_store).value_or(true), false);
  EXPECT_EQ(standby_store->AppliedSeq(), 7u);
  EXPECT_EQ(standby_store->QueryJobs({})->size(), 7u);

  // The standby's database is lost: started empty, it lacks the trimmed
  // commits. It asks for a snapshot, saying it holds nothing (so nothing more
  // is trimmed), and waits; the leader's thread writes one.
  auto caught_up = [&standby](ctld::SqliteJobStore& store) {
    return [&standby, to = &store] {
      absl::StatusOr<bool> led = standby->TryToLead(*to);
      return led.ok() && !*led;
    };
  };
  auto empty_store = open("empty");
  ASSERT_TRUE(empty_store);
  absl::StatusOr<bool> behind = standby->TryToLead(*empty_store);
  ASSERT_FALSE(behind.ok());
  EXPECT_EQ(behind.status().code(), absl::StatusCode::kUnavailable) << behind.status();
  EXPECT_EQ(client.Get("/skiff/lab/held/head2")->value_or(etcdserverpb::KeyValue()).value(), "0");
  ASSERT_TRUE(Eventually(30, caught_up(*empty_store)));
  EXPECT_EQ(empty_store->AppliedSeq(), 7u);
  EXPECT_EQ(empty_store->QueryJobs({})->size(), 7u);
  EXPECT_EQ(*empty_store->LoadSpec(3), "spec");
  EXPECT_TRUE(empty_store->LoadRecords("qos")->empty());
  EXPECT_EQ(client.Get("/skiff/lab/snapshot/latest")->value_or(etcdserverpb::KeyValue()).value(),
            "7 1");
  EXPECT_EQ(client.GetPrefix("/skiff/lab/snapshot-wanted/")->kvs_size(), 0);  // answered
  // Later commits reach it through the log.
  ASSERT_TRUE(head_store->Save({job(8)}).ok());
  EXPECT_EQ(standby->TryToLead(*empty_store).value_or(true), false);
  EXPECT_EQ(empty_store->AppliedSeq(), 8u);
  EXPECT_EQ(empty_store->QueryJobs({})->size(), 8u);

  // A database restored from an old backup (commits 1 to 3, with a record
  // deleted since) is behind the log too: the snapshot already written
  // reaches the log's start (commit 6), and replaces what it held.
  EXPECT_EQ(backup_store->AppliedSeq(), 3u);
  EXPECT_EQ(backup_store->LoadRecords("qos")->size(), 1u);
  ASSERT_TRUE(Eventually(30, caught_up(*backup_store)));
  EXPECT_EQ(backup_store->AppliedSeq(), 8u);
  EXPECT_EQ(backup_store->QueryJobs({})->size(), 8u);
  EXPECT_TRUE(backup_store->LoadRecords("qos")->empty());

  // Once every commit is trimmed, etcd's log is empty: the trimmed mark says
  // where it starts, and a lost database still catches up, from a newer
  // snapshot that replaces the older one.
  ASSERT_TRUE(Eventually(30, [&] {
    (void)standby->TryToLead(*backup_store);  // says it holds commit 8
    return head->TrimLog().value_or(0) == 8u;
  }));
  EXPECT_EQ(client.GetPrefix("/skiff/lab/commits/")->kvs_size(), 0);
  EXPECT_EQ(client.Get("/skiff/lab/trimmed")->value_or(etcdserverpb::KeyValue()).value(), "8");
  auto lost_store = open("lost");
  ASSERT_TRUE(lost_store);
  EXPECT_EQ(standby->TryToLead(*lost_store).status().code(), absl::StatusCode::kUnavailable);
  ASSERT_TRUE(Eventually(30, caught_up(*lost_store)));
  EXPECT_EQ(lost_store->AppliedSeq(), 8u);
  EXPECT_EQ(lost_store->QueryJobs({})->size(), 8u);
  EXPECT_EQ(client.Get("/skiff/lab/snapshot/latest")->value_or(etcdserverpb::KeyValue()).value(),
            "8 1");
  absl::StatusOr<etcdserverpb::RangeResponse> snapshots = client.GetPrefix("/skiff/lab/snapshot/0");
  ASSERT_TRUE(snapshots.ok());
  ASSERT_EQ(snapshots->kvs_size(), 1);  // the older snapshot's chunk is gone
  EXPECT_EQ(snapshots->kvs(0).key(),
            "/skiff/lab/snapshot/00000000000000000008/00000000000000000000");
  EXPECT_TRUE(lost.empty());
}

// etcd over TLS with certificates of common/tls's CA, as `skiff init --ha`
// makes them (issue 53): ctld's client certificate is served; a certificate of
// another CA, a client that trusts another CA, and a plain-text client are
// refused, each within its deadline, and none of them writes.
TEST(EtcdLeadershipTest, OverTlsOnlyClientsOfTheClustersCaAreServed) {
  if (access(ctld::replication::kEtcdBinary, X_OK) != 0) {
    GTEST_SKIP() << "needs Debian's etcd-server";
  }
  absl::StatusOr<tls::PemPair> ca = tls::MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(ca.ok()) << ca.status();
  absl::StatusOr<tls::PemPair> server =
      tls::IssueCertificate(*ca, "etcd", {"localhost", "127.0.0.1"});
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<tls::PemPair> ctld = tls::IssueCertificate(*ca, "ctld", {});
  ASSERT_TRUE(ctld.ok()) << ctld.status();
  absl::StatusOr<tls::PemPair> other_ca = tls::MakeCertificateAuthority("skiff-etcd-ca");
  ASSERT_TRUE(other_ca.ok()) << other_ca.status();
  absl::StatusOr<tls::PemPair> stranger = tls::IssueCertificate(*other_ca, "ctld", {});
  ASSERT_TRUE(stranger.ok()) << stranger.status();

  ScratchDir scratch("skiff-etcd-tls");
  ASSERT_FALSE(scratch.path().empty());
  LocalEtcd etcd(scratch.path(), LocalEtcdTls{ca->cert_pem, server->cert_pem, server->key_pem});
  ASSERT_TRUE(etcd.started());
  struct stat st;
  ASSERT_EQ(stat((scratch.path() + "/etcd.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  constexpr std::chrono::seconds kDeadline(3);
  EtcdClient client({etcd.target()}, kDeadline,
                    EtcdTls{ca->cert_pem, ctld->cert_pem, ctld->key_pem});
  absl::Status last;
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           last = client.Get("/skiff/ready").status();
                           return last.ok();
                         }))
      << last << "\n"
      << etcd.Log();
  ASSERT_TRUE(client.Put("/skiff/tls", "ctld").ok());
  absl::StatusOr<std::optional<etcdserverpb::KeyValue>> got = client.Get("/skiff/tls");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->value(), "ctld");

  // Each refused call ends with an error, at the latest at its deadline.
  auto refused = [&](EtcdClient& other, const std::string& who) {
    const auto start = std::chrono::steady_clock::now();
    const absl::Status status = other.Put("/skiff/tls", who);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_FALSE(status.ok()) << who << " was served";
    EXPECT_LT(took, kDeadline + std::chrono::seconds(2)) << who << ": " << status;
  };
  // A certificate of another CA: etcd refuses it (--client-cert-auth).
  EtcdClient with_stranger({etcd.target()}, kDeadline,
                           EtcdTls{ca->cert_pem, stranger->cert_pem, stranger->key_pem});
  refused(with_stranger, "a certificate of another CA");
  // A client that trusts only another CA refuses etcd's certificate.
  EtcdClient of_other_ca({etcd.target()}, kDeadline,
                         EtcdTls{other_ca->cert_pem, stranger->cert_pem, stranger->key_pem});
  refused(of_other_ca, "a client of another CA");
  // Plain text to the https port.
  EtcdClient plain(etcd.target(), kDeadline);
  refused(plain, "a plain-text client");

  got = client.Get("/skiff/tls");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->value(), "ctld");
}

}  // namespace
}  // namespace skiff::testing
