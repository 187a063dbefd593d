#include "ctld/core/partition_update.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::ctld {
namespace {

const std::vector<std::string>& UpdatableKeys() {
  static const auto* const kKeys = new std::vector<std::string>{
      "State",    "MaxTime",  "DefaultTime",  "Nodes",         "PriorityTier", "PriorityJobFactor",
      "MaxNodes", "MinNodes", "Default",      "AllowAccounts", "AllowGroups",  "AllowQos",
      "Hidden",   "RootOnly", "OverSubscribe"};
  return *kKeys;
}

std::string YesNo(bool value) { return value ? "YES" : "NO"; }
std::string List(const std::vector<std::string>& values) {
  return values.empty() ? "ALL" : absl::StrJoin(values, ",");
}

// Slurm's own follow-up line for a bad choice (update_part.c).
std::string Acceptable(const std::string& key) {
  if (key == "State") return "\nAcceptable State values are UP, DOWN, DRAIN and INACTIVE";
  if (key == "OverSubscribe") {
    return "\nAcceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#";
  }
  if (key == "Default" || key == "Hidden" || key == "RootOnly") {
    return absl::StrCat("\nAcceptable ", key, " values are YES and NO");
  }
  return "";
}

absl::Status Set(const SkiffConfig& config, const std::string& key, const std::string& value,
                 PartitionConfig& partition) {
  absl::Status status = SetPartitionKey(config, key, value, partition);
  if (status.ok()) return status;
  if (status.code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError("Invalid node name specified");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid input: ", key, "=", value, Acceptable(key)));
}

// Default=YES on one partition takes it from the others, as in Slurm.
void KeepOneDefault(SkiffConfig& config, const std::string& name) {
  for (PartitionConfig& p : config.partitions) {
    if (p.name != name) p.is_default = false;
  }
}

}  // namespace

absl::StatusOr<std::string> CanonicalPartitionKey(const std::string& key, const std::string& word) {
  for (const std::string& known : UpdatableKeys()) {
    if (absl::EqualsIgnoreCase(known, key)) return known;
  }
  if (absl::EqualsIgnoreCase(key, "Shared")) return std::string("OverSubscribe");
  return absl::InvalidArgumentError(
      absl::StrCat("Update of this parameter is not supported: ", word, "\nRequest aborted"));
}

std::string PartitionKeyText(const PartitionConfig& p, const std::string& key) {
  if (key == "State") return p.state;
  if (key == "MaxTime") return absl::StrCat(p.max_time);
  if (key == "DefaultTime") return absl::StrCat(p.default_time);
  if (key == "Nodes") return absl::StrJoin(p.nodes, ",");
  if (key == "PriorityTier") return absl::StrCat(p.priority_tier);
  if (key == "PriorityJobFactor") return absl::StrCat(p.priority_job_factor);
  if (key == "MaxNodes") return absl::StrCat(p.max_nodes);
  if (key == "MinNodes") return absl::StrCat(p.min_nodes);
  if (key == "Default") return YesNo(p.is_default);
  if (key == "AllowAccounts") return List(p.allow_accounts);
  if (key == "AllowGroups") return List(p.allow_groups);
  if (key == "AllowQos") return List(p.allow_qos);
  if (key == "Hidden") return YesNo(p.hidden);
  if (key == "RootOnly") return YesNo(p.root_only);
  if (key == "OverSubscribe") return p.oversubscribe;
  return "";
}

absl::StatusOr<PartitionUpdate> ApplyPartitionUpdate(
    const SkiffConfig& current, const SkiffConfig& file,
    const std::vector<PartitionOverride>& stored, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& settings) {
  PartitionUpdate out{current, stored};
  auto it = std::find_if(out.config.partitions.begin(), out.config.partitions.end(),
                         [&](const PartitionConfig& p) { return p.name == name; });
  if (it == out.config.partitions.end()) {
    return absl::NotFoundError("Invalid partition name specified");
  }
  const PartitionConfig* in_file = file.FindPartition(name);
  for (const auto& [typed, value] : settings) {
    absl::StatusOr<std::string> key = CanonicalPartitionKey(typed, absl::StrCat(typed, "=", value));
    if (!key.ok()) return key.status();
    if (absl::Status s = Set(out.config, *key, value, *it); !s.ok()) return s;
    if (*key == "Default" && it->is_default) KeepOneDefault(out.config, name);
    auto same = [&](const PartitionOverride& o) { return o.key == *key; };
    out.override.erase(std::remove_if(out.override.begin(), out.override.end(), same),
                       out.override.end());
    const std::string base = in_file != nullptr ? PartitionKeyText(*in_file, *key) : "";
    // Back to skiff.conf's own value: nothing left to override.
    if (in_file != nullptr && PartitionKeyText(*it, *key) == base) continue;
    out.override.push_back({*key, value, base});
  }
  const bool sets_default_time = std::any_of(settings.begin(), settings.end(), [](const auto& s) {
    return absl::EqualsIgnoreCase(s.first, "DefaultTime");
  });
  if (sets_default_time && it->default_time >= 0 && it->max_time >= 0 &&
      it->default_time > it->max_time) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid input: DefaultTime exceeds MaxTime of partition ", name));
  }
  if (it->max_nodes >= 0 && it->min_nodes > it->max_nodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid input: MinNodes exceeds MaxNodes of partition ", name));
  }
  return out;
}

SkiffConfig ApplyPartitionOverrides(SkiffConfig file, PartitionOverrides& overrides,
                                    std::vector<std::string>* notes) {
  for (auto entry = overrides.begin(); entry != overrides.end();) {
    const std::string& name = entry->first;
    auto it = std::find_if(file.partitions.begin(), file.partitions.end(),
                           [&](const PartitionConfig& p) { return p.name == name; });
    std::vector<PartitionOverride>& list = entry->second;
    if (it == file.partitions.end()) {
      if (notes != nullptr) {
        notes->push_back(absl::StrCat("PartitionName=", name,
                                      ": no longer in skiff.conf; its scontrol changes dropped"));
      }
      entry = overrides.erase(entry);
      continue;
    }
    for (auto o = list.begin(); o != list.end();) {
      const std::string now = PartitionKeyText(*it, o->key);
      absl::Status applied;
      if (now != o->base) {
        applied = absl::FailedPreconditionError("skiff.conf changed it; its value wins");
      } else {
        applied = Set(file, o->key, o->value, *it);
      }
      if (!applied.ok()) {
        if (notes != nullptr) {
          notes->push_back(absl::StrCat("PartitionName=", name, " ", o->key, "=", o->value,
                                        " (set by scontrol) dropped: ", applied.message()));
        }
        o = list.erase(o);
        continue;
      }
      if (o->key == "Default" && it->is_default) KeepOneDefault(file, name);
      ++o;
    }
    entry = list.empty() ? overrides.erase(entry) : std::next(entry);
  }
  return file;
}

std::string EncodePartitionOverrides(const std::vector<PartitionOverride>& overrides) {
  std::string out;
  for (const PartitionOverride& o : overrides) {
    absl::StrAppend(&out, o.key, "\t", o.value, "\t", o.base, "\n");
  }
  return out;
}

std::vector<PartitionOverride> DecodePartitionOverrides(const std::string& blob) {
  std::vector<PartitionOverride> out;
  for (absl::string_view line : absl::StrSplit(blob, '\n', absl::SkipEmpty())) {
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 3) continue;
    out.push_back({fields[0], fields[1], fields[2]});
  }
  return out;
}

}  // namespace skiff::ctld
