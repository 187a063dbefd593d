// The plain requests and reports lifecycle events take: what a node daemon says
// about a job, scancel's selection, scontrol update's fields, and who asks.
// The rpc/ edge converts protobuf into these; the core never sees protobuf.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_REQUESTS_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_REQUESTS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
};

// What a node daemon says about one of its jobs.
struct NodeRunReport {
  uint64_t job_id = 0;
  bool finished = false;
  int exit_code = 0;
  int exit_signal = 0;
  std::string failure;  // the job could not be launched: why
  bool fenced = false;  // its shepherd killed it when the node's lease ran out
  int run = 0;          // restart_count + 1 of the run that ended; 0 = unknown
  // The kernel killed some of its processes for memory (its cgroup): OUT_OF_MEMORY.
  bool out_of_memory = false;
  // The node's Prolog failed (the job never started: requeued held, the node
  // drained) or its Epilog did (the node drained); what it said.
  std::string prolog_error;
  std::string epilog_error;
  // The Epilog failed on other nodes of the job (node, what it said): each drains.
  std::vector<std::pair<std::string, std::string>> node_epilog_errors;
  BatchUsage usage;            // what the batch script used; usage.measured false: unknown
  std::vector<GpuUsage> gpus;  // the GPUs it held, sampled (node: left empty)
};

// A job named on a command line: "42", or "42_7" (task 7 of array 42). A bare
// id that is an array's id names every task of the array.
struct JobRef {
  uint64_t job_id = 0;
  int32_t array_task_id = -1;  // -1 = the job (or whole array) itself
};

// scancel's selection.
struct CancelSpec {
  std::vector<JobRef> jobs;  // empty = all the filters select
  std::string user;          // user name filter
  std::string name;
  std::vector<JobState> states;
  std::vector<std::string> partitions;
  int signal = 0;           // 0 = cancel
  bool batch_only = false;  // -b: the batch shell alone (else the steps)
  bool full = false;        // -f: the batch shell, its children and the steps
  bool hurry = false;       // --hurry: no burst-buffer stage-out
};

struct CancelOutcome {
  uint64_t job_id = 0;
  absl::Status status;
};

// scontrol update JobId=... / hold / release. Unset fields stay as they are.
struct JobUpdate {
  uint64_t job_id = 0;
  std::optional<bool> held;
  bool user_hold = false;
  std::optional<int64_t> time_limit;
  std::optional<std::string> partition;
  std::optional<std::string> qos;
  std::optional<std::string> name;
  std::optional<std::string> account;
  std::optional<std::string> comment;
  std::optional<std::string> reservation;  // ReservationName=; "" = none
  std::optional<int> min_nodes;
  // With it, job_id is an array's id and only this task changes; without it,
  // an array's id changes every task not yet finished.
  std::optional<int32_t> array_task_id;
  std::optional<int32_t> nice;
  std::optional<int64_t> begin_time;
  std::optional<std::vector<std::string>> features;
  std::optional<std::string> licenses;  // -L syntax; "" = none
  std::optional<std::vector<std::string>> prefer;
  std::optional<std::vector<std::string>> exclude;
  std::optional<std::vector<std::string>> nodelist;
  std::optional<int64_t> priority;
  std::optional<int32_t> array_task_throttle;
  enum class Requeue { kNone, kRequeue, kRequeueHold };
  Requeue requeue = Requeue::kNone;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_REQUESTS_H_
