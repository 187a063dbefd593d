// skiff.conf's cluster-wide keys: their value setters and the key table,
// with the Slurm options Skiff accepts and ignores.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/config.h"
#include "common/config/kv_parser.h"
#include "common/config/parameters.h"
#include "common/config/skiff_conf_keys.h"
#include "common/size.h"

namespace skiff {
namespace config_internal {
namespace {

// Slurm refuses larger arrays ("MaxArraySize value (%u) is greater than 4000001").
constexpr int64_t kMaxArraySize = 4000001;
// Slurm warns above this: "MessageTimeout is too high for effective fault-tolerance".
constexpr int64_t kMessageTimeoutWarnAbove = 100;

// ---------------------------------------------------------------------------
// Value setters of the cluster-wide keys (the generic ones are in kv_parser.h,
// PreemptMode's in skiff_conf_partitions.cc). Each returns only <what>.

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

// JobAcctGatherFrequency=30 or task=30[,energy=N,network=N,filesystem=N]:
// how often noded samples a job's GPUs (task=, seconds; 0: never). The other
// kinds name Slurm's gathering plugins and are accepted as written.
absl::Status SetJobAcctGatherFrequency(std::string_view value, SkiffConfig& config) {
  int64_t task = 30;
  for (const std::string& item : SplitList(value, ",")) {
    const size_t eq = item.find('=');
    const std::string kind = eq == std::string::npos ? "task" : ToLower(item.substr(0, eq));
    const std::string number = eq == std::string::npos ? item : item.substr(eq + 1);
    if (kind != "task" && kind != "energy" && kind != "network" && kind != "filesystem") {
      return Invalid(
          absl::StrCat(Quoted(kind), " is not one of task, energy, network, filesystem"));
    }
    int64_t seconds = 0;
    if (absl::Status s = SetInt(number, 0, kMaxUint32, seconds); !s.ok()) return s;
    if (kind == "task") task = seconds;
  }
  config.job_acct_gather_frequency_text = std::string(value);
  config.job_acct_gather_frequency = task;
  return absl::OkStatus();
}

absl::Status SetDebugLevel(std::string_view value, std::string& out) {
  return SetChoice(value,
                   {"quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3",
                    "debug4", "debug5"},
                   out);
}

// SlurmctldHost=name(addr) or SlurmctldHost=name. Slurm lists backup controllers
// on further SlurmctldHost lines; Skiff keeps them as standbys only with
// EtcdEndpoints (SkiffParser::Finish says so otherwise).
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
  for (const ControllerHost& known : g.config.ctld_hosts) {
    if (known.name == name) return Invalid(absl::StrCat(Quoted(name), " is named twice"));
  }
  g.config.ctld_hosts.push_back({std::string(name), std::string(addr.empty() ? name : addr)});
  if (g.ctld_host_set) {
    g.standby_lines.push_back(absl::StrCat(g.line->file, ":", g.line->line));
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

}  // namespace

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
          {"EtcdEndpoints",
           [](std::string_view v, G& g) { return SetList(v, g.config.etcd_endpoints); }},
          {"EtcdCAFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.etcd_ca_file); }},
          {"EtcdCertFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.etcd_cert_file); }},
          {"EtcdKeyFile",
           [](std::string_view v, G& g) { return SetOptionalPath(v, g.config.etcd_key_file); }},
          {"SlurmctldTimeout",
           [](std::string_view v, G& g) {
             return SetInt(v, 1, kMaxSlurm16, g.config.slurmctld_timeout);
           }},
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
          {"HpcJobMappingDir",
           [](std::string_view v, G& g) {
             return SetOptionalPath(v, g.config.hpc_job_mapping_dir);
           }},
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
          {"GpuIdlePolicy",
           [](std::string_view v, G& g) { return SetGpuIdlePolicy(v, g.config.gpu_idle_policy); }},
          {"JobAcctGatherFrequency",
           [](std::string_view v, G& g) { return SetJobAcctGatherFrequency(v, g.config); }},
          {"FirstJobId",
           [](std::string_view v, G& g) { return SetInt(v, 1, kMaxInt64, g.config.first_job_id); }},
          {"Licenses",
           [](std::string_view v, G& g) {
             absl::StatusOr<std::vector<LicenseCount>> parsed = ParseLicenses(v);
             if (!parsed.ok()) return parsed.status();
             g.config.licenses_text = std::string(v);
             g.config.licenses = *std::move(parsed);
             return absl::OkStatus();
           }},
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
           [](std::string_view v, G& g) {
             absl::StatusOr<PrivateData> parsed = ParsePrivateData(v);
             if (!parsed.ok()) return parsed.status();
             g.config.private_data = *parsed;
             return absl::OkStatus();
           }},
          // AccountingStorageEnforce=associations,limits,qos,safe (and Slurm's other
          // words, accepted); "none" and "" enforce nothing.
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

}  // namespace config_internal
}  // namespace skiff
