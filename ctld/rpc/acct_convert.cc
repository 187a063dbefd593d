#include "ctld/rpc/acct_convert.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/billing.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/tres_usage.h"
#include "ctld/core/accounting/batch_step.h"
#include "ctld/rpc/gpu_usage_convert.h"

namespace skiff::ctld {
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

}  // namespace

std::string AcctStateName(const Job& job) { return JobBaseStateName(job); }

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

std::string AcctReqTres(const Job& job, const BillingWeights& weights) {
  const int cpus = ReqCpus(job);
  const int nodes = std::max(1, job.request.num_nodes);
  const uint64_t mem = ReqMemTotalMb(job);
  const int gpus = job.request.gpus_per_node * nodes;
  const int shares = job.request.shares_per_node * nodes;
  const bool mps = job.request.share_kind == GpuShareKind::kMps;
  // Whole units, as Slurm's TRES strings print billing (and AllocTRES here).
  const double billing =
      std::floor(Billing(weights, cpus, mem, gpus, nodes, mps ? 0 : shares, mps ? shares : 0));
  std::map<std::string, std::string> tres{{"billing", absl::StrCat(static_cast<int64_t>(billing))},
                                          {"cpu", std::to_string(cpus)},
                                          {"node", std::to_string(nodes)}};
  if (mem > 0) tres["mem"] = Mem(mem);
  if (gpus > 0) tres["gres/gpu"] = std::to_string(gpus);
  if (shares > 0)
    tres[std::string("gres/") + GpuShareGres(job.request.share_kind)] = std::to_string(shares);
  return Tres(tres);
}

void AddWaitingTres(const Job& job, int64_t start, int64_t end, int64_t now,
                    const BillingWeights& weights, std::map<std::string, double>* out) {
  // Slurm's rollup leaves out jobs that named a reservation: they may have
  // waited for it rather than for the cluster.
  if (job.eligible_time <= 0 || !job.reservation.empty()) return;
  const int64_t until = job.start_time > 0   ? job.start_time
                        : IsFinal(job.state) ? job.end_time
                                             : now;
  const int64_t from = std::max(job.eligible_time, start);
  const int64_t to = std::min(until, end);
  if (to <= from) return;
  const double seconds = static_cast<double>(to - from);
  const int cpus = ReqCpus(job);
  const int nodes = std::max(1, job.request.num_nodes);
  const uint64_t mem = ReqMemTotalMb(job);
  const int gpus = job.request.gpus_per_node * nodes;
  const int shares = job.request.shares_per_node * nodes;
  const bool mps = job.request.share_kind == GpuShareKind::kMps;
  (*out)["cpu"] += cpus * seconds;
  (*out)["node"] += nodes * seconds;
  if (mem > 0) (*out)["mem"] += static_cast<double>(mem) * seconds;
  if (gpus > 0) (*out)["gres/gpu"] += gpus * seconds;
  if (shares > 0) {
    (*out)[std::string("gres/") + GpuShareGres(job.request.share_kind)] += shares * seconds;
  }
  (*out)["billing"] +=
      std::floor(Billing(weights, cpus, mem, gpus, nodes, mps ? 0 : shares, mps ? shares : 0)) *
      seconds;
}

