#include "ctld/replication/replica.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/controller_epoch.h"
#include "ctld/replication/leader_txn.h"

namespace skiff::ctld::replication {
namespace {

using Clock = LeaseWatch::Clock;

bool Transient(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

// A renewal's deadline: half the renewal period, so that one hung renewal
// ends well inside the lease's margin (lease_watch.h).
std::chrono::milliseconds RenewalDeadline(std::chrono::seconds lease) {
  const LeaseWatch watch(lease, Clock::now());
  return std::max(std::chrono::milliseconds(200), watch.RenewEvery() / 2);
}

}  // namespace

Replica::Replica(Settings settings, LostCallback lost, spdlog::logger& logger)
    : settings_(std::move(settings)),
      lost_(std::move(lost)),
      logger_(logger),
      client_(settings_.endpoints, std::chrono::seconds(5), settings_.tls),
      lease_client_(settings_.endpoints, RenewalDeadline(settings_.lease), settings_.tls) {}

absl::StatusOr<std::unique_ptr<Replica>> Replica::Join(Settings settings, LostCallback lost,
                                                       spdlog::logger& logger) {
  std::unique_ptr<Replica> replica(new Replica(std::move(settings), std::move(lost), logger));
  const Settings& s = replica->settings_;
  const Clock::time_point give_up = Clock::now() + s.join_wait;
  absl::Status last;
  for (;;) {
    const Clock::time_point sent = Clock::now();
    absl::StatusOr<int64_t> lease = replica->client_.GrantLease(s.lease.count());
    if (lease.ok()) {
      std::lock_guard<std::mutex> lock(replica->mu_);
      replica->lease_ = *lease;
      replica->watch_ = std::make_unique<LeaseWatch>(s.lease, sent);
      break;
    }
    last = lease.status();
    if (Clock::now() >= give_up) {
      return absl::UnavailableError(
          absl::StrCat("EtcdEndpoints: no etcd member answered within ", s.join_wait.count(),
                       " s (", absl::StrJoin(s.endpoints, ","), "): ", last.message()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  logger.info("etcd: joined as {} (lease {} s) through {}", s.id, s.lease.count(),
              absl::StrJoin(s.endpoints, ","));
  replica->renewer_ = std::thread([r = replica.get()] { r->RenewLoop(); });
  return replica;
}

Replica::~Replica() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (leader_thread_.joinable()) leader_thread_.join();
}

int64_t Replica::lease() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lease_;
}

std::string Replica::epoch() const {
  std::lock_guard<std::mutex> lock(mu_);
  return epoch_;
}

std::string Replica::leader() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leader_;
}

bool Replica::leading() const {
  std::lock_guard<std::mutex> lock(mu_);
  return leading_;
}

void Replica::RenewLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  std::chrono::milliseconds wait = watch_->RenewEvery();
  while (!stopping_) {
    cv_.wait_for(lock, wait, [this] { return stopping_; });
    if (stopping_) break;
    const int64_t lease = lease_;
    lock.unlock();
    const Clock::time_point sent = Clock::now();
    absl::StatusOr<int64_t> renewed = lease_client_.KeepAlive(lease);
    lock.lock();
    if (renewed.ok()) {
      watch_->Renewed(sent);
      wait = watch_->RenewEvery();
      continue;
    }
    // Try again soon: the lease has a few renewal periods left.
    wait = std::min(watch_->RenewEvery(), std::chrono::milliseconds(250));
    const bool ended = absl::IsNotFound(renewed.status());
    if (!ended && !watch_->Expired(Clock::now())) continue;
    if (leading_) {
      lock.unlock();
      Lose(ended ? "etcd says its lease has ended"
                 : absl::StrCat("etcd has not renewed its lease for ", settings_.lease.count(),
                                " s less the margin: ", renewed.status().message()));
      lock.lock();
      continue;
    }
    // A standby without a lease cannot campaign: a new one.
    lock.unlock();
    const Clock::time_point grant_sent = Clock::now();
    absl::StatusOr<int64_t> fresh = client_.GrantLease(settings_.lease.count());
    lock.lock();
    if (fresh.ok()) {
      lease_ = *fresh;
      watch_ = std::make_unique<LeaseWatch>(settings_.lease, grant_sent);
      wait = watch_->RenewEvery();
    }
  }
}

void Replica::Lose(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (lost_called_ || stopping_) return;
    lost_called_ = true;
    leading_ = false;
  }
  logger_.critical("etcd: {} no longer leads: {}", settings_.id, why);
  lost_(why);
}

void Replica::Resign() {
  int64_t lease = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    leading_ = false;
    lease = lease_;
  }
  cv_.notify_all();
  if (absl::Status s = client_.RevokeLease(lease); !s.ok()) {
    logger_.warn("etcd: could not end lease {} at once ({}); it lapses in {} s", lease,
                 std::string(s.message()), settings_.lease.count());
  }
}

