#include "ctld/state/job_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/tres_usage.h"
#include "ctld/state/job_record.h"
#include "ctld/state/job_spec_parts.h"

namespace skiff::ctld {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  state INTEGER NOT NULL,
  final INTEGER NOT NULL,         -- 1 once the job can no longer change
  uid INTEGER NOT NULL,
  user_name TEXT NOT NULL,
  name TEXT NOT NULL,
  partition TEXT NOT NULL,
  submit_time INTEGER NOT NULL,
  start_time INTEGER NOT NULL,
  end_time INTEGER NOT NULL,
  exit_code INTEGER NOT NULL,
  record BLOB NOT NULL            -- v1::JobRecord
);
CREATE INDEX IF NOT EXISTS jobs_user ON jobs(uid, final, end_time);
-- The submitted spec (script, environment, paths): large, written once, and
-- dropped once the job has left ctld's memory, so that a finished job's row
-- stays small (sacct's records).
CREATE TABLE IF NOT EXISTS job_specs (
  id INTEGER PRIMARY KEY,
  spec BLOB NOT NULL              -- v1::JobSpec
);
CREATE TABLE IF NOT EXISTS records (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  blob BLOB NOT NULL,
  PRIMARY KEY (kind, key)
);
-- With etcd (commit_log.h): the last commit of the replicated log this
-- database holds, written in the same transaction as its rows.
CREATE TABLE IF NOT EXISTS replication (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  applied_seq INTEGER NOT NULL
);
)sql";

// Columns added after the first release, with how to add them to an older file.
constexpr struct {
  const char* name;
  const char* add;
} kAddedColumns[] = {
    {"array_job_id", "ALTER TABLE jobs ADD COLUMN array_job_id INTEGER NOT NULL DEFAULT 0"},
    // For sreport's sums, read without decoding records.
    {"account", "ALTER TABLE jobs ADD COLUMN account TEXT NOT NULL DEFAULT ''"},
    {"alloc_cpus", "ALTER TABLE jobs ADD COLUMN alloc_cpus INTEGER NOT NULL DEFAULT 0"},
    // Job::alloc_tres (EncodeTres), so sreport sums every TRES without
    // decoding records; '' for runs stored before it (alloc_cpus counts then).
    {"alloc_tres", "ALTER TABLE jobs ADD COLUMN alloc_tres TEXT NOT NULL DEFAULT ''"},
};

// Indexes over columns added later. jobs_tres_usage starts with (final,
// end_time), which loading and sacct's windows range over, and covers
// sreport's sums so they never touch the table; it replaces the first
// schema's jobs_active and jobs_usage (the same without alloc_tres).
// jobs_array_final answers "is a task of this array not final?" with one seek;
// the first schema's jobs_array (array_job_id alone) made ForgetSpecs read
// every task of the array for each of them (an ended 10,000-task array: 5 s
// with the store held; 100,000: minutes).
constexpr char kLaterIndexes[] = R"sql(
CREATE INDEX IF NOT EXISTS jobs_array_final ON jobs(array_job_id, final) WHERE array_job_id != 0;
DROP INDEX IF EXISTS jobs_array;
CREATE INDEX IF NOT EXISTS jobs_tres_usage
  ON jobs(final, end_time, start_time, alloc_cpus, account, user_name, alloc_tres);
DROP INDEX IF EXISTS jobs_usage;
DROP INDEX IF EXISTS jobs_active;
)sql";

constexpr char kUpsert[] = R"sql(
INSERT INTO jobs (id, version, state, final, uid, user_name, name, partition, submit_time,
                  start_time, end_time, exit_code, record, array_job_id, account, alloc_cpus,
                  alloc_tres)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
ON CONFLICT(id) DO UPDATE SET
  version = excluded.version, state = excluded.state, final = excluded.final,
  name = excluded.name, partition = excluded.partition, start_time = excluded.start_time,
  end_time = excluded.end_time, exit_code = excluded.exit_code, record = excluded.record,
  account = excluded.account, alloc_cpus = excluded.alloc_cpus, alloc_tres = excluded.alloc_tres
WHERE excluded.version > jobs.version
)sql";

// The spec never changes after submit: the first save writes it.
constexpr char kInsertSpec[] = "INSERT OR IGNORE INTO job_specs (id, spec) VALUES (?1, ?2)";

absl::Status SqliteError(sqlite3* db, const std::string& what) {
  const std::string message = absl::StrCat("sqlite: ", what, ": ", sqlite3_errmsg(db));
  // A full disk (or quota) is the one failure an operator fixes by freeing space.
  if (sqlite3_errcode(db) == SQLITE_FULL) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

absl::Status Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    return absl::InternalError(absl::StrCat("sqlite: ", message));
  }
  return absl::OkStatus();
}

// A database written by an older ctld gains the columns added since.
absl::Status AddMissingColumns(sqlite3* db) {
  std::set<std::string> have;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA table_info(jobs)", -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db, "table_info");
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    have.insert(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
  }
  sqlite3_finalize(stmt);
  for (const auto& column : kAddedColumns) {
    if (have.count(column.name) != 0) continue;
    if (absl::Status s = Exec(db, column.add); !s.ok()) return s;
  }
  return Exec(db, kLaterIndexes);
}

