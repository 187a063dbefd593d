#include "ctld/accounts/accounts_table.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/message_differencer.h"

namespace skiff {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::string Lower(const std::string& text) { return absl::AsciiStrToLower(text); }

const v1::AssocInfo* AccountAssocOf(const AccountsState& state, const std::string& account) {
  auto it = state.assocs.find(AssocKey(account, "", ""));
  return it == state.assocs.end() ? nullptr : &it->second;
}

// `change` over `limits`: a set field replaces, -1 clears.
void MergeLimits(const v1::AssocLimits& change, v1::AssocLimits* limits) {
#define SKIFF_MERGE(field)                 \
  if (change.has_##field()) {              \
    if (change.field() == -1) {            \
      limits->clear_##field();             \
    } else {                               \
      limits->set_##field(change.field()); \
    }                                      \
  }
  SKIFF_MERGE(fairshare)
  SKIFF_MERGE(grp_jobs)
  SKIFF_MERGE(grp_submit_jobs)
  SKIFF_MERGE(max_jobs)
  SKIFF_MERGE(max_submit_jobs)
  SKIFF_MERGE(max_wall)
  SKIFF_MERGE(grp_billing_mins)
#undef SKIFF_MERGE
  auto merge_tres = [](const v1::Tres& from, v1::Tres* to) {
#define SKIFF_MERGE_TRES(field)      \
  if (from.has_##field()) {          \
    if (from.field() == -1) {        \
      to->clear_##field();           \
    } else {                         \
      to->set_##field(from.field()); \
    }                                \
  }
    SKIFF_MERGE_TRES(cpu)
    SKIFF_MERGE_TRES(mem_mb)
    SKIFF_MERGE_TRES(node)
    SKIFF_MERGE_TRES(gpu)
#undef SKIFF_MERGE_TRES
  };
  if (change.has_grp_tres()) merge_tres(change.grp_tres(), limits->mutable_grp_tres());
  if (change.has_max_tres_per_job()) {
    merge_tres(change.max_tres_per_job(), limits->mutable_max_tres_per_job());
  }
}

// QOS=, QOS+=, QOS-= and DefaultQOS= on one association.
absl::Status ApplyQos(const v1::UpdateAccountsRequest& request, const AccountsContext& context,
                      v1::AssocInfo* assoc) {
  for (const std::string& name : request.qos()) {
    if (std::find(context.qos_names.begin(), context.qos_names.end(), Lower(name)) ==
        context.qos_names.end()) {
      return Invalid(absl::StrCat("Invalid qos '", name, "'"));
    }
  }
  std::vector<std::string> list(assoc->qos().begin(), assoc->qos().end());
  if (request.qos_op() == "=") list.clear();
  if (request.qos_op() == "=" || request.qos_op() == "+=") {
    for (const std::string& name : request.qos()) {
      if (std::find(list.begin(), list.end(), Lower(name)) == list.end())
        list.push_back(Lower(name));
    }
  } else if (request.qos_op() == "-=") {
    for (const std::string& name : request.qos()) {
      list.erase(std::remove(list.begin(), list.end(), Lower(name)), list.end());
    }
  }
  std::sort(list.begin(), list.end());
  assoc->clear_qos();
  for (const std::string& name : list) assoc->add_qos(name);
  if (request.has_default_qos()) {
    const std::string qos = Lower(request.default_qos());
    if (!qos.empty() && !list.empty() && std::find(list.begin(), list.end(), qos) == list.end()) {
      return Invalid(absl::StrCat("Default QOS '", qos, "' is not in the QOS list (",
                                  absl::StrJoin(list, ","), ")"));
    }
    if (!qos.empty() && std::find(context.qos_names.begin(), context.qos_names.end(), qos) ==
                            context.qos_names.end()) {
      return Invalid(absl::StrCat("Invalid qos '", qos, "'"));
    }
    assoc->set_default_qos(qos);
  }
  return absl::OkStatus();
}

absl::Status ApplyAssocSettings(const v1::UpdateAccountsRequest& request,
                                const AccountsContext& context, v1::AssocInfo* assoc) {
  MergeLimits(request.limits(), assoc->mutable_limits());
  return ApplyQos(request, context, assoc);
}

bool WantedName(const v1::UpdateAccountsRequest& request, const std::string& name, bool lower) {
  return std::any_of(request.names().begin(), request.names().end(),
                     [&](const std::string& n) { return (lower ? Lower(n) : n) == name; });
}

std::vector<std::string> LowerList(const google::protobuf::RepeatedPtrField<std::string>& list) {
  std::vector<std::string> out;
  for (const std::string& item : list) out.push_back(Lower(item));
  return out;
}

bool IsDescendant(const AccountsState& state, const std::string& account,
                  const std::string& ancestor) {
  std::string current = account;
  for (size_t guard = 0; guard <= state.accounts.size() && !current.empty(); ++guard) {
    if (current == ancestor) return true;
    auto it = state.accounts.find(current);
    if (it == state.accounts.end()) return false;
    current = it->second.parent();
  }
  return false;
}

uint64_t NextAssocId(const AccountsState& state) {
  uint64_t next = 1;
  for (const auto& [key, assoc] : state.assocs) next = std::max(next, assoc.id() + 1);
  return next;
}

absl::Status AddAccounts(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                         const AccountsContext& context, const std::string& cluster) {
  AccountsState& state = out.state;
  const std::string parent = request.has_parent() ? Lower(request.parent()) : "root";
  if (AccountAssocOf(state, parent) == nullptr) {
    return Invalid(
        absl::StrCat("Parent account '", parent, "' doesn't exist on cluster ", cluster));
  }
  for (const std::string& raw : request.names()) {
    const std::string name = Lower(raw);
    if (name.empty()) return Invalid("No blank names are allowed when adding.");
    if (state.accounts.count(name) != 0) continue;
    v1::AccountInfo account;
    account.set_name(name);
    account.set_description(request.has_description() ? request.description() : name);
    // Slurm: the organization defaults to the parent's name, or the account's
    // own under root.
    account.set_organization(request.has_organization() ? request.organization()
                             : parent == "root"         ? name
                                                        : parent);
    account.set_parent(parent);
    state.accounts[name] = account;
    v1::AssocInfo assoc;
    assoc.set_id(NextAssocId(state));
    assoc.set_account(name);
    assoc.set_parent_account(parent);
    if (absl::Status s = ApplyAssocSettings(request, context, &assoc); !s.ok()) return s;
    state.assocs[AssocKey(name, "", "")] = assoc;
    out.affected.push_back(name);
    out.associations.push_back(AssocKey(name, "", ""));
  }
  return absl::OkStatus();
}

absl::Status AddUsers(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                      const AccountsContext& context) {
  AccountsState& state = out.state;
  const std::vector<std::string> accounts = LowerList(request.accounts());
  const std::vector<std::string> partitions(request.partitions().begin(),
                                            request.partitions().end());
  for (const std::string& account : accounts) {
    if (state.accounts.count(account) == 0) {
      return Invalid(absl::StrCat("The account '", account, "' doesn't exist"));
    }
  }
  std::string admin_level = "None";
  if (request.has_admin_level()) {
    const std::string level = Lower(request.admin_level());
    if (level == "none") {
      admin_level = "None";
    } else if (level == "operator") {
      admin_level = "Operator";
    } else if (level == "administrator" || level == "admin") {
      admin_level = "Administrator";
    } else {
      return Invalid(absl::StrCat("Invalid AdminLevel '", request.admin_level(),
                                  "' (None, Operator or Administrator)"));
    }
  }
  for (const std::string& name : request.names()) {
    if (name.empty()) return Invalid("No blank names are allowed when adding.");
    auto existing = state.users.find(name);
    if (existing == state.users.end() && accounts.empty()) {
      return Invalid(absl::StrCat("Need a default account for user '", name,
                                  "': give Account= or DefaultAccount="));
    }
    if (existing == state.users.end()) {
      v1::UserInfo user;
      user.set_name(name);
      const std::string default_account =
          request.has_default_account() ? Lower(request.default_account()) : accounts.front();
      if (std::find(accounts.begin(), accounts.end(), default_account) == accounts.end()) {
        return Invalid(absl::StrCat("Default account '", default_account,
                                    "' is not one of the user's accounts"));
      }
      user.set_default_account(default_account);
      user.set_admin_level(admin_level);
      auto uid = context.uids.find(name);
      user.set_uid(uid == context.uids.end() ? -1 : uid->second);
      state.users[name] = user;
      out.affected.push_back(name);
    }
    for (const std::string& account : accounts) {
      for (const std::string& partition :
           partitions.empty() ? std::vector<std::string>{""} : partitions) {
        const std::string key = AssocKey(account, name, partition);
        if (state.assocs.count(key) != 0) continue;
        v1::AssocInfo assoc;
        assoc.set_id(NextAssocId(state));
        assoc.set_account(account);
        assoc.set_user(name);
        assoc.set_partition(partition);
        if (absl::Status s = ApplyAssocSettings(request, context, &assoc); !s.ok()) return s;
        state.assocs[key] = assoc;
        out.associations.push_back(key);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ModifyAccounts(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                            const AccountsContext& context) {
  AccountsState& state = out.state;
  for (auto& [name, account] : state.accounts) {
    if (!WantedName(request, name, true)) continue;
    if (request.has_description()) account.set_description(request.description());
    if (request.has_organization()) account.set_organization(request.organization());
    v1::AssocInfo& assoc = state.assocs[AssocKey(name, "", "")];
    if (request.has_parent()) {
      const std::string parent = Lower(request.parent());
      if (name == "root" || state.accounts.count(parent) == 0 ||
          IsDescendant(state, parent, name)) {
        return Invalid("Invalid parent account specified");
      }
      account.set_parent(parent);
      assoc.set_parent_account(parent);
    }
    if (absl::Status s = ApplyAssocSettings(request, context, &assoc); !s.ok()) return s;
    out.affected.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status ModifyUsers(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                         const AccountsContext& context) {
  AccountsState& state = out.state;
  const std::vector<std::string> accounts = LowerList(request.accounts());
  for (auto& [name, user] : state.users) {
    if (!WantedName(request, name, false)) continue;
    if (request.has_admin_level()) {
      const std::string level = Lower(request.admin_level());
      if (level == "none") {
        user.set_admin_level("None");
      } else if (level == "operator") {
        user.set_admin_level("Operator");
      } else if (level == "administrator" || level == "admin") {
        user.set_admin_level("Administrator");
      } else {
        return Invalid(absl::StrCat("Invalid AdminLevel '", request.admin_level(),
                                    "' (None, Operator or Administrator)"));
      }
    }
    if (request.has_default_account()) {
      const std::string account = Lower(request.default_account());
      if (state.assocs.count(AssocKey(account, name, "")) == 0) {
        return Invalid(
            absl::StrCat("User '", name, "' has no association with account '", account, "'"));
      }
      user.set_default_account(account);
    }
    for (auto& [key, assoc] : state.assocs) {
      if (assoc.user() != name) continue;
      if (!accounts.empty() &&
          std::find(accounts.begin(), accounts.end(), assoc.account()) == accounts.end()) {
        continue;
      }
      if (absl::Status s = ApplyAssocSettings(request, context, &assoc); !s.ok()) return s;
    }
    out.affected.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status RemoveAssoc(AccountsUpdate& out, const AccountsContext& context,
                         const std::string& key) {
  const v1::AssocInfo& assoc = out.state.assocs.at(key);
  for (const std::string& active : context.active_assocs) {
    const std::string prefix = absl::StrCat(assoc.account(), "|");
    if (!assoc.user().empty() ? active == absl::StrCat(assoc.account(), "|", assoc.user())
                              : active.rfind(prefix, 0) == 0) {
      return absl::FailedPreconditionError("Job(s) active, cancel job(s) before remove");
    }
  }
  out.associations.push_back(key);
  out.state.assocs.erase(key);
  return absl::OkStatus();
}

absl::Status DeleteAccounts(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                            const AccountsContext& context) {
  AccountsState& state = out.state;
  std::vector<std::string> names;
  for (const auto& [name, account] : state.accounts) {
    if (WantedName(request, name, true)) names.push_back(name);
  }
  for (const std::string& name : names) {
    if (name == "root") {
      return Invalid(
          "You are not allowed to remove the root account.\n Use remove cluster instead.");
    }
    for (const auto& [other, account] : state.accounts) {
      if (account.parent() == name && std::find(names.begin(), names.end(), other) == names.end()) {
        return absl::FailedPreconditionError(absl::StrCat("Account '", name, "' has sub-accounts (",
                                                          other, "); remove or move them first"));
      }
    }
    for (const auto& [user_name, user] : state.users) {
      if (user.default_account() == name) {
        return absl::FailedPreconditionError(
            absl::StrCat("You can not remove the default account of a user\n  ", user_name));
      }
    }
  }
  for (const std::string& name : names) {
    std::vector<std::string> keys;
    for (const auto& [key, assoc] : state.assocs) {
      if (assoc.account() == name) keys.push_back(key);
    }
    for (const std::string& key : keys) {
      if (absl::Status s = RemoveAssoc(out, context, key); !s.ok()) return s;
    }
    state.accounts.erase(name);
    out.affected.push_back(name);
  }
  return absl::OkStatus();
}

absl::Status DeleteUsers(AccountsUpdate& out, const v1::UpdateAccountsRequest& request,
                         const AccountsContext& context) {
  AccountsState& state = out.state;
  const std::vector<std::string> accounts = LowerList(request.accounts());
  std::vector<std::string> names;
  for (const auto& [name, user] : state.users) {
    if (WantedName(request, name, false)) names.push_back(name);
  }
  for (const std::string& name : names) {
    std::vector<std::string> keys;
    for (const auto& [key, assoc] : state.assocs) {
      if (assoc.user() != name) continue;
      if (!accounts.empty() &&
          std::find(accounts.begin(), accounts.end(), assoc.account()) == accounts.end()) {
        continue;
      }
      keys.push_back(key);
    }
    v1::UserInfo& user = state.users.at(name);
    bool any_left = false;
    bool default_left = false;
    for (const auto& [key, assoc] : state.assocs) {
      if (assoc.user() != name || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      any_left = true;
      if (assoc.account() == user.default_account()) default_left = true;
    }
    if (any_left && !default_left) {
      return absl::FailedPreconditionError(
          absl::StrCat("You can not remove the default account of a user\n  ", name));
    }
    for (const std::string& key : keys) {
      if (absl::Status s = RemoveAssoc(out, context, key); !s.ok()) return s;
    }
    if (!any_left) {
      state.users.erase(name);
      out.affected.push_back(name);
    }
  }
  if (out.associations.empty() && out.affected.empty()) {
    return absl::NotFoundError("Nothing deleted");
  }
  return absl::OkStatus();
}

// Slurm's inheritance: the nearest association up the tree that sets a value.
template <typename Get>
auto Inherited(const AccountsState& state, const v1::AssocInfo& assoc, Get get)
    -> decltype(get(assoc)) {
  if (auto value = get(assoc); value) return value;
  std::string account = assoc.user().empty() ? assoc.parent_account() : assoc.account();
  for (size_t guard = 0; guard <= state.accounts.size() && !account.empty(); ++guard) {
    const v1::AssocInfo* up = AccountAssocOf(state, account);
    if (up == nullptr) break;
    if (auto value = get(*up); value) return value;
    account = up->parent_account();
  }
  return {};
}

int64_t Limit(const std::optional<int64_t>& value) { return value ? *value : kNoAssocLimit; }

}  // namespace

std::string AssocKey(const std::string& account, const std::string& user,
                     const std::string& partition) {
  return absl::StrCat(account, "|", user, "|", partition);
}

AccountsState InitialAccounts() {
  AccountsState state;
  v1::AccountInfo root;
  root.set_name("root");
  root.set_description("default root account");
  root.set_organization("root");
  state.accounts["root"] = root;
  v1::UserInfo user;
  user.set_name("root");
  user.set_default_account("root");
  user.set_admin_level("Administrator");
  user.set_uid(0);
  state.users["root"] = user;
  v1::AssocInfo account_assoc;
  account_assoc.set_id(1);
  account_assoc.set_account("root");
  account_assoc.add_qos("normal");
  state.assocs[AssocKey("root", "", "")] = account_assoc;
  v1::AssocInfo user_assoc;
  user_assoc.set_id(2);
  user_assoc.set_account("root");
  user_assoc.set_user("root");
  state.assocs[AssocKey("root", "root", "")] = user_assoc;
  return state;
}

absl::StatusOr<AccountsState> AccountsFromRecords(
    const std::map<std::string, std::string>& accounts,
    const std::map<std::string, std::string>& users,
    const std::map<std::string, std::string>& assocs) {
  AccountsState state;
  for (const auto& [key, blob] : accounts) {
    if (!state.accounts[key].ParseFromString(blob)) {
      return absl::DataLossError(absl::StrCat("account record '", key, "' does not parse"));
    }
  }
  for (const auto& [key, blob] : users) {
    if (!state.users[key].ParseFromString(blob)) {
      return absl::DataLossError(absl::StrCat("user record '", key, "' does not parse"));
    }
  }
  for (const auto& [key, blob] : assocs) {
    if (!state.assocs[key].ParseFromString(blob)) {
      return absl::DataLossError(absl::StrCat("association record '", key, "' does not parse"));
    }
  }
  return state;
}

std::vector<RecordRow> ChangedRows(const AccountsState& before, const AccountsState& after) {
  std::vector<RecordRow> rows;
  auto diff = [&rows](const char* kind, const auto& old_map, const auto& new_map) {
    for (const auto& [key, row] : new_map) {
      auto it = old_map.find(key);
      if (it == old_map.end() ||
          !google::protobuf::util::MessageDifferencer::Equals(it->second, row)) {
        rows.push_back({kind, key, row.SerializeAsString()});
      }
    }
    for (const auto& [key, row] : old_map) {
      if (new_map.count(key) == 0) rows.push_back({kind, key, ""});
    }
  };
  diff(kAccountKind, before.accounts, after.accounts);
  diff(kAcctUserKind, before.users, after.users);
  diff(kAssocKind, before.assocs, after.assocs);
  return rows;
}

absl::StatusOr<AccountsUpdate> ApplyAccountsUpdate(const AccountsState& state,
                                                   const v1::UpdateAccountsRequest& request,
                                                   const AccountsContext& context,
                                                   const std::string& cluster) {
  AccountsUpdate out;
  out.state = state;
  if (request.names().empty()) return Invalid("No names given");
  absl::Status status;
  switch (request.op()) {
    case v1::UpdateAccountsRequest::ADD_ACCOUNT:
      status = AddAccounts(out, request, context, cluster);
      break;
    case v1::UpdateAccountsRequest::ADD_USER:
      status = AddUsers(out, request, context);
      break;
    case v1::UpdateAccountsRequest::MODIFY_ACCOUNT:
      status = ModifyAccounts(out, request, context);
      break;
    case v1::UpdateAccountsRequest::MODIFY_USER:
      status = ModifyUsers(out, request, context);
      break;
    case v1::UpdateAccountsRequest::DELETE_ACCOUNT:
      status = DeleteAccounts(out, request, context);
      break;
    case v1::UpdateAccountsRequest::DELETE_USER:
      status = DeleteUsers(out, request, context);
      break;
    default:
      return Invalid("Unknown accounts operation");
  }
  if (!status.ok()) return status;
  return out;
}

v1::GetAccountsReply ToAccountsReply(const AccountsState& state, const std::string& cluster) {
  v1::GetAccountsReply reply;
  reply.set_cluster(cluster);
  for (const auto& [name, account] : state.accounts) *reply.add_accounts() = account;
  for (const auto& [name, user] : state.users) *reply.add_users() = user;
  std::function<void(const std::string&)> walk = [&](const std::string& account) {
    if (const v1::AssocInfo* own = AccountAssocOf(state, account); own != nullptr) {
      *reply.add_assocs() = *own;
    }
    for (const auto& [key, assoc] : state.assocs) {  // keys sort users by name
      if (assoc.account() == account && !assoc.user().empty()) *reply.add_assocs() = assoc;
    }
    for (const auto& [name, child] : state.accounts) {
      if (child.parent() == account && name != account) walk(name);
    }
  };
  walk("root");
  return reply;
}

AccountPolicy ToAccountPolicy(const AccountsState& state, const Enforcement& enforce) {
  AccountPolicy policy;
  policy.enforce = enforce;
  for (const auto& [name, user] : state.users)
    policy.default_account[name] = user.default_account();
  auto tres = [](const v1::Tres& t) {
    AssocTres out;
    if (t.has_cpu()) out.cpus = t.cpu();
    if (t.has_mem_mb()) out.mem_mb = t.mem_mb();
    if (t.has_node()) out.nodes = t.node();
    if (t.has_gpu()) out.gpus = t.gpu();
    return out;
  };
  for (const auto& [key, assoc] : state.assocs) {
    if (assoc.user().empty()) {
      AccountAssoc account;
      account.parent = assoc.parent_account();
      const v1::AssocLimits& l = assoc.limits();
      if (l.has_grp_jobs()) account.grp_jobs = l.grp_jobs();
      if (l.has_grp_submit_jobs()) account.grp_submit_jobs = l.grp_submit_jobs();
      if (l.has_grp_billing_mins()) {
        account.grp_billing_mins = static_cast<double>(l.grp_billing_mins());
      }
      account.grp_tres = tres(l.grp_tres());
      policy.accounts[assoc.account()] = account;
      continue;
    }
    UserAssoc user;
    user.account = assoc.account();
    user.user = assoc.user();
    user.partition = assoc.partition();
    using Opt = std::optional<int64_t>;
    user.max_jobs = Limit(Inherited(state, assoc, [](const v1::AssocInfo& a) {
      return a.limits().has_max_jobs() ? Opt(a.limits().max_jobs()) : Opt();
    }));
    user.max_submit_jobs = Limit(Inherited(state, assoc, [](const v1::AssocInfo& a) {
      return a.limits().has_max_submit_jobs() ? Opt(a.limits().max_submit_jobs()) : Opt();
    }));
    user.max_wall = Limit(Inherited(state, assoc, [](const v1::AssocInfo& a) {
      return a.limits().has_max_wall() ? Opt(a.limits().max_wall()) : Opt();
    }));
    auto per_job = [&](auto has, auto get) {
      return Limit(Inherited(state, assoc, [&](const v1::AssocInfo& a) {
        const v1::Tres& t = a.limits().max_tres_per_job();
        return (t.*has)() ? Opt((t.*get)()) : Opt();
      }));
    };
    user.max_tres_per_job.cpus = per_job(&v1::Tres::has_cpu, &v1::Tres::cpu);
    user.max_tres_per_job.mem_mb = per_job(&v1::Tres::has_mem_mb, &v1::Tres::mem_mb);
    user.max_tres_per_job.nodes = per_job(&v1::Tres::has_node, &v1::Tres::node);
    user.max_tres_per_job.gpus = per_job(&v1::Tres::has_gpu, &v1::Tres::gpu);
    using OptList = std::optional<std::vector<std::string>>;
    OptList qos = Inherited(state, assoc, [](const v1::AssocInfo& a) {
      return a.qos().empty() ? OptList()
                             : OptList(std::vector<std::string>(a.qos().begin(), a.qos().end()));
    });
    if (qos) user.qos = *qos;
    using OptText = std::optional<std::string>;
    OptText default_qos = Inherited(state, assoc, [](const v1::AssocInfo& a) {
      return a.default_qos().empty() ? OptText() : OptText(a.default_qos());
    });
    if (default_qos) user.default_qos = *default_qos;
    policy.users.push_back(user);
  }
  const std::map<std::string, double> norm = NormalizedShares(state);
  for (const auto& [key, assoc] : state.assocs) {
    if (assoc.user().empty()) continue;
    auto it = norm.find(key);
    if (it != norm.end()) policy.user_shares[assoc.user()] += it->second;
  }
  return policy;
}

std::map<std::string, double> NormalizedShares(const AccountsState& state) {
  std::map<std::string, double> out;  // by AssocKey
  std::function<void(const std::string&, double)> walk = [&](const std::string& account,
                                                             double norm) {
    out[AssocKey(account, "", "")] = norm;
    std::vector<const v1::AssocInfo*> children;
    for (const auto& [key, assoc] : state.assocs) {
      const bool user_child = assoc.account() == account && !assoc.user().empty();
      const bool account_child =
          assoc.user().empty() && assoc.parent_account() == account && assoc.account() != account;
      if (user_child || account_child) children.push_back(&assoc);
    }
    auto shares_of = [](const v1::AssocInfo& a) {
      return a.limits().has_fairshare() ? std::max(0, a.limits().fairshare()) : 1;
    };
    double total = 0;
    for (const v1::AssocInfo* child : children) total += shares_of(*child);
    for (const v1::AssocInfo* child : children) {
      const double child_norm = total > 0 ? norm * shares_of(*child) / total : 0;
      if (child->user().empty()) {
        walk(child->account(), child_norm);
      } else {
        out[AssocKey(child->account(), child->user(), child->partition())] = child_norm;
      }
    }
  };
  walk("root", 1.0);
  return out;
}

std::set<uid_t> AdminUids(const AccountsState& state) {
  std::set<uid_t> out;
  for (const auto& [name, user] : state.users) {
    if (user.admin_level() != "None" && !user.admin_level().empty() && user.uid() >= 0) {
      out.insert(static_cast<uid_t>(user.uid()));
    }
  }
  return out;
}

}  // namespace skiff
