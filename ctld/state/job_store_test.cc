#include "ctld/state/job_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "ctld/state/job_record.h"

namespace skiff::ctld {
namespace {

std::string DbPath(const std::string& name) {
  return std::string(getenv("TEST_TMPDIR")) + "/" + name + ".db";
}

Job MakeJob(uint64_t id, JobState state, uint64_t version) {
  Job job;
  job.id = id;
  job.state = state;
  job.version = version;
  job.user_name = "alice";
  job.name = "train";
  job.request.partition = "gpu";
  job.request.gpus_per_node = 2;
  job.spec_blob = std::string("\0binary\xff", 8);
  job.nodes = {"n3"};
  job.gpu_indices = {0, 1};
  job.gpus_by_node = {{0, 1}};
  return job;
}

TEST(SqliteJobStore, SavedJobsSurviveReopenWithEveryField) {
  const std::string path = DbPath("reopen");
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Job job = MakeJob(1, JobState::kRunning, 3);
    job.alloc_tres = RunTres(1, 0, 1, 1, {{"a100", 2}});
    job.request.shares_per_node = 3;  // not with GPUs at submit; here, every field
    job.request.share_kind = GpuShareKind::kMps;
    job.shares_by_node = {{1, 3}};
    ASSERT_TRUE((*store)->Save({job}).ok());
  }
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  const Job& job = (*jobs)[0];
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.version, 3u);
  EXPECT_EQ(job.spec_blob, std::string("\0binary\xff", 8));
  EXPECT_EQ(job.gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(job.gpus_by_node, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_EQ(job.request.gpus_per_node, 2);
  EXPECT_EQ(job.request.shares_per_node, 3);
  EXPECT_EQ(job.request.share_kind, GpuShareKind::kMps);
  EXPECT_EQ(job.shares_by_node, (std::vector<GpuShare>{{1, 3}}));
  EXPECT_EQ(job.alloc_tres, RunTres(1, 0, 1, 1, {{"a100", 2}}));
  EXPECT_EQ(*(*store)->MaxJobId(), 1u);
}

// --tmp, -B, -s, -k, -L and --prefer survive a restart of ctld (issue 49).
TEST(SqliteJobStore, TmpDiskOversubscribeNoKillAndLicensesSurviveTheRecord) {
  Job job = MakeJob(1, JobState::kRunning, 1);
  job.request.licenses_text = "matlab:2,fluent";
  job.request.licenses = {{"matlab", 2}, {"fluent", 1}};
  job.request.prefer = {"a100", "ib"};
  job.request.min_tmp_disk_mb = 10240;
  job.request.min_topology = {2, 4, 1};
  job.request.oversubscribe = true;
  job.no_kill = true;
  const Job back = FromRecord(ToRecord(job));
  EXPECT_EQ(back.request.min_tmp_disk_mb, 10240u);
  EXPECT_EQ(back.request.min_topology, (NodeTopology{2, 4, 1}));
  EXPECT_TRUE(back.request.oversubscribe);
  EXPECT_TRUE(back.no_kill);
  EXPECT_EQ(back.request.licenses_text, "matlab:2,fluent");
  EXPECT_EQ(back.request.licenses, job.request.licenses);
  EXPECT_EQ(back.request.prefer, job.request.prefer);
  const Job plain = FromRecord(ToRecord(MakeJob(2, JobState::kPending, 1)));
  EXPECT_EQ(plain.request.min_tmp_disk_mb, 0u);
  EXPECT_FALSE(plain.request.min_topology.asked());
  EXPECT_FALSE(plain.request.oversubscribe);
  EXPECT_FALSE(plain.no_kill);
  EXPECT_TRUE(plain.request.licenses.empty());
}

mode_t ModeOf(const std::string& path) {
  struct stat st = {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Every job's script and environment is in the database: it and the files
// SQLite keeps beside it are private whatever the umask, and a database an
// older ctld left readable is narrowed when opened.
TEST(SqliteJobStore, AJobsContainerSurvivesReopen) {
  const std::string path = DbPath("container");
  Job image = MakeJob(1, JobState::kPending, 1);
  image.request.container.image = "nvcr.io#nvidia/pytorch:24.01-py3";
  image.request.container.mounts = {"/data:/data:ro+rprivate", "./out:/out"};
  image.request.container.workdir = "/workspace";
  image.request.container.env = {"NCCL_DEBUG"};
  image.request.container.name = "torch:create";
  image.request.container.remap_root = true;
  image.request.container.no_mount_home = true;
  Job bundle = MakeJob(2, JobState::kRunning, 1);
  bundle.request.container.bundle = "/srv/oci/alpine";
  Job plain = MakeJob(3, JobState::kPending, 1);
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Save({image, bundle, plain}).ok());
  }
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 3u);
  std::sort(jobs->begin(), jobs->end(), [](const Job& a, const Job& b) { return a.id < b.id; });
  EXPECT_EQ((*jobs)[0].request.container, image.request.container);
  EXPECT_EQ((*jobs)[1].request.container, bundle.request.container);
  EXPECT_TRUE((*jobs)[2].request.container.IsEmpty());
  // The record itself: nothing stored for a job without one.
  EXPECT_FALSE(ToRecord(plain).has_container());
  EXPECT_EQ(FromRecord(ToRecord(image)).request.container, image.request.container);
}

TEST(SqliteJobStore, TheDatabaseAndItsWalAndShmArePrivateWhateverTheUmask) {
  const std::string path = DbPath("private");
  const mode_t old_umask = umask(0);
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Save({MakeJob(1, JobState::kRunning, 1)}).ok());
    EXPECT_EQ(ModeOf(path), 0600u);
    EXPECT_EQ(ModeOf(path + "-wal"), 0600u);
    EXPECT_EQ(ModeOf(path + "-shm"), 0600u);
  }
  umask(old_umask);

  const std::string older = DbPath("older");
  ASSERT_EQ(close(open(older.c_str(), O_CREAT | O_WRONLY, 0644)), 0);
  ASSERT_EQ(chmod(older.c_str(), 0644), 0);
  ASSERT_EQ(close(open((older + "-wal").c_str(), O_CREAT | O_WRONLY, 0644)), 0);
  ASSERT_EQ(chmod((older + "-wal").c_str(), 0644), 0);
  auto store = SqliteJobStore::Open(older);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(ModeOf(older), 0600u);
  EXPECT_EQ(ModeOf(older + "-wal"), 0600u);
}

