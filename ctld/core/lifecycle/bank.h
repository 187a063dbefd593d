// The bank: what jobs cost under their partitions' TRESBillingWeights, what
// ended runs used of the budgets (GrpTRESMins on an association, an account
// or a QOS: billing, cpu, mem, node, gres/gpu; ctld/core/budget.h), what jobs
// not yet ended hold, and the check that no budget is ever overdrawn.
//
// Every query is const: the bank reads the Lifecycle's configuration, its
// journaled tables (the "bank" records of what ended runs used), its QOS and
// its account policy, and changes none of them. Charging a run (what changes
// the "bank" records) is an event, and stays the Lifecycle's (ChargeRun).
//
// A Bank is a view: it holds references to what it reads and is valid until
// the next change of any of them; make one per use (Lifecycle::bank()).
// Thread-safety: none; under the Controller's mutex, as the Lifecycle.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_BANK_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_BANK_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config/config.h"
#include "ctld/core/account_policy.h"
#include "ctld/core/budget.h"
#include "ctld/core/job.h"
#include "ctld/core/lifecycle/journaled_state.h"
#include "ctld/core/scheduler/from_ctld.h"

namespace skiff::ctld {

class Bank {
 public:
  // Each argument outlives the Bank.
  Bank(const SkiffConfig& config, const JournaledState& state, const AccountPolicy& policy,
       const std::vector<Qos>& qos, double decay_half_life)
      : config_(config),
        state_(state),
        policy_(policy),
        qos_(qos),
        decay_half_life_(decay_half_life) {}

  // What a job's resources are worth per minute (its partition's
  // TRESBillingWeights): what it holds when allocated, else what it asked for,
  // whole nodes on an exclusive partition or with --exclusive.
  double JobBilling(const Job& job) const;
  // What the job holds (allocated) or may hold at most (pending), as
  // JobBilling counts it.
  struct HeldTres {
    int64_t cpus = 0;
    uint64_t mem_mb = 0;
    int64_t nodes = 0;
    int64_t gpus = 0;
    int64_t shares = 0;  // gres/shard or gres/mps (the job's share_kind)
    int64_t Shards(const Job& job) const {
      return job.request.share_kind == GpuShareKind::kShard ? shares : 0;
    }
    int64_t Mps(const Job& job) const {
      return job.request.share_kind == GpuShareKind::kMps ? shares : 0;
    }
  };
  HeldTres JobHeldTres(const Job& job) const;
  // What holding that for `seconds` costs, per budget TRES.
  TresMinutes JobMinutes(const Job& job, int64_t seconds) const;
  // What an allocated job holds per TRES (Job::alloc_tres): its CPUs, memory,
  // nodes, JobBilling, and its GPUs by their nodes' configured type.
  TresCounts RunTresOf(const Job& job) const;
  // The most a run of the job may last (run_charge.h): its time limit, the
  // OverTimeLimit grace and KillWait; kUnlimited without a time limit.
  int64_t MaxRun(const Job& job) const;
  // The most a run of the job may cost: JobMinutes over MaxRun (infinite
  // without a time limit). What admission (`safe`) and the scheduler reserve.
  TresMinutes MaxCost(const Job& job) const;
  struct Balance {
    TresMinutes limit = kNoBudget;  // GrpTRESMins; negative = none
    TresMinutes used;               // ended runs of the subtree (or association)
    TresMinutes held;               // the most its jobs not yet ended may use
  };
  // Per account (its subtree), per user in an account (its own jobs) and per
  // QOS. The jobs in `leaving` (an update's jobs, before it) hold nothing;
  // admissions not yet inserted hold their most, in their accounts.
  std::map<BankKey, Balance> Balances(const std::set<uint64_t>& leaving = {}) const;
  // The balances whose GrpTRESMins a job counts against, where set: its own
  // association's, its accounts' up to root, and its QOS's.
  std::vector<BankKey> BudgetKeys(const Job& job) const;
  // The balances a run of the job is charged to: its own association's (with
  // an account) and its QOS's, limited or not.
  std::vector<BankKey> ChargedKeys(const Job& job) const;
  // The QOS whose limits and budgets a job counts against: its own and its
  // partition's QOS.
  std::vector<std::string> QosOf(const std::string& qos, const std::string& partition) const;
  // One line for a submission of `count` such jobs whose most would take more
  // than SchedulerParameters=budget_warn_percent (default 50) of what a
  // budget above it has left: "this job may use up to 16.0 GPU-hours; account
  // lab has 12.5 left". None when nothing is that close (or the percent is 0).
  std::vector<std::string> BudgetWarnings(const Job& job, size_t count) const;
  // With AccountingStorageEnforce=safe: refuses `jobs` (each `each` times, in
  // order, each held with those before it) when the maximum cost does not fit
  // what a budget has left; the jobs in `replacing` (an update's, before it)
  // hold nothing.
  absl::Status CheckBalance(const std::vector<const Job*>& jobs, size_t each,
                            const std::set<uint64_t>& replacing) const;
  // Fair-share usage per association, decayed to `now` (sshare's RawUsage).
  std::map<AssocKey, double> AssocUsageAt(int64_t now) const;
  // The scheduler's billing inputs (used per account, each job's maximum cost),
  // when some account or QOS has a billing limit.
  void FillBilling(CtldSchedulerInputs& inputs) const;

 private:
  const SkiffConfig& config_;
  const JournaledState& state_;
  const AccountPolicy& policy_;
  const std::vector<Qos>& qos_;
  const double decay_half_life_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_BANK_H_