std::string AcctAllocTres(const Job& job) {
  if (job.nodes.empty()) return "";
  if (!job.alloc_tres.empty()) {
    TresCounts counts = job.alloc_tres;
    std::string text = FormatTresForSacct(counts);
    // Bytes, not a count: outside the usage counts, first by name as Slurm sorts.
    if (job.UsesBurstBuffer() && job.bb_size > 0) {
      text = absl::StrCat("bb/lua=", FormatSize(job.bb_size), ",", text);
    }
    return text;
  }
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

std::vector<std::pair<std::string, double>> ClusterTres(
    const std::vector<Node>& nodes, const std::vector<PartitionConfig>& partitions,
    bool burst_buffer) {
  std::map<std::string, double> counts;
  for (const char* name : kBaseTres) counts[name] = 0;
  if (burst_buffer) counts["bb/lua"] = 0;
  for (const Node& node : nodes) {
    int64_t gpus = 0, shards = 0, mps = 0;
    for (const GresCount& gres : node.config.gres) {
      if (gres.name == "gpu") gpus += gres.count;
      if (gres.name == "shard") shards += gres.count;
      if (gres.name == "mps") mps += gres.count;
    }
    counts["cpu"] += node.config.cpus;
    counts["mem"] += static_cast<double>(node.config.real_memory_mb);
    counts["node"] += 1;
    double billing = 0;
    bool in_partition = false;
    for (const PartitionConfig& partition : partitions) {
      if (std::find(partition.nodes.begin(), partition.nodes.end(), node.config.name) ==
          partition.nodes.end()) {
        continue;
      }
      in_partition = true;
      absl::StatusOr<BillingWeights> weights = ParseBillingWeights(partition.tres_billing_weights);
      if (!weights.ok()) continue;  // checked when skiff.conf was read
      billing = std::max(billing,
                         Billing(*weights, node.config.cpus, node.config.real_memory_mb, gpus, 1));
    }
    counts["billing"] += in_partition ? std::floor(billing) : node.config.cpus;
    if (gpus > 0) {
      counts["gres/gpu"] += static_cast<double>(gpus);
      if (!node.gpu_type.empty()) counts["gres/gpu:" + node.gpu_type] += static_cast<double>(gpus);
    }
    if (shards > 0) counts["gres/shard"] += static_cast<double>(shards);
    if (mps > 0) counts["gres/mps"] += static_cast<double>(mps);
  }
  std::vector<std::pair<std::string, double>> out(counts.begin(), counts.end());
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return TresBefore(a.first, b.first); });
  return out;
}

v1::AcctJob ToAcctJob(const Job& job, bool with_steps, const std::string& cluster, int64_t now,
                      const BillingWeights& weights) {
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
  out.set_req_tres(AcctReqTres(job, weights));
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
  for (const GpuUsage& gpu : job.gpu_usage) GpuUsageToProto(gpu, out.add_gpus());
  if (!with_steps || !job.progress.launched || job.nodes.empty() || job.interactive) return out;
  *out.add_steps() = StepToProto(BatchStep(job, suspended));
  return out;
}

void AddStoredSteps(const Job& job, const std::vector<StepRecord>& stored, bool add_rows,
                    v1::AcctJob* out) {
  for (const StepRecord& step : stored) {
    const StepRecord settled = SettleStep(step, IsFinal(job.state), job.end_time);
    // DerivedExitCode: the highest exit code of the job's srun steps (the
    // signal of the step that has it).
    if (settled.exit_code > out->derived_exit_code() ||
        (settled.exit_code == out->derived_exit_code() && out->derived_exit_signal() == 0)) {
      out->set_derived_exit_code(settled.exit_code);
      out->set_derived_exit_signal(settled.exit_signal);
    }
    if (add_rows) *out->add_steps() = StepToProto(settled);
  }
}

v1::Tres TresToProto(const TresSpec& tres) {
  v1::Tres out;
  if (tres.cpu) out.set_cpu(*tres.cpu);
  if (tres.mem_mb) out.set_mem_mb(*tres.mem_mb);
  if (tres.node) out.set_node(*tres.node);
  if (tres.gpu) out.set_gpu(*tres.gpu);
  return out;
}

TresSpec TresFromProto(const v1::Tres& tres) {
  TresSpec out;
  if (tres.has_cpu()) out.cpu = tres.cpu();
  if (tres.has_mem_mb()) out.mem_mb = tres.mem_mb();
  if (tres.has_node()) out.node = tres.node();
  if (tres.has_gpu()) out.gpu = tres.gpu();
  return out;
}