TEST(SqliteJobStore, OlderVersionNeverOverwritesNewer) {
  auto store = SqliteJobStore::Open(DbPath("versions"));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Save({MakeJob(5, JobState::kRunning, 4)}).ok());
  ASSERT_TRUE((*store)->Save({MakeJob(5, JobState::kPending, 2)}).ok());
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].state, JobState::kRunning);
}

TEST(SqliteJobStore, LoadsActiveAndRecentlyFinishedOnly) {
  auto store = SqliteJobStore::Open(DbPath("active"));
  ASSERT_TRUE(store.ok());
  Job old_done = MakeJob(1, JobState::kCompleted, 1);
  old_done.end_time = 100;
  Job recent_done = MakeJob(2, JobState::kFailed, 1);
  recent_done.end_time = 1000;
  Job pending = MakeJob(3, JobState::kPending, 1);
  ASSERT_TRUE((*store)->Save({old_done, recent_done, pending}).ok());
  auto jobs = (*store)->LoadActive(500);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, 2u);
  EXPECT_EQ((*jobs)[1].id, 3u);
  EXPECT_EQ(*(*store)->MaxJobId(), 3u);
}

TEST(SqliteJobStore, QueriesByIdArrayUserAndWindowWithoutSpecs) {
  auto store = SqliteJobStore::Open(DbPath("query"));
  ASSERT_TRUE(store.ok());
  Job old_done = MakeJob(1, JobState::kCompleted, 1);
  old_done.end_time = 100;
  old_done.uid = 1000;
  Job task1 = MakeJob(2, JobState::kFailed, 1);
  task1.end_time = 1000;
  task1.array_job_id = 2;
  task1.array_task_id = 1;
  Job task2 = MakeJob(3, JobState::kPending, 1);
  task2.array_job_id = 2;
  task2.array_task_id = 2;
  task2.uid = 1000;
  ASSERT_TRUE((*store)->Save({old_done, task1, task2}).ok());

  auto ids = [](const absl::StatusOr<std::vector<Job>>& jobs) {
    std::vector<uint64_t> out;
    for (const Job& job : *jobs) out.push_back(job.id);
    return out;
  };
  auto by_id = (*store)->QueryJobs({{1}, {}, 0});
  ASSERT_TRUE(by_id.ok()) << by_id.status();
  EXPECT_EQ(ids(by_id), (std::vector<uint64_t>{1}));
  EXPECT_TRUE((*by_id)[0].spec_blob.empty());
  EXPECT_EQ(ids((*store)->QueryJobs({{2}, {}, 0})), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(ids((*store)->QueryJobs({{}, {}, 500})), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(ids((*store)->QueryJobs({{}, {1000}, 0})), (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(ids((*store)->QueryJobs({{}, {1000}, 500})), (std::vector<uint64_t>{3}));
  EXPECT_TRUE(ids((*store)->QueryJobs({{99}, {}, 0})).empty());
}

TEST(SqliteJobStore, SpecsAreKeptUntilForgottenAndRecordsStayAfter) {
  const std::string path = DbPath("specs");
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  Job done = MakeJob(1, JobState::kCompleted, 1);
  done.end_time = 100;
  Job running = MakeJob(2, JobState::kRunning, 1);
  ASSERT_TRUE((*store)->Save({done, running}).ok());
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].spec_blob, done.spec_blob);

  ASSERT_TRUE((*store)->ForgetSpecs(200).ok());
  jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_TRUE((*jobs)[0].spec_blob.empty());           // finished before 200: forgotten
  EXPECT_EQ((*jobs)[1].spec_blob, running.spec_blob);  // still running: kept
  EXPECT_EQ((*jobs)[0].name, "train");                 // the record itself stays
}

TEST(SqliteJobStore, AnArraysFirstTaskKeepsItsSpecRowUntilTheLastTaskIsDone) {
  auto store = SqliteJobStore::Open(DbPath("array_specs"));
  ASSERT_TRUE(store.ok());
  // Tasks 10..12 of array 10; the first task's row holds the array's payload.
  Job first = MakeJob(10, JobState::kCompleted, 1);
  first.array_job_id = 10;
  first.end_time = 100;
  first.spec_blob = "first-row";
  Job second = MakeJob(11, JobState::kCompleted, 1);
  second.array_job_id = 10;
  second.end_time = 100;
  second.spec_blob = "light";
  Job third = MakeJob(12, JobState::kPending, 1);
  third.array_job_id = 10;
  third.spec_blob = "light";
  ASSERT_TRUE((*store)->Save({first, second, third}).ok());
  EXPECT_EQ(*(*store)->LoadSpec(10), "first-row");
  EXPECT_TRUE(absl::IsNotFound((*store)->LoadSpec(99).status()));

  ASSERT_TRUE((*store)->ForgetSpecs(200).ok());
  EXPECT_EQ(*(*store)->LoadSpec(10), "first-row");  // task 12 still needs the payload
  EXPECT_FALSE((*store)->LoadSpec(11).ok());
  EXPECT_TRUE((*store)->LoadSpec(12).ok());

  third.state = JobState::kCompleted;
  third.end_time = 300;
  third.version = 2;
  ASSERT_TRUE((*store)->Save({third}).ok());
  ASSERT_TRUE((*store)->ForgetSpecs(400).ok());
  EXPECT_FALSE((*store)->LoadSpec(10).ok());  // the array's last task is done
  EXPECT_FALSE((*store)->LoadSpec(12).ok());
}

// ForgetSpecs asks, for each ended task, whether a task of its array is not
// final: with an index on the array id alone that read every task of the array
// each time (quadratic: 5 s for 10,000 tasks, with the store held).
TEST(SqliteJobStore, ArraysAreIndexedByIdAndFinalnessAndTheOldIndexGoes) {
  const std::string path = DbPath("array_index");
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE INDEX jobs_array ON jobs(array_job_id) WHERE array_job_id != 0",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);  // as a store from before had it
  sqlite3_close(db);
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok());
  }
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string plan;
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "EXPLAIN QUERY PLAN SELECT 1 FROM jobs t WHERE t.array_job_id = 7 "
                               "AND t.array_job_id != 0 AND t.final = 0",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    plan += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
    plan += "\n";
  }
  sqlite3_finalize(stmt);
  int old_index = -1;
  ASSERT_EQ(
      sqlite3_exec(
          db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'jobs_array'",
          [](void* out, int, char** values, char**) {
            *static_cast<int*>(out) = atoi(values[0]);
            return 0;
          },
          &old_index, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  EXPECT_NE(plan.find("jobs_array_final (array_job_id=? AND final=?)"), std::string::npos) << plan;
  EXPECT_EQ(old_index, 0);
}

TEST(SqliteJobStore, OpensADatabaseFromBeforeArrayColumnsAndSpecTable) {
  const std::string path = DbPath("old_schema");
  {
    // The first schema: no array_job_id column, the spec inside the record.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE jobs (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,"
                           " state INTEGER NOT NULL, final INTEGER NOT NULL, uid INTEGER NOT NULL,"
                           " user_name TEXT NOT NULL, name TEXT NOT NULL, partition TEXT NOT NULL,"
                           " submit_time INTEGER NOT NULL, start_time INTEGER NOT NULL,"
                           " end_time INTEGER NOT NULL, exit_code INTEGER NOT NULL,"
                           " record BLOB NOT NULL);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    std::string blob = ToRecord(MakeJob(7, JobState::kPending, 1)).SerializeAsString();
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "INSERT INTO jobs VALUES (7, 1, 0, 0, 0, 'alice', 'train', 'gpu',"
                                 " 0, 0, 0, 0, ?1)",
                                 -1, &stmt, nullptr),
              SQLITE_OK);
    sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].spec_blob, std::string("\0binary\xff", 8));
  Job task = MakeJob(8, JobState::kPending, 1);
  task.array_job_id = 7;
  ASSERT_TRUE((*store)->Save({task}).ok());
  auto array = (*store)->QueryJobs({{7}, {}, 0});
  ASSERT_TRUE(array.ok()) << array.status();
  EXPECT_EQ(array->size(), 2u);
}

