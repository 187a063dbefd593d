#include "common/config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// Every skiff.conf needs a controller; tests prepend this line, so their own
// lines start at line 2.
constexpr char kHead[] = "SlurmctldHost=head\n";

// A fake file system for Include lines: path -> contents.
IncludeReader FakeFiles(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> absl::StatusOr<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return absl::NotFoundError(absl::StrCat("no such file: ", path));
    return it->second;
  };
}

absl::StatusOr<SkiffConfig> Parse(const std::string& body) {
  return ParseSkiffConfig(std::string(kHead) + body, "skiff.conf", FakeFiles({}));
}

SkiffConfig ParseOk(const std::string& body) {
  absl::StatusOr<SkiffConfig> config = Parse(body);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : SkiffConfig();
}

// ---------------------------------------------------------------------------
// skiff.conf: a realistic file.

constexpr char kFullConf[] = R"(# Skiff test cluster
ClusterName=testcluster
SlurmctldHost=head(10.0.0.1)
SlurmctldPort=7817
SlurmdPort=7818
SlurmUser=slurm
SkiffOperators=alice,bob
StateSaveLocation=/var/spool/skiff/ctld
SlurmdSpoolDir=/var/spool/skiff/d/%n
SlurmdLogFile=/var/log/skiff/%n.log
SlurmdPidFile=/run/skiff/%n.pid
SlurmctldLogFile=/var/log/skiff/ctld.log
SlurmctldDebug=verbose
AuthType=auth/munge
AuthInfo=socket=/run/munge/munge.socket.2
GresTypes=gpu
SlurmdTimeout=120
KillWait=15 MessageTimeout=20
MinJobAge=600
PrologCtld=/etc/skiff/prolog.sh
EpilogSlurmctld=/etc/skiff/epilog.sh
SchedulerParameters=bf_interval=30,sched_min_interval=2000000,bf_continue
PriorityType=priority/multifactor
PriorityDecayHalfLife=7-0
PriorityMaxAge=14-0
PriorityWeightAge=1000
PriorityWeightFairshare=10000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/cgroup
TaskPlugin=task/affinity,task/cgroup
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/linux
SlurmctldParameters=enable_configless
SchedulerType=sched/backfill
Prolog=/etc/slurm/prolog.sh
Epilog=/etc/slurm/epilog.sh
ReturnToService=2

NodeName=DEFAULT CPUs=32 RealMemory=256000 State=UNKNOWN
NodeName=n[1-2]
NodeName=n[3-4] Gres=gpu:2 Features=gpu,nvme
PartitionName=debug Nodes=ALL Default=YES MaxTime=1-00:00:00 State=UP
PartitionName=gpu Nodes=n[3-4] MaxTime=UNLIMITED AllowAccounts=ALL
)";

TEST(ParseSkiffConfigTest, ReadsRealisticClusterFile) {
  absl::StatusOr<SkiffConfig> parsed = ParseSkiffConfig(kFullConf, "skiff.conf", FakeFiles({}));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const SkiffConfig& config = *parsed;
  EXPECT_THAT(config.warnings, IsEmpty());

  EXPECT_EQ(config.cluster_name, "testcluster");
  EXPECT_EQ(config.ctld_host, "head");
  EXPECT_EQ(config.ctld_addr, "10.0.0.1");
  EXPECT_EQ(config.ctld_port, 7817);
  EXPECT_EQ(config.slurmd_port, 7818);
  EXPECT_EQ(config.slurm_user, "slurm");
  EXPECT_THAT(config.operators, ElementsAre("alice", "bob"));
  EXPECT_EQ(config.slurmd_spool_dir, "/var/spool/skiff/d/%n");  // %n left for noded
  EXPECT_EQ(config.slurmd_log_file, "/var/log/skiff/%n.log");
  EXPECT_EQ(config.slurmd_pid_file, "/run/skiff/%n.pid");
  EXPECT_EQ(config.ctld_debug, "verbose");
  EXPECT_EQ(config.auth_socket, "/run/munge/munge.socket.2");
  EXPECT_THAT(config.gres_types, ElementsAre("gpu"));
  EXPECT_EQ(config.slurmd_timeout, 120);
  EXPECT_EQ(config.kill_wait, 15);
  EXPECT_EQ(config.message_timeout, 20);
  EXPECT_EQ(config.min_job_age, 600);
  EXPECT_EQ(config.prolog_ctld, "/etc/skiff/prolog.sh");
  EXPECT_EQ(config.epilog_ctld, "/etc/skiff/epilog.sh");
  EXPECT_EQ(config.scheduler_parameters.as_written,
            (std::map<std::string, std::string>{
                {"bf_interval", "30"}, {"sched_min_interval", "2000000"}, {"bf_continue", ""}}));
  EXPECT_EQ(config.priority_decay_half_life, 7 * 86400);
  EXPECT_EQ(config.priority_max_age, 14 * 86400);
  EXPECT_EQ(config.priority_weight_age, 1000);
  EXPECT_EQ(config.priority_weight_fairshare, 10000);
  EXPECT_EQ(config.return_to_service, 2);

  ASSERT_EQ(config.nodes.size(), 4u);
  for (const NodeConfig& node : config.nodes) {
    EXPECT_EQ(node.cpus, 32) << node.name;
    EXPECT_EQ(node.real_memory_mb, 256000u) << node.name;
    EXPECT_EQ(node.port, 7818) << node.name;
    EXPECT_EQ(node.addr, node.name);
    EXPECT_EQ(node.hostname, node.name);
  }
  EXPECT_EQ(config.nodes[0].name, "n1");
  EXPECT_THAT(config.nodes[1].gres, IsEmpty());
  const NodeConfig* n3 = config.FindNode("n3");
  ASSERT_NE(n3, nullptr);
  ASSERT_EQ(n3->gres.size(), 1u);
  EXPECT_EQ(n3->gres[0].name, "gpu");
  EXPECT_EQ(n3->gres[0].type, "");
  EXPECT_EQ(n3->gres[0].count, 2);
  EXPECT_THAT(n3->features, ElementsAre("gpu", "nvme"));
  EXPECT_EQ(config.FindNode("n5"), nullptr);

  ASSERT_EQ(config.partitions.size(), 2u);
  const PartitionConfig* debug = config.DefaultPartition();
  ASSERT_NE(debug, nullptr);
  EXPECT_EQ(debug->name, "debug");
  EXPECT_THAT(debug->nodes, ElementsAre("n1", "n2", "n3", "n4"));
  EXPECT_EQ(debug->max_time, 86400);
  EXPECT_EQ(debug->state, "UP");
  const PartitionConfig* gpu = config.FindPartition("gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_FALSE(gpu->is_default);
  EXPECT_THAT(gpu->nodes, ElementsAre("n3", "n4"));
  EXPECT_EQ(gpu->max_time, -1);
  EXPECT_THAT(gpu->allow_accounts, IsEmpty());
}

TEST(ParseSkiffConfigTest, AppliesClusterDefMemPerCpuToPartitionsWithoutTheirOwn) {
  SkiffConfig config = ParseOk(
      "DefMemPerCPU=2G\nNodeName=n1\nPartitionName=a Nodes=n1\n"
      "PartitionName=b Nodes=n1 DefMemPerCPU=512\n");
  EXPECT_EQ(config.FindPartition("a")->def_mem_per_cpu_mb, 2048u);
  EXPECT_EQ(config.FindPartition("b")->def_mem_per_cpu_mb, 512u);
}

TEST(ParseSkiffConfigTest, PriorityWeightTresTakesSlurmsNamesInAnyCase) {
  absl::StatusOr<SkiffConfig> config =
      Parse("PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->priority_weight_tres, "CPU=1000,Mem=2000,GRES/gpu=3000");
  EXPECT_EQ(config->priority_tres_weights,
            (std::map<std::string, int64_t>{{"cpu", 1000}, {"gres/gpu", 3000}, {"mem", 2000}}));
  const absl::Status unknown = Parse("PriorityWeightTRES=GRES/fpga=5\n").status();
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.message()).find("unknown TRES 'GRES/fpga'"), std::string::npos)
      << unknown;
  EXPECT_FALSE(Parse("PriorityWeightTRES=CPU=x\n").ok());
  EXPECT_FALSE(Parse("PriorityWeightTRES=CPU\n").ok());
}