// Runs a prepared SELECT whose first column is a JobRecord (and whose second,
// if any, the job's spec) and appends the jobs.
absl::Status ReadJobs(sqlite3* db, sqlite3_stmt* stmt, bool with_spec, std::vector<Job>* jobs) {
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    v1::JobRecord record;
    if (!record.ParseFromArray(sqlite3_column_blob(stmt, 0), sqlite3_column_bytes(stmt, 0))) {
      return absl::DataLossError("sqlite: a job record does not parse");
    }
    Job job = FromRecord(record);
    if (!with_spec) {
      job.spec_blob.clear();  // a record written before specs had their own table
    } else if (job.spec_blob.empty() && sqlite3_column_type(stmt, 1) == SQLITE_BLOB) {
      job.spec_blob = LightPart(std::string(static_cast<const char*>(sqlite3_column_blob(stmt, 1)),
                                            static_cast<size_t>(sqlite3_column_bytes(stmt, 1))));
    } else if (!job.spec_blob.empty()) {
      job.spec_blob = LightPart(job.spec_blob);  // a record older than job_specs
    }
    jobs->push_back(std::move(job));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, "read jobs");
  return absl::OkStatus();
}

// The database holds every job's script and environment: 0600 whatever the
// umask and however open StateSaveLocation is (a package's 0755). SQLite gives
// the -wal and -shm files it creates the database's mode, so creating the
// database 0600 covers them; files an older ctld left 0644 are narrowed.
absl::Status MakePrivate(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", path, ": ", strerror(errno)));
  }
  const bool narrowed = fchmod(fd, 0600) == 0;
  const int err = errno;
  close(fd);
  if (!narrowed) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make ", path, " private (chmod 600): ", strerror(err)));
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string side = path + suffix;
    if (chmod(side.c_str(), 0600) != 0 && errno != ENOENT) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot make ", side, " private (chmod 600): ", strerror(errno)));
    }
  }
  return absl::OkStatus();
}

using Statement = std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)>;

// What Snapshot and SeedLog carry: every job, spec and record row, and the log
// commit they are the state after.
struct EncodedState {
  uint64_t seq = 0;
  std::vector<v1::StoreCommit> commits;
};

// Reads the database at `path` as of one commit, on a connection of its own
// in one read transaction: in WAL mode it sees one commit's rows and
// applied_seq together (the writer stores both in one transaction) and the
// writer goes on meanwhile. Each job whole (its spec row in spec_blob, as
// WriteLocked sends it to the log), then each record, in commits of at most
// `chunk_bytes` by SeedLog's count (a job's spec plus 512 bytes, or its
// encoded size where that is more): under etcd's request limit. A row larger
// than `chunk_bytes` goes alone.
absl::StatusOr<EncodedState> EncodeState(const std::string& path, size_t chunk_bytes) {
  sqlite3* raw_db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string message = raw_db ? sqlite3_errmsg(raw_db) : "out of memory";
    sqlite3_close(raw_db);
    return absl::InternalError(absl::StrCat("sqlite: cannot open ", path, ": ", message));
  }
  // Declared first: closed after every statement below is finalized.
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw_db, sqlite3_close);
  (void)Exec(db.get(), "PRAGMA busy_timeout=5000;");
  auto prepare = [&](const char* sql) -> absl::StatusOr<Statement> {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql, -1, &stmt, nullptr) != SQLITE_OK) {
      return SqliteError(db.get(), "prepare the state's encoding");
    }
    return Statement(stmt, sqlite3_finalize);
  };
  auto bytes_of = [](sqlite3_stmt* stmt, int column) {
    const void* data = sqlite3_column_blob(stmt, column);
    return data == nullptr ? std::string()
                           : std::string(static_cast<const char*>(data),
                                         static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
  };
  if (absl::Status s = Exec(db.get(), "BEGIN;"); !s.ok()) return s;
  EncodedState state;
  size_t bytes = 0;  // in state.commits.back()
  auto commit_for = [&](size_t more) -> v1::StoreCommit& {
    if (state.commits.empty() || bytes + more > chunk_bytes) {
      state.commits.emplace_back();
      bytes = 0;
    }
    bytes += more;
    return state.commits.back();
  };
  absl::StatusOr<Statement> jobs = prepare(
      "SELECT j.record, s.spec FROM jobs j LEFT JOIN job_specs s ON s.id = j.id ORDER BY j.id");
  if (!jobs.ok()) return jobs.status();
  int rc;
  while ((rc = sqlite3_step(jobs->get())) == SQLITE_ROW) {
    v1::JobRecord record;
    if (!record.ParseFromArray(sqlite3_column_blob(jobs->get(), 0),
                               sqlite3_column_bytes(jobs->get(), 0))) {
      return absl::DataLossError("sqlite: a job record does not parse");
    }
    // The spec row, or none (forgotten; a record older than job_specs kept
    // its own, which SeedLog never sent either).
    record.set_spec_blob(bytes_of(jobs->get(), 1));
    const size_t size = std::max(record.spec_blob().size() + 512, record.ByteSizeLong());
    *commit_for(size).add_jobs() = std::move(record);
  }
  if (rc != SQLITE_DONE) return SqliteError(db.get(), "read jobs");
  absl::StatusOr<Statement> records =
      prepare("SELECT kind, key, blob FROM records ORDER BY kind, key");
  if (!records.ok()) return records.status();
  while ((rc = sqlite3_step(records->get())) == SQLITE_ROW) {
    v1::StoredRecord record;
    record.set_kind(bytes_of(records->get(), 0));
    record.set_key(bytes_of(records->get(), 1));
    record.set_blob(bytes_of(records->get(), 2));
    const size_t size = record.key().size() + record.blob().size() + 32;
    *commit_for(size).add_records() = std::move(record);
  }
  if (rc != SQLITE_DONE) return SqliteError(db.get(), "read records");
  // Last, in the same transaction: the commit the rows above are the state after.
  absl::StatusOr<Statement> seq = prepare("SELECT applied_seq FROM replication WHERE id = 0");
  if (!seq.ok()) return seq.status();
  if ((rc = sqlite3_step(seq->get())) == SQLITE_ROW) {
    state.seq = static_cast<uint64_t>(sqlite3_column_int64(seq->get(), 0));
  } else if (rc != SQLITE_DONE) {
    return SqliteError(db.get(), "read applied_seq");
  }
  (void)Exec(db.get(), "COMMIT;");
  return state;
}

