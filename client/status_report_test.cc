#include "client/status_report.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace skiff::client {
namespace {

constexpr int64_t kNow = 1'800'000'000;

v1::NodeInfo Node(const std::string& name, const std::string& state, int gpus,
                  const std::string& type = "") {
  v1::NodeInfo node;
  node.set_name(name);
  node.set_state(state);
  if (gpus > 0) {
    v1::Gres* gres = node.add_gres();
    gres->set_name("gpu");
    gres->set_type(type);
    gres->set_count(gpus);
  }
  return node;
}

v1::JobInfo Job(uint64_t id, const std::string& user, v1::JobState state, const std::string& qos,
                int gpus) {
  v1::JobInfo job;
  job.set_job_id(id);
  job.set_array_task_id(-1);
  job.set_user_name(user);
  job.set_state(state);
  job.set_qos(qos);
  job.set_partition("titanic");
  job.set_now(kNow);
  job.mutable_spec()->set_name("inception");
  if (gpus > 0) job.mutable_spec()->add_gres(absl::StrCat("gpu:", gpus));
  job.set_num_cpus(1);
  if (state == v1::RUNNING) {
    v1::JobNodeResources* node = job.add_node_resources();
    for (int i = 0; i < gpus; ++i) node->add_gpu_indices(i);
  }
  return job;
}

v1::QosInfo Qos(const std::string& name, std::optional<int64_t> gpu_per_user) {
  v1::QosInfo qos;
  qos.set_name(name);
  if (gpu_per_user) qos.mutable_max_tres_per_user()->set_gpu(*gpu_per_user);
  return qos;
}

// The seed's cluster: 7 nodes (6 with 4 GPUs), baltic-1 the only free one.
SstatusInput Titanic() {
  SstatusInput input;
  input.cluster_name = "Titanic";
  input.user = "ebrame";
  input.jobs.set_now(kNow);
  for (int i = 1; i <= 6; ++i) {
    v1::NodeInfo node = Node(absl::StrCat("titanic-", i), i <= 4 ? "ALLOCATED" : "MIXED", 4);
    const int held = i <= 4 ? 4 : 1;
    for (int g = 0; g < held; ++g) node.add_alloc_gpu_indices(g);
    node.set_alloc_cpus(8);
    *input.nodes.add_nodes() = node;
  }
  *input.nodes.add_nodes() = Node("baltic-1", "IDLE", 0);
  *input.qos.add_qos() = Qos("normal", std::nullopt);
  *input.qos.add_qos() = Qos("priority", 4);
  v1::JobInfo job = Job(74306, "ebrame", v1::RUNNING, "priority", 4);
  job.set_num_cpus(4);
  job.set_start_time(kNow - (86400 + 3600 + 27 * 60 + 11) / 4);
  *input.jobs.add_jobs() = job;
  return input;
}

TEST(SstatusReportTest, ReadsLikeTheSeed) {
  EXPECT_EQ(FormatSstatusText(BuildSstatusReport(Titanic())),
            "Titanic status:\n"
            "GPU Usage: 18/24\n"
            "Free Nodes: 1/7: baltic-1\n"
            "=====\n"
            "Job details for user ebrame:\n"
            "Using 4/4 GPUs allowed on priority queue.\n"
            "\n"
            "Partition\tJobID\tJobName\tState\tReqGRES\tCPUTime\n"
            "-----\t-----\t-----\t-----\t-----\t-----\n"
            "titanic\t74306\tinception\tRUNNING\tgpu:4\t1-01:27:08\n");
}

TEST(SstatusReportTest, CountsEveryNodesGpusAndWhatIsAllocated) {
  SstatusInput input;
  *input.nodes.add_nodes() = Node("n1", "IDLE", 0);
  v1::NodeInfo busy = Node("n2", "MIXED", 2);
  busy.add_alloc_gpu_indices(1);
  *input.nodes.add_nodes() = busy;
  *input.nodes.add_nodes() = Node("n3", "DOWN", 2);  // down GPUs still count in the total
  const SstatusReport report = BuildSstatusReport(input);
  EXPECT_EQ(report.gpus.allocated, 1);
  EXPECT_EQ(report.gpus.total, 4);
  EXPECT_TRUE(report.gpus_by_type.empty());
}

TEST(SstatusReportTest, TypedGpusGetALineEachByType) {
  SstatusInput input;
  input.cluster_name = "lab";
  input.user = "alice";
  // One node with two types: its GPUs are numbered across the entries (0-1 v100, 2-5 a100).
  v1::NodeInfo mixed = Node("g1", "MIXED", 2, "v100");
  v1::Gres* a100 = mixed.add_gres();
  a100->set_name("gpu");
  a100->set_type("a100");
  a100->set_count(4);
  mixed.add_alloc_gpu_indices(1);
  mixed.add_alloc_gpu_indices(2);
  mixed.add_alloc_gpu_indices(3);
  *input.nodes.add_nodes() = mixed;
  *input.nodes.add_nodes() = Node("g2", "IDLE", 4, "a100");
  const std::string text = FormatSstatusText(BuildSstatusReport(input));
  EXPECT_NE(text.find("GPU Usage: 3/10\n"
                      "GPU Usage (a100): 2/8\n"
                      "GPU Usage (v100): 1/2\n"
                      "Free Nodes: 1/2: g2\n"),
            std::string::npos)
      << text;
}

TEST(SstatusReportTest, FreeNodesAreUpIdleAndHoldNothing) {
  SstatusInput input;
  for (int i = 1; i <= 4; ++i) *input.nodes.add_nodes() = Node(absl::StrCat("n", i), "IDLE", 0);
  input.nodes.mutable_nodes(1)->set_drain(true);
  v1::NodeInfo down = Node("n5", "DOWN", 0);
  *input.nodes.add_nodes() = down;
  v1::NodeInfo silent = Node("n6", "IDLE", 0);
  silent.set_not_responding(true);
  *input.nodes.add_nodes() = silent;
  v1::NodeInfo mixed = Node("n7", "MIXED", 0);
  mixed.set_alloc_cpus(1);
  *input.nodes.add_nodes() = mixed;
  const SstatusReport report = BuildSstatusReport(input);
  EXPECT_EQ(report.free_nodes, (std::vector<std::string>{"n1", "n3", "n4"}));
  EXPECT_NE(FormatSstatusText(report).find("Free Nodes: 3/7: n[1,3-4]\n"), std::string::npos);
}

TEST(SstatusReportTest, NoFreeNodeLeavesTheListOut) {
  SstatusInput input;
  *input.nodes.add_nodes() = Node("n1", "ALLOCATED", 0);
  EXPECT_NE(FormatSstatusText(BuildSstatusReport(input)).find("Free Nodes: 0/1\n=====\n"),
            std::string::npos);
}

TEST(SstatusReportTest, QosCapCountsOnlyTheUsersRunningJobsInThatQos) {
  SstatusInput input;
  input.user = "alice";
  *input.qos.add_qos() = Qos("normal", std::nullopt);
  *input.qos.add_qos() = Qos("gpu4", 4);
  *input.qos.add_qos() = Qos("big", 16);  // no association allows it, no job uses it
  *input.jobs.add_jobs() = Job(1, "alice", v1::RUNNING, "gpu4", 2);
  *input.jobs.add_jobs() = Job(2, "alice", v1::PENDING, "gpu4", 2);
  *input.jobs.add_jobs() = Job(3, "alice", v1::RUNNING, "normal", 1);
  const SstatusReport report = BuildSstatusReport(input);
  ASSERT_EQ(report.limits.size(), 1u);
  EXPECT_EQ(report.limits[0].name, "gpu4");
  EXPECT_EQ(report.limits[0].used, 2);
  EXPECT_EQ(report.limits[0].limit, 4);
  EXPECT_EQ(report.user_gpus, 3);
  EXPECT_NE(FormatSstatusText(report).find("Job details for user alice:\n"
                                           "Using 2/4 GPUs allowed on gpu4 queue.\n\n"),
            std::string::npos);
}

TEST(SstatusReportTest, QosAllowedByTheAssociationAppliesWithoutAJob) {
  SstatusInput input;
  input.user = "alice";
  *input.qos.add_qos() = Qos("gpu4", 4);
  v1::AssocInfo* root = input.accounts.add_assocs();
  root->set_account("root");
  root->add_qos("normal");
  v1::AssocInfo* lab = input.accounts.add_assocs();
  lab->set_account("lab");
  lab->set_parent_account("root");
  lab->add_qos("normal");
  lab->add_qos("gpu4");
  v1::AssocInfo* alice = input.accounts.add_assocs();
  alice->set_account("lab");
  alice->set_user("alice");  // no QOS of its own: lab's apply
  EXPECT_NE(
      FormatSstatusText(BuildSstatusReport(input)).find("Using 0/4 GPUs allowed on gpu4 queue.\n"),
      std::string::npos);
}

TEST(SstatusReportTest, AssociationGrpTresGpuLimits) {
  SstatusInput input;
  input.user = "alice";
  v1::AssocInfo* root = input.accounts.add_assocs();
  root->set_account("root");
  v1::AssocInfo* lab = input.accounts.add_assocs();
  lab->set_account("lab");
  lab->set_parent_account("root");
  lab->mutable_limits()->mutable_grp_tres()->set_gpu(8);
  v1::AssocInfo* alice = input.accounts.add_assocs();
  alice->set_account("lab");
  alice->set_user("alice");
  alice->mutable_limits()->mutable_grp_tres()->set_gpu(2);
  v1::AssocUsage* lab_usage = input.accounts.add_assoc_usage();
  lab_usage->mutable_key()->set_account("lab");
  lab_usage->mutable_in_use()->mutable_running_tres()->set_gpu(5);
  v1::JobInfo job = Job(7, "alice", v1::RUNNING, "normal", 1);
  job.set_account("lab");
  *input.jobs.add_jobs() = job;
  EXPECT_NE(FormatSstatusText(BuildSstatusReport(input))
                .find("Using 1/2 GPUs allowed on account lab.\n"
                      "Using 5/8 GPUs allowed on account lab (all its users).\n"),
            std::string::npos);
}

TEST(SstatusReportTest, NoCapSaysSo) {
  SstatusInput input;
  input.user = "alice";
  *input.qos.add_qos() = Qos("normal", std::nullopt);
  *input.qos.add_qos() = Qos("cleared", -1);  // -1: the limit was cleared
  *input.jobs.add_jobs() = Job(1, "alice", v1::RUNNING, "cleared", 2);
  EXPECT_NE(FormatSstatusText(BuildSstatusReport(input))
                .find("Job details for user alice:\nUsing 2 GPUs (no GPU limit).\n\n"),
            std::string::npos);
}

TEST(SstatusReportTest, ListsPendingAndRunningJobsOfTheUserById) {
  SstatusInput input;
  input.user = "alice";
  input.jobs.set_now(kNow);
  v1::JobInfo pending = Job(10, "alice", v1::PENDING, "normal", 0);
  pending.set_partition("");
  pending.mutable_spec()->set_partition("gpu");
  pending.mutable_spec()->set_gpus_per_node("a100:2");
  *input.jobs.add_jobs() = pending;
  v1::JobInfo running = Job(9, "alice", v1::RUNNING, "normal", 1);
  running.set_num_cpus(2);
  running.set_start_time(kNow - 65);
  *input.jobs.add_jobs() = running;
  *input.jobs.add_jobs() = Job(8, "bob", v1::RUNNING, "normal", 1);  // not alice's
  v1::JobInfo task = Job(11, "alice", v1::PENDING, "normal", 0);
  task.set_array_job_id(11);
  task.set_array_task_id(3);
  *input.jobs.add_jobs() = task;
  const std::string text = FormatSstatusText(BuildSstatusReport(input));
  EXPECT_NE(text.find("-----\t-----\t-----\t-----\t-----\t-----\n"
                      "titanic\t9\tinception\tRUNNING\tgpu:1\t00:02:10\n"
                      "gpu\t10\tinception\tPENDING\tgpu:a100:2\t00:00:00\n"
                      "titanic\t11_3\tinception\tPENDING\t-\t00:00:00\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\t8\t"), std::string::npos);
}

TEST(SstatusReportTest, CpuTimeIsElapsedTimesCpusLessSuspendedTime) {
  SstatusInput input;
  input.user = "alice";
  v1::JobInfo job = Job(1, "alice", v1::RUNNING, "normal", 0);
  job.set_num_cpus(8);
  job.set_start_time(kNow - 1000);
  job.set_suspended_seconds(100);
  *input.jobs.add_jobs() = job;
  ASSERT_EQ(BuildSstatusReport(input).jobs.size(), 1u);
  EXPECT_EQ(BuildSstatusReport(input).jobs[0].cpu_seconds, 7200);
}

TEST(SstatusReportTest, FormatsCpuTimeAsSacct) {
  EXPECT_EQ(FormatCpuTime(0), "00:00:00");
  EXPECT_EQ(FormatCpuTime(59), "00:00:59");
  EXPECT_EQ(FormatCpuTime(3723), "01:02:03");
  EXPECT_EQ(FormatCpuTime(86399), "23:59:59");
  EXPECT_EQ(FormatCpuTime(86400), "1-00:00:00");
  EXPECT_EQ(FormatCpuTime(2 * 86400 + 5331), "2-01:28:51");
  EXPECT_EQ(FormatCpuTime(-5), "00:00:00");
}

TEST(SstatusReportTest, JsonHasTheSameData) {
  const std::string json = FormatSstatusJson(BuildSstatusReport(Titanic()));
  for (const char* piece :
       {"\"cluster\": \"Titanic\"", "\"allocated\": 18", "\"total\": 24", "\"free\": 1",
        "\"free_nodes\": \"baltic-1\"", "\"user\": \"ebrame\"", "\"kind\": \"qos\"",
        "\"name\": \"priority\"", "\"used\": 4", "\"limit\": 4", "\"job_id\": \"74306\"",
        "\"req_gres\": \"gpu:4\"", "\"cpu_time\": \"1-01:27:08\""}) {
    EXPECT_NE(json.find(piece), std::string::npos) << piece << "\n" << json;
  }
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '\n');
}

}  // namespace
}  // namespace skiff::client
