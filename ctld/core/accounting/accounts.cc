#include "ctld/core/accounting/accounts.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace skiff::ctld {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::string Lower(const std::string& text) { return absl::AsciiStrToLower(text); }

const Association* AccountAssocOf(const AccountsTable& table, const std::string& account) {
  auto it = table.assocs.find(AssocKey::Account(account));
  return it == table.assocs.end() ? nullptr : &it->second;
}

// `change` over `limit`: a set value replaces, -1 clears.
template <typename T>
void Merge(const std::optional<T>& change, std::optional<T>* limit) {
  if (!change) return;
  if (*change == -1) {
    limit->reset();
  } else {
    *limit = change;
  }
}

void MergeTres(const TresSpec& from, TresSpec* to) {
  Merge(from.cpu, &to->cpu);
  Merge(from.mem_mb, &to->mem_mb);
  Merge(from.node, &to->node);
  Merge(from.gpu, &to->gpu);
}

void MergeLimits(const AssocLimits& change, AssocLimits* limits) {
  Merge(change.fairshare, &limits->fairshare);
  Merge(change.grp_jobs, &limits->grp_jobs);
  Merge(change.grp_submit_jobs, &limits->grp_submit_jobs);
  Merge(change.max_jobs, &limits->max_jobs);
  Merge(change.max_submit_jobs, &limits->max_submit_jobs);
  Merge(change.max_wall, &limits->max_wall);
  Merge(change.grp_billing_mins, &limits->grp_billing_mins);
  if (change.grp_tres) {
    if (!limits->grp_tres) limits->grp_tres.emplace();
    MergeTres(*change.grp_tres, &*limits->grp_tres);
  }
  if (change.max_tres_per_job) {
    if (!limits->max_tres_per_job) limits->max_tres_per_job.emplace();
    MergeTres(*change.max_tres_per_job, &*limits->max_tres_per_job);
  }
  if (change.grp_tres_mins) {
    if (!limits->grp_tres_mins) limits->grp_tres_mins.emplace();
    MergeTres(*change.grp_tres_mins, &*limits->grp_tres_mins);
  }
  if (change.max_tres_mins_per_job) {
    if (!limits->max_tres_mins_per_job) limits->max_tres_mins_per_job.emplace();
    MergeTres(*change.max_tres_mins_per_job, &*limits->max_tres_mins_per_job);
  }
  if (change.grp_tres_run_mins) {
    if (!limits->grp_tres_run_mins) limits->grp_tres_run_mins.emplace();
    MergeTres(*change.grp_tres_run_mins, &*limits->grp_tres_run_mins);
  }
}

// QOS=, QOS+=, QOS-= and DefaultQOS= on one association.
absl::Status ApplyQos(const AccountsUpdate& update, const AccountsContext& context,
                      Association* assoc) {
  for (const std::string& name : update.qos) {
    if (std::find(context.qos_names.begin(), context.qos_names.end(), Lower(name)) ==
        context.qos_names.end()) {
      return Invalid(absl::StrCat("Invalid qos '", name, "'"));
    }
  }
  std::vector<std::string> list = assoc->qos;
  if (update.qos_op == "=") list.clear();
  if (update.qos_op == "=" || update.qos_op == "+=") {
    for (const std::string& name : update.qos) {
      if (std::find(list.begin(), list.end(), Lower(name)) == list.end())
        list.push_back(Lower(name));
    }
  } else if (update.qos_op == "-=") {
    for (const std::string& name : update.qos) {
      list.erase(std::remove(list.begin(), list.end(), Lower(name)), list.end());
    }
  }
  std::sort(list.begin(), list.end());
  assoc->qos = list;
  if (update.default_qos) {
    const std::string qos = Lower(*update.default_qos);
    if (!qos.empty() && !list.empty() && std::find(list.begin(), list.end(), qos) == list.end()) {
      return Invalid(absl::StrCat("Default QOS '", qos, "' is not in the QOS list (",
                                  absl::StrJoin(list, ","), ")"));
    }
    if (!qos.empty() && std::find(context.qos_names.begin(), context.qos_names.end(), qos) ==
                            context.qos_names.end()) {
      return Invalid(absl::StrCat("Invalid qos '", qos, "'"));
    }
    assoc->default_qos = qos;
  }
  return absl::OkStatus();
}

