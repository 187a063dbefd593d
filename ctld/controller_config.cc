// Configuration at run time: scontrol update PartitionName=..., scontrol
// reconfigure, and the stored partition overrides at start. Decide outside or
// under the lock, store, then swap under mu_ (InstallConfig); see the ownership
// note on config_ in controller.h.
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/users.h"
#include "ctld/controller.h"
#include "ctld/core/config_change.h"
#include "ctld/core/dynamic_nodes.h"

namespace skiff::ctld {
namespace {

constexpr char kPartitionKind[] = "partition_override";

}  // namespace

absl::Status Controller::RecoverPartitions() {
  absl::StatusOr<std::map<std::string, std::string>> rows = store_.LoadRecords(kPartitionKind);
  if (!rows.ok()) return rows.status();
  absl::MutexLock serial(&commit_mu_);
  PartitionOverrides overrides;
  for (const auto& [name, blob] : *rows) overrides[name] = DecodePartitionOverrides(blob);
  if (overrides.empty()) return absl::OkStatus();
  const PartitionOverrides before = overrides;
  std::vector<std::string> notes;
  auto config = std::make_shared<const SkiffConfig>(
      ApplyPartitionOverrides(*file_config_, overrides, &notes));
  // Forget what skiff.conf has since overruled, so it stays overruled.
  std::vector<RecordRow> changed;
  for (const auto& [name, list] : before) {
    auto now = overrides.find(name);
    const std::string blob = now == overrides.end() ? "" : EncodePartitionOverrides(now->second);
    if (blob == EncodePartitionOverrides(list)) continue;
    changed.push_back({kPartitionKind, name, blob});
  }
  if (!changed.empty()) {
    if (absl::Status s = store_.Save({}, std::move(changed)); !s.ok()) return s;
  }
  for (const std::string& note : notes) logger_.warn("{}", note);
  for (const auto& [name, list] : overrides) {
    for (const PartitionOverride& o : list) {
      logger_.info("PartitionName={} {}={} (set by scontrol, over skiff.conf's {})", name, o.key,
                   o.value, o.base);
    }
  }
  partition_overrides_ = std::move(overrides);
  InstallConfig(std::move(config), nullptr);
  return absl::OkStatus();
}

absl::Status Controller::UpdatePartition(
    const Caller& caller, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& settings) {
  if (!IsPrivileged(caller.uid)) return absl::PermissionDeniedError("Access/permission denied");
  absl::MutexLock serial(&commit_mu_);
  std::vector<PartitionOverride> stored;
  if (auto it = partition_overrides_.find(name); it != partition_overrides_.end()) {
    stored = it->second;
  }
  absl::StatusOr<PartitionUpdate> update =
      ApplyPartitionUpdate(*config(), *file_config_, stored, name, settings);
  if (!update.ok()) return update.status();
  // An acknowledgement means stored: the override first, then the swap.
  if (absl::Status s =
          store_.Save({}, {{kPartitionKind, name, EncodePartitionOverrides(update->override)}});
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("ctld could not store the change: ", s.message()));
  }
  if (update->override.empty()) {
    partition_overrides_.erase(name);
  } else {
    partition_overrides_[name] = update->override;
  }
  InstallConfig(std::make_shared<const SkiffConfig>(std::move(update->config)), nullptr);
  std::vector<std::string> words;
  for (const auto& [key, value] : settings) words.push_back(absl::StrCat(key, "=", value));
  logger_.info("PartitionName={} updated by uid {}: {}", name, caller.uid,
               absl::StrJoin(words, " "));
  RequestSchedule();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> Controller::Reconfigure(const Caller& caller) {
  if (!IsPrivileged(caller.uid)) return absl::PermissionDeniedError("Access/permission denied");
  if (!load_config_) return absl::UnimplementedError("reconfigure is not available");
  // Parse outside every lock: a slow or broken file holds nothing up.
  absl::StatusOr<LoadedConfig> loaded = load_config_();
  if (!loaded.ok()) {
    logger_.error("reconfigure refused: {}", std::string(loaded.status().message()));
    return absl::InvalidArgumentError(loaded.status().message());
  }
  absl::StatusOr<std::vector<std::string>> notes = SwapConfig(caller, *loaded);
  if (!notes.ok()) return notes;
  reconfigured_ = true;  // strigger --reconfig (Slurm's trigger_reconfig)
  // After commit_mu_ is released: PollBbPools takes it.
  if (bb_ != nullptr) PollBbPools();
  RequestSchedule();
  return notes;
}

absl::StatusOr<std::vector<std::string>> Controller::SwapConfig(const Caller& caller,
                                                                const LoadedConfig& loaded) {
  absl::MutexLock serial(&commit_mu_);
  std::shared_ptr<const SkiffConfig> running = config();
  std::set<std::string> busy;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, job] : core_.state().jobs()) {
      if (!IsFinal(job.state)) busy.insert(job.request.partition);
    }
  }
  // Nodes that joined stay (skiff.conf does not name them).
  std::vector<std::string> joined_notes;
  SkiffConfig next = WithDynamicNodes(loaded.skiff, joined_nodes_, &joined_notes);
  ConfigChange change = PrepareReconfigure(*file_config_, next, busy);
  if (!change.refused.ok()) {
    logger_.error("reconfigure refused: {}", std::string(change.refused.message()));
    return change.refused;
  }
  std::vector<std::string> notes = change.notes;
  notes.insert(notes.end(), joined_notes.begin(), joined_notes.end());
  PartitionOverrides overrides = partition_overrides_;
  const PartitionOverrides before = overrides;
  SkiffConfig in_force = ApplyPartitionOverrides(next, overrides, &notes);
  // Partitions that an override brings back may not lose a job either.
  for (const std::string& name : busy) {
    if (running->FindPartition(name) != nullptr && in_force.FindPartition(name) == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PartitionName=", name, " removed while jobs are in it; nothing was reconfigured"));
    }
  }
  // burst_buffer.conf and the script: loaded (and checked) before anything
  // is swapped; a script that does not load refuses the whole reconfigure.
  std::shared_ptr<const BurstBufferConfig> bb;
  if (bb_ != nullptr) {
    BurstBufferConfig bb_conf = loaded.burst_buffer.value_or(BurstBufferConfig{});
    if (absl::Status s = CheckBurstBufferUsers(
            bb_conf, [](const std::string& user) { return UidOf(user).has_value(); });
        !s.ok()) {
      logger_.error("reconfigure refused: {}", std::string(s.message()));
      return s;
    }
    if (absl::Status s = bb_->Reload(bb_conf); !s.ok()) {
      logger_.error("reconfigure refused: {}", std::string(s.message()));
      return absl::InvalidArgumentError(s.message());
    }
    bb = std::make_shared<const BurstBufferConfig>(std::move(bb_conf));
  }
  std::vector<RecordRow> rows;
  for (const auto& [name, list] : before) {
    auto now = overrides.find(name);
    const std::string blob = now == overrides.end() ? "" : EncodePartitionOverrides(now->second);
    if (blob == EncodePartitionOverrides(list)) continue;
    rows.push_back({kPartitionKind, name, blob});
  }
  if (!rows.empty()) {
    if (absl::Status s = store_.Save({}, std::move(rows)); !s.ok()) return s;
  }
  partition_overrides_ = std::move(overrides);
  file_config_ = std::make_shared<const SkiffConfig>(std::move(next));
  InstallConfig(std::make_shared<const SkiffConfig>(std::move(in_force)), std::move(bb));
  for (const std::string& warning : loaded.warnings) logger_.warn("{}", warning);
  for (const std::string& note : notes) logger_.warn("reconfigure: {}", note);
  logger_.info("reconfigured from {} by uid {}", conf_path_, caller.uid);
  return notes;
}

}  // namespace skiff::ctld
