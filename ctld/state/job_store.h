// Where ctld's jobs live durably: an interface so the Controller can be tested
// with a fake, and its SQLite implementation.
//
// Every accepted job and every state change is written through Save (or
// SaveInOrder) before the RPC that caused it is answered. Both may be called
// from any thread; writes queued together are grouped into one transaction
// (group commit). A job row is only replaced by a higher `version`, so two
// threads saving snapshots of the same job in either order leave the newest.
//
// Threads: SqliteJobStore has no thread of its own. A caller waiting for its
// rows (in Save, or in its Ticket's Wait) writes the queue itself, in order,
// when no other caller is writing, else waits for that one: whatever was
// queued meanwhile goes into the next transaction, written by one of its
// waiters. (A writer thread cost two thread switches per commit, ~5 commits
// per job.) It never calls back into the Controller.
#ifndef SKIFF_CTLD_STATE_JOB_STORE_H_
#define SKIFF_CTLD_STATE_JOB_STORE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/tres_usage.h"
#include "ctld/core/job.h"
#include "ctld/core/lifecycle/effects.h"
#include "ctld/state/commit_log.h"

struct sqlite3;
struct sqlite3_stmt;

namespace skiff::v1 {
class StoreCommit;
}  // namespace skiff::v1

namespace skiff::ctld {

// Which jobs QueryJobs reads. The caller filters the rest (names, states,
// the exact window) from the jobs it gets.
struct JobQuery {
  std::vector<uint64_t> ids;  // these jobs and every task of arrays with these ids; empty = all
  std::vector<uid_t> uids;    // with no ids: only these users' jobs; empty = every user
  int64_t done_since = 0;     // with no ids: jobs not done, or done at or after this
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Durable (survives kill -9 of ctld) when it returns OK: the jobs and the
  // records in one transaction, all or nothing. A full disk is
  // ResourceExhausted; any other failure Internal; both name the cause.
  virtual absl::Status Save(std::vector<Job> jobs, std::vector<RecordRow> records = {}) = 0;

  // A write queued by SaveInOrder.
  class Ticket {
   public:
    virtual ~Ticket() = default;
    // Blocks until the rows are stored (OK) or known not to be (Save's errors).
    virtual absl::Status Wait() = 0;
  };
  // Save without waiting, so the Controller decides its next event while this
  // one's rows are written. Writes are stored in the order they were queued.
  // When one fails, every write queued after it fails too, until Resume(): the
  // Controller decided the later events on top of the failed one and rolls them
  // back with it, so none of them may be stored. (A failed Save fails only the
  // writes stored in the same commit.) An empty write stores nothing and
  // succeeds once every write queued before it has. The default stores the rows
  // before it returns (a store without a queue).
  virtual std::unique_ptr<Ticket> SaveInOrder(std::vector<Job> jobs,
                                              std::vector<RecordRow> records);
  // Writes are accepted again after a failure (see SaveInOrder). The Controller
  // calls it once no event decided on top of the failure is left.
  virtual void Resume() {}

  // Every job not yet in a final state, plus final ones that ended at or after
  // `finished_since` (so squeue still shows them for MinJobAge).
  virtual absl::StatusOr<std::vector<Job>> LoadActive(int64_t finished_since) = 0;

  // Jobs as stored (every job ever accepted: sacct's records), by id, without
  // their specs. Reads the last commit; never waits for Save.
  virtual absl::StatusOr<std::vector<Job>> QueryJobs(const JobQuery& query) = 0;

  // Allocated TRES-seconds per (account, user) of every run that overlapped
  // [start, end), clipped to it; runs still going count up to `now`: each
  // run's Job::alloc_tres times its seconds in the window (cpu alone, from
  // alloc_cpus, for runs stored before alloc_tres). Seconds are summed in SQL
  // from the jobs table's columns, without decoding records.
  struct UsageSum {
    std::string account;
    std::string user;
    double cpu_seconds = 0;   // tres_seconds["cpu"]
    TresCounts tres_seconds;  // per TRES name: count x seconds
  };
  virtual absl::StatusOr<std::vector<UsageSum>> SumUsage(int64_t start, int64_t end,
                                                         int64_t now) = 0;

