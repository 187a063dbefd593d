#include "restd/slurmdb/accounts_json.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "restd/data_parser/values.h"

namespace skiff::restd {
namespace {

std::set<std::string> CsvSet(const QueryParameters& query, const std::string& name,
                             bool lower_case) {
  std::set<std::string> items;
  auto it = query.find(name);
  if (it == query.end()) return items;
  for (absl::string_view item : absl::StrSplit(it->second, ',', absl::SkipEmpty())) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;
    items.insert(lower_case ? absl::AsciiStrToLower(item) : std::string(item));
  }
  return items;
}

bool Selected(const std::set<std::string>& wanted, const std::string& value) {
  return wanted.empty() || wanted.count(value) != 0;
}

// A count limit: the number, or Slurm's INFINITE when none applies.
Json CountLimit(bool set, int64_t value) { return set && value >= 0 ? Number(value) : Infinite(); }

// A wall-clock limit in seconds as Slurm's minutes, INFINITE when none.
Json WallLimit(bool set, int64_t seconds) {
  return set && seconds >= 0 ? Number((seconds + 59) / 60) : Infinite();
}

// The association tree of a GetAccounts reply: who is above whom.
class AssocTree {
 public:
  explicit AssocTree(const v1::GetAccountsReply& reply) {
    for (const v1::AssocInfo& assoc : reply.assocs()) {
      if (assoc.user().empty() && assoc.partition().empty()) accounts_[assoc.account()] = &assoc;
    }
    for (const v1::UserInfo& user : reply.users())
      default_account_[user.name()] = user.default_account();
  }

  // The association itself, then each one above it up to root.
  std::vector<const v1::AssocInfo*> Chain(const v1::AssocInfo& assoc) const {
    std::vector<const v1::AssocInfo*> chain = {&assoc};
    // Bounded by the tree's size, so a broken parent link cannot loop.
    while (chain.size() <= accounts_.size()) {
      const v1::AssocInfo& last = *chain.back();
      const std::string& up = last.user().empty() ? last.parent_account() : last.account();
      if (up.empty() || (last.user().empty() && up == last.account())) break;
      auto it = accounts_.find(up);
      if (it == accounts_.end()) break;
      chain.push_back(it->second);
    }
    return chain;
  }

  // Slurm's lineage: "/" for root, "/physics/" for an account under root,
  // "/physics/0-alice/" for a user, "/physics/0-alice/gpu/" with a partition.
  std::string Lineage(const v1::AssocInfo& assoc) const {
    std::vector<const v1::AssocInfo*> chain = Chain(assoc);
    std::string lineage = "/";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const v1::AssocInfo& link = **it;
      if (link.user().empty()) {
        if (link.account() != "root") absl::StrAppend(&lineage, link.account(), "/");
      } else {
        absl::StrAppend(&lineage, "0-", link.user(), "/");
        if (!link.partition().empty()) absl::StrAppend(&lineage, link.partition(), "/");
      }
    }
    return lineage;
  }

  bool IsDefault(const v1::AssocInfo& assoc) const {
    if (assoc.user().empty()) return false;
    auto it = default_account_.find(assoc.user());
    return it != default_account_.end() && it->second == assoc.account();
  }

 private:
  std::map<std::string, const v1::AssocInfo*> accounts_;  // account -> its own association
  std::map<std::string, std::string> default_account_;    // user -> default account
};

// The first association along `chain` that sets a count limit.
Json InheritedCount(const std::vector<const v1::AssocInfo*>& chain,
                    bool (v1::AssocLimits::*has)() const, int64_t (v1::AssocLimits::*value)() const,
                    bool wall) {
  for (const v1::AssocInfo* link : chain) {
    const v1::AssocLimits& limits = link->limits();
    if ((limits.*has)() && (limits.*value)() >= 0) {
      return wall ? WallLimit(true, (limits.*value)()) : Number((limits.*value)());
    }
  }
  return Infinite();
}

// Per TRES, the first association along `chain` that limits it.
Json InheritedTres(const std::vector<const v1::AssocInfo*>& chain,
                   const v1::Tres& (v1::AssocLimits::*field)() const) {
  std::map<std::string, int64_t> counts;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    for (const auto& [name, count] : TresLimitCounts(((*it)->limits().*field)())) {
      counts[name] = count;  // nearer associations overwrite those above
    }
  }
  return TresList(counts);
}

