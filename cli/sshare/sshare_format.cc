#include "cli/sshare/sshare_format.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/budget_text.h"
#include "client/shares.h"

namespace skiff::cli {
namespace {

enum class Column {
  kAccount,
  kCluster,
  kEffectvUsage,
  kFairShare,
  kGrpTresMins,
  kGrpTresRaw,
  kGrpTresLeft,
  kId,
  kLevelFs,
  kNormShares,
  kNormUsage,
  kPartition,
  kRawShares,
  kRawUsage,
  kTresRunMins,
  kUser,
};

struct Field {
  const char* name;
  int width;  // negative: left-aligned
  Column column;
};

// Slurm's field table, in its order (prefix matching picks the first).
constexpr Field kFields[] = {
    {"Account", -20, Column::kAccount},
    {"Cluster", 10, Column::kCluster},
    {"EffectvUsage", 13, Column::kEffectvUsage},
    {"FairShare", 10, Column::kFairShare},
    {"GrpTRESMins", 30, Column::kGrpTresMins},
    {"GrpTRESRaw", 30, Column::kGrpTresRaw},
    {"GrpTRESLeft", 30, Column::kGrpTresLeft},  // Skiff's
    {"ID", 6, Column::kId},
    {"LevelFS", 10, Column::kLevelFs},
    {"NormShares", 11, Column::kNormShares},
    {"NormUsage", 11, Column::kNormUsage},
    {"Partition", 12, Column::kPartition},
    {"RawShares", 10, Column::kRawShares},
    {"RawUsage", 11, Column::kRawUsage},
    {"TRESRunMins", 30, Column::kTresRunMins},
    {"User", 10, Column::kUser},
};

absl::StatusOr<std::vector<Field>> ParseFormat(const std::string& format) {
  std::vector<Field> out;
  for (absl::string_view raw : absl::StrSplit(format, ',', absl::SkipEmpty())) {
    std::string item(absl::StripAsciiWhitespace(raw));
    int width = 0;
    bool has_width = false;
    if (size_t percent = item.find('%'); percent != std::string::npos) {
      width = std::atoi(item.c_str() + percent + 1);
      has_width = true;
      item = item.substr(0, percent);
    }
    const Field* found = nullptr;
    for (const Field& field : kFields) {
      // Slurm compares the given text as a prefix of the field's name, any case.
      if (!item.empty() && item.size() <= strlen(field.name) &&
          absl::EqualsIgnoreCase(item, absl::string_view(field.name, item.size()))) {
        found = &field;
        break;
      }
    }
    if (found == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid field requested: \"", item, "\""));
    }
    Field field = *found;
    if (has_width) field.width = field.width < 0 ? -std::abs(width) : std::abs(width);
    out.push_back(field);
  }
  return out;
}

std::string DefaultFormat(bool long_format) {
  return long_format ? "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,GrpTRESMins,"
                       "TRESRunMins"
                     : "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare";
}

std::string Double(double value) { return absl::StrFormat("%f", value); }

// Budget amounts in Slurm's TRES order, whole minutes (what is left: never
// below 0).

// Every TRES as Slurm's sshare prints GrpTRESRaw and TRESRunMins (its
// assoc_mgr's TRES in id order): the base eight, gres/gpu, then any other
// (typed GPUs) by name; whole minutes.
std::string TresMinutes(const std::map<std::string, double>& minutes, double billing) {
  std::vector<std::string> names = {"cpu",     "mem",  "energy", "node",    "billing",
                                    "fs/disk", "vmem", "pages",  "gres/gpu"};
  for (const auto& [name, value] : minutes) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string out;
  for (const std::string& name : names) {
    double value = name == "billing" ? billing : 0;
    if (name != "billing") {
      auto it = minutes.find(name);
      if (it != minutes.end()) value = it->second;
    }
    absl::StrAppend(&out, out.empty() ? "" : ",", name, "=",
                    static_cast<int64_t>(std::floor(std::max(0.0, value))));
  }
  return out;
}

