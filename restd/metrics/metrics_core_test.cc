#include "restd/metrics/metrics_core.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff::restd {
namespace {

// The value of the sample written exactly as `series` ("slurm_nodes",
// "skiff_gpus{type=\"a100\"}"), or "absent".
std::string Sample(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, series + " ")) return std::string(line.substr(series.size() + 1));
  }
  return "absent";
}

// The HELP and TYPE lines of `family` appear once each.
bool DeclaredOnce(const std::string& text, const std::string& family, const std::string& type) {
  const std::string help = absl::StrCat("\n# HELP ", family, " ");
  const std::string type_line = absl::StrCat("\n# TYPE ", family, " ", type, "\n");
  const std::string padded = "\n" + text;
  const size_t first = padded.find(help);
  return first != std::string::npos && padded.find(help, first + 1) == std::string::npos &&
         padded.find(type_line) != std::string::npos;
}

v1::JobInfo Job(uint64_t id, v1::JobState state, const std::string& user,
                const std::string& account, const std::string& partition) {
  v1::JobInfo job;
  job.set_job_id(id);
  job.set_state(state);
  job.set_user_name(user);
  job.set_account(account);
  job.set_partition(partition);
  job.set_num_nodes(1);
  job.set_num_cpus(1);
  return job;
}

v1::GetJobsReply Jobs() {
  v1::GetJobsReply reply;
  v1::JobInfo running = Job(1, v1::RUNNING, "alice", "lab", "gpu");
  running.set_num_cpus(4);
  running.set_num_nodes(2);
  running.set_mem_per_node_mb(1024);
  running.add_nodes("g1");
  running.add_nodes("g2");
  *reply.add_jobs() = running;
  v1::JobInfo configuring = Job(2, v1::CONFIGURING, "bob", "lab", "gpu");
  configuring.set_num_cpus(2);
  *reply.add_jobs() = configuring;
  v1::JobInfo held = Job(3, v1::PENDING, "alice", "lab", "debug");
  held.set_held(true);
  held.set_state_reason("JobHeldUser");
  held.set_num_nodes(3);
  *reply.add_jobs() = held;
  // An array's three pending tasks as one record (collapse_pending_arrays).
  v1::JobInfo tasks = Job(10, v1::PENDING, "bob", "physics", "gpu");
  tasks.set_state_reason("Resources");
  tasks.set_array_job_id(10);
  tasks.set_array_task_id(0);
  for (int t : {0, 1, 2}) tasks.add_collapsed_task_ids(t);
  tasks.set_num_nodes(2);
  *reply.add_jobs() = tasks;
  v1::JobInfo limited = Job(20, v1::PENDING, "carol", "physics", "debug");
  limited.set_state_reason("PartitionNodeLimit");
  *reply.add_jobs() = limited;
  v1::JobInfo completing = Job(21, v1::COMPLETING, "carol", "physics", "debug");
  completing.add_nodes("n1");
  *reply.add_jobs() = completing;
  *reply.add_jobs() = Job(22, v1::COMPLETED, "alice", "lab", "debug");
  *reply.add_jobs() = Job(23, v1::CANCELLED, "alice", "", "debug");
  v1::JobInfo suspended = Job(24, v1::SUSPENDED, "bob", "lab", "debug");
  suspended.set_num_cpus(3);
  *reply.add_jobs() = suspended;
  return reply;
}

v1::NodeInfo Node(const std::string& name, const std::string& state, int cpus, int alloc_cpus) {
  v1::NodeInfo node;
  node.set_name(name);
  node.set_state(state);
  node.set_cpus(cpus);
  node.set_alloc_cpus(alloc_cpus);
  node.set_real_memory_mb(4096);
  node.set_alloc_memory_mb(alloc_cpus * 256);
  return node;
}

void AddGpus(v1::NodeInfo& node, const std::string& type, int count) {
  v1::Gres* gres = node.add_gres();
  gres->set_name("gpu");
  gres->set_type(type);
  gres->set_count(count);
}