// The update's limits and QOS on one association, which has limits from now on.
absl::Status ApplyAssocSettings(const AccountsUpdate& update, const AccountsContext& context,
                                Association* assoc) {
  if (!assoc->limits) assoc->limits.emplace();
  MergeLimits(update.limits, &*assoc->limits);
  return ApplyQos(update, context, assoc);
}

bool WantedName(const AccountsUpdate& update, const std::string& name, bool lower) {
  return std::any_of(update.names.begin(), update.names.end(),
                     [&](const std::string& n) { return (lower ? Lower(n) : n) == name; });
}

std::vector<std::string> LowerList(const std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (const std::string& item : list) out.push_back(Lower(item));
  return out;
}

bool IsDescendant(const AccountsTable& table, const std::string& account,
                  const std::string& ancestor) {
  std::string current = account;
  for (size_t guard = 0; guard <= table.accounts.size() && !current.empty(); ++guard) {
    if (current == ancestor) return true;
    auto it = table.accounts.find(current);
    if (it == table.accounts.end()) return false;
    current = it->second.parent;
  }
  return false;
}

uint64_t NextAssocId(const AccountsTable& table) {
  uint64_t next = 1;
  for (const auto& [key, assoc] : table.assocs) next = std::max(next, assoc.id + 1);
  return next;
}

// AdminLevel= as stored ("None", "Operator", "Administrator"); nullopt for a
// word that is none of them.
std::optional<std::string> AdminLevel(const std::string& text) {
  const std::string level = Lower(text);
  if (level == "none") return "None";
  if (level == "operator") return "Operator";
  if (level == "administrator" || level == "admin") return "Administrator";
  return std::nullopt;
}

absl::Status BadAdminLevel(const std::string& text) {
  return Invalid(absl::StrCat("Invalid AdminLevel '", text, "' (None, Operator or Administrator)"));
}

absl::Status AddAccounts(AccountsUpdateResult& out, const AccountsUpdate& update,
                         const AccountsContext& context, const std::string& cluster) {
  AccountsTable& table = out.table;
  const std::string parent = update.parent ? Lower(*update.parent) : "root";
  if (AccountAssocOf(table, parent) == nullptr) {
    return Invalid(
        absl::StrCat("Parent account '", parent, "' doesn't exist on cluster ", cluster));
  }
  for (const std::string& raw : update.names) {
    const std::string name = Lower(raw);
    if (name.empty()) return Invalid("No blank names are allowed when adding.");
    if (table.accounts.count(name) != 0) continue;
    Account account;
    account.name = name;
    account.description = update.description ? *update.description : name;
    // Slurm: the organization defaults to the parent's name, or the account's
    // own under root.
    account.organization = update.organization ? *update.organization
                           : parent == "root"  ? name
                                               : parent;
    account.parent = parent;
    table.accounts[name] = account;
    Association assoc;
    assoc.id = NextAssocId(table);
    assoc.account = name;
    assoc.parent_account = parent;
    if (absl::Status s = ApplyAssocSettings(update, context, &assoc); !s.ok()) return s;
    table.assocs[AssocKey::Account(name)] = assoc;
    out.affected.names.push_back(name);
    out.affected.associations.push_back(AssocKey::Account(name));
  }
  return absl::OkStatus();
}

