// Skiff's configuration, parsed from Slurm-compatible files in one directory:
// skiff.conf (cluster, nodes, partitions), gres.conf (device files),
// burst_buffer.conf and cgroup.conf. An admin can copy lines from slurm.conf /
// gres.conf.
//
// The parsers are pure: they take text and a file name (for messages) and return
// plain structs, or an InvalidArgument status whose message is
//   "<file>:<line>: <Key>: <what is wrong>"
// e.g. "skiff.conf:12: CPUs: 'abc' is not a number (NodeName=n1)".
// `Include` lines are resolved through an injected IncludeReader so that the parser
// itself does no I/O; LoadConfigDir (config_loader.h) is the one place that reads files.
//
// Keys are matched case-insensitively, as Slurm does. An unknown key that is within
// two edits of a known one (one edit for known keys of five letters or fewer) is
// taken for a typo and is an error ("did you mean RealMemory?"); a key that belongs
// on another kind of line (CPUs= without NodeName=) is an error too. Common Slurm
// options that Skiff does not use (SelectType, ProctrackType, ...) are accepted
// silently. In skiff.conf and burst_buffer.conf any other unknown key is a warning
// (it may be a Slurm option Skiff does not implement); gres.conf and cgroup.conf
// have a closed set of keys, and any other key is an error naming the valid ones.
// An Include that cannot be read keeps the IncludeReader's status code (e.g.
// NotFound), its message prefixed with "<file>:<line>: Include: ".
//
// Values are checked against Slurm's limits (SlurmdTimeout at most 65533,
// MaxArraySize at most 4000001, ...), and keys against each other once a file is
// read (SlurmdTimeout must exceed HeartbeatInterval); such an error names the line
// of the key to change. Where Slurm only logs a complaint and carries on (an
// obsolete key, a CPUs count that does not match the topology, MessageTimeout over
// 100), the parser adds a warning "<file>:<line>: <Key>: <what>" to the struct's
// `warnings` instead; the parsers never print.
//
// Thread-safety: the structs are plain values; build a new one to reconfigure.
#ifndef SKIFF_COMMON_CONFIG_CONFIG_H_
#define SKIFF_COMMON_CONFIG_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/parameters.h"
#include "common/licenses.h"

