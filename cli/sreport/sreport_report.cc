#include "cli/sreport/sreport_report.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/assoc_key.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

// Slurm's xstrncasecmp(name, word, MAX(strlen(word), min)) == 0: `word` is a
// case-insensitive prefix of `name` at least `min` letters long, or all of it.
bool Abbreviates(const std::string& name, const std::string& word, size_t min) {
  const size_t n = std::max(word.size(), min);
  for (size_t i = 0; i < n; ++i) {
    const int a = i < name.size() ? std::tolower(static_cast<unsigned char>(name[i])) : 0;
    const int b = i < word.size() ? std::tolower(static_cast<unsigned char>(word[i])) : 0;
    if (a != b) return false;
    if (a == 0) return true;
  }
  return true;
}

// Slurm's xstrncasecmp(word, name, n) == 0: the first n letters agree.
bool StartsLike(const std::string& word, const std::string& name, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int a = i < word.size() ? std::tolower(static_cast<unsigned char>(word[i])) : 0;
    const int b = i < name.size() ? std::tolower(static_cast<unsigned char>(name[i])) : 0;
    if (a != b) return false;
    if (a == 0) return true;
  }
  return true;
}

bool EqualsNoCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && Abbreviates(a, b, a.size());
}

bool WithPercent(ReportTimeFormat format) {
  return format == ReportTimeFormat::kSecondsPercent ||
         format == ReportTimeFormat::kMinutesPercent || format == ReportTimeFormat::kHoursPercent;
}

std::string Printf(const char* format, double value) {
  char buf[64];
  snprintf(buf, sizeof buf, format, value);
  return buf;
}

// slurm_addto_char_list: comma separated, quotes dropped, duplicates (any case) once.
void AddToList(std::vector<std::string>* list, const std::string& text) {
  std::string clean;
  for (char c : text) {
    if (c != '"' && c != '\'') clean += c;
  }
  for (const std::string& item :
       std::vector<std::string>(absl::StrSplit(clean, ',', absl::SkipEmpty()))) {
    bool seen = false;
    for (const std::string& have : *list) seen = seen || Abbreviates(have, item, have.size() + 1);
    if (!seen) list->push_back(item);
  }
}

std::string UnknownCondition(const std::string& word) {
  return absl::StrCat(" Unknown condition: ", word, "\nUse keyword set to modify value\n");
}

// What each column shows; one table serves every report, as in Slurm's
// cluster_reports.c (whose reports share one field list) and user_reports.c.
enum class Column {
  kCluster,
  kAccount,
  kLogin,
  kProper,
  kUsed,
  kEnergy,
  kTresName,
  kTresCount,
  kAllocated,
  kDown,
  kPlannedDown,
  kIdle,
  kPlanned,
  kReported,
  kOverCommitted,
};

struct ColumnSpec {
  Column column;
  std::string header;
  int width;
  // A time value, sized by the largest one (even over a width given in the
  // format, as Slurm's sreport_set_usage_col_width does).
  bool usage;
};

// cluster_reports.c's _setup_print_fields_list, in its order of tests.
std::optional<ColumnSpec> ClusterColumn(const std::string& word, ReportTimeFormat format,
                                        bool tree) {
  const bool per = WithPercent(format);
  auto time = [&](Column c, const char* header, int plain, int with_percent) {
    return ColumnSpec{c, header, per ? with_percent : plain, true};
  };
  if (Abbreviates("Accounts", word, 2))
    return ColumnSpec{Column::kAccount, "Account", tree ? -20 : 15, false};
  if (Abbreviates("allocated", word, 2)) return time(Column::kAllocated, "Allocated", 12, 20);
  if (Abbreviates("Cluster", word, 2)) return ColumnSpec{Column::kCluster, "Cluster", 9, false};
  if (Abbreviates("down", word, 1)) return time(Column::kDown, "Down", 10, 18);
  if (Abbreviates("idle", word, 1)) return time(Column::kIdle, "Idle", 12, 20);
  if (Abbreviates("Login", word, 1)) return ColumnSpec{Column::kLogin, "Login", 9, false};
  if (Abbreviates("overcommitted", word, 1))
    return time(Column::kOverCommitted, "Over Comm", 9, 18);
  if (Abbreviates("PlannedDown", word, 2)) return time(Column::kPlannedDown, "PLND Down", 10, 18);
  if (Abbreviates("Proper", word, 2)) return ColumnSpec{Column::kProper, "Proper Name", 15, false};
  if (Abbreviates("reported", word, 3)) return time(Column::kReported, "Reported", 12, 20);
  if (Abbreviates("reserved", word, 3) || Abbreviates("planned", word, 4)) {
    return time(Column::kPlanned, "Planned", 9, 18);
  }
  if (Abbreviates("TresCount", word, 5) || Abbreviates("cpucount", word, 2) ||
      Abbreviates("count", word, 2)) {
    return ColumnSpec{Column::kTresCount, "TRES Count", 10, false};
  }
  if (Abbreviates("TresName", word, 5))
    return ColumnSpec{Column::kTresName, "TRES Name", 14, false};
  if (Abbreviates("Used", word, 1)) return time(Column::kUsed, "Used", 10, 18);
  if (Abbreviates("Energy", word, 1)) return time(Column::kEnergy, "Energy", 10, 18);
  return std::nullopt;
}