TEST(SqliteJobStore, SumsAllocatedCpuSecondsInsideTheWindow) {
  auto store = SqliteJobStore::Open(DbPath("usage"));
  ASSERT_TRUE(store.ok());
  Job before = MakeJob(1, JobState::kCompleted, 1);  // ran 0-100: outside
  before.start_time = 1;
  before.end_time = 100;
  Job across = MakeJob(2, JobState::kCompleted, 1);  // 2 CPUs, 150-300: 200-220 inside
  across.start_time = 150;
  across.end_time = 300;
  across.cpus_by_node = {2};
  across.account = "research";
  Job running = MakeJob(3, JobState::kRunning, 1);  // 1 CPU since 180: to now=250, clipped at 220
  running.start_time = 180;
  running.cpus_by_node = {1};
  running.account = "research";
  Job pending = MakeJob(4, JobState::kPending, 1);
  pending.nodes.clear();
  ASSERT_TRUE((*store)->Save({before, across, running, pending}).ok());
  auto sums = (*store)->SumUsage(200, 220, 250);
  ASSERT_TRUE(sums.ok()) << sums.status();
  ASSERT_EQ(sums->size(), 1u);
  EXPECT_EQ((*sums)[0].account, "research");
  EXPECT_EQ((*sums)[0].user, "alice");
  EXPECT_DOUBLE_EQ((*sums)[0].cpu_seconds, 2 * 20 + 1 * 20);
}