// n1 idle (a job completing on it), n2 drained with a job on it, n3 down;
// g1 has 2 a100 and 2 v100 (GPUs 0 and 2 allocated), g2 2 untyped GPUs
// (none allocated) and is drained for a broken GPU; n2's drain is not one.
v1::GetNodesReply Nodes() {
  v1::GetNodesReply reply;
  *reply.add_nodes() = Node("n1", "IDLE", 4, 0);
  v1::NodeInfo n2 = Node("n2", "MIXED", 4, 2);
  n2.set_drain(true);
  n2.set_reason("GPU scratch disk full");
  *reply.add_nodes() = n2;
  v1::NodeInfo n3 = Node("n3", "DOWN", 4, 0);
  n3.set_not_responding(true);
  *reply.add_nodes() = n3;
  v1::NodeInfo g1 = Node("g1", "MIXED", 8, 4);
  AddGpus(g1, "a100", 2);
  AddGpus(g1, "v100", 2);
  g1.add_alloc_gpu_indices(0);
  g1.add_alloc_gpu_indices(2);
  g1.set_free_memory_mb(1000);
  *reply.add_nodes() = g1;
  v1::NodeInfo g2 = Node("g2", "IDLE", 8, 0);
  AddGpus(g2, "", 2);
  g2.set_drain(true);
  g2.set_reason("GPU /dev/nvidia1: Xid 79 (GPU has fallen off the bus)");
  *reply.add_nodes() = g2;
  return reply;
}

v1::GetPartitionsReply Partitions() {
  v1::GetPartitionsReply reply;
  v1::PartitionInfo debug;
  debug.set_name("debug");
  for (const char* n : {"n1", "n2", "n3", "g1", "g2"}) debug.add_nodes(n);
  *reply.add_partitions() = debug;
  v1::PartitionInfo gpu;
  gpu.set_name("gpu");
  for (const char* n : {"g1", "g2"}) gpu.add_nodes(n);
  *reply.add_partitions() = gpu;
  *reply.mutable_nodes() = Nodes().nodes();
  return reply;
}

