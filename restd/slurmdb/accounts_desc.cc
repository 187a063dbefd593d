#include "restd/slurmdb/accounts_desc.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::restd {
namespace {

using Json = nlohmann::json;
using Op = v1::UpdateAccountsRequest;

absl::Status Bad(const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

#define RETURN_IF_ERROR_DESC(expr)          \
  if (absl::Status s_ = (expr); !s_.ok()) { \
    return s_;                              \
  }

// Whether a value left in a record says something: empty lists, objects and
// strings, unset numbers and false say nothing, so a client that sends every
// field of the schema with its empty value is not warned about them.
bool SaysSomething(const Json& value) {
  if (value.is_null()) return false;
  if (value.is_string()) return !value.get<std::string>().empty();
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_array()) {
    return std::any_of(value.begin(), value.end(), [](const Json& v) { return SaysSomething(v); });
  }
  if (value.is_object()) {
    if (value.contains("set") && value.contains("number")) {
      return value.value("set", false) || value.value("infinite", false);
    }
    for (const auto& item : value.items()) {
      if (SaysSomething(item.value())) return true;
    }
    return false;
  }
  return true;
}

// A record read field by field: each field taken is removed, so that what is
// left at the end is what Skiff did not read (Leftovers).
class Record {
 public:
  Record(Json value, std::string name) : value_(std::move(value)), name_(std::move(name)) {}

  bool is_object() const { return value_.is_object(); }
  const std::string& name() const { return name_; }

  // The field at `path` ("limits.max.wall_clock"), removed; null when absent.
  Json Take(const std::string& path) {
    std::vector<std::string> parts = absl::StrSplit(path, '.');
    Json* at = &value_;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (!at->is_object() || !at->contains(parts[i])) return Json();
      at = &(*at)[parts[i]];
    }
    if (!at->is_object() || !at->contains(parts.back())) return Json();
    Json taken = std::move((*at)[parts.back()]);
    at->erase(parts.back());
    return taken;
  }

  std::string Field(const std::string& path) const { return absl::StrCat(name_, ".", path); }

  absl::StatusOr<std::optional<std::string>> String(const std::string& path) {
    const Json value = Take(path);
    if (value.is_null()) return std::optional<std::string>();
    if (!value.is_string()) return Bad(Field(path), "expected a string");
    return std::optional<std::string>(value.get<std::string>());
  }

  // A number, plain or as {"set", "infinite", "number"}: nullopt when unset,
  // -1 (clear the limit) when infinite.
  absl::StatusOr<std::optional<int64_t>> Number(const std::string& path) {
    const Json value = Take(path);
    if (value.is_null()) return std::optional<int64_t>();
    if (value.is_number_integer()) return std::optional<int64_t>(value.get<int64_t>());
    if (value.is_object()) {
      if (value.value("infinite", false)) return std::optional<int64_t>(-1);
      if (!value.value("set", false)) return std::optional<int64_t>();
      if (value.contains("number") && value["number"].is_number_integer()) {
        return std::optional<int64_t>(value["number"].get<int64_t>());
      }
    }
    return Bad(Field(path), "expected a number");
  }

  absl::StatusOr<std::optional<double>> Float(const std::string& path) {
    const Json value = Take(path);
    if (value.is_null()) return std::optional<double>();
    if (value.is_number()) return std::optional<double>(value.get<double>());
    if (value.is_object()) {
      if (!value.value("set", false)) return std::optional<double>();
      if (value.contains("number") && value["number"].is_number()) {
        return std::optional<double>(value["number"].get<double>());
      }
    }
    return Bad(Field(path), "expected a number");
  }

  // A list of strings, as an array or one comma-separated string; nullopt
  // when absent.
  absl::StatusOr<std::optional<std::vector<std::string>>> List(const std::string& path) {
    const Json value = Take(path);
    using Out = std::optional<std::vector<std::string>>;
    if (value.is_null()) return Out();
    if (value.is_string()) {
      return Out(std::vector<std::string>(
          absl::StrSplit(value.get<std::string>(), ',', absl::SkipEmpty())));
    }
    if (!value.is_array()) return Bad(Field(path), "expected a list of strings");
    std::vector<std::string> items;
    for (const Json& item : value) {
      if (!item.is_string()) return Bad(Field(path), "expected a list of strings");
      items.push_back(item.get<std::string>());
    }
    return Out(std::move(items));
  }

