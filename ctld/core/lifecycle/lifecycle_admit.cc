// Lifecycle's admission (admission.h has the spec's own checks):
// CheckSubmission adds the checks that need the job table (QOS submit limits,
// association limits and service units, MaxJobCount, dependencies), Admit
// reserves the ids, Insert makes admitted jobs part of the table.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ctld/core/array_spec.h"
#include "ctld/core/burst_buffer/directives.h"
#include "ctld/core/dependency.h"
#include "ctld/core/lifecycle/admission.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {

namespace {

// A user's jobs not yet final as MaxSubmitJobsPerUser counts them: by QOS, by
// partition, and by both (a partition's own QOS counts the user's jobs in the
// partition as well as those in the QOS).
class QosSubmitTally {
 public:
  void Add(uid_t uid, const std::string& qos, const std::string& partition, int64_t n) {
    by_qos_[{uid, qos}] += n;
    by_partition_[{uid, partition}] += n;
    by_both_[{uid, qos, partition}] += n;
  }
  // What counts against `limit_qos` for a job of `uid` in `job_qos` and
  // `partition`: the user's jobs in limit_qos and, when limit_qos is the
  // partition's QOS rather than the job's, those in the partition too.
  int64_t Count(uid_t uid, const std::string& limit_qos, const std::string& job_qos,
                const std::string& partition) const {
    const int64_t in_qos = Get(by_qos_, {uid, limit_qos});
    if (limit_qos == job_qos) return in_qos;
    return in_qos + Get(by_partition_, {uid, partition}) -
           Get(by_both_, {uid, limit_qos, partition});
  }

 private:
  template <typename Map>
  static int64_t Get(const Map& map, const typename Map::key_type& key) {
    auto it = map.find(key);
    return it == map.end() ? 0 : it->second;
  }
  std::map<std::pair<uid_t, std::string>, int64_t> by_qos_;
  std::map<std::pair<uid_t, std::string>, int64_t> by_partition_;
  std::map<std::tuple<uid_t, std::string, std::string>, int64_t> by_both_;
};

constexpr char kPolicyViolation[] =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

}  // namespace

absl::Status Lifecycle::CheckTresMinsPerJob(const Job& job) const {
  const UserAssoc* assoc = account_policy_.Find(job.user_name, job.account, job.request.partition);
  if (assoc == nullptr) return absl::OkStatus();
  const AssocTres& limit = assoc->max_tres_mins_per_job;
  const TresMinutes most = bank().MaxCost(job);
  // Slurm's reasons (slurm_protocol_defs.c), checked in its TRES order.
  const struct {
    int64_t limit;
    double most;
    const char* reason;
    const char* unit;
  } checks[] = {
      {limit.cpus, most.cpu, "AssocMaxCpuMinutesPerJobLimit", "CPU-minutes"},
      {limit.mem_mb, most.mem, "AssocMaxMemMinutesPerJob", "MB-minutes"},
      {limit.nodes, most.node, "AssocMaxNodeMinutesPerJob", "node-minutes"},
      {limit.gpus, most.gpu, "AssocMaxGRESMinutesPerJob", "GPU-minutes"},
  };
  for (const auto& check : checks) {
    if (check.limit == kNoAssocLimit || check.most <= static_cast<double>(check.limit)) continue;
    return absl::InvalidArgumentError(
        absl::StrCat(kPolicyViolation, ": ", check.reason, ": this job may use ",
                     std::isinf(check.most) ? std::string("unlimited (no time limit)")
                                            : absl::StrFormat("%.1f", check.most),
                     " ", check.unit, "; its association allows ", check.limit, " per job"));
  }
  return absl::OkStatus();
}