namespace skiff {

// Reads the file an `Include` line names (already made absolute by the caller's
// convention: relative paths are relative to the including file's directory).
using IncludeReader = std::function<absl::StatusOr<std::string>(const std::string& path)>;

// One generic resource as written in Gres= ("gpu:a100:4", "gpu:2", "gpu").
struct GresCount {
  std::string name;  // "gpu"
  std::string type;  // "a100", or empty when untyped
  int64_t count = 1;
};

struct NodeConfig {
  std::string name;             // NodeName, one entry per expanded name
  std::string addr;             // NodeAddr, defaults to name
  std::string hostname;         // NodeHostname, defaults to name
  int port = 0;                 // Port, defaults to SlurmdPort
  int cpus = 1;                 // CPUs, default Sockets * CoresPerSocket * ThreadsPerCore
  int sockets = 1;              // Sockets (display only for now)
  int cores_per_socket = 0;     // CoresPerSocket, 0 = cpus / sockets
  int threads_per_core = 1;     // ThreadsPerCore
  uint64_t real_memory_mb = 1;  // RealMemory in MiB, as Slurm
  int64_t tmp_disk_mb = 0;      // TmpDisk in MiB
  int weight = 1;               // Weight
  std::vector<GresCount> gres;  // Gres=gpu:a100:4,...
  // Skiff's own gres.conf flag, Flags=fence on the node's Name=shard or
  // Name=mps line (Slurm ignores flags it does not know): each share job runs
  // under its GPU's MPS server with thread and memory limits in proportion.
  bool gpu_shares_fenced = false;
  // Per GPU index, its shard (or MPS) count from gres.conf Name=shard or
  // Name=mps lines with File= (Slurm's per-GPU counts; a GPU no line names
  // has none); empty: the Gres= count spread evenly over the GPUs.
  std::vector<int32_t> gpu_share_counts;
  std::vector<std::string> features;  // Features=a,b
  std::string state = "UNKNOWN";      // State= (UNKNOWN, IDLE, DOWN, DRAIN, FUTURE, CLOUD)
  std::string reason;                 // Reason=
};

struct PartitionConfig {
  std::string name;                         // PartitionName
  std::vector<std::string> nodes;           // Nodes=, expanded; Nodes=ALL gives every node
  bool all_nodes = false;                   // Nodes=ALL: nodes that join later are added too
  bool is_default = false;                  // Default=YES
  int64_t max_time = -1;                    // MaxTime seconds, -1 = UNLIMITED
  int64_t default_time = -1;                // DefaultTime seconds, -1 = use MaxTime
  std::string state = "UP";                 // State= UP, DOWN, DRAIN, INACTIVE
  int priority_tier = 1;                    // PriorityTier
  int priority_job_factor = 1;              // PriorityJobFactor
  int64_t max_nodes = -1;                   // MaxNodes, -1 = UNLIMITED
  int64_t min_nodes = 0;                    // MinNodes
  std::vector<std::string> allow_accounts;  // AllowAccounts, empty = ALL
  std::vector<std::string> allow_groups;    // AllowGroups, empty = ALL
  std::vector<std::string> allow_qos;       // AllowQos, empty = ALL
  std::vector<std::string> deny_accounts;   // DenyAccounts
  std::vector<std::string> deny_qos;        // DenyQos
  std::string qos;                          // QOS= partition QOS, empty = none
  std::string preempt_mode = "OFF";         // PreemptMode= OFF, CANCEL, REQUEUE, SUSPEND,
                                            //   default the cluster's PreemptMode
  std::string oversubscribe = "NO";         // OverSubscribe= NO, YES, EXCLUSIVE, FORCE
  int64_t grace_time = 0;                   // GraceTime seconds
  // GpuIdlePolicy= on the partition's line: wins over the cluster's ("none"
  // exempts the partition); unset, the cluster's applies.
  std::optional<GpuIdlePolicy> gpu_idle_policy;
  uint64_t def_mem_per_cpu_mb = 0;   // DefMemPerCPU, 0 = unset; default the cluster's
  uint64_t max_mem_per_cpu_mb = 0;   // MaxMemPerCPU, 0 = unset; default the cluster's
  bool hidden = false;               // Hidden=YES
  bool root_only = false;            // RootOnly=YES
  bool disable_root_jobs = false;    // DisableRootJobs=YES
  std::string tres_billing_weights;  // TRESBillingWeights= as written (validated)
};

// One SlurmctldHost line: a controller's name and the address it serves on.
struct ControllerHost {
  std::string name;
  std::string addr;  // defaults to name
};

struct SkiffConfig {
  std::string cluster_name = "skiff";  // ClusterName
  std::string ctld_host;               // SlurmctldHost=name(addr): name
  std::string ctld_addr;  // SlurmctldHost=name(addr): addr, or SlurmctldAddr; defaults to ctld_host
  int ctld_port = 6817;   // SlurmctldPort
  // Every SlurmctldHost line in order: the first is ctld_host(ctld_addr), the
  // rest standby controllers, kept only with EtcdEndpoints (issue 53).
  std::vector<ControllerHost> ctld_hosts;
  // EtcdEndpoints=host:port,...: the etcd cluster ctld's commits are
  // replicated through (ctld/replication); empty: SQLite alone.
  std::vector<std::string> etcd_endpoints;
  // EtcdCAFile, EtcdCertFile, EtcdKeyFile: TLS to etcd, the members checked
  // against the CA and ctld known by its certificate (all three or none; none:
  // plain text, for loopback). Read by ctld as SlurmUser.
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // SlurmctldTimeout: with etcd, the time to live of the serving controller's
  // lease, after which a standby takes over (0 = unset: kDefaultLeaseSeconds).
  int64_t slurmctld_timeout = 0;
  // SlurmctldAddr as configured ("" = not set; it also sets ctld_addr): kept
  // apart because Slurm shows it, and only it, as SlurmctldAddr.
  std::string slurmctld_addr;
  int slurmd_port = 6818;              // SlurmdPort: default node port
  std::string slurm_user = "root";     // SlurmUser: may administer, like root
  std::vector<std::string> operators;  // SkiffOperators=alice,bob: may administer
  std::string state_save_location = "/var/spool/skiff/ctld";  // StateSaveLocation
  std::string slurmd_spool_dir = "/var/spool/skiff/d";        // SlurmdSpoolDir (%n = node name)
  // Images for --container-image (Skiff's own keys; pyxis leaves them to
  // enroot's config): the node's unpacked-image cache ("" = <SlurmdSpoolDir>/
  // images), its size, least recently used images evicted beyond it, and
  // the registry mirror references are pulled through ("" = their own registry).
  std::string container_image_cache;                          // ContainerImageCache
  uint64_t container_image_cache_bytes = uint64_t{50} << 30;  // ContainerImageCacheSize
  std::string container_registry_mirror;                      // ContainerRegistryMirror
  std::string ctld_log_file;                                  // SlurmctldLogFile, empty = stderr
  std::string ctld_debug = "info";                            // SlurmctldDebug
  std::string slurmd_log_file;            // SlurmdLogFile (%n = node name), empty = stderr
  std::string slurmd_debug = "info";      // SlurmdDebug
  std::string ctld_pid_file;              // SlurmctldPidFile
  std::string slurmd_pid_file;            // SlurmdPidFile (%n = node name)
  std::string scriptd_socket;             // ScriptdSocket, empty = <StateSaveLocation>/scriptd.sock
  int64_t slurmd_timeout = 300;           // SlurmdTimeout seconds: node not responding after this
  int64_t heartbeat_interval = 30;        // HeartbeatInterval seconds (Skiff's own; noded -> ctld)
  int64_t kill_wait = 30;                 // KillWait seconds between SIGTERM and SIGKILL
  int64_t message_timeout = 10;           // MessageTimeout seconds per RPC
  std::string prolog_ctld;                // PrologSlurmctld (alias PrologCtld)
  std::string prolog;                     // Prolog: noded, as root, before each batch job
  std::string epilog;                     // Epilog: noded, as root, after each batch job
  std::string task_prolog;                // TaskProlog: as the user, before the batch script
  std::string task_epilog;                // TaskEpilog: as the user, after the batch script
  std::string epilog_ctld;                // EpilogSlurmctld (alias EpilogCtld)
  std::string mail_prog;                  // MailProg: run by scriptd for --mail-type
  int64_t prolog_epilog_timeout = 65534;  // PrologEpilogTimeout seconds
  std::string auth_type = "auth/munge";   // AuthType: auth/munge (only)
  std::string auth_socket;                // AuthInfo=socket=PATH, empty = munge's default
  // AuthAltTypes=auth/jwt and AuthAltParameters=jwt_key=PATH[,max_token_lifespan=N]
  // [,disable_token_creation]: JSON Web Tokens (scontrol token, the REST daemon).
  bool auth_jwt = false;
  std::string jwt_key;                            // the HS256 key file (root's, 0600)
  int64_t max_token_lifespan = 0;                 // seconds; 0 = no limit
  bool disable_token_creation = false;            // only root and SlurmUser get tokens
  std::string burst_buffer_type;                  // BurstBufferType: "" or burst_buffer/lua
  std::string proctrack_type = "proctrack/pgid";  // ProctrackType; proctrack/cgroup: noded
                                                  //   tracks each job in a cgroup
  std::string health_check_program;               // HealthCheckProgram, run by noded
  // HpcJobMappingDir (Skiff's own, named after dcgm-exporter's
  // --hpc-job-mapping-dir): noded keeps a file per GPU there, named by its
  // NVML index and holding the ids of the jobs on it; "" = none.
  std::string hpc_job_mapping_dir;
  int64_t health_check_interval = 0;            // HealthCheckInterval seconds; 0: at start only
  std::string health_check_node_state = "ANY";  // HealthCheckNodeState, comma list
  std::string task_plugin;  // TaskPlugin, as written; task/cgroup in it: cgroup.conf's limits
  std::vector<std::string> gres_types;        // GresTypes=gpu
  SchedulerParameters scheduler_parameters;   // SchedulerParameters=a=1,b
  SlurmdParameters slurmd_parameters;         // SlurmdParameters=config_overrides
  SlurmctldParameters slurmctld_parameters;   // SlurmctldParameters=enable_configless
  std::string preempt_type = "preempt/none";  // PreemptType
  std::string preempt_mode = "OFF";           // PreemptMode (cluster default)
  // PriorityType; Slurm 22.05's default: jobs in submission order (nice aside).
  std::string priority_type = "priority/basic";
  int64_t priority_decay_half_life = 7 * 24 * 3600;  // PriorityDecayHalfLife seconds
  int64_t priority_max_age = 7 * 24 * 3600;          // PriorityMaxAge seconds
  int64_t priority_weight_age = 0;                   // PriorityWeightAge
  int64_t priority_weight_fairshare = 0;             // PriorityWeightFairshare
  int64_t priority_weight_job_size = 0;              // PriorityWeightJobSize
  int64_t priority_weight_partition = 0;             // PriorityWeightPartition
  int64_t priority_weight_qos = 0;                   // PriorityWeightQOS
  // PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000 as written, and its
  // weights by lower-case TRES name (cpu, mem, node, gres/gpu).
  std::string priority_weight_tres;
  std::map<std::string, int64_t> priority_tres_weights;
  // GpuIdlePolicy (common/config/parameters.h): idle GPUs given back.
  GpuIdlePolicy gpu_idle_policy;
  // JobAcctGatherFrequency as written, and its task= seconds: how often noded
  // samples the GPUs of its jobs (noded/gpu/gpu_monitor.h); 0: never.
  std::string job_acct_gather_frequency_text = "30";
  int64_t job_acct_gather_frequency = 30;
  int64_t first_job_id = 1;        // FirstJobId
  int64_t max_job_count = 100000;  // MaxJobCount
  // Licenses=matlab:4,fluent (common/licenses.h): as written, and parsed.
  std::string licenses_text;
  std::vector<LicenseCount> licenses;
  int64_t min_job_age = 300;        // MinJobAge seconds
  uint64_t def_mem_per_cpu_mb = 0;  // DefMemPerCPU, 0 = unset
  uint64_t max_mem_per_cpu_mb = 0;  // MaxMemPerCPU, 0 = unset
  int64_t over_time_limit = 0;      // OverTimeLimit minutes, -1 = UNLIMITED
  int64_t max_array_size = 1001;    // MaxArraySize
  int return_to_service = 1;        // ReturnToService 0, 1, 2
  bool job_requeue = true;          // JobRequeue=1
  bool disable_root_jobs = false;   // DisableRootJobs=YES
  // AccountingStorageEnforce: what ctld checks against sacctmgr's associations.
  Enforcement accounting_storage_enforce;
  PrivateData private_data;  // PrivateData

