// skiff.conf's PartitionName lines: the key table and its value setters, and
// PreemptMode's setter, which the cluster-wide key shares.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/billing.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/config/skiff_conf_keys.h"
#include "common/hostlist.h"

namespace skiff {
namespace config_internal {

absl::Status SetPreemptMode(std::string_view value, std::string& out) {
  std::vector<std::string> parts = SplitList(value, ",");
  if (parts.empty()) {
    return Invalid("missing value (expected one of OFF, CANCEL, REQUEUE, SUSPEND)");
  }
  std::string mode;
  std::vector<std::string> modifiers;
  for (const std::string& part : parts) {
    std::string upper = ToUpper(part);
    std::string choice;
    absl::Status status =
        SetChoice(upper, {"OFF", "CANCEL", "REQUEUE", "SUSPEND", "GANG", "WITHIN"}, choice);
    if (!status.ok()) return Invalid(absl::StrCat(status.message(), " (in ", Quoted(value), ")"));
    if (choice == "GANG" || choice == "WITHIN") {
      modifiers.push_back(choice);
    } else if (mode.empty()) {
      mode = choice;
    } else {
      return Invalid(absl::StrCat(Quoted(value), " names two modes, ", mode, " and ", choice,
                                  " (choose one of OFF, CANCEL, REQUEUE, SUSPEND; GANG and "
                                  "WITHIN may be added)"));
    }
  }
  if (!mode.empty()) modifiers.insert(modifiers.begin(), mode);
  out = absl::StrJoin(modifiers, ",");
  return absl::OkStatus();
}

std::string PreemptModeBase(const std::string& stored) {
  std::string first = stored.substr(0, stored.find(','));
  return first == "GANG" || first == "WITHIN" || first.empty() ? "OFF" : first;
}

namespace {

// AllowAccounts=ALL and friends mean "no restriction", which the structs spell as
// an empty list.
absl::Status SetAllowList(std::string_view value, std::vector<std::string>& out) {
  if (EqualsIgnoreCase(value, "ALL")) {
    out.clear();
    return absl::OkStatus();
  }
  return SetList(value, out);
}

absl::Status SetPartitionNodes(std::string_view value, PartitionLine& p) {
  p.all_nodes = EqualsIgnoreCase(value, "ALL");
  p.partition.all_nodes = p.all_nodes;
  p.partition.nodes.clear();
  if (p.all_nodes || value.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<std::string>> names = ExpandHostlist(value);
  if (!names.ok()) return names.status();
  p.partition.nodes = *std::move(names);
  return absl::OkStatus();
}

// OverSubscribe=NO|EXCLUSIVE|YES[:N]|FORCE[:N].
absl::Status SetOverSubscribe(std::string_view value, std::string& out) {
  std::string upper = ToUpper(value);
  size_t colon = upper.find(':');
  std::string base = upper.substr(0, colon);
  std::string ignored;
  absl::Status status = SetChoice(base, {"NO", "YES", "EXCLUSIVE", "FORCE"}, ignored);
  if (!status.ok()) return Invalid(absl::StrCat(status.message(), " (in ", Quoted(value), ")"));
  if (colon != std::string::npos) {
    if (base != "YES" && base != "FORCE") {
      return Invalid(absl::StrCat(Quoted(value), ": only YES and FORCE take a job count"));
    }
    absl::StatusOr<int64_t> count = ParseInteger(upper.substr(colon + 1), 1, kMaxInt);
    if (!count.ok()) return count.status();
  }
  out = upper;
  return absl::OkStatus();
}

}  // namespace

const KeyTable<PartitionLine>& PartitionKeys() {
  using P = PartitionLine;
  static const auto* const kTable = new KeyTable<PartitionLine>{
      {
          {"PartitionName",
           [](std::string_view v, P& p) { return SetNonEmpty(v, p.partition.name); }},
          {"Nodes", SetPartitionNodes},
          {"Default", [](std::string_view v, P& p) { return SetBool(v, p.partition.is_default); }},
          {"MaxTime",
           [](std::string_view v, P& p) { return SetTimeLimit(v, true, p.partition.max_time); }},
          {"DefaultTime", [](std::string_view v,
                             P& p) { return SetTimeLimit(v, true, p.partition.default_time); }},
          {"State",
           [](std::string_view v, P& p) {
             return SetChoice(v, {"UP", "DOWN", "DRAIN", "INACTIVE"}, p.partition.state);
           }},
          {"PriorityTier",
           [](std::string_view v, P& p) { return SetInt(v, 0, 65533, p.partition.priority_tier); }},
          {"PriorityJobFactor",
           [](std::string_view v, P& p) {
             return SetInt(v, 0, 65533, p.partition.priority_job_factor);
           }},
          {"Priority",  // Slurm's old name: sets both.
           [](std::string_view v, P& p) {
             absl::Status status = SetInt(v, 0, 65533, p.partition.priority_tier);
             p.partition.priority_job_factor = p.partition.priority_tier;
             return status;
           }},
          {"MaxNodes",
           [](std::string_view v, P& p) {
             return SetIntOrUnlimited(v, 0, kMaxInt64, p.partition.max_nodes);
           }},
          {"MinNodes",
           [](std::string_view v, P& p) { return SetInt(v, 0, kMaxInt64, p.partition.min_nodes); }},
          {"AllowAccounts",
           [](std::string_view v, P& p) { return SetAllowList(v, p.partition.allow_accounts); }},
          {"AllowGroups",
           [](std::string_view v, P& p) { return SetAllowList(v, p.partition.allow_groups); }},
          {"AllowQos",
           [](std::string_view v, P& p) { return SetAllowList(v, p.partition.allow_qos); }},
          {"DenyAccounts",
           [](std::string_view v, P& p) { return SetList(v, p.partition.deny_accounts); }},
          {"DenyQos", [](std::string_view v, P& p) { return SetList(v, p.partition.deny_qos); }},
          {"QOS", [](std::string_view v, P& p) { return SetString(v, p.partition.qos); }},
          {"PreemptMode",
           [](std::string_view v, P& p) {
             p.preempt_mode_set = true;
             return SetPreemptMode(v, p.partition.preempt_mode);
           }},
          {"OverSubscribe",
           [](std::string_view v, P& p) { return SetOverSubscribe(v, p.partition.oversubscribe); }},
          {"TRESBillingWeights",
           [](std::string_view v, P& p) {
             absl::StatusOr<BillingWeights> weights = ParseBillingWeights(std::string(v));
             if (!weights.ok()) return weights.status();
             p.partition.tres_billing_weights = std::string(v);
             return absl::OkStatus();
           }},
          {"Shared",  // Slurm's old name for OverSubscribe.
           [](std::string_view v, P& p) { return SetOverSubscribe(v, p.partition.oversubscribe); }},
          {"GpuIdlePolicy",
           [](std::string_view v, P& p) {
             return SetGpuIdlePolicy(v, p.partition.gpu_idle_policy.emplace());
           }},
          {"GraceTime", [](std::string_view v,
                           P& p) { return SetInt(v, 0, kMaxUint32, p.partition.grace_time); }},
          {"DefMemPerCPU",
           [](std::string_view v, P& p) { return SetMiB(v, 0, p.partition.def_mem_per_cpu_mb); }},
          {"MaxMemPerCPU",
           [](std::string_view v, P& p) {
             if (config_internal::IsUnlimited(v)) {
               p.partition.max_mem_per_cpu_mb = 0;
               return absl::OkStatus();
             }
             return SetMiB(v, 0, p.partition.max_mem_per_cpu_mb);
           }},
          {"Hidden", [](std::string_view v, P& p) { return SetBool(v, p.partition.hidden); }},
          {"RootOnly", [](std::string_view v, P& p) { return SetBool(v, p.partition.root_only); }},
          {"DisableRootJobs",
           [](std::string_view v, P& p) { return SetBool(v, p.partition.disable_root_jobs); }},
      },
      {"AllocNodes",
       "Alternate",
       "CpuBind",
       "DefCpuPerGPU",
       "DefMemPerGPU",
       "DefMemPerNode",
       "MaxMemPerNode",
       "ExclusiveUser",
       "ExclusiveTopo",
       "LLN",
       "MaxCPUsPerNode",
       "MaxCPUsPerSocket",
       "OverTimeLimit",
       "PowerDownOnIdle",
       "ReqResv",
       "ResumeTimeout",
       "SelectTypeParameters",
       "SuspendTime",
       "SuspendTimeout",
       "NodeSets"},
      /*unsupported=*/{},
      /*strict=*/false,
  };
  return *kTable;
}

}  // namespace config_internal
}  // namespace skiff
