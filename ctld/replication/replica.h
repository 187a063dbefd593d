// A controller's place in a replicated cluster (issue 53): its etcd lease,
// its campaign for the leader key, the standby's copy of the commit log, and
// the serving controller's appends to it (the CommitLog its SqliteJobStore
// writes through, ctld/state/commit_log.h).
//
// A ctld started with EtcdEndpoints joins (a lease of SlurmctldTimeout
// seconds), then calls TryToLead until it returns true: each call copies the
// commits its database does not hold yet and, when no controller leads,
// campaigns. The winner copies what is left (the deposed leader can append
// nothing more: every append is guarded by the leader key and its lease, in
// etcd) and serves; its store appends every transaction here first. When its
// lease may have lapsed (etcd unreachable, the lease found ended, or another
// controller found writing), `lost` is called, once: the controller must
// stop serving at once, before a standby can win.
//
// The leader trims the log to what every standby holds. A standby whose
// database lacks commits that were trimmed (lost and started empty, or
// restored from an old backup) asks for a snapshot instead of the log's
// start (<prefix>/snapshot-wanted/<id>, leader_txn.h); the leader writes one
// of its database, and the standby installs it in place of whatever its
// database held and copies the log on from the snapshot's commit.
//
// Threads: one thread of its own renews the lease, from Join to destruction;
// once leading, a second (the leader's) answers snapshot requests within
// snapshot_check_every and trims every trim_every. TryToLead is the owner's;
// Append and LocalCopyFailed are the store's writing caller's; leader(),
// leading() and Resign() any thread's.
#ifndef SKIFF_CTLD_REPLICATION_REPLICA_H_
#define SKIFF_CTLD_REPLICATION_REPLICA_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ctld/replication/etcd_client.h"
#include "ctld/replication/lease_watch.h"
#include "ctld/state/commit_log.h"
#include "ctld/state/job_store.h"
#include "spdlog/spdlog.h"

namespace skiff::ctld::replication {

class Replica final : public CommitLog {
 public:
  struct Settings {
    std::vector<std::string> endpoints;  // etcd members, "host:port"
    EtcdTls tls;                         // empty: plain text
    std::string prefix;                  // "/skiff/<ClusterName>"
    std::string id;                      // this controller's SlurmctldHost name
    // Every SlurmctldHost name: the leader trims the commits all the others
    // hold (TrimLog), and none while one of them has not said what it holds.
    std::vector<std::string> controllers;
    // How often the leader trims the log.
    std::chrono::seconds trim_every{30};
    // How often the leader looks for a standby's request for a snapshot (one
    // small read of etcd; nothing on the commit path).
    std::chrono::milliseconds snapshot_check_every{1000};
    // A snapshot's chunks: one etcd request each, under its request limit.
    size_t snapshot_chunk_bytes = 512 << 10;
    std::chrono::seconds lease{5};  // SlurmctldTimeout
    // How long Join waits for etcd to grant the lease.
    std::chrono::seconds join_wait{30};
  };
  using LostCallback = std::function<void(const std::string& why)>;

  // Grants this controller's lease. Unavailable, naming the endpoints, when
  // etcd does not answer within join_wait.
  static absl::StatusOr<std::unique_ptr<Replica>> Join(Settings settings, LostCallback lost,
                                                       spdlog::logger& logger);
  ~Replica() override;
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  // Copies the log's commits that `store` lacks into it and, when no
  // controller leads, campaigns. True: this controller leads and `store`
  // holds the whole log. An error (etcd unreachable) is the caller's to retry;
  // FailedPrecondition: `store` is not a copy of this log. Where the log
  // starts past what `store` holds, asks the leader for a snapshot and is
  // Unavailable until one is written; then installs it (InstallSnapshot) and
  // copies on. `store` must outlive the replica once it leads (the leader's
  // thread snapshots it).
  // `campaign` false: copy and watch only (a controller that just handed
  // over lets a standby win first).
  absl::StatusOr<bool> TryToLead(SqliteJobStore& store, bool campaign = true);
  // The controller that leads, as last seen ("" when none was seen yet).
  std::string leader() const;
  bool leading() const;
  // Once leading, this controller's epoch (common/rpc/controller_epoch.h:
  // etcd's cluster id and the revision of the campaign it won), which noded
  // holds against any earlier controller; "" before.
  std::string epoch() const;
  // Ends the lease now (a clean stop), so that a standby need not wait for it
  // to lapse. The lost callback is not called after this.
  void Resign();

  // The leader's: deletes the commits every other controller holds (each
  // standby writes what it holds as it copies). Returns the last commit
  // deleted (0: none may go yet). Run every trim_every on a thread of the
  // replica's own once this controller leads.
  absl::StatusOr<uint64_t> TrimLog();
  // The leader's: when standbys asked for a snapshot, writes one of its store
  // and names it the latest (deleting older ones and the requests). Returns
  // the commit it is of (0: none was asked for). Run every
  // snapshot_check_every on the leader's thread.
  absl::StatusOr<uint64_t> ServeSnapshot();

  // CommitLog: commit `seq` as the leader. Retried while etcd does not
  // answer, until it does or the lease may have lapsed.
  absl::Status Append(uint64_t seq, const std::string& commit) override;
  void LocalCopyFailed(uint64_t seq, const absl::Status& why) override;

 private:
  Replica(Settings settings, LostCallback lost, spdlog::logger& logger);
  void RenewLoop();
  void LeaderLoop();
  // Calls lost_ unless it was called, or the lease resigned.
  void Lose(const std::string& why);
  absl::Status CopyLog(SqliteJobStore& store);
  // CopyLog's, where etcd's log starts at `log_start`, past `held`: installs
  // the latest snapshot if it reaches log_start, else asks for one
  // (Unavailable while it waits).
  absl::Status CatchUpFromSnapshot(SqliteJobStore& store, uint64_t held, uint64_t log_start);
  int64_t lease() const;

  const Settings settings_;
  const LostCallback lost_;
  spdlog::logger& logger_;
  EtcdClient client_;        // commits, reads, the campaign
  EtcdClient lease_client_;  // renewals, with a deadline well inside the lease's margin

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t lease_ = 0;                  // guarded by mu_
  std::unique_ptr<LeaseWatch> watch_;  // guarded by mu_
  std::string leader_;                 // guarded by mu_
  bool leading_ = false;               // guarded by mu_
  std::string epoch_;                  // guarded by mu_
  bool lost_called_ = false;           // guarded by mu_
  bool stopping_ = false;              // guarded by mu_
  // TryToLead's: the last commit this standby said it holds, and when.
  uint64_t held_said_ = 0;
  std::chrono::steady_clock::time_point held_said_at_{};
  // TryToLead's: waiting for a snapshot since (asked again every 5 s).
  bool awaiting_snapshot_ = false;
  std::chrono::steady_clock::time_point snapshot_asked_at_{};
  // The leader's store, set as it starts leading (before leader_thread_).
  SqliteJobStore* store_ = nullptr;
  std::thread renewer_;
  std::thread leader_thread_;  // snapshots and trimming, from leading to destruction
};

}  // namespace skiff::ctld::replication

#endif  // SKIFF_CTLD_REPLICATION_REPLICA_H_
