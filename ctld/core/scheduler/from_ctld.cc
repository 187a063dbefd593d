#include "ctld/core/scheduler/from_ctld.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <type_traits>
#include <unordered_map>

#include "common/hostlist.h"

namespace skiff::ctld {
namespace {

// Names -> dense indices, appending unknown names to `table`.
class Interner {
 public:
  explicit Interner(std::vector<std::string>* table) : table_(table) {
    for (size_t i = 0; i < table->size(); ++i) index_[(*table)[i]] = static_cast<int32_t>(i);
  }
  int32_t Get(const std::string& name) {
    auto [it, inserted] = index_.emplace(name, static_cast<int32_t>(table_->size()));
    if (inserted) table_->push_back(name);
    return it->second;
  }
  // kNone (or `missing`) when unknown.
  int32_t Find(const std::string& name, int32_t missing = kNone) const {
    auto it = index_.find(name);
    return it == index_.end() ? missing : it->second;
  }

 private:
  std::vector<std::string>* table_;
  std::unordered_map<std::string, int32_t> index_;
};

PartitionState StateOf(const std::string& state) {
  if (state == "DOWN") return PartitionState::kDown;
  if (state == "DRAIN") return PartitionState::kDrain;
  if (state == "INACTIVE") return PartitionState::kInactive;
  return PartitionState::kUp;
}

}  // namespace

void SetShape(const JobRequest& request, PendingJob* pending) {
  const TaskShape shape = RequestShape(request);
  pending->num_nodes = shape.min_nodes;
  pending->max_nodes = shape.max_nodes;
  pending->want_nodes = shape.want_nodes;
  pending->ntasks = shape.ntasks;
  pending->cpus_per_task = shape.cpus_per_task;
  pending->ntasks_per_node = shape.ntasks_per_node;
  pending->min_cpus_per_node = shape.min_cpus_per_node;
  pending->overcommit = shape.overcommit;
  pending->contiguous = shape.contiguous;
  pending->gpus_per_node = shape.gpus_per_node;
  pending->shares_per_node = request.shares_per_node;
  pending->share_kind = request.share_kind;
  pending->min_tmp_disk_mb = request.min_tmp_disk_mb;
  pending->min_topology = request.min_topology;
  // The least a node holds: one task (or --mincpus), and its memory.
  pending->cpus_per_node = shape.overcommit ? shape.cpus_per_task : request.MinCpusPerNode();
  pending->mem_per_cpu_mb = shape.mem_per_cpu_mb;
  pending->mem_per_node_mb =
      shape.mem_per_node_mb > 0
          ? shape.mem_per_node_mb
          : shape.mem_per_cpu_mb * static_cast<uint64_t>(pending->cpus_per_node);
}

CtldSnapshot BuildSnapshot(const CtldSchedulerInputs& inputs) {
  CtldSnapshot snapshot;
  ClusterView& view = snapshot.view;
  std::vector<std::string> node_names, partition_names, qos_names, user_names;
  Interner nodes(&node_names), gpu_types(&view.gpu_types), features(&view.features),
      accounts(&view.accounts), groups(&view.groups), users(&user_names);
  for (const NodeCapacity& capacity : inputs.nodes) {
    SchedNode node;
    node.name = capacity.name;
    node.usable = capacity.usable;
    node.cpus = capacity.cpus;
    node.memory_mb = capacity.memory_mb;
    node.gpu_count = static_cast<int32_t>(capacity.gpu_owner.size());
    node.share_kind = capacity.share_kind;
    node.gpu_shares = capacity.gpu_shares;
    node.share_fenced = capacity.share_fenced;
    node.gpu_type = capacity.gpu_type.empty() ? kNone : gpu_types.Get(capacity.gpu_type);
    node.weight = capacity.weight;
    node.tmp_disk_mb = capacity.tmp_disk_mb;
    node.layout = capacity.layout;
    auto it = inputs.node_features.find(capacity.name);
    if (it != inputs.node_features.end()) {
      for (const std::string& f : it->second) node.features.push_back(features.Get(f));
    }
    nodes.Get(capacity.name);
    view.nodes.push_back(std::move(node));
  }
  view.qos = inputs.qos;
  for (const Qos& qos : view.qos) qos_names.push_back(qos.name);
  Interner qos_index(&qos_names);
  const int32_t unknown_qos = static_cast<int32_t>(view.qos.size());  // -> InvalidQOS
  for (const PartitionConfig& config : inputs.partitions) {
    SchedPartition partition;
    partition.name = config.name;
    partition.state = StateOf(config.state);
    partition.max_time = config.max_time;
    partition.max_nodes = config.max_nodes;
    partition.priority_tier = config.priority_tier;
    for (const std::string& name : config.nodes) {
      const int32_t n = nodes.Find(name);
      if (n != kNone) partition.nodes.push_back(n);
    }
    for (const std::string& a : config.allow_accounts) {
      if (a != "ALL") partition.allow_accounts.push_back(accounts.Get(a));
    }
    for (const std::string& g : config.allow_groups) {
      if (g != "ALL") partition.allow_groups.push_back(groups.Get(g));
    }
    for (const std::string& q : config.allow_qos) {
      if (q != "ALL") partition.allow_qos.push_back(qos_index.Find(q, unknown_qos));
    }
    partition.qos = config.qos.empty() ? kNone : qos_index.Find(config.qos);
    partition.preempt_mode = ParsePreemptMode(config.preempt_mode);
    partition.grace_time = config.grace_time;
    partition_names.push_back(config.name);
    view.partitions.push_back(std::move(partition));
  }
  Interner partitions(&partition_names);
  auto qos_of = [&](const Job& job) {
    return job.qos.empty() ? kNone : qos_index.Find(job.qos, unknown_qos);
  };
  // Associations: each account's own first (so children find their parent),
  // then users'; a job's index is its user association's.
  std::map<std::string, int32_t> account_assoc;
  std::map<AssocKey, int32_t> user_assoc;
  auto assoc_of = [&](const Job& job) -> int32_t {
    if (inputs.accounts == nullptr || !inputs.accounts->enforce.limits) return kNone;
    const UserAssoc* assoc =
        inputs.accounts->Find(job.user_name, job.account, job.request.partition);
    if (assoc == nullptr) return kNone;
    auto it = user_assoc.find(AssocKey{assoc->account, assoc->user, assoc->partition});
    return it == user_assoc.end() ? kNone : it->second;
  };
  if (inputs.accounts != nullptr && inputs.accounts->enforce.limits) {
    for (const auto& [name, account] : inputs.accounts->accounts) {
      account_assoc[name] = static_cast<int32_t>(view.assocs.size());
      SchedAssoc assoc;
      assoc.grp_jobs = account.grp_jobs;
      assoc.grp_tres = {account.grp_tres.cpus, account.grp_tres.mem_mb, account.grp_tres.nodes,
                        account.grp_tres.gpus};
      assoc.grp_tres_mins = account.grp_tres_mins;
      assoc.grp_tres_run_mins = account.grp_tres_run_mins;
      auto used = inputs.tres_mins_used.find(AssocKey::Account(name));
      if (used != inputs.tres_mins_used.end()) assoc.tres_mins_used = used->second;
      view.assocs.push_back(assoc);
    }
    for (const auto& [name, account] : inputs.accounts->accounts) {
      auto parent = account_assoc.find(account.parent);
      if (parent != account_assoc.end() && account.parent != name) {
        view.assocs[account_assoc[name]].parent = parent->second;
      }
    }
    for (const UserAssoc& user : inputs.accounts->users) {
      SchedAssoc assoc;
      auto parent = account_assoc.find(user.account);
      assoc.parent = parent == account_assoc.end() ? kNone : parent->second;
      assoc.max_jobs = user.max_jobs;
      assoc.grp_tres_mins = user.grp_tres_mins;
      assoc.grp_tres_run_mins = user.grp_tres_run_mins;
      auto used = inputs.tres_mins_used.find(AssocKey::User(user.account, user.user));
      if (used != inputs.tres_mins_used.end()) assoc.tres_mins_used = used->second;
      user_assoc[AssocKey{user.account, user.user, user.partition}] =
          static_cast<int32_t>(view.assocs.size());
      view.assocs.push_back(assoc);
    }
  }
  // Licenses=, then any name a job holds or asks for that is no longer
  // configured (a reconfigure dropped it): none of those, so its jobs wait.
  std::map<std::string, int32_t, std::less<>> license_index;
  for (const LicenseCount& license : inputs.licenses) {
    license_index.emplace(license.name, static_cast<int32_t>(view.licenses.size()));
    view.licenses.push_back({license.name, license.count});
  }
  auto licenses_of = [&](const Job& job) {
    std::vector<LicenseUse> uses;
    for (const LicenseCount& license : job.request.licenses) {
      auto [it, added] =
          license_index.emplace(license.name, static_cast<int32_t>(view.licenses.size()));
      if (added) view.licenses.push_back({license.name, 0});
      uses.push_back({it->second, license.count});
    }
    return uses;
  };
  for (const Job* job : inputs.running) {
    RunningJob running;
    running.licenses = licenses_of(*job);
    running.id = job->id;
    running.user = users.Get(job->user_name);
    running.qos = qos_of(*job);
    running.assoc = assoc_of(*job);
    if (auto cost = inputs.max_cost.find(job->id); cost != inputs.max_cost.end()) {
      running.max_cost = cost->second;
    }
    if (auto rate = inputs.per_minute.find(job->id); rate != inputs.per_minute.end()) {
      running.per_minute = rate->second;
    }
    if (running.qos == unknown_qos) running.qos = kNone;  // already running: no limits
    running.partition = partitions.Find(job->request.partition);
    if (running.partition == kNone) running.partition = 0;  // REQUIRES: a partition exists
    for (size_t k = 0; k < job->nodes.size(); ++k) {
      const int32_t n = nodes.Find(job->nodes[k]);
      if (n == kNone) continue;
      running.nodes.push_back(n);
      // Each node's own indices; older records kept one list for every node.
      const std::vector<int>& gpus =
          job->gpus_by_node.size() == job->nodes.size() ? job->gpus_by_node[k] : job->gpu_indices;
      running.gpu_indices.emplace_back(gpus.begin(), gpus.end());
      if (k < job->shares_by_node.size()) running.shares.push_back(job->shares_by_node[k]);
    }
    if (running.shares.size() != running.nodes.size()) running.shares.clear();
    running.exclusive = job->request.exclusive;
    for (size_t k = 0; k < job->nodes.size(); ++k) {
      if (nodes.Find(job->nodes[k]) == kNone) continue;
      running.cpus_by_node.push_back(job->CpusOn(k));
      running.mem_by_node_mb.push_back(job->MemOnMb(k));
    }
    // Time suspended moves the expected end later (a job suspended now is
    // planned as if it resumed now).
    int64_t suspended = job->suspended_total;
    if (job->state == JobState::kSuspended && inputs.now > job->suspend_time) {
      suspended += inputs.now - job->suspend_time;
    }
    running.start_time = job->start_time + suspended;
    running.time_limit = job->request.time_limit;
    if (job->final_state != JobState::kCompleted && inputs.now > 0) {
      // Being stopped: it ends now, or when its preemption GraceTime does.
      const int64_t ends = std::max(inputs.now, job->progress.preempt_stop_at);
      running.time_limit = std::max<int64_t>(0, ends - job->start_time);
    }
    view.running.push_back(std::move(running));
  }
  // Advance reservations: the windows that may still matter to a plan (a
  // repeating one's next two weeks).
  std::map<std::string, int32_t> resv_index;
  if (inputs.reservations != nullptr) {
    for (const auto& [name, resv] : *inputs.reservations) {
      if (ResvEnded(resv, inputs.now)) continue;
      SchedResv sched;
      sched.name = name;
      for (size_t k = 0; k < resv.nodes.size(); ++k) {
        const int32_t n = nodes.Find(resv.nodes[k]);
        if (n == kNone) continue;
        sched.nodes.push_back(n);
        if (!resv.WholeNodes()) sched.gpus.push_back(resv.node_gpus[k]);
      }
      for (const ResvWindow& w :
           WindowsBetween(resv, inputs.now, inputs.now + 2 * kWeekSeconds, *inputs.resv_calendar)) {
        sched.windows.push_back({w.start, w.end});
      }
      sched.maint = resv.HasFlag(kResvMaint);
      sched.flex = resv.HasFlag(kResvFlex);
      sched.overlap = resv.HasFlag(kResvOverlap);
      resv_index[name] = static_cast<int32_t>(view.resvs.size());
      view.resvs.push_back(std::move(sched));
    }
  }
  for (const Job* job : inputs.pending) {
    PendingJob pending;
    if (!job->reservation.empty()) {
      auto it = resv_index.find(job->reservation);
      pending.resv = it == resv_index.end() ? kResvGone : it->second;
    } else if (inputs.reservations != nullptr) {
      for (const auto& [name, index] : resv_index) {
        const AdvanceReservation& resv = inputs.reservations->at(name);
        if (resv.HasFlag(kResvMagnetic) && MayUseReservation(resv, job->user_name, job->account)) {
          pending.magnetic.push_back(index);
        }
      }
    }
    pending.id = job->id;
    pending.user = users.Get(job->user_name);
    pending.account = accounts.Get(job->account);
    pending.group = groups.Get(job->group_name);
    pending.qos = qos_of(*job);
    pending.assoc = assoc_of(*job);
    if (auto cost = inputs.max_cost.find(job->id); cost != inputs.max_cost.end()) {
      pending.max_cost = cost->second;
    }
    if (auto rate = inputs.per_minute.find(job->id); rate != inputs.per_minute.end()) {
      pending.per_minute = rate->second;
    }
    pending.partition = partitions.Find(job->request.partition);  // kNone -> PartitionInactive
    pending.submit_time = job->submit_time;
    // Unknown (0) only while held: no age yet.
    pending.eligible_time = job->eligible_time == 0
                                ? std::max(inputs.now, job->request.begin_time)
                                : std::max(job->eligible_time, job->request.begin_time);
    pending.time_limit = job->request.time_limit;
    pending.time_min = job->request.time_min;
    SetShape(job->request, &pending);
    pending.gpu_type = job->request.gpu_type.empty() ? kNone : gpu_types.Get(job->request.gpu_type);
    pending.held = job->held;
    pending.held_by_admin = job->held_by_admin;
    pending.exclusive = job->request.exclusive;
    pending.nice = job->nice;
    pending.admin_priority = job->admin_priority;
    pending.basic_priority = job->basic_priority;
    for (const std::string& name : job->request.nodelist) {
      const int32_t n = nodes.Find(name);
      if (n != kNone) pending.nodelist.push_back(n);
    }
    for (const std::string& name : job->request.exclude) {
      const int32_t n = nodes.Find(name);
      if (n != kNone) pending.exclude.push_back(n);
    }
    for (const std::string& f : job->request.features) pending.features.push_back(features.Get(f));
    pending.licenses = licenses_of(*job);
    for (const std::string& f : job->request.prefer) pending.prefer.push_back(features.Get(f));
    snapshot.pending.push_back(std::move(pending));
  }
  for (const std::string& name : user_names) {
    SchedUser user;
    user.name = name;
    auto it = inputs.usage.find(name);
    if (it != inputs.usage.end()) {
      user.usage = it->second.usage;
      user.usage_as_of = it->second.as_of;
      user.shares = it->second.shares;
    }
    // With associations, a user's shares come from the account tree.
    if (inputs.accounts != nullptr) {
      auto shares = inputs.accounts->user_shares.find(name);
      if (shares != inputs.accounts->user_shares.end()) user.shares = shares->second;
    }
    view.users.push_back(std::move(user));
  }
  return snapshot;
}

ScheduleResult ToScheduleResult(const CtldSnapshot& snapshot, const SchedulePlan& plan) {
  ScheduleResult result;
  for (const JobStart& start : plan.starts) {
    Placement placement;
    placement.job_id = start.job_id;
    placement.cpus.assign(start.cpus.begin(), start.cpus.end());
    placement.mem_mb = start.mem_mb;
    placement.tasks.assign(start.tasks.begin(), start.tasks.end());
    placement.backfilled = start.backfilled;
    placement.time_limit = start.time_limit;
    if (start.magnetic >= 0) placement.reservation = snapshot.view.resvs[start.magnetic].name;
    for (size_t k = 0; k < start.nodes.size(); ++k) {
      placement.nodes.push_back(snapshot.view.nodes[start.nodes[k]].name);
      placement.gpu_indices.emplace_back(start.gpu_indices[k].begin(), start.gpu_indices[k].end());
    }
    placement.shares = start.shares;
    result.placements.push_back(std::move(placement));
  }
  for (size_t i = 0; i < snapshot.pending.size(); ++i) {
    if (plan.reasons[i] == WaitReason::kNone) continue;
    const WaitDetail detail = i < plan.details.size() ? plan.details[i] : WaitDetail::kNone;
    ReasonText text =
        DescribeWaitReason(snapshot.view, snapshot.pending[i], plan.reasons[i], detail);
    result.pending.push_back(
        {snapshot.pending[i].id, std::move(text.reason), std::move(text.description)});
  }
  return result;
}

ReasonText DescribeWaitReason(const ClusterView& view, const PendingJob& job, WaitReason reason,
                              WaitDetail detail) {
  switch (detail) {
    case WaitDetail::kNone:
      break;
    case WaitDetail::kReservedForMaintenance:
      return {"ReqNodeNotAvail", "ReqNodeNotAvail, Reserved for maintenance"};
    case WaitDetail::kNodesUnavailable:
      return {"Resources",
              "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority "
              "partitions"};
    case WaitDetail::kUnavailableNodes: {
      // The partition's unusable nodes, only those asked for with -w when any.
      std::vector<std::string> names;
      if (job.partition >= 0 && static_cast<size_t>(job.partition) < view.partitions.size()) {
        for (int32_t n : view.partitions[job.partition].nodes) {
          if (view.nodes[n].usable) continue;
          if (!job.nodelist.empty() &&
              std::find(job.nodelist.begin(), job.nodelist.end(), n) == job.nodelist.end()) {
            continue;
          }
          names.push_back(view.nodes[n].name);
        }
      }
      if (names.empty())
        return {"ReqNodeNotAvail", "ReqNodeNotAvail, May be reserved for other job"};
      return {"ReqNodeNotAvail", "ReqNodeNotAvail, UnavailableNodes:" + CompressHostlist(names)};
    }
  }
  return {WaitReasonName(reason), ""};
}

std::vector<std::string> ScheduledNodes(const CtldSnapshot& snapshot, const SchedulePlan& plan) {
  std::vector<std::string> out(snapshot.pending.size());
  for (const Reservation& reservation : plan.reservations) {
    if (reservation.start == kNever || reservation.pending_index >= out.size()) continue;
    std::vector<std::string> names;
    for (int32_t n : reservation.nodes) names.push_back(snapshot.view.nodes[n].name);
    out[reservation.pending_index] = CompressHostlist(names);
  }
  return out;
}

PreemptMode ParsePreemptMode(const std::string& text) {
  std::string first = text.substr(0, text.find(','));
  for (char& c : first) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (first.empty() || first == "CLUSTER") return PreemptMode::kCluster;
  if (first == "CANCEL") return PreemptMode::kCancel;
  if (first == "REQUEUE") return PreemptMode::kRequeue;
  return PreemptMode::kOff;
}

PreemptOptions PreemptOptionsFromConfig(const SkiffConfig& config) {
  PreemptOptions options;
  if (config.preempt_type == "preempt/partition_prio") {
    options.type = PreemptType::kPartitionPrio;
  } else if (config.preempt_type == "preempt/qos") {
    options.type = PreemptType::kQos;
  }
  options.mode = ParsePreemptMode(config.preempt_mode);
  if (options.mode == PreemptMode::kCluster) options.mode = PreemptMode::kOff;
  return options;
}

SchedulerOptions OptionsFromConfig(const SkiffConfig& config) {
  SchedulerOptions options;
  options.weights.basic = config.priority_type == "priority/basic";
  options.weights.age = config.priority_weight_age;
  options.weights.fairshare = config.priority_weight_fairshare;
  options.weights.job_size = config.priority_weight_job_size;
  options.weights.partition = config.priority_weight_partition;
  options.weights.qos = config.priority_weight_qos;
  auto tres_weight = [&](const char* name) {
    auto it = config.priority_tres_weights.find(name);
    return it == config.priority_tres_weights.end() ? int64_t{0} : it->second;
  };
  options.weights.tres.cpu = tres_weight("cpu");
  options.weights.tres.mem = tres_weight("mem");
  options.weights.tres.node = tres_weight("node");
  options.weights.tres.gpu = tres_weight("gres/gpu");
  options.weights.max_age = config.priority_max_age;
  options.weights.decay_half_life = config.priority_decay_half_life;
  // The config loader checked Slurm's ranges; unset keys keep the defaults.
  const SchedulerParameters& parameters = config.scheduler_parameters;
  auto set = [](const std::optional<int64_t>& value, auto* out) {
    if (value) *out = static_cast<std::remove_pointer_t<decltype(out)>>(*value);
  };
  set(parameters.bf_interval, &options.bf_interval);
  options.backfill = parameters.backfill;  // Slurm's bf_interval=-1: no backfill
  set(parameters.bf_max_job_test, &options.bf_max_job_test);
  set(parameters.default_queue_depth, &options.default_queue_depth);
  set(parameters.sched_interval, &options.sched_interval);
  return options;
}

}  // namespace skiff::ctld
