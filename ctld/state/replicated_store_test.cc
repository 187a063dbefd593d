// SqliteJobStore's replication (commit_log.h): each transaction goes to the
// log before it is stored, and a standby's copy made from the log holds what
// the primary's does.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ctld/state/job_store.h"

namespace skiff::ctld {
namespace {

std::string DbPath(const std::string& name) {
  return std::string(getenv("TEST_TMPDIR")) + "/" + name + ".db";
}

// The log as a map; Append fails for the seqs in `refuse`.
class FakeLog final : public CommitLog {
 public:
  absl::Status Append(uint64_t seq, const std::string& commit) override {
    if (refuse.count(seq) > 0) return absl::UnavailableError("etcd: no quorum");
    commits[seq] = commit;
    return absl::OkStatus();
  }
  void LocalCopyFailed(uint64_t seq, const absl::Status&) override { lost.push_back(seq); }

  std::map<uint64_t, std::string> commits;
  std::map<uint64_t, bool> refuse;
  std::vector<uint64_t> lost;
};

Job MakeJob(uint64_t id, JobState state, uint64_t version) {
  Job job;
  job.id = id;
  job.state = state;
  job.version = version;
  job.user_name = "alice";
  job.account = "lab";
  job.request.partition = "gpu";
  if (version == 1) job.spec_blob = "spec of " + std::to_string(id);
  return job;
}

std::unique_ptr<SqliteJobStore> Open(const std::string& name) {
  auto store = SqliteJobStore::Open(DbPath(name));
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(ReplicatedStore, EveryTransactionGoesToTheLogAndAStandbyCopyHoldsTheSame) {
  FakeLog log;
  auto primary = Open("primary");
  primary->ReplicateTo(&log);
  ASSERT_TRUE(primary->Save({MakeJob(1, JobState::kPending, 1)}, {{"qos", "normal", "n1"}}).ok());
  ASSERT_TRUE(primary->SaveInOrder({MakeJob(2, JobState::kPending, 1)}, {})->Wait().ok());
  ASSERT_TRUE(primary->Save({MakeJob(1, JobState::kRunning, 2)}, {{"qos", "high", "h1"}}).ok());
  ASSERT_TRUE(primary->Save({}, {{"qos", "normal", ""}}).ok());  // deleted
  ASSERT_EQ(log.commits.size(), 4u);
  EXPECT_EQ(log.commits.begin()->first, 1u);
  EXPECT_EQ(primary->AppliedSeq(), 4u);

  auto standby = Open("standby");
  for (const auto& [seq, commit] : log.commits) {
    ASSERT_TRUE(standby->ApplyCommit(seq, commit).ok()) << seq;
  }
  EXPECT_EQ(standby->AppliedSeq(), 4u);
  EXPECT_TRUE(log.lost.empty());
  for (SqliteJobStore* store : {primary.get(), standby.get()}) {
    auto jobs = store->LoadActive(0);
    ASSERT_TRUE(jobs.ok());
    ASSERT_EQ(jobs->size(), 2u);
    std::map<uint64_t, Job> by_id;
    for (const Job& job : *jobs) by_id[job.id] = job;
    EXPECT_EQ(by_id[1].state, JobState::kRunning);
    EXPECT_EQ(by_id[1].version, 2u);
    EXPECT_EQ(by_id[1].account, "lab");
    EXPECT_EQ(by_id[2].state, JobState::kPending);
    EXPECT_EQ(*store->LoadSpec(1), "spec of 1");
    EXPECT_EQ(*store->LoadSpec(2), "spec of 2");
    EXPECT_EQ(*store->LoadRecords("qos"), (std::map<std::string, std::string>{{"high", "h1"}}));
    EXPECT_EQ(*store->MaxJobId(), 2u);
  }
}

// Writes queued together go as one transaction only up to kMaxCommitBytes:
// etcd refuses a request over its limit, and a group over it would fail every
// submission in it. The rest go in the next transactions, in order; one write
// larger than the cap goes alone.
TEST(ReplicatedStore, QueuedWritesAreGroupedUpToTheCommitCap) {
  FakeLog log;
  auto store = Open("capped");
  store->ReplicateTo(&log);
  const std::string script(400 << 10, 'x');  // a 400 KiB batch script each
  std::vector<std::unique_ptr<JobStore::Ticket>> tickets;
  for (uint64_t id = 1; id <= 5; ++id) {
    Job job = MakeJob(id, JobState::kPending, 1);
    job.spec_blob = script;
    tickets.push_back(store->SaveInOrder({std::move(job)}, {}));
  }
  Job big = MakeJob(6, JobState::kPending, 1);
  big.spec_blob = std::string(3 << 20, 'y');
  tickets.push_back(store->SaveInOrder({std::move(big)}, {}));
  ASSERT_TRUE(tickets.back()->Wait().ok());  // writes everything queued
  for (auto& ticket : tickets) ASSERT_TRUE(ticket->Wait().ok());
  // 2 + 2 + 1 of 400 KiB under 1 MiB, then the 3 MiB one alone.
  ASSERT_EQ(log.commits.size(), 4u);
  for (const auto& [seq, commit] : log.commits) {
    if (seq < 4) EXPECT_LE(commit.size(), kMaxCommitBytes) << seq;
  }
  EXPECT_GT(log.commits[4].size(), 3u << 20);
  auto copy = Open("capped_copy");
  for (const auto& [seq, commit] : log.commits) ASSERT_TRUE(copy->ApplyCommit(seq, commit).ok());
  EXPECT_EQ(copy->LoadActive(0)->size(), 6u);
  EXPECT_EQ(copy->LoadSpec(5)->size(), script.size());
}

TEST(ReplicatedStore, WhatTheLogRefusesIsNotStoredAndTheNextWriteTakesItsNumber) {
  FakeLog log;
  log.refuse[2] = true;
  auto store = Open("refused");
  store->ReplicateTo(&log);
  ASSERT_TRUE(store->Save({MakeJob(1, JobState::kPending, 1)}).ok());
  absl::Status refused = store->Save({MakeJob(2, JobState::kPending, 1)});
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(store->AppliedSeq(), 1u);
  EXPECT_EQ(store->LoadSpec(2).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store->LoadActive(0)->size(), 1u);

  log.refuse.clear();
  ASSERT_TRUE(store->Save({MakeJob(3, JobState::kPending, 1)}).ok());
  EXPECT_EQ(store->AppliedSeq(), 2u);
  ASSERT_EQ(log.commits.count(2), 1u);
  auto copy = Open("refused_copy");
  ASSERT_TRUE(copy->ApplyCommit(1, log.commits[1]).ok());
  ASSERT_TRUE(copy->ApplyCommit(2, log.commits[2]).ok());
  auto jobs = copy->LoadActive(0);
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[1].id, 3u);
}

TEST(ReplicatedStore, ApplyingTwiceIsHarmlessAndAGapOrGarbageIsRefusedByNumber) {
  FakeLog log;
  auto primary = Open("gap_primary");
  primary->ReplicateTo(&log);
  for (uint64_t id = 1; id <= 3; ++id) {
    ASSERT_TRUE(primary->Save({MakeJob(id, JobState::kPending, 1)}).ok());
  }
  auto standby = Open("gap_standby");
  ASSERT_TRUE(standby->ApplyCommit(1, log.commits[1]).ok());
  ASSERT_TRUE(standby->ApplyCommit(1, log.commits[1]).ok());
  EXPECT_EQ(standby->AppliedSeq(), 1u);
  absl::Status gap = standby->ApplyCommit(3, log.commits[3]);
  EXPECT_EQ(gap.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(gap.message().find("replicated commit 3"), std::string::npos) << gap;
  EXPECT_NE(gap.message().find("holds up to commit 1"), std::string::npos) << gap;
  absl::Status garbage = standby->ApplyCommit(2, std::string("\xff\xff\xff", 3));
  EXPECT_EQ(garbage.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(garbage.message().find("does not decode"), std::string::npos) << garbage;
  EXPECT_EQ(standby->LoadActive(0)->size(), 1u);
}

// A database from before replication began: its jobs, specs and records are
// the log's first commits, and a standby copying them holds the same.
TEST(ReplicatedStore, ADatabaseFromBeforeReplicationSeedsTheLog) {
  auto primary = Open("seed_primary");
  for (uint64_t id = 1; id <= 5; ++id) {
    Job job = MakeJob(id, id <= 2 ? JobState::kCompleted : JobState::kPending, 1);
    job.spec_blob = std::string(300, static_cast<char>('a' + id));
    ASSERT_TRUE(primary->Save({job}).ok());
  }
  ASSERT_TRUE(primary->Save({}, {{"qos", "normal", "n1"}, {"account", "lab", "l1"}}).ok());
  FakeLog log;
  primary->ReplicateTo(&log);
  ASSERT_TRUE(primary->SeedLog(/*commit_bytes=*/2000).ok());
  EXPECT_GE(log.commits.size(), 3u);  // about two jobs a commit
  EXPECT_EQ(primary->AppliedSeq(), log.commits.size());
  const size_t seeded = log.commits.size();
  ASSERT_TRUE(primary->SeedLog().ok());  // once only
  EXPECT_EQ(log.commits.size(), seeded);

  auto standby = Open("seed_standby");
  for (const auto& [seq, commit] : log.commits) ASSERT_TRUE(standby->ApplyCommit(seq, commit).ok());
  auto all = standby->QueryJobs(JobQuery{});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 5u);
  EXPECT_EQ(*standby->LoadSpec(4), std::string(300, 'e'));
  EXPECT_EQ(*standby->LoadRecords("account"), (std::map<std::string, std::string>{{"lab", "l1"}}));
  EXPECT_EQ(*standby->MaxJobId(), 5u);
  // The primary's own rows are unchanged by their second write.
  EXPECT_EQ(primary->LoadActive(0)->size(), 5u);
}

// What a store holds, for comparing two: every job's id, version, state and
// spec, the records of the kinds these tests write, the applied commit.
std::string Contents(SqliteJobStore& store) {
  std::string out = "applied " + std::to_string(store.AppliedSeq()) + "\n";
  auto jobs = store.QueryJobs(JobQuery{});
  EXPECT_TRUE(jobs.ok()) << jobs.status();
  for (const Job& job : jobs.value_or(std::vector<Job>{})) {
    auto spec = store.LoadSpec(job.id);
    out += "job " + std::to_string(job.id) + " v" + std::to_string(job.version) + " state " +
           std::to_string(static_cast<int>(job.state)) + " " + job.account + " spec " +
           (spec.ok() ? *spec : "(none)") + "\n";
  }
  for (const char* kind : {"qos", "account"}) {
    for (const auto& [key, blob] :
         store.LoadRecords(kind).value_or(std::map<std::string, std::string>{})) {
      out += std::string(kind) + " " + key + " = " + blob + "\n";
    }
  }
  return out;
}

// A standby whose database lacks trimmed commits installs the serving
// controller's snapshot: empty or holding other (stale) rows, it then holds
// what the primary holds, at the snapshot's commit, and follows the log on.
TEST(ReplicatedStore, ASnapshotInstalledIntoAnEmptyOrStaleStoreHoldsTheSame) {
  FakeLog log;
  auto primary = Open("snap_primary");
  primary->ReplicateTo(&log);
  for (uint64_t id = 1; id <= 6; ++id) {
    Job job = MakeJob(id, id <= 2 ? JobState::kCompleted : JobState::kPending, 1);
    job.spec_blob = std::string(300, static_cast<char>('a' + id));
    ASSERT_TRUE(primary->Save({job}, {{"qos", "q" + std::to_string(id), "blob"}}).ok());
  }
  ASSERT_TRUE(primary->Save({MakeJob(3, JobState::kRunning, 2)}, {{"qos", "q2", ""}}).ok());
  ASSERT_TRUE(primary->Save({}, {{"account", "lab", "l1"}}).ok());
  ASSERT_TRUE(primary->ForgetSpecs(/*done_before=*/1).ok());  // jobs 1 and 2 keep no spec

  absl::StatusOr<SqliteJobStore::StoreSnapshot> snapshot = primary->Snapshot(/*chunk_bytes=*/2000);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->seq, 8u);
  EXPECT_EQ(snapshot->seq, primary->AppliedSeq());
  EXPECT_GE(snapshot->chunks.size(), 3u);  // about two jobs a chunk
  for (const std::string& chunk : snapshot->chunks) EXPECT_LE(chunk.size(), 2000u);

  auto empty = Open("snap_empty");
  // A copy of another cluster's log, further along: every row of it goes.
  FakeLog other_log;
  auto other = Open("snap_other");
  other->ReplicateTo(&other_log);
  for (uint64_t id = 1; id <= 12; ++id) {
    ASSERT_TRUE(other
                    ->Save({MakeJob(id + 20, JobState::kPending, 1)},
                           {{"qos", "stale" + std::to_string(id), "s"}})
                    .ok());
  }
  ASSERT_TRUE(other->Save({MakeJob(3, JobState::kFailed, 9)}).ok());
  auto stale = Open("snap_stale");
  for (const auto& [seq, commit] : other_log.commits) {
    ASSERT_TRUE(stale->ApplyCommit(seq, commit).ok());
  }
  EXPECT_EQ(stale->AppliedSeq(), 13u);

  ASSERT_TRUE(primary->Save({MakeJob(7, JobState::kPending, 1)}).ok());  // commit 9
  for (SqliteJobStore* copy : {empty.get(), stale.get()}) {
    ASSERT_TRUE(copy->InstallSnapshot(snapshot->seq, snapshot->chunks).ok());
    EXPECT_EQ(copy->AppliedSeq(), 8u);
    EXPECT_EQ(copy->LoadSpec(21).status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(*copy->MaxJobId(), 6u);
    // The log goes on from the snapshot's commit.
    ASSERT_TRUE(copy->ApplyCommit(9, log.commits[9]).ok());
    EXPECT_EQ(Contents(*copy), Contents(*primary));
  }
  const std::string contents = Contents(*primary);
  EXPECT_NE(contents.find("job 3 v2 state"), std::string::npos) << contents;
  EXPECT_NE(contents.find("qos q6 = blob"), std::string::npos) << contents;
  EXPECT_EQ(contents.find("qos q2"), std::string::npos) << contents;
  EXPECT_NE(contents.find("account lab = l1"), std::string::npos) << contents;
  EXPECT_NE(contents.find("spec " + std::string(300, 'f')), std::string::npos) << contents;
  // Survives reopen.
  empty.reset();
  EXPECT_EQ(Open("snap_empty")->AppliedSeq(), 9u);
}

// The snapshot is the state after exactly its commit, while writes go on:
// commit i saves job i, so a snapshot of commit S holds jobs 1 to S.
TEST(ReplicatedStore, ASnapshotIsOneCommitsStateWhileWritesGoOn) {
  FakeLog log;
  auto primary = Open("busy_primary");
  primary->ReplicateTo(&log);
  constexpr uint64_t kJobs = 400;
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (uint64_t id = 1; id <= kJobs; ++id) {
      EXPECT_TRUE(primary->Save({MakeJob(id, JobState::kPending, 1)}).ok());
    }
    writing = false;
  });
  // One of each commit seen, the last after the writer ended.
  std::vector<SqliteJobStore::StoreSnapshot> snapshots;
  uint64_t last = 0;
  for (bool more = true; more;) {
    more = writing;
    absl::StatusOr<SqliteJobStore::StoreSnapshot> snapshot = primary->Snapshot(4096);
    if (!snapshot.ok()) {
      ADD_FAILURE() << snapshot.status();
      break;
    }
    last = snapshot->seq;
    if (snapshot->seq == 0 || (!snapshots.empty() && snapshots.back().seq == snapshot->seq)) {
      continue;
    }
    snapshots.push_back(*std::move(snapshot));
  }
  writer.join();  // (the writer runs to its end whatever happened here)
  ASSERT_EQ(last, kJobs);
  ASSERT_EQ(log.commits.size(), kJobs);
  // A few of them, spread over the run.
  const size_t step = std::max<size_t>(1, snapshots.size() / 6);
  int copies = 0;
  for (size_t i = 0; i < snapshots.size(); i += step) {
    const SqliteJobStore::StoreSnapshot& snapshot = snapshots[i];
    auto copy = Open("busy_copy_" + std::to_string(copies++));
    ASSERT_TRUE(copy->InstallSnapshot(snapshot.seq, snapshot.chunks).ok());
    auto jobs = copy->QueryJobs(JobQuery{});
    ASSERT_TRUE(jobs.ok());
    ASSERT_EQ(jobs->size(), snapshot.seq);
    EXPECT_EQ(jobs->back().id, snapshot.seq);
    for (uint64_t seq = snapshot.seq + 1; seq <= kJobs; ++seq) {
      ASSERT_TRUE(copy->ApplyCommit(seq, log.commits[seq]).ok()) << seq;
    }
    EXPECT_EQ(copy->QueryJobs(JobQuery{})->size(), kJobs);
  }
  EXPECT_GE(copies, 1);
}

TEST(ReplicatedStore, ASnapshotIsRefusedWholeWhereItCannotBeInstalled) {
  FakeLog log;
  auto primary = Open("refuse_primary");
  primary->ReplicateTo(&log);
  ASSERT_TRUE(primary->Save({MakeJob(1, JobState::kPending, 1)}).ok());
  absl::StatusOr<SqliteJobStore::StoreSnapshot> snapshot = primary->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  ASSERT_EQ(snapshot->chunks.size(), 1u);
  // The serving controller's own database takes none.
  EXPECT_EQ(primary->InstallSnapshot(1, snapshot->chunks).code(),
            absl::StatusCode::kFailedPrecondition);

  auto standby = Open("refuse_standby");
  ASSERT_TRUE(standby->ApplyCommit(1, log.commits[1]).ok());
  EXPECT_EQ(standby->InstallSnapshot(0, snapshot->chunks).code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status garbage =
      standby->InstallSnapshot(5, {snapshot->chunks[0], std::string("\xff\xff\xff", 3)});
  EXPECT_EQ(garbage.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(garbage.message().find("chunk 1"), std::string::npos) << garbage;
  // Nothing of it was kept: the rows and the applied commit are as before.
  EXPECT_EQ(standby->AppliedSeq(), 1u);
  EXPECT_EQ(standby->LoadActive(0)->size(), 1u);
  EXPECT_EQ(*standby->LoadSpec(1), "spec of 1");
}

TEST(ReplicatedStore, TheAppliedNumberSurvivesReopen) {
  FakeLog log;
  {
    auto primary = Open("reopen_primary");
    primary->ReplicateTo(&log);
    ASSERT_TRUE(primary->Save({MakeJob(1, JobState::kPending, 1)}).ok());
    ASSERT_TRUE(primary->Save({MakeJob(2, JobState::kPending, 1)}).ok());
  }
  {
    auto standby = Open("reopen_standby");
    ASSERT_TRUE(standby->ApplyCommit(1, log.commits[1]).ok());
  }
  EXPECT_EQ(Open("reopen_primary")->AppliedSeq(), 2u);
  auto standby = Open("reopen_standby");
  EXPECT_EQ(standby->AppliedSeq(), 1u);
  ASSERT_TRUE(standby->ApplyCommit(2, log.commits[2]).ok());
  EXPECT_EQ(standby->LoadActive(0)->size(), 2u);
  // Without a log a store numbers nothing.
  auto plain = Open("plain");
  ASSERT_TRUE(plain->Save({MakeJob(1, JobState::kPending, 1)}).ok());
  EXPECT_EQ(plain->AppliedSeq(), 0u);
}

}  // namespace
}  // namespace skiff::ctld