TEST(ParseSkiffConfigTest, LicensesTakeSlurmsListAndRefuseWhatSlurmRefuses) {
  absl::StatusOr<SkiffConfig> config = Parse("Licenses=matlab:4,fluent;matlab:1\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->licenses_text, "matlab:4,fluent;matlab:1");
  EXPECT_EQ(config->licenses, (std::vector<LicenseCount>{{"matlab", 5}, {"fluent", 1}}));
  const absl::Status bad = Parse("Licenses=matlab:four\n").status();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("Licenses"), std::string::npos) << bad;
  EXPECT_TRUE(ParseOk("NodeName=n1\nPartitionName=p Nodes=n1\n").licenses.empty());
}

// Issue 53: standby controllers are kept with etcd, and the commands and
// nodes look for the serving one in SlurmctldHost order.
TEST(ParseSkiffConfigTest, StandbyControllersNeedEtcdAndAreTriedInOrder) {
  SkiffConfig ha = ParseOk(
      "SlurmctldHost=standby(10.0.0.2)\nSlurmctldPort=7000\nSlurmctldTimeout=3\n"
      "EtcdEndpoints=10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379\n");
  ASSERT_EQ(ha.ctld_hosts.size(), 2u);
  EXPECT_EQ(ha.ctld_hosts[1].name, "standby");
  EXPECT_EQ(ha.CtldTargets(), (std::vector<std::string>{"head:7000", "10.0.0.2:7000"}));
  EXPECT_EQ(ha.etcd_endpoints.size(), 3u);
  EXPECT_EQ(ha.ControllerLeaseSeconds(), 3);
  EXPECT_TRUE(ha.warnings.empty());

  SkiffConfig alone = ParseOk("SlurmctldHost=standby\n");
  EXPECT_EQ(alone.CtldTargets(), (std::vector<std::string>{"head:6817"}));
  EXPECT_EQ(alone.ControllerLeaseSeconds(), SkiffConfig::kDefaultLeaseSeconds);
  ASSERT_EQ(alone.warnings.size(), 1u);
  EXPECT_EQ(alone.warnings[0],
            "skiff.conf:2: SlurmctldHost: backup controller \"standby\" ignored: a standby follows "
            "the primary through etcd (name it in EtcdEndpoints=)");

  absl::StatusOr<SkiffConfig> twice = Parse("SlurmctldHost=head(10.0.0.9)\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), ::testing::HasSubstr("'head' is named twice"));
}

// TLS to etcd takes its three files together.
TEST(ParseSkiffConfigTest, EtcdTlsFilesComeTogether) {
  SkiffConfig tls = ParseOk(
      "EtcdEndpoints=head:2379\nEtcdCAFile=/etc/skiff/etcd/ca.crt\n"
      "EtcdCertFile=/etc/skiff/etcd/ctld.crt\nEtcdKeyFile=/etc/skiff/etcd/ctld.key\n");
  EXPECT_EQ(tls.etcd_ca_file, "/etc/skiff/etcd/ca.crt");
  EXPECT_EQ(tls.etcd_cert_file, "/etc/skiff/etcd/ctld.crt");
  EXPECT_EQ(tls.etcd_key_file, "/etc/skiff/etcd/ctld.key");

  absl::StatusOr<SkiffConfig> half = Parse("EtcdCAFile=/etc/skiff/etcd/ca.crt\n");
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(std::string(half.status().message()),
            "skiff.conf: EtcdCAFile, EtcdCertFile, EtcdKeyFile: set all three (TLS to etcd) or "
            "none");
  EXPECT_FALSE(Parse("EtcdKeyFile=relative/ctld.key\n").ok());
}

TEST(ParseSkiffConfigTest, DefaultsWhenKeysAreAbsent) {
  SkiffConfig config = ParseOk("NodeName=n1\nPartitionName=p Nodes=n1\n");
  EXPECT_EQ(config.cluster_name, "skiff");
  EXPECT_EQ(config.ctld_addr, "head");  // defaults to the host name
  EXPECT_EQ(config.ctld_port, 6817);
  const NodeConfig& node = config.nodes.at(0);
  EXPECT_EQ(node.cpus, 1);
  EXPECT_EQ(node.real_memory_mb, 1u);
  EXPECT_EQ(node.port, 6818);
  EXPECT_EQ(node.state, "UNKNOWN");
  const PartitionConfig& partition = config.partitions.at(0);
  EXPECT_FALSE(partition.is_default);
  EXPECT_EQ(partition.max_time, -1);
  EXPECT_EQ(partition.default_time, -1);
  EXPECT_EQ(partition.preempt_mode, "OFF");
  EXPECT_EQ(config.DefaultPartition(), nullptr);
}

// A head node's first skiff.conf (skiff init): no node yet; nodes join later
// and Nodes=ALL partitions take them.
TEST(ParseSkiffConfigTest, NodesAllIsKeptForNodesThatJoinLater) {
  SkiffConfig config =
      ParseOk("PartitionName=batch Nodes=ALL Default=YES\nPartitionName=none Nodes=\n");
  EXPECT_TRUE(config.nodes.empty());
  ASSERT_EQ(config.partitions.size(), 2u);
  EXPECT_TRUE(config.partitions[0].all_nodes);
  EXPECT_TRUE(config.partitions[0].nodes.empty());
  EXPECT_FALSE(config.partitions[1].all_nodes);
  SkiffConfig named =
      ParseOk("NodeName=n[1-2]\nPartitionName=p Nodes=ALL\nPartitionName=q Nodes=n1\n");
  EXPECT_TRUE(named.partitions[0].all_nodes);
  EXPECT_EQ(named.partitions[0].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_FALSE(named.partitions[1].all_nodes);
}

// ---------------------------------------------------------------------------
// skiff.conf: small good inputs, one behaviour each.

struct GoodCase {
  std::string description;
  std::string body;  // after kHead
  std::function<void(const SkiffConfig&)> check;
};

TEST(ParseSkiffConfigTest, AcceptsGoodInputs) {
  const std::vector<GoodCase> cases = {
      {"keys are case-insensitive",
       "nodename=n1 cpus=4 REALMEMORY=1024\n"
       "partitionname=p nodes=all default=yes\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).cpus, 4);
         EXPECT_EQ(c.nodes.at(0).real_memory_mb, 1024u);
         EXPECT_TRUE(c.partitions.at(0).is_default);
         EXPECT_THAT(c.partitions.at(0).nodes, ElementsAre("n1"));
       }},
      {"memory accepts size suffixes", "NodeName=n1 RealMemory=4G TmpDisk=1T\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).real_memory_mb, 4096u);
         EXPECT_EQ(c.nodes.at(0).tmp_disk_mb, 1024 * 1024);
       }},
      {"CPUs default to sockets * cores * threads",
       "NodeName=n1 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2\n",
       [](const SkiffConfig& c) { EXPECT_EQ(c.nodes.at(0).cpus, 32); }},
      {"explicit CPUs win over topology", "NodeName=n1 CPUs=6 Sockets=2 CoresPerSocket=8\n",
       [](const SkiffConfig& c) { EXPECT_EQ(c.nodes.at(0).cpus, 6); }},
      {"NodeAddr pairs with expanded names", "NodeName=n[1-2] NodeAddr=10.0.0.[7-8] Port=9000\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).addr, "10.0.0.7");
         EXPECT_EQ(c.nodes.at(1).addr, "10.0.0.8");
         EXPECT_EQ(c.nodes.at(1).port, 9000);
       }},
      {"node port follows a later SlurmdPort", "NodeName=n1\nSlurmdPort=7000\n",
       [](const SkiffConfig& c) { EXPECT_EQ(c.nodes.at(0).port, 7000); }},
      {"typed and multiple gres", "GresTypes=gpu,mps\nNodeName=n1 Gres=gpu:a100:4,mps:400\n",
       [](const SkiffConfig& c) {
         const auto& gres = c.nodes.at(0).gres;
         ASSERT_EQ(gres.size(), 2u);
         EXPECT_EQ(gres[0].name, "gpu");
         EXPECT_EQ(gres[0].type, "a100");
         EXPECT_EQ(gres[0].count, 4);
         EXPECT_EQ(gres[1].name, "mps");
         EXPECT_EQ(gres[1].count, 400);
       }},
      {"gres without a count counts one", "NodeName=n1 Gres=gpu:v100\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).gres.at(0).type, "v100");
         EXPECT_EQ(c.nodes.at(0).gres.at(0).count, 1);
       }},
      {"gres socket binding is dropped", "NodeName=n1 Gres=gpu:2(S:0,1)\n",
       [](const SkiffConfig& c) { EXPECT_EQ(c.nodes.at(0).gres.at(0).count, 2); }},
      {"quoted values keep spaces and '#'", "NodeName=n1 State=DRAIN Reason=\"disk # 3 failed\"\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).reason, "disk # 3 failed");
         EXPECT_EQ(c.nodes.at(0).state, "DRAIN");
       }},
      {"comments and blank lines are ignored",
       "# a comment\n\n   \nNodeName=n1 CPUs=4 # four\n  # indented comment\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.size(), 1u);
         EXPECT_EQ(c.nodes.at(0).cpus, 4);
       }},
      {"backslash continues a line", "NodeName=n1 \\\n    CPUs=4 \\\n    RealMemory=1000\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).cpus, 4);
         EXPECT_EQ(c.nodes.at(0).real_memory_mb, 1000u);
       }},
      {"CRLF line endings", "NodeName=n1 CPUs=4\r\nClusterName=x\r\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.nodes.at(0).cpus, 4);
         EXPECT_EQ(c.cluster_name, "x");
       }},
      {"booleans accept YES/NO, 1/0, TRUE/FALSE",
       "JobRequeue=0\nDisableRootJobs=TRUE\nNodeName=n1\n"
       "PartitionName=p Nodes=n1 Hidden=yes RootOnly=1 DisableRootJobs=false\n",
       [](const SkiffConfig& c) {
         EXPECT_FALSE(c.job_requeue);
         EXPECT_TRUE(c.disable_root_jobs);
         EXPECT_TRUE(c.partitions.at(0).hidden);
         EXPECT_TRUE(c.partitions.at(0).root_only);
         EXPECT_FALSE(c.partitions.at(0).disable_root_jobs);
       }},
      {"aliases of Slurm's older names",
       "PrologCtld=/p\nEpilogCtld=/e\nNodeName=n1 Procs=3\n"
       "PartitionName=p Nodes=n1 Shared=FORCE:4 Priority=5\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.prolog_ctld, "/p");
         EXPECT_EQ(c.epilog_ctld, "/e");
         EXPECT_EQ(c.nodes.at(0).cpus, 3);
         EXPECT_EQ(c.partitions.at(0).oversubscribe, "FORCE:4");
         EXPECT_EQ(c.partitions.at(0).priority_tier, 5);
         EXPECT_EQ(c.partitions.at(0).priority_job_factor, 5);
       }},
      {"partition limits and access lists",
       "NodeName=n[1-3]\nPartitionName=p Nodes=n[1-2],n3 MaxTime=2:00:00 DefaultTime=30 "
       "MaxNodes=UNLIMITED MinNodes=1 AllowAccounts=a,b DenyQos=low QOS=pq "
       "PreemptMode=SUSPEND,GANG "
       "OverSubscribe=yes GraceTime=60 MaxMemPerCPU=8G State=drain PriorityTier=3\n",
       [](const SkiffConfig& c) {
         const PartitionConfig& p = c.partitions.at(0);
         EXPECT_THAT(p.nodes, ElementsAre("n1", "n2", "n3"));
         EXPECT_EQ(p.max_time, 7200);
         EXPECT_EQ(p.default_time, 1800);
         EXPECT_EQ(p.max_nodes, -1);
         EXPECT_EQ(p.min_nodes, 1);
         EXPECT_THAT(p.allow_accounts, ElementsAre("a", "b"));
         EXPECT_THAT(p.deny_qos, ElementsAre("low"));
         EXPECT_EQ(p.qos, "pq");
         EXPECT_EQ(p.preempt_mode, "SUSPEND,GANG");
         EXPECT_EQ(p.oversubscribe, "YES");
         EXPECT_EQ(p.grace_time, 60);
         EXPECT_EQ(p.max_mem_per_cpu_mb, 8192u);
         EXPECT_EQ(p.state, "DRAIN");
         EXPECT_EQ(p.priority_tier, 3);
       }},
      {"partitions inherit the cluster PreemptMode",
       "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nNodeName=n1\n"
       "PartitionName=a Nodes=n1\nPartitionName=b Nodes=n1 PreemptMode=OFF\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.preempt_type, "preempt/partition_prio");
         EXPECT_EQ(c.partitions.at(0).preempt_mode, "REQUEUE");
         EXPECT_EQ(c.partitions.at(1).preempt_mode, "OFF");
       }},
      {"partition may have no nodes", "PartitionName=empty\n",
       [](const SkiffConfig& c) { EXPECT_THAT(c.partitions.at(0).nodes, IsEmpty()); }},
      {"later SlurmctldHost lines are backups, ignored with a warning",
       "SlurmctldHost=backup(10.0.0.2)\n",
       [](const SkiffConfig& c) {
         EXPECT_EQ(c.ctld_host, "head");
         ASSERT_EQ(c.warnings.size(), 1u);
         EXPECT_THAT(c.warnings[0], StartsWith("skiff.conf:2: SlurmctldHost:"));
       }},
      {"unsupported line kinds are skipped with one warning", "NodeSet=ns Feature=gpu\n",
       [](const SkiffConfig& c) {
         EXPECT_THAT(c.warnings, ElementsAre(HasSubstr("skiff.conf:2: NodeSet:")));
       }},
      {"Slurm options Skiff ignores do not warn",
       "SelectType=select/cons_tres SelectTypeParameters=CR_Core ProctrackType=proctrack/cgroup\n"
       "TaskPlugin=task/cgroup MpiDefault=pmix SwitchType=switch/none JobCompType=jobcomp/none\n"
       "AccountingStorageType=accounting_storage/slurmdbd JobAcctGatherType=jobacct_gather/linux\n"
       "SlurmctldParameters=x SchedulerType=sched/backfill Epilog=/e Prolog=/p SlurmdUser=root\n"
       "DefMemPerGPU=1000\nNodeName=n1 Boards=1 CpuSpecList=0 MemSpecLimit=100\n"
       "PartitionName=p Nodes=n1 LLN=NO DefMemPerGPU=100 TRESBillingWeights=CPU=1\n",
       [](const SkiffConfig& c) { EXPECT_THAT(c.warnings, IsEmpty()); }},
  };
  for (const GoodCase& test : cases) {
    SCOPED_TRACE(test.description);
    absl::StatusOr<SkiffConfig> config = Parse(test.body);
    ASSERT_TRUE(config.ok()) << config.status();
    test.check(*config);
  }
}

