#include "restd/slurmdb/jobs_json.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/accounts_usage.h"
#include "client/gpu_usage_summary.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

// Slurm's states of records that have not ended: their exit codes are not
// known yet.
bool Ended(const std::string& state) {
  static const std::set<std::string> kActive = {
      "PENDING",  "RUNNING",     "SUSPENDED",  "REQUEUED",  "REQUEUE_HOLD",
      "RESIZING", "CONFIGURING", "COMPLETING", "STAGE_OUT", "SIGNALING"};
  return !kActive.count(state);
}

// Seconds run: to the end, or to now while running, less time suspended.
int64_t Elapsed(int64_t start, int64_t end, int64_t suspended, int64_t now) {
  if (start <= 0) return 0;
  const int64_t until = end > 0 ? end : now;
  return std::max<int64_t>(0, until - start - suspended);
}

// {"seconds": s, "microseconds": us} from microseconds.
Json CpuTime(int64_t usec) {
  return {{"seconds", usec / 1000000}, {"microseconds", usec % 1000000}};
}

// The association a job ran under (assoc_short): the user's in the job's
// account for its partition, else for every partition.
Json AssociationOf(const v1::AcctJob& job, const SlurmdbJobContext& context) {
  Json association = {{"account", job.account()},
                      {"cluster", job.cluster()},
                      {"partition", ""},
                      {"user", job.user()}};
  auto found = context.assoc_ids.find(AssocKey{job.account(), job.user(), job.partition()});
  if (found != context.assoc_ids.end()) {
    association["partition"] = job.partition();
  } else {
    found = context.assoc_ids.find(AssocKey::User(job.account(), job.user()));
  }
  if (found != context.assoc_ids.end()) association["id"] = found->second;
  return association;
}

Json StepJson(const v1::AcctJob& job, const v1::AcctStep& step, const SlurmdbJobContext& context) {
  const bool ended = Ended(step.state());
  Json time = {
      {"elapsed", Elapsed(step.start_time(), step.end_time(), step.suspended(), context.now)},
      {"end", Number(step.end_time())},
      {"start", Number(step.start_time())},
      {"suspended", step.suspended()}};
  if (step.has_usage()) {
    time["user"] = CpuTime(step.user_cpu_usec());
    time["system"] = CpuTime(step.system_cpu_usec());
    time["total"] = CpuTime(step.user_cpu_usec() + step.system_cpu_usec());
  }
  Json nodes = {{"count", step.num_nodes()}, {"range", step.node_list()}, {"list", Json::Array()}};
  if (!step.node_list().empty()) {
    if (absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(step.node_list());
        names.ok()) {
      nodes["list"] = Json::Strings(*names);
    }
  }
  Json tres = {{"allocated", TresList(TresCountsOf(step.alloc_tres()))}};
  // Slurm's task usage TRES hold memory in bytes; the batch step's have the
  // job's sampled GPUs too (gres/gpumem in bytes, gres/gpuutil in percent).
  std::map<std::string, int64_t> max, average;
  if (step.has_usage()) {
    max["mem"] = step.max_rss_kb() * 1024;
    average["mem"] = step.ave_rss_kb() * 1024;
  }
  if (const client::GpuUsageSummary gpus = client::SummarizeGpuUsage(job.gpus());
      step.step_id() == "batch" && gpus.measured) {
    max["gres/gpumem"] = static_cast<int64_t>(gpus.memory_max);
    max["gres/gpuutil"] = gpus.util_max;
    average["gres/gpumem"] = static_cast<int64_t>(gpus.memory_ave);
    average["gres/gpuutil"] = gpus.util_ave;
  }
  if (!max.empty()) {
    tres["requested"] = {{"max", TresList(max)}, {"average", TresList(average)}};
  }
  return {
      {"time", std::move(time)},
      {"exit_code", ExitCode(ended, step.exit_code(), step.exit_signal())},
      {"nodes", std::move(nodes)},
      {"tasks", {{"count", step.ntasks()}}},
      {"state", Json::Array({step.state()})},
      {"step", {{"id", absl::StrCat(job.job_id(), ".", step.step_id())}, {"name", step.name()}}},
      {"tres", std::move(tres)}};
}

}  // namespace

std::map<AssocKey, uint64_t> AssocIdsOf(const v1::GetAccountsReply& accounts) {
  std::map<AssocKey, uint64_t> ids;
  for (const v1::AssocInfo& assoc : accounts.assocs()) ids[client::AssocKeyOf(assoc)] = assoc.id();
  return ids;
}

