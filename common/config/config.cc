#include "common/config/config.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/billing.h"
#include "common/config/kv_parser.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/time_format.h"

namespace skiff {

using config_internal::AsAbsl;
using config_internal::EqualsIgnoreCase;

namespace {

using config_internal::ApplyPairs;
using config_internal::Expand;
using config_internal::Invalid;
using config_internal::KeyTable;
using config_internal::kMaxInt;
using config_internal::kMaxInt64;
using config_internal::kMaxSlurm16;
using config_internal::kMaxUint16;
using config_internal::kMaxUint32;
using config_internal::LineError;
using config_internal::LineWarning;
using config_internal::LogicalLine;
using config_internal::PairContext;
using config_internal::ParseInteger;
using config_internal::Quoted;
using config_internal::SetAbsolutePath;
using config_internal::SetBool;
using config_internal::SetChoice;
using config_internal::SetInt;
using config_internal::SetIntOrUnlimited;
using config_internal::SetList;
using config_internal::SetMiB;
using config_internal::SetNonEmpty;
using config_internal::SetString;
using config_internal::SetTimeLimit;
using config_internal::SplitList;
using config_internal::ToUpper;
using config_internal::WrittenKey;

// PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000: a weight per TRES, names
// without case, as Slurm takes them. Skiff's priority counts cpu, mem, node and
// gres/gpu; another name is refused rather than silently weighing nothing.
absl::Status SetTresWeights(std::string_view value, std::string& written,
                            std::map<std::string, int64_t>& weights) {
  std::map<std::string, int64_t> parsed;
  for (const std::string& item : SplitList(value, ",")) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", item, "' is not TRES=weight (e.g. GRES/gpu=3000)"));
    }
    std::string name = absl::AsciiStrToLower(item.substr(0, eq));
    if (name != "cpu" && name != "mem" && name != "node" && name != "gres/gpu") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown TRES '", item.substr(0, eq), "' (Skiff weighs CPU, Mem, Node and GRES/gpu)"));
    }
    absl::StatusOr<int64_t> weight =
        ParseInteger(std::string_view(item).substr(eq + 1), 0, kMaxUint32);
    if (!weight.ok()) return weight.status();
    parsed[name] = *weight;
  }
  written = std::string(value);
  weights = std::move(parsed);
  return absl::OkStatus();
}

// Generous upper bounds that still keep Sockets * CoresPerSocket * ThreadsPerCore
// inside an int.
constexpr int64_t kMaxSockets = 1024;
constexpr int64_t kMaxCoresPerSocket = 4096;
constexpr int64_t kMaxThreadsPerCore = 64;
// More nodes than any real cluster; stops "NodeName=n[1-9999999]" eating memory.
constexpr size_t kMaxNodes = 1 << 18;
// Slurm refuses larger arrays ("MaxArraySize value (%u) is greater than 4000001").
constexpr int64_t kMaxArraySize = 4000001;
// Slurm warns above this: "MessageTimeout is too high for effective fault-tolerance".
constexpr int64_t kMessageTimeoutWarnAbove = 100;

// ---------------------------------------------------------------------------
// Value setters shared by the skiff.conf key tables (the generic ones are in
// kv_parser.h). Each returns only <what>.

// HealthCheckNodeState: a comma list of Slurm's states, kept upper case.
absl::Status SetHealthCheckNodeState(std::string_view value, SkiffConfig& config) {
  static const char* const kKnown[] = {"ALLOC", "ANY", "CYCLE", "IDLE", "MIXED", "NONDRAINED_IDLE"};
  std::vector<std::string> items = SplitList(value, ",");
  if (items.empty())
    return Invalid("is empty (use ANY, IDLE, ALLOC, MIXED, NONDRAINED_IDLE, CYCLE)");
  for (std::string& item : items) {
    item = ToUpper(item);
    if (std::find(std::begin(kKnown), std::end(kKnown), item) == std::end(kKnown)) {
      return Invalid(absl::StrCat(
          Quoted(item), " is not one of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE"));
    }
  }
  config.health_check_node_state = absl::StrJoin(items, ",");
  return absl::OkStatus();
}

// PrivateData=jobs,usage,...: what users see only of their own. Each value
// Skiff takes it enforces (ctld/rpc/private_data.h, services.cc); Slurm's
// others (cloud, events, nodes, partitions) are refused rather than taken and
// ignored, so that no site believes them applied.
absl::Status SetPrivateData(std::string_view value, std::vector<std::string>& out) {
  static const char* const kEnforced[] = {"accounts", "jobs", "reservations", "usage", "users"};
  static const char* const kNotEnforced[] = {"cloud", "events", "nodes", "partitions"};
  std::vector<std::string> items = SplitList(value, ",");
  for (std::string& item : items) {
    item = absl::AsciiStrToLower(item);
    if (std::find(std::begin(kEnforced), std::end(kEnforced), item) != std::end(kEnforced)) {
      continue;
    }
    if (std::find(std::begin(kNotEnforced), std::end(kNotEnforced), item) !=
        std::end(kNotEnforced)) {
      return Invalid(absl::StrCat(Quoted(item),
                                  " is Slurm's but not enforced by Skiff (it enforces accounts, "
                                  "jobs, reservations, usage and users)"));
    }
    return Invalid(
        absl::StrCat(Quoted(item), " is not one of accounts, jobs, reservations, usage, users"));
  }
  out = std::move(items);
  return absl::OkStatus();
}

// AccountingStorageEnforce=associations,limits,qos,safe (and Slurm's other
// words, accepted); "none" and "" enforce nothing.
// AllowAccounts=ALL and friends mean "no restriction", which the structs spell as
// an empty list.
absl::Status SetAllowList(std::string_view value, std::vector<std::string>& out) {
  if (EqualsIgnoreCase(value, "ALL")) {
    out.clear();
    return absl::OkStatus();
  }
  return SetList(value, out);
}

// PreemptMode is one mode (OFF, CANCEL, REQUEUE, SUSPEND) plus optional GANG and
// WITHIN: "SUSPEND,GANG" is valid Slurm, "CANCEL,REQUEUE" is not. The mode is
// stored first ("GANG,REQUEUE" becomes "REQUEUE,GANG") because readers take the
// first component as the mode.
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

// The mode part of a stored PreemptMode: "REQUEUE" for "REQUEUE,GANG", "OFF" for
// "GANG" alone.
std::string PreemptModeBase(const std::string& stored) {
  std::string first = stored.substr(0, stored.find(','));
  return first == "GANG" || first == "WITHIN" || first.empty() ? "OFF" : first;
}

absl::Status SetDebugLevel(std::string_view value, std::string& out) {
  return SetChoice(value,
                   {"quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3",
                    "debug4", "debug5"},
                   out);
}

// ---------------------------------------------------------------------------
// skiff.conf: NodeName lines.

// One NodeName line before it is expanded into nodes. NodeName=DEFAULT lines
// build the template every later line starts from.
struct NodeLine {
  NodeConfig node;
  std::string names;      // NodeName= as written
  std::string addrs;      // NodeAddr= as written, "" = the names
  std::string hostnames;  // NodeHostname= as written, "" = the names
  bool cpus_set = false;  // else CPUs = Sockets * CoresPerSocket * ThreadsPerCore
};

