// The views derived from sacctmgr's accounts tables (accounts.h): sacctmgr's
// association order, the scheduler's and admission's AccountPolicy, the
// normalized shares and the AdminLevel uids. Pure, like the rules beside them.
#include <algorithm>
#include <functional>
#include <utility>

#include "ctld/core/accounting/accounts.h"

namespace skiff::ctld {
namespace {

// An association's limits; none set when it has none.
const AssocLimits& LimitsOf(const Association& assoc) {
  static const AssocLimits* const kNone = new AssocLimits();
  return assoc.limits ? *assoc.limits : *kNone;
}

const Association* AccountAssocOf(const AccountsTable& table, const std::string& account) {
  auto it = table.assocs.find(AssocKey::Account(account));
  return it == table.assocs.end() ? nullptr : &it->second;
}

// Slurm's inheritance: the nearest association up the tree that sets a value.
template <typename Get>
auto Inherited(const AccountsTable& table, const Association& assoc, Get get)
    -> decltype(get(assoc)) {
  if (auto value = get(assoc); value) return value;
  std::string account = assoc.user.empty() ? assoc.parent_account : assoc.account;
  for (size_t guard = 0; guard <= table.accounts.size() && !account.empty(); ++guard) {
    const Association* up = AccountAssocOf(table, account);
    if (up == nullptr) break;
    if (auto value = get(*up); value) return value;
    account = up->parent_account;
  }
  return {};
}

int64_t Limit(const std::optional<int64_t>& value) { return value ? *value : kNoAssocLimit; }

// A TRES-minutes limit as budget.h counts it: billing from GrpTRESMins=billing
// (kept apart in the rows), the rest from the TRES given; none where unset or -1.
TresMinutes MinutesLimitOf(const std::optional<int64_t>& billing,
                           const std::optional<TresSpec>& spec) {
  TresMinutes out = kNoBudget;
  auto set = [](const std::optional<int64_t>& value, double* field) {
    if (value && *value >= 0) *field = static_cast<double>(*value);
  };
  set(billing, &out.billing);
  if (spec) {
    set(spec->cpu, &out.cpu);
    set(spec->mem_mb, &out.mem);
    set(spec->node, &out.node);
    set(spec->gpu, &out.gpu);
  }
  return out;
}

}  // namespace

std::vector<Association> AssocsDepthFirst(const AccountsTable& table) {
  std::vector<Association> out;
  std::function<void(const std::string&)> walk = [&](const std::string& account) {
    if (const Association* own = AccountAssocOf(table, account); own != nullptr) {
      out.push_back(*own);
    }
    for (const auto& [key, assoc] : table.assocs) {  // keys sort users by name
      if (assoc.account == account && !assoc.user.empty()) out.push_back(assoc);
    }
    for (const auto& [name, child] : table.accounts) {
      if (child.parent == account && name != account) walk(name);
    }
  };
  walk("root");
  return out;
}

AccountPolicy ToAccountPolicy(const AccountsTable& table, const Enforcement& enforce) {
  AccountPolicy policy;
  policy.enforce = enforce;
  for (const auto& [name, user] : table.users) policy.default_account[name] = user.default_account;
  auto tres = [](const std::optional<TresSpec>& spec) {
    AssocTres out;
    if (!spec) return out;
    if (spec->cpu) out.cpus = *spec->cpu;
    if (spec->mem_mb) out.mem_mb = *spec->mem_mb;
    if (spec->node) out.nodes = *spec->node;
    if (spec->gpu) out.gpus = *spec->gpu;
    return out;
  };
  for (const auto& [key, assoc] : table.assocs) {
    if (assoc.user.empty()) {
      AccountAssoc account;
      account.parent = assoc.parent_account;
      const AssocLimits& l = LimitsOf(assoc);
      if (l.grp_jobs) account.grp_jobs = *l.grp_jobs;
      if (l.grp_submit_jobs) account.grp_submit_jobs = *l.grp_submit_jobs;
      account.grp_tres_mins = MinutesLimitOf(l.grp_billing_mins, l.grp_tres_mins);
      account.grp_tres_run_mins = MinutesLimitOf(std::nullopt, l.grp_tres_run_mins);
      account.grp_tres = tres(l.grp_tres);
      policy.accounts[assoc.account] = account;
      continue;
    }
    UserAssoc user;
    user.account = assoc.account;
    user.user = assoc.user;
    user.partition = assoc.partition;
    user.grp_tres_mins =
        MinutesLimitOf(LimitsOf(assoc).grp_billing_mins, LimitsOf(assoc).grp_tres_mins);
    user.grp_tres_run_mins = MinutesLimitOf(std::nullopt, LimitsOf(assoc).grp_tres_run_mins);
    user.max_jobs =
        Limit(Inherited(table, assoc, [](const Association& a) { return LimitsOf(a).max_jobs; }));
    user.max_submit_jobs = Limit(
        Inherited(table, assoc, [](const Association& a) { return LimitsOf(a).max_submit_jobs; }));
    user.max_wall =
        Limit(Inherited(table, assoc, [](const Association& a) { return LimitsOf(a).max_wall; }));
    auto per_job = [&](std::optional<int64_t> TresSpec::*field) {
      return Limit(Inherited(table, assoc, [&](const Association& a) -> std::optional<int64_t> {
        const std::optional<TresSpec>& t = LimitsOf(a).max_tres_per_job;
        return t ? (*t).*field : std::nullopt;
      }));
    };
    user.max_tres_per_job.cpus = per_job(&TresSpec::cpu);
    user.max_tres_per_job.mem_mb = per_job(&TresSpec::mem_mb);
    user.max_tres_per_job.nodes = per_job(&TresSpec::node);
    user.max_tres_per_job.gpus = per_job(&TresSpec::gpu);
    auto mins_per_job = [&](std::optional<int64_t> TresSpec::*field) {
      return Limit(Inherited(table, assoc, [&](const Association& a) -> std::optional<int64_t> {
        const std::optional<TresSpec>& t = LimitsOf(a).max_tres_mins_per_job;
        return t ? (*t).*field : std::nullopt;
      }));
    };
    user.max_tres_mins_per_job.cpus = mins_per_job(&TresSpec::cpu);
    user.max_tres_mins_per_job.mem_mb = mins_per_job(&TresSpec::mem_mb);
    user.max_tres_mins_per_job.nodes = mins_per_job(&TresSpec::node);
    user.max_tres_mins_per_job.gpus = mins_per_job(&TresSpec::gpu);
    using OptList = std::optional<std::vector<std::string>>;
    OptList qos = Inherited(table, assoc, [](const Association& a) {
      return a.qos.empty() ? OptList() : OptList(a.qos);
    });
    if (qos) user.qos = *qos;
    using OptText = std::optional<std::string>;
    OptText default_qos = Inherited(table, assoc, [](const Association& a) {
      return a.default_qos.empty() ? OptText() : OptText(a.default_qos);
    });
    if (default_qos) user.default_qos = *default_qos;
    policy.users.push_back(user);
  }
  const std::map<AssocKey, double> norm = NormalizedShares(table);
  for (const auto& [key, assoc] : table.assocs) {
    if (assoc.user.empty()) continue;
    auto it = norm.find(key);
    if (it != norm.end()) policy.user_shares[assoc.user] += it->second;
  }
  return policy;
}

std::map<AssocKey, double> NormalizedShares(const AccountsTable& table) {
  std::map<AssocKey, double> out;
  std::function<void(const std::string&, double)> walk = [&](const std::string& account,
                                                             double norm) {
    out[AssocKey::Account(account)] = norm;
    std::vector<const Association*> children;
    for (const auto& [key, assoc] : table.assocs) {
      const bool user_child = assoc.account == account && !assoc.user.empty();
      const bool account_child =
          assoc.user.empty() && assoc.parent_account == account && assoc.account != account;
      if (user_child || account_child) children.push_back(&assoc);
    }
    auto shares_of = [](const Association& a) {
      const std::optional<int32_t>& fairshare = LimitsOf(a).fairshare;
      return fairshare ? std::max(0, *fairshare) : 1;
    };
    double total = 0;
    for (const Association* child : children) total += shares_of(*child);
    for (const Association* child : children) {
      const double child_norm = total > 0 ? norm * shares_of(*child) / total : 0;
      if (child->user.empty()) {
        walk(child->account, child_norm);
      } else {
        out[AssocKey{child->account, child->user, child->partition}] = child_norm;
      }
    }
  };
  walk("root", 1.0);
  return out;
}

std::set<uid_t> AdminUids(const AccountsTable& table) {
  std::set<uid_t> out;
  for (const auto& [name, user] : table.users) {
    if (user.admin_level != "None" && !user.admin_level.empty() && user.uid >= 0) {
      out.insert(static_cast<uid_t>(user.uid));
    }
  }
  return out;
}

}  // namespace skiff::ctld