  // A TRES list ([{"type": "gres", "name": "gpu", "count": 2}, ...]) into
  // `tres`; "billing" into `billing` where the limit has one (GrpTRESMins).
  absl::Status Tres(const std::string& path, v1::Tres* tres,
                    std::optional<int64_t>* billing = nullptr) {
    const Json value = Take(path);
    if (value.is_null()) return absl::OkStatus();
    if (!value.is_array()) return Bad(Field(path), "expected a TRES list");
    for (const Json& item : value) {
      if (!item.is_object() || !item.contains("type") || !item["type"].is_string()) {
        return Bad(Field(path), "each TRES needs its type");
      }
      const std::string type = absl::AsciiStrToLower(item["type"].get<std::string>());
      const std::string name =
          item.contains("name") && item["name"].is_string() ? item["name"].get<std::string>() : "";
      int64_t count = 0;
      if (!item.contains("count") || !item["count"].is_number_integer()) {
        return Bad(Field(path), absl::StrCat(type, ": expected a count"));
      }
      count = item["count"].get<int64_t>();
      const std::string full = name.empty() ? type : absl::StrCat(type, "/", name);
      if (full == "cpu") {
        tres->set_cpu(count);
      } else if (full == "mem") {
        tres->set_mem_mb(count);
      } else if (full == "node") {
        tres->set_node(count);
      } else if (full == "gres/gpu") {
        tres->set_gpu(count);
      } else if (full == "billing" && billing != nullptr) {
        *billing = count;
      } else {
        return Bad(Field(path), absl::StrCat("TRES '", full,
                                             "' is not one Skiff limits here (cpu, mem, node, "
                                             "gres/gpu",
                                             billing != nullptr ? ", billing" : "", ")"));
      }
    }
    return absl::OkStatus();
  }

  // "<record>.<field> is not supported by Skiff and was ignored" for each
  // field left that says something.
  void Leftovers(std::vector<std::string>* warnings) const { Walk(value_, name_, warnings); }

 private:
  static void Walk(const Json& value, const std::string& path, std::vector<std::string>* out) {
    if (!SaysSomething(value)) return;
    if (value.is_object() && !(value.contains("set") && value.contains("number"))) {
      for (const auto& item : value.items()) {
        Walk(item.value(), absl::StrCat(path, ".", item.key()), out);
      }
      return;
    }
    out->push_back(absl::StrCat(path, " is not supported by Skiff and was ignored"));
  }

  Json value_;
  std::string name_;
};

#define ASSIGN_OR_RETURN_DESC(lhs, expr)        \
  auto lhs##_or = (expr);                       \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

template <typename T, typename Setter>
absl::Status SetIf(absl::StatusOr<std::optional<T>> value, Setter set) {
  if (!value.ok()) return value.status();
  if (*value) set(**value);
  return absl::OkStatus();
}

// The records of `body[key]`, each named "key[i]".
absl::StatusOr<std::vector<Record>> Records(const Json& body, const std::string& key) {
  if (!body.is_object()) return Bad("body", "expected a JSON object");
  if (!body.contains(key) || !body[key].is_array()) {
    return Bad(key, "expected a list of records");
  }
  std::vector<Record> records;
  for (size_t i = 0; i < body[key].size(); ++i) {
    Record record(body[key][i], absl::StrCat(key, "[", i, "]"));
    if (!record.is_object()) return Bad(record.name(), "expected an object");
    records.push_back(std::move(record));
  }
  return records;
}

// A minute count into seconds, keeping -1 (clear).
int64_t MinutesToSeconds(int64_t minutes) { return minutes < 0 ? -1 : minutes * 60; }