TEST(ParseSkiffConfigTest, ProctrackTypeAndTaskPluginSayWhetherNodedUsesCgroups) {
  absl::StatusOr<SkiffConfig> defaults = Parse("");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->proctrack_type, "proctrack/pgid");
  EXPECT_EQ(defaults->task_plugin, "");
  absl::StatusOr<SkiffConfig> cgroups =
      Parse("ProctrackType=proctrack/cgroup\nTaskPlugin=task/affinity,task/cgroup\n");
  ASSERT_TRUE(cgroups.ok()) << cgroups.status();
  EXPECT_EQ(cgroups->proctrack_type, "proctrack/cgroup");
  EXPECT_EQ(cgroups->task_plugin, "task/affinity,task/cgroup");
  EXPECT_TRUE(cgroups->warnings.empty());
}

TEST(ParseSkiffConfigTest, HealthCheckKeys) {
  absl::StatusOr<SkiffConfig> parsed = Parse(
      "HealthCheckProgram=/usr/sbin/"
      "nhc\nHealthCheckInterval=300\nHealthCheckNodeState=idle,Mixed\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->health_check_program, "/usr/sbin/nhc");
  EXPECT_EQ(parsed->health_check_interval, 300);
  EXPECT_EQ(parsed->health_check_node_state, "IDLE,MIXED");
  EXPECT_TRUE(parsed->warnings.empty());
}

TEST(ParseSkiffConfigTest, ControlMachineAndControlAddrAreAliases) {
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("ControlMachine=ctl\nControlAddr=192.168.1.1\n", "skiff.conf", nullptr);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ctld_host, "ctl");
  EXPECT_EQ(config->ctld_addr, "192.168.1.1");
}

