// Where the job store's commits go before they are kept locally (issue 53):
// with etcd named in skiff.conf, the replicated log that a standby ctld
// follows (ctld/replication/etcd_commit_log.h). Without one, SQLite alone.
//
// SqliteJobStore appends each of its transactions, encoded as a
// v1::StoreCommit, as commit applied_seq + 1 inside that transaction, and
// commits locally only once Append said OK: nothing is acknowledged that the
// log does not hold. Where the local COMMIT then fails, the log holds a commit
// this copy lacks; LocalCopyFailed tells the log's owner, whose way out is to
// stop serving, so that a controller which has the whole log serves instead.
//
// Threads: Append and LocalCopyFailed are called by the store's writing
// caller, one at a time, under the store's database mutex.
#ifndef SKIFF_CTLD_STATE_COMMIT_LOG_H_
#define SKIFF_CTLD_STATE_COMMIT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace skiff::ctld {

// How large one transaction's queued writes may grow before the rest wait for
// the next one: etcd refuses a request over its limit (1.5 MiB by default,
// `skiff init` sets 10 MiB), and a group commit over it would fail every
// submission in it. One write larger than this still goes, alone.
inline constexpr size_t kMaxCommitBytes = 1 << 20;

class CommitLog {
 public:
  virtual ~CommitLog() = default;
  // Makes `commit` the log's commit `seq`, durably; OK also when an earlier
  // try already did. Any error means it is not in the log and never will be.
  virtual absl::Status Append(uint64_t seq, const std::string& commit) = 0;
  // Commit `seq` is in the log but could not be stored locally (`why`).
  virtual void LocalCopyFailed(uint64_t seq, const absl::Status& why) = 0;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_COMMIT_LOG_H_
