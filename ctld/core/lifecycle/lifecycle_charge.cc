// Charging a run (bank.h holds the queries): what it used goes into the
// budgets' "bank" records and the fair-share usage in the same transaction as
// the event that ended it, so a restart neither loses nor repeats a charge.
// Runs under the Controller's mutex like the rest of the Lifecycle.
#include "ctld/core/lifecycle/bank.h"
#include "ctld/core/lifecycle/lifecycle.h"
#include "ctld/core/run_charge.h"

namespace skiff::ctld {

void Lifecycle::ChargeRun(const Job& job, int64_t now, Effects& effects) {
  if (job.start_time <= 0 || job.nodes.empty()) return;
  // One figure for every book: the account's budgets, sshare's RawUsage and
  // the fair share all charge these seconds.
  const Bank bank = this->bank();
  const int64_t seconds =
      ChargedSeconds(job.start_time, now, job.suspended_total, bank.MaxRun(job));
  if (seconds <= 0) return;
  const double billing = bank.JobBilling(job);
  AccrueUsage(job, billing * static_cast<double>(seconds), now, effects);
  const TresMinutes cost = bank.JobMinutes(job, seconds);
  if (cost.IsZero()) return;
  for (const BankKey& key : bank.ChargedKeys(job)) {
    const std::string record_key = key.RecordKey();
    TresMinutes& used = state_.MutBankUsed(record_key);
    used += cost;
    effects.records.push_back(BankChange{record_key, used});
  }
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
  const std::string key = AssocKey::User(job.account, job.user_name).UsageRecordKey();
  UserUsageRecord& assoc = state_.MutAssocUsage(key);
  assoc.usage = ::skiff::ctld::AccrueUsage(assoc.usage, assoc.as_of, billing_seconds, factor, now,
                                           settings_.decay_half_life);
  assoc.as_of = now;
  effects.records.push_back(AssocUsageChange{key, assoc});
}

}  // namespace skiff::ctld