std::map<std::string, int64_t> TresCountsOf(const std::string& text) {
  std::map<std::string, int64_t> counts;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq == absl::string_view::npos || eq == 0) continue;
    const std::string name(entry.substr(0, eq));
    const absl::string_view value = entry.substr(eq + 1);
    int64_t count = 0;
    if (name == "mem" || absl::StartsWith(name, "bb/")) {
      absl::StatusOr<uint64_t> bytes =
          ParseSize(std::string_view(value.data(), value.size()), kMiB);
      if (!bytes.ok()) continue;
      count = static_cast<int64_t>(*bytes / kMiB);
    } else if (!absl::SimpleAtoi(value, &count)) {
      continue;
    }
    counts[name] = count;
  }
  return counts;
}

Json SlurmdbJobJson(const v1::AcctJob& job, const SlurmdbJobContext& context) {
  const bool ended = Ended(job.state());
  const bool array_task = job.array_job_id() != 0;
  Json time = {
      {"elapsed", Elapsed(job.start_time(), job.end_time(), job.suspended(), context.now)},
      {"eligible", job.eligible_time()},
      {"end", job.end_time()},
      {"start", job.start_time()},
      {"submission", job.submit_time()},
      {"suspended", job.suspended()},
      {"limit", Minutes(job.time_limit())},
  };
  // How long it waited once eligible (sacct's Planned).
  if (job.eligible_time() > 0) {
    const int64_t until = job.start_time() > 0 ? job.start_time()
                          : job.end_time() > 0 ? job.end_time()
                                               : context.now;
    time["planned"] = Number(std::max<int64_t>(0, until - job.eligible_time()));
  } else {
    time["planned"] = Number(0);
  }
  // A job's CPU time is its steps' (Slurm sums them the same way).
  int64_t user_usec = 0, system_usec = 0;
  bool measured = false;
  for (const v1::AcctStep& step : job.steps()) {
    if (!step.has_usage()) continue;
    measured = true;
    user_usec += step.user_cpu_usec();
    system_usec += step.system_cpu_usec();
  }
  if (measured) {
    time["user"] = CpuTime(user_usec);
    time["system"] = CpuTime(system_usec);
    time["total"] = CpuTime(user_usec + system_usec);
  }
  Json steps = Json::Array();
  for (const v1::AcctStep& step : job.steps()) steps.Push(StepJson(job, step, context));
  Json out = {
      {"account", job.account()},
      {"comment", {{"job", job.comment()}}},
      {"allocation_nodes", job.alloc_nodes()},
      {"array",
       {{"job_id", array_task ? job.array_job_id() : 0},
        {"limits", {{"max", {{"running", {{"tasks", job.array_max_running()}}}}}}},
        {"task_id",
         array_task && job.array_task_id() >= 0 ? Number(job.array_task_id()) : NoNumber()}}},
      {"association", AssociationOf(job, context)},
      {"cluster", job.cluster()},
      {"constraints", job.constraints()},
      {"derived_exit_code", ExitCode(ended, job.derived_exit_code(), job.derived_exit_signal())},
      {"time", std::move(time)},
      {"exit_code", ExitCode(ended, job.exit_code(), job.exit_signal())},
      {"group", job.group()},
      {"job_id", job.job_id()},
      {"name", job.name()},
      // Slurm's database writes this for a job not yet given nodes.
      {"nodes", job.node_list().empty() ? "None assigned" : job.node_list()},
      {"partition", job.partition()},
      {"hold", job.state() == "PENDING" && job.priority() == 0},
      {"priority", Number(job.priority())},
      {"qos", job.qos()},
      {"required",
       {{"CPUs", job.req_cpus()},
        {"memory_per_cpu", job.req_mem_per_cpu() ? Number(job.req_mem_mb()) : NoNumber()},
        {"memory_per_node", job.req_mem_per_cpu() ? NoNumber() : Number(job.req_mem_mb())}}},
      {"restart_cnt", job.restart_count()},
      {"state",
       {{"current", Json::Array({job.state()})},
        {"reason", job.reason().empty() ? "None" : job.reason()}}},
      {"steps", std::move(steps)},
      {"tres",
       {{"allocated", TresList(TresCountsOf(job.alloc_tres()))},
        {"requested", TresList(TresCountsOf(job.req_tres()))}}},
      {"user", job.user()},
      {"working_directory", job.work_dir()},
  };
  if (job.cancelled_by_known() && context.user_name) {
    out["kill_request_user"] = context.user_name(job.cancelled_by());
  }
  // Paths and the command line: only where ctld recorded them.
  if (!job.std_out().empty()) out["stdout"] = job.std_out();
  if (!job.std_err().empty()) out["stderr"] = job.std_err();
  if (!job.std_in().empty()) out["stdin"] = job.std_in();
  if (!job.submit_line().empty()) out["submit_line"] = job.submit_line();
  return out;
}

}  // namespace skiff::restd