absl::Status Replica::CopyLog(SqliteJobStore& store) {
  for (;;) {
    const uint64_t held = store.AppliedSeq();
    absl::StatusOr<etcdserverpb::RangeResponse> page =
        client_.Range(CommitKey(settings_.prefix, held + 1), CommitKeysEnd(settings_.prefix), 256);
    if (!page.ok()) return page.status();
    // Where etcd's log starts when that is past held + 1: its first commit,
    // or, with every commit trimmed, the one after the last trimmed.
    uint64_t log_start = 0;
    if (page->kvs_size() > 0) {
      const uint64_t first = CommitSeqOf(settings_.prefix, page->kvs(0).key());
      if (first > held + 1) log_start = first;
    } else {
      absl::StatusOr<std::optional<etcdserverpb::KeyValue>> mark =
          client_.Get(TrimmedKey(settings_.prefix));
      if (!mark.ok()) return mark.status();
      uint64_t trimmed = 0;
      if (mark->has_value() && absl::SimpleAtoi((*mark)->value(), &trimmed) && trimmed > held) {
        log_start = trimmed + 1;
      }
    }
    if (log_start != 0) {
      if (absl::Status s = CatchUpFromSnapshot(store, held, log_start); !s.ok()) return s;
      continue;  // from the snapshot's commit on
    }
    awaiting_snapshot_ = false;
    // One read of etcd: its commits follow one another (ApplyCommit refuses a gap).
    for (const etcdserverpb::KeyValue& kv : page->kvs()) {
      const uint64_t seq = CommitSeqOf(settings_.prefix, kv.key());
      if (absl::Status s = store.ApplyCommit(seq, kv.value()); !s.ok()) return s;
    }
    if (page->kvs_size() == 0 || !page->more()) return absl::OkStatus();
  }
}

absl::Status Replica::CatchUpFromSnapshot(SqliteJobStore& store, uint64_t held,
                                          uint64_t log_start) {
  absl::StatusOr<std::optional<etcdserverpb::KeyValue>> latest =
      client_.Get(SnapshotLatestKey(settings_.prefix));
  if (!latest.ok()) return latest.status();
  std::optional<SnapshotName> name;
  if (latest->has_value()) name = ParseSnapshotName((*latest)->value());
  // A snapshot that reaches the log: the commits after it are all there.
  if (name.has_value() && name->seq + 1 >= log_start) {
    std::vector<std::string> chunks;
    for (uint64_t i = 0; i < name->chunks; ++i) {
      absl::StatusOr<std::optional<etcdserverpb::KeyValue>> chunk =
          client_.Get(SnapshotChunkKey(settings_.prefix, name->seq, i));
      if (!chunk.ok()) return chunk.status();
      if (!chunk->has_value()) {  // a newer one replaced it meanwhile: read that one
        return absl::UnavailableError(absl::StrCat("the serving controller's snapshot of commit ",
                                                   name->seq, " was replaced"));
      }
      chunks.push_back(std::move(*(*chunk)->mutable_value()));
    }
    if (absl::Status s = store.InstallSnapshot(name->seq, chunks); !s.ok()) return s;
    logger_.info(
        "etcd: installed the serving controller's snapshot of the log to commit {} ({} chunks) "
        "in place of this controller's database; copying the log from commit {}",
        name->seq, name->chunks, name->seq + 1);
    awaiting_snapshot_ = false;
    return absl::OkStatus();
  }
  // Ask (again every 5 s while waiting: a want key is on this controller's
  // lease, which a renewal that failed for long may have replaced).
  const auto now = std::chrono::steady_clock::now();
  if (!awaiting_snapshot_ || now - snapshot_asked_at_ >= std::chrono::seconds(5)) {
    const Candidate me{settings_.prefix, settings_.id, lease()};
    absl::StatusOr<etcdserverpb::TxnResponse> asked = client_.Txn(WantSnapshotTxn(me, held));
    if (!asked.ok()) return asked.status();
    if (!awaiting_snapshot_) {
      logger_.warn(
          "etcd: this controller's database holds the log to commit {}, etcd's starts at {}: "
          "fetching a snapshot from the serving controller",
          held, log_start);
    }
    awaiting_snapshot_ = true;
    snapshot_asked_at_ = now;
    held_said_ = held;  // WantSnapshotTxn said it
    held_said_at_ = now;
  }
  return absl::UnavailableError("waiting for a snapshot from the serving controller");
}