// "gpu", "gpu:2", "gpu:a100", "gpu:a100:4", with Slurm's optional "no_consume"
// part and "(S:0-1)" socket binding, which Skiff does not use.
absl::StatusOr<GresCount> ParseOneGres(std::string_view text) {
  std::string_view spec = text.substr(0, text.find('('));
  std::vector<std::string> parts;
  for (std::string& part : SplitList(spec, ":")) {
    if (!EqualsIgnoreCase(part, "no_consume")) parts.push_back(std::move(part));
  }
  if (parts.empty() || parts.size() > 3 || spec.empty() || spec.front() == ':') {
    return Invalid(absl::StrCat(Quoted(text), " is not NAME[:TYPE][:COUNT]"));
  }
  GresCount gres;
  gres.name = parts[0];
  if (parts.size() >= 2) {
    absl::StatusOr<int64_t> count = ParseInteger(parts.back(), 0, kMaxInt64);
    bool numeric_tail =
        count.ok() || parts.back().find_first_not_of("0123456789-") == std::string::npos;
    if (parts.size() == 3 || numeric_tail) {
      if (!count.ok()) {
        return Invalid(absl::StrCat(count.status().message(), " in ", Quoted(text)));
      }
      gres.count = *count;
      parts.pop_back();
    }
    if (parts.size() == 2) gres.type = parts[1];
  }
  return gres;
}

// Splits on commas outside parentheses: "gpu:2(S:0,1),mps:100".
std::vector<std::string_view> SplitGresList(std::string_view value) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || (value[i] == ',' && depth == 0)) {
      std::string_view item = config_internal::Trim(value.substr(start, i - start));
      if (!item.empty()) items.push_back(item);
      start = i + 1;
    } else if (value[i] == '(') {
      ++depth;
    } else if (value[i] == ')' && depth > 0) {
      --depth;
    }
  }
  return items;
}

absl::Status SetGres(std::string_view value, std::vector<GresCount>& out) {
  out.clear();
  for (std::string_view item : SplitGresList(value)) {
    absl::StatusOr<GresCount> gres = ParseOneGres(item);
    if (!gres.ok()) return gres.status();
    out.push_back(*std::move(gres));
  }
  return absl::OkStatus();
}

const KeyTable<NodeLine>& NodeKeys() {
  using N = NodeLine;
  static const auto* const kTable = new KeyTable<NodeLine>{
      {
          {"NodeName", [](std::string_view v, N& n) { return SetNonEmpty(v, n.names); }},
          {"NodeAddr", [](std::string_view v, N& n) { return SetNonEmpty(v, n.addrs); }},
          {"NodeHostname", [](std::string_view v, N& n) { return SetNonEmpty(v, n.hostnames); }},
          {"Port", [](std::string_view v, N& n) { return SetInt(v, 1, 65535, n.node.port); }},
          {"CPUs",
           [](std::string_view v, N& n) {
             n.cpus_set = true;
             return SetInt(v, 1, kMaxInt, n.node.cpus);
           }},
          {"Procs",  // Slurm's old name for CPUs.
           [](std::string_view v, N& n) {
             n.cpus_set = true;
             return SetInt(v, 1, kMaxInt, n.node.cpus);
           }},
          {"Sockets",
           [](std::string_view v, N& n) { return SetInt(v, 1, kMaxSockets, n.node.sockets); }},
          {"CoresPerSocket",
           [](std::string_view v, N& n) {
             return SetInt(v, 1, kMaxCoresPerSocket, n.node.cores_per_socket);
           }},
          {"ThreadsPerCore",
           [](std::string_view v, N& n) {
             return SetInt(v, 1, kMaxThreadsPerCore, n.node.threads_per_core);
           }},
          {"RealMemory",
           [](std::string_view v, N& n) { return SetMiB(v, 1, n.node.real_memory_mb); }},
          {"TmpDisk", [](std::string_view v, N& n) { return SetMiB(v, 0, n.node.tmp_disk_mb); }},
          {"Weight", [](std::string_view v, N& n) { return SetInt(v, 0, kMaxInt, n.node.weight); }},
          {"Gres", [](std::string_view v, N& n) { return SetGres(v, n.node.gres); }},
          {"Features", [](std::string_view v, N& n) { return SetList(v, n.node.features); }},
          {"Feature", [](std::string_view v, N& n) { return SetList(v, n.node.features); }},
          {"State",
           [](std::string_view v, N& n) {
             return SetChoice(v, {"UNKNOWN", "IDLE", "DOWN", "DRAIN", "FUTURE", "CLOUD"},
                              n.node.state);
           }},
          {"Reason", [](std::string_view v, N& n) { return SetString(v, n.node.reason); }},
      },
      {"Boards", "SocketsPerBoard", "CoreSpecCount", "CpuSpecList", "MemSpecLimit", "CpuBind",
       "BcastAddr", "TRESWeights", "Extra", "Parameters"},
      /*unsupported=*/{},
      /*strict=*/false,
  };
  return *kTable;
}

// ---------------------------------------------------------------------------
// skiff.conf: PartitionName lines.

struct PartitionLine {
  PartitionConfig partition;
  bool all_nodes = false;         // Nodes=ALL, resolved once every node is known
  bool preempt_mode_set = false;  // else the cluster's PreemptMode applies
};

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

// ---------------------------------------------------------------------------
// skiff.conf: global keys.

struct GlobalState {
  SkiffConfig& config;
  std::vector<std::string>& warnings;
  const LogicalLine* line = nullptr;  // the line being applied, for warnings
  // Canonical key -> the last line that set it, for errors that weigh one key
  // against another once the whole file is read.
  std::map<std::string, const LogicalLine*> key_lines{};
  bool ctld_host_set = false;
  // Cluster-wide defaults for partitions that do not set their own.
  uint64_t def_mem_per_cpu_mb = 0;
  uint64_t max_mem_per_cpu_mb = 0;
};

// SlurmctldHost=name(addr) or SlurmctldHost=name. Slurm lists backup controllers
// on further SlurmctldHost lines; Skiff runs one controller and says so.
absl::Status SetCtldHost(std::string_view value, GlobalState& g) {
  std::string_view name = value;
  std::string_view addr;
  size_t open = value.find('(');
  if (open != std::string_view::npos) {
    if (value.back() != ')' || value.find_first_of("()", open + 1) != value.size() - 1) {
      return Invalid(absl::StrCat(Quoted(value), " is not NAME or NAME(ADDRESS)"));
    }
    name = value.substr(0, open);
    addr = value.substr(open + 1, value.size() - open - 2);
    if (addr.empty()) return Invalid(absl::StrCat(Quoted(value), " has an empty address"));
  }
  if (name.empty()) return Invalid(absl::StrCat(Quoted(value), " has no host name"));
  if (g.ctld_host_set) {
    g.warnings.push_back(absl::StrCat(g.line->file, ":", g.line->line,
                                      ": SlurmctldHost: ", "backup controller ", Quoted(value),
                                      " ignored (Skiff runs one controller)"));
    return absl::OkStatus();
  }
  g.ctld_host_set = true;
  g.config.ctld_host = std::string(name);
  if (!addr.empty()) g.config.ctld_addr = std::string(addr);
  return absl::OkStatus();
}

// A program scriptd runs: empty for none, else absolute, since scriptd starts it
// with / as its working directory.
absl::Status SetScriptPath(std::string_view value, std::string& out) {
  if (value.empty()) return SetString(value, out);
  return SetAbsolutePath(value, out);
}

// A file a daemon writes or runs, empty for none (a log file: stderr). Slurm's
// man page wants these "fully qualified": a relative one would resolve against
// whatever directory the daemon happened to start in.
absl::Status SetOptionalPath(std::string_view value, std::string& out) {
  return SetScriptPath(value, out);
}