absl::Status Lifecycle::CheckPolicy(const std::vector<const Job*>& jobs, size_t each,
                                    const std::set<uint64_t>& replacing, bool privileged) const {
  const auto n = static_cast<int64_t>(each);
  auto counted = [&](uint64_t id, const Job& other) {
    return !IsFinal(other.state) && replacing.count(id) == 0;
  };
  auto find_qos = [&](const std::string& name) -> const Qos* {
    auto it = std::find_if(qos_.begin(), qos_.end(), [&](const Qos& q) { return q.name == name; });
    return it == qos_.end() ? nullptr : &*it;
  };
  // MaxSubmitJobsPerUser of the job's QOS and of its partition's QOS (a limit:
  // operators' updates pass it, as Slurm's acct_policy_validate is skipped).
  const bool submit_limited = std::any_of(
      qos_.begin(), qos_.end(), [](const Qos& q) { return q.max_submit_jobs_per_user >= 0; });
  if (submit_limited && !privileged) {
    // Only the users being checked are counted (the one submitting or
    // updating): one comparison per job of the table, no map lookups.
    std::set<uid_t> uids;
    for (const Job* job : jobs) uids.insert(job->uid);
    QosSubmitTally tally;
    for (const auto& [id, other] : state_.jobs()) {
      if (uids.count(other.uid) != 0 && counted(id, other)) {
        tally.Add(other.uid, other.qos, other.request.partition, 1);
      }
    }
    for (const auto& [first, r] : state_.reservations()) {
      if (uids.count(r.uid) != 0) {
        tally.Add(r.uid, r.qos, r.partition, static_cast<int64_t>(r.count));
      }
    }
    for (const Job* job : jobs) {
      std::vector<std::string> limited = {job->qos};
      if (const PartitionConfig* p = config_->FindPartition(job->request.partition);
          p != nullptr && !p->qos.empty() && p->qos != job->qos) {
        limited.push_back(p->qos);
      }
      for (const std::string& name : limited) {
        const Qos* qos = find_qos(name);
        if (qos == nullptr || qos->max_submit_jobs_per_user < 0) continue;
        if (tally.Count(job->uid, name, job->qos, job->request.partition) + n >
            qos->max_submit_jobs_per_user) {
          return absl::InvalidArgumentError(kPolicyViolation);
        }
      }
      tally.Add(job->uid, job->qos, job->request.partition, n);
    }
  }
  if (!account_policy_.enforce.associations) return absl::OkStatus();
  std::vector<const Job*> live;
  for (const auto& [id, other] : state_.jobs()) {
    if (counted(id, other)) live.push_back(&other);
  }
  SubmitCounts counts = CountSubmitted(account_policy_, live);
  for (const auto& [first, r] : state_.reservations()) {
    counts.Add(account_policy_, r.account, r.user_name, static_cast<int64_t>(r.count));
  }
  const AssocChecks checks = privileged ? AssocChecks::kExistence : AssocChecks::kAll;
  for (const Job* job : jobs) {
    if (absl::Status s = CheckAssociation(account_policy_, *job, n, counts, checks); !s.ok()) {
      return s;
    }
    counts.Add(account_policy_, job->account, job->user_name, n);
  }
  if (privileged) return absl::OkStatus();
  if (account_policy_.enforce.limits) {
    for (const Job* job : jobs) {
      if (absl::Status s = CheckTresMinsPerJob(*job); !s.ok()) return s;
    }
  }
  return bank().CheckBalance(jobs, each, replacing);
}

