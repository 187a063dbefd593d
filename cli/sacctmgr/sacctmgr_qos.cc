#include "cli/sacctmgr/sacctmgr_qos.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/common/getopt_args.h"
#include "cli/sacctmgr/sacctmgr_qos_internal.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace sacctmgr_qos_internal {

std::string Lower(std::string_view text) {
  std::string out(text);
  absl::AsciiStrToLower(&out);
  return out;
}

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

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(message); }

}  // namespace sacctmgr_qos_internal

using sacctmgr_qos_internal::Abbreviates;
using sacctmgr_qos_internal::Invalid;
using sacctmgr_qos_internal::Lower;
using sacctmgr_qos_internal::ResolveField;
using sacctmgr_qos_internal::SplitList;

namespace {

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

}  // namespace skiff::cli