absl::Status SetMessageTimeout(std::string_view value, GlobalState& g) {
  absl::Status status = SetInt(value, 1, kMaxUint16, g.config.message_timeout);
  if (status.ok() && g.config.message_timeout > kMessageTimeoutWarnAbove) {
    g.warnings.push_back(LineWarning(
        *g.line, "MessageTimeout",
        absl::StrCat(g.config.message_timeout, " is too high for effective fault-tolerance (",
                     "Slurm suggests at most ", kMessageTimeoutWarnAbove, ")")));
  }
  return status;
}

absl::Status SetSchedulerParameters(std::string_view value, GlobalState& g) {
  absl::StatusOr<SchedulerParameters> parameters = ParseSchedulerParameters(value);
  if (!parameters.ok()) return parameters.status();
  g.config.scheduler_parameters = *std::move(parameters);
  return absl::OkStatus();
}

// AuthAltTypes=auth/jwt: Slurm's only other type, auth/none, is refused.
absl::Status SetAuthAltTypes(std::string_view value, GlobalState& g) {
  std::vector<std::string> types;
  if (absl::Status s = SetList(value, types); !s.ok()) return s;
  for (const std::string& type : types) {
    if (type != "auth/jwt") {
      return absl::InvalidArgumentError(
          absl::StrCat("'", type, "' is not supported; auth/jwt is the one alternative type"));
    }
  }
  g.config.auth_jwt = !types.empty();
  return absl::OkStatus();
}

// AuthAltParameters=jwt_key=PATH,max_token_lifespan=N,disable_token_creation:
// Slurm's options for auth/jwt (jwks= is for RS256 keys, not supported).
absl::Status SetAuthAltParameters(std::string_view value, GlobalState& g) {
  for (const std::string& item : SplitList(value, ",")) {
    const size_t equals = item.find('=');
    const std::string name = item.substr(0, equals);
    const std::string setting = equals == std::string::npos ? "" : item.substr(equals + 1);
    if (EqualsIgnoreCase(name, "jwt_key")) {
      if (absl::Status s = SetAbsolutePath(setting, g.config.jwt_key); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("jwt_key: ", s.message()));
      }
    } else if (EqualsIgnoreCase(name, "max_token_lifespan")) {
      absl::StatusOr<int64_t> seconds = ParseInteger(setting, 1, kMaxInt);
      if (!seconds.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("max_token_lifespan: '", setting, "' is not a number of seconds"));
      }
      g.config.max_token_lifespan = *seconds;
    } else if (EqualsIgnoreCase(name, "disable_token_creation")) {
      g.config.disable_token_creation = true;
    } else {
      g.warnings.push_back(LineWarning(*g.line, "AuthAltParameters",
                                       absl::StrCat("'", item, "' is not supported; ignored")));
    }
  }
  return absl::OkStatus();
}

// AuthInfo=socket=/run/munge/munge.socket.2[,ttl=...]: only socket= matters here.
absl::Status SetAuthInfo(std::string_view value, GlobalState& g) {
  for (const std::string& item : SplitList(value, ",")) {
    size_t equals = item.find('=');
    if (equals != std::string::npos && EqualsIgnoreCase(item.substr(0, equals), "socket")) {
      g.config.auth_socket = item.substr(equals + 1);
    }
  }
  return absl::OkStatus();
}

