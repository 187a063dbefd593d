#include "cli/sacctmgr/sacctmgr_assoc.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/accounts_usage.h"
#include "client/budget_text.h"
#include "common/time_format.h"
#include "common/tres.h"

namespace skiff::cli {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::string Lower(const std::string& text) { return absl::AsciiStrToLower(text); }

bool Is(const std::string& key, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(),
                     [&](const char* name) { return absl::EqualsIgnoreCase(key, name); });
}

std::vector<std::string> Items(const std::string& value) {
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    std::string text(absl::StripAsciiWhitespace(item));
    if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
        text.back() == text.front()) {
      text = text.substr(1, text.size() - 2);
    }
    out.push_back(text);
  }
  return out;
}

absl::StatusOr<int64_t> Limit(const std::string& key, const std::string& value) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < -1) {
    return Invalid(absl::StrCat(" Bad ", key, " value: ", value));
  }
  return n;
}

absl::Status SetTres(const std::string& key, const std::string& value, v1::Tres* out) {
  absl::StatusOr<TresLimits> limits = ParseTres(value);
  if (!limits.ok())
    return Invalid(absl::StrCat(" Bad ", key, " value: ", limits.status().message()));
  if (limits->cpu) out->set_cpu(*limits->cpu);
  if (limits->mem_mb) out->set_mem_mb(*limits->mem_mb);
  if (limits->node) out->set_node(*limits->node);
  if (limits->gpu) out->set_gpu(*limits->gpu);
  return absl::OkStatus();
}

// A setting (add's Key=Value, modify's after "set"); false when not one.
absl::StatusOr<bool> ApplySetting(const std::string& key, const std::string& op,
                                  const std::string& value, v1::UpdateAccountsRequest* r) {
  v1::AssocLimits* l = r->mutable_limits();
  if (Is(key, {"Description", "Desc", "Descr"})) {
    r->set_description(value);
  } else if (Is(key, {"Organization", "Org"})) {
    r->set_organization(value);
  } else if (Is(key, {"Parent", "ParentName"})) {
    r->set_parent(Lower(value));
  } else if (Is(key, {"DefaultAccount", "DefAcct", "DefaultAcct"})) {
    r->set_default_account(Lower(value));
  } else if (Is(key, {"AdminLevel", "Admin"})) {
    r->set_admin_level(value);
  } else if (Is(key, {"Fairshare", "Shares", "Share"})) {
    absl::StatusOr<int64_t> n = Limit(key, value);
    if (!n.ok()) return n.status();
    l->set_fairshare(static_cast<int32_t>(*n));
  } else if (Is(key, {"GrpJobs"})) {
    absl::StatusOr<int64_t> n = Limit(key, value);
    if (!n.ok()) return n.status();
    l->set_grp_jobs(*n);
  } else if (Is(key, {"GrpSubmitJobs", "GrpSubmit"})) {
    absl::StatusOr<int64_t> n = Limit(key, value);
    if (!n.ok()) return n.status();
    l->set_grp_submit_jobs(*n);
  } else if (Is(key, {"MaxJobs"})) {
    absl::StatusOr<int64_t> n = Limit(key, value);
    if (!n.ok()) return n.status();
    l->set_max_jobs(*n);
  } else if (Is(key, {"MaxSubmitJobs", "MaxSubmit"})) {
    absl::StatusOr<int64_t> n = Limit(key, value);
    if (!n.ok()) return n.status();
    l->set_max_submit_jobs(*n);
  } else if (Is(key, {"GrpTRES"})) {
    if (absl::Status s = SetTres(key, value, l->mutable_grp_tres()); !s.ok()) return s;
  } else if (Is(key, {"GrpTRESRunMins"})) {
    if (absl::Status s = SetTres(key, value, l->mutable_grp_tres_run_mins()); !s.ok()) return s;
  } else if (Is(key, {"MaxTRESMinsPerJob", "MaxTRESMins"})) {
    if (absl::Status s = SetTres(key, value, l->mutable_max_tres_mins_per_job()); !s.ok()) return s;
  } else if (Is(key, {"MaxTRESPerJob", "MaxTRES"})) {
    if (absl::Status s = SetTres(key, value, l->mutable_max_tres_per_job()); !s.ok()) return s;
  } else if (Is(key, {"MaxWall", "MaxWallDurationPerJob"})) {
    if (value == "-1") {
      l->set_max_wall(-1);
    } else {
      absl::StatusOr<int64_t> seconds = ParseDuration(value);
      if (!seconds.ok()) return Invalid(absl::StrCat(" Bad MaxWall time format: ", value));
      l->set_max_wall(*seconds < 0 ? -1 : *seconds);
    }
  } else if (Is(key, {"GrpTRESMins"})) {
    // Budgets in TRES-minutes: billing=N (service units), cpu, mem, node and
    // gres/gpu; -1 clears one, or all of them alone.
    if (value == "-1") {
      l->set_grp_billing_mins(-1);
      v1::Tres* t = l->mutable_grp_tres_mins();
      t->set_cpu(-1);
      t->set_mem_mb(-1);
      t->set_node(-1);
      t->set_gpu(-1);
      return true;
    }
    std::vector<std::string> others;
    for (const std::string& item : Items(value)) {
      std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
      if (parts.size() == 2 && Is(parts[0], {"billing"})) {
        int64_t n = 0;
        if (!absl::SimpleAtoi(parts[1], &n) || n < -1) {
          return Invalid(absl::StrCat(" Bad GrpTRESMins value: ", value));
        }
        l->set_grp_billing_mins(n);
      } else {
        others.push_back(item);
      }
    }
    if (!others.empty()) {
      absl::Status s = SetTres(key, absl::StrJoin(others, ","), l->mutable_grp_tres_mins());
      if (!s.ok()) return s;
    }
  } else if (Is(key, {"QOS", "QOSLevel"})) {
    for (const std::string& qos : Items(value)) r->add_qos(Lower(qos));
    r->set_qos_op(op);
  } else if (Is(key, {"DefaultQOS", "DefQOS"})) {
    r->set_default_qos(Lower(value));
  } else {
    return false;
  }
  return true;
}