absl::StatusOr<uint64_t> Replica::TrimLog() {
  if (!leading()) return 0;
  const Candidate me{settings_.prefix, settings_.id, lease()};
  const std::string start = settings_.prefix + "/held/";
  absl::StatusOr<etcdserverpb::RangeResponse> said = client_.GetPrefix(start);
  if (!said.ok()) return said.status();
  std::map<std::string, uint64_t> held;
  for (const etcdserverpb::KeyValue& kv : said->kvs()) {
    uint64_t seq = 0;
    if (absl::SimpleAtoi(kv.value(), &seq)) held[kv.key().substr(start.size())] = seq;
  }
  std::vector<std::string> others;
  for (const std::string& id : settings_.controllers) {
    if (id != settings_.id) others.push_back(id);
  }
  // A standby that must catch up from a snapshot loses no commit it will
  // copy after it: as it asks (WantSnapshotTxn) its held key drops to what
  // its database holds, below the log's start, so `through` stays at or
  // below the trimmed mark (nothing more goes) until it has installed a
  // snapshot S >= that mark (any snapshot written after its request: the
  // leader holds every commit trimmed) and copied on from S + 1, and says so.
  // Should a stale held key still let more go before that, its copy finds
  // the log starting past S + 1 and asks again: never a gap.
  const std::optional<uint64_t> through = TrimThrough(others, held);
  if (!through.has_value()) return 0;
  absl::StatusOr<std::optional<etcdserverpb::KeyValue>> mark =
      client_.Get(TrimmedKey(settings_.prefix));
  if (!mark.ok()) return mark.status();
  uint64_t trimmed = 0;
  if (mark->has_value() && !absl::SimpleAtoi((*mark)->value(), &trimmed)) trimmed = 0;
  if (*through <= trimmed) return 0;  // gone already; the mark never goes back
  absl::StatusOr<etcdserverpb::TxnResponse> answer = client_.Txn(TrimTxn(me, *through));
  if (!answer.ok()) return answer.status();
  return answer->succeeded() ? *through : 0;
}

absl::StatusOr<uint64_t> Replica::ServeSnapshot() {
  if (!leading() || store_ == nullptr) return 0;
  absl::StatusOr<etcdserverpb::RangeResponse> wants =
      client_.GetPrefix(SnapshotWantedPrefix(settings_.prefix));
  if (!wants.ok()) return wants.status();
  if (wants->kvs_size() == 0) return 0;
  std::vector<std::string> served;
  std::vector<std::string> who;
  for (const etcdserverpb::KeyValue& kv : wants->kvs()) {
    served.push_back(kv.key());
    who.push_back(absl::StrCat(kv.key().substr(SnapshotWantedPrefix(settings_.prefix).size()),
                               " (holding the log to commit ", kv.value(), ")"));
  }
  // Taken after the requests were read: it holds every commit trimmed
  // before (a leader holds every commit), so it reaches the log's start.
  absl::StatusOr<SqliteJobStore::StoreSnapshot> snapshot =
      store_->Snapshot(settings_.snapshot_chunk_bytes);
  if (!snapshot.ok()) {
    return absl::Status(
        snapshot.status().code(),
        absl::StrCat("a snapshot of this controller's database: ", snapshot.status().message()));
  }
  const Candidate me{settings_.prefix, settings_.id, lease()};
  const SnapshotName name{snapshot->seq, snapshot->chunks.size()};
  auto write = [&](const etcdserverpb::TxnRequest& txn) -> absl::Status {
    absl::StatusOr<etcdserverpb::TxnResponse> answer = client_.Txn(txn);
    if (!answer.ok()) return answer.status();
    if (!answer->succeeded()) {
      return absl::AbortedError(absl::StrCat("this controller (", settings_.id,
                                             ") no longer leads: its snapshot is not written"));
    }
    return absl::OkStatus();
  };
  for (uint64_t i = 0; i < name.chunks; ++i) {
    if (absl::Status s = write(SnapshotChunkTxn(me, name.seq, i, snapshot->chunks[i])); !s.ok()) {
      return s;
    }
    snapshot->chunks[i].clear();
    snapshot->chunks[i].shrink_to_fit();
  }
  if (absl::Status s = write(PublishSnapshotTxn(me, name, served)); !s.ok()) return s;
  logger_.info(
      "etcd: wrote a snapshot of this controller's database, the log to commit {} ({} "
      "chunks), for {}",
      name.seq, name.chunks, absl::StrJoin(who, ", "));
  return name.seq;
}

void Replica::LeaderLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  Clock::time_point trim_at = Clock::now() + settings_.trim_every;
  std::string snapshot_error;  // the last one logged: etcd away is said once
  while (!stopping_) {
    cv_.wait_for(lock, settings_.snapshot_check_every, [this] { return stopping_; });
    if (stopping_ || !leading_) break;
    lock.unlock();
    absl::StatusOr<uint64_t> served = ServeSnapshot();
    if (!served.ok() && std::string(served.status().message()) != snapshot_error) {
      snapshot_error = std::string(served.status().message());
      logger_.warn("etcd: serving a snapshot: {}", snapshot_error);
    } else if (served.ok()) {
      snapshot_error.clear();
    }
    if (Clock::now() >= trim_at) {
      trim_at = Clock::now() + settings_.trim_every;
      absl::StatusOr<uint64_t> trimmed = TrimLog();
      if (!trimmed.ok()) {
        logger_.warn("etcd: trimming the log: {}", std::string(trimmed.status().message()));
      } else if (*trimmed > 0) {
        logger_.debug("etcd: commits through {} are held by every controller: deleted", *trimmed);
      }
    }
    lock.lock();
  }
}