// A log commit's rows, as the store writes them.
void RowsOf(const v1::StoreCommit& commit, std::vector<Job>* jobs,
            std::vector<RecordRow>* records) {
  for (const v1::JobRecord& record : commit.jobs()) jobs->push_back(FromRecord(record));
  for (const v1::StoredRecord& record : commit.records()) {
    records->push_back({record.kind(), record.key(), record.blob()});
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteJobStore>> SqliteJobStore::Open(const std::string& path) {
  if (absl::Status s = MakePrivate(path); !s.ok()) return s;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", path, ": ", message));
  }
  // WAL + NORMAL: a commit is durable against a killed process (the case the
  // brief demands) without an fsync per transaction; FULL would add power-loss
  // safety at ~10x the cost per commit.
  for (const char* pragma :
       {"PRAGMA journal_mode=WAL;", "PRAGMA synchronous=NORMAL;", "PRAGMA busy_timeout=5000;"}) {
    if (absl::Status s = Exec(db, pragma); !s.ok()) {
      sqlite3_close(db);
      return absl::FailedPreconditionError(absl::StrCat(path, ": ", s.message()));
    }
  }
  if (absl::Status s = Exec(db, kSchema); !s.ok()) {
    sqlite3_close(db);
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", s.message()));
  }
  if (absl::Status s = AddMissingColumns(db); !s.ok()) {
    sqlite3_close(db);
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", s.message()));
  }
  // sacct's reads use their own connection: in WAL mode they see the last
  // commit and never wait for the writer, nor it for them.
  sqlite3* read_db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &read_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = read_db ? sqlite3_errmsg(read_db) : "out of memory";
    sqlite3_close(read_db);
    sqlite3_close(db);
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", path, ": ", message));
  }
  // Reads map the file rather than copying pages: a user's week is 10,000
  // rows scattered among everyone's.
  for (const char* pragma :
       {"PRAGMA busy_timeout=5000;", "PRAGMA mmap_size=1073741824;", "PRAGMA cache_size=-65536;"}) {
    (void)Exec(read_db, pragma);
  }
  auto store = std::unique_ptr<SqliteJobStore>(new SqliteJobStore(path, db, read_db));
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT applied_seq FROM replication WHERE id = 0", -1, &stmt,
                         nullptr) != SQLITE_OK) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": ", SqliteError(db, "replication").message()));
  }
  if (sqlite3_step(stmt) == SQLITE_ROW) {
    store->applied_seq_ = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
  }
  sqlite3_finalize(stmt);
  return store;
}