  std::vector<NodeConfig> nodes;            // in file order
  std::vector<PartitionConfig> partitions;  // in file order
  std::vector<std::string> warnings;        // "<file>:<line>: <Key>: unknown key, ignored",
                                            //   also ignored backup SlurmctldHost lines

  // Fencing: how long a node's jobs keep running without ctld confirming the
  // node (noded renews the lease at each answered heartbeat). Shorter than
  // SlurmdTimeout, after which ctld requeues the node's jobs, by a fifth of it
  // (at least 2 s), so that the old run is dead before a new one can start;
  // never shorter than HeartbeatInterval + 1 s, so one late heartbeat kills nothing.
  int64_t FenceLeaseSeconds() const;
  // With etcd: SlurmctldTimeout when set, else kDefaultLeaseSeconds (Slurm's
  // 120 s default is a backup's polling interval; a lease lapses in etcd).
  static constexpr int64_t kDefaultLeaseSeconds = 5;
  int64_t ControllerLeaseSeconds() const;
  // "addr:port" of each controller, in SlurmctldHost order: where the
  // commands and nodes look for the one that serves.
  std::vector<std::string> CtldTargets() const;

  // nullptr when absent.
  const NodeConfig* FindNode(std::string_view name) const;
  const PartitionConfig* FindPartition(std::string_view name) const;
  const PartitionConfig* DefaultPartition() const;
};

// Slurm's error for a script over max_script_size (ESLURM_PATHNAME_TOO_LONG),
// with the sizes and the setting that would allow it.
std::string ScriptTooLarge(uint64_t script_bytes, int64_t max_script_size);

// Slurm's name for the `index`th of `count` SlurmctldHost lines, as scontrol
// ping and slurmrestd's ping print it: "primary", "backup" when there are
// two, else "backupN".
std::string ControllerMode(size_t index, size_t count);

// Parses skiff.conf. `file_name` is used in messages and to resolve relative
// Include paths. Cross-checks after parsing: duplicate NodeName/PartitionName,
// a partition naming an undefined node, more than one Default=YES partition,
// SlurmctldHost missing, a Gres name not in GresTypes (gpu is always allowed).
absl::StatusOr<SkiffConfig> ParseSkiffConfig(std::string_view text, std::string_view file_name,
                                             const IncludeReader& include_reader);

// Sets one key of a PartitionName line on `partition`, with the checks
// skiff.conf's parser makes of that value (scontrol update PartitionName=...).
// Keys match case-insensitively, as on a PartitionName line; Nodes=ALL names
// every node of `config`, and other node names must be defined there.
// Errors: InvalidArgument "<Key>: <what is wrong>", NotFound for a key that
// PartitionName lines do not have (or PartitionName itself) and for an
// undefined node. `partition` is unchanged on error.
absl::Status SetPartitionKey(const SkiffConfig& config, std::string_view key,
                             std::string_view value, PartitionConfig& partition);

// One gres.conf line, after expansion.
struct GresDevice {
  std::vector<std::string> node_names;  // NodeName=, expanded; empty = every node
  std::string name;                     // Name=gpu
  std::string type;                     // Type=a100, may be empty
  std::vector<std::string> files;       // File=/dev/nvidia[0-3], expanded, in order
  // MultipleFiles= (Slurm 23.02): `files` are one device's (a MIG device's
  // GPU and capability devices), not one device each.
  bool multiple_files = false;
  int64_t count = 0;               // Count=, defaults to files.size()
  std::string cores;               // Cores= (alias CPUs=), checked, not enforced
  std::vector<std::string> flags;  // Flags=
  std::string source_file;         // where the line is, for messages
  int source_line = 0;
};

struct GresConfig {
  std::string auto_detect;  // AutoDetect= (only "off" is supported)
  std::vector<GresDevice> devices;
  std::vector<std::string> warnings;