absl::StatusOr<CheckedSubmission> Lifecycle::CheckSubmission(const SubmitRequest& request,
                                                             int64_t now) const {
  std::vector<std::string> qos_names;
  for (const Qos& qos : qos_) qos_names.push_back(qos.name);
  // The user's DefaultAccount and the association's DefaultQOS, when not named.
  SubmitRequest filled = request;
  FillAccountDefaults(account_policy_, request.user_name, &filled.account, &filled.qos);
  // As in Slurm, a job in a reservation that names a partition runs in that
  // partition unless it names its own.
  if (filled.partition.empty() && !filled.reservation.empty()) {
    const auto& table = state_.advance_reservations();
    if (auto it = table.find(filled.reservation); it != table.end()) {
      filled.partition = it->second.partition;
    }
  }
  absl::StatusOr<Job> made =
      JobFromRequest(filled, *config_, state_.nodes().Capacities(), qos_names);
  if (!made.ok()) return made.status();
  Job job = std::move(*made);
  if (const PartitionConfig* p = config_->FindPartition(job.request.partition); p != nullptr) {
    if (absl::Status s = CheckPartitionTakesJobs(*p); !s.ok()) return s;
  }
  if (absl::Status s = AdmitBurstBuffer(request, settings_.burst_buffer, state_.bb_pools(), job);
      !s.ok()) {
    return s;
  }
  std::vector<uint32_t> tasks;
  uint32_t max_running = 0;
  if (!request.array.empty()) {
    absl::StatusOr<ArraySpec> array = ParseArraySpec(request.array, config_->max_array_size);
    if (!array.ok()) return array.status();
    tasks = std::move(array->task_ids);
    max_running = array->max_running;
  }
  const size_t count = std::max<size_t>(1, tasks.size());

  // MaxJobCount: jobs in memory plus admissions not yet inserted.
  size_t reserved = 0;
  for (const auto& [first, r] : state_.reservations()) reserved += r.count;
  if (static_cast<int64_t>(state_.jobs().size() + reserved + count) > config_->max_job_count) {
    return absl::ResourceExhaustedError(
        absl::StrCat("Job count limit reached (MaxJobCount=", config_->max_job_count, ")"));
  }
  if (absl::Status s = CheckPolicy({&job}, count, {}, /*privileged=*/false); !s.ok()) return s;
  if (!job.reservation.empty()) {
    if (absl::Status s = CheckJobReservation(state_.advance_reservations(), job.reservation,
                                             job.user_name, job.account, now);
        !s.ok()) {
      return s;
    }
  }
  // --deadline: already past, or the time limit cannot fit before it (Slurm's
  // _valid_job_min_mem... job_desc checks: ESLURM_INVALID_TIME_LIMIT).
  if (job.request.deadline != 0 &&
      (job.request.deadline < now || (job.request.time_limit != kUnlimited &&
                                      now + job.request.time_limit > job.request.deadline))) {
    return absl::InvalidArgumentError(
        "Requested time limit is invalid (missing or exceeds some limit)");
  }
  if (!job.dependency.empty()) {
    absl::StatusOr<Dependency> dependency =
        ParseDependency(job.dependency, config_->max_array_size);
    if (!dependency.ok()) return dependency.status();
    if (absl::Status s = ValidateDependencyOf(job, *dependency, state_.jobs()); !s.ok()) return s;
  }
  CheckedSubmission checked;
  checked.job = std::move(job);
  checked.tasks = std::move(tasks);
  checked.max_running = max_running;
  checked.count = count;
  checked.warnings = bank().BudgetWarnings(checked.job, count);
  return checked;
}

