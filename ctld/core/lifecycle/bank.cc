#include "ctld/core/lifecycle/bank.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/billing.h"
#include "ctld/core/run_charge.h"

namespace skiff::ctld {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

// The balance of the job's own association (its user in its account).
BankKey OwnBankKey(const Job& job) {
  return BankKey::Of(AssocKey::User(job.account, job.user_name));
}
BankKey AccountBankKey(const std::string& account) {
  return BankKey::Of(AssocKey::Account(account));
}

std::string Units(double value) { return absl::StrFormat("%.1f", value); }

// What an hour of each budget TRES is called in a warning ("GPU" -> GPU-hours).
const char* BudgetHoursUnit(BudgetTres tres) {
  switch (tres) {
    case BudgetTres::kBilling:
      return "billing";
    case BudgetTres::kCpu:
      return "CPU";
    case BudgetTres::kMem:
      return "MB";
    case BudgetTres::kNode:
      return "node";
    case BudgetTres::kGpu:
      return "GPU";
  }
  return "billing";
}

}  // namespace

Bank::HeldTres Bank::JobHeldTres(const Job& job) const {
  HeldTres held;
  if (!job.nodes.empty()) {
    for (const std::vector<int>& on_node : job.gpus_by_node) held.gpus += on_node.size();
    for (const GpuShare& on_node : job.shares_by_node) held.shares += on_node.count;
    held.cpus = job.AllocCpus();
    held.mem_mb = job.AllocMemMb();
    held.nodes = static_cast<int64_t>(job.nodes.size());
    return held;
  }
  // Not started: the most it could hold where it may be placed.
  const PartitionConfig* partition = config_.FindPartition(job.request.partition);
  const JobRequest& r = job.request;
  const int64_t nodes = std::max(1, r.MaxNodes());
  int64_t cpus_per_node = r.MinCpusPerNode();
  uint64_t mem_per_node = r.mem_per_node_mb;
  if (r.exclusive && partition != nullptr) {
    // Whole nodes: the largest of the partition's, so the estimate is never low.
    for (const NodeCapacity& node : state_.nodes().Capacities()) {
      if (std::find(partition->nodes.begin(), partition->nodes.end(), node.name) ==
          partition->nodes.end()) {
        continue;
      }
      cpus_per_node = std::max<int64_t>(cpus_per_node, node.cpus);
      mem_per_node = std::max(mem_per_node, node.memory_mb);
    }
  }
  held.cpus = std::max<int64_t>(nodes * cpus_per_node, r.TotalCpus());
  held.mem_mb = mem_per_node > 0 ? mem_per_node * static_cast<uint64_t>(nodes)
                                 : r.mem_per_cpu_mb * static_cast<uint64_t>(held.cpus);
  held.nodes = nodes;
  held.gpus = nodes * r.gpus_per_node;
  held.shares = nodes * r.shares_per_node;
  return held;
}

double Bank::JobBilling(const Job& job) const {
  const PartitionConfig* partition = config_.FindPartition(job.request.partition);
  BillingWeights weights;
  if (partition != nullptr) {
    absl::StatusOr<BillingWeights> parsed = ParseBillingWeights(partition->tres_billing_weights);
    if (parsed.ok()) weights = *parsed;  // checked when skiff.conf was read
  }
  const HeldTres held = JobHeldTres(job);
  return Billing(weights, held.cpus, held.mem_mb, held.gpus, held.nodes, held.Shards(job),
                 held.Mps(job));
}

TresMinutes Bank::JobMinutes(const Job& job, int64_t seconds) const {
  const HeldTres held = JobHeldTres(job);
  return RunMinutes(JobBilling(job), static_cast<double>(held.cpus),
                    static_cast<double>(held.mem_mb), static_cast<double>(held.nodes),
                    static_cast<double>(held.gpus), static_cast<double>(seconds));
}

TresCounts Bank::RunTresOf(const Job& job) const {
  std::map<std::string, int64_t> gpus_by_type;
  for (size_t k = 0; k < job.nodes.size() && k < job.gpus_by_node.size(); ++k) {
    const Node* node = state_.nodes().Find(job.nodes[k]);
    gpus_by_type[node == nullptr ? "" : node->gpu_type] +=
        static_cast<int64_t>(job.gpus_by_node[k].size());
  }
  const HeldTres held = JobHeldTres(job);
  return RunTres(job.AllocCpus(), job.AllocMemMb(), static_cast<int64_t>(job.nodes.size()),
                 JobBilling(job), gpus_by_type, held.Shards(job), held.Mps(job));
}

int64_t Bank::MaxRun(const Job& job) const {
  return MaxRunSeconds(job.request.time_limit, config_.over_time_limit, config_.kill_wait);
}

TresMinutes Bank::MaxCost(const Job& job) const {
  const int64_t max_run = MaxRun(job);
  if (max_run == kUnlimited)
    return TresMinutes{kInfinite, kInfinite, kInfinite, kInfinite, kInfinite};
  return JobMinutes(job, max_run);
}