absl::StatusOr<bool> Replica::TryToLead(SqliteJobStore& store, bool campaign) {
  if (absl::Status s = CopyLog(store); !s.ok()) return s;
  // What this copy holds, for the leader's trimming: at most once a second.
  const uint64_t held = store.AppliedSeq();
  if (held != held_said_ &&
      std::chrono::steady_clock::now() - held_said_at_ >= std::chrono::seconds(1)) {
    if (client_.Put(HeldKey(settings_.prefix, settings_.id), absl::StrCat(held)).ok()) {
      held_said_ = held;
      held_said_at_ = std::chrono::steady_clock::now();
    }
  }
  absl::StatusOr<std::optional<etcdserverpb::KeyValue>> current =
      client_.Get(LeaderKey(settings_.prefix));
  if (!current.ok()) return current.status();
  if (current->has_value()) {
    std::lock_guard<std::mutex> lock(mu_);
    leader_ = (*current)->value();
    // Our own key from an earlier lease of this process cannot be: one lease
    // per process, and the key goes with it.
    return false;
  }
  if (!campaign) return false;
  const Candidate me{settings_.prefix, settings_.id, lease()};
  absl::StatusOr<etcdserverpb::TxnResponse> answer = client_.Txn(CampaignTxn(me));
  if (!answer.ok()) return answer.status();
  const std::string winner = CampaignWinner(me, *answer);
  {
    std::lock_guard<std::mutex> lock(mu_);
    leader_ = winner;
  }
  if (winner != settings_.id) return false;
  // What the deposed leader appended before its lease lapsed; it can append
  // nothing more.
  if (absl::Status s = CopyLog(store); !s.ok()) {
    (void)client_.RevokeLease(me.lease);  // let another candidate try
    return s;
  }
  // A leader holds every commit: it holds no one back.
  (void)client_.Put(HeldKey(settings_.prefix, settings_.id), absl::StrCat(store.AppliedSeq()));
  store_ = &store;
  std::lock_guard<std::mutex> lock(mu_);
  leading_ = true;
  epoch_ = FormatControllerEpoch({answer->header().cluster_id(), answer->header().revision()});
  logger_.info("etcd: {} leads (epoch {}), its database holding the log to commit {}", settings_.id,
               epoch_, store.AppliedSeq());
  leader_thread_ = std::thread([this] { LeaderLoop(); });
  return true;
}

absl::Status Replica::Append(uint64_t seq, const std::string& commit) {
  bool told = false;
  for (;;) {
    Candidate me;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!leading_) {
        return absl::UnavailableError(
            absl::StrCat("this controller (", settings_.id, ") no longer serves"));
      }
      me = {settings_.prefix, settings_.id, lease_};
    }
    absl::StatusOr<etcdserverpb::TxnResponse> answer = client_.Txn(CommitTxn(me, seq, commit));
    if (!answer.ok()) {
      if (!Transient(answer.status())) {
        return absl::Status(answer.status().code(), absl::StrCat("etcd refused commit ", seq, ": ",
                                                                 answer.status().message()));
      }
      // Maybe written, maybe not: the same commit again, until etcd says which
      // (a retry finds it written) or the lease may have lapsed (Lose).
      if (!told)
        logger_.warn("etcd: commit {} unanswered ({}); retrying", seq,
                     std::string(answer.status().message()));
      told = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    switch (ReadCommitOutcome(*answer, commit)) {
      case CommitOutcome::kCommitted:
      case CommitOutcome::kAlreadyWritten:
        return absl::OkStatus();
      case CommitOutcome::kConflict:
        Lose(absl::StrCat("another controller wrote commit ", seq));
        return absl::AbortedError(
            absl::StrCat("commit ", seq, " was written by another controller"));
      case CommitOutcome::kNotLeader:
        Lose("the leader key is no longer its own");
        return absl::UnavailableError(
            absl::StrCat("this controller (", settings_.id, ") no longer serves"));
    }
  }
}

void Replica::LocalCopyFailed(uint64_t seq, const absl::Status& why) {
  Lose(absl::StrCat("commit ", seq, " is in etcd but could not be stored locally (", why.message(),
                    "); a controller holding the whole log must serve"));
}

}  // namespace skiff::ctld::replication
