#include "ctld/state/job_store.h"

#include <gtest/gtest.h>

#include <thread>

namespace skiff {
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
    ASSERT_TRUE((*store)->Save({MakeJob(1, JobState::kRunning, 3)}).ok());
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
  EXPECT_EQ(*(*store)->MaxJobId(), 1u);
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
    ASSERT_TRUE((*store)->PutRecord("qos", "normal", "a").ok());
    ASSERT_TRUE((*store)->PutRecord("qos", "high", "b").ok());
    ASSERT_TRUE((*store)->PutRecord("qos", "high", "c").ok());
    ASSERT_TRUE((*store)->PutRecord("other", "x", "y").ok());
    ASSERT_TRUE((*store)->PutRecord("qos", "normal", "").ok());
  }
  auto store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto records = (*store)->LoadRecords("qos");
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(*records, (std::map<std::string, std::string>{{"high", "c"}}));
}

}  // namespace
}  // namespace skiff
