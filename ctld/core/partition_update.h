// Run-time changes to partitions (scontrol update PartitionName=X Key=Value...)
// and the overrides ctld stores so that a change survives a restart. Pure: no
// I/O, no locks; ctld stores and swaps what these functions return.
//
// Which wins when skiff.conf changes later: a stored override records, per
// key, the value scontrol set and the skiff.conf value it replaced (its base).
// At start and at reconfigure an override is applied only while skiff.conf
// still gives that key its base value. Once an admin edits that key in
// skiff.conf, the file is the newer word and wins: the override is dropped
// (and deleted from the database). Keys the admin did not touch in skiff.conf
// keep their run-time value across restarts and reconfigures. An override of
// a partition skiff.conf no longer defines is dropped too.
#ifndef SKIFF_CTLD_CORE_PARTITION_UPDATE_H_
#define SKIFF_CTLD_CORE_PARTITION_UPDATE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"

namespace skiff::ctld {

struct PartitionOverride {
  std::string key;    // canonical spelling ("MaxTime")
  std::string value;  // as scontrol gave it ("2:00:00")
  std::string base;   // PartitionKeyText of skiff.conf's value when it was set
};
// Partition name -> its overrides, in the order they were set.
using PartitionOverrides = std::map<std::string, std::vector<PartitionOverride>>;

// The keys scontrol update may change, in their canonical spelling: State,
// MaxTime, DefaultTime, Nodes, PriorityTier, PriorityJobFactor, MaxNodes,
// MinNodes, Default, AllowAccounts, AllowGroups, AllowQos, Hidden, RootOnly,
// OverSubscribe. Matching is case-insensitive.
// Error: InvalidArgument "Update of this parameter is not supported: <word>".
absl::StatusOr<std::string> CanonicalPartitionKey(const std::string& key, const std::string& word);

// `key`'s value in `partition` as text, comparable between two parses of
// skiff.conf ("UP", "3600", "n1,n2", "YES").
std::string PartitionKeyText(const PartitionConfig& partition, const std::string& key);

struct PartitionUpdate {
  SkiffConfig config;                       // `current` with the change made
  std::vector<PartitionOverride> override;  // the partition's overrides to store
};

// Applies `settings` ((key, value) pairs, keys as typed) to partition `name`
// of a copy of `current` (the configuration in force). `file` is skiff.conf as
// parsed (for the bases); `stored` the partition's stored overrides.
// Errors: NotFound "Invalid partition name specified"; InvalidArgument with
// Slurm's wording for a bad value ("Invalid input: MaxTime=abc"); NotFound
// "Invalid node name specified" for Nodes naming an undefined node.
absl::StatusOr<PartitionUpdate> ApplyPartitionUpdate(
    const SkiffConfig& current, const SkiffConfig& file,
    const std::vector<PartitionOverride>& stored, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& settings);

// Applies `overrides` over `file` (skiff.conf as parsed). Entries whose base
// no longer matches skiff.conf, whose partition is gone or whose value no
// longer applies (a node removed) are removed from `overrides`, each with a
// line in `notes` ("PartitionName=p MaxTime: skiff.conf changed it; its value
// wins over scontrol's 60").
SkiffConfig ApplyPartitionOverrides(SkiffConfig file, PartitionOverrides& overrides,
                                    std::vector<std::string>* notes);

// The database blob for one partition's overrides, and back. Decode skips
// lines it cannot read.
std::string EncodePartitionOverrides(const std::vector<PartitionOverride>& overrides);
std::vector<PartitionOverride> DecodePartitionOverrides(const std::string& blob);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_PARTITION_UPDATE_H_
