// The Controller's accounts, users and associations (sacctmgr add/modify/
// delete/show account|user|assoc): the tables of ctld/accounts, stored as rows of
// the job store's records table in one transaction per change. The core gets
// the AccountPolicy derived from them (and AccountingStorageEnforce) after every
// change and every configuration swap.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/accounts/jobs_in_use.h"
#include "ctld/controller.h"

namespace skiff {
namespace {

Enforcement EnforcementOf(const SkiffConfig& config) {
  // The words were checked when skiff.conf was read.
  absl::StatusOr<Enforcement> parsed =
      ParseEnforcement(absl::StrJoin(config.accounting_storage_enforce, ","));
  return parsed.ok() ? *parsed : Enforcement{};
}

}  // namespace

bool Controller::IsPrivileged(uid_t uid) const {
  if (privileged_uids_.count(uid) > 0) return true;
  absl::MutexLock lock(&admin_mu_);
  return admin_uids_.count(uid) > 0;
}

absl::Status Controller::RecoverAccounts() {
  absl::StatusOr<std::map<std::string, std::string>> accounts = store_.LoadRecords(kAccountKind);
  if (!accounts.ok()) return accounts.status();
  absl::StatusOr<std::map<std::string, std::string>> users = store_.LoadRecords(kAcctUserKind);
  if (!users.ok()) return users.status();
  absl::StatusOr<std::map<std::string, std::string>> assocs = store_.LoadRecords(kAssocKind);
  if (!assocs.ok()) return assocs.status();
  absl::StatusOr<AccountsState> state = AccountsFromRecords(*accounts, *users, *assocs);
  if (!state.ok()) return state.status();
  if (state->accounts.empty()) {
    // A new database: Slurm's root account and user, stored before use.
    AccountsState initial = InitialAccounts();
    if (absl::Status s = store_.Save({}, ChangedRows(AccountsState{}, initial)); !s.ok()) return s;
    *state = std::move(initial);
  }
  {
    absl::MutexLock lock(&admin_mu_);
    admin_uids_ = AdminUids(*state);
  }
  absl::MutexLock lock(&mu_);
  accounts_ = std::move(*state);
  InstallAccountPolicy();
  return absl::OkStatus();
}

void Controller::InstallAccountPolicy() {
  core_.SetAccountPolicy(ToAccountPolicy(accounts_, EnforcementOf(*config_)));
}

v1::GetAccountsReply Controller::SnapshotAccounts() {
  absl::MutexLock lock(&mu_);
  v1::GetAccountsReply reply = ToAccountsReply(accounts_, config_->cluster_name);
  for (const auto& [key, usage] : core_.AssocUsageAt(clock_.Now())) {
    (*reply.mutable_raw_usage())[key] = usage;
  }
  for (const auto& [key, norm] : NormalizedShares(accounts_)) {
    (*reply.mutable_norm_shares())[key] = norm;
  }
  for (const auto& [key, balance] : core_.Balances()) {
    (*reply.mutable_used_billing_mins())[key] = balance.used;
    (*reply.mutable_held_billing_mins())[key] = balance.held;
  }
  std::map<std::string, std::string> parents;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    if (assoc.user().empty()) parents[assoc.account()] = assoc.parent_account();
  }
  std::vector<const Job*> jobs;
  for (const auto& [id, job] : core_.jobs()) {
    if (!IsFinal(job.state)) jobs.push_back(&job);
  }
  JobsInUseTables in_use = CountJobsInUse(jobs, parents, clock_.Now());
  reply.mutable_assoc_in_use()->insert(in_use.by_assoc.begin(), in_use.by_assoc.end());
  reply.mutable_qos_in_use()->insert(in_use.by_qos.begin(), in_use.by_qos.end());
  return reply;
}

absl::StatusOr<v1::UpdateAccountsReply> Controller::UpdateAccounts(
    const Caller& caller, const v1::UpdateAccountsRequest& request,
    const std::map<std::string, int64_t>& uids) {
  if (!IsPrivileged(caller.uid)) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root, SlurmUser, operators and users with "
        "AdminLevel Operator or Administrator change accounts");
  }
  std::lock_guard<std::mutex> writer(accounts_write_mu_);
  AccountsState before;
  AccountsContext context;
  std::string cluster;
  context.uids = uids;
  {
    absl::MutexLock lock(&mu_);
    before = accounts_;
    cluster = config_->cluster_name;
    for (const auto& [name, qos] : qos_) context.qos_names.push_back(name);
    for (const auto& [id, job] : core_.jobs()) {
      if (!IsFinal(job.state))
        context.active_assocs.insert(absl::StrCat(job.account, "|", job.user_name));
    }
  }
  absl::StatusOr<AccountsUpdate> update = ApplyAccountsUpdate(before, request, context, cluster);
  if (!update.ok()) return update.status();
  // Durable first, all rows in one transaction; installed only once stored.
  std::vector<RecordRow> rows = ChangedRows(before, update->state);
  if (absl::Status s = store_.Save({}, std::move(rows)); !s.ok()) return s;
  {
    absl::MutexLock lock(&admin_mu_);
    admin_uids_ = AdminUids(update->state);
  }
  {
    absl::MutexLock lock(&mu_);
    accounts_ = update->state;
    InstallAccountPolicy();
  }
  logger_.info("accounts {} by uid {}: {}", v1::UpdateAccountsRequest::Op_Name(request.op()),
               caller.uid, absl::StrJoin(update->affected, ","));
  RequestSchedule();  // limits changed: pending jobs may start
  v1::UpdateAccountsReply reply;
  for (const std::string& name : update->affected) reply.add_affected(name);
  for (const std::string& key : update->associations) reply.add_associations(key);
  return reply;
}

}  // namespace skiff