absl::Status SqliteJobStore::SeedLog(size_t commit_bytes) {
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    if (log_ == nullptr || applied_seq_ != 0) return absl::OkStatus();
  }
  absl::StatusOr<EncodedState> state = EncodeState(path_, commit_bytes);
  if (!state.ok()) return state.status();
  // Rows already stored here: each write changes nothing locally (a job row
  // only takes a higher version, a spec row is written once) and goes to the
  // log whole.
  for (const v1::StoreCommit& commit : state->commits) {
    std::vector<Job> jobs;
    std::vector<RecordRow> records;
    RowsOf(commit, &jobs, &records);
    if (absl::Status s = Save(std::move(jobs), std::move(records)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<SqliteJobStore::StoreSnapshot> SqliteJobStore::Snapshot(size_t chunk_bytes) {
  absl::StatusOr<EncodedState> state = EncodeState(path_, chunk_bytes);
  if (!state.ok()) return state.status();
  StoreSnapshot snapshot;
  snapshot.seq = state->seq;
  for (v1::StoreCommit& commit : state->commits) {
    snapshot.chunks.push_back(commit.SerializeAsString());
    commit.Clear();
  }
  return snapshot;
}

absl::Status SqliteJobStore::InstallSnapshot(uint64_t seq, const std::vector<std::string>& chunks) {
  if (seq == 0) return absl::InvalidArgumentError("a snapshot of log commit 0");
  std::lock_guard<std::mutex> lock(db_mu_);
  if (log_ != nullptr) {
    return absl::FailedPreconditionError(
        "a snapshot is installed only in a standby's database, not in one that appends to the log");
  }
  if (absl::Status s = BeginLocked(); !s.ok()) return s;
  // Everything a standby holds came from the log: whatever it holds now
  // (rows of a lost or older copy) goes, and the snapshot's rows are all.
  absl::Status status = Exec(db_, "DELETE FROM jobs; DELETE FROM job_specs; DELETE FROM records;");
  for (size_t i = 0; status.ok() && i < chunks.size(); ++i) {
    v1::StoreCommit decoded;
    if (!decoded.ParseFromString(chunks[i])) {
      status = absl::FailedPreconditionError(
          absl::StrCat("chunk ", i, " of the snapshot of log commit ", seq, " does not decode"));
      break;
    }
    Batch batch;
    RowsOf(decoded, &batch.jobs, &batch.records);
    status = WriteRowsLocked(batch, nullptr);
  }
  if (status.ok()) status = ReplicateLocked("", seq);
  if (status.ok() && sqlite3_step(commit_stmt_) != SQLITE_DONE) {
    status = SqliteError(db_, "commit");
  }
  sqlite3_reset(commit_stmt_);
  if (!status.ok()) {
    (void)Exec(db_, "ROLLBACK;");  // a failed COMMIT can leave the transaction open
    return status;
  }
  applied_seq_ = seq;
  return absl::OkStatus();
}

uint64_t SqliteJobStore::AppliedSeq() {
  std::lock_guard<std::mutex> lock(db_mu_);
  return applied_seq_;
}

void SqliteJobStore::ReplicateTo(CommitLog* log) {
  std::lock_guard<std::mutex> lock(db_mu_);
  log_ = log;
}

absl::Status SqliteJobStore::ApplyCommit(uint64_t seq, const std::string& commit) {
  const std::string what = absl::StrCat("replicated commit ", seq);
  v1::StoreCommit decoded;
  if (!decoded.ParseFromString(commit)) {
    return absl::FailedPreconditionError(absl::StrCat(what, " does not decode"));
  }
  auto batch = std::make_shared<Batch>();
  RowsOf(decoded, &batch->jobs, &batch->records);
  std::lock_guard<std::mutex> lock(db_mu_);
  if (seq <= applied_seq_) return absl::OkStatus();
  if (seq != applied_seq_ + 1) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " follows commit ", seq - 1, ", but this copy holds up to commit ",
                     applied_seq_, ": the commits between are missing"));
  }
  return WriteLocked({batch}, seq);
}

SqliteJobStore::SqliteJobStore(std::string path, sqlite3* db, sqlite3* read_db)
    : path_(std::move(path)), db_(db), read_db_(read_db) {}