// Slurm's columns: name in the header, width, and the value of an association.
struct Column {
  const char* header;
  int width;
};

const std::map<std::string, Column>& Columns() {
  static const auto* columns = new std::map<std::string, Column>{
      {"account", {"Account", 10}},
      {"cluster", {"Cluster", 10}},
      {"user", {"User", 10}},
      {"partition", {"Partition", 10}},
      {"share", {"Share", 9}},
      {"fairshare", {"Share", 9}},
      {"priority", {"Priority", 10}},
      {"grpjobs", {"GrpJobs", 7}},
      {"grptres", {"GrpTRES", 13}},
      {"grpsubmit", {"GrpSubmit", 9}},
      {"grpsubmitjobs", {"GrpSubmit", 9}},
      {"grpwall", {"GrpWall", 11}},
      {"grptresmins", {"GrpTRESMins", 13}},
      {"maxjobs", {"MaxJobs", 7}},
      {"maxtres", {"MaxTRES", 13}},
      {"maxtresperjob", {"MaxTRES", 13}},
      {"maxtrespernode", {"MaxTRESPerNode", 14}},
      {"maxsubmit", {"MaxSubmit", 9}},
      {"maxsubmitjobs", {"MaxSubmit", 9}},
      {"maxwall", {"MaxWall", 11}},
      {"maxtresmins", {"MaxTRESMins", 13}},
      {"qos", {"QOS", 20}},
      {"defaultqos", {"Def QOS", 9}},
      {"defqos", {"Def QOS", 9}},
      {"grptresrunmins", {"GrpTRESRunMins", 13}},
      // Skiff's: what is left of GrpTRESMins (used and held by jobs taken).
      {"grptresleft", {"GrpTRESLeft", 13}},
      {"id", {"ID", 6}},
      {"parentname", {"Par Name", 10}},
      {"descr", {"Descr", 20}},
      {"description", {"Descr", 20}},
      {"org", {"Org", 20}},
      {"organization", {"Org", 20}},
      {"defaultaccount", {"Def Acct", 10}},
      {"defacct", {"Def Acct", 10}},
      {"adminlevel", {"Admin", 9}},
      {"admin", {"Admin", 9}},
  };
  return *columns;
}

constexpr char kAssocDefault[] =
    "Cluster,Account,User,Partition,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,"
    "GrpTRESMins,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS,"
    "GrpTRESRunMins";