// An association's limits as ASSOC writes them (see AssociationJson).
absl::Status AssocLimitsFrom(Record& r, v1::AssocLimits* l) {
  RETURN_IF_ERROR_DESC(SetIf(r.Number("shares_raw"), [&](int64_t v) {
    l->set_fairshare(static_cast<int32_t>(std::clamp<int64_t>(v, -1, INT32_MAX)));
  }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.Number("max.jobs.per.count"), [&](int64_t v) { l->set_grp_jobs(v); }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.Number("max.jobs.per.submitted"), [&](int64_t v) { l->set_grp_submit_jobs(v); }));
  RETURN_IF_ERROR_DESC(SetIf(r.Number("max.jobs.per.wall_clock"),
                             [&](int64_t v) { l->set_max_wall(MinutesToSeconds(v)); }));
  RETURN_IF_ERROR_DESC(SetIf(r.Number("max.jobs.active"), [&](int64_t v) { l->set_max_jobs(v); }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.Number("max.jobs.total"), [&](int64_t v) { l->set_max_submit_jobs(v); }));
  RETURN_IF_ERROR_DESC(r.Tres("max.tres.total", l->mutable_grp_tres()));
  std::optional<int64_t> billing;
  RETURN_IF_ERROR_DESC(r.Tres("max.tres.group.minutes", l->mutable_grp_tres_mins(), &billing));
  if (billing) l->set_grp_billing_mins(*billing);
  RETURN_IF_ERROR_DESC(r.Tres("max.tres.group.active", l->mutable_grp_tres_run_mins()));
  RETURN_IF_ERROR_DESC(r.Tres("max.tres.minutes.per.job", l->mutable_max_tres_mins_per_job()));
  RETURN_IF_ERROR_DESC(r.Tres("max.tres.per.job", l->mutable_max_tres_per_job()));
  return absl::OkStatus();
}

// The same from an *_ADD_COND's ASSOC_REC_SET (sacctmgr's words, lower case).
absl::Status RecSetFrom(Record& r, v1::UpdateAccountsRequest* request) {
  v1::AssocLimits* l = request->mutable_limits();
  RETURN_IF_ERROR_DESC(SetIf(r.Number("fairshare"), [&](int64_t v) {
    l->set_fairshare(static_cast<int32_t>(std::clamp<int64_t>(v, -1, INT32_MAX)));
  }));
  RETURN_IF_ERROR_DESC(SetIf(r.Number("grpjobs"), [&](int64_t v) { l->set_grp_jobs(v); }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.Number("grpsubmitjobs"), [&](int64_t v) { l->set_grp_submit_jobs(v); }));
  RETURN_IF_ERROR_DESC(SetIf(r.Number("maxjobs"), [&](int64_t v) { l->set_max_jobs(v); }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.Number("maxsubmitjobs"), [&](int64_t v) { l->set_max_submit_jobs(v); }));
  RETURN_IF_ERROR_DESC(SetIf(r.Number("maxwalldurationperjob"),
                             [&](int64_t v) { l->set_max_wall(MinutesToSeconds(v)); }));
  RETURN_IF_ERROR_DESC(r.Tres("grptres", l->mutable_grp_tres()));
  std::optional<int64_t> billing;
  RETURN_IF_ERROR_DESC(r.Tres("grptresmins", l->mutable_grp_tres_mins(), &billing));
  if (billing) l->set_grp_billing_mins(*billing);
  RETURN_IF_ERROR_DESC(r.Tres("grptresrunmins", l->mutable_grp_tres_run_mins()));
  RETURN_IF_ERROR_DESC(r.Tres("maxtresperjob", l->mutable_max_tres_per_job()));
  RETURN_IF_ERROR_DESC(r.Tres("maxtresminsperjob", l->mutable_max_tres_mins_per_job()));
  ASSIGN_OR_RETURN_DESC(qos, r.List("qoslevel"));
  if (qos) {
    for (const std::string& name : *qos) request->add_qos(name);
    request->set_qos_op("=");
  }
  RETURN_IF_ERROR_DESC(
      SetIf(r.String("defaultqos"), [&](const std::string& v) { request->set_default_qos(v); }));
  RETURN_IF_ERROR_DESC(
      SetIf(r.String("parent"), [&](const std::string& v) { request->set_parent(v); }));
  return absl::OkStatus();
}