v1::QosInfo QosToProto(const QosDefinition& qos) {
  v1::QosInfo out;
  out.set_name(qos.name);
  out.set_description(qos.description);
  out.set_priority(qos.priority);
  *out.mutable_max_tres_per_user() = TresToProto(qos.max_tres_per_user);
  *out.mutable_max_tres_per_job() = TresToProto(qos.max_tres_per_job);
  // The TRES-minutes limits only where set, so a row stored before they
  // existed is written byte for byte as it was.
  if (qos.grp_tres_run_mins != TresSpec{}) {
    *out.mutable_grp_tres_run_mins() = TresToProto(qos.grp_tres_run_mins);
  }
  if (qos.max_tres_run_mins_per_user != TresSpec{}) {
    *out.mutable_max_tres_run_mins_per_user() = TresToProto(qos.max_tres_run_mins_per_user);
  }
  if (qos.max_tres_mins_per_job != TresSpec{}) {
    *out.mutable_max_tres_mins_per_job() = TresToProto(qos.max_tres_mins_per_job);
  }
  if (qos.grp_tres_mins != TresSpec{}) {
    *out.mutable_grp_tres_mins() = TresToProto(qos.grp_tres_mins);
  }
  out.set_max_jobs_per_user(qos.max_jobs_per_user);
  out.set_max_submit_jobs_per_user(qos.max_submit_jobs_per_user);
  out.set_max_wall(qos.max_wall);
  for (const std::string& name : qos.preempt) out.add_preempt(name);
  out.set_preempt_mode(qos.preempt_mode);
  out.set_usage_factor(qos.usage_factor);
  out.set_grace_time(qos.grace_time);
  out.set_id(qos.id);
  return out;
}

QosDefinition QosFromProto(const v1::QosInfo& info) {
  QosDefinition out;
  out.name = info.name();
  out.description = info.description();
  out.priority = info.priority();
  out.max_tres_per_user = TresFromProto(info.max_tres_per_user());
  out.max_tres_per_job = TresFromProto(info.max_tres_per_job());
  out.grp_tres_run_mins = TresFromProto(info.grp_tres_run_mins());
  out.max_tres_run_mins_per_user = TresFromProto(info.max_tres_run_mins_per_user());
  out.max_tres_mins_per_job = TresFromProto(info.max_tres_mins_per_job());
  out.grp_tres_mins = TresFromProto(info.grp_tres_mins());
  out.max_jobs_per_user = info.max_jobs_per_user();
  out.max_submit_jobs_per_user = info.max_submit_jobs_per_user();
  out.max_wall = info.max_wall();
  out.preempt.assign(info.preempt().begin(), info.preempt().end());
  out.preempt_mode = info.preempt_mode();
  out.usage_factor = info.usage_factor();
  out.grace_time = info.grace_time();
  out.id = info.id();
  return out;
}

QosUpdate QosUpdateFromProto(const v1::UpdateQosRequest& request) {
  QosUpdate out;
  switch (request.op()) {
    case v1::UpdateQosRequest::ADD:
      out.op = QosOp::kAdd;
      break;
    case v1::UpdateQosRequest::MODIFY:
      out.op = QosOp::kModify;
      break;
    case v1::UpdateQosRequest::DELETE:
      out.op = QosOp::kDelete;
      break;
    default:
      out.op = QosOp::kUnspecified;
  }
  out.names.assign(request.names().begin(), request.names().end());
  const v1::QosChanges& c = request.changes();
  QosChanges& changes = out.changes;
  if (c.has_description()) changes.description = c.description();
  if (c.has_priority()) changes.priority = c.priority();
  changes.max_tres_per_user = TresFromProto(c.max_tres_per_user());
  changes.max_tres_per_job = TresFromProto(c.max_tres_per_job());
  changes.grp_tres_run_mins = TresFromProto(c.grp_tres_run_mins());
  changes.max_tres_run_mins_per_user = TresFromProto(c.max_tres_run_mins_per_user());
  changes.max_tres_mins_per_job = TresFromProto(c.max_tres_mins_per_job());
  changes.grp_tres_mins = TresFromProto(c.grp_tres_mins());
  if (c.has_max_jobs_per_user()) changes.max_jobs_per_user = c.max_jobs_per_user();
  if (c.has_max_submit_jobs_per_user()) {
    changes.max_submit_jobs_per_user = c.max_submit_jobs_per_user();
  }
  if (c.has_max_wall()) changes.max_wall = c.max_wall();
  if (c.has_preempt()) changes.preempt = c.preempt();
  changes.preempt_op = c.preempt_op();
  if (c.has_preempt_mode()) changes.preempt_mode = c.preempt_mode();
  if (c.has_usage_factor()) changes.usage_factor = c.usage_factor();
  if (c.has_grace_time()) changes.grace_time = c.grace_time();
  return out;
}

