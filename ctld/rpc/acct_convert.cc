#include "ctld/rpc/acct_convert.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "ctld/step_book.h"

namespace skiff {
namespace {

template <typename List, typename T>
bool Wanted(const List& list, const T& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

bool WantedNoCase(const google::protobuf::RepeatedPtrField<std::string>& list,
                  const std::string& value) {
  return list.empty() || std::any_of(list.begin(), list.end(), [&](const std::string& item) {
           return absl::EqualsIgnoreCase(item, value);
         });
}

bool Started(const Job& job) { return job.start_time != 0; }

// The selector names this job (its id, its array, or its array task).
bool Names(const v1::AcctJobSelector& selector, const Job& job) {
  if (selector.array_task_id() < 0) {
    return selector.job_id() == job.id ||
           (job.array_job_id != 0 && selector.job_id() == job.array_job_id);
  }
  return job.array_job_id != 0 && selector.job_id() == job.array_job_id &&
         selector.array_task_id() == job.array_task_id;
}

// Was the job in `state` (a Slurm name) at some time in [start, end]?
bool InStateDuring(const Job& job, const std::string& state, int64_t start, int64_t end) {
  const int64_t ended = job.end_time;
  if (state == "PENDING") {
    if (job.submit_time > end) return false;
    const int64_t left_pending = Started(job) ? job.start_time : ended;  // 0 = still pending
    return left_pending == 0 || left_pending >= start;
  }
  if (state == "RUNNING") {
    return Started(job) && job.start_time <= end && (ended == 0 || ended >= start);
  }
  if (state == "REQUEUED") return job.restart_count > 0 && job.submit_time <= end;
  if (AcctStateName(job) != state) return false;
  if (!IsFinal(job.state)) return true;  // SUSPENDED, COMPLETING: now
  return ended >= start && ended <= end;
}

int ReqCpus(const Job& job) {
  const JobRequest& r = job.request;
  return static_cast<int>(std::max<int64_t>(
      r.TotalCpus(), static_cast<int64_t>(std::max(1, r.num_nodes)) * r.MinCpusPerNode()));
}

int AllocNodes(const Job& job) { return static_cast<int>(job.nodes.size()); }

int AllocCpus(const Job& job) { return static_cast<int>(job.AllocCpus()); }

uint64_t ReqMemTotalMb(const Job& job) {
  return job.request.MemPerNodeMb() * static_cast<uint64_t>(std::max(1, job.request.num_nodes));
}

std::string Tres(const std::map<std::string, std::string>& values) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values) parts.push_back(absl::StrCat(name, "=", value));
  return absl::StrJoin(parts, ",");
}

std::string Mem(uint64_t mb) { return FormatSize(mb * kMiB); }

// The batch step's state and exit status as Slurm records them: the script's
// own end, or CANCELLED by SIGTERM when the job was ended from outside.
void BatchOutcome(const Job& job, v1::AcctStep* step) {
  JobState state = job.state == JobState::kCompleting ? job.final_state : job.state;
  switch (state) {
    case JobState::kCancelled:
    case JobState::kTimeout:
    case JobState::kPreempted:
    case JobState::kNodeFail:
      step->set_state("CANCELLED");
      step->set_exit_code(0);
      step->set_exit_signal(job.exit_signal != 0 ? job.exit_signal : 15);
      return;
    case JobState::kOutOfMemory:
      step->set_state("OUT_OF_MEMORY");
      step->set_exit_code(0);
      step->set_exit_signal(125);
      return;
    case JobState::kPending:
    case JobState::kConfiguring:
    case JobState::kRunning:
      step->set_state("RUNNING");
      return;
    default:
      step->set_state(JobStateName(state));
      step->set_exit_code(job.exit_code);
      step->set_exit_signal(job.exit_signal);
  }
}

}  // namespace

std::string AcctStateName(const Job& job) {
  switch (job.state) {
    case JobState::kConfiguring:
      return "RUNNING";
    case JobState::kCompleting:
      return JobStateName(job.final_state);
    default:
      return JobStateName(job.state);
  }
}