std::vector<std::string> Sorted(const google::protobuf::RepeatedPtrField<std::string>& names) {
  std::vector<std::string> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

Json AssocShort(const v1::GetAccountsReply& reply, const v1::AssocInfo& assoc) {
  return {{"account", assoc.account()},
          {"cluster", reply.cluster()},
          {"partition", assoc.partition()},
          {"user", assoc.user()},
          {"id", assoc.id()}};
}

Json PreemptModes(const std::string& mode) {
  const std::string upper = absl::AsciiStrToUpper(mode);
  // "cluster" (the cluster's PreemptMode) and OFF are Slurm's PREEMPT_MODE_OFF.
  if (upper.empty() || upper == "CLUSTER" || upper == "OFF") return Json::Array({"DISABLED"});
  Json modes = Json::Array();
  for (absl::string_view word : absl::StrSplit(upper, ',', absl::SkipEmpty())) {
    if (word == "SUSPEND" || word == "REQUEUE" || word == "CANCEL" || word == "GANG") {
      modes.Push(std::string(word));
    }
  }
  return modes;
}

Json AssociationIn(const AssocTree& tree, const v1::GetAccountsReply& reply,
                   const v1::AssocInfo& assoc, bool parent_limits) {
  const std::vector<const v1::AssocInfo*> chain =
      parent_limits ? tree.Chain(assoc) : std::vector<const v1::AssocInfo*>{&assoc};
  const v1::AssocLimits& own = assoc.limits();
  std::map<std::string, int64_t> group_minutes = TresLimitCounts(own.grp_tres_mins());
  if (own.has_grp_billing_mins() && own.grp_billing_mins() >= 0) {
    group_minutes["billing"] = own.grp_billing_mins();
  }
  std::string default_qos;
  std::vector<std::string> qos;
  for (const v1::AssocInfo* link : chain) {
    if (default_qos.empty()) default_qos = link->default_qos();
    if (qos.empty()) qos = Sorted(link->qos());
  }
  using L = v1::AssocLimits;
  Json max = {
      {"jobs",
       {{"per",
         {{"count", CountLimit(own.has_grp_jobs(), own.grp_jobs())},
          {"submitted", CountLimit(own.has_grp_submit_jobs(), own.grp_submit_jobs())},
          {"wall_clock", InheritedCount(chain, &L::has_max_wall, &L::max_wall, true)}}},
        {"active", InheritedCount(chain, &L::has_max_jobs, &L::max_jobs, false)},
        {"total", InheritedCount(chain, &L::has_max_submit_jobs, &L::max_submit_jobs, false)}}},
      {"tres",
       {{"total", TresList(TresLimitCounts(own.grp_tres()))},
        {"group",
         {{"minutes", TresList(group_minutes)},
          {"active", TresList(TresLimitCounts(own.grp_tres_run_mins()))}}},
        {"minutes", {{"per", {{"job", InheritedTres(chain, &L::max_tres_mins_per_job)}}}}},
        {"per", {{"job", InheritedTres(chain, &L::max_tres_per_job)}}}}},
  };
  return {{"account", assoc.account()},
          {"cluster", reply.cluster()},
          {"default", {{"qos", default_qos}}},
          {"flags", Json::Array()},
          {"max", std::move(max)},
          {"id", assoc.id()},
          {"is_default", tree.IsDefault(assoc)},
          {"lineage", tree.Lineage(assoc)},
          {"parent_account", assoc.user().empty() ? assoc.parent_account() : ""},
          {"partition", assoc.partition()},
          {"qos", Json::Strings(qos)},
          {"shares_raw", own.has_fairshare() ? own.fairshare() : 1},
          {"user", assoc.user()}};
}

}  // namespace

bool QueryFlag(const QueryParameters& query, const std::string& name) {
  auto it = query.find(name);
  if (it == query.end()) return false;
  const std::string value = absl::AsciiStrToLower(it->second);
  return value != "false" && value != "0" && value != "no";
}

std::map<std::string, int64_t> TresLimitCounts(const v1::Tres& tres) {
  std::map<std::string, int64_t> counts;
  if (tres.has_cpu() && tres.cpu() >= 0) counts["cpu"] = tres.cpu();
  if (tres.has_mem_mb() && tres.mem_mb() >= 0) counts["mem"] = tres.mem_mb();
  if (tres.has_node() && tres.node() >= 0) counts["node"] = tres.node();
  if (tres.has_gpu() && tres.gpu() >= 0) counts["gres/gpu"] = tres.gpu();
  return counts;
}

Json AssociationJson(const v1::GetAccountsReply& reply, const v1::AssocInfo& assoc,
                     bool parent_limits) {
  return AssociationIn(AssocTree(reply), reply, assoc, parent_limits);
}

Json AssociationsJson(const v1::GetAccountsReply& reply, const QueryParameters& query) {
  const std::set<std::string> accounts = CsvSet(query, "account", true);
  const std::set<std::string> users = CsvSet(query, "user", false);
  const std::set<std::string> partitions = CsvSet(query, "partition", false);
  const std::set<std::string> ids = CsvSet(query, "id", false);
  const std::set<std::string> parents = CsvSet(query, "parent_account", true);
  const std::set<std::string> clusters = CsvSet(query, "cluster", false);
  const bool parent_limits = !QueryFlag(query, "without_parent_limits");
  const AssocTree tree(reply);
  Json list = Json::Array();
  if (!Selected(clusters, reply.cluster())) return list;
  for (const v1::AssocInfo& assoc : reply.assocs()) {
    if (!Selected(accounts, assoc.account()) || !Selected(users, assoc.user()) ||
        !Selected(partitions, assoc.partition()) || !Selected(ids, absl::StrCat(assoc.id())) ||
        !Selected(parents, assoc.user().empty() ? assoc.parent_account() : "")) {
      continue;
    }
    list.Push(AssociationIn(tree, reply, assoc, parent_limits));
  }
  return list;
}

