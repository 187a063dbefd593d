// Slurm's job families (/metrics/jobs, /metrics/jobs-users-accts) and
// Skiff's pending reasons: how slurmctld counts its jobs.
#include <algorithm>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

// /metrics/jobs and (prefixed user_ and account_) /metrics/jobs-users-accts,
// in Slurm's order with its HELP texts.
constexpr MetricRow kJobRows[] = {
    {"jobs_bootfail", kBootFail, "Number of jobs in BootFail state"},
    {"jobs_cancelled", kCancelled, "Number of jobs in Cancelled state"},
    {"jobs_completed", kCompleted, "Number of jobs in Completed state"},
    {"jobs_completing", kCompletingJobs, "Number of jobs in Completing state"},
    {"jobs_configuring", kConfiguring, "Number of jobs in Configuring state"},
    {"jobs_cpus_alloc", kCpusAlloc, "Total number of Cpus allocated by jobs"},
    {"jobs_deadline", kDeadline, "Number of jobs in Deadline state"},
    {"jobs_expediting", kExpediting, "Number of jobs in Expediting state"},
    {"jobs_failed", kFailed, "Number of jobs in Failed state"},
    {"jobs_fed_requeued", kFedRequeued, "Number of jobs requeued in a federation"},
    {"jobs_finished", kFinished, "Number of finished jobs"},
    {"jobs_hold", kHold, "Number of jobs in Hold state"},
    {"jobs", kJobCount, "Total number of jobs"},
    {"jobs_memory_alloc", kMemoryAlloc, "Total memory bytes allocated by jobs"},
    {"jobs_node_failed", kNodeFailed, "Number of jobs in Node Failed state"},
    {"jobs_nodes_alloc", kNodesAlloc, "Total number of nodes allocated by jobs"},
    {"jobs_outofmemory", kOutOfMemory, "Number of jobs in Out of Memory state"},
    {"jobs_pending", kPending, "Number of jobs in Pending state"},
    {"jobs_powerup_node", kPowerupNode, "Number of jobs in PowerUp Node state"},
    {"jobs_preempted", kPreempted, "Number of jobs in Preempted state"},
    {"jobs_requeued", kRequeued, "Number of jobs in Requeued state"},
    {"jobs_resizing", kResizing, "Number of jobs in Resizing state"},
    {"jobs_revoked", kRevoked, "Number of jobs revoked"},
    {"jobs_running", kRunning, "Number of jobs in Running state"},
    {"jobs_signaling", kSignaling, "Number of jobs being signaled"},
    {"jobs_stageout", kStageOut, "Number of jobs in StageOut state"},
    {"jobs_started", kStarted, "Number of started jobs"},
    {"jobs_suspended", kSuspended, "Number of jobs in Suspended state"},
    {"jobs_timeout", kTimeout, "Number of jobs in Timeout state"},
};

// Held: Slurm's WAIT_HELD and WAIT_HELD_USER.
bool IsHeld(const v1::JobInfo& job) {
  return job.held() || job.state_reason() == "JobHeldUser" || job.state_reason() == "JobHeldAdmin";
}

// How many jobs a record stands for: a collapsed array's pending tasks count
// one by one, as Slurm's job_array_cnt.
double TasksOf(const v1::JobInfo& job) {
  return job.collapsed_task_ids_size() > 0 ? job.collapsed_task_ids_size() : 1;
}

}  // namespace

