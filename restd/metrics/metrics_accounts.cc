// Skiff's account, user and QOS families: the GPUs their running jobs hold,
// their GPU limits, and the budget bank's GPU-hours (used, held, budget).
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/accounts_usage.h"
#include "restd/metrics/metrics_internal.h"

namespace skiff::restd::metrics_internal {
namespace {

bool HasLimit(const v1::Tres& tres) { return tres.has_gpu() && tres.gpu() >= 0; }

}  // namespace

void AddAccountGpuMetrics(const v1::GetAccountsReply& accounts, const v1::GetQosReply* qos,
                          Exposition& out) {
  // What jobs hold now, from ctld's in-use tables: a user's jobs in an
  // account, and an account's whole subtree.
  constexpr char kUserGpus[] = "GPUs the user's running jobs in the account hold";
  constexpr char kAccountGpus[] = "GPUs the running jobs of the account and its sub-accounts hold";
  out.Declare("skiff_user_gpus_allocated", kUserGpus, MetricType::kGauge);
  out.Declare("skiff_account_gpus_allocated", kAccountGpus, MetricType::kGauge);
  for (const v1::AssocUsage& usage : accounts.assoc_usage()) {
    if (!usage.has_in_use()) continue;
    const v1::AssocKey& key = usage.key();
    if (key.user().empty()) {
      out.Gauge("skiff_account_gpus_allocated", kAccountGpus, usage.in_use().running_tres().gpu(),
                {{"account", key.account()}});
    } else {
      out.Gauge("skiff_user_gpus_allocated", kUserGpus, usage.in_use().running_tres().gpu(),
                {{"user", key.user()}, {"account", key.account()}});
    }
  }
  constexpr char kAccountLimit[] = "GrpTRES=gres/gpu: GPUs the account's running jobs may hold";
  out.Declare("skiff_account_gpus_limit", kAccountLimit, MetricType::kGauge);
  for (const v1::AssocInfo& assoc : accounts.assocs()) {
    if (assoc.user().empty() && assoc.partition().empty() && HasLimit(assoc.limits().grp_tres())) {
      out.Gauge("skiff_account_gpus_limit", kAccountLimit, assoc.limits().grp_tres().gpu(),
                {{"account", assoc.account()}});
    }
  }

  // GPU-hours: the budget bank's minutes / 60.
  constexpr char kUsed[] = "GPU-hours used by ended jobs";
  constexpr char kHeld[] =
      "GPU-hours the jobs not yet ended may still use (their time limits; +Inf without one)";
  constexpr char kBudget[] = "GrpTRESMins=gres/gpu in GPU-hours";
  const std::pair<const char*, const char*> scopes[] = {
      {"account", "the account and its sub-accounts"},
      {"user", "the user's jobs in the account"},
      {"qos", "the QOS's jobs"},
  };
  for (const auto& [scope, whose] : scopes) {
    const std::string used = absl::StrCat("skiff_", scope, "_gpu_hours_used");
    const std::string held = absl::StrCat("skiff_", scope, "_gpu_hours_held");
    const std::string used_help = absl::StrCat(kUsed, ": ", whose);
    const std::string held_help = absl::StrCat(kHeld, ": ", whose);
    out.Declare(used, used_help, MetricType::kGauge);
    out.Declare(held, held_help, MetricType::kGauge);
  }
  // The bank's balances (GPU minutes / 60): a user's in an account, an
  // account's subtree, a QOS's.
  for (const v1::AssocUsage& usage : accounts.assoc_usage()) {
    if (!usage.has_used_budget_mins() && !usage.has_held_budget_mins()) continue;
    const double used_hours = usage.used_budget_mins().gpu() / 60;
    const double held_hours = usage.held_budget_mins().gpu() / 60;
    const v1::AssocKey& key = usage.key();
    if (key.user().empty()) {
      out.Gauge("skiff_account_gpu_hours_used", "", used_hours, {{"account", key.account()}});
      out.Gauge("skiff_account_gpu_hours_held", "", held_hours, {{"account", key.account()}});
    } else {
      const MetricLabel user{"user", key.user()}, account{"account", key.account()};
      out.Gauge("skiff_user_gpu_hours_used", "", used_hours, {user, account});
      out.Gauge("skiff_user_gpu_hours_held", "", held_hours, {user, account});
    }
  }
  for (const v1::QosUsage& usage : accounts.qos_usage()) {
    if (!usage.user().empty() || (!usage.has_used_budget_mins() && !usage.has_held_budget_mins())) {
      continue;
    }
    const MetricLabel label{"qos", usage.qos()};
    out.Gauge("skiff_qos_gpu_hours_used", "", usage.used_budget_mins().gpu() / 60, {label});
    out.Gauge("skiff_qos_gpu_hours_held", "", usage.held_budget_mins().gpu() / 60, {label});
  }
  out.Declare("skiff_account_gpu_hours_budget", absl::StrCat(kBudget, ": the account's"),
              MetricType::kGauge);
  out.Declare("skiff_user_gpu_hours_budget",
              absl::StrCat(kBudget, ": the user's own association's in the account"),
              MetricType::kGauge);
  std::set<std::pair<std::string, std::string>> user_budgets;  // account, user
  for (const v1::AssocInfo& assoc : accounts.assocs()) {
    if (!HasLimit(assoc.limits().grp_tres_mins())) continue;
    const double hours = static_cast<double>(assoc.limits().grp_tres_mins().gpu()) / 60;
    if (assoc.user().empty()) {
      if (assoc.partition().empty()) {
        out.Gauge("skiff_account_gpu_hours_budget", "", hours, {{"account", assoc.account()}});
      }
    } else if (assoc.partition().empty() &&
               user_budgets.insert({assoc.account(), assoc.user()}).second) {
      // The bank keeps one balance per account|user, limited by the
      // partition-less association's budget.
      out.Gauge("skiff_user_gpu_hours_budget", "", hours,
                {{"user", assoc.user()}, {"account", assoc.account()}});
    }
  }
  if (qos == nullptr) return;
  constexpr char kQosBudget[] = "GrpTRESMins=gres/gpu in GPU-hours: the QOS's";
  constexpr char kQosGpus[] = "GPUs the QOS's running jobs hold";
  constexpr char kQosPerUser[] =
      "MaxTRESPerUser=gres/gpu: GPUs one user's jobs in the QOS may hold";
  out.Declare("skiff_qos_gpu_hours_budget", kQosBudget, MetricType::kGauge);
  for (const v1::QosInfo& q : qos->qos()) {
    if (HasLimit(q.grp_tres_mins())) {
      out.Gauge("skiff_qos_gpu_hours_budget", kQosBudget,
                static_cast<double>(q.grp_tres_mins().gpu()) / 60, {{"qos", q.name()}});
    }
  }
  out.Declare("skiff_qos_gpus_allocated", kQosGpus, MetricType::kGauge);
  const client::AccountsUsage usage(accounts);
  for (const v1::QosInfo& q : qos->qos()) {
    out.Gauge("skiff_qos_gpus_allocated", kQosGpus,
              usage.OfQos(QosKey{q.name(), ""}).in_use().running_tres().gpu(), {{"qos", q.name()}});
  }
  out.Declare("skiff_qos_gpus_per_user_limit", kQosPerUser, MetricType::kGauge);
  for (const v1::QosInfo& q : qos->qos()) {
    if (HasLimit(q.max_tres_per_user())) {
      out.Gauge("skiff_qos_gpus_per_user_limit", kQosPerUser, q.max_tres_per_user().gpu(),
                {{"qos", q.name()}});
    }
  }
}

}  // namespace skiff::restd::metrics_internal