v1::AccountInfo AccountToProto(const Account& account) {
  v1::AccountInfo out;
  out.set_name(account.name);
  out.set_description(account.description);
  out.set_organization(account.organization);
  out.set_parent(account.parent);
  return out;
}

Account AccountFromProto(const v1::AccountInfo& info) {
  Account out;
  out.name = info.name();
  out.description = info.description();
  out.organization = info.organization();
  out.parent = info.parent();
  return out;
}

v1::UserInfo AcctUserToProto(const AcctUser& user) {
  v1::UserInfo out;
  out.set_name(user.name);
  out.set_default_account(user.default_account);
  out.set_admin_level(user.admin_level);
  out.set_uid(user.uid);
  return out;
}

AcctUser AcctUserFromProto(const v1::UserInfo& info) {
  AcctUser out;
  out.name = info.name();
  out.default_account = info.default_account();
  out.admin_level = info.admin_level();
  out.uid = info.uid();
  return out;
}

namespace {

v1::AssocLimits AssocLimitsToProto(const AssocLimits& limits) {
  v1::AssocLimits out;
  if (limits.fairshare) out.set_fairshare(*limits.fairshare);
  if (limits.grp_tres) *out.mutable_grp_tres() = TresToProto(*limits.grp_tres);
  if (limits.grp_jobs) out.set_grp_jobs(*limits.grp_jobs);
  if (limits.grp_submit_jobs) out.set_grp_submit_jobs(*limits.grp_submit_jobs);
  if (limits.max_jobs) out.set_max_jobs(*limits.max_jobs);
  if (limits.max_submit_jobs) out.set_max_submit_jobs(*limits.max_submit_jobs);
  if (limits.max_tres_per_job)
    *out.mutable_max_tres_per_job() = TresToProto(*limits.max_tres_per_job);
  if (limits.max_wall) out.set_max_wall(*limits.max_wall);
  if (limits.grp_billing_mins) out.set_grp_billing_mins(*limits.grp_billing_mins);
  if (limits.grp_tres_mins) *out.mutable_grp_tres_mins() = TresToProto(*limits.grp_tres_mins);
  if (limits.max_tres_mins_per_job) {
    *out.mutable_max_tres_mins_per_job() = TresToProto(*limits.max_tres_mins_per_job);
  }
  if (limits.grp_tres_run_mins) {
    *out.mutable_grp_tres_run_mins() = TresToProto(*limits.grp_tres_run_mins);
  }
  return out;
}

AssocLimits AssocLimitsFromProto(const v1::AssocLimits& limits) {
  AssocLimits out;
  if (limits.has_fairshare()) out.fairshare = limits.fairshare();
  if (limits.has_grp_tres()) out.grp_tres = TresFromProto(limits.grp_tres());
  if (limits.has_grp_jobs()) out.grp_jobs = limits.grp_jobs();
  if (limits.has_grp_submit_jobs()) out.grp_submit_jobs = limits.grp_submit_jobs();
  if (limits.has_max_jobs()) out.max_jobs = limits.max_jobs();
  if (limits.has_max_submit_jobs()) out.max_submit_jobs = limits.max_submit_jobs();
  if (limits.has_max_tres_per_job())
    out.max_tres_per_job = TresFromProto(limits.max_tres_per_job());
  if (limits.has_max_wall()) out.max_wall = limits.max_wall();
  if (limits.has_grp_billing_mins()) out.grp_billing_mins = limits.grp_billing_mins();
  if (limits.has_grp_tres_mins()) out.grp_tres_mins = TresFromProto(limits.grp_tres_mins());
  if (limits.has_max_tres_mins_per_job()) {
    out.max_tres_mins_per_job = TresFromProto(limits.max_tres_mins_per_job());
  }
  if (limits.has_grp_tres_run_mins()) {
    out.grp_tres_run_mins = TresFromProto(limits.grp_tres_run_mins());
  }
  return out;
}

}  // namespace

v1::AssocInfo AssocToProto(const Association& assoc) {
  v1::AssocInfo out;
  out.set_id(assoc.id);
  out.set_account(assoc.account);
  out.set_user(assoc.user);
  out.set_partition(assoc.partition);
  out.set_parent_account(assoc.parent_account);
  if (assoc.limits) *out.mutable_limits() = AssocLimitsToProto(*assoc.limits);
  for (const std::string& qos : assoc.qos) out.add_qos(qos);
  out.set_default_qos(assoc.default_qos);
  return out;
}