// user_reports.c's _setup_print_fields_list.
std::optional<ColumnSpec> UserColumn(const std::string& word, ReportTimeFormat format) {
  const int time_width = WithPercent(format) ? 18 : 10;
  if (Abbreviates("Accounts", word, 1)) return ColumnSpec{Column::kAccount, "Account", 15, false};
  if (Abbreviates("Cluster", word, 1)) return ColumnSpec{Column::kCluster, "Cluster", 9, false};
  if (Abbreviates("Energy", word, 1))
    return ColumnSpec{Column::kEnergy, "Energy", time_width, true};
  if (Abbreviates("Login", word, 1)) return ColumnSpec{Column::kLogin, "Login", 9, false};
  if (Abbreviates("Proper", word, 1)) return ColumnSpec{Column::kProper, "Proper Name", 15, false};
  if (Abbreviates("TresName", word, 5))
    return ColumnSpec{Column::kTresName, "TRES Name", 14, false};
  if (Abbreviates("Used", word, 1)) return ColumnSpec{Column::kUsed, "Used", time_width, true};
  return std::nullopt;
}

// One association or user: what each column shows for it, once per TRES.
struct Line {
  std::string account;  // as printed (tree-indented where asked)
  std::string login;
  std::map<std::string, uint64_t> used;  // per TRES name, TRES-seconds
  uint64_t Used(const std::string& tres) const {
    auto it = used.find(tres);
    return it == used.end() ? 0 : it->second;
  }
};

uint64_t Seconds(double value) {
  return value <= 0 ? 0 : static_cast<uint64_t>(std::llround(value));
}

// An association's TRES-seconds of `tres`; ctld answers that list only the
// cpu figure carry it in cpu_seconds alone.
double UsageOf(const UsageByAssociation& usage, const std::string& tres) {
  if (usage.tres_seconds.empty()) return tres == "cpu" ? usage.cpu_seconds : 0;
  auto it = usage.tres_seconds.find(tres);
  return it == usage.tres_seconds.end() ? 0 : it->second;
}

bool AllZero(const Line& line, const std::vector<std::string>& tres) {
  return std::all_of(tres.begin(), tres.end(),
                     [&](const std::string& name) { return line.Used(name) == 0; });
}

std::string Banner(const std::string& title, ReportTimeFormat format, bool tres_named) {
  const std::string dashes(80, '-');
  const std::string unit =
      format == ReportTimeFormat::kPercent
          ? ReportTimeFormatName(format)
          : absl::StrCat(tres_named ? "TRES " : "CPU ", ReportTimeFormatName(format));
  return absl::StrCat(dashes, "\n", title, "\nUsage reported in ", unit, "\n", dashes, "\n");
}

std::string WindowText(const ReportWindow& window) {
  return absl::StrCat(FormatTimestamp(window.start), " - ", FormatTimestamp(window.end - 1));
}

bool Listed(const std::vector<std::string>& list, const std::string& name) {
  if (list.empty()) return true;
  for (const std::string& item : list) {
    if (item == name) return true;
  }
  return false;
}

