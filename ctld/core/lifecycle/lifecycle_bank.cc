// Service units (GrpTRESMins=billing=N on an account): what jobs cost, what
// ended runs used, what jobs not yet ended hold, and the check that no account
// is ever overdrawn. Runs under the Controller's mutex like the rest of the
// Lifecycle; the used amounts are stored as "bank" records in the same
// transaction as the event that charged them, so a restart neither loses nor
// repeats a charge.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/billing.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/run_charge.h"

namespace skiff::ctld {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

std::string BankKey(const Job& job) { return absl::StrCat(job.account, "|", job.user_name); }

std::string Units(double value) { return absl::StrFormat("%.1f", value); }

}  // namespace

double Lifecycle::JobBilling(const Job& job) const {
  const PartitionConfig* partition = config_->FindPartition(job.request.partition);
  BillingWeights weights;
  if (partition != nullptr) {
    absl::StatusOr<BillingWeights> parsed = ParseBillingWeights(partition->tres_billing_weights);
    if (parsed.ok()) weights = *parsed;  // checked when skiff.conf was read
  }
  if (!job.nodes.empty()) {
    int64_t gpus = 0;
    for (const std::vector<int>& on_node : job.gpus_by_node) gpus += on_node.size();
    const auto nodes = static_cast<int64_t>(job.nodes.size());
    return Billing(weights, job.AllocCpus(), job.AllocMemMb(), gpus, nodes);
  }
  // Not started: the most it could hold where it may be placed.
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
  const int64_t cpus = std::max<int64_t>(nodes * cpus_per_node, r.TotalCpus());
  const uint64_t mem = mem_per_node > 0 ? mem_per_node * static_cast<uint64_t>(nodes)
                                        : r.mem_per_cpu_mb * static_cast<uint64_t>(cpus);
  return Billing(weights, cpus, mem, nodes * r.gpus_per_node, nodes);
}

TresCounts Lifecycle::RunTresOf(const Job& job) const {
  std::map<std::string, int64_t> gpus_by_type;
  for (size_t k = 0; k < job.nodes.size() && k < job.gpus_by_node.size(); ++k) {
    const Node* node = state_.nodes().Find(job.nodes[k]);
    gpus_by_type[node == nullptr ? "" : node->gpu_type] +=
        static_cast<int64_t>(job.gpus_by_node[k].size());
  }
  return RunTres(job.AllocCpus(), job.AllocMemMb(), static_cast<int64_t>(job.nodes.size()),
                 JobBilling(job), gpus_by_type);
}

int64_t Lifecycle::MaxRun(const Job& job) const {
  return MaxRunSeconds(job.request.time_limit, config_->over_time_limit, config_->kill_wait);
}

double Lifecycle::MaxCost(const Job& job) const {
  const int64_t max_run = MaxRun(job);
  if (max_run == kUnlimited) return kInfinite;
  return BillingMinutes(JobBilling(job), max_run);
}

void Lifecycle::ChargeRun(const Job& job, int64_t now, Effects& effects) {
  if (job.start_time <= 0 || job.nodes.empty()) return;
  // One figure for every book: the account's service units, sshare's RawUsage
  // and the fair share all charge these seconds.
  const int64_t seconds = ChargedSeconds(job.start_time, now, job.suspended_total, MaxRun(job));
  if (seconds <= 0) return;
  const double billing = JobBilling(job);
  AccrueUsage(job, billing * static_cast<double>(seconds), now, effects);
  const double cost = BillingMinutes(billing, seconds);
  if (job.account.empty() || cost <= 0) return;
  const std::string key = BankKey(job);
  double& used = state_.MutBankUsed(key);
  used += cost;
  effects.records.push_back(BankChange{key, used});
}

std::map<std::string, Lifecycle::Balance> Lifecycle::Balances(
    const std::set<uint64_t>& leaving) const {
  std::map<std::string, Balance> out;
  for (const auto& [name, account] : account_policy_.accounts) {
    out[name].limit = account.grp_billing_mins;
  }
  auto add = [&](const std::string& account, const std::string& user, double used, double held) {
    Balance& own = out[absl::StrCat(account, "|", user)];
    own.used += used;
    own.held += held;
    for (const std::string& up : account_policy_.Lineage(account)) {
      out[up].used += used;
      out[up].held += held;
    }
  };
  for (const auto& [key, used] : state_.bank_used()) {
    const size_t bar = key.find('|');
    add(key.substr(0, bar), bar == std::string::npos ? "" : key.substr(bar + 1), used, 0);
  }
  for (const auto& [id, job] : state_.jobs()) {
    if (IsFinal(job.state) || job.account.empty() || leaving.count(id) != 0) continue;
    // Running jobs hold their maximum cost; pending ones too when `safe`
    // admitted them against it.
    if (HoldsResources(job.state) ||
        (job.state == JobState::kPending && account_policy_.enforce.safe)) {
      add(job.account, job.user_name, 0, MaxCost(job));
    }
  }
  return out;
}

