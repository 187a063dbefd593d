// Slurm's comma-list keys whose words change what the daemons do, parsed once
// when skiff.conf is read (config.cc) into typed structs, so that no reader
// parses a string again: SchedulerParameters, AccountingStorageEnforce,
// SlurmctldParameters and SlurmdParameters.
//
// Pure; the structs are plain values inside SkiffConfig.
#ifndef SKIFF_COMMON_CONFIG_PARAMETERS_H_
#define SKIFF_COMMON_CONFIG_PARAMETERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff {

// SchedulerParameters=key[=value],...: the keys Skiff acts on, as typed fields
// (a value out of range is refused, naming the key), and every key as written,
// for `scontrol show config`. Slurm's keys that Skiff does not act on
// (bf_continue, batch_sched_delay, ...) are accepted and kept there only.
struct SchedulerParameters {
  // The scheduler's passes (ctld/core/scheduler/scheduler.h); unset, its defaults.
  std::optional<int64_t> bf_interval;          // seconds between backfill passes, 1..10800
  bool backfill = true;                        // false with bf_interval=-1
  std::optional<int64_t> bf_max_job_test;      // jobs a backfill pass looks at
  std::optional<int64_t> default_queue_depth;  // jobs a main pass looks at
  std::optional<int64_t> sched_interval;       // seconds between full passes; 0 = each pass
  // A burst of events (submissions, ends) wakes the scheduler once, after this.
  int64_t sched_min_interval_us = 20000;
  // sbatch warns when a job would take more than this share (%) of what is left
  // of one of its budgets (GrpTRESMins); 0 = never. Skiff's own key.
  int64_t budget_warn_percent = 50;
  bool enable_user_top = false;               // users may `scontrol top` their own jobs
  int64_t max_script_size = 4 * 1024 * 1024;  // bytes, Slurm's default; at most 512 MiB

  std::map<std::string, std::string> as_written;  // every key; "" for a key without '='

  // The typed fields follow from the text.
  friend bool operator==(const SchedulerParameters& a, const SchedulerParameters& b) {
    return a.as_written == b.as_written;
  }
  friend bool operator!=(const SchedulerParameters& a, const SchedulerParameters& b) {
    return !(a == b);
  }
};

// SchedulerParameters' value. InvalidArgument names the entry and its range:
// "bf_interval=abc is not a whole number from 1 to 10800 or -1".
absl::StatusOr<SchedulerParameters> ParseSchedulerParameters(std::string_view value);

// SlurmctldParameters=key[=value],...: what ctld acts on, and every key as
// written (`scontrol show config`; Slurm's other keys are accepted and kept).
struct SlurmctldParameters {
  bool enable_configless = false;    // nodes and commands may fetch the config files
  bool allow_user_triggers = false;  // users may set triggers (strigger), not only operators
  int join_port = 0;                 // `skiff join`'s TLS port, 1..65535; 0: nodes do not join
  std::string join_munge_key;        // the key handed to joining nodes; "": StateSaveLocation's

  std::map<std::string, std::string> as_written;

  friend bool operator==(const SlurmctldParameters& a, const SlurmctldParameters& b) {
    return a.as_written == b.as_written;
  }
  friend bool operator!=(const SlurmctldParameters& a, const SlurmctldParameters& b) {
    return !(a == b);
  }
};

// SlurmctldParameters' value. InvalidArgument names the entry: a join_port
// that is no TCP port, or join_port without enable_configless (a node that
// joins has no skiff.conf of its own and fetches ctld's).
absl::StatusOr<SlurmctldParameters> ParseSlurmctldParameters(std::string_view value);

// One user's concurrent srun streams to one step manager, unless
// SlurmdParameters says otherwise: far more than a job runs steps at once, far
// fewer than the threads a node can spare.
inline constexpr int kDefaultMaxStepStreamsPerUser = 256;

// SlurmdParameters=key[=value],...: what noded (and ctld, for
// config_overrides) acts on, and every key as written.
struct SlurmdParameters {
  bool config_overrides = false;  // a node's registration wins over its NodeName line
  int max_step_streams_per_user = kDefaultMaxStepStreamsPerUser;  // 1..2048

