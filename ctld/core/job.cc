#include "ctld/core/job.h"

#include <algorithm>

#include "common/checked_math.h"

namespace skiff::ctld {

const char* JobBaseStateName(const Job& job) {
  switch (job.state) {
    case JobState::kConfiguring:
      return "RUNNING";
    case JobState::kCompleting:
      return JobStateName(job.final_state);
    default:
      return JobStateName(job.state);
  }
}

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kPending:
      return "PENDING";
    case JobState::kConfiguring:
      return "CONFIGURING";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kCompleting:
      return "COMPLETING";
    case JobState::kSuspended:
      return "SUSPENDED";
    case JobState::kCompleted:
      return "COMPLETED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
    case JobState::kTimeout:
      return "TIMEOUT";
    case JobState::kNodeFail:
      return "NODE_FAIL";
    case JobState::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case JobState::kPreempted:
      return "PREEMPTED";
    case JobState::kDeadline:
      return "DEADLINE";
  }
  return "UNKNOWN";
}

bool HoldsResources(JobState state) {
  return state == JobState::kConfiguring || state == JobState::kRunning ||
         state == JobState::kSuspended;
}

bool IsFinal(JobState state) {
  switch (state) {
    case JobState::kPending:
    case JobState::kConfiguring:
    case JobState::kRunning:
    case JobState::kCompleting:
    case JobState::kSuspended:
      return false;
    case JobState::kCompleted:
    case JobState::kFailed:
    case JobState::kCancelled:
    case JobState::kTimeout:
    case JobState::kNodeFail:
    case JobState::kOutOfMemory:
    case JobState::kPreempted:
    case JobState::kDeadline:
      return true;
  }
  return true;  // not a JobState (a corrupt record): never scheduled again
}

int64_t JobRequest::TotalCpus() const { return SaturatingMul<int64_t>(ntasks, cpus_per_task); }

int JobRequest::CpusPerNode() const {
  const int64_t nodes = num_nodes > 0 ? num_nodes : 1;
  const int64_t total = TotalCpus();
  return SaturatingCast<int>(total / nodes + (total % nodes != 0 ? 1 : 0));
}

int JobRequest::MinCpusPerNode() const { return std::max({1, cpus_per_task, min_cpus_per_node}); }

int JobRequest::MaxNodes() const {
  int most = max_nodes > 0 ? max_nodes : (nodes_given ? num_nodes : std::max(num_nodes, ntasks));
  if (spread_job) most = std::max(most, ntasks);
  if (!overcommit) most = std::min(most, std::max(ntasks, 1));
  return std::max(most, num_nodes);
}

int64_t Job::AllocCpus() const {
  int64_t total = 0;
  for (int cpus : cpus_by_node) total += cpus;
  return total;
}

uint64_t Job::AllocMemMb() const {
  uint64_t total = 0;
  for (uint64_t mem : mem_by_node_mb) total += mem;
  return total;
}

uint64_t JobRequest::MemPerNodeMb() const {
  if (mem_per_node_mb > 0) return mem_per_node_mb;
  return SaturatingMul<uint64_t>(mem_per_cpu_mb, static_cast<uint64_t>(std::max(0, CpusPerNode())));
}

}  // namespace skiff::ctld