const KeyTable<GlobalState>& GlobalKeys() {
  using G = GlobalState;
  static const auto* const kTable = new KeyTable<GlobalState>{
      {
          {"ClusterName",
           [](std::string_view v, G& g) { return SetNonEmpty(v, g.config.cluster_name); }},
          {"SlurmctldHost", SetCtldHost},
          {"ControlMachine", SetCtldHost},  // Slurm's old name
          {"SlurmctldAddr",
           [](std::string_view v, G& g) {
             absl::Status s = SetNonEmpty(v, g.config.slurmctld_addr);
             if (s.ok()) g.config.ctld_addr = g.config.slurmctld_addr;
             return s;
           }},
          {"ControlAddr",
           [](std::string_view v, G& g) { return SetNonEmpty(v, g.config.ctld_addr); }},
          {"SlurmctldPort",
           [](std::string_view v, G& g) { return SetInt(v, 1, 65535, g.config.ctld_port); }},
          {"SlurmdPort",
           [](std::string_view v, G& g) { return SetInt(v, 1, 65535, g.config.slurmd_port); }},
          {"SlurmUser",
           [](std::string_view v, G& g) { return SetNonEmpty(v, g.config.slurm_user); }},
          {"SkiffOperators",
           [](std::string_view v, G& g) { return SetList(v, g.config.operators); }},
          {"StateSaveLocation",
           [](std::string_view v, G& g) {
             return SetAbsolutePath(v, g.config.state_save_location);
           }},
          {"AuthAltTypes", SetAuthAltTypes},
          {"AuthAltParameters", SetAuthAltParameters},
          {"SlurmdSpoolDir",
           [](std::string_view v, G& g) { return SetAbsolutePath(v, g.config.slurmd_spool_dir); }},
          {"ContainerImageCache",
           [](std::string_view v, G& g) {
             return SetAbsolutePath(v, g.config.container_image_cache);
           }},
          {"ContainerImageCacheSize",
           [](std::string_view v, G& g) {
             absl::StatusOr<uint64_t> bytes = ParseSize(v, kMiB);
             if (!bytes.ok()) return bytes.status();
             g.config.container_image_cache_bytes = *bytes;
             return absl::OkStatus();
           }},
          {"ContainerRegistryMirror",
           [](std::string_view v, G& g) {
             return SetNonEmpty(v, g.config.container_registry_mirror);
           }},
          {"SlurmctldLogFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.ctld_log_file); }},
          {"SlurmctldDebug",
           [](std::string_view v, G& g) { return SetDebugLevel(v, g.config.ctld_debug); }},
          {"SlurmdLogFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.slurmd_log_file); }},
          {"SlurmdDebug",
           [](std::string_view v, G& g) { return SetDebugLevel(v, g.config.slurmd_debug); }},
          {"SlurmctldPidFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.ctld_pid_file); }},
          {"SlurmdPidFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.slurmd_pid_file); }},
          {"ScriptdSocket",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.scriptd_socket); }},
          // 0 is Slurm's "never mark nodes DOWN", refused in CheckNodeTimeouts.
          {"SlurmdTimeout",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxSlurm16, g.config.slurmd_timeout);
           }},
          {"HeartbeatInterval",
           [](std::string_view v, G& g) {
             return SetInt(v, 1, kMaxSlurm16, g.config.heartbeat_interval);
           }},
          {"KillWait",
           [](std::string_view v, G& g) { return SetInt(v, 0, kMaxSlurm16, g.config.kill_wait); }},
          {"MessageTimeout", SetMessageTimeout},
          {"PrologSlurmctld",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.prolog_ctld); }},
          {"PrologCtld",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.prolog_ctld); }},
          {"EpilogSlurmctld",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.epilog_ctld); }},
          {"MailProg",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.mail_prog); }},
          {"EpilogCtld",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.epilog_ctld); }},
          // noded's node scripts (noded/node_scripts.h): Prolog and Epilog as
          // root around each batch job, TaskProlog and TaskEpilog as the user.
          {"Prolog", [](std::string_view v, G& g) { return SetScriptPath(v, g.config.prolog); }},
          {"Epilog", [](std::string_view v, G& g) { return SetScriptPath(v, g.config.epilog); }},
          {"TaskProlog",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.task_prolog); }},
          {"TaskEpilog",
           [](std::string_view v, G& g) { return SetScriptPath(v, g.config.task_epilog); }},
          {"PrologEpilogTimeout",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint16, g.config.prolog_epilog_timeout);
           }},
          {"AuthType", [](std::string_view v,
                          G& g) { return SetChoice(v, {"auth/munge"}, g.config.auth_type); }},
          {"AuthInfo", SetAuthInfo},
          // Slurm's default is proctrack/cgroup; Skiff's stays process groups so that a
          // cluster without cgroup.conf keeps its behaviour (noded/cgroup/).
          {"ProctrackType",
           [](std::string_view v, G& g) {
             return SetChoice(v,
                              {"proctrack/pgid", "proctrack/linuxproc", "proctrack/cgroup",
                               "proctrack/cray_aries"},
                              g.config.proctrack_type);
           }},
          // A comma list (task/affinity,task/cgroup); only task/cgroup changes anything.
          {"TaskPlugin",
           [](std::string_view v, G& g) { return SetString(v, g.config.task_plugin); }},
          {"HealthCheckProgram",
           [](std::string_view v, G& g) {
             return SetOptionalPath(v, g.config.health_check_program);
           }},
          {"HealthCheckInterval",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxInt64, g.config.health_check_interval);
           }},
          {"HealthCheckNodeState",
           [](std::string_view v, G& g) { return SetHealthCheckNodeState(v, g.config); }},
          {"BurstBufferType",
           [](std::string_view v, G& g) {
             if (v.empty()) return SetString(v, g.config.burst_buffer_type);
             return SetChoice(v, {"burst_buffer/lua"}, g.config.burst_buffer_type);
           }},
          {"GresTypes", [](std::string_view v, G& g) { return SetList(v, g.config.gres_types); }},
          {"SchedulerParameters", SetSchedulerParameters},
          {"SlurmctldParameters",
           [](std::string_view v, G& g) {
             absl::StatusOr<SlurmctldParameters> p = ParseSlurmctldParameters(v);
             if (!p.ok()) return p.status();
             g.config.slurmctld_parameters = *std::move(p);
             return absl::OkStatus();
           }},
          {"SlurmdParameters",
           [](std::string_view v, G& g) {
             absl::StatusOr<SlurmdParameters> p = ParseSlurmdParameters(v);
             if (!p.ok()) return p.status();
             g.config.slurmd_parameters = *std::move(p);
             return absl::OkStatus();
           }},
          {"PreemptType",
           [](std::string_view v, G& g) {
             return SetChoice(v, {"preempt/none", "preempt/partition_prio", "preempt/qos"},
                              g.config.preempt_type);
           }},
          {"PreemptMode",
           [](std::string_view v, G& g) { return SetPreemptMode(v, g.config.preempt_mode); }},
          {"PriorityType",
           [](std::string_view v, G& g) {
             return SetChoice(v, {"priority/multifactor", "priority/basic"},
                              g.config.priority_type);
           }},
          {"PriorityDecayHalfLife",
           [](std::string_view v, G& g) {
             return SetTimeLimit(v, false, g.config.priority_decay_half_life);
           }},
          {"PriorityMaxAge",
           [](std::string_view v, G& g) {
             return SetTimeLimit(v, false, g.config.priority_max_age);
           }},
          {"PriorityWeightAge",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint32, g.config.priority_weight_age);
           }},
          {"PriorityWeightFairshare",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint32, g.config.priority_weight_fairshare);
           }},
          {"PriorityWeightJobSize",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint32, g.config.priority_weight_job_size);
           }},
          {"PriorityWeightPartition",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint32, g.config.priority_weight_partition);
           }},
          {"PriorityWeightQOS",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxUint32, g.config.priority_weight_qos);
           }},
          {"PriorityWeightTRES",
           [](std::string_view v, G& g) {
             return SetTresWeights(v, g.config.priority_weight_tres,
                                   g.config.priority_tres_weights);
           }},
          {"FirstJobId",
           [](std::string_view v, G& g) { return SetInt(v, 1, kMaxInt64, g.config.first_job_id); }},
          {"MaxJobCount", [](std::string_view v,
                             G& g) { return SetInt(v, 1, kMaxUint32, g.config.max_job_count); }},
          {"MinJobAge",
           [](std::string_view v, G& g) { return SetInt(v, 0, kMaxUint32, g.config.min_job_age); }},
          {"OverTimeLimit",
           [](std::string_view v, G& g) {
             return SetIntOrUnlimited(v, 0, kMaxSlurm16, g.config.over_time_limit);
           }},
          {"MaxArraySize",
           [](std::string_view v, G& g) {
             return SetInt(v, 0, kMaxArraySize, g.config.max_array_size);
           }},
          {"ReturnToService",
           [](std::string_view v, G& g) { return SetInt(v, 0, 2, g.config.return_to_service); }},
          {"JobRequeue", [](std::string_view v, G& g) { return SetBool(v, g.config.job_requeue); }},
          {"DisableRootJobs",
           [](std::string_view v, G& g) { return SetBool(v, g.config.disable_root_jobs); }},
          {"PrivateData",
           [](std::string_view v, G& g) { return SetPrivateData(v, g.config.private_data); }},
          {"AccountingStorageEnforce",
           [](std::string_view v, G& g) {
             absl::StatusOr<Enforcement> enforce = ParseEnforcement(v);
             if (!enforce.ok()) return enforce.status();
             g.config.accounting_storage_enforce = *enforce;
             return absl::OkStatus();
           }},
          {"DefMemPerCPU",
           [](std::string_view v, G& g) { return SetMiB(v, 0, g.def_mem_per_cpu_mb); }},
          {"MaxMemPerCPU",
           [](std::string_view v, G& g) {
             if (config_internal::IsUnlimited(v)) {
               g.max_mem_per_cpu_mb = 0;
               return absl::OkStatus();
             }
             return SetMiB(v, 0, g.max_mem_per_cpu_mb);
           }},
      },
      // Slurm options that make sense for slurmctld/slurmd but not for Skiff (or
      // that Skiff decides for itself). A slurm.conf copied across keeps working.
      {"AccountingStorageBackupHost",
       "AccountingStorageExternalHost",
       "AccountingStorageHost",
       "AccountingStorageLoc",
       "AccountingStorageParameters",
       "AccountingStoragePass",
       "AccountingStoragePort",
       "AccountingStorageTRES",
       "AccountingStorageType",
       "AccountingStorageUser",
       "AccountingStoreFlags",
       "AccountingStoreJobComment",
       "AcctGatherEnergyType",
       "AcctGatherFilesystemType",
       "AcctGatherInterconnectType",
       "AcctGatherNodeFreq",
       "AcctGatherProfileType",
       "AllowSpecResourcesUsage",
       "BackupAddr",
       "BackupController",
       "BatchStartTimeout",
       "BcastExclude",
       "BcastParameters",
       "CliFilterPlugins",
       "CommunicationParameters",
       "CompleteWait",
       "CoreSpecPlugin",
       "CpuFreqDef",
       "CpuFreqGovernors",
       "CredType",
       "CryptoType",
       "DebugFlags",
       "DefCpuPerGPU",
       "DefMemPerGPU",
       "DefMemPerNode",
       "DependencyParameters",
       "EioTimeout",
       "EnforcePartLimits",
       "EpilogMsgTime",
       "ExtSensorsFreq",
       "ExtSensorsType",
       "FairShareDampeningFactor",
       "FastSchedule",
       "FederationParameters",
       "GetEnvTimeout",
       "GpuFreqDef",
       "GroupUpdateForce",
       "GroupUpdateTime",
       "HashPlugin",
       "InactiveLimit",
       "InteractiveStepOptions",
       "JobAcctGatherFrequency",
       "JobAcctGatherParams",
       "JobAcctGatherType",
       "JobCompHost",
       "JobCompLoc",
       "JobCompParams",
       "JobCompPass",
       "JobCompPort",
       "JobCompType",
       "JobCompUser",
       "JobContainerType",
       "JobFileAppend",
       "JobSubmitPlugins",
       "KeepAliveTime",
       "KillOnBadExit",
       "LaunchParameters",
       "LaunchType",
       "Licenses",
       "LogTimeFormat",
       "MailDomain",
       "MaxDBDMsgs",
       "MaxJobId",
       "MaxMemPerNode",
       "MaxStepCount",
       "MaxTasksPerNode",
       "MCSParameters",
       "MCSPlugin",
       "MpiDefault",
       "MpiParams",
       "NodeFeaturesPlugins",
       "PluginDir",
       "PlugStackConfig",
       "PowerParameters",
       "PowerPlugin",
       "PreemptExemptTime",
       "PrEpParameters",
       "PrEpPlugins",
       "PriorityCalcPeriod",
       "PriorityFavorSmall",
       "PriorityFlags",
       "PriorityParameters",
       "PrioritySiteFactorParameters",
       "PrioritySiteFactorPlugin",
       "PriorityUsageResetPeriod",
       "PriorityWeightAssoc",
       "PrivateData",
       "PrologFlags",
       "PropagatePrioProcess",
       "PropagateResourceLimits",
       "PropagateResourceLimitsExcept",
       "RebootProgram",
       "ReconfigFlags",
       "RequeueExit",
       "RequeueExitHold",
       "ResumeFailProgram",
       "ResumeProgram",
       "ResumeRate",
       "ResumeTimeout",
       "ResvEpilog",
       "ResvOverRun",
       "ResvProlog",
       "RoutePlugin",
       "SchedulerTimeSlice",
       "SchedulerType",
       "ScronParameters",
       "SelectType",
       "SelectTypeParameters",
       "SlurmctldPrimaryOffProg",
       "SlurmctldPrimaryOnProg",
       "SlurmctldSyslogDebug",
       "SlurmctldTimeout",
       "SlurmdSyslogDebug",
       "SlurmdUser",
       "SlurmSchedLogFile",
       "SlurmSchedLogLevel",
       "SrunEpilog",
       "SrunPortRange",
       "SrunProlog",
       "SuspendExcNodes",
       "SuspendExcParts",
       "SuspendExcStates",
       "SuspendProgram",
       "SuspendRate",
       "SuspendTime",
       "SuspendTimeout",
       "SwitchParameters",
       "SwitchType",
       "TaskPluginParam",
       "TCPTimeout",
       "TmpFS",
       "TopologyParam",
       "TopologyPlugin",
       "TrackWCKey",
       "TreeWidth",
       "UnkillableStepProgram",
       "UnkillableStepTimeout",
       "UsePAM",
       "VSizeFactor",
       "Waittime",
       "X11Parameters"},
      /*unsupported=*/{},
      /*strict=*/false,
  };
  return *kTable;
}