SqliteJobStore::~SqliteJobStore() {
  {
    // Every ticket is waited for (a QueuedTicket waits when destroyed), so
    // nothing is queued or being written by now.
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  for (sqlite3_stmt* statement : {begin_stmt_, commit_stmt_, upsert_stmt_, spec_insert_stmt_}) {
    sqlite3_finalize(statement);  // a no-op for null
  }
  sqlite3_close(read_db_);
  sqlite3_close(db_);
}

namespace {

class StoredTicket final : public JobStore::Ticket {
 public:
  explicit StoredTicket(absl::Status result) : result_(std::move(result)) {}
  absl::Status Wait() override { return result_; }

 private:
  absl::Status result_;
};

}  // namespace

std::unique_ptr<JobStore::Ticket> JobStore::SaveInOrder(std::vector<Job> jobs,
                                                        std::vector<RecordRow> records) {
  return std::make_unique<StoredTicket>(Save(std::move(jobs), std::move(records)));
}

class SqliteJobStore::QueuedTicket final : public JobStore::Ticket {
 public:
  QueuedTicket(SqliteJobStore* store, std::shared_ptr<Batch> batch)
      : store_(store), batch_(std::move(batch)) {}
  // A ticket dropped unwaited still gets its rows written (by its thread).
  ~QueuedTicket() override { (void)Wait(); }
  absl::Status Wait() override { return store_->AwaitWritten(batch_); }

 private:
  SqliteJobStore* const store_;
  const std::shared_ptr<Batch> batch_;
};

absl::Status SqliteJobStore::Save(std::vector<Job> jobs, std::vector<RecordRow> records) {
  if (jobs.empty() && records.empty()) return absl::OkStatus();
  std::shared_ptr<Batch> batch = Queue(std::move(jobs), std::move(records), /*in_order=*/false);
  if (batch == nullptr) return absl::UnavailableError("job store is shutting down");
  return AwaitWritten(batch);
}

std::unique_ptr<JobStore::Ticket> SqliteJobStore::SaveInOrder(std::vector<Job> jobs,
                                                              std::vector<RecordRow> records) {
  std::shared_ptr<Batch> batch = Queue(std::move(jobs), std::move(records), /*in_order=*/true);
  if (batch == nullptr) {
    return std::make_unique<StoredTicket>(absl::UnavailableError("job store is shutting down"));
  }
  return std::make_unique<QueuedTicket>(this, std::move(batch));
}

std::shared_ptr<SqliteJobStore::Batch> SqliteJobStore::Queue(std::vector<Job> jobs,
                                                             std::vector<RecordRow> records,
                                                             bool in_order) {
  auto batch = std::make_shared<Batch>();
  batch->jobs = std::move(jobs);
  batch->records = std::move(records);
  batch->in_order = in_order;
  std::lock_guard<std::mutex> lock(queue_mu_);
  if (stopping_) return nullptr;
  queue_.push_back(batch);
  return batch;
}

void SqliteJobStore::Resume() {
  std::lock_guard<std::mutex> lock(queue_mu_);
  failed_ = false;
  failure_ = absl::OkStatus();
}

size_t SqliteJobStore::EstimatedBytes(const Batch& batch) {
  // As SeedLog counts: a job's fields are well under 512 bytes, its spec (the
  // batch script among it) is the bulk.
  size_t bytes = 0;
  for (const Job& job : batch.jobs) bytes += job.spec_blob.size() + 512;
  for (const RecordRow& record : batch.records) {
    bytes += record.key.size() + record.blob.size() + 32;
  }
  return bytes;
}

absl::Status SqliteJobStore::AwaitWritten(const std::shared_ptr<Batch>& batch) {
  std::unique_lock<std::mutex> lock(queue_mu_);
  for (;;) {
    if (batch->done) return batch->result;
    if (writing_) {
      done_cv_.wait(lock);
      continue;
    }
    // Ours is still queued and no one is writing: write everything queued, in
    // order (ours included), as one transaction.
    writing_ = true;
    // In order, up to kMaxCommitBytes (the first whatever its size); the rest
    // stay queued for the next transaction, which the loop below writes when
    // ours is among them.
    std::vector<std::shared_ptr<Batch>> batches;
    size_t bytes = 0;
    while (!queue_.empty()) {
      const size_t more = EstimatedBytes(*queue_.front());
      if (!batches.empty() && bytes + more > kMaxCommitBytes) break;
      bytes += more;
      batches.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    absl::Status status = failed_ ? failure_ : absl::OkStatus();
    lock.unlock();
    const bool any_rows = std::any_of(batches.begin(), batches.end(), [](const auto& queued) {
      return !queued->jobs.empty() || !queued->records.empty();
    });
    if (status.ok() && any_rows) {
      std::lock_guard<std::mutex> db_lock(db_mu_);
      status = WriteLocked(batches);
    }
    lock.lock();
    const bool ordered = std::any_of(batches.begin(), batches.end(),
                                     [](const auto& queued) { return queued->in_order; });
    if (!status.ok() && !failed_ && ordered) {
      failed_ = true;
      failure_ = status;
    }
    for (auto& written : batches) {
      written->result = status;
      written->done = true;
    }
    writing_ = false;
    // The other waiters: their batches are done, or one of them writes next.
    done_cv_.notify_all();
  }
}

absl::Status SqliteJobStore::BeginLocked() {
  // Prepared once and kept (finalized with the store): parsing the statements
  // for every transaction was a visible part of a submission's cost.
  for (auto [statement, sql] :
       {std::pair<sqlite3_stmt**, const char*>{&begin_stmt_, "BEGIN IMMEDIATE;"},
        {&commit_stmt_, "COMMIT;"},
        {&upsert_stmt_, kUpsert},
        {&spec_insert_stmt_, kInsertSpec}}) {
    if (*statement == nullptr &&
        sqlite3_prepare_v2(db_, sql, -1, statement, nullptr) != SQLITE_OK) {
      return SqliteError(db_, absl::StrCat("prepare ", sql));
    }
  }
  const int rc = sqlite3_step(begin_stmt_);
  absl::Status status = rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db_, "begin");
  sqlite3_reset(begin_stmt_);
  return status;
}

absl::Status SqliteJobStore::WriteRowsLocked(const Batch& batch, v1::StoreCommit* commit) {
  sqlite3_stmt* stmt = upsert_stmt_;
  sqlite3_stmt* spec_stmt = spec_insert_stmt_;
  absl::Status status;
  std::string blob;
  for (const Job& job : batch.jobs) {
    v1::JobRecord record = ToRecord(job);
    if (commit != nullptr) *commit->add_jobs() = record;
    record.clear_spec_blob();  // in job_specs
    record.SerializeToString(&blob);
    sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(job.id));
    sqlite3_bind_int64(stmt, 2, static_cast<int64_t>(job.version));
    sqlite3_bind_int(stmt, 3, static_cast<int>(job.state));
    // A finished job whose burst buffer is not torn down yet still needs ctld.
    const bool done =
        IsFinal(job.state) && (!job.UsesBurstBuffer() || job.bb_state == BbState::kComplete);
    sqlite3_bind_int(stmt, 4, done ? 1 : 0);
    sqlite3_bind_int64(stmt, 5, job.uid);
    sqlite3_bind_text(stmt, 6, job.user_name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 7, job.name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 8, job.request.partition.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 9, job.submit_time);
    sqlite3_bind_int64(stmt, 10, job.start_time);
    sqlite3_bind_int64(stmt, 11, job.end_time);
    sqlite3_bind_int(stmt, 12, job.exit_code);
    sqlite3_bind_blob(stmt, 13, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 14, static_cast<int64_t>(job.array_job_id));
    sqlite3_bind_text(stmt, 15, job.account.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 16, job.AllocCpus());
    const std::string alloc_tres = EncodeTres(job.alloc_tres);
    sqlite3_bind_text(stmt, 17, alloc_tres.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      status = SqliteError(db_, absl::StrCat("save JobId=", job.id));
    }
    sqlite3_reset(stmt);
    if (!status.ok()) break;
    if (!job.spec_blob.empty()) {
      sqlite3_bind_int64(spec_stmt, 1, static_cast<int64_t>(job.id));
      sqlite3_bind_blob(spec_stmt, 2, job.spec_blob.data(), static_cast<int>(job.spec_blob.size()),
                        SQLITE_STATIC);
      if (sqlite3_step(spec_stmt) != SQLITE_DONE) {
        status = SqliteError(db_, absl::StrCat("save spec of JobId=", job.id));
      }
      sqlite3_reset(spec_stmt);
      if (!status.ok()) break;
    }
  }
  sqlite3_clear_bindings(stmt);
  sqlite3_clear_bindings(spec_stmt);
  if (!status.ok()) return status;
  for (const RecordRow& record : batch.records) {
    if (absl::Status s = PutRecordLocked(record); !s.ok()) return s;
    if (commit != nullptr) {
      v1::StoredRecord* stored = commit->add_records();
      stored->set_kind(record.kind);
      stored->set_key(record.key);
      stored->set_blob(record.blob);
    }
  }
  return absl::OkStatus();
}