std::string TresText(const v1::Tres& t) {
  TresLimits limits;
  if (t.has_cpu()) limits.cpu = t.cpu();
  if (t.has_mem_mb()) limits.mem_mb = t.mem_mb();
  if (t.has_node()) limits.node = t.node();
  if (t.has_gpu()) limits.gpu = t.gpu();
  return FormatTres(limits);
}

// GrpTRESMins in Slurm's TRES order: cpu, mem, node, billing, gres/gpu.
std::string GrpTresMinsText(const v1::AssocLimits& l) {
  std::vector<std::string> parts;
  const v1::Tres& t = l.grp_tres_mins();
  v1::Tres before_billing = t;
  before_billing.clear_gpu();
  if (std::string text = TresText(before_billing); !text.empty()) parts.push_back(text);
  if (l.has_grp_billing_mins() && l.grp_billing_mins() >= 0) {
    parts.push_back(absl::StrCat("billing=", l.grp_billing_mins()));
  }
  if (t.has_gpu() && t.gpu() >= 0) parts.push_back(absl::StrCat("gres/gpu=", t.gpu()));
  return absl::StrJoin(parts, ",");
}

std::string WallText(int64_t seconds) {
  // Slurm prints MaxWall in its time-limit form ("1-00:00:00", "02:00:00").
  return FormatTimeLimit(seconds);
}

// The association's QOS (or DefaultQOS) as sacctmgr shows it: its own, else
// the nearest parent's.
std::string Effective(const v1::GetAccountsReply& reply, const v1::AssocInfo& assoc, bool def) {
  std::map<std::string, const v1::AssocInfo*> account_assoc;
  for (const v1::AssocInfo& a : reply.assocs()) {
    if (a.user().empty()) account_assoc[a.account()] = &a;
  }
  const v1::AssocInfo* current = &assoc;
  for (int guard = 0; current != nullptr && guard <= reply.assocs_size(); ++guard) {
    if (def && !current->default_qos().empty()) return current->default_qos();
    if (!def && !current->qos().empty()) {
      std::vector<std::string> list(current->qos().begin(), current->qos().end());
      std::sort(list.begin(), list.end());
      return absl::StrJoin(list, ",");
    }
    const std::string up = current->user().empty() ? current->parent_account() : current->account();
    auto it = account_assoc.find(up);
    current = it == account_assoc.end() || it->second == current ? nullptr : it->second;
  }
  return "";
}

std::string AssocValue(const std::string& key, const v1::AssocInfo& a,
                       const v1::GetAccountsReply& reply) {
  const v1::AssocLimits& l = a.limits();
  auto count = [](bool has, int64_t value) { return has ? absl::StrCat(value) : std::string(); };
  if (key == "cluster") return reply.cluster();
  if (key == "account") return a.account();
  if (key == "user") return a.user();
  if (key == "partition") return a.partition();
  if (key == "share" || key == "fairshare")
    return absl::StrCat(l.has_fairshare() ? l.fairshare() : 1);
  if (key == "grpjobs") return count(l.has_grp_jobs(), l.grp_jobs());
  if (key == "grpsubmit" || key == "grpsubmitjobs") {
    return count(l.has_grp_submit_jobs(), l.grp_submit_jobs());
  }
  if (key == "maxjobs") return count(l.has_max_jobs(), l.max_jobs());
  if (key == "maxsubmit" || key == "maxsubmitjobs") {
    return count(l.has_max_submit_jobs(), l.max_submit_jobs());
  }
  if (key == "grptres") return TresText(l.grp_tres());
  if (key == "maxtres" || key == "maxtresperjob") return TresText(l.max_tres_per_job());
  if (key == "maxwall") return l.has_max_wall() ? WallText(l.max_wall()) : "";
  if (key == "grptresmins") return GrpTresMinsText(l);
  if (key == "maxtresmins" || key == "maxtresminsperjob")
    return TresText(l.max_tres_mins_per_job());
  if (key == "grptresrunmins") return TresText(l.grp_tres_run_mins());
  if (key == "grptresleft") {
    const client::AccountsUsage usage(reply);  // a lab's few associations: no index kept
    return client::BudgetText(
        client::GrpTresLeftOf(a, usage.Of(client::AssocKeyOf(a).WithoutPartition())));
  }
  if (key == "qos") return Effective(reply, a, false);
  if (key == "defaultqos" || key == "defqos") return Effective(reply, a, true);
  if (key == "id") return absl::StrCat(a.id());
  if (key == "parentname") return a.user().empty() ? a.parent_account() : "";
  return "";
}