// Line kinds that Slurm has but Skiff does not implement: the whole line is
// skipped with one warning.
bool IsUnsupportedLineKind(std::string_view first_key) {
  for (std::string_view kind : {"NodeSet", "DownNodes", "FrontendName", "SwitchName"}) {
    if (EqualsIgnoreCase(first_key, kind)) return true;
  }
  return false;
}

// For a key that belongs on another kind of skiff.conf line, why it is wrong here.
std::string MisplacedReason(std::string_view key, std::string_view line_kind) {
  if (EqualsIgnoreCase(key, "NodeName") || EqualsIgnoreCase(key, "PartitionName")) {
    return "must be the first key on its line";
  }
  std::vector<std::string> homes;
  if (line_kind != "NodeName" && NodeKeys().Find(key) != nullptr) homes.push_back("NodeName");
  if (line_kind != "PartitionName" && PartitionKeys().Find(key) != nullptr) {
    homes.push_back("PartitionName");
  }
  if (line_kind != "global" && GlobalKeys().Find(key) != nullptr) {
    return line_kind == "NodeName" ? "not valid on a NodeName line (it is a cluster-wide key)"
                                   : "not valid on a PartitionName line (it is a cluster-wide key)";
  }
  if (homes.empty()) return "";
  return absl::StrCat("only valid on a ", absl::StrJoin(homes, " or "), " line");
}

class SkiffParser {
 public:
  SkiffParser(const std::vector<LogicalLine>& lines, std::string_view file_name)
      : lines_(lines), file_name_(file_name), global_{config_, config_.warnings} {}