TEST(ParseSkiffConfigTest, SlurmctldAddrIsKeptApartFromSlurmctldHostsAddress) {
  absl::StatusOr<SkiffConfig> host_only =
      ParseSkiffConfig("SlurmctldHost=ctl(192.168.1.1)\n", "skiff.conf", nullptr);
  ASSERT_TRUE(host_only.ok()) << host_only.status();
  EXPECT_EQ(host_only->ctld_addr, "192.168.1.1");
  EXPECT_EQ(host_only->slurmctld_addr, "");  // scontrol show config: (null), as Slurm
  absl::StatusOr<SkiffConfig> both = ParseSkiffConfig(
      "SlurmctldHost=ctl(192.168.1.1)\nSlurmctldAddr=10.0.0.9\n", "skiff.conf", nullptr);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->ctld_addr, "10.0.0.9");  // what clients and nodes connect to
  EXPECT_EQ(both->slurmctld_addr, "10.0.0.9");
}

TEST(ParseSkiffConfigTest, UnknownKeyFarFromAnyKnownKeyIsAWarning) {
  SkiffConfig config =
      ParseOk("FrobnicateLevel=3\nNodeName=n1 Colour=red\nPartitionName=p Foo=1\n");
  EXPECT_THAT(config.warnings,
              ElementsAre("skiff.conf:2: FrobnicateLevel: unknown key, ignored",
                          "skiff.conf:3: Colour: unknown key, ignored",
                          // Two edits from "QOS", but short keys need a closer match.
                          "skiff.conf:4: Foo: unknown key, ignored"));
}

TEST(ParseSkiffConfigTest, NodeNameDefaultSetsDefaultsForLaterLines) {
  SkiffConfig config = ParseOk(
      "NodeName=a1\n"
      "NodeName=DEFAULT CPUs=8 RealMemory=4G Features=x\n"
      "NodeName=b1\n"
      "NodeName=default RealMemory=8G\n"  // updates only what it names
      "NodeName=c1 CPUs=16\n"
      "NodeName=d1 Features=y\n");
  ASSERT_EQ(config.nodes.size(), 4u);
  EXPECT_EQ(config.nodes[0].cpus, 1);  // before any DEFAULT line
  EXPECT_EQ(config.nodes[1].cpus, 8);
  EXPECT_EQ(config.nodes[1].real_memory_mb, 4096u);
  EXPECT_THAT(config.nodes[1].features, ElementsAre("x"));
  EXPECT_EQ(config.nodes[2].cpus, 16);
  EXPECT_EQ(config.nodes[2].real_memory_mb, 8192u);
  EXPECT_EQ(config.nodes[3].cpus, 8);
  EXPECT_THAT(config.nodes[3].features, ElementsAre("y"));
  EXPECT_EQ(config.FindNode("DEFAULT"), nullptr);
}

TEST(ParseSkiffConfigTest, PartitionNameDefaultSetsDefaultsForLaterLines) {
  SkiffConfig config = ParseOk(
      "NodeName=n[1-2]\n"
      "PartitionName=DEFAULT MaxTime=30 State=DOWN Nodes=ALL\n"
      "PartitionName=p1\n"
      "PartitionName=p2 Nodes=n2 State=UP\n");
  ASSERT_EQ(config.partitions.size(), 2u);
  EXPECT_EQ(config.partitions[0].max_time, 1800);
  EXPECT_EQ(config.partitions[0].state, "DOWN");
  EXPECT_THAT(config.partitions[0].nodes, ElementsAre("n1", "n2"));
  EXPECT_EQ(config.partitions[1].max_time, 1800);
  EXPECT_EQ(config.partitions[1].state, "UP");
  EXPECT_THAT(config.partitions[1].nodes, ElementsAre("n2"));
}

// ---------------------------------------------------------------------------
// skiff.conf: errors.

struct BadCase {
  std::string body;  // after kHead, so its first line is line 2
  int line;          // 0: the error has no line
  std::string key;
  std::string what;  // a part of the message after the key
};

