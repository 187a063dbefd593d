#include "ctld/core/scheduler/queue_depth.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace skiff::ctld {
namespace {

QueueCandidate Ranked(uint64_t id, const std::string& partition, int64_t priority) {
  static std::map<std::string, int32_t> keys;  // the names, numbered as the caller would
  QueueCandidate c;
  c.id = id;
  c.partition = keys.try_emplace(partition, static_cast<int32_t>(keys.size())).first->second;
  c.priority = priority;
  c.submit_time = 1000;
  c.ranked = true;
  return c;
}

std::vector<uint64_t> Ids(const std::vector<QueueCandidate>& candidates,
                          const std::vector<size_t>& indices) {
  std::vector<uint64_t> ids;
  for (size_t i : indices) ids.push_back(candidates[i].id);
  return ids;
}

TEST(WithinQueueDepth, AShallowQueueOrNoDepthIsWhole) {
  std::vector<QueueCandidate> queue = {Ranked(1, "a", 5), Ranked(2, "a", 9)};
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 2)), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 0)), (std::vector<uint64_t>{1, 2}));
}

TEST(WithinQueueDepth, TakesEachPartitionsFirstJobsInQueueOrder) {
  std::vector<QueueCandidate> queue = {Ranked(1, "a", 5), Ranked(2, "a", 9), Ranked(3, "a", 7),
                                       Ranked(4, "b", 1), Ranked(5, "b", 1), Ranked(6, "b", 1)};
  // a: 2 (9) and 3 (7); b: equal priorities, so the lowest ids (same submit time).
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 2)), (std::vector<uint64_t>{2, 3, 4, 5}));
  queue[5].submit_time = 10;  // submitted first
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 2)), (std::vector<uint64_t>{2, 3, 4, 6}));
  queue[0].tier = 1;  // a higher PriorityTier comes first whatever its priority
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 2)), (std::vector<uint64_t>{1, 2, 4, 6}));
}

TEST(WithinQueueDepth, JobsNoPassRankedAreAlwaysLookedAt) {
  std::vector<QueueCandidate> queue;
  for (uint64_t id = 1; id <= 10; ++id) queue.push_back(Ranked(id, "a", 100));
  queue[7].ranked = false;  // e.g. released from a hold: its priority was 0
  queue[7].priority = 0;
  queue[9].ranked = false;
  EXPECT_EQ(Ids(queue, WithinQueueDepth(queue, 3)), (std::vector<uint64_t>{1, 2, 3, 8, 10}));
}

}  // namespace
}  // namespace skiff::ctld
