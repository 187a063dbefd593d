#include "ctld/core/job.h"

namespace skiff {

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

const char* JobStateCode(JobState state) {
  switch (state) {
    case JobState::kPending:
      return "PD";
    case JobState::kConfiguring:
      return "CF";
    case JobState::kRunning:
      return "R";
    case JobState::kCompleting:
      return "CG";
    case JobState::kSuspended:
      return "S";
    case JobState::kCompleted:
      return "CD";
    case JobState::kFailed:
      return "F";
    case JobState::kCancelled:
      return "CA";
    case JobState::kTimeout:
      return "TO";
    case JobState::kNodeFail:
      return "NF";
    case JobState::kOutOfMemory:
      return "OOM";
    case JobState::kPreempted:
      return "PR";
    case JobState::kDeadline:
      return "DL";
  }
  return "??";
}

bool IsFinal(JobState state) {
  switch (state) {
    case JobState::kPending:
    case JobState::kConfiguring:
    case JobState::kRunning:
    case JobState::kCompleting:
    case JobState::kSuspended:
      return false;
    default:
      return true;
  }
}

int JobRequest::CpusPerNode() const {
  const int nodes = num_nodes > 0 ? num_nodes : 1;
  const int total = ntasks * cpus_per_task;
  return (total + nodes - 1) / nodes;
}

uint64_t JobRequest::MemPerNodeMb() const {
  if (mem_per_node_mb > 0) return mem_per_node_mb;
  return mem_per_cpu_mb * static_cast<uint64_t>(CpusPerNode());
}

}  // namespace skiff