// Adds `job` to `c` as statistics.c's _fill_jobs_statistics and
// _statistics_part_aggregate_job do. Skiff's states map onto Slurm's base
// state and flags: CONFIGURING is RUNNING with CONFIGURING, COMPLETING a
// finished state with COMPLETING, STAGE_OUT that with STAGE_OUT too.
void CountJob(const v1::JobInfo& job, RecordTotal total, JobCounts& c) {
  const double tasks = TasksOf(job);
  const bool held = IsHeld(job);
  bool finished = true;  // Slurm's IS_JOB_FINISHED: base state past SUSPENDED
  bool completing = false;
  switch (job.state()) {
    case v1::PENDING:
      c[kPending] += tasks;
      if (held) c[kHold] += tasks;
      finished = false;
      break;
    case v1::CONFIGURING:
      ++c[kConfiguring];
      ++c[kRunning];
      finished = false;
      break;
    case v1::RUNNING:
      ++c[kRunning];
      finished = false;
      break;
    case v1::SUSPENDED:
      ++c[kSuspended];
      finished = false;
      break;
    case v1::STAGE_OUT:
      ++c[kStageOut];
      [[fallthrough]];
    case v1::COMPLETING:
      ++c[kCompletingJobs];
      completing = true;
      break;
    case v1::COMPLETED:
      ++c[kCompleted];
      break;
    case v1::CANCELLED:
      ++c[kCancelled];
      break;
    case v1::FAILED:
      ++c[kFailed];
      break;
    case v1::TIMEOUT:
      ++c[kTimeout];
      break;
    case v1::NODE_FAIL:
      ++c[kNodeFailed];
      break;
    case v1::OUT_OF_MEMORY:
      ++c[kOutOfMemory];
      break;
    case v1::PREEMPTED:
      ++c[kPreempted];
      break;
    case v1::DEADLINE:
      ++c[kDeadline];
      break;
    case v1::REQUEUED:
      ++c[kRequeued];
      finished = false;
      break;
    default:
      finished = false;
      break;
  }
  if (finished) ++c[kFinished];
  // Slurm's IS_JOB_STARTED: any base state past PENDING.
  if (job.state() != v1::PENDING && job.state() != v1::REQUEUED) ++c[kStarted];
  if (!finished || completing) ++c[kNotCompleted];
  if (job.state() == v1::RUNNING || job.state() == v1::CONFIGURING ||
      job.state() == v1::SUSPENDED) {
    c[kCpusAlloc] += job.num_cpus();
    c[kNodesAlloc] += job.num_nodes();
    c[kMemoryAlloc] += static_cast<double>(job.mem_per_node_mb()) * job.num_nodes() * kMiB;
  }
  if (job.state() == v1::PENDING) {
    // A summary carries the job's node count (its minimum) and not -N's maximum.
    const double nodes = std::max(1, job.num_nodes());
    c[kMaxJobNodes] = std::max(c[kMaxJobNodes], nodes);
    c[kMinJobNodes] = std::max(c[kMinJobNodes], nodes);
    if (!held) {
      c[kMaxJobNodesNoHold] = std::max(c[kMaxJobNodesNoHold], nodes);
      c[kMinJobNodesNoHold] = std::max(c[kMinJobNodesNoHold], nodes);
    }
    if (job.state_reason() == "PartitionNodeLimit") ++c[kWaitPartNodeLimit];
  }
  c[kJobCount] += total == RecordTotal::kTasks ? tasks : 1;
}

void AddJobMetrics(const v1::GetJobsReply& jobs, Exposition& out) {
  JobCounts counts{};
  for (const v1::JobInfo& job : jobs.jobs()) CountJob(job, RecordTotal::kTasks, counts);
  for (const MetricRow& row : kJobRows) {
    out.Gauge(absl::StrCat("slurm_", row.name), row.help, counts[row.index]);
  }
}

void AddUserAccountMetrics(const v1::GetJobsReply& jobs, Exposition& out) {
  std::map<std::string, JobCounts> users, accounts;
  for (const v1::JobInfo& job : jobs.jobs()) {
    CountJob(job, RecordTotal::kRecords, users[job.user_name()]);
    if (!job.account().empty()) CountJob(job, RecordTotal::kRecords, accounts[job.account()]);
  }
  // Family by family, each with every user's (then account's) sample.
  for (const MetricRow& row : kJobRows) {
    const std::string name = absl::StrCat("slurm_user_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (const auto& [user, counts] : users) {
      out.Gauge(name, row.help, counts[row.index], {{"username", user}});
    }
  }
  for (const MetricRow& row : kJobRows) {
    const std::string name = absl::StrCat("slurm_account_", row.name);
    out.Declare(name, row.help, MetricType::kGauge);
    for (const auto& [account, counts] : accounts) {
      out.Gauge(name, row.help, counts[row.index], {{"account", account}});
    }
  }
}

void AddPendingReasons(const v1::GetJobsReply& jobs, Exposition& out) {
  constexpr char kHelp[] = "Pending jobs (array tasks one by one) by Slurm's pending reason";
  std::map<std::string, double> by_reason;
  for (const v1::JobInfo& job : jobs.jobs()) {
    if (job.state() != v1::PENDING) continue;
    by_reason[job.state_reason().empty() ? "None" : job.state_reason()] += TasksOf(job);
  }
  out.Declare("skiff_jobs_pending", kHelp, MetricType::kGauge);
  for (const auto& [reason, count] : by_reason) {
    out.Gauge("skiff_jobs_pending", kHelp, count, {{"reason", reason}});
  }
}

}  // namespace skiff::restd::metrics_internal