absl::Status AddUsers(AccountsUpdateResult& out, const AccountsUpdate& update,
                      const AccountsContext& context) {
  AccountsTable& table = out.table;
  const std::vector<std::string> accounts = LowerList(update.accounts);
  const std::vector<std::string>& partitions = update.partitions;
  for (const std::string& account : accounts) {
    if (table.accounts.count(account) == 0) {
      return Invalid(absl::StrCat("The account '", account, "' doesn't exist"));
    }
  }
  std::string admin_level = "None";
  if (update.admin_level) {
    std::optional<std::string> level = AdminLevel(*update.admin_level);
    if (!level) return BadAdminLevel(*update.admin_level);
    admin_level = *level;
  }
  for (const std::string& name : update.names) {
    if (name.empty()) return Invalid("No blank names are allowed when adding.");
    auto existing = table.users.find(name);
    if (existing == table.users.end() && accounts.empty()) {
      return Invalid(absl::StrCat("Need a default account for user '", name,
                                  "': give Account= or DefaultAccount="));
    }
    if (existing == table.users.end()) {
      AcctUser user;
      user.name = name;
      const std::string default_account =
          update.default_account ? Lower(*update.default_account) : accounts.front();
      if (std::find(accounts.begin(), accounts.end(), default_account) == accounts.end()) {
        return Invalid(absl::StrCat("Default account '", default_account,
                                    "' is not one of the user's accounts"));
      }
      user.default_account = default_account;
      user.admin_level = admin_level;
      auto uid = context.uids.find(name);
      user.uid = uid == context.uids.end() ? -1 : uid->second;
      table.users[name] = user;
      out.affected.names.push_back(name);
    }
    for (const std::string& account : accounts) {
      for (const std::string& partition :
           partitions.empty() ? std::vector<std::string>{""} : partitions) {
        const AssocKey key{account, name, partition};
        if (table.assocs.count(key) != 0) continue;
        Association assoc;
        assoc.id = NextAssocId(table);
        assoc.account = account;
        assoc.user = name;
        assoc.partition = partition;
        if (absl::Status s = ApplyAssocSettings(update, context, &assoc); !s.ok()) return s;
        table.assocs[key] = assoc;
        out.affected.associations.push_back(key);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ModifyAccounts(AccountsUpdateResult& out, const AccountsUpdate& update,
                            const AccountsContext& context) {
  AccountsTable& table = out.table;
  for (auto& [name, account] : table.accounts) {
    if (!WantedName(update, name, true)) continue;
    if (update.description) account.description = *update.description;
    if (update.organization) account.organization = *update.organization;
    Association& assoc = table.assocs[AssocKey::Account(name)];
    if (update.parent) {
      const std::string parent = Lower(*update.parent);
      if (name == "root" || table.accounts.count(parent) == 0 ||
          IsDescendant(table, parent, name)) {
        return Invalid("Invalid parent account specified");
      }
      account.parent = parent;
      assoc.parent_account = parent;
    }
    if (absl::Status s = ApplyAssocSettings(update, context, &assoc); !s.ok()) return s;
    out.affected.names.push_back(name);
  }
  return absl::OkStatus();
}

// Whether a user's association is one a modify or delete names: any of
// `accounts` (lower case) and of the update's partitions, each when given.
bool InWhere(const AccountsUpdate& update, const std::vector<std::string>& accounts,
             const Association& assoc) {
  const std::vector<std::string>& partitions = update.partitions;
  return (accounts.empty() ||
          std::find(accounts.begin(), accounts.end(), assoc.account) != accounts.end()) &&
         (partitions.empty() ||
          std::find(partitions.begin(), partitions.end(), assoc.partition) != partitions.end());
}

absl::Status ModifyUsers(AccountsUpdateResult& out, const AccountsUpdate& update,
                         const AccountsContext& context) {
  AccountsTable& table = out.table;
  const std::vector<std::string> accounts = LowerList(update.accounts);
  for (auto& [name, user] : table.users) {
    if (!WantedName(update, name, false)) continue;
    if (update.admin_level) {
      std::optional<std::string> level = AdminLevel(*update.admin_level);
      if (!level) return BadAdminLevel(*update.admin_level);
      user.admin_level = *level;
    }
    if (update.default_account) {
      const std::string account = Lower(*update.default_account);
      if (table.assocs.count(AssocKey::User(account, name)) == 0) {
        return Invalid(
            absl::StrCat("User '", name, "' has no association with account '", account, "'"));
      }
      user.default_account = account;
    }
    for (auto& [key, assoc] : table.assocs) {
      if (assoc.user != name || !InWhere(update, accounts, assoc)) continue;
      if (absl::Status s = ApplyAssocSettings(update, context, &assoc); !s.ok()) return s;
    }
    out.affected.names.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status RemoveAssoc(AccountsUpdateResult& out, const AccountsContext& context,
                         const AssocKey& key) {
  const Association& assoc = out.table.assocs.at(key);
  for (const AssocKey& active : context.active_assocs) {
    if (!assoc.user.empty() ? active == AssocKey::User(assoc.account, assoc.user)
                            : active.account == assoc.account) {
      return absl::FailedPreconditionError("Job(s) active, cancel job(s) before remove");
    }
  }
  out.affected.associations.push_back(key);
  out.table.assocs.erase(key);
  return absl::OkStatus();
}

absl::Status DeleteAccounts(AccountsUpdateResult& out, const AccountsUpdate& update,
                            const AccountsContext& context) {
  AccountsTable& table = out.table;
  std::vector<std::string> names;
  for (const auto& [name, account] : table.accounts) {
    if (WantedName(update, name, true)) names.push_back(name);
  }
  for (const std::string& name : names) {
    if (name == "root") {
      return Invalid(
          "You are not allowed to remove the root account.\n Use remove cluster instead.");
    }
    for (const auto& [other, account] : table.accounts) {
      if (account.parent == name && std::find(names.begin(), names.end(), other) == names.end()) {
        return absl::FailedPreconditionError(absl::StrCat("Account '", name, "' has sub-accounts (",
                                                          other, "); remove or move them first"));
      }
    }
    for (const auto& [user_name, user] : table.users) {
      if (user.default_account == name) {
        return absl::FailedPreconditionError(
            absl::StrCat("You can not remove the default account of a user\n  ", user_name));
      }
    }
  }
  for (const std::string& name : names) {
    std::vector<AssocKey> keys;
    for (const auto& [key, assoc] : table.assocs) {
      if (assoc.account == name) keys.push_back(key);
    }
    for (const AssocKey& key : keys) {
      if (absl::Status s = RemoveAssoc(out, context, key); !s.ok()) return s;
    }
    table.accounts.erase(name);
    out.affected.names.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status DeleteUsers(AccountsUpdateResult& out, const AccountsUpdate& update,
                         const AccountsContext& context) {
  AccountsTable& table = out.table;
  const std::vector<std::string> accounts = LowerList(update.accounts);
  std::vector<std::string> names;
  for (const auto& [name, user] : table.users) {
    if (WantedName(update, name, false)) names.push_back(name);
  }
  for (const std::string& name : names) {
    std::vector<AssocKey> keys;
    for (const auto& [key, assoc] : table.assocs) {
      if (assoc.user == name && InWhere(update, accounts, assoc)) keys.push_back(key);
    }
    const AcctUser& user = table.users.at(name);
    bool any_left = false;
    bool default_left = false;
    for (const auto& [key, assoc] : table.assocs) {
      if (assoc.user != name || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      any_left = true;
      if (assoc.account == user.default_account) default_left = true;
    }
    if (any_left && !default_left) {
      return absl::FailedPreconditionError(
          absl::StrCat("You can not remove the default account of a user\n  ", name));
    }
    for (const AssocKey& key : keys) {
      if (absl::Status s = RemoveAssoc(out, context, key); !s.ok()) return s;
    }
    if (!any_left) {
      table.users.erase(name);
      out.affected.names.push_back(name);
    }
  }
  if (out.affected.associations.empty() && out.affected.names.empty()) {
    return absl::NotFoundError("Nothing deleted");
  }
  return absl::OkStatus();
}

// Rows of `after` that are new or differ from `before`'s, and keys of
// `before` that `after` lacks.
template <typename Key, typename Row>
void DiffRows(const std::map<Key, Row>& before, const std::map<Key, Row>& after,
              std::map<Key, Row>* changed, std::vector<Key>* removed) {
  for (const auto& [key, row] : after) {
    auto it = before.find(key);
    if (it == before.end() || it->second != row) changed->emplace(key, row);
  }
  for (const auto& [key, row] : before) {
    if (after.count(key) == 0) removed->push_back(key);
  }
}

}  // namespace

bool operator==(const Account& a, const Account& b) {
  return a.name == b.name && a.description == b.description && a.organization == b.organization &&
         a.parent == b.parent;
}

bool operator==(const AcctUser& a, const AcctUser& b) {
  return a.name == b.name && a.default_account == b.default_account &&
         a.admin_level == b.admin_level && a.uid == b.uid;
}

bool operator==(const AssocLimits& a, const AssocLimits& b) {
  return a.fairshare == b.fairshare && a.grp_tres == b.grp_tres && a.grp_jobs == b.grp_jobs &&
         a.grp_submit_jobs == b.grp_submit_jobs && a.max_jobs == b.max_jobs &&
         a.max_submit_jobs == b.max_submit_jobs && a.max_tres_per_job == b.max_tres_per_job &&
         a.max_wall == b.max_wall && a.grp_billing_mins == b.grp_billing_mins &&
         a.grp_tres_mins == b.grp_tres_mins && a.max_tres_mins_per_job == b.max_tres_mins_per_job &&
         a.grp_tres_run_mins == b.grp_tres_run_mins;
}

bool operator==(const Association& a, const Association& b) {
  return a.id == b.id && a.account == b.account && a.user == b.user && a.partition == b.partition &&
         a.parent_account == b.parent_account && a.limits == b.limits && a.qos == b.qos &&
         a.default_qos == b.default_qos;
}

AccountsTable InitialAccounts() {
  AccountsTable table;
  Account root;
  root.name = "root";
  root.description = "default root account";
  root.organization = "root";
  table.accounts["root"] = root;
  AcctUser user;
  user.name = "root";
  user.default_account = "root";
  user.admin_level = "Administrator";
  user.uid = 0;
  table.users["root"] = user;
  Association account_assoc;
  account_assoc.id = 1;
  account_assoc.account = "root";
  account_assoc.qos = {"normal"};
  table.assocs[AssocKey::Account("root")] = account_assoc;
  Association user_assoc;
  user_assoc.id = 2;
  user_assoc.account = "root";
  user_assoc.user = "root";
  table.assocs[AssocKey::User("root", "root")] = user_assoc;
  return table;
}

size_t AccountsDiff::size() const {
  return accounts.size() + users.size() + assocs.size() + removed_accounts.size() +
         removed_users.size() + removed_assocs.size();
}

AccountsDiff DiffAccounts(const AccountsTable& before, const AccountsTable& after) {
  AccountsDiff diff;
  DiffRows(before.accounts, after.accounts, &diff.accounts, &diff.removed_accounts);
  DiffRows(before.users, after.users, &diff.users, &diff.removed_users);
  DiffRows(before.assocs, after.assocs, &diff.assocs, &diff.removed_assocs);
  return diff;
}

const char* AccountsOpName(AccountsOp op) {
  switch (op) {
    case AccountsOp::kAddAccount:
      return "ADD_ACCOUNT";
    case AccountsOp::kAddUser:
      return "ADD_USER";
    case AccountsOp::kModifyAccount:
      return "MODIFY_ACCOUNT";
    case AccountsOp::kModifyUser:
      return "MODIFY_USER";
    case AccountsOp::kDeleteAccount:
      return "DELETE_ACCOUNT";
    case AccountsOp::kDeleteUser:
      return "DELETE_USER";
    case AccountsOp::kUnspecified:
      return "OP_UNSPECIFIED";
  }
  return "OP_UNSPECIFIED";
}

absl::StatusOr<AccountsUpdateResult> ApplyAccountsUpdate(const AccountsTable& table,
                                                         const AccountsUpdate& update,
                                                         const AccountsContext& context,
                                                         const std::string& cluster) {
  AccountsUpdateResult out;
  out.table = table;
  if (update.names.empty()) return Invalid("No names given");
  absl::Status status;
  switch (update.op) {
    case AccountsOp::kAddAccount:
      status = AddAccounts(out, update, context, cluster);
      break;
    case AccountsOp::kAddUser:
      status = AddUsers(out, update, context);
      break;
    case AccountsOp::kModifyAccount:
      status = ModifyAccounts(out, update, context);
      break;
    case AccountsOp::kModifyUser:
      status = ModifyUsers(out, update, context);
      break;
    case AccountsOp::kDeleteAccount:
      status = DeleteAccounts(out, update, context);
      break;
    case AccountsOp::kDeleteUser:
      status = DeleteUsers(out, update, context);
      break;
    case AccountsOp::kUnspecified:
      return Invalid("Unknown accounts operation");
  }
  if (!status.ok()) return status;
  return out;
}

}  // namespace skiff::ctld