// The association lines of AccountUtilizationByUser: every account and user
// association with usage in the window, depth first as Slurm's hierarchical
// sort lists them; an account counts its whole subtree.
std::vector<Line> AccountLines(const ReportRequest& request, const UsageData& data,
                               const std::vector<std::string>& tres) {
  std::vector<AccountNode> tree = data.tree;
  std::set<std::string> known_accounts;
  std::set<AssocKey> seen;
  for (const AccountNode& node : tree) {
    if (node.user.empty()) known_accounts.insert(node.account);
  }
  // Usage of accounts no longer in the tree (deleted since) still counts:
  // under root, after the tree, as Slurm's with_deleted reports list them.
  const std::string top = tree.empty() ? "" : tree.front().account;
  for (const UsageByAssociation& usage : data.usage) {
    if (!known_accounts.count(usage.account)) {
      tree.push_back({usage.account, "", top});
      known_accounts.insert(usage.account);
    }
  }
  for (const UsageByAssociation& usage : data.usage) {
    bool listed = false;
    for (const AccountNode& node : tree) {
      listed = listed || (node.account == usage.account && node.user == usage.user);
    }
    if (!listed && !usage.user.empty()) {
      // After its account's own line and users, before nothing in particular.
      auto at = std::find_if(tree.begin(), tree.end(), [&](const AccountNode& node) {
        return node.account == usage.account && node.user.empty();
      });
      tree.insert(at + 1, {usage.account, usage.user, ""});
    }
  }

  std::map<std::string, std::string> parent_of;
  for (const AccountNode& node : tree) {
    if (node.user.empty()) parent_of[node.account] = node.parent;
  }
  auto ancestors = [&](const std::string& account) {
    std::vector<std::string> chain;
    std::string at = account;
    for (int guard = 0; guard < 64; ++guard) {
      chain.push_back(at);
      auto parent = parent_of.find(at);
      if (parent == parent_of.end() || parent->second.empty() || parent->second == at) break;
      at = parent->second;
    }
    return chain;
  };
  std::map<AssocKey, std::map<std::string, double>> user_usage;
  std::map<std::string, std::map<std::string, double>> account_usage;
  for (const UsageByAssociation& usage : data.usage) {
    if (!Listed(request.users, usage.user)) continue;
    for (const std::string& name : tres) {
      const double seconds = UsageOf(usage, name);
      user_usage[AssocKey::User(usage.account, usage.user)][name] += seconds;
      for (const std::string& account : ancestors(usage.account)) {
        account_usage[account][name] += seconds;
      }
    }
  }
  // Accounts=: those accounts and their subtrees.
  auto in_requested_subtree = [&](const std::string& account) {
    if (request.accounts.empty()) return true;
    for (const std::string& a : ancestors(account)) {
      if (Listed(request.accounts, a)) return true;
    }
    return false;
  };
  // Tree indentation counts the lines printed above, as Slurm's
  // slurmdb_tree_name_get: one space per printed ancestor account.
  std::map<std::string, int> printed_depth;
  std::vector<Line> lines;
  for (const AccountNode& node : tree) {
    const AssocKey key = AssocKey::User(node.account, node.user);
    if (!seen.insert(key).second) continue;  // partition associations: one line
    if (!in_requested_subtree(node.account)) continue;
    Line line;
    if (node.user.empty()) {
      if (!request.users.empty()) continue;  // Users=: user associations only
      for (const auto& [name, seconds] : account_usage[node.account])
        line.used[name] = Seconds(seconds);
    } else {
      for (const auto& [name, seconds] : user_usage[key]) line.used[name] = Seconds(seconds);
    }
    if (AllZero(line, tres)) continue;
    const std::string& above = node.user.empty() ? node.parent : node.account;
    auto parent = printed_depth.find(above);
    const int indent = parent == printed_depth.end() ? 0 : parent->second + 1;
    if (node.user.empty()) printed_depth[node.account] = indent;
    line.account = request.tree ? std::string(indent, ' ') + node.account : node.account;
    line.login = node.user;
    lines.push_back(std::move(line));
  }
  return lines;
}