absl::Status SqliteJobStore::WriteLocked(const std::vector<std::shared_ptr<Batch>>& batches,
                                         uint64_t applied_seq) {
  if (absl::Status s = BeginLocked(); !s.ok()) return s;
  // What the log gets: the same rows, each job whole.
  const bool replicated = log_ != nullptr && applied_seq == 0;
  v1::StoreCommit commit;
  absl::Status status;
  for (const auto& batch : batches) {
    status = WriteRowsLocked(*batch, replicated ? &commit : nullptr);
    if (!status.ok()) break;
  }
  if (status.ok() && (replicated || applied_seq != 0)) {
    status = ReplicateLocked(replicated ? commit.SerializeAsString() : "", applied_seq);
  }
  if (!status.ok()) {
    (void)Exec(db_, "ROLLBACK;");
    return status;
  }
  const int committed = sqlite3_step(commit_stmt_);
  sqlite3_reset(commit_stmt_);
  if (committed != SQLITE_DONE) {
    status = SqliteError(db_, "commit");
    (void)Exec(db_, "ROLLBACK;");  // a failed COMMIT can leave the transaction open
    if (replicated) log_->LocalCopyFailed(applied_seq_ + 1, status);
    return status;
  }
  if (replicated) ++applied_seq_;
  if (applied_seq != 0) applied_seq_ = applied_seq;
  return absl::OkStatus();
}

absl::Status SqliteJobStore::ReplicateLocked(const std::string& commit, uint64_t applied_seq) {
  const uint64_t seq = applied_seq != 0 ? applied_seq : applied_seq_ + 1;
  if (applied_seq == 0) {
    if (absl::Status s = log_->Append(seq, commit); !s.ok()) return s;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT OR REPLACE INTO replication (id, applied_seq) VALUES (0, ?1)",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare replication");
  }
  sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(seq));
  const int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc == SQLITE_DONE) return absl::OkStatus();
  absl::Status status = SqliteError(db_, absl::StrCat("save replicated commit ", seq));
  // In the log already, not stored here.
  if (applied_seq == 0) log_->LocalCopyFailed(seq, status);
  return status;
}

absl::StatusOr<std::vector<Job>> SqliteJobStore::LoadActive(int64_t finished_since) {
  std::lock_guard<std::mutex> lock(db_mu_);
  // Two index ranges rather than one OR, which would read every row ever stored.
  const char* sql = R"sql(
SELECT j.record, s.spec FROM jobs j LEFT JOIN job_specs s ON s.id = j.id
WHERE j.id IN (SELECT id FROM jobs WHERE final = 0
               UNION SELECT id FROM jobs WHERE final = 1 AND end_time >= ?1)
ORDER BY j.id)sql";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare load");
  }
  sqlite3_bind_int64(stmt, 1, finished_since);
  std::vector<Job> jobs;
  absl::Status status = ReadJobs(db_, stmt, /*with_spec=*/true, &jobs);
  sqlite3_finalize(stmt);
  if (!status.ok()) return status;
  return jobs;
}

