#include "cli/scontrol/assoc_mgr_format.h"

#include <array>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/accounts_usage.h"
#include "client/shares.h"

namespace skiff::cli {
namespace {

constexpr size_t kTresCount = 9;
constexpr std::array<const char*, kTresCount> kTresNames = {
    "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages", "gres/gpu"};
constexpr size_t kBilling = 4;

using TresLimits = std::array<std::optional<uint64_t>, kTresCount>;
using TresUsed = std::array<uint64_t, kTresCount>;

TresLimits LimitsOf(const v1::Tres& tres) {
  TresLimits limits;
  auto set = [&](size_t at, bool has, int64_t value) {
    if (has && value >= 0) limits[at] = static_cast<uint64_t>(value);
  };
  set(0, tres.has_cpu(), tres.cpu());
  set(1, tres.has_mem_mb(), tres.mem_mb());
  set(3, tres.has_node(), tres.node());
  set(8, tres.has_gpu(), tres.gpu());
  return limits;
}

TresUsed UsedOf(const v1::Tres& tres) {
  TresUsed used{};
  used[0] = static_cast<uint64_t>(std::max<int64_t>(0, tres.cpu()));
  used[1] = static_cast<uint64_t>(std::max<int64_t>(0, tres.mem_mb()));
  used[3] = static_cast<uint64_t>(std::max<int64_t>(0, tres.node()));
  used[8] = static_cast<uint64_t>(std::max<int64_t>(0, tres.gpu()));
  return used;
}

// _print_tres_line: with `used`, every TRES as limit(used/divider), N for no
// limit; without, only the TRES that have a limit.
std::string TresLine(const char* name, const TresLimits& limits, const TresUsed* used,
                     uint64_t divider = 0) {
  std::string out = absl::StrCat(name, "=");
  bool comma = false;
  for (size_t i = 0; i < kTresCount; ++i) {
    if (!used && !limits[i]) continue;
    absl::StrAppend(&out, comma ? "," : "", kTresNames[i], "=",
                    limits[i] ? absl::StrCat(*limits[i]) : "N");
    if (used) {
      absl::StrAppend(&out, "(", divider ? (*used)[i] / divider : (*used)[i], ")");
    }
    comma = true;
  }
  return out;
}

// A bank balance (TRES-minutes) as TRES-seconds, for lines shown per minute;
// billing too.
TresUsed BudgetSeconds(const v1::BudgetMinutes& minutes) {
  auto seconds = [](double m) { return static_cast<uint64_t>(std::max(0.0, m * 60)); };
  TresUsed used{};
  used[0] = seconds(minutes.cpu());
  used[1] = seconds(minutes.mem());
  used[3] = seconds(minutes.node());
  used[kBilling] = seconds(minutes.billing());
  used[8] = seconds(minutes.gpu());
  return used;
}

// "N(used)" or "limit(used)".
std::string Grp(std::optional<int64_t> limit, int64_t used) {
  return absl::StrCat(limit && *limit >= 0 ? absl::StrCat(*limit) : "N", "(", used, ")");
}

std::string Fixed2(double value) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

bool Listed(const std::vector<std::string>& list, const std::string& name) {
  for (const std::string& item : list) {
    if (absl::EqualsIgnoreCase(item, name)) return true;
  }
  return false;
}

// slurm_addto_char_list: comma separated, quotes dropped, each name once.
void AddToList(std::vector<std::string>* list, const std::string& text) {
  std::string clean;
  for (char c : text) {
    if (c != '"' && c != '\'') clean += c;
  }
  for (absl::string_view item : absl::StrSplit(clean, ',', absl::SkipEmpty())) {
    if (!Listed(*list, std::string(item))) list->emplace_back(item);
  }
}

// Slurm's xstrncasecmp(tag, name, MAX(tag_len, 1)) == 0.
bool TagIs(const std::string& tag, const std::string& name) {
  if (tag.empty() || tag.size() > name.size()) return false;
  return absl::EqualsIgnoreCase(tag, name.substr(0, tag.size()));
}

// An association's limits with Slurm's inheritance for the Max* ones: unset
// here, the nearest account above that sets it.
struct Effective {
  std::optional<int64_t> max_jobs, max_submit_jobs, max_wall;
  v1::Tres max_tres_per_job;
};

}  // namespace

absl::StatusOr<AssocMgrRequest> ParseAssocMgrArgs(const std::vector<std::string>& args) {
  AssocMgrRequest request;
  bool flags_given = false;
  for (const std::string& arg : args) {
    const size_t equals = arg.find('=');
    const std::string tag = equals == std::string::npos ? arg : arg.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    if (value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("No value given for option ", arg));
    }
    if (TagIs(tag, "accounts")) {
      AddToList(&request.accounts, value);
    } else if (TagIs(tag, "flags")) {
      const std::string lower = absl::AsciiStrToLower(value);
      const bool users = absl::StrContains(lower, "users");
      const bool assoc = absl::StrContains(lower, "assoc");
      const bool qos = absl::StrContains(lower, "qos");
      if (!users && !assoc && !qos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid flag '", value, "', valid options are 'Assoc, QOS, and/or Users'"));
      }
      if (!flags_given) request.show_users = request.show_assoc = request.show_qos = false;
      flags_given = true;
      request.show_users = request.show_users || users;
      request.show_assoc = request.show_assoc || assoc;
      request.show_qos = request.show_qos || qos;
    } else if (TagIs(tag, "qos")) {
      AddToList(&request.qos, value);
    } else if (TagIs(tag, "users")) {
      AddToList(&request.users, value);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid entity: ", tag, " for keyword:show assoc_mgr"));
    }
  }
  return request;
}