std::string Cell(const client::ShareRow& row, Column column, const std::string& cluster) {
  switch (column) {
    case Column::kAccount:
      return std::string(static_cast<size_t>(row.depth), ' ') + row.account;
    case Column::kCluster:
      return cluster;
    case Column::kEffectvUsage:
      return Double(row.effective_usage);
    case Column::kFairShare:
      return Double(row.fairshare);
    case Column::kGrpTresMins:
      return client::BudgetText(row.grp_tres_mins);
    case Column::kGrpTresLeft:
      return client::BudgetText(row.grp_tres_left);
    case Column::kGrpTresRaw:
      return TresMinutes(row.used_tres_mins, row.used_billing_mins);
    case Column::kId:
      return absl::StrCat(row.id);
    case Column::kLevelFs:
      return "";  // FAIR_TREE only
    case Column::kNormShares:
      return Double(row.norm_shares);
    case Column::kNormUsage:
      return Double(row.norm_usage);
    case Column::kPartition:
      return row.partition;
    case Column::kRawShares:
      return row.depth == 0 && row.user.empty() ? "" : absl::StrCat(row.raw_shares);
    case Column::kRawUsage:
      return absl::StrCat(static_cast<uint64_t>(std::llround(std::max(0.0, row.raw_usage))));
    case Column::kTresRunMins:
      return TresMinutes(row.run_tres_mins, row.held_billing_mins);
    case Column::kUser:
      return row.user;
  }
  return "";
}

std::string Fixed(const std::string& text, int width) {
  const size_t len = static_cast<size_t>(std::abs(width));
  std::string cut = text.substr(0, len);
  std::string pad(len - cut.size(), ' ');
  return (width < 0 ? cut + pad : pad + cut) + " ";
}

}  // namespace

absl::StatusOr<std::string> FormatSshare(const v1::GetAccountsReply& reply,
                                         const SshareOptions& options) {
  absl::StatusOr<std::vector<Field>> fields =
      ParseFormat(options.format.empty() ? DefaultFormat(options.long_format) : options.format);
  if (!fields.ok()) return fields.status();
  std::vector<client::ShareRow> rows = client::ComputeShares(reply);

  // -A: only those accounts' subtrees.
  std::set<std::string> in_scope;
  if (!options.accounts.empty()) {
    std::map<std::string, std::string> parent_of;
    for (const v1::AssocInfo& assoc : reply.assocs()) {
      if (assoc.user().empty()) parent_of[assoc.account()] = assoc.parent_account();
    }
    for (const client::ShareRow& row : rows) {
      for (std::string up = row.account; !up.empty();) {
        if (std::find_if(options.accounts.begin(), options.accounts.end(),
                         [&](const std::string& a) { return absl::EqualsIgnoreCase(a, up); }) !=
            options.accounts.end()) {
          in_scope.insert(row.account);
          break;
        }
        auto next = parent_of.find(up);
        if (next == parent_of.end() || next->second == up) break;
        up = next->second;
      }
    }
  }
  std::vector<std::string> users = options.users;
  if (users.empty() && !options.all_users) users.push_back(options.caller);

  const bool parsable = options.parsable || options.parsable2;
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!parsable) {
        out += Fixed(cells[i], (*fields)[i].width);
      } else {
        out += cells[i];
        if (i + 1 < cells.size() || options.parsable) out += "|";
      }
    }
    out += "\n";
  };
  if (!options.no_header) {
    std::vector<std::string> names, dashes;
    for (const Field& field : *fields) {
      names.push_back(field.name);
      dashes.push_back(std::string(static_cast<size_t>(std::abs(field.width)), '-'));
    }
    emit(names);
    if (!parsable) emit(dashes);
  }
  for (const client::ShareRow& row : rows) {
    if (!options.accounts.empty() && in_scope.count(row.account) == 0) continue;
    if (row.user.empty()) {
      if (options.users_only) continue;
    } else if ((!options.users.empty() || !options.all_users) &&
               std::find(users.begin(), users.end(), row.user) == users.end()) {
      continue;
    }
    std::vector<std::string> cells;
    for (const Field& field : *fields) cells.push_back(Cell(row, field.column, reply.cluster()));
    emit(cells);
  }
  return out;
}

}  // namespace skiff::cli