absl::StatusOr<std::vector<Job>> SqliteJobStore::QueryJobs(const JobQuery& query) {
  std::lock_guard<std::mutex> lock(read_mu_);
  // One read transaction: every SELECT below sees the same commit.
  if (absl::Status s = Exec(read_db_, "BEGIN;"); !s.ok()) return s;
  std::vector<Job> jobs;
  auto run = [&](const char* sql, std::initializer_list<int64_t> args) -> absl::Status {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(read_db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
      return SqliteError(read_db_, "prepare query");
    }
    int index = 1;
    for (int64_t arg : args) sqlite3_bind_int64(stmt, index++, arg);
    absl::Status status = ReadJobs(read_db_, stmt, /*with_spec=*/false, &jobs);
    sqlite3_finalize(stmt);
    return status;
  };
  absl::Status status;
  if (!query.ids.empty()) {
    for (uint64_t id : query.ids) {
      const auto key = static_cast<int64_t>(id);
      status = run("SELECT record FROM jobs WHERE id = ?1", {key});
      if (status.ok()) {
        status = run(  // `array_job_id != 0` lets SQLite use the partial index.
            "SELECT record FROM jobs WHERE array_job_id = ?1 AND array_job_id != 0 AND id != ?1",
            {key});
      }
      if (!status.ok()) break;
    }
  } else if (!query.uids.empty()) {
    for (uid_t uid : query.uids) {
      status = run("SELECT record FROM jobs WHERE uid = ?1 AND final = 0", {uid});
      if (status.ok()) {
        status = run("SELECT record FROM jobs WHERE uid = ?1 AND final = 1 AND end_time >= ?2",
                     {uid, query.done_since});
      }
      if (!status.ok()) break;
    }
  } else {
    status = run("SELECT record FROM jobs WHERE final = 0", {});
    if (status.ok()) {
      status =
          run("SELECT record FROM jobs WHERE final = 1 AND end_time >= ?1", {query.done_since});
    }
  }
  (void)Exec(read_db_, "COMMIT;");
  if (!status.ok()) return status;
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.id < b.id; });
  jobs.erase(std::unique(jobs.begin(), jobs.end(),
                         [](const Job& a, const Job& b) { return a.id == b.id; }),
             jobs.end());
  return jobs;
}

absl::StatusOr<std::vector<JobStore::UsageSum>> SqliteJobStore::SumUsage(int64_t start, int64_t end,
                                                                         int64_t now) {
  std::lock_guard<std::mutex> lock(read_mu_);
  // Two index ranges (ended in or after the window; not ended), then the
  // seconds inside the window per association and allocation shape: runs of
  // the same shape share one row, so the TRES are multiplied out per shape
  // below rather than decoded per run.
  const char* sql = R"sql(
SELECT account, user_name, alloc_cpus, alloc_tres,
       SUM(MIN(CASE WHEN end_time = 0 THEN ?3 ELSE end_time END, ?2) - MAX(start_time, ?1))
FROM (SELECT account, user_name, alloc_cpus, alloc_tres, start_time, end_time FROM jobs
        WHERE final = 1 AND end_time > ?1
      UNION ALL
      SELECT account, user_name, alloc_cpus, alloc_tres, start_time, end_time FROM jobs
        WHERE final = 0 AND start_time > 0)
WHERE start_time > 0 AND start_time < ?2 AND alloc_cpus > 0
  AND MIN(CASE WHEN end_time = 0 THEN ?3 ELSE end_time END, ?2) > MAX(start_time, ?1)
GROUP BY account, user_name, alloc_cpus, alloc_tres ORDER BY account, user_name)sql";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(read_db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(read_db_, "prepare usage sums");
  }
  sqlite3_bind_int64(stmt, 1, start);
  sqlite3_bind_int64(stmt, 2, end);
  sqlite3_bind_int64(stmt, 3, now);
  std::vector<UsageSum> out;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::string account = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    std::string user = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    const int64_t alloc_cpus = sqlite3_column_int64(stmt, 2);
    const std::string alloc_tres = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
    const double seconds = sqlite3_column_double(stmt, 4);
    TresCounts counts;
    if (!alloc_tres.empty()) {
      absl::StatusOr<TresCounts> decoded = DecodeTres(alloc_tres);
      if (!decoded.ok()) {
        sqlite3_finalize(stmt);
        return absl::DataLossError(absl::StrCat("sqlite: a job's alloc_tres does not parse: ",
                                                decoded.status().message()));
      }
      counts = *std::move(decoded);
    } else {
      counts["cpu"] = static_cast<double>(alloc_cpus);  // a run stored before alloc_tres
    }
    // Rows come ordered by association: shapes of one association are adjacent.
    if (out.empty() || out.back().account != account || out.back().user != user) {
      out.push_back(UsageSum{std::move(account), std::move(user), 0, {}});
    }
    AddTresUsage(counts, seconds, &out.back().tres_seconds);
    out.back().cpu_seconds = out.back().tres_seconds["cpu"];
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return SqliteError(read_db_, "usage sums");
  return out;
}