TEST(MetricsCoreTest, JobsAreCountedPerStateAsSlurmCountsThem) {
  MetricsSnapshot snapshot;
  snapshot.jobs = Jobs();
  const std::string text = MetricsFrom(MetricsEndpoint::kJobs, snapshot);
  EXPECT_EQ(Sample(text, "slurm_jobs"), "11");  // 9 records, the array's 3 tasks counted each
  EXPECT_EQ(Sample(text, "slurm_jobs_running"), "2");  // configuring counts as running
  EXPECT_EQ(Sample(text, "slurm_jobs_configuring"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_pending"), "5");  // held 1, array 3, limited 1
  EXPECT_EQ(Sample(text, "slurm_jobs_hold"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_suspended"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_completing"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_completed"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_cancelled"), "1");
  EXPECT_EQ(Sample(text, "slurm_jobs_finished"), "3");     // completing, completed, cancelled
  EXPECT_EQ(Sample(text, "slurm_jobs_started"), "6");      // all but the pending records
  EXPECT_EQ(Sample(text, "slurm_jobs_cpus_alloc"), "9");   // running 4, configuring 2, susp. 3
  EXPECT_EQ(Sample(text, "slurm_jobs_nodes_alloc"), "4");  // 2 + 1 + 1
  EXPECT_EQ(Sample(text, "slurm_jobs_memory_alloc"), "2147483648");  // 2 nodes x 1 GiB
  EXPECT_EQ(Sample(text, "slurm_jobs_bootfail"), "0");
  EXPECT_TRUE(DeclaredOnce(text, "slurm_jobs_running", "gauge"));
  EXPECT_TRUE(
      absl::StrContains(text, "# HELP slurm_jobs_running Number of jobs in Running state\n"));
  // Only this endpoint's set.
  EXPECT_EQ(Sample(text, "slurm_nodes"), "absent");
  EXPECT_FALSE(absl::StrContains(text, "skiff_"));
}

TEST(MetricsCoreTest, UsersAndAccountsEachGetTheirJobCounts) {
  MetricsSnapshot snapshot;
  snapshot.jobs = Jobs();
  const std::string text = MetricsFrom(MetricsEndpoint::kJobsUsersAccts, snapshot);
  EXPECT_EQ(Sample(text, "slurm_user_jobs_running{username=\"alice\"}"), "1");
  EXPECT_EQ(Sample(text, "slurm_user_jobs_running{username=\"bob\"}"), "1");
  EXPECT_EQ(Sample(text, "slurm_user_jobs_pending{username=\"bob\"}"), "3");
  // Per user and account Slurm counts records, not an array's tasks.
  EXPECT_EQ(Sample(text, "slurm_user_jobs{username=\"bob\"}"), "3");
  EXPECT_EQ(Sample(text, "slurm_account_jobs_pending{account=\"physics\"}"), "4");
  EXPECT_EQ(Sample(text, "slurm_account_jobs_cpus_alloc{account=\"lab\"}"), "9");
  // The job without an account is in no account's counts.
  EXPECT_EQ(Sample(text, "slurm_account_jobs{account=\"lab\"}"), "5");
  EXPECT_FALSE(absl::StrContains(text, "account=\"\""));
  EXPECT_TRUE(DeclaredOnce(text, "slurm_user_jobs_pending", "gauge"));
  EXPECT_TRUE(DeclaredOnce(text, "slurm_account_jobs_pending", "gauge"));
}

TEST(MetricsCoreTest, RunningJobsGpusAreLabelledWithTheJobUserAccountNodeAndGpu) {
  MetricsSnapshot snapshot;
  snapshot.jobs = Jobs();
  v1::GpuUsage* gpu = snapshot.jobs->mutable_jobs(0)->add_gpus();
  gpu->set_node("g1");
  gpu->set_index(1);
  gpu->set_samples(4);
  gpu->set_util_sum(150);
  gpu->set_memory_samples(4);
  gpu->set_memory_max_bytes(2147483648);
  // Not running: its figures are accounting's, not a gauge's.
  *snapshot.jobs->mutable_jobs(1)->add_gpus() = *gpu;
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  const std::string labels = "{job=\"1\",user=\"alice\",account=\"lab\",node=\"g1\",gpu=\"1\"}";
  EXPECT_EQ(Sample(text, "skiff_job_gpu_utilization_percent" + labels), "37.5");
  EXPECT_EQ(Sample(text, "skiff_job_gpu_memory_max_bytes" + labels), "2147483648");
  EXPECT_FALSE(absl::StrContains(text, "job=\"2\""));
  EXPECT_TRUE(DeclaredOnce(text, "skiff_job_gpu_utilization_percent", "gauge"));
}

TEST(MetricsCoreTest, NodesByBaseStateAndFlags) {
  MetricsSnapshot snapshot;
  snapshot.nodes = Nodes();
  snapshot.jobs = Jobs();  // job 21 is completing on n1
  const std::string text = MetricsFrom(MetricsEndpoint::kNodes, snapshot);
  EXPECT_EQ(Sample(text, "slurm_nodes"), "5");
  EXPECT_EQ(Sample(text, "slurm_nodes_idle"), "2");
  EXPECT_EQ(Sample(text, "slurm_nodes_mixed"), "2");
  EXPECT_EQ(Sample(text, "slurm_nodes_down"), "1");
  EXPECT_EQ(Sample(text, "slurm_nodes_alloc"), "0");
  EXPECT_EQ(Sample(text, "slurm_nodes_completing"), "1");
  EXPECT_EQ(Sample(text, "slurm_nodes_draining"), "1");  // n2: drained with a job on it
  EXPECT_EQ(Sample(text, "slurm_nodes_drained"), "1");   // g2
  EXPECT_EQ(Sample(text, "slurm_nodes_drain"), "1");
  EXPECT_EQ(Sample(text, "slurm_nodes_noresp"), "1");
  EXPECT_EQ(Sample(text, "slurm_nodes_cloud"), "0");
  EXPECT_EQ(Sample(text, "slurm_node_cpus{node=\"g1\"}"), "8");
  EXPECT_EQ(Sample(text, "slurm_node_cpus_idle{node=\"g1\"}"), "4");
  EXPECT_EQ(Sample(text, "slurm_node_memory_bytes{node=\"g1\"}"), "4294967296");
  EXPECT_EQ(Sample(text, "slurm_node_memory_alloc_bytes{node=\"g1\"}"), "1073741824");
  EXPECT_EQ(Sample(text, "slurm_node_memory_free_bytes{node=\"g1\"}"), "1048576000");
  EXPECT_TRUE(DeclaredOnce(text, "slurm_node_cpus", "gauge"));
}

TEST(MetricsCoreTest, PartitionsCountTheirNodesAndTheJobsNamingThem) {
  MetricsSnapshot snapshot;
  snapshot.partitions = Partitions();
  snapshot.jobs = Jobs();
  const std::string text = MetricsFrom(MetricsEndpoint::kPartitions, snapshot);
  EXPECT_EQ(Sample(text, "slurm_partitions"), "2");
  EXPECT_EQ(Sample(text, "slurm_partition_nodes{partition=\"debug\"}"), "5");
  EXPECT_EQ(Sample(text, "slurm_partition_nodes{partition=\"gpu\"}"), "2");
  EXPECT_EQ(Sample(text, "slurm_partition_cpus{partition=\"gpu\"}"), "16");
  EXPECT_EQ(Sample(text, "slurm_partition_nodes_cpus_alloc{partition=\"gpu\"}"), "4");
  EXPECT_EQ(Sample(text, "slurm_partition_nodes_mixed{partition=\"gpu\"}"), "1");
  EXPECT_EQ(Sample(text, "slurm_partition_nodes_cg{partition=\"debug\"}"), "1");
  // gpu: running, configuring and the array's record are not yet ended.
  EXPECT_EQ(Sample(text, "slurm_partition_jobs{partition=\"gpu\"}"), "3");
  EXPECT_EQ(Sample(text, "slurm_partition_jobs_pending{partition=\"gpu\"}"), "3");
  EXPECT_EQ(Sample(text, "slurm_partition_jobs_max_job_nodes{partition=\"gpu\"}"), "2");
  // debug: the held job asks for 3 nodes, the unheld one for 1.
  EXPECT_EQ(Sample(text, "slurm_partition_jobs_max_job_nodes{partition=\"debug\"}"), "3");
  EXPECT_EQ(Sample(text, "slurm_partition_jobs_max_job_nodes_nohold{partition=\"debug\"}"), "1");
  EXPECT_EQ(Sample(text, "slurm_partition_jobs_wait_part_node_limit{partition=\"debug\"}"), "1");
  // debug: held, limited, completing and suspended; not the completed or cancelled.
  EXPECT_EQ(Sample(text, "slurm_partition_jobs{partition=\"debug\"}"), "4");
}

TEST(MetricsCoreTest, SchedulerSetUsesSlurmsNamesAndMeans) {
  MetricsSnapshot snapshot;
  v1::GetStatsReply stats;
  stats.set_schedule_cycle_last(1500);
  stats.set_schedule_cycle_max(9000);
  stats.set_schedule_cycle_sum(10000);
  stats.set_schedule_cycle_counter(3);
  stats.set_bf_cycle_counter(2);
  stats.set_bf_cycle_sum(5001);
  stats.set_bf_active(true);
  stats.set_req_time(1754000000);
  stats.set_jobs_submitted(12);
  snapshot.stats = stats;
  const std::string text = MetricsFrom(MetricsEndpoint::kScheduler, snapshot);
  EXPECT_EQ(Sample(text, "slurm_schedule_cycle_last"), "1500");
  EXPECT_EQ(Sample(text, "slurm_schedule_cycle_max"), "9000");
  EXPECT_EQ(Sample(text, "slurm_schedule_cycle_tot"), "10000");
  EXPECT_EQ(Sample(text, "slurm_schedule_cycle_cnt"), "3");
  EXPECT_EQ(Sample(text, "slurm_sched_mean_cycle"), "3333");  // integer means, as Slurm's
  EXPECT_EQ(Sample(text, "slurm_bf_mean_cycle"), "2500");
  EXPECT_EQ(Sample(text, "slurm_bf_active"), "1");
  EXPECT_EQ(Sample(text, "slurm_sdiag_jobs_submitted"), "12");
  EXPECT_EQ(Sample(text, "slurm_sched_stats_timestamp"), "1754000000");
  EXPECT_FALSE(absl::StrContains(text, "skiff_"));
}

TEST(MetricsCoreTest, GpusPerTypeForTheClusterAndPerPartition) {
  MetricsSnapshot snapshot;
  snapshot.nodes = Nodes();
  snapshot.partitions = Partitions();
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_gpus{type=\"a100\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_gpus_allocated{type=\"a100\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_gpus_idle{type=\"a100\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_gpus_allocated{type=\"v100\"}"), "1");
  // g2's untyped GPUs are on a drained node: free but not usable.
  EXPECT_EQ(Sample(text, "skiff_gpus{type=\"\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_gpus_idle{type=\"\"}"), "0");
  EXPECT_EQ(Sample(text, "skiff_gpus_unavailable{type=\"\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_node_gpus_allocated{node=\"g1\",type=\"v100\"}"), "1");
  // g2 is drained for its broken GPU; n2's drain is no GPU's.
  EXPECT_EQ(Sample(text,
                   "skiff_node_gpu_fault{node=\"g2\",gpu=\"/dev/nvidia1\",error=\"Xid 79 (GPU has "
                   "fallen off the bus)\"}"),
            "1");
  EXPECT_FALSE(absl::StrContains(text, "skiff_node_gpu_fault{node=\"n2\""));
  EXPECT_TRUE(DeclaredOnce(text, "skiff_node_gpu_fault", "gauge"));
  // Both partitions hold g1 and g2, so each has every GPU.
  for (const char* partition : {"debug", "gpu"}) {
    EXPECT_EQ(Sample(text, absl::StrCat("skiff_partition_gpus{partition=\"", partition,
                                        "\",type=\"a100\"}")),
              "2");
    EXPECT_EQ(Sample(text, absl::StrCat("skiff_partition_gpus_allocated{partition=\"", partition,
                                        "\",type=\"v100\"}")),
              "1");
  }
  EXPECT_EQ(Sample(text, "skiff_partition_gpus_idle{partition=\"gpu\",type=\"v100\"}"), "1");
  // The whole set carries Slurm's too.
  EXPECT_EQ(Sample(text, "slurm_nodes"), "5");
  EXPECT_EQ(Sample(text, "slurm_partitions"), "2");
  EXPECT_TRUE(DeclaredOnce(text, "skiff_gpus", "gauge"));
}

// A GPU with shard jobs on it is in use; the node's shares are counted.
TEST(MetricsCoreTest, SharedGpusAreInUseAndTheirSharesCounted) {
  MetricsSnapshot snapshot;
  v1::GetNodesReply nodes;
  v1::NodeInfo* node = nodes.add_nodes();
  node->set_name("s1");
  node->set_state("MIXED");
  v1::Gres* gpu = node->add_gres();
  gpu->set_name("gpu");
  gpu->set_count(2);
  v1::Gres* shard = node->add_gres();
  shard->set_name("shard");
  shard->set_count(8);
  for (int held : {3, 0}) node->add_alloc_gpu_shares(held);
  snapshot.nodes = nodes;
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_node_gpus_allocated{node=\"s1\",type=\"\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_gpus_idle{type=\"\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_node_gpu_shares{node=\"s1\",gres=\"shard\"}"), "8");
  EXPECT_EQ(Sample(text, "skiff_node_gpu_shares_allocated{node=\"s1\",gres=\"shard\"}"), "3");
  EXPECT_TRUE(DeclaredOnce(text, "skiff_node_gpu_shares", "gauge"));
}

