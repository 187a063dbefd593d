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
  if (trimmer_.joinable()) trimmer_.join();
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
    for (const etcdserverpb::KeyValue& kv : page->kvs()) {
      const uint64_t seq = CommitSeqOf(settings_.prefix, kv.key());
      if (seq > store.AppliedSeq() + 1) {
        return absl::FailedPreconditionError(absl::StrCat(
            "this controller's database holds the log to commit ", store.AppliedSeq(),
            ", but etcd's log now starts at commit ", seq,
            " (the commits between were trimmed): copy ctld.db from the serving controller's "
            "StateSaveLocation into this one's and start it again"));
      }
      if (absl::Status s = store.ApplyCommit(seq, kv.value()); !s.ok()) return s;
    }
    if (page->kvs_size() == 0 || !page->more()) return absl::OkStatus();
  }
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
  const std::optional<uint64_t> through = TrimThrough(others, held);
  if (!through.has_value()) return 0;
  absl::StatusOr<etcdserverpb::TxnResponse> answer = client_.Txn(TrimTxn(me, *through));
  if (!answer.ok()) return answer.status();
  return answer->succeeded() ? *through : 0;
}

void Replica::TrimLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, settings_.trim_every, [this] { return stopping_; });
    if (stopping_ || !leading_) break;
    lock.unlock();
    absl::StatusOr<uint64_t> trimmed = TrimLog();
    if (!trimmed.ok()) {
      logger_.warn("etcd: trimming the log: {}", std::string(trimmed.status().message()));
    } else if (*trimmed > 0) {
      logger_.debug("etcd: commits through {} are held by every controller: deleted", *trimmed);
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
  std::lock_guard<std::mutex> lock(mu_);
  leading_ = true;
  epoch_ = FormatControllerEpoch({answer->header().cluster_id(), answer->header().revision()});
  logger_.info("etcd: {} leads (epoch {}), its database holding the log to commit {}", settings_.id,
               epoch_, store.AppliedSeq());
  trimmer_ = std::thread([this] { TrimLoop(); });
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