absl::Status SqliteJobStore::ForgetSpecs(int64_t done_before) {
  std::lock_guard<std::mutex> lock(db_mu_);
  // Only the range not yet swept: the scan stays proportional to what ended
  // since the last call, not to every job ever stored.
  sqlite3_stmt* stmt = nullptr;
  // An array's first task holds the array's payload: it stays while a task of
  // its array is not done, and goes when the array's last task ends.
  const char* sql = R"sql(
DELETE FROM job_specs WHERE id IN
  (SELECT d.id FROM jobs d WHERE d.final = 1 AND d.end_time >= ?1 AND d.end_time < ?2
     AND (d.array_job_id != d.id OR NOT EXISTS
          (SELECT 1 FROM jobs t WHERE t.array_job_id = d.id AND t.array_job_id != 0
                                  AND t.final = 0))
   UNION
   SELECT DISTINCT d.array_job_id FROM jobs d
   WHERE d.final = 1 AND d.end_time >= ?1 AND d.end_time < ?2 AND d.array_job_id != 0
     AND d.array_job_id != d.id
     AND NOT EXISTS (SELECT 1 FROM jobs t WHERE t.array_job_id = d.array_job_id
                                            AND t.array_job_id != 0 AND t.final = 0)))sql";
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare forget specs");
  }
  sqlite3_bind_int64(stmt, 1, specs_forgotten_before_);
  sqlite3_bind_int64(stmt, 2, done_before);
  const int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return SqliteError(db_, "forget specs");
  specs_forgotten_before_ = std::max(specs_forgotten_before_, done_before);
  return absl::OkStatus();
}

void SqliteJobStore::ReleaseMemory() {
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    sqlite3_db_release_memory(db_);
  }
  std::lock_guard<std::mutex> lock(read_mu_);
  sqlite3_db_release_memory(read_db_);
}

absl::StatusOr<std::string> SqliteJobStore::LoadSpec(uint64_t id) {
  std::lock_guard<std::mutex> lock(read_mu_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(read_db_, "SELECT spec FROM job_specs WHERE id = ?1", -1, &stmt,
                         nullptr) != SQLITE_OK) {
    return SqliteError(read_db_, "prepare load spec");
  }
  sqlite3_bind_int64(stmt, 1, static_cast<int64_t>(id));
  const int rc = sqlite3_step(stmt);
  absl::StatusOr<std::string> out = absl::NotFoundError(absl::StrCat("no spec for JobId=", id));
  if (rc == SQLITE_ROW) {
    out = std::string(static_cast<const char*>(sqlite3_column_blob(stmt, 0)),
                      static_cast<size_t>(sqlite3_column_bytes(stmt, 0)));
  } else if (rc != SQLITE_DONE) {
    out = SqliteError(read_db_, "load spec");
  }
  sqlite3_finalize(stmt);
  return out;
}

absl::StatusOr<uint64_t> SqliteJobStore::MaxJobId() {
  std::lock_guard<std::mutex> lock(db_mu_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT COALESCE(MAX(id), 0) FROM jobs", -1, &stmt, nullptr) !=
      SQLITE_OK) {
    return SqliteError(db_, "prepare max id");
  }
  uint64_t max_id = 0;
  if (sqlite3_step(stmt) == SQLITE_ROW)
    max_id = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
  sqlite3_finalize(stmt);
  return max_id;
}

absl::Status SqliteJobStore::PutRecordLocked(const RecordRow& record) {
  const std::string& kind = record.kind;
  const std::string& key = record.key;
  const std::string& blob = record.blob;
  const char* sql = blob.empty()
                        ? "DELETE FROM records WHERE kind = ?1 AND key = ?2"
                        : "INSERT OR REPLACE INTO records (kind, key, blob) VALUES (?1, ?2, ?3)";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare record");
  }
  sqlite3_bind_text(stmt, 1, kind.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, key.c_str(), -1, SQLITE_TRANSIENT);
  if (!blob.empty()) {
    sqlite3_bind_blob(stmt, 3, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  }
  const int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return SqliteError(db_, absl::StrCat("save ", kind, " ", key));
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, std::string>> SqliteJobStore::LoadRecords(
    const std::string& kind) {
  std::lock_guard<std::mutex> lock(db_mu_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT key, blob FROM records WHERE kind = ?1", -1, &stmt,
                         nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare load records");
  }
  sqlite3_bind_text(stmt, 1, kind.c_str(), -1, SQLITE_TRANSIENT);
  std::map<std::string, std::string> records;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char* key = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    const char* data = static_cast<const char*>(sqlite3_column_blob(stmt, 1));
    records[key ? key : ""] = std::string(data ? data : "", sqlite3_column_bytes(stmt, 1));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return SqliteError(db_, absl::StrCat("load ", kind));
  return records;
}

absl::StatusOr<std::vector<std::string>> SqliteJobStore::LoadRecordRange(const std::string& kind,
                                                                         const std::string& from,
                                                                         const std::string& to) {
  std::lock_guard<std::mutex> lock(read_mu_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(read_db_,
                         "SELECT blob FROM records WHERE kind = ?1 AND key >= ?2 AND key < ?3 "
                         "ORDER BY key",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(read_db_, "prepare load record range");
  }
  sqlite3_bind_text(stmt, 1, kind.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, from.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 3, to.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<std::string> blobs;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char* data = static_cast<const char*>(sqlite3_column_blob(stmt, 0));
    blobs.emplace_back(data ? data : "", sqlite3_column_bytes(stmt, 0));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return SqliteError(read_db_, absl::StrCat("load ", kind, " range"));
  return blobs;
}

}  // namespace skiff::ctld