TEST(ParseSkiffConfigTest, RejectsBadInputsNamingFileLineAndKey) {
  const std::vector<BadCase> cases = {
      {"NodeName=n1 CPUs=abc\n", 2, "CPUs", "'abc' is not a number (NodeName=n1)"},
      {"ProctrackType=proctrack/cgroups\n", 2, "ProctrackType", "is not one of"},
      {"HealthCheckNodeState=BUSY\n", 2, "HealthCheckNodeState", "'BUSY' is not one of"},
      {"HealthCheckInterval=-5\n", 2, "HealthCheckInterval", "-5"},
      {"NodeName=n1 CPUs=-4\n", 2, "CPUs", "'-4' must be at least 1"},
      {"NodeName=n1 CPUs 4\n", 2, "CPUs", "missing '='"},
      {"NodeName=n1 RealMemroy=100\n", 2, "RealMemroy", "unknown key (did you mean RealMemory?)"},
      {"NodeName=n1 RealMemory=lots\n", 2, "RealMemory", "lots"},
      {"NodeName=n1 TmpDisk=-1\n", 2, "TmpDisk", "-1"},
      {"NodeName=n1 Port=70000\n", 2, "Port", "must be at most 65535"},
      {"NodeName=n1 State=BROKEN\n", 2, "State", "'BROKEN' is not one of"},
      {"NodeName=n1 Gres=gpu:a100:x\n", 2, "Gres", "'x' is not a number"},
      {"NodeName=n1 Gres=gpu:-2\n", 2, "Gres", "must not be negative"},
      {"NodeName=n1 Gres=mps:100\n", 2, "Gres", "'mps' is not in GresTypes (NodeName=n1)"},
      {"NodeName=n[1-\n", 2, "NodeName", "invalid hostlist \"n[1-\": unclosed '['"},
      {"NodeName=n[1-2] NodeAddr=10.0.0.1\n", 2, "NodeAddr", "names 1 hosts for 2 nodes"},
      {"NodeName=DEFAULT NodeAddr=x\n", 2, "NodeAddr", "DEFAULT"},
      {"NodeName=n1 Reason=\"broken disk\n", 2, "Reason", "unterminated quote"},
      {"NodeName=n1\nNodeName=n[0-2]\n", 3, "NodeName",
       "duplicate node 'n1' (first defined at skiff.conf:2)"},
      {"NodeName=n1 MaxTime=10\n", 2, "MaxTime", "only valid on a PartitionName line"},
      {"NodeName=n1 ClusterName=x\n", 2, "ClusterName", "not valid on a NodeName line"},
      {"NodeName=n1 \\\n  CPUs=x\n", 2, "CPUs", "'x' is not a number"},
      {"PartitionName=p Nodes=n[1-\n", 2, "Nodes", "invalid hostlist \"n[1-\": unclosed '['"},
      {"NodeName=n1\nPartitionName=p Nodes=n[1-2]\n", 3, "Nodes", "unknown node 'n2'"},
      {"NodeName=n1\nPartitionName=p nodes=n9\n", 3, "nodes", "unknown node 'n9'"},
      {"PartitionName=p\nPartitionName=p\n", 3, "PartitionName", "duplicate partition 'p'"},
      {"PartitionName=a Default=YES\nPartitionName=b Default=YES\n", 3, "Default",
       "partition 'a' (skiff.conf:2) is already the default"},
      {"PartitionName=p Default=MAYBE\n", 2, "Default", "'MAYBE' is not YES or NO"},
      {"PartitionName=p MaxTime=abc\n", 2, "MaxTime", "abc"},
      {"PartitionName=p MaxTime=10 DefaultTime=20\n", 2, "DefaultTime", "exceeds MaxTime"},
      {"PartitionName=p State=OPEN\n", 2, "State", "'OPEN' is not one of UP, DOWN"},
      {"PartitionName=p MaxNodes=-2\n", 2, "MaxNodes", "must not be negative"},
      {"PartitionName=p OverSubscribe=NO:4\n", 2, "OverSubscribe", "job count"},
      {"PartitionName=p PreemptMode=SOMETIMES\n", 2, "PreemptMode", "SOMETIMES"},
      {"PartitionName=p Nodse=n1\n", 2, "Nodse", "did you mean Nodes?"},
      {"CPUs=4\n", 2, "CPUs", "only valid on a NodeName line"},
      {"ClusterNme=x\n", 2, "ClusterNme", "unknown key (did you mean ClusterName?)"},
      {"SlurmdTimout=5\n", 2, "SlurmdTimout", "did you mean SlurmdTimeout?"},
      {"=5\n", 2, "=5", "empty key"},
      {"SlurmdTimeout=-1\n", 2, "SlurmdTimeout", "must not be negative"},
      {"KillWait=ten\n", 2, "KillWait", "'ten' is not a number"},
      {"MessageTimeout=0\n", 2, "MessageTimeout", "must be at least 1"},
      {"ReturnToService=3\n", 2, "ReturnToService", "must be at most 2"},
      {"PriorityDecayHalfLife=UNLIMITED\n", 2, "PriorityDecayHalfLife", "UNLIMITED"},
      {"PriorityMaxAge=7days\n", 2, "PriorityMaxAge", "7days"},
      {"SlurmctldPort=99999999999999999999\n", 2, "SlurmctldPort", "too large"},
      {"AuthType=auth/none\n", 2, "AuthType", "'auth/none'"},
      {"BurstBufferType=burst_buffer/datawarp\n", 2, "BurstBufferType", "datawarp"},
      {"SlurmctldDebug=loud\n", 2, "SlurmctldDebug", "'loud'"},
      {"SchedulerParameters=a=1,=2\n", 2, "SchedulerParameters", "'=2'"},
      {"ClusterName=\n", 2, "ClusterName", "must not be empty"},
      {"ClusterName=a NodeName=n1\n", 2, "NodeName", "must be the first key"},
      {"SlurmctldHost=a(b\n", 2, "SlurmctldHost", "'a(b'"},
      {"SlurmctldHost=(addr)\n", 2, "SlurmctldHost", "no host name"},
  };
  for (const BadCase& test : cases) {
    SCOPED_TRACE(test.body);
    absl::StatusOr<SkiffConfig> config = Parse(test.body);
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
    std::string message(config.status().message());
    std::string where = absl::StrCat("skiff.conf:", test.line, ": ", test.key, ": ");
    EXPECT_THAT(message, StartsWith(where));
    EXPECT_THAT(message, HasSubstr(test.what));
  }
}

TEST(ParseSkiffConfigTest, ErrorMessagesAreExactlyFileLineKeyWhat) {
  EXPECT_EQ(Parse("NodeName=n1 CPUs=abc\n").status().message(),
            "skiff.conf:2: CPUs: 'abc' is not a number (NodeName=n1)");
  EXPECT_EQ(Parse("NodeName=n1 RealMemroy=100\n").status().message(),
            "skiff.conf:2: RealMemroy: unknown key (did you mean RealMemory?)");
  EXPECT_EQ(Parse("NodeName=n1\nPartitionName=p Nodes=n[1-\n").status().message(),
            "skiff.conf:3: Nodes: invalid hostlist \"n[1-\": unclosed '[' (PartitionName=p)");
}

TEST(ParseSkiffConfigTest, PrivateDataListsWhatUsersSeeOnlyOfTheirOwn) {
  SkiffConfig config = ParseOk("PrivateData=Jobs,usage,Reservations,users,accounts\nNodeName=n1\n");
  EXPECT_TRUE(config.private_data.jobs);
  EXPECT_TRUE(config.private_data.usage);
  EXPECT_TRUE(config.private_data.reservations);
  EXPECT_TRUE(config.private_data.users);
  EXPECT_TRUE(config.private_data.accounts);
  // scontrol show config prints the words in Slurm's order, whatever the line's.
  EXPECT_EQ(PrivateDataText(config.private_data), "accounts,jobs,reservations,usage,users");
  EXPECT_EQ(PrivateDataText(ParseOk("PrivateData=usage,jobs\nNodeName=n1\n").private_data),
            "jobs,usage");
  EXPECT_FALSE(ParseOk("NodeName=n1\n").private_data.jobs);
  EXPECT_EQ(PrivateDataText(ParseOk("NodeName=n1\n").private_data), "none");
  EXPECT_EQ(Parse("PrivateData=jobs,secrets\n").status().message(),
            "skiff.conf:2: PrivateData: 'secrets' is not one of accounts, jobs, reservations, "
            "usage, users");
}

// Issue 47, item 15: Slurm's values Skiff does not enforce are refused, not
// taken and ignored.
TEST(ParseSkiffConfigTest, PrivateDataRefusesSlurmsValuesSkiffDoesNotEnforce) {
  for (const char* value : {"nodes", "partitions", "events", "cloud", "Nodes"}) {
    EXPECT_EQ(Parse(absl::StrCat("PrivateData=jobs,", value, "\n")).status().message(),
              absl::StrCat("skiff.conf:2: PrivateData: '", absl::AsciiStrToLower(value),
                           "' is Slurm's but not enforced by Skiff (it enforces accounts, jobs, "
                           "reservations, usage and users)"))
        << value;
  }
}

TEST(ParseSkiffConfigTest, MissingSlurmctldHostIsAnError) {
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("ClusterName=x\nNodeName=n1\n", "skiff.conf", nullptr);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("skiff.conf: SlurmctldHost: missing"));
}

TEST(ParseSkiffConfigTest, ReportsTheLineWhereAContinuedLineStarts) {
  absl::StatusOr<SkiffConfig> config = Parse("\n# c\nNodeName=n1 \\\n CPUs=4 \\\n Weight=x\n");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), StartsWith("skiff.conf:4: Weight: "));
}

// ---------------------------------------------------------------------------
// Include.

TEST(ParseSkiffConfigTest, IncludeSplicesFileRelativeToIncludingFile) {
  IncludeReader files = FakeFiles({
      {"/etc/skiff/nodes.conf", "NodeName=n[1-2] CPUs=4\nInclude sub/more.conf\n"},
      {"/etc/skiff/sub/more.conf", "NodeName=n3\n"},
      {"/abs/parts.conf", "PartitionName=p Nodes=ALL\n"},
  });
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("SlurmctldHost=head\nInclude nodes.conf\ninclude \"/abs/parts.conf\"\n",
                       "/etc/skiff/skiff.conf", files);
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_EQ(config->nodes.size(), 3u);
  EXPECT_EQ(config->nodes[0].cpus, 4);
  EXPECT_THAT(config->partitions.at(0).nodes, ElementsAre("n1", "n2", "n3"));
}

TEST(ParseSkiffConfigTest, ErrorsInAnIncludedFileNameThatFile) {
  IncludeReader files = FakeFiles({{"nodes.conf", "\nNodeName=n1 CPUs=many\n"}});
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("SlurmctldHost=head\nInclude nodes.conf\n", "skiff.conf", files);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), StartsWith("nodes.conf:2: CPUs: 'many'"));
}

