// What a careless admin writes, and what Skiff answers: one row per malformed
// line, across skiff.conf, gres.conf, burst_buffer.conf and cgroup.conf, each with
// the exact error (or, where Slurm only complains and carries on, the exact one
// warning). The messages are the product here: they must name file, line and key
// and say what to write instead, so they are compared whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/config/config.h"
#include "common/config/config_loader.h"

namespace skiff {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

enum class Kind {
  kSkiff,        // skiff.conf; kSkiffHead is prepended, so the row's text starts at line 2
  kGres,         // gres.conf alone
  kGresOnNodes,  // gres.conf, then CheckGresAgainstSkiff with kNodesForGres
  kBurstBuffer,  // burst_buffer.conf
  kCgroup,       // cgroup.conf
};

enum class Outcome { kError, kWarning };

struct Row {
  Kind kind;
  std::string text;
  Outcome outcome;
  std::string message;  // the whole error message, or the only warning
};

constexpr char kSkiffHead[] = "SlurmctldHost=head\n";

// The skiff.conf that kGresOnNodes rows are checked against.
constexpr char kNodesForGres[] =
    "SlurmctldHost=head\n"
    "GresTypes=gpu,mps\n"
    "NodeName=n[1-2] CPUs=32 Gres=gpu:a100:4\n"
    "NodeName=c1 CPUs=8\n";

// The error status (OK when the text parses) and the warnings of one row.
struct Result {
  absl::Status status;
  std::vector<std::string> warnings;
};

template <typename Config>
Result ResultOf(const absl::StatusOr<Config>& parsed) {
  if (!parsed.ok()) return {parsed.status(), {}};
  return {absl::OkStatus(), parsed->warnings};
}

Result Parse(const Row& row) {
  switch (row.kind) {
    case Kind::kSkiff:
      return ResultOf(ParseSkiffConfig(kSkiffHead + row.text, "skiff.conf", nullptr));
    case Kind::kGres:
      return ResultOf(ParseGresConfig(row.text, "gres.conf", nullptr));
    case Kind::kGresOnNodes: {
      absl::StatusOr<SkiffConfig> skiff = ParseSkiffConfig(kNodesForGres, "skiff.conf", nullptr);
      if (!skiff.ok()) return {skiff.status(), {}};
      absl::StatusOr<GresConfig> gres = ParseGresConfig(row.text, "gres.conf", nullptr);
      if (!gres.ok()) return {gres.status(), {}};
      absl::Status checked = CheckGresAgainstSkiff(*skiff, *gres);
      return {checked, checked.ok() ? gres->warnings : std::vector<std::string>{}};
    }
    case Kind::kBurstBuffer:
      return ResultOf(ParseBurstBufferConfig(row.text, "burst_buffer.conf", nullptr));
    case Kind::kCgroup:
      return ResultOf(ParseCgroupConfig(row.text, "cgroup.conf", nullptr));
  }
  return {absl::InternalError("unknown kind"), {}};
}

// Shorthands that keep the table one row per case.
Row SkiffError(std::string text, std::string message) {
  return {Kind::kSkiff, std::move(text), Outcome::kError, std::move(message)};
}
Row SkiffWarning(std::string text, std::string message) {
  return {Kind::kSkiff, std::move(text), Outcome::kWarning, std::move(message)};
}
Row GresError(std::string text, std::string message) {
  return {Kind::kGres, std::move(text), Outcome::kError, std::move(message)};
}
Row GresWarning(std::string text, std::string message) {
  return {Kind::kGres, std::move(text), Outcome::kWarning, std::move(message)};
}
Row GresOnNodesError(std::string text, std::string message) {
  return {Kind::kGresOnNodes, std::move(text), Outcome::kError, std::move(message)};
}
Row GresOnNodesWarning(std::string text, std::string message) {
  return {Kind::kGresOnNodes, std::move(text), Outcome::kWarning, std::move(message)};
}
Row BurstBufferError(std::string text, std::string message) {
  return {Kind::kBurstBuffer, std::move(text), Outcome::kError, std::move(message)};
}
Row BurstBufferWarning(std::string text, std::string message) {
  return {Kind::kBurstBuffer, std::move(text), Outcome::kWarning, std::move(message)};
}
Row CgroupError(std::string text, std::string message) {
  return {Kind::kCgroup, std::move(text), Outcome::kError, std::move(message)};
}
Row CgroupWarning(std::string text, std::string message) {
  return {Kind::kCgroup, std::move(text), Outcome::kWarning, std::move(message)};
}

const std::vector<Row>& Rows() {
  static const auto* const kRows = new std::vector<Row>{
      // ---- skiff.conf: cluster-wide keys.
      SkiffError("SlurmdTimeout=2\nHeartbeatInterval=5\n",
                 "skiff.conf:2: SlurmdTimeout: SlurmdTimeout=2 must be greater than "
                 "HeartbeatInterval=5 (nodes would be marked DOWN between heartbeats); raise "
                 "SlurmdTimeout or lower HeartbeatInterval"),
      SkiffError("SlurmdTimeout=5\nHeartbeatInterval=5\n",
                 "skiff.conf:2: SlurmdTimeout: SlurmdTimeout=5 must be greater than "
                 "HeartbeatInterval=5 (nodes would be marked DOWN between heartbeats); raise "
                 "SlurmdTimeout or lower HeartbeatInterval"),
      SkiffError("HeartbeatInterval=600\n",
                 "skiff.conf:2: HeartbeatInterval: SlurmdTimeout=300 must be greater than "
                 "HeartbeatInterval=600 (nodes would be marked DOWN between heartbeats); lower "
                 "HeartbeatInterval or set a larger SlurmdTimeout (the default is 300)"),
      SkiffError("SlurmdTimeout=0\n",
                 "skiff.conf:2: SlurmdTimeout: 0 (Slurm's \"never mark silent nodes DOWN\") is "
                 "not supported by Skiff; give a timeout greater than HeartbeatInterval=30 (the "
                 "default)"),
      SkiffWarning("SlurmdTimeout=50\nHeartbeatInterval=30\n",
                   "skiff.conf:2: SlurmdTimeout: SlurmdTimeout=50 is at most twice "
                   "HeartbeatInterval=30: one missed heartbeat marks a node DOWN"),
      SkiffError("SlurmdTimeout=70000\n",
                 "skiff.conf:2: SlurmdTimeout: '70000' must be at most 65533"),
      SkiffError("HeartbeatInterval=0\n",
                 "skiff.conf:2: HeartbeatInterval: '0' must be at least 1"),
      SkiffError("MaxArraySize=99999999999\n",
                 "skiff.conf:2: MaxArraySize: '99999999999' must be at most 4000001"),
      SkiffError("MaxArraySize=-1\n", "skiff.conf:2: MaxArraySize: '-1' must not be negative"),
      SkiffError("MaxJobCount=99999999999999999999\n",
                 "skiff.conf:2: MaxJobCount: '99999999999999999999' is too large (at most "
                 "4294967295)"),
      SkiffError("KillWait=100000\n", "skiff.conf:2: KillWait: '100000' must be at most 65533"),
      SkiffError("SlurmctldPort=\n",
                 "skiff.conf:2: SlurmctldPort: missing value (expected a whole number from 1 "
                 "to 65535)"),
      SkiffError("SlurmdPort=6818x\n", "skiff.conf:2: SlurmdPort: '6818x' is not a number"),
      SkiffWarning("MessageTimeout=300\n",
                   "skiff.conf:2: MessageTimeout: 300 is too high for effective "
                   "fault-tolerance (Slurm suggests at most 100)"),
      SkiffError("MessageTimeout=70000\n",
                 "skiff.conf:2: MessageTimeout: '70000' must be at most 65535"),
      SkiffError("JobRequeue=\n", "skiff.conf:2: JobRequeue: missing value (expected YES or NO)"),
      SkiffError("DisableRootJobs=maybe\n",
                 "skiff.conf:2: DisableRootJobs: 'maybe' is not YES or NO"),
      SkiffError("OverTimeLimit=70000\n",
                 "skiff.conf:2: OverTimeLimit: '70000' must be at most 65533"),
      SkiffError("PrologEpilogTimeout=-1\n",
                 "skiff.conf:2: PrologEpilogTimeout: '-1' must not be negative"),
      SkiffError("PriorityWeightAge=5000000000\n",
                 "skiff.conf:2: PriorityWeightAge: '5000000000' must be at most 4294967295"),
      SkiffError("PriorityDecayHalfLife=7-25:00:00\n",
                 "skiff.conf:2: PriorityDecayHalfLife: '7-25:00:00' has 25 hours (at most 23); "
                 "write 8-01:00:00 if that is what you mean"),
      SkiffError("SlurmctldDebug=\n",
                 "skiff.conf:2: SlurmctldDebug: missing value (expected one of quiet, fatal, "
                 "error, info, verbose, debug, debug2, debug3, debug4, debug5)"),
      SkiffError("ClusterName=\n", "skiff.conf:2: ClusterName: must not be empty"),
      SkiffError("PreemptType=preempt/partition_prio\n",
                 "skiff.conf:2: PreemptType: preempt/partition_prio needs PreemptMode=CANCEL, "
                 "REQUEUE or SUSPEND,GANG (PreemptMode is OFF, the default)"),
      SkiffError("PreemptMode=REQUEUE\n",
                 "skiff.conf:2: PreemptMode: REQUEUE needs PreemptType=preempt/partition_prio "
                 "or preempt/qos (PreemptType is preempt/none, the default); set one, or write "
                 "PreemptMode=OFF"),
      SkiffError("PreemptType=preempt/qos\nPreemptMode=SUSPEND\n",
                 "skiff.conf:3: PreemptMode: SUSPEND requires GANG too (write "
                 "PreemptMode=SUSPEND,GANG)"),
      SkiffError("PreemptMode=CANCEL,REQUEUE\n",
                 "skiff.conf:2: PreemptMode: 'CANCEL,REQUEUE' names two modes, CANCEL and "
                 "REQUEUE (choose one of OFF, CANCEL, REQUEUE, SUSPEND; GANG and WITHIN may be "
                 "added)"),
      SkiffWarning("PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n",
                   "skiff.conf:3: PreemptMode: SUSPEND is not implemented by Skiff; jobs are "
                   "not preempted this way (use REQUEUE or CANCEL)"),
      SkiffError("PrologSlurmctld=prolog.sh\n",
                 "skiff.conf:2: PrologSlurmctld: 'prolog.sh' is not an absolute path (start it "
                 "with /)"),
      SkiffError("MailProg=mail\n",
                 "skiff.conf:2: MailProg: 'mail' is not an absolute path (start it with /)"),
      // Slurm's man page wants these fully qualified; a relative one would follow
      // whatever directory the daemon was started from.
      SkiffError("StateSaveLocation=state/ctld\n",
                 "skiff.conf:2: StateSaveLocation: 'state/ctld' is not an absolute path (start "
                 "it with /)"),
      SkiffError("SlurmdSpoolDir=spool/%n\n",
                 "skiff.conf:2: SlurmdSpoolDir: 'spool/%n' is not an absolute path (start it "
                 "with /)"),
      SkiffError("SlurmctldLogFile=ctld.log\n",
                 "skiff.conf:2: SlurmctldLogFile: 'ctld.log' is not an absolute path (start it "
                 "with /)"),
      SkiffError("SlurmdLogFile=log/%n.log\n",
                 "skiff.conf:2: SlurmdLogFile: 'log/%n.log' is not an absolute path (start it "
                 "with /)"),
      SkiffError("SlurmctldPidFile=ctld.pid\n",
                 "skiff.conf:2: SlurmctldPidFile: 'ctld.pid' is not an absolute path (start it "
                 "with /)"),
      SkiffError("SlurmdPidFile=./noded.pid\n",
                 "skiff.conf:2: SlurmdPidFile: './noded.pid' is not an absolute path (start it "
                 "with /)"),
      SkiffError("ScriptdSocket=scriptd.sock\n",
                 "skiff.conf:2: ScriptdSocket: 'scriptd.sock' is not an absolute path (start it "
                 "with /)"),
      SkiffError("HealthCheckProgram=health.sh\n",
                 "skiff.conf:2: HealthCheckProgram: 'health.sh' is not an absolute path (start "
                 "it with /)"),
      SkiffError("Prolog=prolog.sh\n",
                 "skiff.conf:2: Prolog: 'prolog.sh' is not an absolute path (start it with /)"),
      SkiffError("StateSaveLocation=\n", "skiff.conf:2: StateSaveLocation: must not be empty"),
      SkiffError("SchedulerParameters=bf_interval=abc,bf_continue\n",
                 "skiff.conf:2: SchedulerParameters: bf_interval=abc is not a whole number "
                 "from 1 to 10800 or -1"),
      SkiffError("SchedulerParameters=sched_min_interval=-5\n",
                 "skiff.conf:2: SchedulerParameters: sched_min_interval=-5 is not a whole "
                 "number from 0 to 2147483647"),
      SkiffError("SchedulerParameters=budget_warn_percent=abc\n",
                 "skiff.conf:2: SchedulerParameters: budget_warn_percent=abc is not a whole "
                 "number from 0 to 100"),
      SkiffError("AccountingStorageEnforce=associations,limitz\n",
                 "skiff.conf:2: AccountingStorageEnforce: 'limitz' is not one of associations, "
                 "limits, qos, safe, wckeys, nojobs, nosteps, all, none"),
      SkiffError("DefMemPerCPU=1500K\n",
                 "skiff.conf:2: DefMemPerCPU: '1500K' is not a whole number of MiB (memory is "
                 "counted in MiB)"),
      SkiffError("DefMemPerCPU=8G\nMaxMemPerCPU=4G\n",
                 "skiff.conf:2: DefMemPerCPU: DefMemPerCPU=8192 exceeds MaxMemPerCPU=4096 (MiB); "
                 "the default must fit under the limit"),
      SkiffError("Bogus Line\n", "skiff.conf:2: Bogus: missing '=' (write Bogus=VALUE, no spaces)"),
      SkiffError("SlurmdTimout=5\n",
                 "skiff.conf:2: SlurmdTimout: unknown key (did you mean SlurmdTimeout?)"),
      SkiffWarning("FrobnicateLevel=3\n", "skiff.conf:2: FrobnicateLevel: unknown key, ignored"),

      // ---- skiff.conf: NodeName lines.
      SkiffError("NodeName=n1 CPUs=4x\n", "skiff.conf:2: CPUs: '4x' is not a number (NodeName=n1)"),
      SkiffError("NodeName=n1 CPUs=0\n",
                 "skiff.conf:2: CPUs: '0' must be at least 1 (NodeName=n1)"),
      SkiffError("NodeName=n1 CPUs=-8\n",
                 "skiff.conf:2: CPUs: '-8' must be at least 1 (NodeName=n1)"),
      SkiffError("NodeName=n1 CPUs=99999999999\n",
                 "skiff.conf:2: CPUs: '99999999999' must be at most 2147483647 (NodeName=n1)"),
      SkiffError("NodeName=n1 Sockets=0\n",
                 "skiff.conf:2: Sockets: '0' must be at least 1 (NodeName=n1)"),
      SkiffError("NodeName=n1 RealMemory=lots\n",
                 "skiff.conf:2: RealMemory: invalid size \"lots\": expected a number "
                 "(NodeName=n1)"),
      SkiffError("NodeName=n1 RealMemory=\n",
                 "skiff.conf:2: RealMemory: missing value (expected a size in MiB, e.g. 4096 or "
                 "4G) (NodeName=n1)"),
      SkiffError("NodeName=n1 RealMemory=0\n",
                 "skiff.conf:2: RealMemory: '0' is less than 1 MiB (NodeName=n1)"),
      SkiffError("NodeName=n1 RealMemory=1.5G\n",
                 "skiff.conf:2: RealMemory: invalid size \"1.5G\": fractional sizes are not "
                 "allowed (NodeName=n1)"),
      SkiffError("NodeName=n1 TmpDisk=-1\n",
                 "skiff.conf:2: TmpDisk: invalid size \"-1\": negative sizes are not allowed "
                 "(NodeName=n1)"),
      SkiffError("NodeName=n1\nNodeName=n[0-1]\n",
                 "skiff.conf:3: NodeName: duplicate node 'n1' (first defined at skiff.conf:2)"),
      SkiffError("NodeName=n1 State=BROKEN\n",
                 "skiff.conf:2: State: 'BROKEN' is not one of UNKNOWN, IDLE, DOWN, DRAIN, "
                 "FUTURE, CLOUD (NodeName=n1)"),
      SkiffError("NodeName=n1 Port=0\n",
                 "skiff.conf:2: Port: '0' must be at least 1 (NodeName=n1)"),
      SkiffWarning("NodeName=n1 CPUs=6 Sockets=2 CoresPerSocket=8\n",
                   "skiff.conf:2: CPUs: CPUs=6 matches none of Sockets (2), "
                   "Sockets*CoresPerSocket (16) and Sockets*CoresPerSocket*ThreadsPerCore (16); "
                   "Skiff uses 6 where Slurm would reset it to 16 (NodeName=n1)"),
      SkiffWarning("NodeName=n1 CPUs=4 CPUs=8\n",
                   "skiff.conf:2: CPUs: given more than once on this line; the last value, "
                   "'8', is used"),
      SkiffError("NodeName=n1 NodeAddr=h Port=7000\nNodeName=n2 NodeAddr=h Port=7000\n",
                 "skiff.conf:3: Port: h:7000 is already NodeName=n1's (skiff.conf:2); nodes on "
                 "one address need their own Port= (NodeName=n2)"),
      SkiffError("SlurmctldPort=7000\nNodeName=head Port=7000\n",
                 "skiff.conf:3: Port: head:7000 is ctld's address (SlurmctldHost, "
                 "SlurmctldPort); give NodeName=head another Port="),
      SkiffError("NodeName=n1 Gres=gpu:-2\n",
                 "skiff.conf:2: Gres: '-2' must not be negative in 'gpu:-2' (NodeName=n1)"),
      SkiffError("NodeName=n1 Gres=nic:2\n",
                 "skiff.conf:2: Gres: 'nic' is not in GresTypes (NodeName=n1)"),
      SkiffError("GresTypes=gpu,shard,mps\nNodeName=n1 Gres=gpu:2,shard:8,mps:200\n",
                 "skiff.conf:3: Gres: shard and mps on one node (NodeName=n1): a node shares "
                 "its GPUs one way; choose one"),
      SkiffError("GresTypes=gpu,shard\nNodeName=n1 Gres=shard:8\n",
                 "skiff.conf:3: Gres: shard without gpu (NodeName=n1): they share the node's "
                 "GPUs"),
      SkiffError("NodeName=n1 MaxTime=10\n",
                 "skiff.conf:2: MaxTime: only valid on a PartitionName line (NodeName=n1)"),

      // ---- skiff.conf: PartitionName lines.
      SkiffError("NodeName=n1\nPartitionName=p Nodes=n9\n",
                 "skiff.conf:3: Nodes: unknown node 'n9' (PartitionName=p)"),
      SkiffError("PartitionName=a Default=YES\nPartitionName=b Default=YES\n",
                 "skiff.conf:3: Default: partition 'a' (skiff.conf:2) is already the default; "
                 "only one may be (PartitionName=b)"),
      SkiffError("PartitionName=p\nPartitionName=p\n",
                 "skiff.conf:3: PartitionName: duplicate partition 'p' (first defined at "
                 "skiff.conf:2)"),
      SkiffError("PartitionName=p MaxTime=1:99:00\n",
                 "skiff.conf:2: MaxTime: '1:99:00' has 99 minutes (at most 59); write 02:39:00 "
                 "if that is what you mean (PartitionName=p)"),
      SkiffError("PartitionName=p MaxTime=1-30\n",
                 "skiff.conf:2: MaxTime: '1-30' has 30 hours (at most 23); write 2-06:00:00 if "
                 "that is what you mean (PartitionName=p)"),
      SkiffError("PartitionName=p DefaultTime=10:75\n",
                 "skiff.conf:2: DefaultTime: '10:75' has 75 seconds (at most 59); write "
                 "00:11:15 if that is what you mean (PartitionName=p)"),
      SkiffError("PartitionName=p MaxTime=2h\n",
                 "skiff.conf:2: MaxTime: invalid time limit \"2h\": only digits, '-' and ':' are "
                 "allowed (PartitionName=p)"),
      SkiffError("PartitionName=p MaxTime=\n",
                 "skiff.conf:2: MaxTime: missing value (expected a time such as 30, 1:00:00, "
                 "1-00:00:00 or UNLIMITED) (PartitionName=p)"),
      SkiffError("PartitionName=p MaxTime=10 DefaultTime=20\n",
                 "skiff.conf:2: DefaultTime: exceeds MaxTime (PartitionName=p)"),
      SkiffError("PartitionName=p State=OPEN\n",
                 "skiff.conf:2: State: 'OPEN' is not one of UP, DOWN, DRAIN, INACTIVE "
                 "(PartitionName=p)"),
      SkiffError("PartitionName=p MinNodes=4 MaxNodes=2\n",
                 "skiff.conf:2: MinNodes: 4 exceeds MaxNodes=2 (no job could run here) "
                 "(PartitionName=p)"),
      SkiffError("PartitionName=p PriorityTier=70000\n",
                 "skiff.conf:2: PriorityTier: '70000' must be at most 65533 (PartitionName=p)"),
      SkiffError("PartitionName=p GraceTime=5000000000\n",
                 "skiff.conf:2: GraceTime: '5000000000' must be at most 4294967295 "
                 "(PartitionName=p)"),
      SkiffError("PartitionName=p OverSubscribe=YES:0\n",
                 "skiff.conf:2: OverSubscribe: '0' must be at least 1 (PartitionName=p)"),
      SkiffError("PartitionName=p Default=\n",
                 "skiff.conf:2: Default: missing value (expected YES or NO) (PartitionName=p)"),
      SkiffError("PartitionName=p DefMemPerCPU=8G MaxMemPerCPU=4G\n",
                 "skiff.conf:2: DefMemPerCPU: DefMemPerCPU=8192 exceeds MaxMemPerCPU=4096 (MiB); "
                 "the default must fit under the limit (PartitionName=p)"),
      SkiffWarning("PartitionName=p AllowAccounts=a DenyAccounts=b\n",
                   "skiff.conf:2: DenyAccounts: ignored because AllowAccounts is also set (keep "
                   "one) (PartitionName=p)"),
      SkiffWarning("PartitionName=p AllowQos=normal DenyQos=low\n",
                   "skiff.conf:2: DenyQos: ignored because AllowQos is also set (keep one) "
                   "(PartitionName=p)"),
      SkiffWarning("NodeName=g1 Gres=gpu:a100:1,gpu:a100_3g.20gb:2\n",
                   "skiff.conf:2: Gres: GPUs of 2 types (a100, a100_3g.20gb) on NodeName=g1: "
                   "Skiff schedules a node's GPUs as one type for now, so these are 3 GPUs of "
                   "type a100_3g.20gb (docs/compatibility.md)"),
      SkiffWarning("NodeName=n[1-3]\nPartitionName=p Nodes=n[1-3],n2\n",
                   "skiff.conf:3: Nodes: 'n2' is listed more than once; counted once "
                   "(PartitionName=p)"),

      // ---- gres.conf on its own.
      GresError("Bogus=1\n",
                "gres.conf:1: Bogus: unknown key (valid keys: AutoDetect, Cores, Count, CPUs, "
                "File, Flags, Link, Links, MultipleFiles, Name, NodeName, Type)"),
      GresError("Nmae=gpu\n", "gres.conf:1: Nmae: unknown key (did you mean Name?)"),
      GresError("Name=gpu File=/dev/nvidia[0-3] Count=2\n",
                "gres.conf:1: Count: 2 does not match the 4 files in File=/dev/nvidia[0-3]"),
      GresError("Name=gpu Type= File=/dev/nvidia0\n",
                "gres.conf:1: Type: must not be empty (leave Type= out for no type)"),
      GresError("Name=gpu File=/dev/nvidia0 Cores=abc\n",
                "gres.conf:1: Cores: 'abc' is not a core list (e.g. 0-15,32-47)"),
      GresError("Name=gpu File=/dev/nvidia0 Cores=15-0\n",
                "gres.conf:1: Cores: '15-0' has a descending range '15-0' (write 0-15)"),
      GresError("Name=gpu File=/dev/nvidia0 Flags=nvida_gpu_env\n",
                "gres.conf:1: Flags: unknown flag: 'nvida_gpu_env' is not one of CountOnly, "
                "nvidia_gpu_env, amd_gpu_env, intel_gpu_env, opencl_env, no_gpu_env, "
                "one_sharing, all_sharing, explicit, env_uuid, fence"),
      GresError("Name=gpu File=/dev/nvidia0 Flags=fence\n",
                "gres.conf:1: Flags: fence is for Name=shard and Name=mps lines (it limits "
                "each job's share of a GPU), not Name=gpu"),
      GresError("Name=gpu File=/dev/nvidia0 Flags=no_gpu_env,nvidia_gpu_env\n",
                "gres.conf:1: Flags: no_gpu_env cannot be combined with nvidia_gpu_env (it "
                "turns every GPU environment variable off)"),
      GresError("Name=gpu File=/dev/nvidia0\nName=gpu Count=2\n",
                "gres.conf:2: Name: some Name=gpu lines for every node have File= and others "
                "do not (gres.conf:1); give every such line File=, or none"),
      GresError("NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0\n"
                "NodeName=n[1-2] Name=gpu File=/dev/nvidia1\n",
                "gres.conf:2: Name: some Name=gpu lines for NodeName=n1 have Type= and others "
                "do not (gres.conf:1); give every such line Type=, or none"),
      GresError(
          "NodeName=n1 Name=gpu File=/dev/nvidia[0-1]\nNodeName=n1 Name=gpu File=/dev/nvidia1\n",
          "gres.conf:2: File: '/dev/nvidia1' is already a Name=gpu device for "
          "NodeName=n1 (gres.conf:1)"),
      GresError("Name=nic Count=2\nName=nic Count=2\n",
                "gres.conf:2: Name: Name=nic for every node is already defined at gres.conf:1 "
                "(give one line with the total Count=)"),
      GresError("AutoDetect=rsmi\n",
                "gres.conf:1: AutoDetect: 'rsmi' is not supported: Skiff detects NVIDIA GPUs "
                "only (AutoDetect=nvml), or write AutoDetect=off and list the devices with File="),
      GresError("Name=gpu Count=-1\n", "gres.conf:1: Count: '-1' must not be negative"),
      GresError("Name=gpu Count=\n",
                "gres.conf:1: Count: missing value (expected a whole number of at least 0)"),
      GresError("Name=gpu Count=2x\n", "gres.conf:1: Count: '2x' is not a number"),
      GresError("Type=a100 File=/dev/nvidia0\n",
                "gres.conf:1: Name: missing (each device line needs Name=, e.g. Name=gpu)"),
      GresWarning("Name=gpu File=/dev/nvidia0 Name=gpu\n",
                  "gres.conf:1: Name: given more than once on this line; the last value, "
                  "'gpu', is used"),

      // ---- gres.conf against skiff.conf (kNodesForGres).
      GresOnNodesError("NodeName=n9 Name=gpu Type=a100 File=/dev/nvidia[0-3]\n",
                       "gres.conf:1: NodeName: 'n9' is not a node in skiff.conf (add a NodeName "
                       "line for it there, or fix this list)"),
      GresOnNodesError("NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n",
                       "gres.conf:1: File: NodeName=n1 gets 2 gpu:a100 from gres.conf, but its "
                       "Gres= in skiff.conf says gpu:a100:4; make them agree"),
      GresOnNodesError("NodeName=n[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-63\n",
                       "gres.conf:1: Cores: 0-63 names core 63, but NodeName=n1 has 32 CPUs "
                       "(cores count from 0)"),
      GresOnNodesError("NodeName=c1 Name=gpu File=/dev/nvidia[0-1]\n",
                       "gres.conf:1: NodeName: NodeName=c1 has no gpu in its Gres= in skiff.conf "
                       "(it has no Gres=); add gpu to its Gres=, or take c1 off this line"),
      GresOnNodesError("NodeName=n2 Name=mps Count=100\n",
                       "gres.conf:1: NodeName: NodeName=n2 has no mps in its Gres= in skiff.conf "
                       "(Gres=gpu:a100:4); add mps to its Gres=, or take n2 off this line"),
      GresOnNodesWarning("NodeName=c1 Name=nic Count=2\n",
                         "gres.conf:1: Name: 'nic' is not in GresTypes in skiff.conf; line "
                         "ignored, as Slurm does (add nic to GresTypes)"),

      // ---- burst_buffer.conf.
      BurstBufferError("StageInTimeout=0\n",
                       "burst_buffer.conf:1: StageInTimeout: '0' must be at least 1"),
      BurstBufferError("StageInTimeout=99999999999\n",
                       "burst_buffer.conf:1: StageInTimeout: '99999999999' must be at most "
                       "4294967295"),
      BurstBufferWarning("StageOutTimeout=3000000\n",
                         "burst_buffer.conf:1: StageOutTimeout: 3000000 exceeds the "
                         "burst_buffer/lua maximum of 2073600 seconds (24 days); 2073600 is "
                         "used"),
      BurstBufferError("PollInterval=\n",
                       "burst_buffer.conf:1: PollInterval: missing value (expected a whole "
                       "number from 1 to 4294967295)"),
      BurstBufferError("OtherTimeout=5m\n",
                       "burst_buffer.conf:1: OtherTimeout: '5m' is not a number"),
      BurstBufferError("ValidateTimeout=-1\n",
                       "burst_buffer.conf:1: ValidateTimeout: '-1' must be at least 1"),
      BurstBufferError("Flags=PrivateData,Fast\n",
                       "burst_buffer.conf:1: Flags: unknown flag: 'Fast' is not one of "
                       "DisablePersistent, EmulateCray, EnablePersistent, PrivateData, "
                       "TeardownFailure"),
      BurstBufferWarning("Flags=EnablePersistent\n",
                         "burst_buffer.conf:1: Flags: EnablePersistent: burst_buffer/lua has no "
                         "persistent buffers; DisablePersistent is used"),
      BurstBufferWarning("Flags=EmulateCray\n",
                         "burst_buffer.conf:1: Flags: EmulateCray is for burst_buffer/datawarp "
                         "only; ignored"),
      BurstBufferError("AllowUsers=alice\nDenyUsers=bob\n",
                       "burst_buffer.conf:2: DenyUsers: cannot be combined with AllowUsers"),
      BurstBufferError("Directive=\"BB LUA\"\n",
                       "burst_buffer.conf:1: Directive: 'BB LUA' must be one word (no spaces "
                       "or '#')"),
      BurstBufferError("Directive=\"#BB_LUA\"\n",
                       "burst_buffer.conf:1: Directive: '#BB_LUA': write it without the '#' "
                       "(Directive=BB_LUA, and scripts use #BB_LUA)"),
      BurstBufferError("Granularity=lots\n",
                       "burst_buffer.conf:1: Granularity: invalid size \"lots\": expected a "
                       "number"),
      BurstBufferError("Granularity=0\n",
                       "burst_buffer.conf:1: Granularity: '0' must be greater than 0"),
      BurstBufferWarning("GetSysState=/opt/cray/dw_wlm/default/bin/dw_wlm_cli\n",
                         "burst_buffer.conf:1: GetSysState: not used by burst_buffer/lua; "
                         "ignored"),
      BurstBufferWarning("Mystery=1\n", "burst_buffer.conf:1: Mystery: unknown key, ignored"),

      // ---- cgroup.conf.
      CgroupError("CgroupPlugin=cgroup/v3\n",
                  "cgroup.conf:1: CgroupPlugin: 'cgroup/v3' is not one of autodetect, cgroup/v1, "
                  "cgroup/v2, disabled"),
      CgroupError("ConstrainCores=maybe\n",
                  "cgroup.conf:1: ConstrainCores: 'maybe' is not YES or NO"),
      CgroupError("ConstrainDevices\n",
                  "cgroup.conf:1: ConstrainDevices: missing '=' (write ConstrainDevices=VALUE, no "
                  "spaces)"),
      CgroupError("AllowedRAMSpace=0\n",
                  "cgroup.conf:1: AllowedRAMSpace: '0' must be greater than 0 (percent)"),
      CgroupError("AllowedRAMSpace=-5\n",
                  "cgroup.conf:1: AllowedRAMSpace: '-5' must be greater than 0 (percent)"),
      CgroupError("AllowedRAMSpace=\n",
                  "cgroup.conf:1: AllowedRAMSpace: missing value (expected a number such as 100 "
                  "or 101.5)"),
      CgroupError("AllowedSwapSpace=lots\n",
                  "cgroup.conf:1: AllowedSwapSpace: 'lots' is not a number"),
      CgroupError("MaxSwapPercent=150\n",
                  "cgroup.conf:1: MaxSwapPercent: '150' must be at most 100"),
      CgroupError("MaxRAMPercent=1e3\n", "cgroup.conf:1: MaxRAMPercent: '1e3' is not a number"),
      CgroupError("MinRAMSpace=-1\n",
                  "cgroup.conf:1: MinRAMSpace: invalid size \"-1\": negative sizes are not "
                  "allowed"),
      CgroupError("SystemdTimeout=0\n", "cgroup.conf:1: SystemdTimeout: '0' must be at least 1"),
      CgroupError("CgroupMountpoint=sys/fs/cgroup\n",
                  "cgroup.conf:1: CgroupMountpoint: 'sys/fs/cgroup' is not an absolute path "
                  "(start it with /)"),
      CgroupError("CgroupReleaseAgentDir=/etc/slurm/cgroup\n",
                  "cgroup.conf:1: CgroupReleaseAgentDir: support was removed from Slurm; delete "
                  "this line"),
      CgroupError("ConstrainKmemSpace=yes\n",
                  "cgroup.conf:1: ConstrainKmemSpace: kernel memory limits were removed from "
                  "Slurm; delete this line"),
      CgroupError("TaskAffinity=no\n",
                  "cgroup.conf:1: TaskAffinity: removed from Slurm (set TaskPlugin=task/affinity "
                  "in slurm.conf); delete this line"),
      CgroupError("ConstrainRAMSpce=yes\n",
                  "cgroup.conf:1: ConstrainRAMSpce: unknown key (did you mean "
                  "ConstrainRAMSpace?)"),
      CgroupError("Bogus=1\n",
                  "cgroup.conf:1: Bogus: unknown key (valid keys: AllowedDevicesFile, "
                  "AllowedRAMSpace, AllowedSwapSpace, CgroupAutomount, CgroupMountpoint, "
                  "CgroupPlugin, ConstrainCores, ConstrainDevices, ConstrainRAMSpace, "
                  "ConstrainSwapSpace, EnableControllers, IgnoreSystemd, IgnoreSystemdOnFailure, "
                  "MaxRAMPercent, MaxSwapPercent, MemoryLimitEnforcement, MemoryLimitThreshold, "
                  "MemorySwappiness, MinRAMSpace, SignalChildrenProcesses, SystemdTimeout)"),
      CgroupWarning("CgroupAutomount=yes\n",
                    "cgroup.conf:1: CgroupAutomount: defunct in Slurm (the system mounts "
                    "cgroups); remove it"),
      CgroupWarning("AllowedDevicesFile=/etc/slurm/cgroup_allowed_devices_file.conf\n",
                    "cgroup.conf:1: AllowedDevicesFile: obsolete in Slurm (devices come from "
                    "gres.conf); remove it"),
      CgroupWarning("MemoryLimitEnforcement=yes\n",
                    "cgroup.conf:1: MemoryLimitEnforcement: obsolete in Slurm; ignored, remove "
                    "it"),
      CgroupWarning("MemorySwappiness=150\n",
                    "cgroup.conf:1: MemorySwappiness: 150 is too high (0 to 100); 100 is used, "
                    "as in Slurm"),
      CgroupWarning("CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n",
                    "cgroup.conf:2: IgnoreSystemd: only applies to cgroup/v2; ignored with "
                    "CgroupPlugin=cgroup/v1"),
      CgroupWarning("CgroupPlugin=cgroup/v2\nMemorySwappiness=10\n",
                    "cgroup.conf:2: MemorySwappiness: only applies to cgroup/v1; ignored with "
                    "CgroupPlugin=cgroup/v2"),
      CgroupWarning("ConstrainCores=yes ConstrainCores=no\n",
                    "cgroup.conf:1: ConstrainCores: given more than once on this line; the last "
                    "value, 'no', is used"),
  };
  return *kRows;
}

std::string KindName(Kind kind) {
  switch (kind) {
    case Kind::kSkiff:
      return "skiff.conf";
    case Kind::kGres:
      return "gres.conf";
    case Kind::kGresOnNodes:
      return "gres.conf with skiff.conf";
    case Kind::kBurstBuffer:
      return "burst_buffer.conf";
    case Kind::kCgroup:
      return "cgroup.conf";
  }
  return "?";
}

TEST(ConfigErrorsTest, EachMalformedLineGetsItsExactErrorOrWarning) {
  ASSERT_GE(Rows().size(), 60u);
  for (const Row& row : Rows()) {
    SCOPED_TRACE(absl::StrCat(KindName(row.kind), ":\n", row.text));
    Result result = Parse(row);
    if (row.outcome == Outcome::kError) {
      EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(std::string(result.status.message()), row.message);
    } else {
      EXPECT_TRUE(result.status.ok()) << result.status;
      EXPECT_THAT(result.warnings, ElementsAre(row.message));
    }
  }
}

// The configurations the repository itself writes (./skiff up and the integration
// tests' extra keys) must keep parsing without a warning.
TEST(ConfigErrorsTest, ConfigsTheRepositoryWritesStayClean) {
  const std::string skiff_up =
      "ClusterName=skiff-local\n"
      "SlurmctldHost=localhost(127.0.0.1)\n"
      "SlurmctldPort=20000\n"
      "SlurmUser=root\n"
      "AuthType=auth/munge\n"
      "AuthInfo=socket=/tmp/c/run/munge/munge.socket\n"
      "StateSaveLocation=/tmp/c/state/ctld\n"
      "SlurmdSpoolDir=/tmp/c/state/noded/%n\n"
      "SlurmctldLogFile=/tmp/c/log/ctld.log\n"
      "SlurmdLogFile=/tmp/c/log/noded-%n.log\n"
      "SlurmctldPidFile=/tmp/c/run/ctld.pid\n"
      "SlurmdPidFile=/tmp/c/run/noded-%n.pid\n"
      "SlurmctldDebug=info\n"
      "SlurmdDebug=info\n"
      "SlurmdTimeout=30\n"
      "HeartbeatInterval=5\n"
      "SlurmdParameters=config_overrides\n"
      "GresTypes=gpu\n"
      "NodeName=DEFAULT CPUs=4 RealMemory=4000\n"
      "NodeName=n1 NodeAddr=127.0.0.1 Port=20001\n"
      "NodeName=n2 NodeAddr=127.0.0.1 Port=20002\n"
      "NodeName=n3 NodeAddr=127.0.0.1 Port=20003 Gres=gpu:2\n"
      "NodeName=n4 NodeAddr=127.0.0.1 Port=20004 Gres=gpu:2\n"
      "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=1-00:00:00 DefaultTime=01:00:00 "
      "State=UP\n"
      "PartitionName=gpu Nodes=n[3-4] MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP\n";
  const std::string extras[] = {
      "",
      "HeartbeatInterval=1\nSlurmdTimeout=5\n",  // crash_test
      "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nKillWait=1\n"
      "PartitionName=besteffort Nodes=n4 PriorityTier=1 PreemptMode=REQUEUE "
      "MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP\n",  // scheduler_test
      "BurstBufferType=burst_buffer/lua\nPrologSlurmctld=/tmp/c/etc/record_parent.sh\n"
      "EpilogSlurmctld=/tmp/c/etc/record_parent.sh\nMailProg=/tmp/c/etc/mail.sh\n"
      "MinJobAge=600\n",  // burst_buffer_test
      "PrologSlurmctld=/bin/true\nEpilogSlurmctld=/bin/true\nMaxJobCount=200000\n"
      "SlurmctldDebug=error\nSlurmdDebug=error\n",  // ./skiff bench
  };
  for (const std::string& extra : extras) {
    SCOPED_TRACE(extra);
    absl::StatusOr<SkiffConfig> skiff = ParseSkiffConfig(skiff_up + extra, "skiff.conf", nullptr);
    ASSERT_TRUE(skiff.ok()) << skiff.status();
    EXPECT_THAT(skiff->warnings, IsEmpty());
    absl::StatusOr<GresConfig> gres = ParseGresConfig(
        "# Fake GPUs\nNodeName=n3 Name=gpu File=/tmp/c/dev/n3/nvidia[0-1]\n"
        "NodeName=n4 Name=gpu File=/tmp/c/dev/n4/nvidia[0-1]\n",
        "gres.conf", nullptr);
    ASSERT_TRUE(gres.ok()) << gres.status();
    EXPECT_TRUE(CheckGresAgainstSkiff(*skiff, *gres).ok());
    EXPECT_THAT(gres->warnings, IsEmpty());
  }
  absl::StatusOr<BurstBufferConfig> bb = ParseBurstBufferConfig(
      "Flags=DisablePersistent\nStageInTimeout=6\nStageOutTimeout=30\nOtherTimeout=30\n"
      "PollInterval=1\n",
      "burst_buffer.conf", nullptr);
  ASSERT_TRUE(bb.ok()) << bb.status();
  EXPECT_THAT(bb->warnings, IsEmpty());
}

// ctld checks AllowUsers/DenyUsers against the user database at start; the
// parser records where the list is, so the error names the line.
TEST(CheckBurstBufferUsersTest, AnUnknownUserIsAnErrorNamingFileLineKeyAndUser) {
  auto exists = [](const std::string& user) { return user == "alice" || user == "1001"; };
  absl::StatusOr<BurstBufferConfig> allow = ParseBurstBufferConfig(
      "Flags=DisablePersistent\nAllowUsers=alice,1001,bobb\n", "burst_buffer.conf", nullptr);
  ASSERT_TRUE(allow.ok()) << allow.status();
  EXPECT_EQ(CheckBurstBufferUsers(*allow, exists).message(),
            "burst_buffer.conf:2: AllowUsers: no such user 'bobb' (Slurm would ignore it; correct "
            "the name or remove it)");
  absl::StatusOr<BurstBufferConfig> deny =
      ParseBurstBufferConfig("denyusers=carol:alice\n", "burst_buffer.conf", nullptr);
  ASSERT_TRUE(deny.ok()) << deny.status();
  EXPECT_EQ(CheckBurstBufferUsers(*deny, exists).message(),
            "burst_buffer.conf:1: denyusers: no such user 'carol' (Slurm would ignore it; correct "
            "the name or remove it)");
  absl::StatusOr<BurstBufferConfig> known =
      ParseBurstBufferConfig("AllowUsers=alice,1001\n", "burst_buffer.conf", nullptr);
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_TRUE(CheckBurstBufferUsers(*known, exists).ok());
  EXPECT_TRUE(CheckBurstBufferUsers(BurstBufferConfig{}, exists).ok());
}

// So must the example directory in etc/, loaded as the daemons load it.
TEST(ConfigErrorsTest, ExampleDirectoryLoadsWithoutWarnings) {
  const std::string path = absl::StrCat(std::getenv("TEST_SRCDIR"), "/",
                                        std::getenv("TEST_WORKSPACE"), "/etc/skiff.conf");
  absl::StatusOr<LoadedConfig> loaded = LoadConfig(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->warnings, IsEmpty());
}

}  // namespace
}  // namespace skiff