absl::StatusOr<Admitted> Lifecycle::Admit(const SubmitRequest& request, int64_t now) {
  absl::StatusOr<CheckedSubmission> checked = CheckSubmission(request, now);
  if (!checked.ok()) return checked.status();
  Job& job = checked->job;
  const std::vector<uint32_t>& tasks = checked->tasks;
  const uint32_t max_running = checked->max_running;
  const size_t count = checked->count;

  // Accepted: reserve the ids (an array's tasks take consecutive ids; the
  // first is the array's id) and fill in what submission fixes.
  job.state = JobState::kPending;
  job.final_state = JobState::kCompleted;
  job.submit_time = now;
  // Unknown (0) for a job held or waiting on a dependency, until a pass finds
  // it eligible (Slurm's EligibleTime); a --begin time is known at once.
  job.eligible_time = job.request.begin_time > now          ? job.request.begin_time
                      : job.held || !job.dependency.empty() ? 0
                                                            : now;
  if (job.held) job.reason = job.held_by_admin ? "JobHeldAdmin" : "JobHeldUser";
  Admitted admitted;
  admitted.first_id = next_job_id_;
  admitted.warnings = std::move(checked->warnings);
  next_job_id_ += count;
  AdmissionReservation reservation;
  reservation.uid = job.uid;
  reservation.qos = job.qos;
  reservation.partition = job.request.partition;
  reservation.count = count;
  reservation.account = job.account;
  reservation.user_name = job.user_name;
  if (account_policy_.enforce.safe)
    reservation.cost = bank().MaxCost(job) * static_cast<double>(count);
  state_.Reserve(admitted.first_id, std::move(reservation));
  const std::string base_script =
      job.UsesBurstBuffer() ? RemoveBbDirectives(request.script, settings_.burst_buffer->directive)
                            : std::string();
  admitted.jobs.reserve(count);
  admitted.bb_scripts.reserve(count);
  for (size_t k = 0; k < count; ++k) {
    Job task = job;
    task.id = admitted.first_id + k;
    if (!tasks.empty()) {
      task.array_job_id = admitted.first_id;
      task.array_task_id = static_cast<int32_t>(tasks[k]);
      task.array_max_running = static_cast<int32_t>(max_running);
    }
    std::string bb_script;
    if (task.UsesBurstBuffer()) {
      BbSymbols symbols;
      symbols.job_id = static_cast<uint32_t>(task.id);
      if (task.array_job_id != 0) {
        symbols.array_job_id = static_cast<uint32_t>(task.array_job_id);
        symbols.array_task_id = static_cast<uint32_t>(task.array_task_id);
      }
      symbols.work_dir = request.work_dir;
      symbols.user_name = task.user_name;
      symbols.job_name = task.name;
      std::vector<std::string> lines;
      for (const std::string& line :
           std::vector<std::string>(absl::StrSplit(task.bb_directives, '\n', absl::SkipEmpty()))) {
        lines.push_back(ExpandBbSymbols(line, symbols));
      }
      task.bb_directives = absl::StrJoin(lines, "\n");
      bb_script = MergeBbDirectivesIntoScript(base_script, lines);
    }
    admitted.jobs.push_back(std::move(task));
    admitted.bb_scripts.push_back(std::move(bb_script));
  }
  return admitted;
}

Effects Lifecycle::Insert(Admitted admitted, int64_t now) {
  (void)now;
  state_.Begin();
  Effects effects;
  state_.TakeReservation(admitted.first_id);
  if (!admitted.jobs.empty()) {
    const Job& first = admitted.jobs.front();
    effects.log.push_back(absl::StrCat(
        "JobId=", first.id, " submitted by ", first.user_name, "(", first.uid,
        "): Partition=", first.request.partition, " Nodes=", first.request.num_nodes,
        " CPUs/task=", first.request.cpus_per_task, " GPUs/node=", first.request.gpus_per_node,
        first.array_job_id != 0 ? absl::StrCat(" ArrayTasks=", admitted.jobs.size())
                                : std::string()));
  }
  // Held jobs cannot start, and admission already gave them their reason: a
  // pass would only walk the queue (a workflow manager submitting thousands
  // held paid one per submission). The periodic full pass ranks them.
  effects.reschedule = std::any_of(admitted.jobs.begin(), admitted.jobs.end(),
                                   [](const Job& job) { return !job.held; });
  // priority/basic's place in line: one for the whole array, as Slurm gives an
  // array one priority; a held job takes its place when released.
  if (!admitted.jobs.empty() && !admitted.jobs.front().held) {
    const int64_t place = TakeBasicPriority();
    const bool basic = config_->priority_type == "priority/basic";
    for (Job& job : admitted.jobs) {
      job.basic_priority = place;
      if (basic && job.admin_priority == 0) job.priority = std::max<int64_t>(1, place - job.nice);
    }
  }
  // Moved in, not copied: the admitted tasks' strings become the table's, so
  // a large array leaves no freed copies between the jobs it keeps.
  for (Job& job : admitted.jobs) state_.Insert(std::move(job));
  return state_.Close(std::move(effects));
}

void Lifecycle::ReleaseReservation(uint64_t first_id) { state_.ReleaseReservation(first_id); }

}  // namespace skiff::ctld