// TopUsage's lines (and UserUtilizationByAccount's): a line per user and
// account (per user with Group, accounts joined by ", "), the largest use of
// `sort_tres` first, then by name.
std::vector<Line> UserLines(const ReportRequest& request, const UsageData& data, bool group,
                            bool by_name, size_t limit, const std::vector<std::string>& tres,
                            const std::string& sort_tres) {
  std::vector<Line> lines;
  std::map<std::string, size_t> by_user;
  for (const UsageByAssociation& usage : data.usage) {
    if (usage.user.empty() || !Listed(request.users, usage.user) ||
        !Listed(request.accounts, usage.account)) {
      continue;
    }
    Line* line = nullptr;
    if (group) {
      auto [at, inserted] = by_user.emplace(usage.user, lines.size());
      if (inserted) {
        lines.push_back({usage.account, usage.user, {}});
      } else if (lines[at->second].account != usage.account) {
        lines[at->second].account += ", " + usage.account;
      }
      line = &lines[at->second];
    } else {
      lines.push_back({usage.account, usage.user, {}});
      line = &lines.back();
    }
    for (const std::string& name : tres) line->used[name] += Seconds(UsageOf(usage, name));
    if (std::find(tres.begin(), tres.end(), sort_tres) == tres.end())
      line->used[sort_tres] += Seconds(UsageOf(usage, sort_tres));
  }
  lines.erase(
      std::remove_if(lines.begin(), lines.end(), [&](const Line& l) { return AllZero(l, tres); }),
      lines.end());
  std::stable_sort(lines.begin(), lines.end(), [&](const Line& a, const Line& b) {
    if (!by_name && a.Used(sort_tres) != b.Used(sort_tres))
      return a.Used(sort_tres) > b.Used(sort_tres);
    return a.login < b.login;
  });
  if (lines.size() > limit) lines.resize(limit);
  return lines;
}