std::string Cell(const std::string& text, int width) {
  std::string cut = text;
  if (static_cast<int>(cut.size()) > width) {
    cut = cut.substr(0, width);
    if (width > 0) cut[width - 1] = '+';
  }
  return std::string(width - cut.size(), ' ') + cut + " ";
}

struct Table {
  std::vector<std::string> keys;
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
};

absl::StatusOr<Table> MakeTable(const std::vector<std::string>& format, const char* fallback) {
  Table table;
  std::vector<std::string> fields = format;
  if (fields.empty()) fields = absl::StrSplit(fallback, ',');
  for (const std::string& raw : fields) {
    std::string name = raw;
    int width = -1;
    if (size_t percent = name.find('%'); percent != std::string::npos) {
      width = std::atoi(name.c_str() + percent + 1);
      name = name.substr(0, percent);
    }
    const std::string key = Lower(name);
    auto it = Columns().find(key);
    if (it == Columns().end()) return Invalid(absl::StrCat("Unknown field '", name, "'"));
    Column column = it->second;
    if (width > 0) column.width = width;
    table.keys.push_back(key);
    table.columns.push_back(column);
  }
  return table;
}

std::string Render(const Table& table, const SacctmgrOptions& options) {
  const bool parsable = options.parsable || options.parsable2;
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (parsable) {
        out += cells[i];
        if (i + 1 < cells.size() || options.parsable) out += "|";
      } else {
        out += Cell(cells[i], table.columns[i].width);
      }
    }
    out += "\n";
  };
  if (!options.no_header) {
    std::vector<std::string> names, dashes;
    for (const Column& column : table.columns) {
      names.push_back(column.header);
      dashes.push_back(std::string(column.width, '-'));
    }
    line(names);
    if (!parsable) line(dashes);
  }
  for (const auto& row : table.rows) line(row);
  return out;
}