  absl::StatusOr<SkiffConfig> Parse() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      absl::Status status = ParseLine(i);
      if (!status.ok()) return status;
    }
    absl::Status status = Finish();
    if (!status.ok()) return status;
    return std::move(config_);
  }

 private:
  struct PartitionOrigin {
    size_t line_index;
    bool all_nodes;
    bool preempt_mode_set;
  };

  absl::Status ParseLine(size_t index) {
    const LogicalLine& line = lines_[index];
    const std::string& first = line.pairs.front().key;
    if (EqualsIgnoreCase(first, "NodeName")) return ParseNodeLine(index);
    if (EqualsIgnoreCase(first, "PartitionName")) return ParsePartitionLine(index);
    if (IsUnsupportedLineKind(first) && line.pairs.front().has_equals) {
      config_.warnings.push_back(absl::StrCat(line.file, ":", line.line, ": ", first,
                                              ": line kind not supported, ignored"));
      return absl::OkStatus();
    }
    global_.line = &line;
    PairContext context{"", &config_.warnings,
                        [](std::string_view key) { return MisplacedReason(key, "global"); }};
    absl::Status status = ApplyPairs(line, GlobalKeys(), context, global_);
    if (!status.ok()) return status;
    for (const config_internal::KeyValue& pair : line.pairs) {
      if (const auto* spec = GlobalKeys().Find(pair.key)) {
        global_.key_lines[std::string(spec->name)] = &line;
      }
    }
    return absl::OkStatus();
  }

  // The line that last set global key `canonical`, or nullptr when it has its default.
  const LogicalLine* GlobalKeyLine(std::string_view canonical) const {
    auto it = global_.key_lines.find(std::string(canonical));
    return it == global_.key_lines.end() ? nullptr : it->second;
  }

  absl::Status ParseNodeLine(size_t index) {
    const LogicalLine& line = lines_[index];
    NodeLine parsed = node_defaults_;
    parsed.names.clear();
    PairContext context{absl::StrCat(" (NodeName=", line.pairs.front().value, ")"),
                        &config_.warnings,
                        [](std::string_view key) { return MisplacedReason(key, "NodeName"); }};
    absl::Status status = ApplyPairs(line, NodeKeys(), context, parsed);
    if (!status.ok()) return status;
    if (EqualsIgnoreCase(parsed.names, "DEFAULT")) {
      if (!parsed.addrs.empty() || !parsed.hostnames.empty()) {
        std::string key = WrittenKey(line, parsed.addrs.empty() ? "NodeHostname" : "NodeAddr");
        return LineError(line, key, "not allowed with NodeName=DEFAULT (it names one node)");
      }
      node_defaults_ = std::move(parsed);
      return absl::OkStatus();
    }
    return AddNodes(index, parsed, context.suffix);
  }

  // NodeAddr/NodeHostname, when given, pair up with the expanded names.
  absl::StatusOr<std::vector<std::string>> ExpandAlongside(const LogicalLine& line,
                                                           std::string_view canonical,
                                                           const std::string& value,
                                                           const std::vector<std::string>& names,
                                                           const std::string& suffix) {
    if (value.empty()) return names;
    std::string key = WrittenKey(line, canonical);
    absl::StatusOr<std::vector<std::string>> expanded = Expand(value);
    if (!expanded.ok()) return LineError(line, key, std::string(expanded.status().message()));
    if (expanded->size() != names.size()) {
      return LineError(line, key,
                       absl::StrCat(Quoted(value), " names ", expanded->size(), " hosts for ",
                                    names.size(), " nodes", suffix));
    }
    return expanded;
  }

  absl::Status AddNodes(size_t index, const NodeLine& parsed, const std::string& suffix) {
    const LogicalLine& line = lines_[index];
    std::string name_key = line.pairs.front().key;
    absl::StatusOr<std::vector<std::string>> names = Expand(parsed.names);
    if (!names.ok()) return LineError(line, name_key, std::string(names.status().message()));
    if (config_.nodes.size() + names->size() > kMaxNodes) {
      return LineError(line, name_key, absl::StrCat("more than ", kMaxNodes, " nodes in all"));
    }
    auto addrs = ExpandAlongside(line, "NodeAddr", parsed.addrs, *names, suffix);
    if (!addrs.ok()) return addrs.status();
    auto hostnames = ExpandAlongside(line, "NodeHostname", parsed.hostnames, *names, suffix);
    if (!hostnames.ok()) return hostnames.status();

    NodeConfig node = parsed.node;
    if (!parsed.cpus_set) {
      node.cpus = node.sockets * std::max(node.cores_per_socket, 1) * node.threads_per_core;
    } else {
      WarnIfCpusDisagreeWithTopology(line, node, suffix);
    }
    for (size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      auto [it, inserted] = node_lines_by_name_.emplace(name, index);
      if (!inserted) {
        const LogicalLine& first = lines_[it->second];
        return LineError(line, name_key,
                         absl::StrCat("duplicate node ", Quoted(name), " (first defined at ",
                                      first.file, ":", first.line, ")"));
      }
      node.name = name;
      node.addr = (*addrs)[i];
      node.hostname = (*hostnames)[i];
      config_.nodes.push_back(node);
      node_line_index_.push_back(index);
    }
    return absl::OkStatus();
  }

  // Slurm accepts CPUs equal to Sockets, Sockets*CoresPerSocket or the full
  // product, and otherwise logs an error and resets CPUs to the product. Skiff
  // keeps the CPUs it is given (a lab may mean it), but says so.
  void WarnIfCpusDisagreeWithTopology(const LogicalLine& line, const NodeConfig& node,
                                      const std::string& suffix) {
    if (node.cores_per_socket == 0) return;  // no topology given
    const int64_t sockets = node.sockets;
    const int64_t cores = sockets * node.cores_per_socket;
    const int64_t threads = cores * node.threads_per_core;
    if (node.cpus == sockets || node.cpus == cores || node.cpus == threads) return;
    config_.warnings.push_back(LineWarning(
        line, WrittenKey(line, "CPUs"),
        absl::StrCat("CPUs=", node.cpus, " matches none of Sockets (", sockets,
                     "), Sockets*CoresPerSocket (", cores,
                     ") and Sockets*CoresPerSocket*ThreadsPerCore (", threads, "); Skiff uses ",
                     node.cpus, " where Slurm would reset it to ", threads, suffix)));
  }

  absl::Status ParsePartitionLine(size_t index) {
    const LogicalLine& line = lines_[index];
    PartitionLine parsed = partition_defaults_;
    parsed.partition.name.clear();
    PairContext context{absl::StrCat(" (PartitionName=", line.pairs.front().value, ")"),
                        &config_.warnings,
                        [](std::string_view key) { return MisplacedReason(key, "PartitionName"); }};
    absl::Status status = ApplyPairs(line, PartitionKeys(), context, parsed);
    if (!status.ok()) return status;
    if (EqualsIgnoreCase(parsed.partition.name, "DEFAULT")) {
      partition_defaults_ = std::move(parsed);
      return absl::OkStatus();
    }
    return AddPartition(index, std::move(parsed), context.suffix);
  }

  absl::Status AddPartition(size_t index, PartitionLine parsed, const std::string& suffix) {
    const LogicalLine& line = lines_[index];
    const PartitionConfig& partition = parsed.partition;
    if (partition.default_time != kInfiniteDuration && partition.max_time != kInfiniteDuration &&
        partition.default_time > partition.max_time) {
      return LineError(line, WrittenKey(line, "DefaultTime"),
                       absl::StrCat("exceeds MaxTime", suffix));
    }
    if (partition.max_nodes != -1 && partition.min_nodes > partition.max_nodes) {
      return LineError(line, WrittenKey(line, "MinNodes"),
                       absl::StrCat(partition.min_nodes, " exceeds MaxNodes=", partition.max_nodes,
                                    " (no job could run here)", suffix));
    }
    // Slurm: "Both AllowAccounts and DenyAccounts are defined, DenyAccounts will be
    // ignored"; likewise for QOS.
    if (!partition.allow_accounts.empty() && !partition.deny_accounts.empty()) {
      config_.warnings.push_back(LineWarning(
          line, WrittenKey(line, "DenyAccounts"),
          absl::StrCat("ignored because AllowAccounts is also set (keep one)", suffix)));
      parsed.partition.deny_accounts.clear();
    }
    if (!partition.allow_qos.empty() && !partition.deny_qos.empty()) {
      config_.warnings.push_back(
          LineWarning(line, WrittenKey(line, "DenyQos"),
                      absl::StrCat("ignored because AllowQos is also set (keep one)", suffix)));
      parsed.partition.deny_qos.clear();
    }
    if (parsed.preempt_mode_set) WarnIfSuspend(line, partition.preempt_mode, suffix);
    for (size_t i = 0; i < config_.partitions.size(); ++i) {
      const PartitionConfig& other = config_.partitions[i];
      const LogicalLine& other_line = lines_[partition_origins_[i].line_index];
      if (other.name == partition.name) {
        return LineError(
            line, line.pairs.front().key,
            absl::StrCat("duplicate partition ", Quoted(partition.name), " (first defined at ",
                         other_line.file, ":", other_line.line, ")"));
      }
      if (other.is_default && partition.is_default) {
        return LineError(
            line, WrittenKey(line, "Default"),
            absl::StrCat("partition ", Quoted(other.name), " (", other_line.file, ":",
                         other_line.line, ") is already the default; only one may be", suffix));
      }
    }
    partition_origins_.push_back({index, parsed.all_nodes, parsed.preempt_mode_set});
    config_.partitions.push_back(std::move(parsed.partition));
    return absl::OkStatus();
  }

  // Skiff's scheduler has no suspend: SUSPEND reads as OFF (see ParsePreemptMode in
  // ctld), and an admin who asked for it should hear that.
  void WarnIfSuspend(const LogicalLine& line, const std::string& preempt_mode,
                     const std::string& suffix) {
    if (PreemptModeBase(preempt_mode) != "SUSPEND") return;
    config_.warnings.push_back(LineWarning(
        line, WrittenKey(line, "PreemptMode"),
        absl::StrCat("SUSPEND is not implemented by Skiff; jobs are not preempted this way "
                     "(use REQUEUE or CANCEL)",
                     suffix)));
  }

  absl::Status Finish() {
    if (config_.ctld_host.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(AsAbsl(file_name_),
                       ": SlurmctldHost: missing (name the controller, e.g. SlurmctldHost=head)"));
    }
    if (config_.ctld_addr.empty()) config_.ctld_addr = config_.ctld_host;
    for (NodeConfig& node : config_.nodes) {
      if (node.port == 0) node.port = config_.slurmd_port;
    }
    absl::Status status = CheckNodeTimeouts();
    if (status.ok()) status = CheckPreemption();
    if (status.ok()) status = CheckNodeAddresses();
    if (status.ok()) status = CheckGresTypes();
    if (!status.ok()) return status;
    return FinishPartitions();
  }

  // "HeartbeatInterval=30", with " (the default)" when the file does not set it.
  std::string Described(std::string_view key, int64_t value) const {
    return absl::StrCat(AsAbsl(key), "=", value,
                        GlobalKeyLine(key) == nullptr ? " (the default)" : "");
  }

  // ctld marks a node DOWN once it has been silent for SlurmdTimeout, and noded
  // speaks every HeartbeatInterval: a timeout that is not longer than the interval
  // takes every healthy node DOWN between two heartbeats.
  absl::Status CheckNodeTimeouts() {
    const int64_t timeout = config_.slurmd_timeout;
    const int64_t heartbeat = config_.heartbeat_interval;
    const LogicalLine* timeout_line = GlobalKeyLine("SlurmdTimeout");
    const LogicalLine* heartbeat_line = GlobalKeyLine("HeartbeatInterval");
    if (timeout == 0) {
      return LineError(*timeout_line, WrittenKey(*timeout_line, "SlurmdTimeout"),
                       absl::StrCat("0 (Slurm's \"never mark silent nodes DOWN\") is not "
                                    "supported by Skiff; give a timeout greater than ",
                                    Described("HeartbeatInterval", heartbeat)));
    }
    if (timeout <= heartbeat) {
      const std::string what = absl::StrCat("SlurmdTimeout=", timeout,
                                            " must be greater than HeartbeatInterval=", heartbeat,
                                            " (nodes would be marked DOWN between heartbeats); ");
      if (timeout_line != nullptr) {
        return LineError(*timeout_line, WrittenKey(*timeout_line, "SlurmdTimeout"),
                         absl::StrCat(what, "raise SlurmdTimeout or lower HeartbeatInterval"));
      }
      return LineError(*heartbeat_line, WrittenKey(*heartbeat_line, "HeartbeatInterval"),
                       absl::StrCat(what, "lower HeartbeatInterval or set a larger SlurmdTimeout",
                                    " (the default is ", timeout, ")"));
    }
    if (timeout <= 2 * heartbeat) {
      const LogicalLine& line = timeout_line != nullptr ? *timeout_line : *heartbeat_line;
      config_.warnings.push_back(LineWarning(
          line, WrittenKey(line, timeout_line != nullptr ? "SlurmdTimeout" : "HeartbeatInterval"),
          absl::StrCat(Described("SlurmdTimeout", timeout), " is at most twice ",
                       Described("HeartbeatInterval", heartbeat),
                       ": one missed heartbeat marks a node DOWN")));
    }
    return absl::OkStatus();
  }

  // Slurm's own checks (read_config.c): preemption needs both a PreemptType and a
  // PreemptMode, and cluster-wide SUSPEND needs GANG.
  absl::Status CheckPreemption() {
    const std::string mode = PreemptModeBase(config_.preempt_mode);
    const LogicalLine* mode_line = GlobalKeyLine("PreemptMode");
    const LogicalLine* type_line = GlobalKeyLine("PreemptType");
    if (config_.preempt_mode == "SUSPEND") {
      return LineError(*mode_line, WrittenKey(*mode_line, "PreemptMode"),
                       "SUSPEND requires GANG too (write PreemptMode=SUSPEND,GANG)");
    }
    if (config_.preempt_type == "preempt/none" && mode != "OFF") {
      return LineError(*mode_line, WrittenKey(*mode_line, "PreemptMode"),
                       absl::StrCat(mode,
                                    " needs PreemptType=preempt/partition_prio or preempt/qos "
                                    "(PreemptType is preempt/none",
                                    type_line != nullptr ? "" : ", the default",
                                    "); set one, or write PreemptMode=OFF"));
    }
    if (config_.preempt_type != "preempt/none" && mode == "OFF") {
      return LineError(*type_line, WrittenKey(*type_line, "PreemptType"),
                       absl::StrCat(config_.preempt_type, " needs PreemptMode=CANCEL, REQUEUE or ",
                                    "SUSPEND,GANG (PreemptMode is ", config_.preempt_mode,
                                    mode_line != nullptr ? "" : ", the default", ")"));
    }
    if (mode_line != nullptr) WarnIfSuspend(*mode_line, config_.preempt_mode, "");
    return absl::OkStatus();
  }

  // Each noded listens on its NodeAddr:Port, and ctld on SlurmctldAddr:SlurmctldPort;
  // two daemons cannot share one.
  absl::Status CheckNodeAddresses() const {
    std::map<std::string, size_t> users;  // "addr:port" -> node index
    for (size_t i = 0; i < config_.nodes.size(); ++i) {
      const NodeConfig& node = config_.nodes[i];
      const LogicalLine& line = lines_[node_line_index_[i]];
      std::string key = "NodeName";
      for (std::string_view written : {"NodeAddr", "Port"}) {
        for (const config_internal::KeyValue& pair : line.pairs) {
          if (EqualsIgnoreCase(pair.key, written)) key = pair.key;
        }
      }
      const std::string address = absl::StrCat(node.addr, ":", node.port);
      if (node.addr == config_.ctld_addr && node.port == config_.ctld_port) {
        return LineError(line, key,
                         absl::StrCat(address, " is ctld's address (SlurmctldHost, SlurmctldPort)",
                                      "; give NodeName=", node.name, " another Port="));
      }
      auto [it, inserted] = users.emplace(address, i);
      if (inserted) continue;
      const NodeConfig& first = config_.nodes[it->second];
      const LogicalLine& first_line = lines_[node_line_index_[it->second]];
      return LineError(
          line, key,
          absl::StrCat(address, " is already NodeName=", first.name, "'s (", first_line.file, ":",
                       first_line.line,
                       "); nodes on one address need their own Port= (NodeName=", node.name, ")"));
    }
    return absl::OkStatus();
  }

  absl::Status CheckGresTypes() const {
    for (size_t i = 0; i < config_.nodes.size(); ++i) {
      for (const GresCount& gres : config_.nodes[i].gres) {
        if (IsKnownGres(gres.name)) continue;
        const LogicalLine& line = lines_[node_line_index_[i]];
        return LineError(line, WrittenKey(line, "Gres"),
                         absl::StrCat(Quoted(gres.name), " is not in GresTypes (NodeName=",
                                      line.pairs.front().value, ")"));
      }
    }
    return absl::OkStatus();
  }

  bool IsKnownGres(std::string_view name) const {
    if (EqualsIgnoreCase(name, "gpu")) return true;
    for (const std::string& type : config_.gres_types) {
      if (EqualsIgnoreCase(type, name)) return true;
    }
    return false;
  }

  static std::string MemoryLimitsClash(uint64_t default_mb, uint64_t max_mb) {
    return absl::StrCat("DefMemPerCPU=", default_mb, " exceeds MaxMemPerCPU=", max_mb,
                        " (MiB); the default must fit under the limit");
  }

  // DefMemPerCPU above MaxMemPerCPU: reported where the partition sets one of them,
  // else where the cluster-wide value is set.
  absl::Status CheckMemoryDefaults(const LogicalLine& line, const PartitionConfig& partition) {
    const uint64_t default_mb = partition.def_mem_per_cpu_mb;
    const uint64_t max_mb = partition.max_mem_per_cpu_mb;
    if (max_mb == 0 || default_mb <= max_mb) return absl::OkStatus();
    const std::string suffix = absl::StrCat(" (PartitionName=", partition.name, ")");
    for (std::string_view key : {"DefMemPerCPU", "MaxMemPerCPU"}) {
      for (const config_internal::KeyValue& pair : line.pairs) {
        if (EqualsIgnoreCase(pair.key, key)) {
          return LineError(line, pair.key, MemoryLimitsClash(default_mb, max_mb) + suffix);
        }
      }
    }
    for (std::string_view key : {"DefMemPerCPU", "MaxMemPerCPU"}) {
      if (const LogicalLine* global = GlobalKeyLine(key)) {
        return LineError(*global, WrittenKey(*global, key),
                         MemoryLimitsClash(default_mb, max_mb) + suffix);
      }
    }
    return LineError(line, "DefMemPerCPU", MemoryLimitsClash(default_mb, max_mb) + suffix);
  }

  // Slurm keeps partition nodes in a bitmap, so a name listed twice counts once;
  // so it does here, with a warning (it is usually an overlapping range).
  void DropRepeatedNodes(const LogicalLine& line, PartitionConfig& partition) {
    std::set<std::string> seen;
    std::vector<std::string> unique;
    for (std::string& name : partition.nodes) {
      if (seen.insert(name).second) {
        unique.push_back(std::move(name));
        continue;
      }
      config_.warnings.push_back(LineWarning(
          line, WrittenKey(line, "Nodes"),
          absl::StrCat(Quoted(name), " is listed more than once; counted once (PartitionName=",
                       partition.name, ")")));
    }
    partition.nodes = std::move(unique);
  }

  absl::Status FinishPartitions() {
    config_.def_mem_per_cpu_mb = global_.def_mem_per_cpu_mb;
    config_.max_mem_per_cpu_mb = global_.max_mem_per_cpu_mb;
    if (global_.max_mem_per_cpu_mb != 0 &&
        global_.def_mem_per_cpu_mb > global_.max_mem_per_cpu_mb) {
      const LogicalLine& line = *GlobalKeyLine("DefMemPerCPU");
      return LineError(line, WrittenKey(line, "DefMemPerCPU"),
                       MemoryLimitsClash(global_.def_mem_per_cpu_mb, global_.max_mem_per_cpu_mb));
    }
    for (size_t i = 0; i < config_.partitions.size(); ++i) {
      PartitionConfig& partition = config_.partitions[i];
      const PartitionOrigin& origin = partition_origins_[i];
      const LogicalLine& line = lines_[origin.line_index];
      if (origin.all_nodes) {
        partition.nodes.clear();
        for (const NodeConfig& node : config_.nodes) partition.nodes.push_back(node.name);
      }
      for (const std::string& name : partition.nodes) {
        if (node_lines_by_name_.count(name) == 0) {
          return LineError(
              line, WrittenKey(line, "Nodes"),
              absl::StrCat("unknown node ", Quoted(name), " (PartitionName=", partition.name, ")"));
        }
      }
      if (!origin.preempt_mode_set) partition.preempt_mode = config_.preempt_mode;
      if (partition.def_mem_per_cpu_mb == 0) {
        partition.def_mem_per_cpu_mb = global_.def_mem_per_cpu_mb;
      }
      if (partition.max_mem_per_cpu_mb == 0) {
        partition.max_mem_per_cpu_mb = global_.max_mem_per_cpu_mb;
      }
      if (absl::Status status = CheckMemoryDefaults(line, partition); !status.ok()) return status;
      DropRepeatedNodes(line, partition);
    }
    return absl::OkStatus();
  }

  const std::vector<LogicalLine>& lines_;
  std::string_view file_name_;
  SkiffConfig config_;
  GlobalState global_;
  NodeLine node_defaults_;
  PartitionLine partition_defaults_;
  std::map<std::string, size_t> node_lines_by_name_;  // name -> index into lines_
  std::vector<size_t> node_line_index_;               // parallel to config_.nodes
  std::vector<PartitionOrigin> partition_origins_;    // parallel to config_.partitions
};

}  // namespace

