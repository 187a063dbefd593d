#include "cli/sacctmgr/sacctmgr_qos.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/common/getopt_args.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  absl::AsciiStrToLower(&out);
  return out;
}

// Slurm's abbreviation rule (xstrncasecmp(name, word, MAX(len, min))): `word` is a
// prefix of `name`, any case, at least `min` characters long.
bool Abbreviates(std::string_view word, std::string_view name, size_t min) {
  if (word.size() < min || word.size() > name.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(word[i])) !=
        absl::ascii_tolower(static_cast<unsigned char>(name[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string item(text.substr(start, comma - start));
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
    size_t first = 0;
    while (first < item.size() && std::isspace(static_cast<unsigned char>(item[first]))) ++first;
    item.erase(0, first);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

// Slurm's strip_quotes: a value may arrive still quoted ("'a b'").
std::string StripQuotes(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return std::string(value);
}

void AddNames(std::string_view list, std::vector<std::string>* names) {
  for (const std::string& name : SplitList(StripQuotes(list))) {
    std::string lower = Lower(name);
    if (std::find(names->begin(), names->end(), lower) == names->end()) {
      names->push_back(lower);
    }
  }
}

// One command-line word split as Slurm's parse_option_end does: "Key=Value",
// "Key+=Value", "Key-=Value", or a bare word (op empty).
struct Word {
  std::string text;  // the whole word, for messages
  std::string key;
  std::string op;  // "", "=", "+=", "-="
  std::string value;
};

Word SplitWord(const std::string& text) {
  Word w;
  w.text = text;
  size_t eq = text.find('=');
  if (eq == std::string::npos) {
    w.key = text;
    return w;
  }
  size_t key_end = eq;
  w.op = "=";
  if (eq > 0 && (text[eq - 1] == '+' || text[eq - 1] == '-')) {
    key_end = eq - 1;
    w.op = std::string(1, text[eq - 1]) + "=";
  }
  w.key = text.substr(0, key_end);
  w.value = text.substr(eq + 1);
  return w;
}

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(message); }

// ---- Settings ----------------------------------------------------------------

enum class Setting {
  kName,
  kDescription,
  kGraceTime,
  kMaxCpusPerJob,
  kMaxCpusPerUser,
  kMaxJobsPerUser,
  kMaxNodesPerJob,
  kMaxNodesPerUser,
  kMaxSubmitPerUser,
  kMaxTresPerJob,
  kMaxTresPerUser,
  kGrpTresRunMins,
  kMaxTresRunMinsPerUser,
  kMaxTresMinsPerJob,
  kGrpTresMins,
  kMaxWall,
  kPreemptMode,
  kPreempt,
  kPriority,
  kUsageFactor,
  kUnsupported,  // a Slurm key that Skiff's QOS does not have
};

struct SettingKey {
  const char* name;
  size_t min;
  Setting setting;
};

// In the order of Slurm's _set_rec, which decides what an abbreviation means.
constexpr SettingKey kSettingKeys[] = {
    {"Name", 1, Setting::kName},
    {"Description", 1, Setting::kDescription},
    {"Flags", 2, Setting::kUnsupported},
    {"GraceTime", 3, Setting::kGraceTime},
    {"GrpCPUMins", 7, Setting::kUnsupported},
    {"GrpCPURunMins", 7, Setting::kUnsupported},
    {"GrpCPUs", 7, Setting::kUnsupported},
    {"GrpJobs", 4, Setting::kUnsupported},
    {"GrpJobsAccrue", 8, Setting::kUnsupported},
    {"GrpMemory", 4, Setting::kUnsupported},
    {"GrpNodes", 4, Setting::kUnsupported},
    {"GrpSubmitJobs", 4, Setting::kUnsupported},
    {"GrpTRES", 7, Setting::kUnsupported},
    {"GrpTRESMins", 8, Setting::kGrpTresMins},
    {"GrpTRESRunMins", 8, Setting::kGrpTresRunMins},
    {"GrpWall", 4, Setting::kUnsupported},
    {"LimitFactor", 6, Setting::kUnsupported},
    {"MaxCPUMinsPerJob", 7, Setting::kUnsupported},
    {"MaxCPUsPerJob", 7, Setting::kMaxCpusPerJob},
    {"MaxCPUsPerUser", 11, Setting::kMaxCpusPerUser},
    {"MaxCPUsPU", 9, Setting::kMaxCpusPerUser},
    {"MaxJobsAccruePerAccount", 17, Setting::kUnsupported},
    {"MaxJobsAccruePA", 15, Setting::kUnsupported},
    {"MaxJobsAccruePerUser", 17, Setting::kUnsupported},
    {"MaxJobsAccruePU", 15, Setting::kUnsupported},
    {"MaxJobsPerAccount", 11, Setting::kUnsupported},
    {"MaxJobsPA", 9, Setting::kUnsupported},
    {"MaxJobsPerUser", 4, Setting::kMaxJobsPerUser},
    {"MaxJobsPU", 4, Setting::kMaxJobsPerUser},
    {"MaxNodesPerJob", 4, Setting::kMaxNodesPerJob},
    {"MaxNodesPerUser", 8, Setting::kMaxNodesPerUser},
    {"MaxNodesPU", 8, Setting::kMaxNodesPerUser},
    {"MaxSubmitJobsPerAccount", 17, Setting::kUnsupported},
    {"MaxSubmitJobsPA", 15, Setting::kUnsupported},
    {"MaxSubmitJobsPerUser", 4, Setting::kMaxSubmitPerUser},
    {"MaxSubmitJobsPU", 4, Setting::kMaxSubmitPerUser},
    {"MaxSubmitPU", 6, Setting::kMaxSubmitPerUser},  // as `show` names the column
    {"MaxTRESPerAccount", 11, Setting::kUnsupported},
    {"MaxTRESPA", 9, Setting::kUnsupported},
    {"MaxTRESPerJob", 7, Setting::kMaxTresPerJob},
    {"MaxTRESPerNode", 11, Setting::kUnsupported},
    {"MaxTRESPerUser", 11, Setting::kMaxTresPerUser},
    {"MaxTRESPU", 9, Setting::kMaxTresPerUser},
    {"MaxTRESMinsPerJob", 8, Setting::kMaxTresMinsPerJob},
    {"MaxTRESRunMinsPA", 16, Setting::kUnsupported},
    {"MaxTRESRunMinsPerUser", 16, Setting::kMaxTresRunMinsPerUser},
    {"MaxTRESRunMinsPU", 8, Setting::kMaxTresRunMinsPerUser},
    {"MaxWallDurationPerJob", 4, Setting::kMaxWall},
    {"MinCPUsPerJob", 7, Setting::kUnsupported},
    {"MinPrioThresh", 4, Setting::kUnsupported},
    {"MinTRESPerJob", 7, Setting::kUnsupported},
    {"PreemptMode", 8, Setting::kPreemptMode},
    {"Preempt", 7, Setting::kPreempt},  // after PreemptMode, as in Slurm
    {"PreemptExemptTime", 8, Setting::kUnsupported},
    {"Priority", 3, Setting::kPriority},
    {"RawUsage", 7, Setting::kUnsupported},
    {"UsageFactor", 6, Setting::kUsageFactor},
    {"UsageThreshold", 6, Setting::kUnsupported},
};

const SettingKey* FindSetting(std::string_view key) {
  for (const SettingKey& k : kSettingKeys) {
    if (Abbreviates(key, k.name, k.min)) return &k;
  }
  return nullptr;
}

constexpr char kSupportedKeys[] =
    "Description, Priority, GraceTime, MaxTRESPerUser, MaxTRESPerJob, MaxCPUsPerJob, "
    "MaxCPUsPerUser, MaxNodesPerJob, MaxNodesPerUser, MaxJobsPerUser, MaxSubmitJobsPerUser, "
    "MaxWall, Preempt, PreemptMode, UsageFactor, GrpTRESRunMins, MaxTRESRunMinsPerUser, "
    "MaxTRESMinsPerJob, GrpTRESMins";

absl::Status BadValue(const Word& w, std::string_view expected) {
  return Invalid(
      absl::StrCat("Invalid value for ", w.key, ": '", w.value, "' (", std::string(expected), ")"));
}

// A count limit: a whole number >= 0, or -1 for none.
absl::StatusOr<int64_t> ParseLimit(const Word& w) {
  std::string v = StripQuotes(w.value);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size() || value < -1) {
    return BadValue(w, "a whole number, or -1 for none");
  }
  return value;
}

void MergeTres(const TresLimits& limits, v1::Tres* tres) {
  if (limits.cpu) tres->set_cpu(*limits.cpu);
  if (limits.mem_mb) tres->set_mem_mb(*limits.mem_mb);
  if (limits.node) tres->set_node(*limits.node);
  if (limits.gpu) tres->set_gpu(*limits.gpu);
}

absl::Status ApplySetting(const SettingKey& key, const Word& w, v1::QosChanges* c) {
  if (!w.op.empty() && w.op != "=" && key.setting != Setting::kPreempt) {
    return Invalid(absl::StrCat("Only Preempt takes ", w.op, ": ", w.text));
  }
  switch (key.setting) {
    case Setting::kName:
    case Setting::kUnsupported:
      break;  // handled by the caller
    case Setting::kDescription:
      c->set_description(StripQuotes(w.value));
      return absl::OkStatus();
    case Setting::kGraceTime: {
      absl::StatusOr<int64_t> v = ParseLimit(w);
      if (!v.ok()) return v.status();
      c->set_grace_time(std::max<int64_t>(*v, 0));
      return absl::OkStatus();
    }
    case Setting::kPriority: {
      absl::StatusOr<int64_t> v = ParseLimit(w);
      if (!v.ok()) return v.status();
      c->set_priority(std::max<int64_t>(*v, 0));  // -1 resets to 0, the default
      return absl::OkStatus();
    }
    case Setting::kMaxJobsPerUser:
    case Setting::kMaxSubmitPerUser: {
      absl::StatusOr<int64_t> v = ParseLimit(w);
      if (!v.ok()) return v.status();
      if (key.setting == Setting::kMaxJobsPerUser) {
        c->set_max_jobs_per_user(*v);
      } else {
        c->set_max_submit_jobs_per_user(*v);
      }
      return absl::OkStatus();
    }
    case Setting::kMaxCpusPerJob:
    case Setting::kMaxCpusPerUser:
    case Setting::kMaxNodesPerJob:
    case Setting::kMaxNodesPerUser: {
      absl::StatusOr<int64_t> v = ParseLimit(w);
      if (!v.ok()) return v.status();
      bool per_job =
          key.setting == Setting::kMaxCpusPerJob || key.setting == Setting::kMaxNodesPerJob;
      v1::Tres* tres = per_job ? c->mutable_max_tres_per_job() : c->mutable_max_tres_per_user();
      if (key.setting == Setting::kMaxCpusPerJob || key.setting == Setting::kMaxCpusPerUser) {
        tres->set_cpu(*v);
      } else {
        tres->set_node(*v);
      }
      return absl::OkStatus();
    }
    case Setting::kMaxTresPerJob:
    case Setting::kMaxTresPerUser:
    case Setting::kGrpTresRunMins:
    case Setting::kMaxTresRunMinsPerUser:
    case Setting::kMaxTresMinsPerJob:
    case Setting::kGrpTresMins: {
      absl::StatusOr<TresLimits> limits = ParseTres(StripQuotes(w.value));
      if (!limits.ok()) {
        return Invalid(absl::StrCat(w.key, ": ", std::string(limits.status().message())));
      }
      v1::Tres* target = c->mutable_max_tres_per_user();
      if (key.setting == Setting::kMaxTresPerJob) target = c->mutable_max_tres_per_job();
      if (key.setting == Setting::kGrpTresRunMins) target = c->mutable_grp_tres_run_mins();
      if (key.setting == Setting::kMaxTresRunMinsPerUser) {
        target = c->mutable_max_tres_run_mins_per_user();
      }
      if (key.setting == Setting::kMaxTresMinsPerJob) target = c->mutable_max_tres_mins_per_job();
      if (key.setting == Setting::kGrpTresMins) target = c->mutable_grp_tres_mins();
      MergeTres(*limits, target);
      return absl::OkStatus();
    }
    case Setting::kMaxWall: {
      std::string v = StripQuotes(w.value);
      if (v == "-1") {
        c->set_max_wall(kInfiniteDuration);
        return absl::OkStatus();
      }
      absl::StatusOr<int64_t> seconds = ParseDuration(v);
      if (!seconds.ok()) return Invalid(absl::StrCat("Bad MaxWall time format: ", w.text));
      c->set_max_wall(*seconds);
      return absl::OkStatus();
    }
    case Setting::kPreemptMode: {
      std::string mode = Lower(StripQuotes(w.value));
      if (mode == "cluster") {
        c->set_preempt_mode("cluster");
      } else if (mode == "off" || mode == "cancel" || mode == "requeue") {
        c->set_preempt_mode(absl::AsciiStrToUpper(mode));
      } else {
        return Invalid(absl::StrCat("Bad Preempt Mode given: ", w.text,
                                    " (Skiff knows cluster, off, cancel and requeue)"));
      }
      return absl::OkStatus();
    }
    case Setting::kPreempt: {
      std::vector<std::string> names;
      AddNames(w.value, &names);
      if (names.empty() && w.op != "=") {
        return Invalid(absl::StrCat("Preempt", w.op, " needs QOS names: ", w.text));
      }
      c->set_preempt(absl::StrJoin(names, ","));
      c->set_preempt_op(w.op);
      return absl::OkStatus();
    }
    case Setting::kUsageFactor: {
      std::string v = StripQuotes(w.value);
      char* end = nullptr;
      double factor = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || (factor < 0 && factor != -1)) {
        return BadValue(w, "a number >= 0");
      }
      c->set_usage_factor(factor < 0 ? 1.0 : factor);  // -1 resets to the default
      return absl::OkStatus();
    }
  }
  return Invalid(absl::StrCat("Unknown option: ", w.text));
}

absl::Status UnknownOption(const Word& w) {
  return Invalid(
      absl::StrCat("Unknown option: ", w.text, "\nUse keyword 'where' to modify condition"));
}

absl::Status UnknownCondition(const Word& w) {
  return Invalid(
      absl::StrCat("Unknown condition: ", w.text, "\nUse keyword 'set' to modify values"));
}

// A setting word: applies it, or says why not.
absl::Status SetFromWord(const Word& w, SacctmgrCommand* command) {
  const SettingKey* key = FindSetting(w.key);
  if (key == nullptr) return UnknownOption(w);
  if (key->setting == Setting::kUnsupported) {
    return Invalid(
        absl::StrCat(key->name, " is not supported by Skiff's QOS (it has ", kSupportedKeys, ")"));
  }
  if (absl::Status s = ApplySetting(*key, w, &command->changes); !s.ok()) return s;
  command->has_changes = true;
  return absl::OkStatus();
}

enum class Condition { kNames, kClusters, kFormat, kUnsupported };

struct ConditionKey {
  const char* name;
  size_t min;
  Condition condition;
};

// In the order of Slurm's _set_cond.
constexpr ConditionKey kConditionKeys[] = {
    {"Names", 1, Condition::kNames},
    {"QOSLevel", 1, Condition::kNames},
    {"Clusters", 1, Condition::kClusters},
    {"Descriptions", 1, Condition::kUnsupported},
    {"Format", 1, Condition::kFormat},
    {"Ids", 1, Condition::kUnsupported},
    {"PreemptMode", 8, Condition::kUnsupported},
};

const ConditionKey* FindCondition(std::string_view key) {
  for (const ConditionKey& k : kConditionKeys) {
    if (Abbreviates(key, k.name, k.min)) return &k;
  }
  return nullptr;
}

// The entity's arguments, for each verb.
absl::Status ParseQosArgs(const std::vector<std::string>& args, SacctmgrCommand* command) {
  const SacctmgrVerb verb = command->verb;
  bool in_set = false;  // modify: after "set"
  for (const std::string& arg : args) {
    Word w = SplitWord(arg);
    if (w.op.empty()) {
      if (Abbreviates(w.key, "where", 5)) {
        in_set = false;
        continue;
      }
      if (Abbreviates(w.key, "set", 3)) {
        if (verb == SacctmgrVerb::kDelete || verb == SacctmgrVerb::kShow) {
          return UnknownCondition(w);
        }
        in_set = true;
        continue;
      }
      if (Abbreviates(w.key, "WithDeleted", 5)) continue;
      AddNames(w.key, &command->names);
      continue;
    }
    if (verb == SacctmgrVerb::kAdd || (verb == SacctmgrVerb::kModify && in_set)) {
      const SettingKey* key = FindSetting(w.key);
      if (key != nullptr && key->setting == Setting::kName) {
        if (verb == SacctmgrVerb::kModify) {
          return Invalid(absl::StrCat("A QOS cannot be renamed: ", w.text,
                                      "\nName the QOS to modify before 'set'"));
        }
        AddNames(w.value, &command->names);
        continue;
      }
      if (absl::Status s = SetFromWord(w, command); !s.ok()) return s;
      continue;
    }
    // A condition (delete, show, modify before "set").
    const ConditionKey* cond = FindCondition(w.key);
    if (cond != nullptr && cond->condition == Condition::kNames) {
      AddNames(w.value, &command->names);
      continue;
    }
    if (cond != nullptr && cond->condition == Condition::kClusters) continue;  // one cluster
    if (cond != nullptr && cond->condition == Condition::kFormat) {
      if (verb == SacctmgrVerb::kShow) {
        for (const std::string& f : SplitList(StripQuotes(w.value))) command->format.push_back(f);
      }
      continue;
    }
    if (verb == SacctmgrVerb::kModify) {
      // Skiff lets a setting come before "set": "modify qos high Priority=10".
      const SettingKey* key = FindSetting(w.key);
      if (key != nullptr && key->setting != Setting::kName) {
        if (absl::Status s = SetFromWord(w, command); !s.ok()) return s;
        continue;
      }
    }
    if (cond != nullptr) {
      return Invalid(absl::StrCat("Selecting QOS by ", cond->name,
                                  " is not supported by Skiff; name them instead"));
    }
    return UnknownCondition(w);
  }
  return absl::OkStatus();
}

// ---- show qos ------------------------------------------------------------------

enum class Column {
  kName,
  kDescription,
  kPriority,
  kGraceTime,
  kPreempt,
  kPreemptMode,
  kUsageFactor,
  kMaxTresPerJob,
  kMaxTresPerUser,
  kGrpTresRunMins,
  kMaxTresRunMinsPerUser,
  kMaxTresMinsPerJob,
  kGrpTresMins,
  kMaxCpusPerJob,
  kMaxCpusPerUser,
  kMaxNodesPerJob,
  kMaxNodesPerUser,
  kMaxJobsPerUser,
  kMaxSubmitPerUser,
  kMaxWall,
  kBlank,  // a Slurm column with no Skiff counterpart: kept, empty
};

enum class Kind { kString, kNumber, kDouble };

struct FieldSpec {
  const char* name;  // what the user may abbreviate
  size_t min;
  const char* header;
  int width;
  Column column;
  Kind kind;
};

// Slurm's sacctmgr field table (common.c _get_print_field), in its order, for the
// fields a QOS has.
constexpr FieldSpec kFields[] = {
    {"Description", 3, "Descr", 20, Column::kDescription, Kind::kString},
    {"Flags", 2, "Flags", 20, Column::kBlank, Kind::kString},
    {"GraceTime", 3, "GraceTime", 10, Column::kGraceTime, Kind::kNumber},
    {"GrpCPUs", 6, "GrpCPUs", 8, Column::kBlank, Kind::kNumber},
    {"GrpCPUMins", 7, "GrpCPUMins", 11, Column::kBlank, Kind::kNumber},
    {"GrpCPURunMins", 7, "GrpCPURunMins", 13, Column::kBlank, Kind::kNumber},
    {"GrpTRES", 7, "GrpTRES", 13, Column::kBlank, Kind::kString},
    {"GrpTRESMins", 7, "GrpTRESMins", 13, Column::kGrpTresMins, Kind::kString},
    {"GrpTRESRunMins", 7, "GrpTRESRunMins", 13, Column::kGrpTresRunMins, Kind::kString},
    {"GrpJobs", 4, "GrpJobs", 7, Column::kBlank, Kind::kNumber},
    {"GrpJobsAccrue", 8, "GrpJobsAccrue", 13, Column::kBlank, Kind::kNumber},
    {"GrpMemory", 4, "GrpMem", 7, Column::kBlank, Kind::kNumber},
    {"GrpNodes", 4, "GrpNodes", 8, Column::kBlank, Kind::kNumber},
    {"GrpSubmitJobs", 4, "GrpSubmit", 9, Column::kBlank, Kind::kNumber},
    {"GrpWall", 4, "GrpWall", 11, Column::kBlank, Kind::kNumber},
    {"ID", 2, "ID", 6, Column::kBlank, Kind::kNumber},
    {"MaxCPUMinsPerJob", 7, "MaxCPUMins", 11, Column::kBlank, Kind::kNumber},
    {"MaxCPURunMinsPerUser", 7, "MaxCPURunMinsPU", 15, Column::kBlank, Kind::kNumber},
    {"MaxCPURunMinsPU", 7, "MaxCPURunMinsPU", 15, Column::kBlank, Kind::kNumber},
    {"MaxCPUsPerJob", 7, "MaxCPUs", 8, Column::kMaxCpusPerJob, Kind::kNumber},
    {"MaxCPUsPerUser", 11, "MaxCPUsPU", 9, Column::kMaxCpusPerUser, Kind::kNumber},
    {"MaxCPUsPU", 9, "MaxCPUsPU", 9, Column::kMaxCpusPerUser, Kind::kNumber},
    {"MaxTRES", 7, "MaxTRES", 13, Column::kMaxTresPerJob, Kind::kString},
    {"MaxTRESPerJob", 11, "MaxTRES", 13, Column::kMaxTresPerJob, Kind::kString},
    {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14, Column::kBlank, Kind::kString},
    {"MaxTRESMinsPerJob", 8, "MaxTRESMins", 13, Column::kMaxTresMinsPerJob, Kind::kString},
    {"MaxTRESRunMinsPerAccount", 18, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPerAcct", 18, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPA", 15, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPerUser", 8, "MaxTRESRunMinsPU", 15, Column::kMaxTresRunMinsPerUser,
     Kind::kString},
    {"MaxTRESRunMinsPU", 8, "MaxTRESRunMinsPU", 15, Column::kMaxTresRunMinsPerUser, Kind::kString},
    {"MaxTRESPerAccount", 11, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPerAcct", 11, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPA", 9, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPerUser", 11, "MaxTRESPU", 13, Column::kMaxTresPerUser, Kind::kString},
    {"MaxTRESPU", 9, "MaxTRESPU", 13, Column::kMaxTresPerUser, Kind::kString},
    {"MaxJobs", 4, "MaxJobs", 7, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxJobsAccrue", 4, "MaxJobsAccrue", 13, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerAccount", 17, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerAcct", 17, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePA", 15, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerUser", 17, "MaxJobsAccruePU", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePU", 15, "MaxJobsAccruePU", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerAccount", 11, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerAcct", 11, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPA", 9, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerUser", 11, "MaxJobsPU", 9, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxJobsPU", 9, "MaxJobsPU", 9, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxNodesPerJob", 4, "MaxNodes", 8, Column::kMaxNodesPerJob, Kind::kNumber},
    {"MaxNodesPerUser", 12, "MaxNodesPU", 10, Column::kMaxNodesPerUser, Kind::kNumber},
    {"MaxNodesPU", 10, "MaxNodesPU", 10, Column::kMaxNodesPerUser, Kind::kNumber},
    {"MinPrioThreshold", 4, "MinPrioThres", 12, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobs", 4, "MaxSubmit", 9, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitJobsPerAccount", 17, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPerAcct", 17, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPA", 15, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitPA", 11, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPerUser", 10, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitJobsPU", 10, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitPU", 6, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxWallDurationPerJob", 4, "MaxWall", 11, Column::kMaxWall, Kind::kNumber},
    {"MinCPUsPerJob", 7, "MinCPUs", 8, Column::kBlank, Kind::kNumber},
    {"MinTRESPerJob", 7, "MinTRES", 13, Column::kBlank, Kind::kString},
    {"Name", 2, "Name", 10, Column::kName, Kind::kString},
    {"PreemptMode", 8, "PreemptMode", 11, Column::kPreemptMode, Kind::kString},
    {"Preempt", 7, "Preempt", 10, Column::kPreempt, Kind::kString},
    {"PreemptExemptTime", 8, "PreemptExemptTime", 19, Column::kBlank, Kind::kNumber},
    {"Priority", 3, "Priority", 10, Column::kPriority, Kind::kNumber},
    {"UsageFactor", 6, "UsageFactor", 11, Column::kUsageFactor, Kind::kDouble},
    {"UsageThreshold", 6, "UsageThres", 10, Column::kBlank, Kind::kDouble},
    {"LimitFactor", 6, "LimitFactor", 11, Column::kBlank, Kind::kDouble},
};

struct Field {
  const FieldSpec* spec;
  int len;  // Slurm's field->len: negative = left-justified
};

absl::StatusOr<Field> ResolveField(const std::string& text) {
  std::string name = text;
  int len = 0;
  bool has_len = false;
  if (size_t pct = text.find('%'); pct != std::string::npos) {
    name = text.substr(0, pct);
    len = std::atoi(text.c_str() + pct + 1);
    has_len = len != 0;
  }
  for (const FieldSpec& spec : kFields) {
    if (Abbreviates(name, spec.name, spec.min)) {
      return Field{&spec, has_len ? len : spec.width};
    }
  }
  return Invalid(absl::StrCat("Unknown field '", name, "'"));
}

std::string TresText(const v1::Tres& tres) { return FormatTres(FromProto(tres)); }

std::optional<std::string> Count(int64_t value) {
  if (value < 0) return std::nullopt;
  return absl::StrCat(value);
}

// A QOS's value for a column; nullopt = blank.
std::optional<std::string> Value(const v1::QosInfo& qos, Column column) {
  auto non_empty = [](std::string text) -> std::optional<std::string> {
    if (text.empty()) return std::nullopt;
    return text;
  };
  switch (column) {
    case Column::kName:
      return non_empty(qos.name());
    case Column::kDescription:
      return non_empty(qos.description());
    case Column::kPriority:
      return Count(qos.priority());
    case Column::kGraceTime:
      if (qos.grace_time() < 0) return std::nullopt;
      return FormatTimeLimit(qos.grace_time());
    case Column::kPreempt:
      return non_empty(absl::StrJoin(qos.preempt(), ","));
    case Column::kPreemptMode: {
      std::string mode = Lower(qos.preempt_mode());
      return mode.empty() ? "cluster" : mode;
    }
    case Column::kUsageFactor: {
      char buf[64];
      snprintf(buf, sizeof(buf), "%f", qos.usage_factor());
      return std::string(buf);
    }
    case Column::kMaxTresPerJob:
      return non_empty(TresText(qos.max_tres_per_job()));
    case Column::kMaxTresPerUser:
      return non_empty(TresText(qos.max_tres_per_user()));
    case Column::kGrpTresRunMins:
      return non_empty(TresText(qos.grp_tres_run_mins()));
    case Column::kMaxTresRunMinsPerUser:
      return non_empty(TresText(qos.max_tres_run_mins_per_user()));
    case Column::kMaxTresMinsPerJob:
      return non_empty(TresText(qos.max_tres_mins_per_job()));
    case Column::kGrpTresMins:
      return non_empty(TresText(qos.grp_tres_mins()));
    case Column::kMaxCpusPerJob:
      return qos.max_tres_per_job().has_cpu() ? Count(qos.max_tres_per_job().cpu()) : std::nullopt;
    case Column::kMaxCpusPerUser:
      return qos.max_tres_per_user().has_cpu() ? Count(qos.max_tres_per_user().cpu())
                                               : std::nullopt;
    case Column::kMaxNodesPerJob:
      return qos.max_tres_per_job().has_node() ? Count(qos.max_tres_per_job().node())
                                               : std::nullopt;
    case Column::kMaxNodesPerUser:
      return qos.max_tres_per_user().has_node() ? Count(qos.max_tres_per_user().node())
                                                : std::nullopt;
    case Column::kMaxJobsPerUser:
      return Count(qos.max_jobs_per_user());
    case Column::kMaxSubmitPerUser:
      return Count(qos.max_submit_jobs_per_user());
    case Column::kMaxWall:
      if (qos.max_wall() < 0) return std::nullopt;
      return FormatTimeLimit(qos.max_wall());
    case Column::kBlank:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string Pad(const std::string& text, int len) {
  size_t width = static_cast<size_t>(std::abs(len));
  if (text.size() >= width) return text;
  std::string fill(width - text.size(), ' ');
  return len >= 0 ? fill + text : text + fill;
}

// One fixed-width cell, as Slurm's print_fields_* print it (with the trailing
// space).
std::string Cell(const Field& field, const std::optional<std::string>& value, double number) {
  const int len = field.len;
  const size_t width = static_cast<size_t>(std::abs(len));
  if (!value) return Pad(" ", len) + " ";
  switch (field.spec->kind) {
    case Kind::kString: {
      std::string text = *value;
      if (text.size() > width && width > 0) {
        text.resize(width);
        text[width - 1] = '+';
      }
      return Pad(text, len) + " ";
    }
    case Kind::kNumber:
      return Pad(*value, len) + " ";
    case Kind::kDouble: {
      // print_fields_double: "%*f", or "%*.*e" when that does not fit.
      char buf[128];
      snprintf(buf, sizeof(buf), len >= 0 ? "%*f" : "%-*f", static_cast<int>(width), number);
      if (strlen(buf) <= width) return std::string(buf) + " ";
      int w = static_cast<int>(width);
      snprintf(buf, sizeof(buf), "%*.*e", w, w, number);
      int extra = static_cast<int>(strlen(buf)) - w;
      if (extra > 0) w -= extra;
      snprintf(buf, sizeof(buf), len >= 0 ? "%*.*e" : "%-*.*e", w, std::max(w, 0), number);
      return std::string(buf) + " ";
    }
  }
  return "";
}

std::string PreemptModeSetting(const std::string& mode) {
  return absl::AsciiStrToUpper(mode);  // Slurm's preempt_mode_string
}

}  // namespace

absl::StatusOr<SacctmgrCommandLine> ParseSacctmgrOptions(const std::vector<std::string>& args) {
  SacctmgrCommandLine line;
  int verbose = 0;
  // Slurm's option table, in its order (getopt_long lists the candidates of an
  // ambiguous abbreviation in it). -o/--oneliner is Slurm's too, and not
  // Skiff's.
  CLI::App app;
  app.set_help_flag();
  app.add_flag("-h,--help,--usage", line.help);
  app.add_flag("-i,--immediate", line.options.immediate);
  app.add_flag("-n,--noheader", line.options.no_header);
  app.add_flag("-p,--parsable", line.options.parsable);
  app.add_flag("-P,--parsable2", line.options.parsable2);
  app.add_flag("-Q,--quiet", line.options.quiet);
  app.add_flag("-r,--readonly", line.options.readonly);
  app.add_flag("-s,--associations", line.options.with_assoc);
  app.add_flag("-v,--verbose", verbose);  // Skiff's sacctmgr has nothing more to log
  app.add_flag("-V,--version", line.version);
  absl::StatusOr<std::vector<std::string>> normalized =
      NormalizeGetoptArgs(args, app, GetoptOrder::kPermute);
  if (!normalized.ok()) return normalized.status();
  auto separator = std::find(normalized->begin(), normalized->end(), "--");
  if (separator != normalized->end()) {
    line.words.assign(separator + 1, normalized->end());
    normalized->erase(separator, normalized->end());
  }
  try {
    app.parse(std::vector<std::string>(normalized->rbegin(), normalized->rend()));
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(e.what());  // not reached: every option is a flag
  }
  return line;
}

absl::StatusOr<SacctmgrCommand> ParseSacctmgrCommandLine(const std::vector<std::string>& args) {
  absl::StatusOr<SacctmgrCommandLine> line = ParseSacctmgrOptions(args);
  if (!line.ok()) return line.status();
  SacctmgrCommand command;
  command.options = line->options;
  command.help = line->help;
  command.version = line->version;
  const std::vector<std::string>& words = line->words;
  size_t i = 0;
  if (command.help || command.version) return command;
  if (i >= words.size()) {
    return Invalid(
        "No command given: Skiff's sacctmgr has no interactive mode; try "
        "\"sacctmgr show qos\"");
  }
  const std::string& verb = words[i++];
  if (Abbreviates(verb, "add", 3) || Abbreviates(verb, "create", 3)) {
    command.verb = SacctmgrVerb::kAdd;
  } else if (Abbreviates(verb, "modify", 1) || Abbreviates(verb, "update", 1)) {
    command.verb = SacctmgrVerb::kModify;
  } else if (Abbreviates(verb, "delete", 3) || Abbreviates(verb, "remove", 3)) {
    command.verb = SacctmgrVerb::kDelete;
  } else if (Abbreviates(verb, "show", 3) || Abbreviates(verb, "list", 3)) {
    command.verb = SacctmgrVerb::kShow;
  } else if (Abbreviates(verb, "help", 2)) {
    command.help = true;
    return command;
  } else if (Abbreviates(verb, "version", 4)) {
    command.version = true;
    return command;
  } else {
    return Invalid(absl::StrCat("Invalid keyword: ", verb));
  }
  if (i >= words.size()) {
    return Invalid(absl::StrCat("No entity given to ", verb, ": try \"sacctmgr ", verb, " qos\""));
  }
  const std::string& entity = words[i++];
  if (!Abbreviates(entity, "qos", 1)) {
    return Invalid(absl::StrCat("Skiff's sacctmgr manages QOS only, not \"", entity, "\""));
  }
  std::vector<std::string> rest(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  if (absl::Status s = ParseQosArgs(rest, &command); !s.ok()) return s;

  switch (command.verb) {
    case SacctmgrVerb::kAdd:
      if (command.names.empty()) return Invalid("Need name of qos to add.");
      break;
    case SacctmgrVerb::kModify:
      if (!command.has_changes) return Invalid("You didn't give me anything to set");
      break;
    case SacctmgrVerb::kDelete:
      if (command.names.empty()) {
        return Invalid("No conditions given to remove, not executing.");
      }
      break;
    case SacctmgrVerb::kShow:
      for (const std::string& f : command.format) {
        if (absl::Status s = ResolveField(f).status(); !s.ok()) return s;
      }
      break;
  }
  return command;
}

v1::Tres ToProto(const TresLimits& limits) {
  v1::Tres tres;
  MergeTres(limits, &tres);
  return tres;
}

TresLimits FromProto(const v1::Tres& tres) {
  TresLimits limits;
  if (tres.has_cpu()) limits.cpu = tres.cpu();
  if (tres.has_mem_mb()) limits.mem_mb = tres.mem_mb();
  if (tres.has_node()) limits.node = tres.node();
  if (tres.has_gpu()) limits.gpu = tres.gpu();
  return limits;
}

std::vector<std::string> DefaultQosFormat() {
  return SplitList(
      "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,"
      "GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,"
      "MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,"
      "MaxSubmitJobsPerAcct,MinTRES");
}

absl::StatusOr<std::string> FormatQosTable(const v1::GetQosReply& reply,
                                           const std::vector<std::string>& format,
                                           const SacctmgrOptions& options) {
  std::vector<Field> fields;
  for (const std::string& f : format.empty() ? DefaultQosFormat() : format) {
    absl::StatusOr<Field> field = ResolveField(f);
    if (!field.ok()) return field.status();
    fields.push_back(*field);
  }
  const bool parsable = options.parsable || options.parsable2;
  // -P ends the last field without '|'; -p ends every field with one.
  auto join = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t k = 0; k < cells.size(); ++k) {
      line += cells[k];
      if (parsable && !(options.parsable2 && !options.parsable && k + 1 == cells.size())) {
        line += '|';
      }
    }
    return line + "\n";
  };

  std::string out;
  if (!options.no_header) {
    std::vector<std::string> header, dashes;
    for (const Field& f : fields) {
      if (parsable) {
        header.push_back(f.spec->header);
        continue;
      }
      std::string name = f.spec->header;
      size_t width = static_cast<size_t>(std::abs(f.len));
      if (name.size() > width) name.resize(width);
      header.push_back(Pad(name, f.len) + " ");
      dashes.push_back(std::string(width, '-') + " ");
    }
    out += join(header);
    if (!parsable) out += join(dashes);
  }
  for (const v1::QosInfo& qos : reply.qos()) {
    std::vector<std::string> cells;
    for (const Field& f : fields) {
      std::optional<std::string> value = Value(qos, f.spec->column);
      if (parsable) {
        cells.push_back(value.value_or(""));
      } else {
        cells.push_back(Cell(f, value, qos.usage_factor()));
      }
    }
    out += join(cells);
  }
  return out;
}

std::string AddQosMessage(const std::vector<std::string>& names, const v1::QosChanges& c) {
  std::string out = " Adding QOS(s)\n";
  for (const std::string& name : names) absl::StrAppend(&out, "  ", name, "\n");
  out += " Settings\n";
  // Slurm shows the description of the last QOS added: its name unless given.
  std::string description =
      c.has_description() ? c.description() : (names.empty() ? "QOS Name" : names.back());
  absl::StrAppend(&out, "  Description    = ", description, "\n");
  auto limit = [](int64_t value) { return value < 0 ? std::string("NONE") : absl::StrCat(value); };
  // The order and spacing of Slurm's sacctmgr_print_qos_limits.
  if (c.has_grace_time())
    absl::StrAppend(&out, "  GraceTime                = ", c.grace_time(), "\n");
  if (c.has_max_jobs_per_user()) {
    absl::StrAppend(&out, "  MaxJobsPerUser = ", limit(c.max_jobs_per_user()), "\n");
  }
  if (c.has_max_submit_jobs_per_user()) {
    absl::StrAppend(&out, "  MaxSubmitJobsPerUser     = ", limit(c.max_submit_jobs_per_user()),
                    "\n");
  }
  if (std::string t = TresText(c.max_tres_per_job()); !t.empty()) {
    absl::StrAppend(&out, "  MaxTRESPerJob            = ", t, "\n");
  }
  if (std::string t = TresText(c.max_tres_per_user()); !t.empty()) {
    absl::StrAppend(&out, "  MaxTRESPerUser           = ", t, "\n");
  }
  if (c.has_max_wall()) {
    absl::StrAppend(&out, "  MaxWall                  = ",
                    c.max_wall() < 0 ? "NONE" : FormatTimeLimit(c.max_wall()), "\n");
  }
  if (c.has_preempt() && !c.preempt().empty()) {
    absl::StrAppend(&out, "  Preempt                  = ", c.preempt(), "\n");
  }
  if (c.has_preempt_mode() && Lower(c.preempt_mode()) != "cluster") {
    absl::StrAppend(&out, "  PreemptMode              = ", PreemptModeSetting(c.preempt_mode()),
                    "\n");
  }
  if (c.has_priority()) absl::StrAppend(&out, "  Priority                 = ", c.priority(), "\n");
  if (c.has_usage_factor()) {
    char buf[64];
    snprintf(buf, sizeof(buf), "%.4f", c.usage_factor());
    absl::StrAppend(&out, "  UsageFactor              = ", buf, "\n");
  }
  return out;
}

std::string ChangedQosMessage(SacctmgrVerb verb, const std::vector<std::string>& names) {
  std::string out = verb == SacctmgrVerb::kDelete ? " Deleting QOS(s)...\n" : " Modified qos...\n";
  for (const std::string& name : names) absl::StrAppend(&out, "  ", name, "\n");
  return out;
}

std::string NothingChangedMessage(SacctmgrVerb verb) {
  switch (verb) {
    case SacctmgrVerb::kAdd:
      return " Nothing new added.\n";
    case SacctmgrVerb::kDelete:
      return " Nothing deleted\n";
    default:
      return " Nothing modified\n";
  }
}

std::string UpdateQosErrorText(const absl::Status& status, SacctmgrVerb verb) {
  std::string out;
  std::string reason(status.message());
  if (status.code() == absl::StatusCode::kPermissionDenied) {
    out = "sacctmgr: error: Your user doesn't have privilege to perform this action\n";
    reason = "Access/permission denied";
  }
  absl::StrAppend(
      &out, verb == SacctmgrVerb::kAdd ? " Problem adding QOS: " : " Error with request: ", reason,
      "\n");
  return out;
}

std::optional<bool> CommitAnswer(std::string_view line) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) {
    line.remove_suffix(1);
  }
  if (line.empty() || line == "n" || line == "N") return false;
  if (line == "y" || line == "Y") return true;
  return std::nullopt;
}

std::vector<std::string> ExistingQos(const v1::GetQosReply& reply,
                                     const std::vector<std::string>& wanted) {
  std::vector<std::string> out;
  if (wanted.empty()) {
    for (const v1::QosInfo& qos : reply.qos()) out.push_back(qos.name());
    return out;
  }
  std::set<std::string> known;
  for (const v1::QosInfo& qos : reply.qos()) known.insert(Lower(qos.name()));
  for (const std::string& name : wanted) {
    if (known.count(Lower(name)) > 0) out.push_back(name);
  }
  return out;
}

std::vector<std::string> MissingQos(const v1::GetQosReply& reply,
                                    const std::vector<std::string>& wanted) {
  std::set<std::string> known;
  for (const v1::QosInfo& qos : reply.qos()) known.insert(Lower(qos.name()));
  std::vector<std::string> out;
  for (const std::string& name : wanted) {
    if (known.count(Lower(name)) == 0) out.push_back(name);
  }
  return out;
}

v1::UpdateQosRequest BuildUpdateQosRequest(const SacctmgrCommand& command,
                                           const std::vector<std::string>& names) {
  v1::UpdateQosRequest request;
  switch (command.verb) {
    case SacctmgrVerb::kAdd:
      request.set_op(v1::UpdateQosRequest::ADD);
      break;
    case SacctmgrVerb::kModify:
      request.set_op(v1::UpdateQosRequest::MODIFY);
      break;
    case SacctmgrVerb::kDelete:
      request.set_op(v1::UpdateQosRequest::DELETE);
      break;
    case SacctmgrVerb::kShow:
      break;
  }
  for (const std::string& name : names) request.add_names(name);
  if (command.verb == SacctmgrVerb::kAdd || command.verb == SacctmgrVerb::kModify) {
    *request.mutable_changes() = command.changes;
  }
  return request;
}

}  // namespace skiff::cli
