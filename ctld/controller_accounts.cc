// The Controller's side of sacctmgr's accounts, users and associations: the
// tables live in the lifecycle core (Lifecycle::UpdateAccounts decides, its
// rows go through Commit like every event's); this file reads them out for
// sacctmgr and sshare, runs the event, and keeps IsPrivileged's AdminLevel
// uids in step with the stored table.
#include <set>
#include <utility>

#include "ctld/controller.h"
#include "ctld/core/accounting/jobs_in_use.h"

namespace skiff::ctld {

bool Controller::IsPrivileged(uid_t uid) const {
  if (privileged_uids_.count(uid) > 0) return true;
  absl::MutexLock lock(&admin_mu_);
  return admin_uids_.count(uid) > 0;
}

AccountsSnapshot Controller::SnapshotAccounts() {
  absl::MutexLock lock(&mu_);
  AccountsSnapshot snapshot;
  snapshot.cluster = config_->cluster_name;
  const AccountsTable& accounts = core_.accounts();
  for (const auto& [name, account] : accounts.accounts) snapshot.accounts.push_back(account);
  for (const auto& [name, user] : accounts.users) snapshot.users.push_back(user);
  snapshot.assocs = AssocsDepthFirst(accounts);
  snapshot.raw_usage = core_.AssocUsageAt(clock_.Now());
  snapshot.norm_shares = NormalizedShares(accounts);
  for (const auto& [key, balance] : core_.Balances()) {
    snapshot.used_billing_mins[key] = balance.used.billing;
    snapshot.held_billing_mins[key] = balance.held.billing;
    snapshot.used_budget_mins[key] = balance.used;
    snapshot.held_budget_mins[key] = balance.held;
  }
  std::map<std::string, std::string> parents;
  for (const Association& assoc : snapshot.assocs) {
    if (assoc.user.empty()) parents[assoc.account] = assoc.parent_account;
  }
  std::vector<const Job*> jobs;
  for (const auto& [id, job] : core_.jobs()) {
    if (!IsFinal(job.state)) jobs.push_back(&job);
  }
  JobsInUseTables in_use = CountJobsInUse(jobs, parents, clock_.Now());
  snapshot.assoc_in_use = std::move(in_use.by_assoc);
  snapshot.qos_in_use = std::move(in_use.by_qos);
  return snapshot;
}

absl::StatusOr<AccountsAffected> Controller::UpdateAccounts(
    const Caller& caller, const AccountsUpdate& update,
    const std::map<std::string, int64_t>& uids) {
  const bool privileged = IsPrivileged(caller.uid);
  AccountsAffected affected;
  absl::Status status = Commit([&](Lifecycle& core, int64_t now) {
    return core.UpdateAccounts(caller, privileged, update, uids, now, &affected);
  });
  if (!status.ok()) return status;
  // Stored: AdminLevel changes count from now on. (A later event's rollback
  // never undoes this one: frames are rolled back only from a failed one on.)
  std::set<uid_t> admins;
  {
    absl::MutexLock lock(&mu_);
    admins = AdminUids(core_.accounts());
  }
  absl::MutexLock lock(&admin_mu_);
  admin_uids_ = std::move(admins);
  return affected;
}

}  // namespace skiff::ctld