std::vector<std::string> Bank::QosOf(const std::string& qos, const std::string& partition) const {
  std::vector<std::string> out;
  if (!qos.empty()) out.push_back(qos);
  if (const PartitionConfig* p = config_.FindPartition(partition);
      p != nullptr && !p->qos.empty() && p->qos != qos) {
    out.push_back(p->qos);
  }
  return out;
}

std::vector<BankKey> Bank::BudgetKeys(const Job& job) const {
  std::vector<BankKey> keys;
  if (!job.account.empty()) {
    if (const UserAssoc* own = policy_.Find(job.user_name, job.account, job.request.partition);
        own != nullptr && NamesAnyTres(own->grp_tres_mins)) {
      keys.push_back(OwnBankKey(job));
    }
    for (const std::string& account : policy_.Lineage(job.account)) {
      auto policy = policy_.accounts.find(account);
      if (policy != policy_.accounts.end() && NamesAnyTres(policy->second.grp_tres_mins)) {
        keys.push_back(AccountBankKey(account));
      }
    }
  }
  for (const std::string& name : QosOf(job.qos, job.request.partition)) {
    for (const Qos& qos : qos_) {
      if (qos.name == name && NamesAnyTres(qos.grp_tres_mins)) keys.push_back(BankKey::OfQos(name));
    }
  }
  return keys;
}

std::map<BankKey, Bank::Balance> Bank::Balances(const std::set<uint64_t>& leaving) const {
  std::map<BankKey, Balance> out;
  for (const auto& [name, account] : policy_.accounts) {
    out[AccountBankKey(name)].limit = account.grp_tres_mins;
  }
  // A user's own GrpTRESMins: its partition-less association's (else the
  // first per-partition one's); the bank keeps one balance per account|user.
  for (const UserAssoc& user : policy_.users) {
    Balance& own = out[BankKey::Of(AssocKey::User(user.account, user.user))];
    if (user.partition.empty() || !NamesAnyTres(own.limit)) own.limit = user.grp_tres_mins;
  }
  auto add = [&](const std::string& account, const std::string& user, const TresMinutes& used,
                 const TresMinutes& held) {
    if (!user.empty()) {
      Balance& own = out[BankKey::Of(AssocKey::User(account, user))];
      own.used += used;
      own.held += held;
    }
    for (const std::string& up : policy_.Lineage(account)) {
      Balance& above = out[AccountBankKey(up)];
      above.used += used;
      above.held += held;
    }
  };
  for (const Qos& qos : qos_) out[BankKey::OfQos(qos.name)].limit = qos.grp_tres_mins;
  auto add_qos = [&](const std::string& job_qos, const std::string& partition,
                     const TresMinutes& held) {
    for (const std::string& qos : QosOf(job_qos, partition)) out[BankKey::OfQos(qos)].held += held;
  };
  for (const auto& [record_key, used] : state_.bank_used()) {
    const BankKey key = BankKey::FromRecordKey(record_key);
    if (key.is_qos()) {
      out[key].used += used;
      continue;
    }
    add(key.assoc.account, key.assoc.user, used, {});
  }
  for (const auto& [id, job] : state_.jobs()) {
    if (IsFinal(job.state) || leaving.count(id) != 0) continue;
    // Running jobs hold their maximum cost; pending ones too when `safe`
    // admitted them against it.
    if (HoldsResources(job.state) || (job.state == JobState::kPending && policy_.enforce.safe)) {
      const TresMinutes most = MaxCost(job);
      if (!job.account.empty()) add(job.account, job.user_name, {}, most);
      add_qos(job.qos, job.request.partition, most);
    }
  }
  // Admissions not yet inserted hold too.
  for (const auto& [first, r] : state_.reservations()) {
    if (!r.account.empty()) add(r.account, r.user_name, {}, r.cost);
    add_qos(r.qos, r.partition, r.cost);
  }
  return out;
}

std::map<AssocKey, double> Bank::AssocUsageAt(int64_t now) const {
  std::map<AssocKey, double> out;
  for (const auto& [record_key, record] : state_.assoc_usage()) {
    std::optional<AssocKey> key = AssocKey::FromRecordKey(record_key);
    if (!key) continue;
    out[key->WithoutPartition()] = DecayedUsage(record.usage, record.as_of, now, decay_half_life_);
  }
  return out;
}

