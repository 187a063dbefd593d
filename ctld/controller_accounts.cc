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
  const AccountsTable& accounts = core_.state().accounts();
  for (const auto& [name, account] : accounts.accounts) snapshot.accounts.push_back(account);
  for (const auto& [name, user] : accounts.users) snapshot.users.push_back(user);
  snapshot.assocs = AssocsDepthFirst(accounts);
  for (const auto& [key, usage] : core_.bank().AssocUsageAt(clock_.Now())) {
    snapshot.by_assoc[key].raw_usage = usage;
  }
  for (const auto& [key, norm] : NormalizedShares(accounts)) {
    snapshot.by_assoc[key].norm_shares = norm;
  }
  for (const auto& [key, balance] : core_.bank().Balances()) {
    if (key.is_qos()) {
      QosFigures& qos = snapshot.by_qos[QosKey{key.qos, ""}];
      qos.used_budget_mins = balance.used;
      qos.held_budget_mins = balance.held;
    } else {
      AssocFigures& assoc = snapshot.by_assoc[key.assoc];
      assoc.used_budget_mins = balance.used;
      assoc.held_budget_mins = balance.held;
    }
  }
  std::map<std::string, std::string> parents;
  for (const Association& assoc : snapshot.assocs) {
    if (assoc.user.empty()) parents[assoc.account] = assoc.parent_account;
  }
  std::vector<const Job*> jobs;
  for (const auto& [id, job] : core_.state().jobs()) {
    if (!IsFinal(job.state)) jobs.push_back(&job);
  }
  JobsInUseTables in_use = CountJobsInUse(jobs, parents, clock_.Now());
  for (auto& [key, held] : in_use.by_assoc) snapshot.by_assoc[key].in_use = std::move(held);
  for (auto& [key, held] : in_use.by_qos) snapshot.by_qos[key].in_use = std::move(held);
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
    admins = AdminUids(core_.state().accounts());
  }
  absl::MutexLock lock(&admin_mu_);
  admin_uids_ = std::move(admins);
  return affected;
}

}  // namespace skiff::ctld