TEST(ParseSkiffConfigTest, IncludeCyclesAreRejected) {
  IncludeReader files = FakeFiles({
      {"a.conf", "Include b.conf\n"},
      {"b.conf", "ClusterName=x\nInclude a.conf\n"},
  });
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("SlurmctldHost=head\nInclude a.conf\n", "skiff.conf", files);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("b.conf:2: Include: include cycle"));

  absl::StatusOr<SkiffConfig> self =
      ParseSkiffConfig("Include skiff.conf\n", "skiff.conf", FakeFiles({{"skiff.conf", ""}}));
  ASSERT_FALSE(self.ok());
  EXPECT_THAT(std::string(self.status().message()), HasSubstr("include cycle"));
}

TEST(ParseSkiffConfigTest, IncludeDepthIsLimited) {
  std::map<std::string, std::string> files;
  for (int i = 0; i < 20; ++i)
    files[absl::StrCat(i, ".conf")] = absl::StrCat("Include ", i + 1, ".conf\n");
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("Include 0.conf\n", "skiff.conf", FakeFiles(files));
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("Include: "));
  EXPECT_THAT(std::string(config.status().message()), HasSubstr("nested more than 10 levels"));
}

TEST(ParseSkiffConfigTest, MissingIncludeFileIsReportedAtTheIncludeLine) {
  absl::StatusOr<SkiffConfig> config =
      ParseSkiffConfig("SlurmctldHost=head\nInclude gone.conf\n", "skiff.conf", FakeFiles({}));
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(config.status().message()),
              StartsWith("skiff.conf:2: Include: cannot read 'gone.conf'"));
}

TEST(ParseSkiffConfigTest, MalformedIncludeLinesAreErrors) {
  for (const char* text : {"Include\n", "Include a.conf b.conf\n"}) {
    absl::StatusOr<SkiffConfig> config = ParseSkiffConfig(text, "skiff.conf", FakeFiles({}));
    ASSERT_FALSE(config.ok());
    EXPECT_THAT(std::string(config.status().message()), StartsWith("skiff.conf:1: Include: "))
        << text;
  }
  absl::StatusOr<SkiffConfig> no_reader =
      ParseSkiffConfig("Include a.conf\n", "skiff.conf", nullptr);
  ASSERT_FALSE(no_reader.ok());
  EXPECT_THAT(std::string(no_reader.status().message()), StartsWith("skiff.conf:1: Include: "));
}

// ---------------------------------------------------------------------------
// gres.conf

constexpr char kGresConf[] = R"(# GPUs
AutoDetect=off
Name=gpu Type=a100 File=/dev/nvidia[0-3]
NodeName=n[3-4] Name=gpu Type=v100 File=/dev/nvidia[4-5] Cores=0-15 Flags=nvidia_gpu_env
NodeName=n5 Name=mps Count=200 File=/dev/nvidia0
NodeName=n6 Name=nic Count=2 Links=0,1
)";

TEST(ParseGresConfigTest, ExpandsFileRangesAndDefaultsCountToFiles) {
  absl::StatusOr<GresConfig> gres = ParseGresConfig(kGresConf, "gres.conf", nullptr);
  ASSERT_TRUE(gres.ok()) << gres.status();
  EXPECT_EQ(gres->auto_detect, "off");
  EXPECT_THAT(gres->warnings, IsEmpty());
  ASSERT_EQ(gres->devices.size(), 4u);
  const GresDevice& a100 = gres->devices[0];
  EXPECT_THAT(a100.node_names, IsEmpty());
  EXPECT_EQ(a100.name, "gpu");
  EXPECT_EQ(a100.type, "a100");
  EXPECT_THAT(a100.files,
              ElementsAre("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"));
  EXPECT_EQ(a100.count, 4);
  const GresDevice& v100 = gres->devices[1];
  EXPECT_THAT(v100.node_names, ElementsAre("n3", "n4"));
  EXPECT_EQ(v100.cores, "0-15");
  EXPECT_THAT(v100.flags, ElementsAre("nvidia_gpu_env"));
  EXPECT_EQ(gres->devices[2].count, 200);  // MPS counts shares, not files
  EXPECT_EQ(gres->devices[3].count, 2);
  EXPECT_THAT(gres->devices[3].files, IsEmpty());
}

TEST(ParseGresConfigTest, ForNodeKeepsDevicesForThatNodeInFileOrder) {
  absl::StatusOr<GresConfig> gres = ParseGresConfig(kGresConf, "gres.conf", nullptr);
  ASSERT_TRUE(gres.ok()) << gres.status();
  std::vector<GresDevice> n3 = gres->ForNode("n3");
  ASSERT_EQ(n3.size(), 2u);
  EXPECT_EQ(n3[0].type, "a100");
  EXPECT_EQ(n3[1].type, "v100");
  std::vector<GresDevice> n1 = gres->ForNode("n1");
  ASSERT_EQ(n1.size(), 1u);
  EXPECT_EQ(n1[0].type, "a100");
  EXPECT_EQ(gres->ForNode("n5").size(), 2u);
}

TEST(ParseGresConfigTest, DeviceWithoutFilesCountsOne) {
  absl::StatusOr<GresConfig> gres = ParseGresConfig("Name=license\n", "gres.conf", nullptr);
  ASSERT_TRUE(gres.ok()) << gres.status();
  EXPECT_EQ(gres->devices.at(0).count, 1);
}

TEST(ParseGresConfigTest, RejectsBadInputsNamingFileLineAndKey) {
  const std::vector<BadCase> cases = {
      {"Name=gpu File=/dev/nvidia[0-3] Count=2\n", 1, "Count",
       "2 does not match the 4 files in File=/dev/nvidia[0-3]"},
      {"\nType=a100 File=/dev/nvidia0\n", 2, "Name", "missing"},
      {"Name=gpu File=/dev/nvidia[0-\n", 1, "File", "invalid hostlist"},
      {"NodeName=n[3-4 Name=gpu\n", 1, "NodeName", "invalid hostlist"},
      {"AutoDetect=rsmi\n", 1, "AutoDetect", "'rsmi'"},
      {"Name=gpu Count=-1\n", 1, "Count", "must not be negative"},
      {"Name=gpu Count=many\n", 1, "Count", "'many' is not a number"},
      {"Nmae=gpu\n", 1, "Nmae", "did you mean Name?"},
      {"Name=gpu Files=/dev/nvidia0\n", 1, "Files", "did you mean File?"},
      {"Name=gpu File\n", 1, "File", "missing '='"},
      {"Name=\"gpu\n", 1, "Name", "unterminated quote"},
  };
  for (const BadCase& test : cases) {
    SCOPED_TRACE(test.body);
    absl::StatusOr<GresConfig> gres = ParseGresConfig(test.body, "gres.conf", nullptr);
    ASSERT_FALSE(gres.ok());
    EXPECT_EQ(gres.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(gres.status().message()),
                StartsWith(absl::StrCat("gres.conf:", test.line, ": ", test.key, ": ")));
    EXPECT_THAT(std::string(gres.status().message()), HasSubstr(test.what));
  }
}

