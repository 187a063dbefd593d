#include "ctld/core/account_policy.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace skiff::ctld {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

constexpr char kPolicyViolation[] =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

bool Over(int64_t limit, int64_t value) { return limit != kNoAssocLimit && value > limit; }

}  // namespace

const UserAssoc* AccountPolicy::Find(const std::string& user, const std::string& account,
                                     const std::string& partition) const {
  const UserAssoc* any = nullptr;
  for (const UserAssoc& assoc : users) {
    if (assoc.user != user || assoc.account != account) continue;
    if (!partition.empty() && assoc.partition == partition) return &assoc;
    if (assoc.partition.empty()) any = &assoc;
  }
  return any;
}

std::vector<std::string> AccountPolicy::Lineage(const std::string& account) const {
  std::vector<std::string> out;
  std::set<std::string> seen;  // a cycle never loops forever
  std::string current = account;
  while (!current.empty() && seen.insert(current).second) {
    out.push_back(current);
    auto it = accounts.find(current);
    if (it == accounts.end()) break;
    current = it->second.parent;
  }
  return out;
}

void FillAccountDefaults(const AccountPolicy& policy, const std::string& user_name,
                         std::string* account, std::string* qos) {
  *account = absl::AsciiStrToLower(*account);
  if (account->empty()) {
    auto it = policy.default_account.find(user_name);
    if (it != policy.default_account.end()) *account = it->second;
  }
  if (qos->empty() && !account->empty()) {
    if (const UserAssoc* assoc = policy.Find(user_name, *account, ""); assoc != nullptr) {
      *qos = assoc->default_qos;
    }
  }
}

void SubmitCounts::Add(const AccountPolicy& policy, const std::string& account,
                       const std::string& user, int64_t n) {
  by_assoc[AssocKey::User(account, user)] += n;
  for (const std::string& up : policy.Lineage(account)) by_account[up] += n;
}

absl::Status CheckAssociation(const AccountPolicy& policy, const Job& job, int64_t admitting,
                              const SubmitCounts& counts, AssocChecks checks) {
  if (!policy.enforce.associations) return absl::OkStatus();
  const UserAssoc* assoc = policy.Find(job.user_name, job.account, job.request.partition);
  if (assoc == nullptr)
    return Invalid("Invalid account or account/partition combination specified");
  if (checks == AssocChecks::kExistence) return absl::OkStatus();
  const bool qos_allowed =
      std::find(assoc->qos.begin(), assoc->qos.end(), job.qos) != assoc->qos.end();
  if (policy.enforce.qos && !qos_allowed) return Invalid("Invalid qos specification");
  // Without qos enforcement any QOS may be named, as in Slurm; but a QOS's
  // budget is money some associations were given, not a pool for any user.
  if (!qos_allowed && policy.budget_qos.count(job.qos) > 0) {
    return Invalid(absl::StrCat("Invalid qos specification (QOS ", job.qos,
                                " has a GrpTRESMins budget; association ", assoc->account, "/",
                                assoc->user, " may not use it)"));
  }
  if (!policy.enforce.limits) return absl::OkStatus();
  const JobRequest& r = job.request;
  if (assoc->max_wall != kNoAssocLimit &&
      (r.time_limit == kUnlimited || r.time_limit > assoc->max_wall)) {
    return Invalid(kPolicyViolation);
  }
  const int64_t nodes = std::max(1, r.num_nodes);
  const AssocTres& per_job = assoc->max_tres_per_job;
  if (Over(per_job.nodes, nodes) || Over(per_job.cpus, nodes * r.CpusPerNode()) ||
      Over(per_job.mem_mb, nodes * static_cast<int64_t>(r.MemPerNodeMb())) ||
      Over(per_job.gpus, nodes * r.gpus_per_node)) {
    return Invalid(kPolicyViolation);
  }
  auto count = [](const auto& map, const auto& key) {
    auto it = map.find(key);
    return it == map.end() ? int64_t{0} : it->second;
  };
  if (Over(assoc->max_submit_jobs,
           count(counts.by_assoc, AssocKey::User(job.account, job.user_name)) + admitting)) {
    return Invalid(kPolicyViolation);
  }
  for (const std::string& account : policy.Lineage(job.account)) {
    auto it = policy.accounts.find(account);
    if (it == policy.accounts.end()) continue;
    if (Over(it->second.grp_submit_jobs, count(counts.by_account, account) + admitting)) {
      return Invalid(kPolicyViolation);
    }
  }
  return absl::OkStatus();
}

SubmitCounts CountSubmitted(const AccountPolicy& policy, const std::vector<const Job*>& live) {
  SubmitCounts out;
  for (const Job* job : live) out.Add(policy, job->account, job->user_name, 1);
  return out;
}

}  // namespace skiff::ctld