TEST(MetricsCoreTest, GpuUseAndBudgetsPerUserAccountAndQos) {
  MetricsSnapshot snapshot;
  v1::GetAccountsReply accounts;
  v1::JobsInUse alice;
  alice.mutable_running_tres()->set_gpu(2);
  v1::AssocUsage* alice_usage = accounts.add_assoc_usage();
  alice_usage->mutable_key()->set_account("lab");
  alice_usage->mutable_key()->set_user("alice");
  *alice_usage->mutable_in_use() = alice;
  v1::AssocUsage* lab_usage = accounts.add_assoc_usage();
  lab_usage->mutable_key()->set_account("lab");
  *lab_usage->mutable_in_use() = alice;
  v1::QosUsage* gpu4_usage = accounts.add_qos_usage();
  gpu4_usage->set_qos("gpu4");
  *gpu4_usage->mutable_in_use() = alice;
  v1::AssocInfo lab;
  lab.set_account("lab");
  lab.mutable_limits()->mutable_grp_tres()->set_gpu(8);
  lab.mutable_limits()->mutable_grp_tres_mins()->set_gpu(6000);  // 100 GPU-hours
  *accounts.add_assocs() = lab;
  v1::AssocInfo own;
  own.set_account("lab");
  own.set_user("alice");
  own.mutable_limits()->mutable_grp_tres_mins()->set_gpu(600);
  *accounts.add_assocs() = own;
  v1::BudgetMinutes used;
  used.set_gpu(90);
  *lab_usage->mutable_used_budget_mins() = used;
  *alice_usage->mutable_used_budget_mins() = used;
  *gpu4_usage->mutable_used_budget_mins() = used;
  v1::BudgetMinutes held;
  held.set_gpu(std::numeric_limits<double>::infinity());
  *lab_usage->mutable_held_budget_mins() = held;
  snapshot.accounts = accounts;
  v1::GetQosReply qos;
  v1::QosInfo gpu4;
  gpu4.set_name("gpu4");
  gpu4.mutable_max_tres_per_user()->set_gpu(4);
  gpu4.mutable_grp_tres_mins()->set_gpu(120);
  *qos.add_qos() = gpu4;
  v1::QosInfo normal;
  normal.set_name("normal");
  *qos.add_qos() = normal;
  snapshot.qos = qos;
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_user_gpus_allocated{user=\"alice\",account=\"lab\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_account_gpus_allocated{account=\"lab\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_account_gpus_limit{account=\"lab\"}"), "8");
  EXPECT_EQ(Sample(text, "skiff_account_gpu_hours_used{account=\"lab\"}"), "1.5");
  EXPECT_EQ(Sample(text, "skiff_account_gpu_hours_held{account=\"lab\"}"), "+Inf");
  EXPECT_EQ(Sample(text, "skiff_account_gpu_hours_budget{account=\"lab\"}"), "100");
  EXPECT_EQ(Sample(text, "skiff_user_gpu_hours_used{user=\"alice\",account=\"lab\"}"), "1.5");
  EXPECT_EQ(Sample(text, "skiff_user_gpu_hours_budget{user=\"alice\",account=\"lab\"}"), "10");
  EXPECT_EQ(Sample(text, "skiff_qos_gpu_hours_used{qos=\"gpu4\"}"), "1.5");
  EXPECT_EQ(Sample(text, "skiff_qos_gpu_hours_budget{qos=\"gpu4\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_qos_gpus_allocated{qos=\"gpu4\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_qos_gpus_allocated{qos=\"normal\"}"), "0");
  EXPECT_EQ(Sample(text, "skiff_qos_gpus_per_user_limit{qos=\"gpu4\"}"), "4");
  EXPECT_EQ(Sample(text, "skiff_qos_gpus_per_user_limit{qos=\"normal\"}"), "absent");
  for (const char* family : {"skiff_account_gpu_hours_used", "skiff_user_gpu_hours_used",
                             "skiff_qos_gpu_hours_used", "skiff_user_gpus_allocated"}) {
    EXPECT_TRUE(DeclaredOnce(text, family, "gauge")) << family;
  }
}

