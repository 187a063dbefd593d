#include "cli/squeue/squeue_sort.h"

#include <gtest/gtest.h>

#include <vector>

namespace skiff::cli {
namespace {

v1::JobInfo Job(uint64_t id, const std::string& partition, v1::JobState state, uint32_t priority) {
  v1::JobInfo job;
  job.set_job_id(id);
  job.set_partition(partition);
  job.set_state(state);
  job.set_priority(priority);
  return job;
}

std::vector<uint64_t> Ids(const std::vector<const v1::JobInfo*>& jobs) {
  std::vector<uint64_t> ids;
  for (const v1::JobInfo* job : jobs) ids.push_back(job->job_id());
  return ids;
}

TEST(ParseSqueueSort, ReadsSlurmsKeysSignsAndCluster) {
  absl::StatusOr<SqueueSort> sort = ParseSqueueSort("P,t,-p");
  ASSERT_TRUE(sort.ok());
  ASSERT_EQ(sort->keys.size(), 3u);
  EXPECT_EQ(sort->keys[0].field, 'P');
  EXPECT_FALSE(sort->keys[0].reverse);
  EXPECT_EQ(sort->keys[2].field, 'p');
  EXPECT_TRUE(sort->keys[2].reverse);
  EXPECT_EQ(ParseSqueueSort("-cluster,+i")->keys.size(), 2u);
  EXPECT_TRUE(ParseSqueueSort("c,f,h,n,O")->keys.empty());  // accepted, ignored
  EXPECT_EQ(ParseSqueueSort("b")->notes, std::vector<std::string>{"Invalid sort specification: b"});
}

TEST(ParseSqueueSort, ReportsTheRightmostUnknownLetterAsSlurm) {
  EXPECT_EQ(ParseSqueueSort("foo").status().message(), "Invalid sort specification: o");
  EXPECT_EQ(ParseSqueueSort("P,a").status().message(), "Invalid sort specification: a");
  EXPECT_EQ(ParseSqueueSort("q,i").status().message(), "Invalid sort specification: q");
}

TEST(SortSqueueJobs, DefaultIsPartitionThenStateThenHighestPriorityStable) {
  std::vector<v1::JobInfo> jobs = {Job(1, "gpu", v1::RUNNING, 5), Job(2, "debug", v1::RUNNING, 9),
                                   Job(3, "debug", v1::PENDING, 1), Job(4, "debug", v1::PENDING, 7),
                                   Job(5, "debug", v1::PENDING, 7)};
  std::vector<const v1::JobInfo*> order;
  for (const v1::JobInfo& job : jobs) order.push_back(&job);
  SortSqueueJobs(ParseSqueueSort(kSqueueDefaultSort)->keys, 0, &order);
  EXPECT_EQ(Ids(order), (std::vector<uint64_t>{4, 5, 3, 2, 1}));
  SortSqueueJobs(ParseSqueueSort("-i")->keys, 0, &order);
  EXPECT_EQ(Ids(order), (std::vector<uint64_t>{5, 4, 3, 2, 1}));
}

TEST(SortSqueueJobs, StartTimeSortsUnknownLastEitherWay) {
  std::vector<v1::JobInfo> jobs = {Job(1, "d", v1::PENDING, 1), Job(2, "d", v1::PENDING, 1),
                                   Job(3, "d", v1::PENDING, 1)};
  jobs[1].set_expected_start(2000);
  jobs[2].set_expected_start(1500);
  std::vector<const v1::JobInfo*> order = {&jobs[0], &jobs[1], &jobs[2]};
  SortSqueueJobs(ParseSqueueSort("S")->keys, 1000, &order);
  EXPECT_EQ(Ids(order), (std::vector<uint64_t>{3, 2, 1}));
  SortSqueueJobs(ParseSqueueSort("-S")->keys, 1000, &order);
  EXPECT_EQ(Ids(order), (std::vector<uint64_t>{2, 3, 1}));
}

}  // namespace
}  // namespace skiff::cli