std::map<std::string, double> Lifecycle::AssocUsageAt(int64_t now) const {
  std::map<std::string, double> out;
  for (const auto& [key, record] : state_.assoc_usage()) {
    out[key] = DecayedUsage(record.usage, record.as_of, now, settings_.decay_half_life);
  }
  return out;
}

void Lifecycle::FillBilling(CtldSchedulerInputs& inputs) const {
  if (!account_policy_.enforce.limits) return;
  const bool limited =
      std::any_of(account_policy_.accounts.begin(), account_policy_.accounts.end(),
                  [](const auto& entry) { return entry.second.grp_billing_mins >= 0; });
  if (!limited) return;
  for (const auto& [name, balance] : Balances()) {
    if (name.find('|') == std::string::npos) inputs.billing_used[name] = balance.used;
  }
  for (const Job* job : inputs.running) inputs.max_cost[job->id] = MaxCost(*job);
  for (const Job* job : inputs.pending) inputs.max_cost[job->id] = MaxCost(*job);
}

absl::Status Lifecycle::CheckBalance(const std::vector<const Job*>& jobs, size_t each,
                                     const std::set<uint64_t>& replacing) const {
  if (!account_policy_.enforce.safe) return absl::OkStatus();
  // Computed once, when the first limited account is met. Until then no job
  // checked had a limited account above it, so what they hold changes no
  // balance that a later job is checked against.
  std::map<std::string, Balance> balances;
  bool computed = false;
  for (const Job* job : jobs) {
    const double cost = MaxCost(*job) * static_cast<double>(each);
    const std::vector<std::string> lineage = account_policy_.Lineage(job->account);
    for (const std::string& account : lineage) {
      auto policy = account_policy_.accounts.find(account);
      if (policy == account_policy_.accounts.end() || policy->second.grp_billing_mins < 0) {
        continue;
      }
      if (!computed) {
        balances = Balances(replacing);
        // Admissions not yet inserted hold too.
        for (const auto& [first, r] : state_.reservations()) {
          for (const std::string& up : account_policy_.Lineage(r.account))
            balances[up].held += r.cost;
        }
        computed = true;
      }
      const Balance& b = balances[account];
      const double left = b.limit - b.used - b.held;
      if (cost > left) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
            "limits): AssocGrpBillingMinutes: account ",
            account, " has ", Units(std::max(0.0, left)), " of ", Units(b.limit),
            " billing-minutes left (used ", Units(b.used), ", held by jobs ", Units(b.held),
            "); this job may use ",
            std::isinf(cost) ? std::string("unlimited (no time limit)") : Units(cost)));
      }
    }
    if (computed) {
      for (const std::string& up : lineage) balances[up].held += cost;
    }
  }
  return absl::OkStatus();
}

void Lifecycle::AccrueUsage(const Job& job, double billing_seconds, int64_t now, Effects& effects) {
  double factor = 1.0;
  for (const Qos& qos : qos_) {
    if (qos.name == job.qos) factor = qos.usage_factor;
  }
  UserUsageRecord& record = state_.MutUsage(job.user_name);
  record.usage = ::skiff::ctld::AccrueUsage(record.usage, record.as_of, billing_seconds, factor,
                                            now, settings_.decay_half_life);
  record.as_of = now;
  effects.records.push_back(UsageChange{job.user_name, record});
  // The same per association, for sshare and the account tree's fair share.
  const std::string key = absl::StrCat(job.account, "|", job.user_name);
  UserUsageRecord& assoc = state_.MutAssocUsage(key);
  assoc.usage = ::skiff::ctld::AccrueUsage(assoc.usage, assoc.as_of, billing_seconds, factor, now,
                                           settings_.decay_half_life);
  assoc.as_of = now;
  effects.records.push_back(AssocUsageChange{key, assoc});
}

}  // namespace skiff::ctld
