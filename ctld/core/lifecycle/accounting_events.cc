// sacctmgr's tables and job steps as lifecycle events: add/modify/delete of
// QOS and of accounts, users and associations, and the step reports of the
// jobs' step managers. Each is one journaled transaction whose rows go through
// the Controller's Commit with the job events, so a change is stored whole or
// not at all, in order with everything else, before it is acknowledged.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ctld/core/lifecycle/lifecycle.h"

namespace skiff::ctld {

void Lifecycle::LoadAccounting(QosTable qos, AccountsTable accounts) {
  state_.LoadAccounting(std::move(qos), std::move(accounts));
  RefreshAccountingViews();
}

void Lifecycle::RefreshAccountingViews() {
  if (views_generation_ == state_.accounting_generation()) return;
  views_generation_ = state_.accounting_generation();
  qos_ = ToSchedQosTable(state_.qos());
  account_policy_ = ToAccountPolicy(state_.accounts(), config_->accounting_storage_enforce);
  for (const Qos& qos : qos_) {
    if (NamesAnyTres(qos.grp_tres_mins)) account_policy_.budget_qos.insert(qos.name);
  }
}

absl::StatusOr<Effects> Lifecycle::UpdateQos(const Caller& caller, bool privileged,
                                             const QosUpdate& update, int64_t now,
                                             std::vector<std::string>* affected) {
  (void)now;
  if (!privileged) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root, SlurmUser and operators change QOS");
  }
  std::vector<std::string> in_use;
  for (const auto& [id, job] : state_.unfinished()) {
    if (!IsFinal(job->state)) in_use.push_back(job->qos);
  }
  absl::StatusOr<QosUpdateResult> result = ApplyQosUpdate(state_.qos(), update, in_use);
  if (!result.ok()) return result.status();
  state_.Begin();
  Effects effects;
  QosTable& table = state_.MutQos();
  for (const QosDefinition& row : result->put) {
    table[row.name] = row;
    effects.records.push_back(QosChange{row.name, row});
  }
  for (const std::string& name : result->deleted) {
    table.erase(name);
    effects.records.push_back(QosChange{name, std::nullopt});
  }
  RefreshAccountingViews();
  effects.log.push_back(absl::StrCat("QOS ", QosOpName(update.op), " by uid ", caller.uid, ": ",
                                     absl::StrJoin(result->affected, ",")));
  effects.reschedule = true;  // limits changed: pending jobs may start
  *affected = std::move(result->affected);
  return state_.Close(std::move(effects));
}

absl::StatusOr<Effects> Lifecycle::UpdateAccounts(const Caller& caller, bool privileged,
                                                  const AccountsUpdate& update,
                                                  const std::map<std::string, int64_t>& uids,
                                                  int64_t now, AccountsAffected* affected) {
  (void)now;
  if (!privileged) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root, SlurmUser, operators and users with "
        "AdminLevel Operator or Administrator change accounts");
  }
  AccountsContext context;
  context.uids = uids;
  for (const auto& [name, qos] : state_.qos()) context.qos_names.push_back(name);
  for (const auto& [id, job] : state_.unfinished()) {
    if (!IsFinal(job->state)) {
      context.active_assocs.insert(AssocKey::User(job->account, job->user_name));
    }
  }
  absl::StatusOr<AccountsUpdateResult> result =
      ApplyAccountsUpdate(state_.accounts(), update, context, config_->cluster_name);
  if (!result.ok()) return result.status();
  state_.Begin();
  Effects effects;
  AccountsTable& table = state_.MutAccounts();
  effects.records.push_back(AccountsChange{DiffAccounts(table, result->table)});
  table = std::move(result->table);
  RefreshAccountingViews();
  effects.log.push_back(absl::StrCat("accounts ", AccountsOpName(update.op), " by uid ", caller.uid,
                                     ": ", absl::StrJoin(result->affected.names, ",")));
  effects.reschedule = true;  // limits changed: pending jobs may start
  *affected = std::move(result->affected);
  return state_.Close(std::move(effects));
}

Effects Lifecycle::ReportSteps(const std::string& node_name,
                               const std::vector<std::pair<uint64_t, StepRecord>>& reports,
                               const std::map<uint64_t, std::string>& stored_first_nodes,
                               int64_t now) {
  (void)now;
  state_.Begin();
  Effects effects;
  for (const auto& [job_id, step] : reports) {
    // Only the job's step manager speaks for its steps: the job's first node.
    std::string first_node;
    if (const Job* job = Find(job_id)) {
      if (!job->nodes.empty()) first_node = job->nodes.front();
    } else if (auto it = stored_first_nodes.find(job_id); it != stored_first_nodes.end()) {
      first_node = it->second;
    }
    if (first_node.empty() || first_node != node_name || step.step_id.empty()) {
      effects.log.push_back(absl::StrCat("JobId=", job_id, ": step ", step.step_id,
                                         " reported by NodeName=", node_name,
                                         ", not the job's step manager: dropped"));
      continue;
    }
    state_.ApplyStep(job_id, step);
    effects.records.push_back(StepChange{job_id, step});
  }
  return state_.Close(std::move(effects));
}

void Lifecycle::RetainStepsOfRunningJobs() {
  std::set<uint64_t> running;
  for (const auto& [id, job] : state_.unfinished()) {
    if (job->state == JobState::kRunning || job->state == JobState::kSuspended) running.insert(id);
  }
  state_.RetainSteps(running);
}

}  // namespace skiff::ctld