bool Wanted(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::optional<AssocEntity> ParseAssocEntity(const std::string& word) {
  const std::string w = Lower(word);
  if (w == "account" || w == "accounts" || w == "acct") return AssocEntity::kAccount;
  if (w == "user" || w == "users") return AssocEntity::kUser;
  if (w == "association" || w == "associations" || w == "assoc") return AssocEntity::kAssociation;
  if (w == "cluster" || w == "clusters") return AssocEntity::kCluster;
  return std::nullopt;
}

absl::StatusOr<AssocCommand> ParseAssocCommand(SacctmgrVerb verb, AssocEntity entity,
                                               const std::vector<std::string>& words) {
  AssocCommand command;
  command.verb = verb;
  command.entity = entity;
  v1::UpdateAccountsRequest& r = command.request;
  const bool user = entity == AssocEntity::kUser;
  switch (verb) {
    case SacctmgrVerb::kAdd:
      r.set_op(user ? v1::UpdateAccountsRequest::ADD_USER : v1::UpdateAccountsRequest::ADD_ACCOUNT);
      break;
    case SacctmgrVerb::kModify:
      r.set_op(user ? v1::UpdateAccountsRequest::MODIFY_USER
                    : v1::UpdateAccountsRequest::MODIFY_ACCOUNT);
      break;
    case SacctmgrVerb::kDelete:
      r.set_op(user ? v1::UpdateAccountsRequest::DELETE_USER
                    : v1::UpdateAccountsRequest::DELETE_ACCOUNT);
      break;
    case SacctmgrVerb::kShow:
      break;
  }
  bool in_set = verb == SacctmgrVerb::kAdd;  // add: everything is a setting
  for (const std::string& word : words) {
    if (Is(word, {"where"})) {
      in_set = false;
      continue;
    }
    if (Is(word, {"set"})) {
      in_set = true;
      continue;
    }
    if (Is(word, {"withassoc", "-s"})) {
      command.with_assoc = true;
      continue;
    }
    size_t eq = word.find('=');
    if (eq == std::string::npos) {  // a bare name
      for (const std::string& name : Items(word)) {
        const std::string n = user ? name : Lower(name);
        r.add_names(n);
        command.names.push_back(n);
      }
      continue;
    }
    std::string key = word.substr(0, eq);
    std::string op = "=";
    if (!key.empty() && (key.back() == '+' || key.back() == '-')) {
      op = std::string(1, key.back()) + "=";
      key.pop_back();
    }
    const std::string value = word.substr(eq + 1);
    if (Is(key, {"Format"})) {
      command.format = Items(value);
      continue;
    }
    if (Is(key, {"Name", "Names"})) {
      for (const std::string& name : Items(value)) {
        const std::string n = user ? name : Lower(name);
        r.add_names(n);
        command.names.push_back(n);
      }
      continue;
    }
    if (Is(key, {"Account", "Accounts", "Acct"})) {
      if (entity == AssocEntity::kAccount) {  // "show account where account=x" is a name
        for (const std::string& name : Items(value)) {
          r.add_names(Lower(name));
          command.names.push_back(Lower(name));
        }
      } else {
        for (const std::string& name : Items(value)) {
          r.add_accounts(Lower(name));
          command.accounts.push_back(Lower(name));
        }
      }
      continue;
    }
    if (Is(key, {"User", "Users"})) {
      for (const std::string& name : Items(value)) {
        if (entity == AssocEntity::kUser) {
          r.add_names(name);
          command.names.push_back(name);
        } else {
          command.users.push_back(name);
        }
      }
      continue;
    }
    if (Is(key, {"Cluster", "Clusters"})) continue;  // one cluster
    if (Is(key, {"Partition", "Partitions"})) {
      for (const std::string& p : Items(value)) r.add_partitions(p);
      continue;
    }
    absl::StatusOr<bool> applied = ApplySetting(key, op, value, &r);
    if (!applied.ok()) return applied.status();
    if (!*applied) {
      return Invalid(absl::StrCat(in_set ? " Unknown option: " : " Unknown condition: ", word));
    }
    command.has_settings = true;
  }
  if (verb == SacctmgrVerb::kModify && !command.has_settings) {
    return Invalid(" You didn't give me anything to set");
  }
  if (verb != SacctmgrVerb::kShow && r.names().empty()) {
    return Invalid(entity == AssocEntity::kUser ? " Need name of user." : " Need name of account.");
  }
  return command;
}

absl::StatusOr<std::string> FormatAssocTable(const AssocCommand& command,
                                             const v1::GetAccountsReply& reply,
                                             const SacctmgrOptions& options) {
  const char* fallback = kAssocDefault;
  if (command.entity == AssocEntity::kAccount) {
    fallback = command.with_assoc ? "Account,Descr,Org,Cluster,ParentName,User,Share,GrpJobs,"
                                    "GrpTRES,GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,"
                                    "DefaultQOS"
                                  : "Account,Descr,Org";
  } else if (command.entity == AssocEntity::kUser) {
    fallback = command.with_assoc ? "User,DefaultAccount,Admin,Cluster,Account,Partition,Share,"
                                    "MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS"
                                  : "User,DefaultAccount,Admin";
  } else if (command.entity == AssocEntity::kCluster) {
    fallback =
        "Cluster,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,"
        "DefaultQOS";
  }
  absl::StatusOr<Table> table = MakeTable(command.format, fallback);
  if (!table.ok()) return table.status();
  std::map<std::string, const v1::AccountInfo*> accounts;
  for (const v1::AccountInfo& a : reply.accounts()) accounts[a.name()] = &a;
  std::map<std::string, const v1::UserInfo*> users;
  for (const v1::UserInfo& u : reply.users()) users[u.name()] = &u;
  auto row_for = [&](const v1::AssocInfo* assoc, const v1::AccountInfo* account,
                     const v1::UserInfo* user) {
    std::vector<std::string> row;
    for (const std::string& key : table->keys) {
      std::string value;
      if ((key == "descr" || key == "description") && account)
        value = account->description();
      else if ((key == "org" || key == "organization") && account)
        value = account->organization();
      else if ((key == "defaultaccount" || key == "defacct") && user)
        value = user->default_account();
      else if ((key == "adminlevel" || key == "admin") && user)
        value = user->admin_level();
      else if (key == "account" && account && !assoc)
        value = account->name();
      else if (key == "user" && user && !assoc)
        value = user->name();
      else if (key == "cluster" && !assoc)
        value = reply.cluster();
      else if (assoc)
        value = AssocValue(key, *assoc, reply);
      row.push_back(value);
    }
    return row;
  };
  switch (command.entity) {
    case AssocEntity::kAssociation:
      for (const v1::AssocInfo& assoc : reply.assocs()) {
        if (!Wanted(command.accounts, assoc.account())) continue;
        if (!command.users.empty() && !Wanted(command.users, assoc.user())) continue;
        table->rows.push_back(row_for(&assoc, nullptr, nullptr));
      }
      break;
    case AssocEntity::kAccount:
      for (const v1::AccountInfo& account : reply.accounts()) {
        if (!Wanted(command.names, account.name())) continue;
        if (!command.with_assoc) {
          table->rows.push_back(row_for(nullptr, &account, nullptr));
          continue;
        }
        for (const v1::AssocInfo& assoc : reply.assocs()) {
          if (assoc.account() == account.name()) {
            table->rows.push_back(row_for(&assoc, &account, nullptr));
          }
        }
      }
      break;
    case AssocEntity::kUser:
      for (const v1::UserInfo& user : reply.users()) {
        if (!Wanted(command.names, user.name())) continue;
        if (!command.with_assoc) {
          table->rows.push_back(row_for(nullptr, nullptr, &user));
          continue;
        }
        for (const v1::AssocInfo& assoc : reply.assocs()) {
          if (assoc.user() == user.name() && Wanted(command.accounts, assoc.account())) {
            table->rows.push_back(row_for(&assoc, nullptr, &user));
          }
        }
      }
      break;
    case AssocEntity::kCluster:
      for (const v1::AssocInfo& assoc : reply.assocs()) {
        if (assoc.account() == "root" && assoc.user().empty()) {
          table->rows.push_back(row_for(&assoc, nullptr, nullptr));
        }
      }
      break;
  }
  return Render(*table, options);
}

std::string AssocChangeMessage(const AssocCommand& command, const v1::UpdateAccountsReply& reply,
                               const std::string& cluster) {
  const v1::UpdateAccountsRequest& r = command.request;
  const bool user = command.entity == AssocEntity::kUser;
  std::string out;
  auto assoc_line = [&](const v1::AssocKey& key, bool user_first) {
    if (user_first) {
      return absl::StrFormat("  U = %-9.9s A = %-10.10s C = %-10.10s\n", key.user(), key.account(),
                             cluster);
    }
    if (!key.user().empty()) {
      return absl::StrFormat("  C = %-10.10s A = %-10.10s U = %-9.9s\n", cluster, key.account(),
                             key.user());
    }
    return absl::StrFormat("  A = %-10.10s C = %-10.10s\n", key.account(), cluster);
  };
  switch (command.verb) {
    case SacctmgrVerb::kAdd:
      if (reply.affected().empty() && reply.associations().empty()) return " Nothing new added.\n";
      if (!reply.affected().empty()) {
        out += user ? " Adding User(s)\n" : " Adding Account(s)\n";
        for (const std::string& name : reply.affected()) out += "  " + name + "\n";
        if (!user) {
          out += " Settings\n";
          out += absl::StrCat(
              "  Description     = ", r.has_description() ? r.description() : "Account Name", "\n");
          out +=
              absl::StrCat("  Organization    = ",
                           r.has_organization() ? r.organization() : "Parent/Account Name", "\n");
        } else if (r.has_default_account() || r.accounts_size() > 0) {
          out += " Settings =\n";
          out += absl::StrCat("  Default Account = ",
                              r.has_default_account() ? r.default_account() : r.accounts(0), "\n");
          if (r.has_admin_level())
            out += absl::StrCat("  Admin Level     = ", r.admin_level(), "\n");
        }
      }
      if (!reply.associations().empty()) {
        out += user ? " Associations =\n" : " Associations\n";
        for (const v1::AssocKey& key : reply.associations()) out += assoc_line(key, user);
      }
      return out;
    case SacctmgrVerb::kModify:
      if (reply.affected().empty()) return " Nothing modified\n";
      out += user ? " Modified users...\n" : " Modified account associations...\n";
      for (const std::string& name : reply.affected()) out += "  " + name + "\n";
      return out;
    case SacctmgrVerb::kDelete:
      if (reply.affected().empty() && reply.associations().empty()) return " Nothing deleted\n";
      if (user) {
        out += " Deleting user associations...\n";
        for (const v1::AssocKey& key : reply.associations()) out += assoc_line(key, false);
      } else {
        out += " Deleting account(s)...\n";
        for (const std::string& name : reply.affected()) out += "  " + name + "\n";
      }
      return out;
    case SacctmgrVerb::kShow:
      break;
  }
  return out;
}

}  // namespace skiff::cli