const char* DefaultFormat(ReportKind kind, bool tres_named) {
  switch (kind) {
    case ReportKind::kUtilization:
      return tres_named ? "Cl,TresName,al,d,planned,i,res,rep" : "Cl,al,d,planned,i,res,rep";
    case ReportKind::kAccountUtilizationByUser:
      return tres_named ? "Cluster,Ac,Login,Proper,TresName,Used"
                        : "Cluster,Ac,Login,Proper,Used,Energy";
    case ReportKind::kUserUtilizationByAccount:
      return tres_named ? "Cluster,Login,Proper,Ac,TresName,Used"
                        : "Cluster,Login,Proper,Ac,Used,Energy";
    case ReportKind::kTopUsage:
      return tres_named ? "Cl,L,P,A,TresName,Used" : "Cl,L,P,A,U,Energy";
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SelectReportTres(const std::string& text,
                                                          const std::vector<std::string>& cluster,
                                                          ReportTimeFormat format) {
  if (text.empty()) return std::vector<std::string>{"cpu"};
  std::vector<std::string> out;
  for (const std::string& token :
       std::vector<std::string>(absl::StrSplit(text, ',', absl::SkipEmpty()))) {
    if (EqualsNoCase(token, "ALL")) return cluster;
    for (const std::string& name : cluster) {
      if (!EqualsNoCase(name, token)) continue;
      if (name == "node" && (WithPercent(format) || format == ReportTimeFormat::kPercent)) {
        return absl::InvalidArgumentError(
            "TRES node usage is no longer reported in percent format reports.  Please use TRES "
            "CPU instead.");
      }
      out.push_back(name);
      break;
    }
  }
  if (out.empty()) return absl::InvalidArgumentError("No valid TRES given");
  return out;
}

absl::StatusOr<ReportTimeFormat> ParseReportTimeFormat(const std::string& text) {
  if (Abbreviates("SecPer", text, 6)) return ReportTimeFormat::kSecondsPercent;
  if (Abbreviates("MinPer", text, 6)) return ReportTimeFormat::kMinutesPercent;
  if (Abbreviates("HourPer", text, 6)) return ReportTimeFormat::kHoursPercent;
  if (!text.empty()) {
    if (Abbreviates("Seconds", text, 1)) return ReportTimeFormat::kSeconds;
    if (Abbreviates("Minutes", text, 1)) return ReportTimeFormat::kMinutes;
    if (Abbreviates("Hours", text, 1)) return ReportTimeFormat::kHours;
    if (Abbreviates("Percent", text, 1)) return ReportTimeFormat::kPercent;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown time format ", text));
}

std::string ReportTimeFormatName(ReportTimeFormat format) {
  switch (format) {
    case ReportTimeFormat::kSeconds:
      return "Seconds";
    case ReportTimeFormat::kMinutes:
      return "Minutes";
    case ReportTimeFormat::kHours:
      return "Hours";
    case ReportTimeFormat::kPercent:
      return "Percentage of Total";
    case ReportTimeFormat::kSecondsPercent:
      return "Seconds/Percentage of Total";
    case ReportTimeFormat::kMinutesPercent:
      return "Minutes/Percentage of Total";
    case ReportTimeFormat::kHoursPercent:
      return "Hours/Percentage of Total";
  }
  return "";
}

std::string FormatReportTime(ReportTimeFormat format, uint64_t seconds, uint64_t total) {
  if (total == 0) total = 1;
  const double value = static_cast<double>(seconds);
  const double percent = value / static_cast<double>(total) * 100;
  char buf[96];
  switch (format) {
    case ReportTimeFormat::kSeconds:
      return absl::StrCat(seconds);
    case ReportTimeFormat::kMinutes:
      return Printf("%.0lf", value / 60);
    case ReportTimeFormat::kHours:
      return Printf("%.0lf", value / 3600);
    case ReportTimeFormat::kPercent:
      return Printf("%.2lf%%", percent);
    case ReportTimeFormat::kSecondsPercent:
      snprintf(buf, sizeof buf, "%" PRIu64 "(%.2lf%%)", seconds, percent);
      return buf;
    case ReportTimeFormat::kMinutesPercent:
      snprintf(buf, sizeof buf, "%.0lf(%.2lf%%)", value / 60, percent);
      return buf;
    case ReportTimeFormat::kHoursPercent:
      snprintf(buf, sizeof buf, "%.0lf(%.2lf%%)", value / 3600, percent);
      return buf;
  }
  return "";
}

int ReportUsageColumnWidth(uint64_t max_seconds, ReportTimeFormat format) {
  int width = 8;
  // Slurm counts from 10^8 up to 10^25, which a uint64_t cannot reach.
  for (uint64_t order = 100000000; max_seconds >= order; order *= 10) {
    ++width;
    if (order > UINT64_MAX / 10) break;
  }
  return WithPercent(format) ? width + 9 : width;
}

ReportWindow RoundReportWindow(int64_t start, int64_t end, int64_t now) {
  if (end > now) end = now;  // sanity_check_endtime
  auto round = [&](int64_t given, bool is_start) {
    const time_t t = static_cast<time_t>(given != 0 ? given : now);
    struct tm tm;
    localtime_r(&t, &tm);
    if (given == 0) {
      tm.tm_hour = 0;
      if (is_start) tm.tm_mday--;
    } else {
      if (tm.tm_sec >= 30) tm.tm_min++;
      if (tm.tm_min >= 30) tm.tm_hour++;
    }
    tm.tm_sec = 0;
    tm.tm_min = 0;
    tm.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&tm));
  };
  ReportWindow window{round(start, true), round(end, false)};
  if (window.end - window.start < 3600) window.end = window.start + 3600;
  return window;
}

absl::StatusOr<ReportRequest> ParseReportCommand(const std::vector<std::string>& words, int64_t now,
                                                 ReportOutput* messages) {
  auto refuse = [&](const std::string& text) {
    messages->err += text;
    messages->exit_code = 1;
    return absl::InvalidArgumentError(text);
  };
  if (words.empty()) return refuse("no input\n");
  const std::string& keyword = words[0];
  ReportRequest request;
  const bool cluster = Abbreviates("cluster", keyword, 2);
  const bool user = Abbreviates("user", keyword, 1);
  const bool job = Abbreviates("job", keyword, 1);
  const bool reservation = Abbreviates("reservation", keyword, 2);
  if (!cluster && !user && !job && !reservation) {
    return refuse(absl::StrCat("invalid keyword: ", keyword, "\n"));
  }
  if (words.size() < 2) {
    return refuse(absl::StrCat("too few arguments for keyword:", keyword, "\n"));
  }
  const std::string& report = words[1];
  if (job || reservation) {
    return refuse(absl::StrCat("sreport: error: ", job ? "job" : "reservation", " report '", report,
                               "' is not kept by Skiff (it has no ",
                               job ? "job-size rollups" : "reservations", ")\n"));
  }
  if (cluster) {
    if (StartsLike(report, "AccountUtilizationByUser", 1)) {
      request.kind = ReportKind::kAccountUtilizationByUser;
    } else if (StartsLike(report, "UserUtilizationByAccount", 18) || StartsLike(report, "UA", 2)) {
      request.kind = ReportKind::kUserUtilizationByAccount;
    } else if (StartsLike(report, "UserUtilizationByWckey", 18) || StartsLike(report, "UW", 2) ||
               StartsLike(report, "WCKeyUtilizationByUser", 1)) {
      return refuse(absl::StrCat("sreport: error: report '", report,
                                 "' is not kept by Skiff (it has no wckeys)\n"));
    } else if (StartsLike(report, "Utilization", 2)) {
      request.kind = ReportKind::kUtilization;
    } else {
      return refuse(absl::StrCat(
          "Not valid report ", report,
          "\nValid cluster reports are, \"AccountUtilizationByUser\", "
          "\"UserUtilizationByAccount\", \"UserUtilizationByWckey\", \"Utilization\", and "
          "\"WCKeyUtilizationByUser\"\n"));
    }
  } else if (StartsLike(report, "Top", 1)) {
    request.kind = ReportKind::kTopUsage;
  } else {
    return refuse(absl::StrCat("Not valid report ", report, "\nValid user reports are, \"Top\"\n"));
  }

  // _set_cluster_cond, _set_assoc_cond, user_reports.c's _set_cond.
  const bool assoc = request.kind == ReportKind::kAccountUtilizationByUser ||
                     request.kind == ReportKind::kUserUtilizationByAccount;
  const bool top = request.kind == ReportKind::kTopUsage;
  for (size_t i = 2; i < words.size(); ++i) {
    const std::string& word = words[i];
    const size_t equals = word.find('=');
    const bool has_value = equals != std::string::npos;
    const std::string key = has_value ? word.substr(0, equals) : word;
    const std::string value = has_value ? word.substr(equals + 1) : word;
    auto time = [&](int64_t* out) -> absl::Status {
      absl::StatusOr<int64_t> t = ParseSlurmTime(value, now, /*past=*/true);
      if (!t.ok()) {
        return refuse(absl::StrCat("sreport: error: Invalid time specification '", value, "' for ",
                                   key, "\n"));
      }
      *out = *t;
      return absl::OkStatus();
    };
    if (!has_value && Abbreviates("all_clusters", key, 1)) {
      request.clusters.clear();
    } else if (assoc && !has_value && Abbreviates("Tree", key, 4)) {
      request.tree = true;
    } else if (top && !has_value && Abbreviates("group", key, 1)) {
      request.group = true;
    } else if (!has_value && !assoc && !top) {
      AddToList(&request.clusters, value);
    } else if ((assoc || top) && (!has_value || Abbreviates("Users", key, 1))) {
      AddToList(&request.users, value);
    } else if ((assoc || top) && (Abbreviates("Accounts", key, 2) || Abbreviates("Acct", key, 4))) {
      AddToList(&request.accounts, value);
    } else if (Abbreviates("Clusters", key, 1)) {
      AddToList(&request.clusters, value);
    } else if (Abbreviates("End", key, 1)) {
      if (absl::Status s = time(&request.end); !s.ok()) return s;
    } else if (Abbreviates("Format", key, 1)) {
      for (FieldRequest& field : SplitFieldList(value)) request.format.push_back(field);
    } else if (Abbreviates("Start", key, 1)) {
      if (absl::Status s = time(&request.start); !s.ok()) return s;
    } else if (top && Abbreviates("TopCount", key, 1)) {
      char* end = nullptr;
      const long count = strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || count < 0 || count > UINT32_MAX) {
        return refuse(absl::StrCat("Invalid value \"", value, "\" for TopCount\n"));
      }
      request.top_count = static_cast<uint32_t>(count);
    } else {
      messages->err += UnknownCondition(word);
      messages->exit_code = 1;
    }
  }
  return request;
}