TEST(MetricsCoreTest, PendingReasonsCountArrayTasksAndLabelsAreEscaped) {
  MetricsSnapshot snapshot;
  snapshot.jobs = Jobs();
  v1::JobInfo odd = Job(30, v1::PENDING, "o\"brien", "lab", "debug");
  odd.set_state_reason("Dependency");
  *snapshot.jobs->add_jobs() = odd;
  std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_jobs_pending{reason=\"Resources\"}"), "3");
  EXPECT_EQ(Sample(text, "skiff_jobs_pending{reason=\"JobHeldUser\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_jobs_pending{reason=\"PartitionNodeLimit\"}"), "1");
  EXPECT_EQ(Sample(text, "skiff_jobs_pending{reason=\"Dependency\"}"), "1");
  text = MetricsFrom(MetricsEndpoint::kJobsUsersAccts, snapshot);
  EXPECT_EQ(Sample(text, "slurm_user_jobs_pending{username=\"o\\\"brien\"}"), "1");
}

TEST(MetricsCoreTest, CycleTimesAndRpcLatenciesInSeconds) {
  MetricsSnapshot snapshot;
  v1::GetStatsReply stats;
  stats.set_schedule_cycle_last(1500);
  stats.set_schedule_cycle_sum(10000);
  stats.set_schedule_cycle_counter(4);
  stats.set_bf_cycle_max(250000);
  v1::RpcTypeStat* rpc = stats.add_rpcs_by_type();
  rpc->set_name("REQUEST_JOB_INFO");
  rpc->set_count(10);
  rpc->set_total_time(5000);
  v1::RpcUserStat* user = stats.add_rpcs_by_user();
  user->set_uid(0);
  user->set_user("root");
  user->set_count(3);
  user->set_total_time(300);
  snapshot.stats = stats;
  snapshot.round_trips = {{"GetStats", 0.002}};
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_scheduler_cycle_last_seconds{scheduler=\"main\"}"), "0.0015");
  EXPECT_EQ(Sample(text, "skiff_scheduler_cycle_mean_seconds{scheduler=\"main\"}"), "0.0025");
  EXPECT_EQ(Sample(text, "skiff_scheduler_cycle_max_seconds{scheduler=\"backfill\"}"), "0.25");
  EXPECT_EQ(Sample(text, "skiff_scheduler_cycles_total{scheduler=\"main\"}"), "4");
  EXPECT_EQ(Sample(text, "skiff_scheduler_cycle_seconds_total{scheduler=\"main\"}"), "0.01");
  EXPECT_EQ(Sample(text, "skiff_ctld_rpcs_total{rpc=\"REQUEST_JOB_INFO\"}"), "10");
  EXPECT_EQ(Sample(text, "skiff_ctld_rpc_seconds_total{rpc=\"REQUEST_JOB_INFO\"}"), "0.005");
  EXPECT_EQ(Sample(text, "skiff_ctld_rpc_average_seconds{rpc=\"REQUEST_JOB_INFO\"}"), "0.0005");
  EXPECT_EQ(Sample(text, "skiff_ctld_user_rpcs_total{user=\"root\"}"), "3");
  EXPECT_EQ(Sample(text, "skiff_restd_ctld_round_trip_seconds{rpc=\"GetStats\"}"), "0.002");
  EXPECT_TRUE(DeclaredOnce(text, "skiff_ctld_rpcs_total", "counter"));
  // Slurm's scheduler set is in /metrics too.
  EXPECT_EQ(Sample(text, "slurm_schedule_cycle_last"), "1500");
}

