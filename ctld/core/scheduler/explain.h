// Why a pending job waits, in plain words, and what would let it start sooner:
// Skiff's `squeue --explain JOBID` (beyond Slurm, which gives a reason code and
// an estimate). The paragraph names the reason, what the job asks for, the
// running jobs that hold the nodes it could use and until when, when it would
// start if nothing ahead of it in the queue took them first (EarliestStart),
// and the changes that would start it sooner: fewer GPUs per node, another GPU
// type, another partition it may use.
//
// Pure: no clock (`now` is an argument), no I/O; `format_time` turns a unix
// time into the caller's text (the command shows local time).
#ifndef SKIFF_CTLD_CORE_SCHEDULER_EXPLAIN_H_
#define SKIFF_CTLD_CORE_SCHEDULER_EXPLAIN_H_

#include <cstdint>
#include <functional>
#include <string>

#include "ctld/core/scheduler/types.h"

namespace skiff::ctld {

struct ExplainRequest {
  const ClusterView* view = nullptr;  // the cluster and its running jobs
  PendingJob job;                     // the pending job, as the scheduler sees it
  std::string name;                   // the job's name
  std::string reason;                 // the last pass's (Job::reason): "Resources", ...
  std::string reason_detail;          // its words when it has them ("" = none)
  int64_t now = 0;
  std::function<std::string(int64_t)> format_time;
};

std::string ExplainPending(const ExplainRequest& request);

// "Resources" -> "the nodes it could use are busy", ... ("" for a reason with
// no plain words: the paragraph then quotes the reason alone).
std::string PlainReason(const std::string& reason);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_SCHEDULER_EXPLAIN_H_