// MIG devices configured by hand (Slurm 23.02's MultipleFiles=): each line is
// one device whose files are its GPU's and its capability devices; two MIG
// devices of one GPU share its file.
TEST(ParseGresConfigTest, MultipleFilesIsOneDevice) {
  absl::StatusOr<GresConfig> gres = ParseGresConfig(
      "Name=gpu Type=a100_3g.20gb "
      "MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap[21-22]\n"
      "Name=gpu Type=a100_3g.20gb "
      "MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap30,/dev/nvidia-caps/nvidia-cap31\n",
      "gres.conf", nullptr);
  ASSERT_TRUE(gres.ok()) << gres.status();
  ASSERT_EQ(gres->devices.size(), 2u);
  EXPECT_TRUE(gres->devices[0].multiple_files);
  EXPECT_EQ(gres->devices[0].count, 1);
  EXPECT_THAT(gres->devices[0].files, ElementsAre("/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap21",
                                                  "/dev/nvidia-caps/nvidia-cap22"));
  EXPECT_TRUE(gres->warnings.empty());

  gres = ParseGresConfig("Name=gpu File=/dev/nvidia0 MultipleFiles=/dev/nvidia1\n", "gres.conf",
                         nullptr);
  ASSERT_FALSE(gres.ok());
  EXPECT_EQ(gres.status().message(),
            "gres.conf:1: MultipleFiles: File= and MultipleFiles= are mutually exclusive "
            "(MultipleFiles= lists the files of one MIG device; File= one device per file)");
  gres =
      ParseGresConfig("Name=gpu MultipleFiles=/dev/nvidia0,/dev/a Count=2\n", "gres.conf", nullptr);
  ASSERT_FALSE(gres.ok());
  EXPECT_EQ(gres.status().message(),
            "gres.conf:1: Count: 2: a MultipleFiles= line is one device (leave Count= out)");
}

TEST(ParseGresConfigTest, FollowsIncludes) {
  absl::StatusOr<GresConfig> gres =
      ParseGresConfig("Include gpus.conf\n", "/etc/skiff/gres.conf",
                      FakeFiles({{"/etc/skiff/gpus.conf", "Name=gpu File=/dev/nvidia[0-1]\n"}}));
  ASSERT_TRUE(gres.ok()) << gres.status();
  EXPECT_EQ(gres->devices.at(0).count, 2);
}

// ---------------------------------------------------------------------------
// burst_buffer.conf

TEST(ParseBurstBufferConfigTest, EmptyFileGivesDefaults) {
  absl::StatusOr<BurstBufferConfig> bb = ParseBurstBufferConfig("", "burst_buffer.conf", nullptr);
  ASSERT_TRUE(bb.ok()) << bb.status();
  EXPECT_EQ(bb->directive, "BB_LUA");
  EXPECT_EQ(bb->stage_in_timeout, 86400);
  EXPECT_EQ(bb->stage_out_timeout, 86400);
  EXPECT_EQ(bb->validate_timeout, 5);
  EXPECT_EQ(bb->other_timeout, 300);
  EXPECT_EQ(bb->poll_interval, 15);
  EXPECT_THAT(bb->flags, IsEmpty());
  EXPECT_FALSE(bb->HasFlag("PrivateData"));
}

TEST(ParseBurstBufferConfigTest, ReadsEveryKey) {
  absl::StatusOr<BurstBufferConfig> bb = ParseBurstBufferConfig(
      "# lua burst buffers\n"
      "Directive=BB_SKIFF\n"
      "StageInTimeout=600 StageOutTimeout=700\n"
      "ValidateTimeout=10 OtherTimeout=60 PollInterval=5\n"
      "Flags=privatedata,TeardownFailure\n"
      "AllowUsers=alice:bob,carol\n"
      "DefaultPool=fast\n"
      "CreateBuffer=/opt/create\n",
      "burst_buffer.conf", nullptr);
  ASSERT_TRUE(bb.ok()) << bb.status();
  EXPECT_EQ(bb->directive, "BB_SKIFF");
  EXPECT_EQ(bb->stage_in_timeout, 600);
  EXPECT_EQ(bb->stage_out_timeout, 700);
  EXPECT_EQ(bb->validate_timeout, 10);
  EXPECT_EQ(bb->other_timeout, 60);
  EXPECT_EQ(bb->poll_interval, 5);
  EXPECT_THAT(bb->flags, ElementsAre("PrivateData", "TeardownFailure"));
  EXPECT_TRUE(bb->HasFlag("PRIVATEDATA"));
  EXPECT_FALSE(bb->HasFlag("EmulateCray"));
  EXPECT_THAT(bb->allow_users, ElementsAre("alice", "bob", "carol"));
  EXPECT_THAT(bb->deny_users, IsEmpty());
  EXPECT_EQ(bb->default_pool, "fast");
  EXPECT_THAT(bb->warnings, IsEmpty());
}

TEST(ParseBurstBufferConfigTest, RejectsBadInputsNamingFileLineAndKey) {
  const std::vector<BadCase> cases = {
      {"AllowUsers=alice\nDenyUsers=bob\n", 2, "DenyUsers", "cannot be combined with AllowUsers"},
      {"DenyUsers=bob AllowUsers=alice\n", 1, "AllowUsers", "cannot be combined with DenyUsers"},
      {"Flags=PrivateData,Fast\n", 1, "Flags", "unknown flag: 'Fast'"},
      {"StageInTimeout=0\n", 1, "StageInTimeout", "must be at least 1"},
      {"PollInterval=-5\n", 1, "PollInterval", "must be at least 1"},
      {"OtherTimeout=soon\n", 1, "OtherTimeout", "'soon' is not a number"},
      {"PollIntervall=5\n", 1, "PollIntervall", "did you mean PollInterval?"},
      {"Directive=\n", 1, "Directive", "must not be empty"},
  };
  for (const BadCase& test : cases) {
    SCOPED_TRACE(test.body);
    absl::StatusOr<BurstBufferConfig> bb =
        ParseBurstBufferConfig(test.body, "burst_buffer.conf", nullptr);
    ASSERT_FALSE(bb.ok());
    EXPECT_EQ(bb.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(bb.status().message()),
                StartsWith(absl::StrCat("burst_buffer.conf:", test.line, ": ", test.key, ": ")));
    EXPECT_THAT(std::string(bb.status().message()), HasSubstr(test.what));
  }
}

TEST(ParseBurstBufferConfigTest, UnknownKeyIsAWarning) {
  absl::StatusOr<BurstBufferConfig> bb =
      ParseBurstBufferConfig("Mystery=1\n", "burst_buffer.conf", nullptr);
  ASSERT_TRUE(bb.ok()) << bb.status();
  EXPECT_THAT(bb->warnings, ElementsAre("burst_buffer.conf:1: Mystery: unknown key, ignored"));
}

// ---------------------------------------------------------------------------
// cgroup.conf

TEST(ParseCgroupConfigTest, EmptyFileGivesSlurmDefaults) {
  absl::StatusOr<CgroupConfig> cgroup = ParseCgroupConfig("", "cgroup.conf", nullptr);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  EXPECT_EQ(cgroup->plugin, "autodetect");
  EXPECT_EQ(cgroup->mountpoint, "/sys/fs/cgroup");
  EXPECT_FALSE(cgroup->constrain_cores);
  EXPECT_FALSE(cgroup->constrain_ram_space);
  EXPECT_EQ(cgroup->allowed_ram_space, 100);
  EXPECT_EQ(cgroup->allowed_swap_space, 0);
  EXPECT_EQ(cgroup->max_ram_percent, 100);
  EXPECT_EQ(cgroup->max_swap_percent, 100);
  EXPECT_EQ(cgroup->min_ram_space_mb, 30u);
  EXPECT_EQ(cgroup->memory_swappiness, -1);
  EXPECT_THAT(cgroup->warnings, IsEmpty());
}