// ---------------------------------------------------------------------------
// Public API.

absl::Status SetPartitionKey(const SkiffConfig& config, std::string_view key,
                             std::string_view value, PartitionConfig& partition) {
  const config_internal::KeySpec<PartitionLine>* spec = PartitionKeys().Find(key);
  if (spec == nullptr || EqualsIgnoreCase(key, "PartitionName")) {
    return absl::NotFoundError(absl::StrCat(std::string(key), ": not a PartitionName key"));
  }
  PartitionLine line;
  line.partition = partition;
  if (absl::Status status = spec->set(value, line); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(spec->name), ": ", status.message()));
  }
  if (line.all_nodes) {
    line.partition.nodes.clear();
    for (const NodeConfig& node : config.nodes) line.partition.nodes.push_back(node.name);
  }
  if (EqualsIgnoreCase(key, "Nodes")) {
    for (const std::string& name : line.partition.nodes) {
      if (config.FindNode(name) == nullptr) {
        return absl::NotFoundError(absl::StrCat("Nodes: node ", name, " is not defined"));
      }
    }
  }
  partition = std::move(line.partition);
  return absl::OkStatus();
}

bool SkiffConfig::IsPrivate(std::string_view what) const {
  return std::find(private_data.begin(), private_data.end(), what) != private_data.end();
}