bool AcctSelected(const Job& job, const AcctSelection& selection) {
  const v1::GetAccountingRequest& request = *selection.request;
  if (!request.jobs().empty() &&
      std::none_of(request.jobs().begin(), request.jobs().end(),
                   [&](const v1::AcctJobSelector& selector) { return Names(selector, job); })) {
    return false;
  }
  if (!Wanted(request.uids(), static_cast<uint32_t>(job.uid))) return false;
  if (!Wanted(request.gids(), static_cast<uint32_t>(job.gid))) return false;
  if (!WantedNoCase(request.accounts(), job.account)) return false;
  if (!WantedNoCase(request.qos(), job.qos)) return false;
  if (!Wanted(request.names(), job.name)) return false;
  if (!Wanted(request.partitions(), job.request.partition)) return false;
  if (!selection.nodes.empty() &&
      std::none_of(job.nodes.begin(), job.nodes.end(),
                   [&](const std::string& node) { return selection.nodes.count(node) != 0; })) {
    return false;
  }
  const int64_t start = request.window_start();
  const int64_t end = selection.window_end;
  if (request.states().empty()) {
    return job.submit_time <= end && (job.end_time == 0 || job.end_time >= start);
  }
  return std::any_of(
      request.states().begin(), request.states().end(),
      [&](const std::string& state) { return InStateDuring(job, state, start, end); });
}

std::vector<std::string> AcctSelectedSteps(const Job& job,
                                           const v1::GetAccountingRequest& request) {
  std::vector<std::string> steps;
  for (const v1::AcctJobSelector& selector : request.jobs()) {
    if (!Names(selector, job)) continue;
    if (selector.step().empty()) return {};  // the whole job
    steps.push_back(selector.step());
  }
  return steps;
}

std::string AcctReqTres(const Job& job) {
  const int cpus = ReqCpus(job);
  std::map<std::string, std::string> tres{
      {"billing", std::to_string(cpus)},
      {"cpu", std::to_string(cpus)},
      {"node", std::to_string(std::max(1, job.request.num_nodes))}};
  if (uint64_t mem = ReqMemTotalMb(job); mem > 0) tres["mem"] = Mem(mem);
  if (job.request.gpus_per_node > 0) {
    tres["gres/gpu"] =
        std::to_string(job.request.gpus_per_node * std::max(1, job.request.num_nodes));
  }
  return Tres(tres);
}

std::string AcctAllocTres(const Job& job) {
  if (job.nodes.empty()) return "";
  const int cpus = AllocCpus(job);
  std::map<std::string, std::string> tres{{"billing", std::to_string(cpus)},
                                          {"cpu", std::to_string(cpus)},
                                          {"node", std::to_string(AllocNodes(job))}};
  if (job.AllocMemMb() > 0) tres["mem"] = Mem(job.AllocMemMb());
  size_t gpus = 0;
  for (const std::vector<int>& on_node : job.gpus_by_node) gpus += on_node.size();
  if (gpus > 0) tres["gres/gpu"] = std::to_string(gpus);
  if (job.UsesBurstBuffer() && job.bb_size > 0) tres["bb/lua"] = FormatSize(job.bb_size);
  return Tres(tres);
}