TEST(SqliteJobStore, SumsEveryTresOfEachRunInsideTheWindow) {
  auto store = SqliteJobStore::Open(DbPath("tres_usage"));
  ASSERT_TRUE(store.ok());
  // 2 GPUs (typed a100) for 90 s, all inside the window: 180 GPU-seconds.
  Job gpu = MakeJob(1, JobState::kCompleted, 1);
  gpu.start_time = 1000;
  gpu.end_time = 1090;
  gpu.cpus_by_node = {2};
  gpu.account = "lab";
  gpu.alloc_tres = RunTres(2, 1024, 1, 22, {{"a100", 2}});
  // The same shape again, half inside: one more 60 s at the same counts.
  Job again = gpu;
  again.id = 2;
  again.start_time = 3540;
  again.end_time = 3660;
  // Stored before alloc_tres existed: its CPUs alone count.
  Job old = MakeJob(3, JobState::kCompleted, 1);
  old.start_time = 1000;
  old.end_time = 1010;
  old.cpus_by_node = {4};
  old.account = "lab";
  ASSERT_TRUE((*store)->Save({gpu, again, old}).ok());
  auto sums = (*store)->SumUsage(0, 3600, 4000);
  ASSERT_TRUE(sums.ok()) << sums.status();
  ASSERT_EQ(sums->size(), 1u);
  const TresCounts& tres = (*sums)[0].tres_seconds;
  EXPECT_DOUBLE_EQ(tres.at("gres/gpu"), 2 * 150);
  EXPECT_DOUBLE_EQ(tres.at("gres/gpu:a100"), 2 * 150);
  EXPECT_DOUBLE_EQ(tres.at("billing"), 22 * 150);
  EXPECT_DOUBLE_EQ(tres.at("mem"), 1024 * 150);
  EXPECT_DOUBLE_EQ(tres.at("node"), 150);
  EXPECT_DOUBLE_EQ(tres.at("cpu"), 2 * 150 + 4 * 10);
  EXPECT_DOUBLE_EQ((*sums)[0].cpu_seconds, 2 * 150 + 4 * 10);
}