TEST(MetricsCoreTest, JobOverheadsAndScriptdCallsByNameInSeconds) {
  MetricsSnapshot snapshot;
  v1::GetStatsReply stats;
  stats.mutable_job_start_overhead()->set_count(8);
  stats.mutable_job_start_overhead()->set_total_time(400000);
  stats.mutable_job_start_overhead()->set_max_time(90000);
  stats.mutable_job_end_overhead()->set_count(7);
  v1::CallTimeStat* call = stats.add_scriptd_calls();
  call->set_name("slurm_bb_data_in");
  call->set_count(2);
  call->set_total_time(30000);
  call->set_max_time(20000);
  snapshot.stats = stats;
  const std::string text = MetricsFrom(MetricsEndpoint::kAll, snapshot);
  EXPECT_EQ(Sample(text, "skiff_job_overheads_total{phase=\"start\"}"), "8");
  EXPECT_EQ(Sample(text, "skiff_job_overheads_total{phase=\"end\"}"), "7");
  EXPECT_EQ(Sample(text, "skiff_job_overhead_seconds_total{phase=\"start\"}"), "0.4");
  EXPECT_EQ(Sample(text, "skiff_job_overhead_max_seconds{phase=\"start\"}"), "0.09");
  EXPECT_EQ(Sample(text, "skiff_scriptd_calls_total{call=\"slurm_bb_data_in\"}"), "2");
  EXPECT_EQ(Sample(text, "skiff_scriptd_call_seconds_total{call=\"slurm_bb_data_in\"}"), "0.03");
  EXPECT_EQ(Sample(text, "skiff_scriptd_call_max_seconds{call=\"slurm_bb_data_in\"}"), "0.02");
  EXPECT_TRUE(DeclaredOnce(text, "skiff_scriptd_calls_total", "counter"));
  EXPECT_TRUE(DeclaredOnce(text, "skiff_job_overheads_total", "counter"));
}

TEST(MetricsCoreTest, WhatEachEndpointNeedsFromCtld) {
  EXPECT_TRUE(NeedsOf(MetricsEndpoint::kJobs).jobs);
  EXPECT_FALSE(NeedsOf(MetricsEndpoint::kJobs).nodes);
  EXPECT_FALSE(NeedsOf(MetricsEndpoint::kNodes).jobs);
  EXPECT_TRUE(NeedsOf(MetricsEndpoint::kNodes).completing_jobs);
  EXPECT_TRUE(NeedsOf(MetricsEndpoint::kPartitions).jobs);
  EXPECT_TRUE(NeedsOf(MetricsEndpoint::kScheduler).stats);
  const MetricsNeeds all = NeedsOf(MetricsEndpoint::kAll);
  EXPECT_TRUE(all.jobs && all.nodes && all.partitions && all.stats && all.accounts && all.qos);
}

}  // namespace
}  // namespace skiff::restd