  // Drops the submitted specs (script, environment) of jobs done before
  // `done_before`: they have left ctld's memory and cannot run again. An
  // array's first task keeps its row (the array's payload, see
  // job_spec_parts.h) until every task of the array is done.
  virtual absl::Status ForgetSpecs(int64_t done_before) = 0;

  // Gives back what the store's caches hold beyond what they need now (after
  // a purge: SQLite's page caches had grown with the jobs).
  virtual void ReleaseMemory() {}

  // Job `id`'s spec row as first stored (for the first job of a submission:
  // light part + payload). NotFound when there is none. Reads the last commit;
  // never waits for Save.
  virtual absl::StatusOr<std::string> LoadSpec(uint64_t id) = 0;

  // The highest job id ever stored (0 when empty): ids are never reused.
  virtual absl::StatusOr<uint64_t> MaxJobId() = 0;

  // Small keyed records besides jobs (ctld/state/records.h): `kind` + `key` ->
  // `blob`, written by Save and SaveInOrder with the jobs.
  virtual absl::StatusOr<std::map<std::string, std::string>> LoadRecords(
      const std::string& kind) = 0;
  // The blobs of `kind`'s records with keys in [from, to), in key order (a
  // job's steps). Reads the last commit; never waits for Save.
  virtual absl::StatusOr<std::vector<std::string>> LoadRecordRange(const std::string& kind,
                                                                   const std::string& from,
                                                                   const std::string& to) {
    absl::StatusOr<std::map<std::string, std::string>> all = LoadRecords(kind);
    if (!all.ok()) return all.status();
    std::vector<std::string> blobs;
    for (auto it = all->lower_bound(from); it != all->end() && it->first < to; ++it)
      blobs.push_back(it->second);
    return blobs;
  }
};

class SqliteJobStore final : public JobStore {
 public:
  // Opens (creating) `path` in WAL mode. FailedPrecondition names the file.
  static absl::StatusOr<std::unique_ptr<SqliteJobStore>> Open(const std::string& path);
  ~SqliteJobStore() override;

  absl::Status Save(std::vector<Job> jobs, std::vector<RecordRow> records = {}) override;
  std::unique_ptr<Ticket> SaveInOrder(std::vector<Job> jobs,
                                      std::vector<RecordRow> records) override;
  void Resume() override;
  absl::StatusOr<std::vector<Job>> LoadActive(int64_t finished_since) override;
  absl::StatusOr<uint64_t> MaxJobId() override;
  absl::StatusOr<std::vector<Job>> QueryJobs(const JobQuery& query) override;
  absl::Status ForgetSpecs(int64_t done_before) override;
  void ReleaseMemory() override;
  absl::StatusOr<std::string> LoadSpec(uint64_t id) override;
  absl::StatusOr<std::vector<UsageSum>> SumUsage(int64_t start, int64_t end, int64_t now) override;
  absl::StatusOr<std::map<std::string, std::string>> LoadRecords(const std::string& kind) override;
  absl::StatusOr<std::vector<std::string>> LoadRecordRange(const std::string& kind,
                                                           const std::string& from,
                                                           const std::string& to) override;

  // Replication (commit_log.h, issue 53). The number of the last log commit
  // this database holds (0: none, or not replicated).
  uint64_t AppliedSeq();
  // From now on every transaction is first appended to `log` (which must
  // outlive the store) as commit AppliedSeq() + 1. Call before the first
  // write, once the database holds the whole log (a new primary).
  void ReplicateTo(CommitLog* log);
  // A standby's copy: stores log commit `seq` (a v1::StoreCommit) as one
  // transaction. Already held (seq <= AppliedSeq()): nothing to do. A gap
  // (seq > AppliedSeq() + 1) or a commit that does not decode is
  // FailedPrecondition, naming the commit.
  absl::Status ApplyCommit(uint64_t seq, const std::string& commit);
  // A new primary whose database held jobs before replication began (no
  // commit numbered yet, the log empty): every stored job (with its spec) and
  // record, appended as the log's first commits of about `commit_bytes` each,
  // so that a standby copying the log holds what this database holds. Does
  // nothing once a commit is numbered. Call after ReplicateTo, before the
  // Controller writes.
  absl::Status SeedLog(size_t commit_bytes = 512 << 10);