// ADMIN_LVL: ["Administrator"], ["Operator"], ["None"] (or one string).
absl::StatusOr<std::optional<std::string>> AdminLevel(Record& r, const std::string& path) {
  ASSIGN_OR_RETURN_DESC(levels, r.List(path));
  if (!levels || levels->empty()) return std::optional<std::string>();
  if (levels->size() > 1) return Bad(r.Field(path), "expected one level");
  return std::optional<std::string>(levels->front());
}

bool HasAccount(const v1::GetAccountsReply& now, const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  return std::any_of(now.accounts().begin(), now.accounts().end(),
                     [&](const v1::AccountInfo& a) { return a.name() == lower; });
}

const v1::UserInfo* UserOf(const v1::GetAccountsReply& now, const std::string& name) {
  for (const v1::UserInfo& user : now.users()) {
    if (user.name() == name) return &user;
  }
  return nullptr;
}

const v1::AssocInfo* AssocOf(const v1::GetAccountsReply& now, const v1::AssocKey& key) {
  for (const v1::AssocInfo& assoc : now.assocs()) {
    if (assoc.account() == key.account() && assoc.user() == key.user() &&
        assoc.partition() == key.partition()) {
      return &assoc;
    }
  }
  return nullptr;
}

SlurmdbChange AccountsChange(v1::UpdateAccountsRequest request) {
  SlurmdbChange change;
  change.accounts = std::move(request);
  return change;
}

// The cluster an *_ADD_COND names, when it names one: Skiff has one.
void WarnOtherClusters(Record& r, std::vector<std::string>* warnings) {
  absl::StatusOr<std::optional<std::vector<std::string>>> clusters = r.List("clusters");
  if (clusters.ok() && *clusters && !(*clusters)->empty()) {
    warnings->push_back(absl::StrCat(r.Field("clusters"),
                                     " is ignored: Skiff has one cluster, whose name ctld keeps"));
  }
}

}  // namespace