TEST(SqliteJobStore, ConcurrentSaversAllLand) {
  auto store = SqliteJobStore::Open(DbPath("concurrent"));
  ASSERT_TRUE(store.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        EXPECT_TRUE((*store)->Save({MakeJob(t * 100 + i + 1, JobState::kPending, 1)}).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 400u);
}

TEST(SqliteJobStore, AFailedWriteFailsEveryWriteQueuedAfterItUntilResumed) {
  const std::string path = DbPath("in_order");
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  // Job 13's row cannot be written (a trigger in the file plays a full disk).
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TRIGGER refuse_13 BEFORE INSERT ON jobs WHEN NEW.id = 13 "
                           "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  EXPECT_TRUE((*store)->SaveInOrder({MakeJob(12, JobState::kPending, 1)}, {})->Wait().ok());
  // Queued back to back: 14 and the empty marker were decided on top of 13.
  auto failing = (*store)->SaveInOrder({MakeJob(13, JobState::kPending, 1)}, {});
  auto later = (*store)->SaveInOrder({MakeJob(14, JobState::kPending, 1)}, {});
  auto marker = (*store)->SaveInOrder({}, {});
  const absl::Status failed = failing->Wait();
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("database or disk is full"), std::string::npos) << failed;
  EXPECT_FALSE(later->Wait().ok());
  EXPECT_FALSE(marker->Wait().ok());
  // Until Resume, nothing is written, whoever asks.
  EXPECT_FALSE((*store)->Save({MakeJob(15, JobState::kPending, 1)}).ok());
  (*store)->Resume();
  EXPECT_TRUE((*store)->Save({MakeJob(16, JobState::kPending, 1)}).ok());
  EXPECT_TRUE((*store)->SaveInOrder({}, {})->Wait().ok());
  auto jobs = (*store)->LoadActive(0);
  ASSERT_TRUE(jobs.ok());
  std::vector<uint64_t> ids;
  for (const Job& job : *jobs) ids.push_back(job.id);
  EXPECT_EQ(ids, (std::vector<uint64_t>{12, 16}));
}

TEST(SqliteJobStore, UnopenablePathIsAClearError) {
  auto store = SqliteJobStore::Open("/nonexistent-dir-for-test/x/ctld.db");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/nonexistent-dir-for-test/x/ctld.db"),
            absl::string_view::npos);
}

TEST(SqliteJobStoreTest, RecordsPutReplaceDeleteAndSurviveReopen) {
  const std::string path = DbPath("records");
  {
    auto store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Save({}, {{"qos", "normal", "a"}, {"qos", "high", "b"}}).ok());
    ASSERT_TRUE((*store)->Save({}, {{"qos", "high", "c"}, {"other", "x", "y"}}).ok());
    ASSERT_TRUE((*store)->Save({}, {{"qos", "normal", ""}}).ok());
  }
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto records = (*store)->LoadRecords("qos");
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(*records, (std::map<std::string, std::string>{{"high", "c"}}));
}

TEST(SqliteJobStoreTest, RecordRangeReadsOneKindsKeysInOrder) {
  auto store = SqliteJobStore::Open(DbPath("record-range"));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)
                  ->Save({}, {{"step", "7.2", "c"},
                              {"step", "7.1", "b"},
                              {"step", "8.0", "d"},
                              {"step", "6.9", "a"},
                              {"other", "7.5", "x"}})
                  .ok());
  auto blobs = (*store)->LoadRecordRange("step", "7.", "7/");
  ASSERT_TRUE(blobs.ok());
  EXPECT_EQ(*blobs, (std::vector<std::string>{"b", "c"}));
}

}  // namespace
}  // namespace skiff::ctld