Association AssocFromProto(const v1::AssocInfo& info) {
  Association out;
  out.id = info.id();
  out.account = info.account();
  out.user = info.user();
  out.partition = info.partition();
  out.parent_account = info.parent_account();
  if (info.has_limits()) out.limits = AssocLimitsFromProto(info.limits());
  out.qos.assign(info.qos().begin(), info.qos().end());
  out.default_qos = info.default_qos();
  return out;
}

AccountsUpdate AccountsUpdateFromProto(const v1::UpdateAccountsRequest& request) {
  AccountsUpdate out;
  switch (request.op()) {
    case v1::UpdateAccountsRequest::ADD_ACCOUNT:
      out.op = AccountsOp::kAddAccount;
      break;
    case v1::UpdateAccountsRequest::ADD_USER:
      out.op = AccountsOp::kAddUser;
      break;
    case v1::UpdateAccountsRequest::MODIFY_ACCOUNT:
      out.op = AccountsOp::kModifyAccount;
      break;
    case v1::UpdateAccountsRequest::MODIFY_USER:
      out.op = AccountsOp::kModifyUser;
      break;
    case v1::UpdateAccountsRequest::DELETE_ACCOUNT:
      out.op = AccountsOp::kDeleteAccount;
      break;
    case v1::UpdateAccountsRequest::DELETE_USER:
      out.op = AccountsOp::kDeleteUser;
      break;
    default:
      out.op = AccountsOp::kUnspecified;
  }
  out.names.assign(request.names().begin(), request.names().end());
  out.accounts.assign(request.accounts().begin(), request.accounts().end());
  if (request.has_description()) out.description = request.description();
  if (request.has_organization()) out.organization = request.organization();
  if (request.has_parent()) out.parent = request.parent();
  if (request.has_default_account()) out.default_account = request.default_account();
  if (request.has_admin_level()) out.admin_level = request.admin_level();
  out.limits = AssocLimitsFromProto(request.limits());
  out.qos.assign(request.qos().begin(), request.qos().end());
  out.qos_op = request.qos_op();
  if (request.has_default_qos()) out.default_qos = request.default_qos();
  out.partitions.assign(request.partitions().begin(), request.partitions().end());
  return out;
}

v1::UpdateAccountsReply AccountsAffectedToProto(const AccountsAffected& affected) {
  v1::UpdateAccountsReply out;
  for (const std::string& name : affected.names) out.add_affected(name);
  for (const AssocKey& key : affected.associations) *out.add_associations() = AssocKeyToProto(key);
  return out;
}

v1::AssocKey AssocKeyToProto(const AssocKey& key) {
  v1::AssocKey out;
  out.set_account(key.account);
  out.set_user(key.user);
  out.set_partition(key.partition);
  return out;
}

v1::JobsInUse JobsInUseToProto(const JobsInUse& in_use) {
  v1::JobsInUse out;
  out.set_running_jobs(in_use.running_jobs);
  out.set_submitted_jobs(in_use.submitted_jobs);
  *out.mutable_running_tres() = TresToProto(in_use.running_tres);
  *out.mutable_running_tres_secs() = TresToProto(in_use.running_tres_secs);
  return out;
}

