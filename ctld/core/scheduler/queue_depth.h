// Which pending jobs a scheduling pass between full passes looks at: Slurm's
// SchedulerParameters=default_queue_depth (and its per-partition
// partition_job_depth), so that a deep queue (an array of 10,000 tasks) does
// not make every pass, one per job start or end, cost as much as the queue.
//
// A limited pass takes, from each partition, its `depth` first jobs in the
// order the last pass ranked them (PriorityTier, priority, submit time, id:
// OrderQueue's order), plus every job no pass has ranked since it last changed
// (new, released, requeued, updated): they may belong anywhere in the order.
// Every `sched_interval` seconds a full pass looks at all of them (the
// defaults, Slurm's, are in SchedulerOptions).
//
// Pure: no locks, no I/O.
#ifndef SKIFF_CTLD_CORE_SCHEDULER_QUEUE_DEPTH_H_
#define SKIFF_CTLD_CORE_SCHEDULER_QUEUE_DEPTH_H_

#include <cstdint>
#include <string>
#include <vector>

namespace skiff::ctld {

struct QueueCandidate {
  // The job's partition (list) as requested, as a number: the same for jobs
  // that asked for the same one.
  int32_t partition = 0;
  int32_t tier = 0;      // the partition's PriorityTier
  int64_t priority = 0;  // as the last pass that ranked it computed
  int64_t submit_time = 0;
  uint64_t id = 0;
  bool ranked = false;  // a pass computed `priority` since the job last changed
};

// Indices into `candidates` a limited pass looks at, in increasing order.
// depth <= 0: all of them.
std::vector<size_t> WithinQueueDepth(const std::vector<QueueCandidate>& candidates, int32_t depth);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_QUEUE_DEPTH_H_