ReportOutput RenderReport(const ReportRequest& request, const UsageData& data,
                          const ReportStyle& style) {
  ReportOutput output;
  const ReportTimeFormat format = style.time_format;
  std::vector<FieldRequest> fields = request.format;
  if (fields.empty()) fields = SplitFieldList(DefaultFormat(request.kind, style.tres_named));
  std::vector<ColumnSpec> columns;
  for (const FieldRequest& field : fields) {
    std::optional<ColumnSpec> spec = request.kind == ReportKind::kTopUsage
                                         ? UserColumn(field.name, format)
                                         : ClusterColumn(field.name, format, request.tree);
    if (!spec) {
      output.err += absl::StrCat(" Unknown field '", field.name, "'\n");
      output.exit_code = 1;
      continue;
    }
    if (field.width != 0) spec->width = field.width;
    columns.push_back(*spec);
  }
  const bool this_cluster = Listed(request.clusters, data.cluster);
  const std::vector<std::string> tres =
      style.tres.empty() ? std::vector<std::string>{"cpu"} : style.tres;
  const ReportWindow& window = data.window;
  const uint64_t window_secs =
      static_cast<uint64_t>(std::max<int64_t>(0, window.end - window.start));
  // Per TRES: the cluster's count, what jobs used of it, and Slurm's totals.
  struct Totals {
    double count = 0;
    uint64_t capacity = 0, allocated = 0, planned_down = 0, idle = 0, planned = 0,
             over_committed = 0, reported = 0;
  };
  auto seconds_of = [](const std::map<std::string, double>& by_tres, const std::string& name) {
    auto it = by_tres.find(name);
    return it == by_tres.end() ? 0 : Seconds(it->second);
  };
  std::map<std::string, Totals> totals;
  for (const std::string& name : tres) {
    Totals& t = totals[name];
    if (data.cluster_tres.empty()) {
      t.count = name == "cpu" ? static_cast<double>(data.total_cpus) : 0;
    } else {
      for (const auto& [cluster_name, count] : data.cluster_tres) {
        if (cluster_name == name) t.count = count;
      }
    }
    t.capacity = Seconds(static_cast<double>(window_secs) * std::max(0.0, t.count));
    for (const UsageByAssociation& usage : data.usage) t.allocated += Seconds(UsageOf(usage, name));
    // Jobs in a reservation are inside its time already.
    const uint64_t bundled = std::min(t.allocated, seconds_of(data.in_reservation, name));
    t.allocated = t.allocated - bundled + seconds_of(data.reserved, name);
    t.planned_down = seconds_of(data.maint, name);
    const uint64_t used = t.allocated + t.planned_down;
    const uint64_t unused = t.capacity > used ? t.capacity - used : 0;
    const uint64_t waiting = seconds_of(data.waiting, name);
    t.planned = std::min(waiting, unused);
    t.over_committed = waiting - t.planned;
    t.idle = unused - t.planned;
    // Slurm: alloc + down + pdown + idle + plan
    t.reported = t.allocated + t.planned_down + t.idle + t.planned;
    // Slurm reports energy against what was reported when no power cap
    // gives it a count.
    if (t.count <= 0) t.capacity = t.reported;
  }

  std::vector<Line> lines;
  std::string title;
  const std::string secs = absl::StrCat(" (", window_secs, " secs)");
  switch (request.kind) {
    case ReportKind::kUtilization:
      title = absl::StrCat("Cluster Utilization ", WindowText(window));
      break;
    case ReportKind::kAccountUtilizationByUser:
      title = absl::StrCat("Cluster/Account/User Utilization ", WindowText(window), secs);
      if (this_cluster) lines = AccountLines(request, data, tres);
      break;
    case ReportKind::kUserUtilizationByAccount:
      title = absl::StrCat("Cluster/User/Account Utilization ", WindowText(window), secs);
      // Slurm's cluster reports sort users by CPU time whatever -T lists.
      if (this_cluster)
        lines = UserLines(request, data, false, style.sort_by_name, SIZE_MAX, tres, "cpu");
      break;
    case ReportKind::kTopUsage:
      title = absl::StrCat("Top ", request.top_count, " Users ", WindowText(window), secs);
      // TopUsage sorts by the first TRES listed (user_reports.c).
      if (this_cluster)
        lines = UserLines(request, data, request.group, style.sort_by_name, request.top_count, tres,
                          tres.front());
      break;
  }
  const bool header = !style.layout.no_header;
  if (header) output.out += Banner(title, format, style.tres_named);

  // Column widths from the largest value of any listed TRES, as
  // sreport_set_usage_col_width.
  for (ColumnSpec& column : columns) {
    if (!column.usage) continue;
    uint64_t largest = 0;
    if (request.kind == ReportKind::kUtilization) {
      for (const auto& [name, t] : totals) {
        switch (column.column) {
          case Column::kAllocated:
          case Column::kEnergy:
            largest = std::max(largest, t.allocated);
            break;
          case Column::kIdle:
            largest = std::max(largest, t.idle);
            break;
          case Column::kReported:
            largest = std::max(largest, t.reported);
            break;
          default:
            break;
        }
      }
      if (!this_cluster) largest = 0;
    } else if (column.column == Column::kUsed && !lines.empty()) {
      // Slurm peeks at the first line: the largest.
      for (const std::string& name : tres) largest = std::max(largest, lines.front().Used(name));
    } else if (column.column != Column::kEnergy && column.column != Column::kUsed) {
      continue;  // only Used and Energy are sized in these reports
    }
    column.width = ReportUsageColumnWidth(largest, format);
  }

  std::vector<std::string> names;
  std::vector<int> widths;
  for (const ColumnSpec& column : columns) {
    names.push_back(column.header);
    widths.push_back(column.width);
  }
  output.out += PrintFieldsHeader(names, widths, style.layout);

  auto time_cell = [&](const ColumnSpec& column, uint64_t value, uint64_t total) {
    std::string text = FormatReportTime(format, value, total);
    const size_t len = static_cast<size_t>(std::abs(column.width));
    if (!style.layout.parsable && !style.layout.parsable2 && text.size() > len) {
      text.resize(len);  // "%*.*s": cut, without Slurm's '+'
    }
    return text;
  };
  if (!this_cluster) return output;
  // One cell for TRES `name`: of Utilization's row (line == nullptr) or of a
  // report line.
  auto cell = [&](const ColumnSpec& column, const Line* line,
                  const std::string& name) -> std::string {
    const Totals& t = totals.at(name);
    switch (column.column) {
      case Column::kCluster:
        return data.cluster;
      case Column::kTresName:
        return name;
      case Column::kEnergy:
        return time_cell(column, 0, 0);
      default:
        break;
    }
    if (line == nullptr) {
      switch (column.column) {
        case Column::kTresCount:
          return absl::StrCat(Seconds(t.count));
        case Column::kAllocated:
          return time_cell(column, t.allocated, t.reported);
        case Column::kIdle:
          return time_cell(column, t.idle, t.reported);
        case Column::kReported:
          return time_cell(column, t.reported, t.capacity);
        case Column::kPlanned:
          return time_cell(column, t.planned, t.reported);
        case Column::kOverCommitted:
          return time_cell(column, t.over_committed, t.reported);
        case Column::kPlannedDown:
          return time_cell(column, t.planned_down, t.reported);
        case Column::kDown:
          return time_cell(column, 0, t.reported);
        default:
          return "";
      }
    }
    switch (column.column) {
      case Column::kAccount:
        return line->account;
      case Column::kLogin:
        return line->login;
      case Column::kProper:
        return line->login.empty() || !style.proper_name ? "" : style.proper_name(line->login);
      case Column::kUsed:
        return time_cell(column, line->Used(name), t.reported);
      default:
        return "";
    }
  };
  // Slurm prints one line per listed TRES for the cluster (Utilization) and
  // for each association or user, in the -T order.
  auto emit = [&](const Line* line) {
    for (const std::string& name : tres) {
      std::vector<std::string> cells;
      for (const ColumnSpec& column : columns) cells.push_back(cell(column, line, name));
      output.out += PrintFieldsLine(cells, widths, style.layout);
    }
  };
  if (request.kind == ReportKind::kUtilization) {
    emit(nullptr);
    return output;
  }
  for (const Line& line : lines) emit(&line);
  return output;
}

}  // namespace skiff::cli