std::string FormatAssocMgr(const v1::GetAccountsReply& accounts, const v1::GetQosReply& qos,
                           const AssocMgrRequest& request, bool one_liner,
                           const std::function<int64_t(const std::string&)>& uid_of) {
  const std::string nl = one_liner ? " " : "\n    ";
  const std::string section_gap = one_liner ? "" : "\n";
  std::string out = "Current Association Manager state\n";
  auto uid_text = [&](int64_t uid) {
    return absl::StrCat(uid >= 0 ? static_cast<uint32_t>(uid) : 4294967294u);  // NO_VAL
  };
  std::map<std::string, int64_t> uids;
  std::map<std::string, std::string> default_account;
  for (const v1::UserInfo& user : accounts.users()) {
    uids[user.name()] = user.uid();
    default_account[user.name()] = user.default_account();
  }

  // Users.
  if (request.show_users) {
    std::string lines;
    for (const v1::UserInfo& user : accounts.users()) {
      if (!request.users.empty() && !Listed(request.users, user.name())) continue;
      absl::StrAppend(&lines, "UserName=", user.name(), "(", uid_text(user.uid()),
                      ") DefAccount=", user.default_account(),
                      " DefWckey= AdminLevel=", user.admin_level(), "\n");
    }
    if (lines.empty()) {
      absl::StrAppend(&out, section_gap, "No users currently cached in Slurm.", section_gap, "\n");
    } else {
      absl::StrAppend(&out, section_gap, "User Records", section_gap, "\n", lines);
    }
  }

  // Associations, in ctld's depth-first order (Slurm's lft order).
  if (request.show_assoc) {
    const std::vector<client::ShareRow> shares = client::ComputeShares(accounts);
    const client::AccountsUsage accounts_usage(accounts);
    std::map<std::string, const v1::AssocInfo*> account_assoc;
    for (const v1::AssocInfo& assoc : accounts.assocs()) {
      if (assoc.user().empty()) account_assoc[assoc.account()] = &assoc;
    }
    // Lft: the nested-set numbering of the tree in this order.
    std::vector<int64_t> lft(accounts.assocs_size());
    {
      std::vector<std::string> open;  // accounts entered and not yet left
      int64_t counter = 0;
      for (int i = 0; i < accounts.assocs_size(); ++i) {
        const v1::AssocInfo& assoc = accounts.assocs(i);
        const std::string& parent = assoc.user().empty() ? assoc.parent_account() : assoc.account();
        while (!open.empty() && open.back() != parent) {
          open.pop_back();
          ++counter;  // its rgt
        }
        lft[i] = ++counter;
        if (assoc.user().empty()) {
          open.push_back(assoc.account());
        } else {
          ++counter;  // a user association has no children: its rgt
        }
      }
    }
    // Sum of the raw shares on each level (Slurm's level_shares).
    std::map<std::string, int64_t> level_shares;
    for (const v1::AssocInfo& assoc : accounts.assocs()) {
      const std::string& parent = assoc.user().empty() ? assoc.parent_account() : assoc.account();
      if (parent.empty()) continue;
      level_shares[parent] += assoc.limits().has_fairshare() ? assoc.limits().fairshare() : 1;
    }
    auto effective = [&](const v1::AssocInfo& assoc) {
      Effective e;
      const v1::AssocInfo* at = &assoc;
      for (int guard = 0; at && guard < 64; ++guard) {
        const v1::AssocLimits& l = at->limits();
        if (!e.max_jobs && l.has_max_jobs()) e.max_jobs = l.max_jobs();
        if (!e.max_submit_jobs && l.has_max_submit_jobs()) e.max_submit_jobs = l.max_submit_jobs();
        if (!e.max_wall && l.has_max_wall()) e.max_wall = l.max_wall();
        const v1::Tres& t = l.max_tres_per_job();
        v1::Tres* m = &e.max_tres_per_job;
        if (!m->has_cpu() && t.has_cpu()) m->set_cpu(t.cpu());
        if (!m->has_mem_mb() && t.has_mem_mb()) m->set_mem_mb(t.mem_mb());
        if (!m->has_node() && t.has_node()) m->set_node(t.node());
        if (!m->has_gpu() && t.has_gpu()) m->set_gpu(t.gpu());
        const std::string& up = at->user().empty() ? at->parent_account() : at->account();
        if (up.empty() || (at->user().empty() && up == at->account())) break;
        auto next = account_assoc.find(up);
        at = next == account_assoc.end() ? nullptr : next->second;
      }
      return e;
    };
    std::string lines;
    for (int i = 0; i < accounts.assocs_size(); ++i) {
      const v1::AssocInfo& assoc = accounts.assocs(i);
      if (!request.users.empty() && !assoc.user().empty() && !Listed(request.users, assoc.user())) {
        continue;
      }
      if (!request.accounts.empty() && !Listed(request.accounts, assoc.account())) continue;
      const client::ShareRow& share = shares[i];
      const bool is_user = !assoc.user().empty();
      // The bank and the jobs in use count per account and user.
      const v1::AssocUsage& figures =
          accounts_usage.Of(client::AssocKeyOf(assoc).WithoutPartition());
      const v1::JobsInUse& in_use = figures.in_use();
      const Effective limits = effective(assoc);
      const std::string& parent = is_user ? assoc.account() : assoc.parent_account();
      const std::string parent_key = is_user ? parent : assoc.parent_account();

      absl::StrAppend(&lines, "ClusterName=", accounts.cluster(), " Account=", assoc.account(),
                      " ");
      if (is_user) {
        auto uid = uids.find(assoc.user());
        absl::StrAppend(&lines, "UserName=", assoc.user(), "(",
                        uid_text(uid == uids.end() ? -1 : uid->second), ") ");
      } else {
        absl::StrAppend(&lines, "UserName= ");
      }
      absl::StrAppend(&lines, "Partition=", assoc.partition(), " Priority=0 ID=", assoc.id(), nl);
      auto level = level_shares.find(parent_key);
      absl::StrAppend(&lines, "SharesRaw/Norm/Level/Factor=", share.raw_shares, "/",
                      Fixed2(share.norm_shares), "/",
                      parent_key.empty() || level == level_shares.end() ? 1 : level->second, "/",
                      Fixed2(share.fairshare), nl);
      absl::StrAppend(&lines, "UsageRaw/Norm/Efctv=", Fixed2(share.raw_usage), "/",
                      Fixed2(share.norm_usage), "/", Fixed2(share.effective_usage), nl);
      if (parent.empty()) {
        absl::StrAppend(&lines, "ParentAccount= ");
      } else {
        auto up = account_assoc.find(parent);
        absl::StrAppend(&lines, "ParentAccount=", parent, "(",
                        up == account_assoc.end() ? 0 : up->second->id(), ") ");
      }
      const bool is_default =
          is_user && assoc.partition().empty() && default_account[assoc.user()] == assoc.account();
      absl::StrAppend(&lines, "Lft=", lft[i], " DefAssoc=", is_default ? "Yes" : "No", nl);
      const v1::AssocLimits& own = assoc.limits();
      absl::StrAppend(
          &lines, "GrpJobs=",
          Grp(own.has_grp_jobs() ? std::optional<int64_t>(own.grp_jobs()) : std::nullopt,
              in_use.running_jobs()),
          " GrpJobsAccrue=N(0)", nl);
      absl::StrAppend(&lines, "GrpSubmitJobs=",
                      Grp(own.has_grp_submit_jobs() ? std::optional<int64_t>(own.grp_submit_jobs())
                                                    : std::nullopt,
                          in_use.submitted_jobs()),
                      " GrpWall=N(0.00)", nl);
      const TresUsed running = UsedOf(in_use.running_tres());
      absl::StrAppend(&lines, TresLine("GrpTRES", LimitsOf(own.grp_tres()), &running), nl);
      TresLimits grp_mins = LimitsOf(own.grp_tres_mins());
      if (own.has_grp_billing_mins() && own.grp_billing_mins() >= 0) {
        grp_mins[kBilling] = static_cast<uint64_t>(own.grp_billing_mins());
      }
      TresUsed usage{};
      usage[kBilling] = static_cast<uint64_t>(std::max(0.0, share.raw_usage));
      // The other budget TRES: what the bank charged (minutes; shown / 60).
      if (figures.has_used_budget_mins()) {
        const TresUsed charged = BudgetSeconds(figures.used_budget_mins());
        for (size_t t : {0, 1, 3, 8}) usage[t] = charged[t];
      }
      absl::StrAppend(&lines, TresLine("GrpTRESMins", grp_mins, &usage, 60), nl);
      const TresUsed run_secs = UsedOf(in_use.running_tres_secs());
      absl::StrAppend(
          &lines, TresLine("GrpTRESRunMins", LimitsOf(own.grp_tres_run_mins()), &run_secs, 60), nl);
      absl::StrAppend(
          &lines, "MaxJobs=",
          limits.max_jobs && *limits.max_jobs >= 0
              ? absl::StrCat(*limits.max_jobs, "(", in_use.running_jobs(), ") ")
              : std::string(" "),
          "MaxJobsAccrue= MaxSubmitJobs=",
          limits.max_submit_jobs && *limits.max_submit_jobs >= 0
              ? absl::StrCat(*limits.max_submit_jobs, "(", in_use.submitted_jobs(), ") ")
              : std::string(" "),
          "MaxWallPJ=",
          limits.max_wall && *limits.max_wall >= 0 ? absl::StrCat(*limits.max_wall / 60) : "", nl);
      absl::StrAppend(&lines, TresLine("MaxTRESPJ", LimitsOf(limits.max_tres_per_job), nullptr),
                      nl);
      absl::StrAppend(&lines, "MaxTRESPN=", nl, "MaxTRESMinsPJ=", nl, "MinPrioThresh=\n");
    }
    if (lines.empty()) {
      absl::StrAppend(&out, section_gap, "No associations currently cached in Slurm.", section_gap,
                      "\n");
    } else {
      absl::StrAppend(&out, section_gap, "Association Records", section_gap, "\n", lines);
    }
  }

  // QOS.
  if (request.show_qos) {
    const client::AccountsUsage accounts_usage(accounts);
    std::string lines;
    for (int i = 0; i < qos.qos_size(); ++i) {
      const v1::QosInfo& q = qos.qos(i);
      if (!request.qos.empty() && !Listed(request.qos, q.name())) continue;
      const v1::QosUsage& figures = accounts_usage.OfQos(QosKey{q.name(), ""});
      const v1::JobsInUse& in_use = figures.in_use();
      absl::StrAppend(&lines, "QOS=", q.name(), "(", i + 1, ")", nl);
      absl::StrAppend(&lines, "UsageRaw=0.000000", nl);
      absl::StrAppend(&lines, "GrpJobs=N(", in_use.running_jobs(), ") GrpJobsAccrue=N(0) ",
                      "GrpSubmitJobs=N(", in_use.submitted_jobs(), ") GrpWall=N(0.00)", nl);
      const TresUsed running = UsedOf(in_use.running_tres());
      // What the QOS's ended runs used (its bank balance; minutes, shown / 60).
      TresUsed qos_used{};
      if (figures.has_used_budget_mins()) qos_used = BudgetSeconds(figures.used_budget_mins());
      const TresUsed run_secs = UsedOf(in_use.running_tres_secs());
      absl::StrAppend(&lines, TresLine("GrpTRES", TresLimits{}, &running), nl,
                      TresLine("GrpTRESMins", LimitsOf(q.grp_tres_mins()), &qos_used, 60), nl,
                      TresLine("GrpTRESRunMins", LimitsOf(q.grp_tres_run_mins()), &run_secs, 60),
                      nl);
      absl::StrAppend(&lines,
                      "MaxWallPJ=", q.max_wall() >= 0 ? absl::StrCat(q.max_wall() / 60) : "", nl);
      absl::StrAppend(&lines, TresLine("MaxTRESPJ", LimitsOf(q.max_tres_per_job()), nullptr), nl,
                      "MaxTRESPN=", nl,
                      TresLine("MaxTRESMinsPJ", LimitsOf(q.max_tres_mins_per_job()), nullptr), nl,
                      "MinPrioThresh= ", nl, "MinTRESPJ=", nl);
      std::string mode = absl::AsciiStrToUpper(q.preempt_mode());
      if (mode.empty() || mode == "CLUSTER") mode = "OFF";
      absl::StrAppend(&lines, "PreemptMode=", mode, one_liner ? " " : "\n    ",
                      "Priority=", q.priority(), nl);
      absl::StrAppend(&lines, "Account Limits", one_liner ? "=" : "", one_liner ? "" : "\n        ",
                      "No Accounts", nl);
      absl::StrAppend(&lines, "User Limits", one_liner ? "=" : "");
      // Users with jobs not yet ended in this QOS, by uid as Slurm lists them.
      std::map<int64_t, std::pair<std::string, const v1::JobsInUse*>> users;
      for (const v1::QosUsage& per_user : accounts.qos_usage()) {
        if (per_user.qos() != q.name() || per_user.user().empty() || !per_user.has_in_use()) {
          continue;
        }
        users[uid_of ? uid_of(per_user.user()) : -1] = {per_user.user(), &per_user.in_use()};
      }
      if (users.empty()) absl::StrAppend(&lines, one_liner ? "" : "\n        ", "No Users");
      const std::string inner = one_liner ? " " : "\n        ";
      for (const auto& [uid, entry] : users) {
        const v1::JobsInUse& used = *entry.second;
        absl::StrAppend(
            &lines, one_liner ? " " : "\n      ", uid_text(uid), one_liner ? "={" : inner,
            "MaxJobsPU=", q.max_jobs_per_user() >= 0 ? absl::StrCat(q.max_jobs_per_user()) : "N",
            "(", used.running_jobs(), ") MaxJobsAccruePU=N(0) MaxSubmitJobsPU=",
            q.max_submit_jobs_per_user() >= 0 ? absl::StrCat(q.max_submit_jobs_per_user()) : "N",
            "(", used.submitted_jobs(), ")", inner);
        const TresUsed user_running = UsedOf(used.running_tres());
        absl::StrAppend(&lines,
                        TresLine("MaxTRESPU", LimitsOf(q.max_tres_per_user()), &user_running),
                        one_liner ? "}" : "");
      }
      absl::StrAppend(&lines, "\n");
    }
    if (lines.empty()) {
      absl::StrAppend(&out, section_gap, "No QOS currently cached in Slurm.", section_gap, "\n");
    } else {
      absl::StrAppend(&out, section_gap, "QOS Records", section_gap, "\n", lines);
    }
  }
  return out;
}

}  // namespace skiff::cli