  // A standby whose database lacks commits the log no longer holds catches up
  // from a snapshot of the serving controller's database (issue 53).
  struct StoreSnapshot {
    uint64_t seq = 0;                 // the last log commit it holds (AppliedSeq then)
    std::vector<std::string> chunks;  // v1::StoreCommits, of about chunk_bytes each
  };
  // The whole database as of one commit: every job (with its spec) and
  // record, encoded as SeedLog encodes them, and the log commit they are the
  // state after. Read in one SQLite read transaction on a connection of its
  // own: WAL gives it one commit's rows and applied seq together (both are
  // written by the same transaction), while writes go on; nothing waits for
  // it. Any thread.
  absl::StatusOr<StoreSnapshot> Snapshot(size_t chunk_bytes = 512 << 10);
  // A standby's: replaces every job, spec and record row with `chunks`
  // (Snapshot's, of log commit `seq`) and makes AppliedSeq() `seq`, in one
  // transaction. Copying the log then continues from seq + 1. InvalidArgument
  // for seq 0; FailedPrecondition for a store that appends to a log (a
  // leader's) or a chunk that does not decode, naming it.
  absl::Status InstallSnapshot(uint64_t seq, const std::vector<std::string>& chunks);

 private:
  struct Batch {
    std::vector<Job> jobs;
    std::vector<RecordRow> records;
    bool in_order = false;  // SaveInOrder's (Save's writes are independent)
    absl::Status result;
    bool done = false;
  };
  // A batch's size in a commit, roughly (kMaxCommitBytes caps a transaction).
  static size_t EstimatedBytes(const Batch& batch);
  class QueuedTicket;
  std::shared_ptr<Batch> Queue(std::vector<Job> jobs, std::vector<RecordRow> records,
                               bool in_order);

  SqliteJobStore(std::string path, sqlite3* db, sqlite3* read_db);
  // BEGIN IMMEDIATE, the writer's statements prepared.
  absl::Status BeginLocked();
  // Writes one batch's rows inside the open transaction; `commit`, when not
  // null, gets what the log gets: the same rows, each job whole.
  absl::Status WriteRowsLocked(const Batch& batch, v1::StoreCommit* commit);
  // Returns once `batch` is done, writing the queue when no one else is.
  absl::Status AwaitWritten(const std::shared_ptr<Batch>& batch);
  // Stores `batches` as one transaction: with a log, appended to it first as
  // its next commit; `applied_seq` (a standby's ApplyCommit) records the log
  // commit the batches came from instead.
  absl::Status WriteLocked(const std::vector<std::shared_ptr<Batch>>& batches,
                           uint64_t applied_seq = 0);
  // The transaction's last step before COMMIT: the log's part.
  absl::Status ReplicateLocked(const std::string& commit, uint64_t applied_seq);
  // One record of a batch being written (an empty blob deletes it).
  absl::Status PutRecordLocked(const RecordRow& record);

  const std::string path_;  // the database file (Snapshot opens its own connection)
  sqlite3* db_;
  std::mutex db_mu_;                    // serializes use of db_ (the writing caller vs. loads)
  int64_t specs_forgotten_before_ = 0;  // under db_mu_
  // The writer's statements, prepared on first use (under db_mu_).
  sqlite3_stmt* begin_stmt_ = nullptr;
  sqlite3_stmt* commit_stmt_ = nullptr;
  sqlite3_stmt* upsert_stmt_ = nullptr;
  sqlite3_stmt* spec_insert_stmt_ = nullptr;
  CommitLog* log_ = nullptr;  // set before the first write (ReplicateTo)
  uint64_t applied_seq_ = 0;  // under db_mu_: the replication table's

  sqlite3* read_db_;    // QueryJobs only (WAL: readers never block the writer)
  std::mutex read_mu_;  // serializes use of read_db_

  std::mutex queue_mu_;
  std::condition_variable done_cv_;  // a write finished: batches are done, or may be written
  std::deque<std::shared_ptr<Batch>> queue_;
  bool writing_ = false;  // a caller is writing batches taken from queue_
  // An ordered write failed: every write after it fails with `failure_` until
  // Resume() (a failed Save alone fails only its own group).
  bool failed_ = false;
  absl::Status failure_;
  bool stopping_ = false;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_JOB_STORE_H_