v1::AcctJob ToAcctJob(const Job& job, bool with_steps, const std::string& cluster, int64_t now) {
  v1::AcctJob out;
  out.set_job_id(job.id);
  out.set_array_job_id(job.array_job_id);
  out.set_array_task_id(job.array_job_id != 0 ? job.array_task_id : -1);
  out.set_array_max_running(job.array_max_running);
  out.set_name(job.name);
  out.set_user(job.user_name);
  out.set_uid(job.uid);
  out.set_group(job.group_name);
  out.set_gid(job.gid);
  out.set_account(job.account);
  out.set_partition(job.request.partition);
  out.set_qos(job.qos);
  out.set_cluster(cluster);
  const std::string state = AcctStateName(job);
  out.set_state(state);
  if (state == "CANCELLED" && job.cancelled_by >= 0) {
    out.set_cancelled_by_known(true);
    out.set_cancelled_by(static_cast<uint32_t>(job.cancelled_by));
  }
  // Slurm keeps the script's status for jobs that ended on their own; a job
  // ended from outside (cancel, time limit, node failure) reports 0:0 and its
  // batch step carries the signal.
  const bool ended_from_outside =
      state == "CANCELLED" || state == "TIMEOUT" || state == "NODE_FAIL" || state == "PREEMPTED";
  if (IsFinal(job.state) && !ended_from_outside) {
    out.set_exit_code(job.exit_code);
    out.set_exit_signal(job.exit_signal);
  }
  out.set_submit_time(job.submit_time);
  out.set_eligible_time(job.eligible_time);
  out.set_start_time(job.start_time);
  out.set_end_time(job.end_time);
  out.set_time_limit(job.request.time_limit);
  out.set_req_cpus(ReqCpus(job));
  out.set_alloc_cpus(job.nodes.empty() ? ReqCpus(job) : AllocCpus(job));
  out.set_req_tres(AcctReqTres(job));
  out.set_alloc_tres(AcctAllocTres(job));
  if (job.request.mem_per_cpu_mb > 0 && job.request.mem_per_node_mb == 0) {
    out.set_req_mem_mb(job.request.mem_per_cpu_mb);
    out.set_req_mem_per_cpu(true);
  } else {
    out.set_req_mem_mb(job.request.MemPerNodeMb());
  }
  out.set_req_nodes(std::max(1, job.request.num_nodes));
  out.set_alloc_nodes(AllocNodes(job));
  out.set_node_list(job.nodes.empty() ? "" : CompressHostlist(job.nodes));
  out.set_work_dir(job.work_dir);
  out.set_reason(job.reason);
  out.set_priority(job.admin_priority != 0 ? job.admin_priority : job.priority);
  out.set_comment(job.comment);
  out.set_restart_count(job.restart_count);
  int64_t suspended = job.suspended_total;
  if (job.state == JobState::kSuspended && job.suspend_time > 0)
    suspended += now - job.suspend_time;
  out.set_suspended(suspended);
  out.set_constraints(absl::StrJoin(job.request.features, "&"));
  out.set_dependency(job.dependency);
  out.set_nice(job.nice);
  out.set_req_gpus(job.request.gpus_per_node * std::max(1, job.request.num_nodes));
  out.set_gpu_type(job.request.gpu_type);
  if (!with_steps || !job.launched || job.nodes.empty() || job.interactive) return out;
  *out.add_steps() = AcctBatchStep(job, suspended);
  return out;
}

v1::AcctStep AcctBatchStep(const Job& job, int64_t suspended) {
  v1::AcctStep batch;
  batch.set_step_id("batch");
  batch.set_name("batch");
  BatchOutcome(job, &batch);
  batch.set_start_time(job.start_time);
  batch.set_end_time(job.end_time);
  batch.set_alloc_cpus(job.CpusOn(0));
  batch.set_num_nodes(1);
  batch.set_node_list(job.nodes.empty() ? "" : job.nodes.front());
  batch.set_ntasks(1);
  std::map<std::string, std::string> tres{{"cpu", std::to_string(job.CpusOn(0))}, {"node", "1"}};
  if (job.MemOnMb(0) > 0) tres["mem"] = Mem(job.MemOnMb(0));
  if (!job.gpu_indices.empty()) tres["gres/gpu"] = std::to_string(job.gpu_indices.size());
  batch.set_alloc_tres(Tres(tres));
  batch.set_suspended(suspended);
  if (job.batch_usage.measured) {
    batch.set_has_usage(true);
    batch.set_user_cpu_usec(job.batch_usage.user_cpu_usec);
    batch.set_system_cpu_usec(job.batch_usage.system_cpu_usec);
    batch.set_max_rss_kb(job.batch_usage.max_rss_kb);
    batch.set_ave_rss_kb(job.batch_usage.max_rss_kb);  // one task
    batch.set_max_rss_node(job.nodes.front());
    batch.set_max_rss_task(0);
  }
  return batch;
}

void AddStoredSteps(const Job& job, const std::vector<v1::AcctStep>& stored, bool add_rows,
                    v1::AcctJob* out) {
  for (const v1::AcctStep& step : stored) {
    v1::AcctStep settled = SettleStep(step, IsFinal(job.state), job.end_time);
    // DerivedExitCode: the highest exit code of the job's srun steps (the
    // signal of the step that has it).
    if (settled.exit_code() > out->derived_exit_code() ||
        (settled.exit_code() == out->derived_exit_code() && out->derived_exit_signal() == 0)) {
      out->set_derived_exit_code(settled.exit_code());
      out->set_derived_exit_signal(settled.exit_signal());
    }
    if (add_rows) *out->add_steps() = std::move(settled);
  }
}

}  // namespace skiff