Json AccountJson(const v1::GetAccountsReply& reply, const v1::AccountInfo& account,
                 bool with_assocs) {
  Json out = {{"description", account.description()},
              {"name", account.name()},
              {"organization", account.organization()},
              {"flags", Json::Array()}};
  if (with_assocs) {
    Json assocs = Json::Array();
    for (const v1::AssocInfo& assoc : reply.assocs()) {
      if (assoc.account() == account.name()) assocs.Push(AssocShort(reply, assoc));
    }
    out["associations"] = std::move(assocs);
  }
  return out;
}

Json AccountsJson(const v1::GetAccountsReply& reply, const QueryParameters& query) {
  const std::set<std::string> descriptions = CsvSet(query, "description", false);
  const bool with_assocs = QueryFlag(query, "WithAssociations");
  Json list = Json::Array();
  for (const v1::AccountInfo& account : reply.accounts()) {
    if (!Selected(descriptions, account.description())) continue;
    list.Push(AccountJson(reply, account, with_assocs));
  }
  return list;
}

Json UserJson(const v1::GetAccountsReply& reply, const v1::UserInfo& user, bool with_assocs) {
  Json out = {{"administrator_level",
               Json::Array({user.admin_level().empty() ? "None" : user.admin_level()})},
              {"default", {{"account", user.default_account()}}},
              {"name", user.name()}};
  if (with_assocs) {
    Json assocs = Json::Array();
    for (const v1::AssocInfo& assoc : reply.assocs()) {
      if (assoc.user() == user.name()) assocs.Push(AssocShort(reply, assoc));
    }
    out["associations"] = std::move(assocs);
  }
  return out;
}

Json UsersJson(const v1::GetAccountsReply& reply, const QueryParameters& query) {
  std::set<std::string> levels;
  for (const std::string& level : CsvSet(query, "admin_level", true)) levels.insert(level);
  const std::set<std::string> defaults = CsvSet(query, "default_account", true);
  const bool with_assocs = QueryFlag(query, "with_assocs");
  Json list = Json::Array();
  for (const v1::UserInfo& user : reply.users()) {
    const std::string level =
        absl::AsciiStrToLower(user.admin_level().empty() ? "None" : user.admin_level());
    if (!Selected(levels, level) || !Selected(defaults, user.default_account())) continue;
    list.Push(UserJson(reply, user, with_assocs));
  }
  return list;
}

Json QosJson(const v1::QosInfo& qos) {
  Json minutes = {{"per",
                   {{"qos", TresList(TresLimitCounts(qos.grp_tres_run_mins()))},
                    {"job", TresList(TresLimitCounts(qos.max_tres_mins_per_job()))},
                    {"user", TresList(TresLimitCounts(qos.max_tres_run_mins_per_user()))}}},
                  {"total", TresList(TresLimitCounts(qos.grp_tres_mins()))}};
  Json max = {
      {"jobs",
       {{"active_jobs", {{"per", {{"user", CountLimit(true, qos.max_jobs_per_user())}}}}},
        {"per", {{"user", CountLimit(true, qos.max_submit_jobs_per_user())}}}}},
      {"tres",
       {{"minutes", std::move(minutes)},
        {"per",
         {{"job", TresList(TresLimitCounts(qos.max_tres_per_job()))},
          {"user", TresList(TresLimitCounts(qos.max_tres_per_user()))}}}}},
      {"wall_clock", {{"per", {{"job", WallLimit(true, qos.max_wall())}}}}},
  };
  return {{"description", qos.description()},
          {"flags", Json::Array()},
          {"id", qos.id()},
          {"limits", {{"grace_time", qos.grace_time()}, {"max", std::move(max)}}},
          {"name", qos.name()},
          {"preempt",
           {{"list", Json::Strings({qos.preempt().begin(), qos.preempt().end()})},
            {"mode", PreemptModes(qos.preempt_mode())}}},
          {"priority", Number(qos.priority())},
          {"usage_factor", Float(qos.usage_factor())}};
}

Json QosListJson(const v1::GetQosReply& reply, const QueryParameters& query) {
  const std::set<std::string> names = CsvSet(query, "name", true);
  const std::set<std::string> ids = CsvSet(query, "id", false);
  Json list = Json::Array();
  for (const v1::QosInfo& qos : reply.qos()) {
    if (!Selected(names, qos.name()) || !Selected(ids, absl::StrCat(qos.id()))) continue;
    list.Push(QosJson(qos));
  }
  return list;
}

Json ClusterTresJson(const v1::GetUsageReportReply& report) {
  std::map<std::string, int64_t> counts;
  for (const v1::ClusterTres& tres : report.tres()) {
    counts[tres.name()] = static_cast<int64_t>(tres.count());
  }
  return TresList(counts);
}

}  // namespace skiff::restd