  // The devices that apply to node `node_name`, in file order.
  std::vector<GresDevice> ForNode(std::string_view node_name) const;
};

// Parses gres.conf. Errors: Count that disagrees with the number of Files,
// missing Name=, a malformed hostlist in NodeName= or File=, an unknown key or
// flag, a bad Cores= list, lines for one Name and node that disagree on File= or
// Type=, or that give a device file twice.
absl::StatusOr<GresConfig> ParseGresConfig(std::string_view text, std::string_view file_name,
                                           const IncludeReader& include_reader);

// Checks gres.conf against skiff.conf, which the parsers cannot do alone. Errors
// (at the gres.conf line): a NodeName that skiff.conf does not define, a device
// total for a node that differs from its Gres= count, Cores= beyond the node's
// CPUs. A Name that is not in GresTypes (gpu always is) is dropped with a warning
// in gres.warnings, as Slurm ignores such lines.
absl::Status CheckGresAgainstSkiff(const SkiffConfig& skiff, GresConfig& gres);

// What gres.conf's Name=shard and Name=mps lines say of each node's GPUs:
// Flags=fence (NodeConfig::gpu_shares_fenced), and with File= the count of
// each GPU (gpu_share_counts), matched to the node's Name=gpu files. Error: a
// File= that is none of the node's GPUs; a node whose GPUs gres.conf does not
// list (AutoDetect) keeps the even spread, with a warning. After
// CheckGresAgainstSkiff.
absl::Status ApplyGresSharing(GresConfig& gres, SkiffConfig& skiff);

// burst_buffer.conf for burst_buffer/lua.
struct BurstBufferConfig {
  std::string directive = "BB_LUA";      // Directive
  int64_t stage_in_timeout = 86400;      // StageInTimeout seconds
  int64_t stage_out_timeout = 86400;     // StageOutTimeout seconds
  int64_t validate_timeout = 5;          // ValidateTimeout seconds
  int64_t other_timeout = 300;           // OtherTimeout seconds
  int64_t poll_interval = 15;            // PollInterval seconds
  std::vector<std::string> flags;        // Flags= TeardownFailure, PrivateData,
                                         //   DisablePersistent, EmulateCray, EnablePersistent
  std::vector<std::string> allow_users;  // AllowUsers=
  std::vector<std::string> deny_users;   // DenyUsers=
  std::string default_pool;              // DefaultPool=
  // "<file>:<line>: AllowUsers" (or DenyUsers): where the list is, for messages.
  std::string users_origin;
  std::vector<std::string> warnings;