int64_t SkiffConfig::FenceLeaseSeconds() const {
  const int64_t margin = std::max<int64_t>(2, slurmd_timeout / 5);
  return std::max(slurmd_timeout - margin, heartbeat_interval + 1);
}

std::string ScriptTooLarge(uint64_t script_bytes, int64_t max_script_size) {
  return absl::StrCat(
      "Pathname of a file, directory or other parameter too long (the batch script "
      "has ",
      script_bytes, " bytes; SchedulerParameters=max_script_size allows ", max_script_size, ")");
}

const NodeConfig* SkiffConfig::FindNode(std::string_view name) const {
  for (const NodeConfig& node : nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

const PartitionConfig* SkiffConfig::FindPartition(std::string_view name) const {
  for (const PartitionConfig& partition : partitions) {
    if (partition.name == name) return &partition;
  }
  return nullptr;
}

const PartitionConfig* SkiffConfig::DefaultPartition() const {
  for (const PartitionConfig& partition : partitions) {
    if (partition.is_default) return &partition;
  }
  return nullptr;
}

absl::StatusOr<SkiffConfig> ParseSkiffConfig(std::string_view text, std::string_view file_name,
                                             const IncludeReader& include_reader) {
  absl::StatusOr<std::vector<LogicalLine>> lines =
      config_internal::ReadLogicalLines(text, file_name, include_reader);
  if (!lines.ok()) return lines.status();
  return SkiffParser(*lines, file_name).Parse();
}

}  // namespace skiff