TEST(ParseCgroupConfigTest, ReadsEveryKey) {
  absl::StatusOr<CgroupConfig> cgroup = ParseCgroupConfig(
      "###\n# Slurm cgroup support configuration file.\n###\n"
      "CgroupPlugin=cgroup/v2\n"
      "CgroupMountpoint=/sys/fs/cgroup/\n"
      "ConstrainCores=yes ConstrainDevices=yes\n"
      "ConstrainRAMSpace=yes ConstrainSwapSpace=yes\n"
      "AllowedRAMSpace=101.5 AllowedSwapSpace=50.5\n"
      "MaxRAMPercent=98 MaxSwapPercent=99.5 MinRAMSpace=1G\n"
      "IgnoreSystemd=yes EnableControllers=yes SignalChildrenProcesses=yes\n"
      "SystemdTimeout=3000\n",
      "cgroup.conf", nullptr);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  EXPECT_EQ(cgroup->plugin, "cgroup/v2");
  EXPECT_EQ(cgroup->mountpoint, "/sys/fs/cgroup");  // trailing '/' dropped, as Slurm does
  EXPECT_TRUE(cgroup->constrain_cores);
  EXPECT_TRUE(cgroup->constrain_devices);
  EXPECT_TRUE(cgroup->constrain_ram_space);
  EXPECT_TRUE(cgroup->constrain_swap_space);
  EXPECT_DOUBLE_EQ(cgroup->allowed_ram_space, 101.5);
  EXPECT_DOUBLE_EQ(cgroup->allowed_swap_space, 50.5);
  EXPECT_DOUBLE_EQ(cgroup->max_ram_percent, 98);
  EXPECT_DOUBLE_EQ(cgroup->max_swap_percent, 99.5);
  EXPECT_EQ(cgroup->min_ram_space_mb, 1024u);
  EXPECT_TRUE(cgroup->ignore_systemd);
  EXPECT_TRUE(cgroup->ignore_systemd_on_failure);  // implied by IgnoreSystemd
  EXPECT_TRUE(cgroup->enable_controllers);
  EXPECT_TRUE(cgroup->signal_children_processes);
  EXPECT_EQ(cgroup->systemd_timeout_ms, 3000);
  EXPECT_THAT(cgroup->warnings, IsEmpty());
}

TEST(ParseCgroupConfigTest, SwappinessAboveOneHundredIsLoweredWithAWarning) {
  absl::StatusOr<CgroupConfig> cgroup =
      ParseCgroupConfig("CgroupPlugin=cgroup/v1\nMemorySwappiness=250\n", "cgroup.conf", nullptr);
  ASSERT_TRUE(cgroup.ok()) << cgroup.status();
  EXPECT_EQ(cgroup->memory_swappiness, 100);
  EXPECT_THAT(cgroup->warnings, ElementsAre(StartsWith("cgroup.conf:2: MemorySwappiness: 250 ")));
}

// ---------------------------------------------------------------------------
// Fuzz-style robustness: garbage in, a status out, never a crash.

constexpr char kSeedGres[] = "Name=gpu Type=a100 File=/dev/nvidia[0-3]\nNodeName=n[3-4] Name=gpu\n";
constexpr char kSeedBurstBuffer[] =
    "Directive=BB_LUA\nFlags=PrivateData\nAllowUsers=a:b\nStageInTimeout=30\n";

std::string RandomBytes(std::mt19937& rng) {
  std::uniform_int_distribution<int> length(0, 200);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string text(length(rng), '\0');
  for (char& c : text) c = static_cast<char>(byte(rng));
  return text;
}

// Deletes characters and inserts the characters the syntax cares about.
std::string Mutate(std::string text, std::mt19937& rng) {
  static constexpr char kSpecial[] = "=[]\\#\"\n ,:-(";
  std::uniform_int_distribution<int> edits(1, 12);
  std::uniform_int_distribution<int> special(0, sizeof(kSpecial) - 2);
  int count = edits(rng);
  for (int i = 0; i < count; ++i) {
    std::uniform_int_distribution<size_t> position(0, text.size());
    size_t at = position(rng);
    if (rng() % 2 == 0 && at < text.size()) {
      text.erase(at, 1 + rng() % 3);
    } else {
      text.insert(at, 1, kSpecial[special(rng)]);
    }
  }
  return text;
}

template <typename T>
void ExpectCleanFailure(const absl::StatusOr<T>& result, const std::string& input) {
  if (result.ok()) return;
  EXPECT_FALSE(result.status().message().empty()) << input;
  // Every message names the file it is about (inc.conf is the only include).
  std::string message(result.status().message());
  EXPECT_TRUE(message.rfind("fuzz.conf", 0) == 0 || message.rfind("inc.conf", 0) == 0)
      << message << "\n--- input:\n"
      << input;
}

TEST(ConfigFuzzTest, GarbageNeverCrashesAndErrorsAlwaysHaveMessages) {
  std::mt19937 rng(20240601);
  IncludeReader files = FakeFiles({{"inc.conf", "NodeName=n9 CPUs=2\n"}});
  const std::string seeds[] = {
      std::string(kFullConf) + "Include inc.conf\n", kGresConf, kSeedGres, kSeedBurstBuffer,
      "SlurmctldHost=h\nNodeName=n[1-4] Gres=gpu:a100:2 Reason=\"a b\" \\\n CPUs=4\n"};
  for (int i = 0; i < 5000; ++i) {
    std::string input = (i % 5 == 0) ? RandomBytes(rng) : Mutate(seeds[i % 5], rng);
    ExpectCleanFailure(ParseSkiffConfig(input, "fuzz.conf", files), input);
    ExpectCleanFailure(ParseGresConfig(input, "fuzz.conf", files), input);
    ExpectCleanFailure(ParseBurstBufferConfig(input, "fuzz.conf", files), input);
    ExpectCleanFailure(ParseCgroupConfig(input, "fuzz.conf", files), input);
    if (HasFailure()) break;  // one clear report beats thousands
  }
}

}  // namespace
}  // namespace skiff

namespace skiff {
namespace {

TEST(ParseSkiffConfigParameters, SlurmdParametersBecomeAMap) {
  absl::StatusOr<SkiffConfig> config = ParseSkiffConfig(
      "SlurmctldHost=h\nSlurmdParameters=config_overrides,l3cache_as_socket=2\n", "skiff.conf",
      [](const std::string& p) -> absl::StatusOr<std::string> { return absl::NotFoundError(p); });
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->slurmd_parameters.config_overrides);
  EXPECT_EQ(config->slurmd_parameters.as_written.at("l3cache_as_socket"), "2");
  EXPECT_TRUE(config->warnings.empty());
}

TEST(ParseSkiffConfigTest, ContainerImageKeys) {
  absl::StatusOr<SkiffConfig> defaults = ParseSkiffConfig(kFullConf, "skiff.conf", FakeFiles({}));
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->container_image_cache, "");
  EXPECT_EQ(defaults->container_image_cache_bytes, uint64_t{50} << 30);
  EXPECT_EQ(defaults->container_registry_mirror, "");

  const std::string text = std::string(kFullConf) +
                           "ContainerImageCache=/scratch/images\n"
                           "ContainerImageCacheSize=200G\n"
                           "ContainerRegistryMirror=mirror.lab:5000\n";
  absl::StatusOr<SkiffConfig> parsed = ParseSkiffConfig(text, "skiff.conf", FakeFiles({}));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->container_image_cache, "/scratch/images");
  EXPECT_EQ(parsed->container_image_cache_bytes, uint64_t{200} << 30);
  EXPECT_EQ(parsed->container_registry_mirror, "mirror.lab:5000");

  absl::StatusOr<SkiffConfig> bad = ParseSkiffConfig(
      std::string(kFullConf) + "ContainerImageCacheSize=lots\n", "skiff.conf", FakeFiles({}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("ContainerImageCacheSize"));
}

TEST(ParseSkiffConfigTest, AuthJwtKeys) {
  absl::StatusOr<SkiffConfig> parsed = ParseSkiffConfig(
      std::string(kFullConf) +
          "AuthAltTypes=auth/jwt\n"
          "AuthAltParameters=jwt_key=/etc/skiff/jwt_hs256.key,max_token_lifespan=3600,"
          "disable_token_creation\n",
      "skiff.conf", FakeFiles({}));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->auth_jwt);
  EXPECT_EQ(parsed->jwt_key, "/etc/skiff/jwt_hs256.key");
  EXPECT_EQ(parsed->max_token_lifespan, 3600);
  EXPECT_TRUE(parsed->disable_token_creation);

  absl::StatusOr<SkiffConfig> none = ParseSkiffConfig(kFullConf, "skiff.conf", FakeFiles({}));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->auth_jwt);

  absl::StatusOr<SkiffConfig> bad = ParseSkiffConfig(
      std::string(kFullConf) + "AuthAltTypes=auth/none\n", "skiff.conf", FakeFiles({}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("AuthAltTypes"));
}

}  // namespace
}  // namespace skiff