  bool HasFlag(std::string_view flag) const;  // case-insensitive
};

// Parses burst_buffer.conf. Errors: AllowUsers together with DenyUsers, an unknown
// flag, a timeout or poll interval outside 1 to 4294967295, a Directive that is
// not one word. Warnings: a stage or other timeout above burst_buffer/lua's 24 days
// (clamped), flags and keys burst_buffer/lua does not use.
absl::StatusOr<BurstBufferConfig> ParseBurstBufferConfig(std::string_view text,
                                                         std::string_view file_name,
                                                         const IncludeReader& include_reader);

// AllowUsers/DenyUsers against the user database, which the parser cannot read:
// `user_exists` says whether a name (or a uid written as a number) is a user.
// Slurm logs "ignoring invalid user" and drops the name, so a typo in AllowUsers
// becomes a denial nobody can explain; ctld refuses to start instead.
// InvalidArgument "<file>:<line>: AllowUsers: no such user 'bob' (...)".
absl::Status CheckBurstBufferUsers(const BurstBufferConfig& config,
                                   const std::function<bool(const std::string&)>& user_exists);

// cgroup.conf, as Slurm reads it. Nothing confines jobs with it yet; it is parsed
// and checked so that a cluster's file is known good before it is used.
struct CgroupConfig {
  std::string plugin = "autodetect";          // CgroupPlugin: autodetect, cgroup/v1,
                                              //   cgroup/v2, disabled
  std::string mountpoint = "/sys/fs/cgroup";  // CgroupMountpoint, no trailing '/'
  bool constrain_cores = false;               // ConstrainCores
  bool constrain_devices = false;             // ConstrainDevices
  bool constrain_ram_space = false;           // ConstrainRAMSpace
  bool constrain_swap_space = false;          // ConstrainSwapSpace
  double allowed_ram_space = 100;             // AllowedRAMSpace, percent of the allocation
  double allowed_swap_space = 0;              // AllowedSwapSpace, percent of the allocation
  double max_ram_percent = 100;               // MaxRAMPercent, percent of RealMemory
  double max_swap_percent = 100;              // MaxSwapPercent, percent of RealMemory
  uint64_t min_ram_space_mb = 30;             // MinRAMSpace in MiB
  int64_t memory_swappiness = -1;             // MemorySwappiness 0-100, -1 = kernel's
  bool ignore_systemd = false;                // IgnoreSystemd
  bool ignore_systemd_on_failure = false;     // IgnoreSystemdOnFailure (implied by
                                              //   IgnoreSystemd=yes)
  bool enable_controllers = false;            // EnableControllers
  bool signal_children_processes = false;     // SignalChildrenProcesses
  int64_t systemd_timeout_ms = 1000;          // SystemdTimeout in milliseconds
  std::vector<std::string> warnings;
};

// Parses cgroup.conf. Errors: an unknown key (Slurm's parser refuses them too), a
// key Slurm has removed (CgroupReleaseAgentDir, the Kmem keys, TaskAffinity), a
// value out of range (a negative percentage, AllowedRAMSpace or MaxRAMPercent of 0,
// MaxSwapPercent above 100), a relative CgroupMountpoint. Warnings:
// obsolete keys Slurm still reads and ignores (CgroupAutomount, AllowedDevicesFile,
// MemoryLimitEnforcement, MemoryLimitThreshold), MemorySwappiness above 100
// (lowered to 100, as Slurm does), keys that only apply to the other cgroup
// version than CgroupPlugin names.
absl::StatusOr<CgroupConfig> ParseCgroupConfig(std::string_view text, std::string_view file_name,
                                               const IncludeReader& include_reader);

// oci.conf, as Slurm 24.05 reads it: how noded calls the OCI runtime for
// --container. The patterns (%b bundle, %j job, %u user, ...) are expanded by
// noded/container. Without the file noded uses DefaultOciConfig().
struct OciConfig {
  std::string container_path;  // ContainerPath; "" = the job's spool directory
  // CreateEnvFile: "null" (NUL-terminated entries), "newline" or "disabled".
  std::string create_env_file = "disabled";
  std::vector<std::string> disable_hooks;  // DisableHooks: hook types removed from config.json
  std::string env_exclude;                 // EnvExclude: extended regex over "NAME=value"
  std::string run_time_env_exclude;        // RunTimeEnvExclude: the same, for the runtime's own
  std::string mount_spool_dir;             // MountSpoolDir; "" = /var/run/slurm/
  bool ignore_file_config_json = false;    // IgnoreFileConfigJson
  bool disable_cleanup = false;            // DisableCleanup
  std::string run_time_create;             // RunTimeCreate
  std::string run_time_delete;             // RunTimeDelete
  std::string run_time_kill;               // RunTimeKill
  std::string run_time_query;              // RunTimeQuery
  std::string run_time_run;                // RunTimeRun
  std::string run_time_start;              // RunTimeStart
  std::vector<std::string> warnings;