  std::map<std::string, std::string> as_written;

  friend bool operator==(const SlurmdParameters& a, const SlurmdParameters& b) {
    return a.as_written == b.as_written;
  }
  friend bool operator!=(const SlurmdParameters& a, const SlurmdParameters& b) { return !(a == b); }
};

absl::StatusOr<SlurmdParameters> ParseSlurmdParameters(std::string_view value);

// AccountingStorageEnforce=associations,limits,qos,safe,...: what ctld checks
// against sacctmgr's associations, with Slurm's implications applied (limits,
// qos and safe imply associations; safe implies limits; all is every word but
// nojobs and nosteps).
struct Enforcement {
  bool associations = false;
  bool limits = false;
  bool qos = false;
  bool safe = false;
  // Accepted and shown; they decide things Skiff does not track per job.
  bool wckeys = false;
  bool nojobs = false;
  bool nosteps = false;

  bool Any() const { return associations || limits || qos || safe || wckeys || nojobs || nosteps; }
  friend bool operator==(const Enforcement& a, const Enforcement& b) {
    return a.associations == b.associations && a.limits == b.limits && a.qos == b.qos &&
           a.safe == b.safe && a.wckeys == b.wckeys && a.nojobs == b.nojobs &&
           a.nosteps == b.nosteps;
  }
};

// AccountingStorageEnforce's value, words in any case ("" and "none": nothing).
// InvalidArgument names an unknown word.
absl::StatusOr<Enforcement> ParseEnforcement(std::string_view value);

// As `scontrol show config` prints it: the words in Slurm's order, implied
// ones included ("associations,limits,safe"), or "none".
std::string EnforcementText(const Enforcement& enforcement);

// PrivateData=jobs,usage,...: what ordinary users see only of their own
// (operators see all). Skiff enforces these five of Slurm's words; Slurm's
// others (cloud, events, nodes, partitions) are refused rather than taken and
// ignored, so that no site believes them applied.
struct PrivateData {
  bool accounts = false;
  bool jobs = false;
  bool reservations = false;
  bool usage = false;
  bool users = false;
};

// PrivateData's value, words in any case. InvalidArgument names a word
// Skiff does not enforce, or one that is not Slurm's.
absl::StatusOr<PrivateData> ParsePrivateData(std::string_view value);

// As `scontrol show config` prints it: the words in Slurm's order
// (private_data_string), or "none".
std::string PrivateDataText(const PrivateData& private_data);

// GpuIdlePolicy=threshold=5,minutes=30,action=cancel,grace=10,exempt_qos=a:b
// (Skiff's own key, in skiff.conf and on a PartitionName line, which wins):
// a running job whose every GPU stayed under `threshold` percent for
// `minutes` is warned, and after `grace` more minutes (still idle) the action
// is taken: notify (the warning only), requeue or cancel. A job in an exempt
// QOS is never watched; "none" turns the policy off (a partition's "none"
// exempts the partition). Minutes may have decimals.
struct GpuIdlePolicy {
  enum class Action { kNotify, kRequeue, kCancel };
  bool enabled = false;
  int threshold_percent = 5;
  int64_t window_seconds = 30 * 60;
  Action action = Action::kNotify;
  int64_t grace_seconds = 10 * 60;
  std::vector<std::string> exempt_qos;
  std::string as_written;  // for `scontrol show config`
};

// InvalidArgument names the word: an unknown key, a threshold outside 1..100,
// minutes not above 0, grace below 0, an action not notify|requeue|cancel.
absl::StatusOr<GpuIdlePolicy> ParseGpuIdlePolicy(std::string_view value);
// The same into `out` (unchanged on an error), for the key's setters.
absl::Status SetGpuIdlePolicy(std::string_view value, GpuIdlePolicy& out);
// "notify", "requeue", "cancel".
const char* GpuIdleActionName(GpuIdlePolicy::Action action);

}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_PARAMETERS_H_