void Bank::FillBilling(CtldSchedulerInputs& inputs) const {
  // QOS limits hold whatever AccountingStorageEnforce says, as the other QOS
  // limits do; association limits only with `limits`.
  const bool qos_limited = std::any_of(qos_.begin(), qos_.end(), [](const Qos& q) {
    return NamesAnyTres(q.grp_tres_run_mins) || NamesAnyTres(q.max_tres_run_mins_per_user) ||
           NamesAnyTres(q.max_tres_mins_per_job);
  });
  const bool assoc_limited =
      policy_.enforce.limits &&
      (std::any_of(policy_.accounts.begin(), policy_.accounts.end(),
                   [](const auto& entry) {
                     return NamesAnyTres(entry.second.grp_tres_mins) ||
                            NamesAnyTres(entry.second.grp_tres_run_mins);
                   }) ||
       std::any_of(policy_.users.begin(), policy_.users.end(), [](const UserAssoc& user) {
         return NamesAnyTres(user.grp_tres_mins) || NamesAnyTres(user.grp_tres_run_mins);
       }));
  const bool qos_budget = std::any_of(qos_.begin(), qos_.end(),
                                      [](const Qos& q) { return NamesAnyTres(q.grp_tres_mins); });
  if (!qos_limited && !assoc_limited && !qos_budget) return;
  for (const Job* job : inputs.running) inputs.per_minute[job->id] = JobMinutes(*job, 60);
  for (const Job* job : inputs.pending) inputs.per_minute[job->id] = JobMinutes(*job, 60);
  if (!assoc_limited && !qos_budget) return;
  // Per account, per user's association and per QOS.
  const std::map<BankKey, Balance> balances = Balances();
  for (const auto& [key, balance] : balances) {
    if (!key.is_qos()) inputs.tres_mins_used[key.assoc] = balance.used;
  }
  for (Qos& qos : inputs.qos) {
    auto balance = balances.find(BankKey::OfQos(qos.name));
    if (balance != balances.end()) qos.tres_mins_used = balance->second.used;
  }
  for (const Job* job : inputs.running) inputs.max_cost[job->id] = MaxCost(*job);
  for (const Job* job : inputs.pending) inputs.max_cost[job->id] = MaxCost(*job);
}

absl::Status Bank::CheckBalance(const std::vector<const Job*>& jobs, size_t each,
                                const std::set<uint64_t>& replacing) const {
  if (!policy_.enforce.safe) return absl::OkStatus();
  // Computed once, when the first limited account is met. Until then no job
  // checked had a limited account above it, so what they hold changes no
  // balance that a later job is checked against.
  std::map<BankKey, Balance> balances;
  bool computed = false;
  for (const Job* job : jobs) {
    const TresMinutes cost = MaxCost(*job) * static_cast<double>(each);
    const std::vector<BankKey> keys = BudgetKeys(*job);
    for (const BankKey& key : keys) {
      if (!computed) {
        balances = Balances(replacing);
        computed = true;
      }
      const Balance& b = balances[key];
      if (std::optional<BudgetTres> over = OverBudget(b.limit, b.used + b.held, cost)) {
        const BudgetTres t = *over;
        const double left = b.limit[t] - b.used[t] - b.held[t];
        return absl::InvalidArgumentError(absl::StrCat(
            "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
            "limits): ",
            key.is_qos() ? MinutesLimitReason(MinutesLimit::kQosGrpMins, t)
                         : AssocGrpMinutesReason(t),
            ": ", key.Describe(), " has ", Units(std::max(0.0, left)), " of ", Units(b.limit[t]),
            " ", BudgetUnit(t), " left (used ", Units(b.used[t]), ", held by jobs ",
            Units(b.held[t]), "); this job may use ",
            std::isinf(cost[t]) ? std::string("unlimited (no time limit)") : Units(cost[t])));
      }
    }
    if (computed) {
      // Every balance above the job holds it, limited or not: a later job
      // may be checked against one of them.
      if (!job->account.empty()) {
        balances[OwnBankKey(*job)].held += cost;
        for (const std::string& up : policy_.Lineage(job->account)) {
          balances[AccountBankKey(up)].held += cost;
        }
      }
      for (const std::string& qos : QosOf(job->qos, job->request.partition)) {
        balances[BankKey::OfQos(qos)].held += cost;
      }
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> Bank::BudgetWarnings(const Job& job, size_t count) const {
  const int64_t percent = config_.scheduler_parameters.budget_warn_percent;
  if (percent <= 0 || job.account.empty()) return {};
  const std::vector<BankKey> keys = BudgetKeys(job);
  if (keys.empty()) return {};
  std::map<BankKey, Balance> balances = Balances();
  const TresMinutes cost = MaxCost(job) * static_cast<double>(count);
  for (const BankKey& key : keys) {
    const Balance& b = balances[key];
    for (BudgetTres t : kBudgetTres) {
      if (b.limit[t] < 0 || cost[t] <= 0) continue;
      const double left = std::max(0.0, b.limit[t] - b.used[t] - b.held[t]);
      if (cost[t] <= left * static_cast<double>(percent) / 100.0) continue;
      const std::string unit = absl::StrCat(BudgetHoursUnit(t), "-hours");
      return {absl::StrCat(
          "this job may use ",
          std::isinf(cost[t]) ? absl::StrCat("unlimited ", unit, " (it has no time limit)")
                              : absl::StrFormat("up to %.1f %s", cost[t] / 60.0, unit),
          "; ", key.Describe(), " has ", absl::StrFormat("%.1f", left / 60.0), " left")};
    }
  }
  return {};
}

std::vector<BankKey> Bank::ChargedKeys(const Job& job) const {
  std::vector<BankKey> keys;
  if (!job.account.empty()) keys.push_back(OwnBankKey(job));
  for (const std::string& qos : QosOf(job.qos, job.request.partition))
    keys.push_back(BankKey::OfQos(qos));
  return keys;
}

}  // namespace skiff::ctld