  bool UsesRun() const { return !run_time_run.empty(); }
};

// Skiff's runtime when oci.conf is absent (Slurm has none): crun's or runc's
// run, rootless, its state under the container's spool directory (%m), so
// nothing outside the job's own directories is needed. noded picks crun on a
// host whose cgroups are v2 only and runc elsewhere, as crun refuses hybrid
// hosts ("cgroups in hybrid mode not supported"): HostDefaultOciConfig
// (noded/container/container_support.h).
enum class OciRuntime { kCrun, kRunc };
OciConfig DefaultOciConfig(OciRuntime runtime = OciRuntime::kCrun);

// Parses oci.conf. Errors as Slurm rejects the file: an unknown key, a
// CreateEnvFile value it does not know, an EnvExclude or RunTimeEnvExclude
// that is not an extended regular expression, and (unless
// IgnoreFileConfigJson=true) a set of RunTime* keys that is neither run
// (RunTimeRun, RunTimeKill, RunTimeDelete; no Create or Start) nor
// create/start (Create, Start, Query, Kill, Delete; no Run). The debug keys
// (StdIODebug, SyslogDebug, FileDebug, DebugFlags) and scrun's SrunPath and
// SrunArgs are accepted and ignored, with a warning.
absl::StatusOr<OciConfig> ParseOciConfig(std::string_view text, std::string_view file_name,
                                         const IncludeReader& include_reader);

}  // namespace skiff

#endif  // SKIFF_COMMON_CONFIG_CONFIG_H_