absl::StatusOr<SlurmdbWrite> AccountsPost(const Json& body, const v1::GetAccountsReply& now) {
  ASSIGN_OR_RETURN_DESC(records, Records(body, "accounts"));
  SlurmdbWrite write;
  for (Record& r : records) {
    ASSIGN_OR_RETURN_DESC(name, r.String("name"));
    if (!name || name->empty()) return Bad(r.Field("name"), "an account needs a name");
    v1::UpdateAccountsRequest request;
    request.add_names(*name);
    RETURN_IF_ERROR_DESC(
        SetIf(r.String("description"), [&](const std::string& v) { request.set_description(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.String("organization"),
                               [&](const std::string& v) { request.set_organization(v); }));
    if (SaysSomething(r.Take("associations"))) {
      write.warnings.push_back(
          "Account associations ignored. They must be set via the associations end point.");
    }
    request.set_op(HasAccount(now, *name) ? Op::MODIFY_ACCOUNT : Op::ADD_ACCOUNT);
    r.Leftovers(&write.warnings);
    write.changes.push_back(AccountsChange(std::move(request)));
  }
  return write;
}

absl::StatusOr<SlurmdbWrite> AccountsAssociationPost(const Json& body) {
  if (!body.is_object()) return Bad("body", "expected a JSON object");
  SlurmdbWrite write;
  Record condition(body.value("association_condition", Json::object()), "association_condition");
  Record account(body.value("account", Json::object()), "account");
  v1::UpdateAccountsRequest request;
  request.set_op(Op::ADD_ACCOUNT);
  ASSIGN_OR_RETURN_DESC(names, condition.List("accounts"));
  if (!names || names->empty()) {
    return Bad(condition.Field("accounts"), "at least one account to add is required");
  }
  for (const std::string& name : *names) request.add_names(name);
  WarnOtherClusters(condition, &write.warnings);
  Record settings(condition.Take("association"), "association_condition.association");
  RETURN_IF_ERROR_DESC(RecSetFrom(settings, &request));
  RETURN_IF_ERROR_DESC(SetIf(account.String("description"),
                             [&](const std::string& v) { request.set_description(v); }));
  RETURN_IF_ERROR_DESC(SetIf(account.String("organization"),
                             [&](const std::string& v) { request.set_organization(v); }));
  settings.Leftovers(&write.warnings);
  condition.Leftovers(&write.warnings);
  account.Leftovers(&write.warnings);
  write.changes.push_back(AccountsChange(std::move(request)));
  return write;
}

absl::StatusOr<SlurmdbWrite> UsersPost(const Json& body, const v1::GetAccountsReply& now) {
  ASSIGN_OR_RETURN_DESC(records, Records(body, "users"));
  SlurmdbWrite write;
  for (Record& r : records) {
    ASSIGN_OR_RETURN_DESC(name, r.String("name"));
    if (!name || name->empty()) return Bad(r.Field("name"), "a user needs a name");
    ASSIGN_OR_RETURN_DESC(old_name, r.String("old_name"));
    if (old_name && !old_name->empty() && *old_name != *name) {
      return Bad(r.Field("old_name"), "Skiff does not rename users (users are Unix accounts)");
    }
    v1::UpdateAccountsRequest request;
    request.add_names(*name);
    ASSIGN_OR_RETURN_DESC(default_account, r.String("default.account"));
    if (default_account && !default_account->empty()) {
      request.set_default_account(*default_account);
    }
    ASSIGN_OR_RETURN_DESC(level, AdminLevel(r, "administrator_level"));
    if (level) request.set_admin_level(*level);
    if (SaysSomething(r.Take("associations"))) {
      write.warnings.push_back(absl::StrCat(
          "User ", *name,
          " associations list ignored. They must be set via the associations end point."));
    }
    if (SaysSomething(r.Take("coordinators"))) {
      write.warnings.push_back(absl::StrCat("User ", *name,
                                            " coordinators list ignored. They must be set via the "
                                            "coordinators or accounts end point."));
    }
    if (UserOf(now, *name) != nullptr) {
      request.set_op(Op::MODIFY_USER);
    } else {
      // Slurm keeps a user without associations until one is added; Skiff's
      // users exist through their associations, so a new one needs its
      // default account, which becomes its first association.
      if (!request.has_default_account()) {
        return Bad(r.Field("default.account"),
                   absl::StrCat("user ", *name,
                                " does not exist: a new user needs a default account (or add "
                                "it through users_association)"));
      }
      request.set_op(Op::ADD_USER);
      request.add_accounts(request.default_account());
    }
    r.Leftovers(&write.warnings);
    write.changes.push_back(AccountsChange(std::move(request)));
  }
  return write;
}

absl::StatusOr<SlurmdbWrite> UsersAssociationPost(const Json& body) {
  if (!body.is_object()) return Bad("body", "expected a JSON object");
  SlurmdbWrite write;
  Record condition(body.value("association_condition", Json::object()), "association_condition");
  Record user(body.value("user", Json::object()), "user");
  v1::UpdateAccountsRequest request;
  request.set_op(Op::ADD_USER);
  ASSIGN_OR_RETURN_DESC(users, condition.List("users"));
  if (!users || users->empty()) {
    return Bad(condition.Field("users"), "at least one user to add is required");
  }
  for (const std::string& name : *users) request.add_names(name);
  ASSIGN_OR_RETURN_DESC(accounts, condition.List("accounts"));
  if (accounts) {
    for (const std::string& name : *accounts) request.add_accounts(name);
  }
  ASSIGN_OR_RETURN_DESC(partitions, condition.List("partitions"));
  if (partitions) {
    for (const std::string& name : *partitions) request.add_partitions(name);
  }
  WarnOtherClusters(condition, &write.warnings);
  Record settings(condition.Take("association"), "association_condition.association");
  RETURN_IF_ERROR_DESC(RecSetFrom(settings, &request));
  if (request.has_parent()) {
    return Bad(settings.Field("parent"), "a user's association has its account, not a parent");
  }
  RETURN_IF_ERROR_DESC(SetIf(user.String("defaultaccount"),
                             [&](const std::string& v) { request.set_default_account(v); }));
  ASSIGN_OR_RETURN_DESC(level, AdminLevel(user, "adminlevel"));
  if (level) request.set_admin_level(*level);
  settings.Leftovers(&write.warnings);
  condition.Leftovers(&write.warnings);
  user.Leftovers(&write.warnings);
  write.changes.push_back(AccountsChange(std::move(request)));
  return write;
}

absl::StatusOr<SlurmdbWrite> AssociationsPost(const Json& body, const v1::GetAccountsReply& now) {
  ASSIGN_OR_RETURN_DESC(records, Records(body, "associations"));
  SlurmdbWrite write;
  for (Record& r : records) {
    ASSIGN_OR_RETURN_DESC(account, r.String("account"));
    if (!account || account->empty()) {
      return Bad(r.Field("account"), "an association needs its account");
    }
    ASSIGN_OR_RETURN_DESC(user, r.String("user"));
    ASSIGN_OR_RETURN_DESC(partition, r.String("partition"));
    ASSIGN_OR_RETURN_DESC(parent, r.String("parent_account"));
    r.Take("cluster");  // Skiff's one cluster
    r.Take("id");       // ids are ctld's to give
    r.Take("lineage");
    r.Take("is_default");
    v1::AssocKey key;
    key.set_account(absl::AsciiStrToLower(*account));
    key.set_user(user.value_or(""));
    key.set_partition(partition.value_or(""));
    if (key.user().empty() && !key.partition().empty()) {
      return Bad(r.Field("partition"), "an account's association is not per partition");
    }
    v1::UpdateAccountsRequest request;
    RETURN_IF_ERROR_DESC(AssocLimitsFrom(r, request.mutable_limits()));
    ASSIGN_OR_RETURN_DESC(qos, r.List("qos"));
    if (qos) {
      for (const std::string& name : *qos) request.add_qos(name);
      request.set_qos_op("=");
    }
    RETURN_IF_ERROR_DESC(
        SetIf(r.String("default.qos"), [&](const std::string& v) { request.set_default_qos(v); }));
    const bool exists = AssocOf(now, key) != nullptr;
    if (key.user().empty()) {
      request.add_names(key.account());
      if (parent && !parent->empty()) request.set_parent(*parent);
      request.set_op(exists ? Op::MODIFY_ACCOUNT : Op::ADD_ACCOUNT);
    } else {
      if (parent && !parent->empty() && absl::AsciiStrToLower(*parent) != key.account()) {
        return Bad(r.Field("parent_account"), "a user's association hangs under its account");
      }
      request.add_names(key.user());
      request.add_accounts(key.account());
      if (!key.partition().empty()) request.add_partitions(key.partition());
      request.set_op(exists ? Op::MODIFY_USER : Op::ADD_USER);
    }
    r.Leftovers(&write.warnings);
    write.changes.push_back(AccountsChange(std::move(request)));
  }
  return write;
}

absl::StatusOr<SlurmdbWrite> QosPost(const Json& body, const v1::GetQosReply& now) {
  ASSIGN_OR_RETURN_DESC(records, Records(body, "qos"));
  SlurmdbWrite write;
  for (Record& r : records) {
    ASSIGN_OR_RETURN_DESC(name, r.String("name"));
    if (!name || name->empty()) return Bad(r.Field("name"), "a QOS needs a name");
    r.Take("id");
    v1::UpdateQosRequest request;
    request.add_names(*name);
    v1::QosChanges* c = request.mutable_changes();
    RETURN_IF_ERROR_DESC(
        SetIf(r.String("description"), [&](const std::string& v) { c->set_description(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.Number("priority"), [&](int64_t v) { c->set_priority(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.Float("usage_factor"), [&](double v) { c->set_usage_factor(v); }));
    RETURN_IF_ERROR_DESC(
        SetIf(r.Number("limits.grace_time"), [&](int64_t v) { c->set_grace_time(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.Number("limits.max.jobs.active_jobs.per.user"),
                               [&](int64_t v) { c->set_max_jobs_per_user(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.Number("limits.max.jobs.per.user"),
                               [&](int64_t v) { c->set_max_submit_jobs_per_user(v); }));
    RETURN_IF_ERROR_DESC(SetIf(r.Number("limits.max.wall_clock.per.job"),
                               [&](int64_t v) { c->set_max_wall(MinutesToSeconds(v)); }));
    RETURN_IF_ERROR_DESC(r.Tres("limits.max.tres.per.job", c->mutable_max_tres_per_job()));
    RETURN_IF_ERROR_DESC(r.Tres("limits.max.tres.per.user", c->mutable_max_tres_per_user()));
    RETURN_IF_ERROR_DESC(r.Tres("limits.max.tres.minutes.per.qos", c->mutable_grp_tres_run_mins()));
    RETURN_IF_ERROR_DESC(
        r.Tres("limits.max.tres.minutes.per.job", c->mutable_max_tres_mins_per_job()));
    RETURN_IF_ERROR_DESC(
        r.Tres("limits.max.tres.minutes.per.user", c->mutable_max_tres_run_mins_per_user()));
    RETURN_IF_ERROR_DESC(r.Tres("limits.max.tres.minutes.total", c->mutable_grp_tres_mins()));
    ASSIGN_OR_RETURN_DESC(preempt, r.List("preempt.list"));
    if (preempt) {
      c->set_preempt(absl::StrJoin(*preempt, ","));
      c->set_preempt_op("=");
    }
    ASSIGN_OR_RETURN_DESC(modes, r.List("preempt.mode"));
    if (modes && !modes->empty()) {
      if (modes->size() > 1) return Bad(r.Field("preempt.mode"), "Skiff takes one mode");
      const std::string mode = absl::AsciiStrToUpper(modes->front());
      c->set_preempt_mode(mode == "DISABLED" ? "OFF" : mode);
    }
    const std::string lower = absl::AsciiStrToLower(*name);
    const bool exists = std::any_of(now.qos().begin(), now.qos().end(),
                                    [&](const v1::QosInfo& q) { return q.name() == lower; });
    request.set_op(exists ? v1::UpdateQosRequest::MODIFY : v1::UpdateQosRequest::ADD);
    r.Leftovers(&write.warnings);
    SlurmdbChange change;
    change.is_qos = true;
    change.qos = std::move(request);
    write.changes.push_back(std::move(change));
  }
  return write;
}

std::vector<v1::AssocKey> SelectedAssociations(const std::map<std::string, std::string>& query,
                                               const v1::GetAccountsReply& now) {
  auto list = [&](const std::string& name, bool lower) {
    std::set<std::string> items;
    auto it = query.find(name);
    if (it == query.end()) return items;
    for (absl::string_view item : absl::StrSplit(it->second, ',', absl::SkipEmpty())) {
      item = absl::StripAsciiWhitespace(item);
      if (!item.empty()) items.insert(lower ? absl::AsciiStrToLower(item) : std::string(item));
    }
    return items;
  };
  const std::set<std::string> accounts = list("account", true);
  const std::set<std::string> users = list("user", false);
  const std::set<std::string> partitions = list("partition", false);
  const std::set<std::string> ids = list("id", false);
  const std::set<std::string> clusters = list("cluster", false);
  std::vector<v1::AssocKey> keys;
  if (accounts.empty() && users.empty() && partitions.empty() && ids.empty()) return keys;
  if (!clusters.empty() && clusters.count(now.cluster()) == 0) return keys;
  auto wanted = [](const std::set<std::string>& set, const std::string& value) {
    return set.empty() || set.count(value) != 0;
  };
  for (const v1::AssocInfo& assoc : now.assocs()) {
    if (!wanted(accounts, assoc.account()) || !wanted(users, assoc.user()) ||
        !wanted(partitions, assoc.partition()) || !wanted(ids, absl::StrCat(assoc.id()))) {
      continue;
    }
    // A user filter selects users' associations only; root's own never goes.
    if (assoc.user().empty() && (!users.empty() || assoc.account() == "root")) continue;
    v1::AssocKey key;
    key.set_account(assoc.account());
    key.set_user(assoc.user());
    key.set_partition(assoc.partition());
    keys.push_back(std::move(key));
  }
  return keys;
}

SlurmdbWrite AssociationsDelete(const std::vector<v1::AssocKey>& keys,
                                const v1::GetAccountsReply& now) {
  SlurmdbWrite write;
  std::vector<std::string> accounts;
  for (const v1::AssocKey& key : keys) {
    if (key.user().empty()) {
      accounts.push_back(key.account());
      continue;
    }
    v1::UpdateAccountsRequest request;
    request.set_op(Op::DELETE_USER);
    request.add_names(key.user());
    request.add_accounts(key.account());
    if (!key.partition().empty()) request.add_partitions(key.partition());
    write.changes.push_back(AccountsChange(std::move(request)));
  }
  // Deepest first: an account goes before the one above it.
  auto depth = [&](const std::string& account) {
    int d = 0;
    std::string at = account;
    for (int guard = 0; guard < now.accounts_size() && !at.empty(); ++guard) {
      std::string up;
      for (const v1::AccountInfo& a : now.accounts()) {
        if (a.name() == at) up = a.parent();
      }
      if (up.empty()) break;
      at = up;
      ++d;
    }
    return d;
  };
  std::stable_sort(accounts.begin(), accounts.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) > depth(b); });
  for (const std::string& account : accounts) {
    v1::UpdateAccountsRequest request;
    request.set_op(Op::DELETE_ACCOUNT);
    request.add_names(account);
    write.changes.push_back(AccountsChange(std::move(request)));
  }
  return write;
}

std::string RemovedAssociationText(const std::string& cluster, const v1::AssocKey& key,
                                   const std::string& parent) {
  if (!key.partition().empty()) {
    return absl::StrFormat("C = %-10s A = %-10s U = %-9s P = %s", cluster, key.account(),
                           key.user(), key.partition());
  }
  if (!key.user().empty()) {
    return absl::StrFormat("C = %-10s A = %-10s U = %-9s", cluster, key.account(), key.user());
  }
  if (!parent.empty()) {
    return absl::StrFormat("C = %-10s A = %s of %s", cluster, key.account(), parent);
  }
  return absl::StrFormat("C = %-10s A = %s", cluster, key.account());
}

namespace {

// slurmdbd's " Associations =" block of the associations an add created.
std::string AddedAssociationsText(const std::string& cluster,
                                  const v1::UpdateAccountsReply& reply) {
  std::string text;
  for (const v1::AssocKey& key : reply.associations()) {
    if (text.empty()) text = " Associations =\n";
    absl::StrAppend(&text, absl::StrFormat("  C = %-10s A = %-20s", cluster, key.account()));
    if (!key.user().empty()) {
      absl::StrAppend(&text, absl::StrFormat(" U = %-9s", key.user()));
      if (!key.partition().empty()) absl::StrAppend(&text, " P = ", key.partition());
    }
    absl::StrAppend(&text, "\n");
  }
  return text;
}

}  // namespace

std::string AddedAccountsText(const std::string& cluster, const v1::UpdateAccountsRequest& request,
                              const v1::UpdateAccountsReply& reply) {
  std::string text;
  if (reply.affected_size() > 0) {
    text = " Adding Account(s)\n";
    for (const std::string& name : reply.affected()) absl::StrAppend(&text, "  ", name, "\n");
    absl::StrAppend(&text, " Settings\n  Description     = ",
                    request.has_description() ? request.description() : "Account Name",
                    "\n  Organization    = ",
                    request.has_organization() ? request.organization() : "Parent/Account Name",
                    "\n");
  }
  return text + AddedAssociationsText(cluster, reply);
}

std::string AddedUsersText(const std::string& cluster, const v1::UpdateAccountsRequest& request,
                           const v1::UpdateAccountsReply& reply) {
  std::string text;
  if (reply.affected_size() > 0) {
    text = " Adding User(s)\n";
    for (const std::string& name : reply.affected()) absl::StrAppend(&text, "  ", name, "\n");
    absl::StrAppend(&text, " Settings\n");
    const std::string default_account =
        request.has_default_account()
            ? request.default_account()
            : (request.accounts_size() > 0 ? absl::AsciiStrToLower(request.accounts(0)) : "");
    if (!default_account.empty()) {
      absl::StrAppend(&text, "  Default Account = ", default_account, "\n");
    }
    if (request.has_admin_level()) {
      absl::StrAppend(&text, "  Admin Level     = ", request.admin_level(), "\n");
    }
  }
  return text + AddedAssociationsText(cluster, reply);
}

}  // namespace skiff::restd