v1::GetAccountsReply AccountsSnapshotToProto(const AccountsSnapshot& snapshot) {
  v1::GetAccountsReply out;
  out.set_cluster(snapshot.cluster);
  for (const Account& account : snapshot.accounts) *out.add_accounts() = AccountToProto(account);
  for (const AcctUser& user : snapshot.users) *out.add_users() = AcctUserToProto(user);
  for (const Association& assoc : snapshot.assocs) *out.add_assocs() = AssocToProto(assoc);
  auto budget = [](const TresMinutes& minutes) {
    v1::BudgetMinutes out;
    out.set_billing(minutes.billing);
    out.set_cpu(minutes.cpu);
    out.set_mem(minutes.mem);
    out.set_node(minutes.node);
    out.set_gpu(minutes.gpu);
    return out;
  };
  for (const auto& [key, figures] : snapshot.by_assoc) {
    v1::AssocUsage& usage = *out.add_assoc_usage();
    *usage.mutable_key() = AssocKeyToProto(key);
    usage.set_norm_shares(figures.norm_shares);
    if (figures.used_budget_mins)
      *usage.mutable_used_budget_mins() = budget(*figures.used_budget_mins);
    if (figures.held_budget_mins)
      *usage.mutable_held_budget_mins() = budget(*figures.held_budget_mins);
    usage.set_raw_usage(figures.raw_usage);
    usage.mutable_used_tres_mins()->mutable_amounts()->insert(figures.used_tres_mins.begin(),
                                                              figures.used_tres_mins.end());
    if (figures.in_use) *usage.mutable_in_use() = JobsInUseToProto(*figures.in_use);
  }
  for (const auto& [key, figures] : snapshot.by_qos) {
    v1::QosUsage& usage = *out.add_qos_usage();
    usage.set_qos(key.qos);
    usage.set_user(key.user);
    if (figures.in_use) *usage.mutable_in_use() = JobsInUseToProto(*figures.in_use);
    if (figures.used_budget_mins)
      *usage.mutable_used_budget_mins() = budget(*figures.used_budget_mins);
    if (figures.held_budget_mins)
      *usage.mutable_held_budget_mins() = budget(*figures.held_budget_mins);
  }
  return out;
}

v1::AcctStep StepToProto(const StepRecord& step) {
  v1::AcctStep out;
  out.set_step_id(step.step_id);
  out.set_name(step.name);
  out.set_state(step.state);
  out.set_exit_code(step.exit_code);
  out.set_exit_signal(step.exit_signal);
  out.set_start_time(step.start_time);
  out.set_end_time(step.end_time);
  out.set_alloc_cpus(step.alloc_cpus);
  out.set_num_nodes(step.num_nodes);
  out.set_node_list(step.node_list);
  out.set_ntasks(step.ntasks);
  out.set_alloc_tres(step.alloc_tres);
  out.set_req_tres(step.req_tres);
  out.set_suspended(step.suspended);
  out.set_srun_host(step.srun_host);
  out.set_srun_pid(step.srun_pid);
  out.set_has_usage(step.has_usage);
  out.set_user_cpu_usec(step.user_cpu_usec);
  out.set_system_cpu_usec(step.system_cpu_usec);
  out.set_max_rss_kb(step.max_rss_kb);
  out.set_max_rss_node(step.max_rss_node);
  out.set_max_rss_task(step.max_rss_task);
  out.set_ave_rss_kb(step.ave_rss_kb);
  return out;
}

StepRecord StepFromProto(const v1::AcctStep& step) {
  StepRecord out;
  out.step_id = step.step_id();
  out.name = step.name();
  out.state = step.state();
  out.exit_code = step.exit_code();
  out.exit_signal = step.exit_signal();
  out.start_time = step.start_time();
  out.end_time = step.end_time();
  out.alloc_cpus = step.alloc_cpus();
  out.num_nodes = step.num_nodes();
  out.node_list = step.node_list();
  out.ntasks = step.ntasks();
  out.alloc_tres = step.alloc_tres();
  out.req_tres = step.req_tres();
  out.suspended = step.suspended();
  out.srun_host = step.srun_host();
  out.srun_pid = step.srun_pid();
  out.has_usage = step.has_usage();
  out.user_cpu_usec = step.user_cpu_usec();
  out.system_cpu_usec = step.system_cpu_usec();
  out.max_rss_kb = step.max_rss_kb();
  out.max_rss_node = step.max_rss_node();
  out.max_rss_task = step.max_rss_task();
  out.ave_rss_kb = step.ave_rss_kb();
  return out;
}

v1::StepInfo JobStepToProto(const JobStep& step) {
  v1::StepInfo out;
  out.set_job_id(step.job_id);
  out.set_array_job_id(step.array_job_id);
  out.set_array_task_id(step.array_task_id);
  out.set_uid(step.uid);
  out.set_user(step.user);
  out.set_partition(step.partition);
  *out.mutable_step() = StepToProto(step.step);
  return out;
}

}  // namespace skiff::ctld
